"""The Head-to-head tab: two models on one category's tasks, and the duel map of the best
models on a task or category. Built when a page session first opens it (lazy_tab):
`HeadToHeadTab` makes each view and keeps what every session shares; `HeadToHeadView` is a
session's components and events."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.last_answer import LastAnswer
from leaderboard.app.lazy_tab import built_when_opened, new_visit, updates
from leaderboard.app.settings import PRIVATE
from leaderboard.views import compare, details, pair_chart, share, table as board_views
from leaderboard.views.markdown import escape_markdown

OVERALL = board_views.OVERALL


def best_two(board) -> list:
    """The two best models' ids, None where the board has fewer."""
    return [*board.ranked().index[:2], None, None][:2]


class HeadToHeadTab:
    """`view_state`: the view the tab shows once built, and follows once built (`show`):
    {"a", "b", "category" (None: as it is), "shown" (False: only the pickers follow, the tab
    being out of sight), "map" (a scope: the duel map opened on it; None: as it is), "visit"},
    set by a link's restore."""

    def __init__(self, board, p_values: gr.Radio, categories: list[str], opened: gr.Checkbox,
                 view_state: gr.State, p_followed: gr.State):
        self.board, self.p_values, self.categories, self.view_state = board, p_values, categories, view_state
        self.p_followed = p_followed  # the p-value setting's follower (lazy_tab): a built tab renders again
        self._last_comparison: LastAnswer[compare.HeadToHead] = LastAnswer()  # see comparison
        with gr.Tab("Head-to-head", id="head-to-head") as self.tab:
            built_when_opened(self.tab, opened, self.build, [view_state, p_values])
        self.tab.select(None, js=share.tab_writer("head-to-head"), **PRIVATE)

    def build(self, view: dict | None, p_values: str) -> HeadToHeadView:
        view = view or {"map": None}
        a, b = best_two(self.board)
        return HeadToHeadView(self, view.get("a") or a, view.get("b") or b, view.get("category") or OVERALL,
                              view["map"], p_values)

    def pickers(self, a, b, search: str | None = "") -> dict[str, dict]:
        """Both pickers: the models `search` finds (the best without one), and the pair."""
        self.board.refresh()
        search = search or ""
        choices = details.model_choices(self.board, search, keep=[a, b])
        return {"model_a": dict(choices=choices, value=a, info=details.picker_info(self.board, search)),
                "model_b": dict(choices=choices, value=b)}

    def view(self, a, b, category, p_values, search: str | None = "") -> dict[str, dict]:
        """Models a and b on the category's tasks: each component's properties, by its name in
        HeadToHeadView."""
        board = self.board
        pickers = self.pickers(a, b, search)
        adjusted = p_values == board_views.ADJUSTED_P
        try:
            result = self.comparison(a, b, category, adjusted)
        except ValueError as e:  # not two published models, or an unknown category
            return {**pickers, "summary": dict(value=f"**{escape_markdown(e)}**"), "record": dict(value=None),
                    "chart": dict(value=None), "tasks": dict(value=None), "csv": dict(value=None, interactive=False)}
        name = board_views.export_name(board.benchmark.name, result.title_a, "vs", result.title_b, result.category,
                                       "bh-adjusted" if adjusted else "")
        return {**pickers, "summary": dict(value=compare.head_to_head_summary(result)),
                "record": dict(value=result.record), "chart": dict(value=pair_chart.head_to_head_chart(result)),
                "tasks": dict(value=compare.head_to_head_display(result)),
                "csv": dict(value=board_views.export_table(compare.head_to_head_export(result), "csv", name),
                            interactive=True)}

    def comparison(self, a, b, category, adjusted: bool) -> compare.HeadToHead:
        """Models a and b compared, the last comparison kept (the start's warming makes the best two's)."""
        board = self.board
        return self._last_comparison.of(board.state.derived, (a, b, category, adjusted),
                                        lambda: compare.head_to_head(board, a, b, category, adjusted))

    def warm(self) -> None:
        """The best two's Overall comparison, made before a visitor opens the tab."""
        pair = best_two(self.board)
        if None not in pair:
            self.comparison(*pair, OVERALL, False)

    def duel_map(self, scope, p_values):
        return compare.duel_map_figure(compare.duel_map(self.board, scope, p_values == board_views.ADJUSTED_P,
                                                        compare.MAP_MODELS))

    def restored_view(self, view: dict, top: list, named) -> dict:
        """The view state a link asks for (`share.view_from_query`'s `view`; `top`: the best
        two, for a pair it does not name; `named`: its query's keys)."""
        return new_visit({"a": view["a"] or top[0], "b": view["b"] or top[1], "shown": view["tab"] == "head-to-head",
                          "category": view["h2h_category"] if "h2h_category" in named else None,
                          "map": view["map"] or None})


