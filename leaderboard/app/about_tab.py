"""The About tab: the report card, the benchmark, the method and the read API, its example
addressed to this server as the browser reached it."""
from __future__ import annotations

import gradio as gr

import content
from leaderboard.app.gradio_compat import root_url
from leaderboard.app.report_card_section import ReportCardSection
from leaderboard.app.settings import PRIVATE
from leaderboard.views import share


class AboutTab:
    def __init__(self, board):
        self.board = board
        with gr.Tab("About", id="about") as self.tab:
            self.card = ReportCardSection(board)
            self.text = gr.Markdown(elem_id="about")  # filled on load: its API example has the server's address
        self.tab.select(self.card.render, None, self.card.outputs, queue=False, js=share.tab_writer("about"), **PRIVATE)

    def fill(self, request: gr.Request) -> str:
        """The tab's text, its API example addressed as the browser reached this server
        (behind a proxy: the forwarded host)."""
        return content.about(self.board.benchmark, root_url(request) + "/")
