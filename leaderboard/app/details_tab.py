"""The Details tab: one model in one category (its card, score bars and duels)."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.last_answer import LastAnswer
from leaderboard.app.settings import PRIVATE
from leaderboard.views import details, share, table as board_views


DUELS_TITLE = "Duels against each competitor"
MAKE_CSV = "Make the CSV of every duel"
# Competitors in the grid as the tab opens; the best details.GRID_COMPETITORS are a click away
# (issue 35: at 10,000 models a grid of 100 was 92 of the answer's 99 kB and most of its work).
FIRST_GRID = 25


class DetailsTab:
    def __init__(self, board, p_values: gr.Radio, categories: list[str]):
        self.board = board
        # See duels_of: the first view every open asks for, and the last other one asked.
        self._first_view_duels: LastAnswer[details.ModelDuels] = LastAnswer()
        self._last_duels: LastAnswer[details.ModelDuels] = LastAnswer()
        self.built_model = default_model = board.ranked().index[0] if len(board.models) else None
        with gr.Tab("Details", id="details") as self.tab:
            with gr.Row():
                # The picker lists the best models and what the search finds, never the whole board.
                self.find = gr.Textbox(label="Find a model", placeholder="part of a model or team name",
                                       elem_id="model-find", max_length=board_views.MAX_SEARCH_CHARS)
                self.model_pick = gr.Dropdown(details.model_choices(board, keep=[default_model]), value=default_model,
                                              label="Model", info=details.picker_info(board, ""),
                                              elem_id="model-pick")
                self.category = gr.Dropdown(categories, value=board_views.OVERALL, label="Category",
                                            elem_id="details-category")
            self.card = gr.Markdown(elem_id="card")
            self.bars = gr.HTML(elem_id="bars")
            self.summary = gr.Dataframe(label="Duels won / lost / not significant", interactive=False,
                                        elem_id="duel-summary", max_height=420)
            gr.Markdown(details.duels_explained(board.benchmark), elem_id="duels-explained")
            self.duels = gr.Dataframe(label=DUELS_TITLE, interactive=False,
                                      elem_id="duels", max_height=600, line_breaks=True, wrap=True)
            with gr.Row():
                # Not stretched to half the page each, nor squeezed to three lines (min_width: one line, two)
                self.more = gr.Button(size="sm", elem_id="duels-more", visible=False, scale=0, min_width=230)
                # Made only when asked for: a panel member's CSV holds a duel with every model, 7-13 s
                # of one core at 10,000 models (issue 35), which no visitor who only looks should pay.
                self.make_csv = gr.Button(MAKE_CSV, size="sm", elem_id="duel-csv-make", scale=0, min_width=300)
            self.duels_csv = gr.File(label="Duels CSV", visible=False, interactive=False, elem_id="duel-csv")
        # The model and category first, in share.DETAILS_KEYS order: the events' `js` writes them to the URL.
        self.inputs = [self.model_pick, self.category, p_values, self.find]
        self.outputs = [self.model_pick, self.card, self.bars, self.summary, self.duels, self.more, self.make_csv,
                        self.duels_csv]
        self.restored = [self.category, *self.outputs]  # what restore() may update

        csv_outputs = [self.make_csv, self.duels_csv]
        made = self.make_csv.click(self.making_csv, self.inputs, csv_outputs, queue=False, **PRIVATE).success(
            self.export_duels, self.inputs, csv_outputs, show_progress_on=[self.duels_csv],
            concurrency_limit=1, **PRIVATE)  # one at a time: each holds the GIL for seconds at 10,000 models
        # Queued, so that a view changed meanwhile can cancel it (Gradio cancels no unqueued call).
        more = self.more.click(self.more_duels, self.inputs, [self.duels, self.more], **PRIVATE)
        # A view changed meanwhile: its render hides the file and shows its own grid; the file
        # being made and the grid of all the last view's duels are not shown under them.
        self.cancels = [made, more]
        picks = [picked(self.model_pick), picked(self.category)]
        self.cancel_before(picks)
        # Rendered when opened, not on page load (a duel grid of 50 tasks x 99 opponents is the
        # heaviest thing on the page), and at each pick. One event: a pick made while the last
        # view is on its way (a category: the model picker is covered meanwhile) is rendered
        # once that view has come (Gradio's default trigger mode dropped it; two events
        # answered in either order).
        gr.on([self.tab.select, *picks], self.render, self.inputs, self.outputs, queue=False,
              js=share.query_writer(share.DETAILS_KEYS, tab="details"), trigger_mode="always_last", **PRIVATE)
        self.find.input(self.found, [self.find, self.model_pick], self.model_pick, queue=False,
                        trigger_mode="always_last", **PRIVATE)

    def cancel_before(self, triggers: list) -> None:
        """`triggers` cancel the file being made and the grid of all duels, before the render
        they trigger next: Gradio runs an event's listeners in turn, in the order they were
        added; the cancelled call's outputs say "Error" until a call after it writes them."""
        gr.on(triggers, None, cancels=self.cancels, **PRIVATE)

    def found(self, search: str, submission_id):
        """The picker's choices for `search`, keeping the model picked."""
        self.board.refresh()
        return gr.Dropdown(choices=details.model_choices(self.board, search, keep=[submission_id]),
                           info=details.picker_info(self.board, search))

    def render(self, submission_id, category, p_values, search: str | None = "") -> dict:
        """The model's view; `search`: the find box's, None while the tab was never opened
        (the p-value setting's change renders it then)."""
        board = self.board
        board.refresh()
        search = search or ""
        adjusted = p_values == board_views.ADJUSTED_P
        choices = gr.Dropdown(choices=details.model_choices(board, search, keep=[submission_id]),
                              value=submission_id, info=details.picker_info(board, search))
        if not submission_id or submission_id not in board.models:
            return {self.model_pick: choices, self.card: "Pick a model.", self.bars: None, self.summary: None,
                    self.duels: None, self.more: gr.Button(visible=False), **self.no_csv()}
        duels = self.duels_of(submission_id, category, adjusted)
        return {self.model_pick: choices, self.card: details.model_card(board, submission_id, category, adjusted),
                self.bars: details.score_bars(board, submission_id, category, adjusted),
                self.summary: details.duel_summary(duels, category),
                **self.duel_grid(duels, category, FIRST_GRID), **self.no_csv(duels)}

    def duel_grid(self, duels: details.ModelDuels, category, competitors: int) -> dict:
        """The grid of the first `competitors`, and the button showing the best GRID_COMPETITORS
        when there are more."""
        shown = details.duel_frame(self.board, duels, competitors=competitors)
        total = len(duels.opponents)
        more = min(total, details.GRID_COMPETITORS)
        return {self.duels: gr.Dataframe(value=details.duel_grid(shown, category),
                                         label=details.grid_label(total, DUELS_TITLE, " (the CSV holds every duel)",
                                                                  limit=competitors),
                                         column_widths=details.grid_widths(shown, category)),
                self.more: gr.Button(f"Show the best {more:,} competitors" if more < total else
                                     f"Show all {total:,} competitors", visible=more > competitors)}

    def more_duels(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The grid of the best GRID_COMPETITORS of the view shown."""
        if not submission_id or submission_id not in self.board.models:
            return {self.duels: None, self.more: gr.Button(visible=False)}
        duels = self.duels_of(submission_id, category, p_values == board_views.ADJUSTED_P)
        return self.duel_grid(duels, category, details.GRID_COMPETITORS)

    def no_csv(self, duels: details.ModelDuels | None = None) -> dict:
        """The CSV button ready, saying how many duels its file holds (a panel member's: 82 MB at
        10,000 models), and no file: a view's file is made when asked for."""
        size = f" ({len(duels.opponents):,} competitors × {len(duels.tasks)} tasks)" if duels else ""
        return {self.make_csv: gr.Button(MAKE_CSV + size, interactive=True),
                self.duels_csv: gr.File(value=None, visible=False)}

    def duels_of(self, submission_id, category, adjusted: bool) -> details.ModelDuels:
        """The model's duels, kept: `render` and then `export_duels` ask for the same (a panel
        member has dueled every model: 10,000 at 10,000 models). The best model's Overall,
        which every open of the tab shows first, is kept apart from the last other view asked,
        so that a visitor's pick does not make the next visitor's open wait for it again."""
        board = self.board
        question = (submission_id, category, adjusted)
        first_view = question == (board.ranked().index[0], board_views.OVERALL, False)
        kept = self._first_view_duels if first_view else self._last_duels
        return kept.of(board.state.derived, question,  # kept across a record
                       lambda: details.model_duels(board, submission_id, category, board.duels(adjusted),
                                                   rank_order=board.ranked(adjusted).index))

    def warm(self) -> None:
        """The best model's Overall view, made before a visitor opens the tab."""
        if self.built_model is not None:
            self.render(self.built_model, board_views.OVERALL, board_views.RAW_P)

    def making_csv(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The button held and the file's place saying what is being made (export_duels' next)."""
        if not submission_id or submission_id not in self.board.models:
            raise gr.Error("Pick a published model to make its duels CSV.")
        adjusted = p_values == board_views.ADJUSTED_P
        return {self.make_csv: gr.Button(interactive=False),
                self.duels_csv: gr.File(value=None, visible=True, label=details.csv_label(
                    self.board, submission_id, category, adjusted))}

    def export_duels(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The duels CSV of the model shown (the inputs as `render`'s), every competitor's,
        kept (kept_exports) once made."""
        board = self.board
        if not submission_id or submission_id not in board.models:
            return self.no_csv()
        adjusted = p_values == board_views.ADJUSTED_P
        name = board_views.export_name(board.benchmark.name, board.models[submission_id].title, category, "duels",
                                       "bh-adjusted" if adjusted else "")
        duels = self.duels_of(submission_id, category, adjusted)
        made = board_views.kept_exports(
            ("duels", board.revision, submission_id, category, adjusted, name), board,  # this board's: not another app's in the process
            lambda: {"csv": board_views.export_table(details.duel_frame(board, duels), "csv", name)})
        return {self.make_csv: gr.Button(interactive=True),
                self.duels_csv: gr.File(value=made["csv"], visible=True,
                                        label=details.csv_label(board, submission_id, category, adjusted, duels))}

    def restore(self, view: dict, model: str | None, named) -> dict:
        """The model (`model`: the link's, else the best) and category a link asks for
        (`named`: its query's keys); rendered only when the link opens this tab. What the
        link does not name is left as the visitor may have set it while the page loaded
        (the picker is set again when the best model is no longer the one built with the page)."""
        shown = {self.category: view["details_category"]} if "details_category" in named else {}
        if view["tab"] == "details":
            return {**shown, **self.render(model, view["details_category"], view["p"])}
        if "model" in named or model != self.built_model:
            shown[self.model_pick] = gr.Dropdown(choices=details.model_choices(self.board, keep=[model]), value=model)
        return shown
