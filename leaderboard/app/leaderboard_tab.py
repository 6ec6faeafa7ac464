"""The Leaderboard tab: the ranking of one view (category, value kind, search, filters,
sort, columns, p-values, flagged models left out or not), one page of it at a time (the
search, filters and sort apply to the whole board, on the server), its downloads, legend
and charts."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.column_widths import column_widths
from leaderboard.app.gradio_compat import picked
from leaderboard.app.pager import Pager, turned_to
from leaderboard.app.settings import PRIVATE
from leaderboard.submission.metadata import MODEL_TYPES
from leaderboard.views import share, table as board_views
from leaderboard.views.board_html import board_table
from leaderboard.views.ranking_chart import ranking_chart

OVERALL = board_views.OVERALL
VALUE_CHOICES = [("Score", board_views.WIN_SCORE), ("Metric value", board_views.METRIC_VALUE)]
VALUES_IN_OVERALL = "Overall shows scores only; choose a category to see each task's metric."
VALUES_IN_CATEGORY = "Score: hover a header for what it counts. Metric value: the task's own metric, in the header's unit."
# Another category's view starts at its score: the last view's sideways scroll would leave
# that column under the pinned rank and Model columns (the scroll box: views/board_html.py).
SCROLL_TO_START_JS = "() => { document.querySelector('#board .board-scroll')?.scrollTo({left: 0}); }"
# What a link restores into the controls themselves (the sort too, with its choices).
RESTORED_KEYS = ["category", "values", "search", "types", "min", "max", "columns", "p", "exclude_flagged"]


class LeaderboardTab:
    """The tab's components, built where it is created (inside the page's Tabs). A view is a
    dict by the URL's keys (share.BOARD_KEYS); `controls` are its inputs by the same keys."""

    def __init__(self, board, p_values: gr.Radio, default_view: dict, categories: list[str], page_rows: int):
        self.board, self.page_rows = board, page_rows  # rows per page of the table
        self.titles = board_views.header_titles(board)  # the headers' explanations, in the table's HTML
        first = self.parts(self.board_view(default_view), default_view["table_page"])
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
                search = gr.Textbox(label="Search model or team", placeholder="Search model or team", elem_id="search",
                                    min_width=150)
            with gr.Accordion("Filters, columns, significance", open=False, elem_id="filters"):
                with gr.Row():
                    types = gr.CheckboxGroup(list(MODEL_TYPES), label="Model type", elem_id="types")
                    min_params = gr.Number(label="Min parameters (B)", value=None, minimum=0,
                                           placeholder="no minimum", elem_id="min-params")
                    max_params = gr.Number(label="Max parameters (B)", value=None, minimum=0,
                                           placeholder="no maximum", elem_id="max-params")
                shown_meta = gr.CheckboxGroup(board_views.SHOWN_META, value=default_view["columns"],
                                              label="Columns", elem_id="columns")
                p_values.render()
                self.exclude_flagged = gr.Checkbox(value=default_view["exclude_flagged"], visible=first["any_flagged"],
                                                   label=f"Exclude flagged models ({board_views.MARKER}): rank without "
                                                         f"them and their duels", elem_id="exclude-flagged")
            self.note = gr.Markdown(first["note"], elem_id="board-note")
            self.table = gr.HTML(first["table"], elem_id="board")
            self.pager = Pager(shown=first["shown"])
            self.page = self.pager.page
            with gr.Row():
                self.csv = gr.DownloadButton("Download CSV", value=first["csv"], size="sm", elem_id="csv")
                self.json = gr.DownloadButton("Download JSON", value=first["json"], size="sm", elem_id="json")
                copy_button = gr.Button("Copy link to this view", size="sm", elem_id="copy-link")
            link_box = gr.Textbox(label="Link to this view", interactive=False, visible=False, elem_id="link-box")
            self.legend = gr.Markdown(first["legend"], elem_id="legend")
            self.plot_open = gr.State(False)
            self.shown_revision = gr.State(self.first_revision)
            self.stale = gr.State(False)  # the table built with the page is not the view to show
            with gr.Accordion("Charts: the ranking with its 95% intervals; score against model size", open=False,
                              elem_id="charts") as plot_box:
                self.ranking_chart = gr.Plot(show_label=False, elem_id="ranking-chart")
                self.scatter = gr.Plot(show_label=False, elem_id="scatter")
        self.controls = {"category": category, "values": self.values, "search": search, "types": types,
                         "min": min_params, "max": max_params, "sort": self.sort, "columns": shown_meta,
                         "p": p_values, "exclude_flagged": self.exclude_flagged}
        # In share.BOARD_KEYS order: the events' `js` writes them to the URL in that order.
        self.inputs = [self.controls[key] for key in share.BOARD_KEYS]
        self.outputs = [self.table, self.note, self.legend, self.csv, self.json, self.ranking_chart, self.scatter, self.sort, self.values,
                        self.as_of, self.shown_revision,
                        self.exclude_flagged,  # shown while some model is flagged
                        *self.pager.outputs]
        # What restore() may update.
        self.restored = [*(self.controls[key] for key in RESTORED_KEYS), self.sort, self.page, self.stale]

        # Queued, so that a view changed meanwhile (the controls are not covered while a page is
        # on its way) can cancel it: Gradio cancels no unqueued call.
        turns = self.pager.on_turn(self.turn, [*self.inputs, self.page, self.plot_open], self.outputs,
                                   trigger_mode="always_last")
        for turned in turns:
            turned.then(None, self.page, None, js=share.query_writer(share.PAGE_KEYS), **PRIVATE)
        # A new search, filter, sort or view starts at the first page.
        # Gradio's Textbox sends no `input` when Backspace empties it: `change` (the search only) covers that.
        view_changes = [*(picked(control) if isinstance(control, gr.Dropdown) else control.input
                          for control in self.inputs), search.change]
        # The page on its way cancelled before the view's call, not after it has answered: the
        # page could answer in between, and the cancelled call's outputs say "Error" until a call
        # after it writes them (Gradio runs an event's listeners in turn, in the order they were added).
        gr.on(view_changes, None, cancels=turns, **PRIVATE)
        gr.on(view_changes, self.show, [*self.inputs, self.plot_open], self.outputs,
              queue=False, js=share.query_writer(share.BOARD_KEYS), trigger_mode="always_last", **PRIVATE).then(
            None, self.page, None, js=share.query_writer(share.PAGE_KEYS, push=False), **PRIVATE)
        category.change(None, None, None, js=SCROLL_TO_START_JS, **PRIVATE)
        self.tab.select(self.refresh_if_changed, [self.shown_revision, *self.inputs, self.page, self.plot_open],
                        self.outputs, queue=False, js=share.tab_writer("leaderboard"), **PRIVATE)
        plot_box.expand(lambda: True, None, self.plot_open, **PRIVATE).then(self.render_plot, self.inputs,
                                                                            [self.ranking_chart, self.scatter],
                                                                            queue=False, **PRIVATE)
        plot_box.collapse(lambda: False, None, self.plot_open, **PRIVATE)
        copy_button.click(lambda url: gr.Textbox(value=url, visible=True), link_box, link_box,
                          js=share.COPY_LINK_JS, queue=False, **PRIVATE)

    @staticmethod
    def board_view(values) -> dict:
        """The view's keys of `values`: a whole view, or the inputs' values in share.BOARD_KEYS order."""
        return ({key: values[key] for key in share.BOARD_KEYS} if isinstance(values, dict) else
                dict(zip(share.BOARD_KEYS, values, strict=True)))

    def view_page(self, view: dict, page: int) -> tuple[board_views.TablePage, list, object]:
        """Page `page` of the view, from the board as it is now, its score columns, and the
        whole table it is cut from (board_views.current_table)."""
        board = self.board
        board.refresh()
        category = view["category"]
        values = view["values"] if category != OVERALL else board_views.WIN_SCORE
        columns = board_views.score_columns(board, category, values)
        full = board_views.current_table(board, category, values, adjusted=view["p"] == board_views.ADJUSTED_P,
                                         exclude_flagged=view["exclude_flagged"])
        return board_views.table_page(full, columns, page, self.page_rows, view["search"], view["types"], view["min"],
                                      view["max"], view["sort"]), columns, full

    def parts(self, view: dict, page: int, plot_open: bool = False, with_exports: bool = True) -> dict:
        """Everything the tab shows for page `page` of one view, from the current board;
        `with_exports` False: the downloads are those of the view shown (another page of it)."""
        board = self.board
        shown, columns, full = self.view_page(view, page)
        category, adjusted = view["category"], view["p"] == board_views.ADJUSTED_P
        values = view["values"] if category != OVERALL else board_views.WIN_SCORE
        display = board_views.with_model_links(shown.rows, board.models, view["columns"], as_html=True)
        name = board_views.board_export_name(board, category, values, adjusted)
        sorts = board_views.sort_choices(columns)
        filters = view["search"], view["types"], view["min"], view["max"]
        rows_asked = (view["search"], tuple(view["types"] or ()), view["min"], view["max"], view["sort"])
        exports = (board_views.view_exports(full, shown.matching, name, rows_asked) if with_exports else
                   {"csv": gr.skip(), "json": gr.skip()})
        return dict(
            table=board_table(display, columns[0].header, column_widths(display, sort_menus=False), self.titles,
                              "Ranking (BH-adjusted p-values)" if adjusted else "Ranking"),
            note="\n\n".join(filter(None, [board_views.filter_note(shown.matching, shown.total, *filters),
                                            board_views.flag_note(board, view["exclude_flagged"])])),
            legend=board_views.category_legend(board, category),
            csv=exports["csv"], json=exports["json"],
            plot=self.plots(shown.matching, columns[0].header) if plot_open else (gr.skip(), gr.skip()),
            sorts=sorts, sort=view["sort"] if view["sort"] in [key for _, key in sorts] else board_views.RANK_SORT,
            values=values, values_open=category != OVERALL, as_of=board_views.as_of_note(board),
            revision=board_views.shown_version(board), exclude_flagged=view["exclude_flagged"],
            any_flagged=bool(board.flags), shown=shown)

    def update(self, view: dict, page: int, plot_open: bool, with_exports: bool = True) -> dict:
        """parts() as updates of the tab's outputs."""
        p = self.parts(view, page, plot_open, with_exports)
        return {self.table: p["table"],
                self.note: p["note"], self.legend: p["legend"], self.csv: p["csv"], self.json: p["json"],
                self.ranking_chart: p["plot"][0], self.scatter: p["plot"][1], self.sort: gr.Dropdown(choices=p["sorts"], value=p["sort"]),
                self.values: gr.Radio(value=p["values"], interactive=p["values_open"],
                                      info=VALUES_IN_CATEGORY if p["values_open"] else VALUES_IN_OVERALL),
                self.as_of: p["as_of"], self.shown_revision: p["revision"],
                self.exclude_flagged: gr.Checkbox(value=p["exclude_flagged"], visible=p["any_flagged"]),
                **self.pager.updates(p["shown"])}

    def show(self, *values) -> dict:
        """The first page of the view of the inputs (self.inputs, then plot_open)."""
        *view, plot_open = values
        return self.update(self.board_view(view), 1, plot_open)

    def turn(self, *values) -> dict:
        """Another page of the same view (self.inputs, then the page shown, plot_open and the
        pager's button)."""
        *view, page, plot_open, button = values
        return self.update(self.board_view(view), turned_to(button, page), plot_open, with_exports=False)

    def show_after(self, event) -> None:
        """Show the current view again, on the page shown, once `event` is done (the board changed)."""
        event.then(self.turn_to_same, [*self.inputs, self.page, self.plot_open], self.outputs, **PRIVATE)

    def turn_to_same(self, *values) -> dict:
        """The page shown, rendered again (the board changed): the downloads too."""
        *view, page, plot_open = values
        return self.update(self.board_view(view), int(page or 1), plot_open)

    def refresh_if_changed(self, shown_revision, *values) -> dict:
        """On opening the tab: re-render only when the board changed meanwhile."""
        self.board.refresh()
        return self.turn_to_same(*values) if board_views.shown_version(self.board) != shown_revision else gr.skip()

    def render_plot(self, *values):
        view = self.board_view(values)
        shown, columns, _ = self.view_page(view, 1)
        return self.plots(shown.matching, columns[0].header)

    @staticmethod
    def plots(table, score_column: str) -> tuple:
        """The charts of the view's models (`table`, filtered, in the view's order)."""
        return ranking_chart(table, score_column), board_views.score_scatter(table, score_column)

    def restore(self, view: dict, named) -> dict:
        """The controls a link names (`named`: its query's keys; `view`: the view it asks for,
        all of share.DEFAULTS' keys) and its page; the others keep what the visitor may have
        set while the page loaded. Whether the table must be made again (`show_restored`)."""
        restored = {self.controls[key]: view[key] for key in RESTORED_KEYS if key in named}
        if "sort" in named:  # among the sorts of the link's category and values
            sorts = board_views.sort_choices(board_views.score_columns(self.board, view["category"], view["values"]))
            restored[self.sort] = gr.Dropdown(choices=sorts, value=view["sort"])
        stale = (board_views.shown_version(self.board) != self.first_revision
                 or any(key in named for key in [*share.BOARD_KEYS, *share.PAGE_KEYS]))
        return {**restored, self.page: view["table_page"], self.stale: stale}

    def show_restored(self, stale, *values) -> dict:
        """After restore(): the page shown, made again from the controls as they are now (the
        link's, and what the visitor set meanwhile) when the one built with the page is not it."""
        return self.turn_to_same(*values) if stale else gr.skip()
