"""The report card, a section of the About tab (issue 34): per scope who could be first and
last by the simultaneous rank sets, the tiers the data resolves, each figure's definition,
and the card and the models x tasks matrix to download."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.gradio_compat import picked
from leaderboard.app.settings import PRIVATE, download
from leaderboard.views import details, item_matrix, report_card


class ReportCardSection:
    """Made with the About tab when a page session first opens it (lazy_tab), with the board's
    figures then; `render` makes them again (each later open). The per-model table holds the
    models found by name, at most report_card.SHOWN_MODEL_ROWS (the best when none is asked)."""

    def __init__(self, board):
        self.board = board
        files = report_card.exports(board)
        with gr.Accordion("Report card: what this board can tell apart", open=True, elem_id="card"):
            gr.Markdown("Simultaneous 95% rank sets: every model's set holds its true rank together with every "
                        "other model's in 95% of boards (beside the per-model intervals of the Leaderboard tab, "
                        "which hold each model's on its own).", elem_id="card-intro")
            self.summary = gr.Markdown(report_card.summary(board), elem_id="card-summary")
            self.scopes = gr.Dataframe(report_card.scope_table(board), label="Per scope", interactive=False,
                                       elem_id="card-scopes")
            self.find = gr.Textbox(label="Overall, per model: the intervals on these tasks, with tasks drawn too, "
                                         "and the rank sets. Find a model or team", max_lines=1,
                                   info=details.picker_info(board, "", report_card.SHOWN_MODEL_ROWS),
                                   elem_id="card-find")
            self.models = gr.Dataframe(report_card.shown_model_rows(board), show_label=False, interactive=False,
                                       elem_id="card-models", max_height=420)
            with gr.Row():
                self.card = gr.DownloadButton("Download the report card (JSON)", files["card"], size="sm",
                                              elem_id="card-json")
                self.matrix = gr.DownloadButton("Download the models x tasks matrix (CSV)", files["matrix"],
                                                size="sm", elem_id="card-matrix")
            self.tasks = gr.Dataframe(report_card.task_table(board), label="Per task with 0/1 answers: discordance",
                                      interactive=False, elem_id="card-tasks")
            with gr.Row():
                self.task = gr.Dropdown(item_matrix.exportable_tasks(board.benchmark), value=None,
                                        label="A task's models x items matrix (built when picked)",
                                        elem_id="card-task")
                self.items = gr.DownloadButton("Download its models x items matrix (CSV)", size="sm",
                                               elem_id="card-items", interactive=False)
            self.items_note = gr.Markdown(elem_id="card-items-note")
            gr.Markdown(report_card.definitions_markdown(), elem_id="card-definitions")
        self.outputs = [self.summary, self.scopes, self.find, self.models, self.tasks, self.card, self.matrix]
        picked(self.task)(self.task_matrix, self.task, [self.items, self.items_note], queue=False, **PRIVATE)
        self.find.change(self.found, self.find, [self.find, self.models], queue=False, trigger_mode="always_last",
                         **PRIVATE)

    def found(self, search: str):
        """The per-model rows of the models found, and how many there are."""
        return (gr.update(info=details.picker_info(self.board, search, report_card.SHOWN_MODEL_ROWS)),
                report_card.shown_model_rows(self.board, search))

    def task_matrix(self, task_id: str | None):
        """The picked task's matrix file and what it holds, with its SHA-256."""
        if not task_id:
            return download(None), ""
        try:
            matrix = item_matrix.item_matrix(self.board, task_id)
        except ValueError as e:  # a task id the list does not offer
            return download(None), str(e)
        return download(matrix.path), (f"{matrix.models} models x {matrix.items} items of `{task_id}`; each value "
                                       f"{matrix.values}. SHA-256 of the file: `{matrix.sha256}`")

    def render(self, search: str):
        files = report_card.exports(self.board)
        return (report_card.summary(self.board), report_card.scope_table(self.board), *self.found(search),
                report_card.task_table(self.board), download(files["card"]), download(files["matrix"]))
