"""The Details tab: one model in one category (its card, score bars and duels). Built when a
page session first opens it (lazy_tab): `DetailsTab` makes each view and keeps what every
session shares; `DetailsView` is a session's components and events."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.last_answer import LastAnswer
from leaderboard.app.lazy_tab import built_when_opened, new_visit, updates
from leaderboard.app.settings import PRIVATE
from leaderboard.views import details, share, table as board_views


DUELS_TITLE = "Duels against each competitor"
MAKE_CSV = "Make the CSV of every duel"
# Competitors in the grid as the tab opens; the best details.GRID_COMPETITORS are a click away
# (issue 35: at 10,000 models a grid of 100 was 92 of the answer's 99 kB and most of its work).
FIRST_GRID = 25


class DetailsTab:
    """`view_state`: the view the tab shows once built, and follows once built (`show`):
    {"model", "category" (None: as it is), "shown" (False: only the pickers follow, the tab
    being out of sight), "visit"}, set by a link's restore and by a publication."""

    def __init__(self, board, p_values: gr.Radio, categories: list[str], opened: gr.Checkbox,
                 view_state: gr.State, p_followed: gr.State):
        self.board, self.p_values, self.categories, self.view_state = board, p_values, categories, view_state
        self.p_followed = p_followed  # the p-value setting's follower (lazy_tab): a built tab renders again
        # See duels_of: the first view every open asks for, and the last other one asked.
        self._first_view_duels: LastAnswer[details.ModelDuels] = LastAnswer()
        self._last_duels: LastAnswer[details.ModelDuels] = LastAnswer()
        with gr.Tab("Details", id="details") as self.tab:
            built_when_opened(self.tab, opened, self.build, [view_state, p_values])
        self.tab.select(None, js=share.tab_writer("details"), **PRIVATE)

    def build(self, view: dict | None, p_values: str) -> DetailsView:
        view = view or self.default_view()
        return DetailsView(self, view["model"], view["category"] or board_views.OVERALL, p_values)

    def default_view(self) -> dict:
        """The best model's Overall view."""
        ranked = self.board.ranked()
        return {"model": ranked.index[0] if len(ranked) else None, "category": board_views.OVERALL}

    def view(self, submission_id, category, p_values, search: str | None = "") -> dict[str, dict]:
        """The model's view: each component's properties, by its name in DetailsView.
        `search`: the find box's, None while the tab was never opened."""
        board = self.board
        board.refresh()
        search = search or ""
        adjusted = p_values == board_views.ADJUSTED_P
        choices = dict(choices=details.model_choices(board, search, keep=[submission_id]), value=submission_id,
                       info=details.picker_info(board, search))
        if not submission_id or submission_id not in board.models:
            return {"model_pick": choices, "card": dict(value="Pick a model."), "bars": dict(value=None),
                    "summary": dict(value=None), "duels": dict(value=None), "more": dict(visible=False),
                    **self.no_csv()}
        duels = self.duels_of(submission_id, category, adjusted)
        return {"model_pick": choices, "card": dict(value=details.model_card(board, submission_id, category, adjusted)),
                "bars": dict(value=details.score_bars(board, submission_id, category, adjusted)),
                "summary": dict(value=details.duel_summary(duels, category)),
                **self.duel_grid(duels, category, FIRST_GRID), **self.no_csv(duels)}

    def duel_grid(self, duels: details.ModelDuels, category, competitors: int) -> dict[str, dict]:
        """The grid of the first `competitors`, and the button showing the best GRID_COMPETITORS
        when there are more."""
        shown = details.duel_frame(self.board, duels, competitors=competitors)
        total = len(duels.opponents)
        more = min(total, details.GRID_COMPETITORS)
        return {"duels": dict(value=details.duel_grid(shown, category),
                              label=details.grid_label(total, DUELS_TITLE, " (the CSV holds every duel)",
                                                       limit=competitors),
                              column_widths=details.grid_widths(shown, category)),
                "more": dict(value=f"Show the best {more:,} competitors" if more < total else
                             f"Show all {total:,} competitors", visible=more > competitors)}

    @staticmethod
    def no_csv(duels: details.ModelDuels | None = None) -> dict[str, dict]:
        """The CSV button ready, saying how many duels its file holds (a panel member's: 82 MB at
        10,000 models), and no file: a view's file is made when asked for."""
        size = f" ({len(duels.opponents):,} competitors × {len(duels.tasks)} tasks)" if duels else ""
        return {"make_csv": dict(value=MAKE_CSV + size, interactive=True),
                "duels_csv": dict(value=None, visible=False)}

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
        view = self.default_view()
        if view["model"] is not None:
            self.view(view["model"], board_views.OVERALL, board_views.RAW_P)

    def csv_file(self, submission_id, category, adjusted: bool) -> tuple[str, details.ModelDuels]:
        """The duels CSV of the view (every competitor's), kept (kept_exports) once made."""
        board = self.board
        name = board_views.export_name(board.benchmark.name, board.models[submission_id].title, category, "duels",
                                       "bh-adjusted" if adjusted else "")
        duels = self.duels_of(submission_id, category, adjusted)
        made = board_views.kept_exports(
            ("duels", board.revision, submission_id, category, adjusted, name), board,  # this board's: not another app's in the process
            lambda: {"csv": board_views.export_table(details.duel_frame(board, duels), "csv", name)})
        return made["csv"], duels

    def restored_view(self, view: dict, model: str | None, named) -> dict:
        """The view state a link asks for (`share.view_from_query`'s `view`; `model`: the
        link's, else the best; `named`: its query's keys)."""
        return new_visit({"model": model, "shown": view["tab"] == "details",
                          "category": view["details_category"] if "details_category" in named else None})


