"""The Leaderboard tab: the ranking of one view (category, value kind, search, filters,
sort, columns, p-values, flagged models left out or not), its downloads, legend and plot."""
from __future__ import annotations

import math

import gradio as gr

from leaderboard.app.settings import PRIVATE
from leaderboard.submission.metadata import MODEL_TYPES
from leaderboard.views import share, table as board_views

OVERALL = board_views.OVERALL
VALUE_CHOICES = [("Win score (%)", board_views.WIN_SCORE), ("Metric value (per task)", board_views.METRIC_VALUE)]
VALUES_IN_OVERALL = "Overall shows win scores only; choose a category to see each task's metric."
VALUES_IN_CATEGORY = "Win score: % of duels won. Metric value: the task's own metric, in the header's unit."
MODEL_WIDTH = "170px"  # the pinned Model column, right of the rank
# What a link restores into the controls themselves; sort, values and flagged come with the table.
RESTORED_KEYS = ["category", "search", "types", "min", "max", "columns", "p"]


def rank_width(header: str) -> str:
    """The pinned rank column's width: its header's longest word on one line ("Understanding"
    in "Czech Language Understanding rank"); headers are 14px monospace, 0.6em a letter,
    plus the cell's padding and a margin for fonts a little wider."""
    return f"{max(60, math.ceil(8.6 * max(map(len, header.split())) + 20))}px"