class HeadToHeadView:
    """A page session's Head-to-head tab, made comparing `a` and `b` on `category`, its duel
    map open on `map_scope` (None: closed)."""

    def __init__(self, shared: HeadToHeadTab, a, b, category, map_scope: str | None, p_values: str):
        self.shared = shared
        board = shared.board
        shown = shared.view(a, b, category, p_values)
        with gr.Row():
            # The pickers list the best models and what the search finds, never the whole board.
            self.find = gr.Textbox(label="Find a model", placeholder="part of a model or team name",
                                   elem_id="pair-find", interactive=True, min_width=150, max_length=board_views.MAX_SEARCH_CHARS)
            self.model_a = gr.Dropdown(label="Model A", elem_id="model-a", interactive=True, min_width=150, **shown["model_a"])
            self.model_b = gr.Dropdown(label="Model B", elem_id="model-b", interactive=True, min_width=150, **shown["model_b"])
            self.category = gr.Dropdown(shared.categories, value=category, label="Category", elem_id="pair-category", interactive=True,
                                        min_width=150)
        self.summary = gr.Markdown(elem_id="pair-summary", **shown["summary"])
        self.record = gr.Dataframe(label="Tasks won per category", interactive=False, elem_id="pair-record",
                                   max_height=420, **shown["record"])
        self.chart = gr.HTML(elem_id="pair-chart", **shown["chart"])
        gr.Markdown(details.delta_explained("A", "B"), elem_id="pair-explained")
        self.tasks = gr.Dataframe(label="Every task: metric values, Δ, one- and two-sided p", interactive=False,
                                  elem_id="pair-tasks", max_height=600, wrap=True,
                                  column_widths=compare.DISPLAY_WIDTHS, **shown["tasks"])
        self.csv = gr.DownloadButton("Download head-to-head CSV", size="sm", elem_id="pair-csv", **shown["csv"])
        self.map_open = gr.State(map_scope is not None)
        with gr.Accordion(f"Duel map: every pair of the best {compare.MAP_MODELS} models on a task or "
                          f"category", open=map_scope is not None, elem_id="map-box") as self.map_box:
            self.map_scope = gr.Dropdown(compare.scope_choices(board), value=map_scope or OVERALL,
                                         label="Task or category", elem_id="map-scope", interactive=True)
            self.duel_map = gr.Plot(shared.duel_map(map_scope, p_values) if map_scope else None, show_label=False,
                                    elem_id="duel-map")
        p_values_setting = shared.p_values
        # The pair and category first, in share.HEAD_TO_HEAD_KEYS order: the events' `js` writes them to the URL.
        self.inputs = [self.model_a, self.model_b, self.category, p_values_setting, self.find]
        self.outputs = [self.model_a, self.model_b, self.summary, self.record, self.chart, self.tasks, self.csv]
        map_inputs = [self.map_scope, p_values_setting]  # the scope first, for share.MAP_KEYS
        # The view just built, in the URL (its values: an event run on every input's change
        # would write them in place of the history entry a pick makes).
        gr.on(None, None, None, None, js=share.view_writer(share.HEAD_TO_HEAD_KEYS, [a, b, category], "head-to-head"),
              **PRIVATE)

        # Rendered at each later open and at each pick. One event: a pick made while the last
        # comparison is on its way (the category: the model pickers are covered meanwhile) is
        # rendered once it has come (Gradio's default trigger mode dropped it; two events
        # answered in either order).
        gr.on([shared.tab.select, picked(self.model_a), picked(self.model_b), picked(self.category)], self.render,
              self.inputs, self.outputs, queue=False, js=share.query_writer(share.HEAD_TO_HEAD_KEYS, tab="head-to-head"),
              trigger_mode="always_last", **PRIVATE)
        # The p-value setting (on the Leaderboard tab) changes every score; the URL keeps its tab.
        shared.p_followed.change(self.render, self.inputs, self.outputs, queue=False, trigger_mode="always_last",
                                 **PRIVATE).then(self.render_map_if_open, [*map_inputs, self.map_open],
                                                 self.duel_map, queue=False, **PRIVATE)
        self.find.input(self.pickers, [self.model_a, self.model_b, self.find], [self.model_a, self.model_b],
                        queue=False, trigger_mode="always_last", **PRIVATE)
        self.map_box.expand(lambda: True, None, self.map_open, **PRIVATE).then(
            self.render_map, map_inputs, self.duel_map, queue=False, js=share.query_writer(share.MAP_KEYS),
            **PRIVATE)
        self.map_box.collapse(lambda: False, None, self.map_open, js=share.MAP_CLOSER_JS, **PRIVATE)
        picked(self.map_scope)(self.render_map, map_inputs, self.duel_map, queue=False,
                               js=share.query_writer(share.MAP_KEYS), **PRIVATE)
        shared.view_state.change(self.show, [shared.view_state, p_values_setting, self.find],
                                 [self.category, *self.outputs, self.map_scope, self.map_box, self.map_open,
                                  self.duel_map], queue=False, trigger_mode="always_last", **PRIVATE)

    def pickers(self, a, b, search: str | None = "") -> dict:
        return updates(self, self.shared.pickers(a, b, search))

    def render(self, a, b, category, p_values, search: str | None = "") -> dict:
        """Models a and b on the category's tasks."""
        return updates(self, self.shared.view(a, b, category, p_values, search))

    def render_map(self, scope, p_values):
        return self.shared.duel_map(scope, p_values)

    def render_map_if_open(self, scope, p_values, is_open):
        return self.render_map(scope, p_values) if is_open else gr.skip()

    def show(self, view: dict, p_values, search: str | None) -> dict:
        """The view state (HeadToHeadTab) set anew: the pair rendered when it is `shown`, else
        only the pickers set (and the category, when it names one); the duel map opened on
        the scope it names."""
        shown = {self.category: view["category"]} if view["category"] else {}
        if view["shown"]:
            shown.update(self.render(view["a"], view["b"], view["category"] or OVERALL, p_values, search))
        else:
            shown.update(self.pickers(view["a"], view["b"], search))
        if view["map"]:
            shown.update({self.map_scope: view["map"], self.map_box: gr.Accordion(open=True), self.map_open: True,
                          self.duel_map: self.render_map(view["map"], p_values)})
        return shown
