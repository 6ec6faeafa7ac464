"""The About tab: the benchmark, the method and the read API, its example addressed to this
server as the browser reached it."""
from __future__ import annotations

import gradio as gr
from gradio.route_utils import get_root_url

import content
from leaderboard.views import share


class AboutTab:
    def __init__(self, board):
        self.board = board
        with gr.Tab("About", id="about") as self.tab:
            self.text = gr.Markdown(elem_id="about")  # filled on load: its API example has the server's address
        self.tab.select(None, js=share.tab_writer("about"))

    def fill(self, request: gr.Request) -> str:
        """The tab's text, its API example addressed as the browser reached this server
        (behind a proxy: the forwarded host)."""
        return content.about(self.board.benchmark, get_root_url(request.request, request.request.url.path, None) + "/")