class LeaderboardTab:
    """The tab's components, built where it is created (inside the page's Tabs). A view is a
    dict by the URL's keys (share.BOARD_KEYS); `controls` are its inputs by the same keys."""

    def __init__(self, board, p_values: gr.Radio, default_view: dict, categories: list[str]):
        self.board, self.default_view = board, default_view
        first = self.parts(self.board_view(default_view))
        self.first_revision = first["revision"]
        with gr.Tab("Leaderboard", id="leaderboard") as self.tab:
            self.as_of = gr.Markdown(first["as_of"], elem_id="as-of")
            with gr.Row(elem_id="board-controls"):
                category = gr.Dropdown(categories, value=default_view["category"], label="Category",
                                       elem_id="category", min_width=150)
                self.values = gr.Radio(VALUE_CHOICES, value=default_view["values"], label="Show", elem_id="values",
                                       interactive=False, info=VALUES_IN_OVERALL, min_width=150)
                self.sort = gr.Dropdown(first["sorts"], value=default_view["sort"], label="Sort by", elem_id="sort",
                                        min_width=150)
                search = gr.Textbox(label="Search model or team", elem_id="search", min_width=150)
            self.exclude_flagged = gr.Checkbox(value=default_view["exclude_flagged"], visible=first["any_flagged"],
                                               label=f"Exclude flagged models ({board_views.MARKER}): rank without "
                                                     f"them and their duels", elem_id="exclude-flagged")
            with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
                with gr.Row():
                    types = gr.CheckboxGroup(list(MODEL_TYPES), label="Model type", elem_id="types")
                    min_params = gr.Number(label="Min parameters (B)", value=None, minimum=0,
                                           placeholder="no minimum", elem_id="min-params")
                    max_params = gr.Number(label="Max parameters (B)", value=None, minimum=0,
                                           placeholder="no maximum", elem_id="max-params")
                shown_meta = gr.CheckboxGroup(board_views.SHOWN_META, value=default_view["columns"],
                                              label="Columns", elem_id="columns")
            self.note = gr.Markdown(first["note"], elem_id="board-note")
            self.table = gr.Dataframe(first["table"], datatype=first["datatype"], label="Ranking", interactive=False,
                                      max_height=700, elem_id="board", wrap=True, column_widths=first["widths"])
            with gr.Row():
                self.csv = gr.DownloadButton("Download CSV", value=first["csv"], size="sm", elem_id="csv")
                self.json = gr.DownloadButton("Download JSON", value=first["json"], size="sm", elem_id="json")
                copy_button = gr.Button("Copy link to this view", size="sm", elem_id="copy-link")
            link_box = gr.Textbox(label="Link to this view", interactive=False, visible=False, elem_id="link-box")
            self.legend = gr.Markdown(first["legend"], elem_id="legend")
            self.plot_open = gr.State(False)
            self.shown_revision = gr.State(self.first_revision)
            with gr.Accordion("Plot: score against model size", open=False) as plot_box:
                self.scatter = gr.Plot(show_label=False, elem_id="scatter")
        self.controls = {"category": category, "values": self.values, "search": search, "types": types,
                         "min": min_params, "max": max_params, "sort": self.sort, "columns": shown_meta,
                         "p": p_values, "exclude_flagged": self.exclude_flagged}
        # In share.BOARD_KEYS order: the events' `js` writes them to the URL in that order.
        self.inputs = [self.controls[key] for key in share.BOARD_KEYS]
        self.outputs = [self.table, self.note, self.legend, self.csv, self.json, self.scatter, self.sort, self.values,
                        self.as_of, self.shown_revision,
                        self.exclude_flagged]  # shown while some model is flagged
        self.restored = [*(self.controls[key] for key in RESTORED_KEYS), *self.outputs]  # what restore() may update

        gr.on([control.input for control in self.inputs], self.show, [*self.inputs, self.plot_open], self.outputs,
              queue=False, js=share.query_writer(share.BOARD_KEYS), trigger_mode="always_last", **PRIVATE)
        self.tab.select(self.refresh_if_changed, [self.shown_revision, *self.inputs, self.plot_open], self.outputs,
                        queue=False, js=share.tab_writer("leaderboard"), **PRIVATE)
        plot_box.expand(lambda: True, None, self.plot_open, **PRIVATE).then(self.render_plot, self.inputs,
                                                                            self.scatter, queue=False, **PRIVATE)
        plot_box.collapse(lambda: False, None, self.plot_open, **PRIVATE)
        copy_button.click(lambda url: gr.Textbox(value=url, visible=True), link_box, link_box,
                          js=share.COPY_LINK_JS, queue=False, **PRIVATE)

    @staticmethod
    def board_view(values) -> dict:
        """The view's keys of `values`: a whole view, or the inputs' values in share.BOARD_KEYS order."""
        return ({key: values[key] for key in share.BOARD_KEYS} if isinstance(values, dict) else
                dict(zip(share.BOARD_KEYS, values, strict=True)))

    def parts(self, view: dict, plot_open: bool = False) -> dict:
        """Everything the tab shows for one view, from the current board."""
        board = self.board
        board.refresh()
        category, adjusted = view["category"], view["p"] == board_views.ADJUSTED_P
        values = view["values"] if category != OVERALL else board_views.WIN_SCORE
        columns = board_views.score_columns(board, category, values)
        full = board_views.leaderboard_table(board, category, values, adjusted=adjusted,
                                             exclude_flagged=view["exclude_flagged"])
        filters = view["search"], view["types"], view["min"], view["max"]
        shown = board_views.sort_table(board_views.filter_table(full, *filters), columns, view["sort"])
        display = board_views.with_model_links(shown, board.models, view["columns"])
        name = board_views.board_export_name(board, category, values, adjusted)
        sorts = board_views.sort_choices(columns)
        return dict(
            table=board_views.emphasised(display, columns[0].header), datatype=board_views.column_types(display),
            widths=[rank_width(display.columns[0]), MODEL_WIDTH, *["auto"] * (len(display.columns) - 2)],
            note="\n\n".join(filter(None, [board_views.filter_note(shown, len(full), *filters),
                                            board_views.flag_note(board, view["exclude_flagged"])])),
            legend=board_views.category_legend(board, category),
            csv=board_views.export_table(shown, "csv", name), json=board_views.export_table(shown, "json", name),
            plot=board_views.score_scatter(shown, columns[0].header) if plot_open else gr.skip(),
            sorts=sorts, sort=view["sort"] if view["sort"] in [key for _, key in sorts] else board_views.RANK_SORT,
            values=values, values_open=category != OVERALL, as_of=board_views.as_of_note(board),
            revision=board_views.shown_version(board), exclude_flagged=view["exclude_flagged"], any_flagged=bool(board.flags))

    def update(self, view: dict, plot_open: bool) -> dict:
        """parts() as updates of the tab's outputs."""
        p = self.parts(view, plot_open)
        return {self.table: gr.Dataframe(value=p["table"], datatype=p["datatype"], column_widths=p["widths"]),
                self.note: p["note"], self.legend: p["legend"], self.csv: p["csv"], self.json: p["json"],
                self.scatter: p["plot"], self.sort: gr.Dropdown(choices=p["sorts"], value=p["sort"]),
                self.values: gr.Radio(value=p["values"], interactive=p["values_open"],
                                      info=VALUES_IN_CATEGORY if p["values_open"] else VALUES_IN_OVERALL),
                self.as_of: p["as_of"], self.shown_revision: p["revision"],
                self.exclude_flagged: gr.Checkbox(value=p["exclude_flagged"], visible=p["any_flagged"])}

    def show(self, *values) -> dict:
        """The view of the inputs (self.inputs, then plot_open)."""
        *view, plot_open = values
        return self.update(self.board_view(view), plot_open)

    def show_after(self, event) -> None:
        """Show the current view again once `event` is done (the board changed)."""
        event.then(self.show, [*self.inputs, self.plot_open], self.outputs, **PRIVATE)

    def refresh_if_changed(self, shown_revision, *values) -> dict:
        """On opening the tab: re-render only when the board changed meanwhile."""
        self.board.refresh()
        return self.show(*values) if board_views.shown_version(self.board) != shown_revision else gr.skip()

    def render_plot(self, *values):
        view = self.board_view(values)
        table = board_views.leaderboard_table(self.board, view["category"], view["values"],
                                              adjusted=view["p"] == board_views.ADJUSTED_P,
                                              exclude_flagged=view["exclude_flagged"])
        shown = board_views.filter_table(table, view["search"], view["types"], view["min"], view["max"])
        return board_views.score_scatter(shown, board_views.score_columns(self.board, view["category"],
                                                                          view["values"])[0].header)

    def restore(self, view: dict, plot_open: bool) -> dict:
        """The view a link asks for (all of share.DEFAULTS' keys): the controls, and the table
        unless it is the one built with the page."""
        restored = {self.controls[key]: view[key] for key in RESTORED_KEYS}
        if board_views.shown_version(self.board) == self.first_revision and view == self.default_view:
            return restored
        return {**restored, **self.update(self.board_view(view), plot_open)}
