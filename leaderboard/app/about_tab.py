"""The About tab: the report card, the benchmark, the method and the read API, its example
addressed to this server as the browser reached it. Built when a page session first opens
it (lazy_tab)."""
from __future__ import annotations

import gradio as gr

import content
from leaderboard.app.gradio_compat import root_url
from leaderboard.app.lazy_tab import built_when_opened
from leaderboard.app.report_card_section import ReportCardSection
from leaderboard.app.settings import PRIVATE
from leaderboard.views import share


class AboutTab:
    def __init__(self, board, opened: gr.Checkbox):
        self.board = board
        with gr.Tab("About", id="about") as self.tab:
            built_when_opened(self.tab, opened, self.build)
        self.tab.select(None, js=share.tab_writer("about"), **PRIVATE)

    def build(self, request: gr.Request) -> None:
        card = ReportCardSection(self.board)
        gr.Markdown(self.text(request), elem_id="about")
        # Each later open shows the board as it is then (a publication meanwhile). It replaces
        # the page's listeners of the selection (lazy_tab): it writes the tab to the URL too.
        self.tab.select(card.render, card.find, card.outputs, queue=False, js=share.tab_writer("about"), **PRIVATE)

    def text(self, request: gr.Request) -> str:
        """The tab's text, its API example addressed as the browser reached this server
        (behind a proxy: the forwarded host)."""
        return content.about(self.board.benchmark, root_url(request) + "/")
