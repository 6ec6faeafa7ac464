"""The Head-to-head tab: two models on one category's tasks, and the duel map of the best
models on a task or category."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.last_answer import LastAnswer
from leaderboard.app.settings import PRIVATE, download
from leaderboard.views import compare, details, pair_chart, share, table as board_views
from leaderboard.views.markdown import escape_markdown

OVERALL = board_views.OVERALL


def best_two(board) -> list:
    """The two best models' ids, None where the board has fewer."""
    return [*board.ranked().index[:2], None, None][:2]


class HeadToHeadTab:
    def __init__(self, board, p_values: gr.Radio, categories: list[str]):
        self.board = board
        self.built_pair = default_pair = best_two(board)
        self._last_comparison: LastAnswer[compare.HeadToHead] = LastAnswer()  # see comparison
        with gr.Tab("Head-to-head", id="head-to-head") as self.tab:
            with gr.Row():
                # The pickers list the best models and what the search finds, never the whole board.
                self.find = gr.Textbox(label="Find a model", placeholder="part of a model or team name",
                                       elem_id="pair-find", min_width=150, max_length=board_views.MAX_SEARCH_CHARS)
                pair_choices = details.model_choices(board, keep=default_pair)
                self.model_a = gr.Dropdown(pair_choices, value=default_pair[0], label="Model A",
                                           info=details.picker_info(board, ""), elem_id="model-a", min_width=150)
                self.model_b = gr.Dropdown(pair_choices, value=default_pair[1], label="Model B",
                                           elem_id="model-b", min_width=150)
                self.category = gr.Dropdown(categories, value=OVERALL, label="Category", elem_id="pair-category",
                                            min_width=150)
            self.summary = gr.Markdown(elem_id="pair-summary")
            self.record = gr.Dataframe(label="Tasks won per category", interactive=False, elem_id="pair-record",
                                       max_height=420)
            self.chart = gr.HTML(elem_id="pair-chart")
            gr.Markdown(details.delta_explained("A", "B"), elem_id="pair-explained")
            self.tasks = gr.Dataframe(label="Every task: metric values, Δ, one- and two-sided p", interactive=False,
                                      elem_id="pair-tasks", max_height=600, wrap=True,
                                      column_widths=compare.DISPLAY_WIDTHS)
            self.csv = gr.DownloadButton("Download head-to-head CSV", size="sm", elem_id="pair-csv", interactive=False)
            self.map_open = gr.State(False)
            with gr.Accordion(f"Duel map: every pair of the best {compare.MAP_MODELS} models on a task or "
                              f"category", open=False, elem_id="map-box") as self.map_box:
                self.map_scope = gr.Dropdown(compare.scope_choices(board), value=OVERALL, label="Task or category",
                                             elem_id="map-scope")
                self.duel_map = gr.Plot(show_label=False, elem_id="duel-map")
        # The pair and category first, in share.HEAD_TO_HEAD_KEYS order: the events' `js` writes them to the URL.
        self.inputs = [self.model_a, self.model_b, self.category, p_values, self.find]
        self.outputs = [self.model_a, self.model_b, self.summary, self.record, self.chart, self.tasks, self.csv]
        self.map_inputs = [self.map_scope, p_values]  # the scope first, for share.MAP_KEYS
        # What restore() may update: the pair, and the duel map.
        self.restored = [self.category, *self.outputs]
        self.restored_map = [self.map_scope, self.map_box, self.map_open, self.duel_map]

        # Rendered when opened and at each pick. One event: a pick made while the last
        # comparison is on its way (the category: the model pickers are covered meanwhile) is
        # rendered once it has come (Gradio's default trigger mode dropped it; two events
        # answered in either order).
        gr.on([self.tab.select, picked(self.model_a), picked(self.model_b), picked(self.category)], self.render,
              self.inputs, self.outputs, queue=False, js=share.query_writer(share.HEAD_TO_HEAD_KEYS, tab="head-to-head"),
              trigger_mode="always_last", **PRIVATE)
        self.find.input(self.pickers, [self.model_a, self.model_b, self.find], [self.model_a, self.model_b],
                        queue=False, trigger_mode="always_last", **PRIVATE)
        self.map_box.expand(lambda: True, None, self.map_open, **PRIVATE).then(
            self.render_map, self.map_inputs, self.duel_map, queue=False, js=share.query_writer(share.MAP_KEYS),
            **PRIVATE)
        self.map_box.collapse(lambda: False, None, self.map_open, js=share.MAP_CLOSER_JS, **PRIVATE)
        picked(self.map_scope)(self.render_map, self.map_inputs, self.duel_map, queue=False,
                             js=share.query_writer(share.MAP_KEYS), **PRIVATE)

    def pickers(self, a, b, search: str | None = "") -> dict:
        """Both pickers: the models `search` finds (the best without one; None: the find box
        of a tab never opened, which the p-value setting's change renders), and the pair."""
        self.board.refresh()
        search = search or ""
        choices = details.model_choices(self.board, search, keep=[a, b])
        return {self.model_a: gr.Dropdown(choices=choices, value=a, info=details.picker_info(self.board, search)),
                self.model_b: gr.Dropdown(choices=choices, value=b)}

    def render(self, a, b, category, p_values, search: str | None = "") -> dict:
        """Models a and b on the category's tasks."""
        board = self.board
        pickers = self.pickers(a, b, search)
        adjusted = p_values == board_views.ADJUSTED_P
        try:
            result = self.comparison(a, b, category, adjusted)
        except ValueError as e:  # not two published models, or an unknown category
            return {**pickers, self.summary: f"**{escape_markdown(e)}**", self.record: None, self.chart: None,
                    self.tasks: None, self.csv: download(None)}
        name = board_views.export_name(board.benchmark.name, result.title_a, "vs", result.title_b, result.category,
                                       "bh-adjusted" if adjusted else "")
        return {**pickers, self.summary: compare.head_to_head_summary(result), self.record: result.record,
                self.chart: pair_chart.head_to_head_chart(result), self.tasks: compare.head_to_head_display(result),
                self.csv: download(board_views.export_table(compare.head_to_head_export(result), "csv",
                                                                        name))}

    def comparison(self, a, b, category, adjusted: bool) -> compare.HeadToHead:
        """Models a and b compared, the last comparison kept (the start's warming makes the best two's)."""
        board = self.board
        return self._last_comparison.of(board.state.derived, (a, b, category, adjusted),
                                        lambda: compare.head_to_head(board, a, b, category, adjusted))

    def warm(self) -> None:
        """The best two's Overall comparison, made before a visitor opens the tab."""
        if None not in self.built_pair:
            self.comparison(*self.built_pair, OVERALL, False)

    def render_map(self, scope, p_values):
        return compare.duel_map_figure(compare.duel_map(self.board, scope, p_values == board_views.ADJUSTED_P,
                                                        compare.MAP_MODELS))

    def render_map_if_open(self, scope, p_values, is_open):
        return self.render_map(scope, p_values) if is_open else gr.skip()

    def restore(self, view: dict, top: list, named) -> dict:
        """The pair (the link's, else the best two `top`), category and open duel map a link
        asks for (`named`: its query's keys); the pair is rendered only when the link opens
        this tab. What the link does not name is left as the visitor may have set it while the
        page loaded (the pickers are set again when the best two are no longer those built with the page)."""
        a, b = view["a"] or top[0], view["b"] or top[1]
        shown = {self.category: view["h2h_category"]} if "h2h_category" in named else {}
        if view["tab"] == "head-to-head":
            shown.update(self.render(a, b, view["h2h_category"], view["p"]))
        elif "a" in named or "b" in named or [a, b] != list(self.built_pair):
            shown.update(self.pickers(a, b))
        if view["map"]:
            shown.update({self.map_scope: view["map"], self.map_box: gr.Accordion(open=True), self.map_open: True,
                          self.duel_map: self.render_map(view["map"], view["p"])})
        return shown