class DetailsView:
    """A page session's Details tab, made showing `model` in `category`."""

    def __init__(self, shared: DetailsTab, model, category, p_values: str):
        self.shared = shared
        board = shared.board
        shown = shared.view(model, category, p_values)
        with gr.Row():
            # The picker lists the best models and what the search finds, never the whole board.
            self.find = gr.Textbox(label="Find a model", placeholder="part of a model or team name",
                                   elem_id="model-find", interactive=True, max_length=board_views.MAX_SEARCH_CHARS)
            self.model_pick = gr.Dropdown(label="Model", elem_id="model-pick", interactive=True, **shown["model_pick"])
            self.category = gr.Dropdown(shared.categories, value=category, label="Category",
                                        elem_id="details-category", interactive=True)
        self.card = gr.Markdown(elem_id="card", **shown["card"])
        self.bars = gr.HTML(elem_id="bars", **shown["bars"])
        self.summary = gr.Dataframe(label="Duels won / lost / not significant", interactive=False,
                                    elem_id="duel-summary", max_height=420, **shown["summary"])
        gr.Markdown(details.duels_explained(board.benchmark), elem_id="duels-explained")
        self.duels = gr.Dataframe(**{"label": DUELS_TITLE, **shown["duels"]}, interactive=False,
                                  elem_id="duels", max_height=600, line_breaks=True, wrap=True)
        with gr.Row():
            # Not stretched to half the page each, nor squeezed to three lines (min_width: one line, two)
            self.more = gr.Button(size="sm", elem_id="duels-more", scale=0, min_width=230,
                                  **{"visible": False, **shown["more"]})
            # Made only when asked for: a panel member's CSV holds a duel with every model, 7-13 s
            # of one core at 10,000 models (issue 35), which no visitor who only looks should pay.
            self.make_csv = gr.Button(size="sm", elem_id="duel-csv-make", scale=0, min_width=300,
                                      **shown["make_csv"])
        self.duels_csv = gr.File(label="Duels CSV", interactive=False, elem_id="duel-csv", **shown["duels_csv"])
        p_values_setting = shared.p_values
        # The model and category first, in share.DETAILS_KEYS order: the events' `js` writes them to the URL.
        self.inputs = [self.model_pick, self.category, p_values_setting, self.find]
        self.outputs = [self.model_pick, self.card, self.bars, self.summary, self.duels, self.more, self.make_csv,
                        self.duels_csv]
        # The view just built, in the URL (its values: an event run on every input's change
        # would write them in place of the history entry a pick makes).
        gr.on(None, None, None, None, js=share.view_writer(share.DETAILS_KEYS, [model, category], "details"),
              **PRIVATE)

        csv_outputs = [self.make_csv, self.duels_csv]
        made = self.make_csv.click(self.making_csv, self.inputs, csv_outputs, queue=False, **PRIVATE).success(
            self.export_duels, self.inputs, csv_outputs, show_progress_on=[self.duels_csv],
            concurrency_limit=1, **PRIVATE)  # one at a time: each holds the GIL for seconds at 10,000 models
        # Queued, so that a view changed meanwhile can cancel it (Gradio cancels no unqueued call).
        more = self.more.click(self.more_duels, self.inputs, [self.duels, self.more], **PRIVATE)
        # A view changed meanwhile (a pick, the p-value setting): its render hides the file and
        # shows its own grid; the file being made and the grid of all the last view's duels are
        # not shown under them. Gradio runs an event's listeners in turn, in the order they were
        # added; the cancelled call's outputs say "Error" until a call after it writes them.
        picks = [picked(self.model_pick), picked(self.category)]
        gr.on([*picks, shared.p_followed.change], None, cancels=[made, more], **PRIVATE)
        # Rendered at each later open (the board may have changed) and at each pick. One event:
        # a pick made while the last view is on its way (a category: the model picker is covered
        # meanwhile) is rendered once that view has come (Gradio's default trigger mode dropped
        # it; two events answered in either order).
        gr.on([shared.tab.select, *picks], self.render, self.inputs, self.outputs, queue=False,
              js=share.query_writer(share.DETAILS_KEYS, tab="details"), trigger_mode="always_last", **PRIVATE)
        # The p-value setting (on the Leaderboard tab) changes every score; the URL keeps its tab.
        shared.p_followed.change(self.render, self.inputs, self.outputs, queue=False, trigger_mode="always_last",
                                 **PRIVATE)
        self.find.input(self.found, [self.find, self.model_pick], self.model_pick, queue=False,
                        trigger_mode="always_last", **PRIVATE)
        shared.view_state.change(self.show, [shared.view_state, p_values_setting, self.find],
                                 [self.category, *self.outputs], queue=False, trigger_mode="always_last", **PRIVATE)

    def found(self, search: str, submission_id):
        """The picker's choices for `search`, keeping the model picked."""
        board = self.shared.board
        board.refresh()
        return gr.Dropdown(choices=details.model_choices(board, search, keep=[submission_id]),
                           info=details.picker_info(board, search))

    def render(self, submission_id, category, p_values, search: str | None = "") -> dict:
        return updates(self, self.shared.view(submission_id, category, p_values, search))

    def show(self, view: dict, p_values, search: str | None) -> dict:
        """The view state (DetailsTab) set anew: rendered when it is `shown`, else only the
        model picked (and the category, when it names one)."""
        category = {self.category: view["category"]} if view["category"] else {}
        if not view["shown"]:
            board = self.shared.board
            return {**category, self.model_pick: gr.Dropdown(
                choices=details.model_choices(board, search or "", keep=[view["model"]]), value=view["model"])}
        return {**category, **self.render(view["model"], view["category"] or board_views.OVERALL, p_values, search)}

    def more_duels(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The grid of the best GRID_COMPETITORS of the view shown."""
        shared = self.shared
        if not submission_id or submission_id not in shared.board.models:
            return {self.duels: None, self.more: gr.Button(visible=False)}
        duels = shared.duels_of(submission_id, category, p_values == board_views.ADJUSTED_P)
        return updates(self, shared.duel_grid(duels, category, details.GRID_COMPETITORS))

    def making_csv(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The button held and the file's place saying what is being made (export_duels' next)."""
        board = self.shared.board
        if not submission_id or submission_id not in board.models:
            raise gr.Error("Pick a published model to make its duels CSV.")
        adjusted = p_values == board_views.ADJUSTED_P
        return {self.make_csv: gr.Button(interactive=False),
                self.duels_csv: gr.File(value=None, visible=True, label=details.csv_label(
                    board, submission_id, category, adjusted))}

    def export_duels(self, submission_id, category, p_values, _search: str = "") -> dict:
        """The duels CSV of the model shown (the inputs as `render`'s)."""
        board = self.shared.board
        if not submission_id or submission_id not in board.models:
            return updates(self, self.shared.no_csv())
        adjusted = p_values == board_views.ADJUSTED_P
        path, duels = self.shared.csv_file(submission_id, category, adjusted)
        return {self.make_csv: gr.Button(interactive=True),
                self.duels_csv: gr.File(value=path, visible=True,
                                        label=details.csv_label(board, submission_id, category, adjusted, duels))}
