"""The Details tab: one model in one category (its card, score bars and duels)."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.last_answer import LastAnswer
from leaderboard.app.settings import PRIVATE, download
from leaderboard.views import details, share, table as board_views


DUELS_TITLE = "Duels against each competitor"


class DetailsTab:
    def __init__(self, board, p_values: gr.Radio, categories: list[str]):
        self.board = board
        self._last_duels: LastAnswer[details.ModelDuels] = LastAnswer()  # see duels_of
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
            self.duels_csv = gr.DownloadButton("Download duels CSV", size="sm", elem_id="duel-csv", interactive=False)
        # The model and category first, in share.DETAILS_KEYS order: the events' `js` writes them to the URL.
        self.inputs = [self.model_pick, self.category, p_values, self.find]
        self.outputs = [self.model_pick, self.card, self.bars, self.summary, self.duels, self.duels_csv]
        self.restored = [self.category, *self.outputs]  # what restore() may update

        self.then_export(gr.on([picked(self.model_pick), picked(self.category)], self.render, self.inputs, self.outputs,
                               queue=False, js=share.query_writer(share.DETAILS_KEYS), **PRIVATE))
        self.find.input(self.found, [self.find, self.model_pick], self.model_pick, queue=False,
                        trigger_mode="always_last", **PRIVATE)
        # Rendered when opened, not on page load: a duel grid of 50 tasks x 99 opponents is
        # the heaviest thing on the page.
        self.then_export(self.tab.select(self.render, self.inputs, self.outputs, queue=False,
                                         js=share.query_writer(share.DETAILS_KEYS, tab="details"), **PRIVATE))

    def then_export(self, event) -> None:
        """The duels CSV made once `event` (a render) is done: the card, bars and grid show
        first (a panel member's CSV holds a duel with every model: seconds at 10,000)."""
        event.then(self.export_duels, self.inputs, self.duels_csv, queue=False, **PRIVATE)

    def found(self, search: str, submission_id):
        """The picker's choices for `search`, keeping the model picked."""
        self.board.refresh()
        return gr.Dropdown(choices=details.model_choices(self.board, search, keep=[submission_id]),
                           info=details.picker_info(self.board, search))

    def render(self, submission_id, category, p_values, search: str = "") -> dict:
        board = self.board
        board.refresh()
        adjusted = p_values == board_views.ADJUSTED_P
        choices = gr.Dropdown(choices=details.model_choices(board, search, keep=[submission_id]),
                              value=submission_id, info=details.picker_info(board, search))
        if not submission_id or submission_id not in board.models:
            return {self.model_pick: choices, self.card: "Pick a model.", self.bars: None, self.summary: None,
                    self.duels: None, self.duels_csv: download(None)}
        duels = self.duels_of(submission_id, category, adjusted)
        shown = details.duel_frame(board, duels, competitors=details.GRID_COMPETITORS)
        return {self.model_pick: choices, self.card: details.model_card(board, submission_id, category, adjusted),
                self.bars: details.score_bars(board, submission_id, category, adjusted),
                self.summary: details.duel_summary(duels, category),
                self.duels: gr.Dataframe(value=details.duel_grid(shown, category),
                                         label=details.grid_label(len(duels.opponents), DUELS_TITLE,
                                                                  " (the CSV holds every duel)"),
                                         column_widths=details.grid_widths(shown, category)),
                self.duels_csv: download(None)}  # export_duels' next

    def duels_of(self, submission_id, category, adjusted: bool) -> details.ModelDuels:
        """The model's duels, the last ones kept: `render` and then `export_duels` ask for
        the same (a panel member has dueled every model: 10,000 at 10,000 models)."""
        board = self.board
        return self._last_duels.of(board.state.derived, (submission_id, category, adjusted),  # kept across a record
                                   lambda: details.model_duels(board, submission_id, category, board.duels(adjusted),
                                                               rank_order=board.ranked(adjusted).index))

    def warm(self) -> None:
        """The best model's Overall view and its CSV, made before a visitor opens the tab."""
        if self.built_model is not None:
            self.render(self.built_model, board_views.OVERALL, board_views.RAW_P)
            self.export_duels(self.built_model, board_views.OVERALL, board_views.RAW_P)

    def export_duels(self, submission_id, category, p_values, _search: str = ""):
        """The duels CSV of the model shown (the inputs as `render`'s); none when it is not published."""
        board = self.board
        if not submission_id or submission_id not in board.models:
            return download(None)
        adjusted = p_values == board_views.ADJUSTED_P
        name = board_views.export_name(board.benchmark.name, board.models[submission_id].title, category, "duels",
                                       "bh-adjusted" if adjusted else "")
        made = board_views.kept_exports(
            ("duels", board.revision, submission_id, category, adjusted, name), board,  # this board's: not another app's in the process
            lambda: {"csv": board_views.export_table(
                details.duel_frame(board, self.duels_of(submission_id, category, adjusted)), "csv", name)})
        return download(made["csv"])

    def restore(self, view: dict, model: str | None, named) -> dict:
        """The model (`model`: the link's, else the best) and category a link asks for
        (`named`: its query's keys); rendered only when the link opens this tab. What the
        link does not name is left as the visitor may have set it while the page loaded
        (the picker is set again when the best model is no longer the one built with the page)."""
        shown = {self.category: view["details_category"]} if "details_category" in named else {}
        if view["tab"] == "details":  # with its CSV: a link opening this tab is the rare case
            return {**shown, **self.render(model, view["details_category"], view["p"]),
                    self.duels_csv: self.export_duels(model, view["details_category"], view["p"])}
        if "model" in named or model != self.built_model:
            shown[self.model_pick] = gr.Dropdown(choices=details.model_choices(self.board, keep=[model]), value=model)
        return shown
