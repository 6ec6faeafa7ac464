"""The page's state in its URL: on page load, the view a link asks for (its query, read by
`share.view_from_query`) is restored into every tab; so is the view of an entry of the
browser's history the visitor goes Back or Forward to, or of a link to a view of this page
(a model's name) opened in the page (static/history.js)."""
from __future__ import annotations

from urllib.parse import parse_qsl

import gradio as gr

from leaderboard.app.head_to_head_tab import best_two
from leaderboard.app.settings import PRIVATE, script
from leaderboard.views import share


def restore_on_load(app: gr.Blocks, board, tabs: gr.Tabs, opened: dict, default_view: dict, leaderboard,
                    model_details, head_to_head) -> None:
    """Each tab restores its own part: the Leaderboard tab its components (`restore`;
    `restored`: those it may update), Details and Head-to-head their view states
    (`restored_view`); a tab built when first opened (`opened`: their flags by tab id,
    lazy_tab) is built when the view is on it."""

    def restore(query, named, tab_named: bool) -> dict:
        view = share.view_from_query(query, board)
        board.refresh()
        restored = leaderboard.restore(view, named)
        top = best_two(board)  # the board may have changed
        if tab_named or view["tab"] != default_view["tab"]:
            restored[tabs] = gr.Tabs(selected=view["tab"])
        if view["tab"] in opened:
            restored[opened[view["tab"]]] = True
        return {**restored, model_details.view_state: model_details.restored_view(view, view["model"] or top[0], named),
                head_to_head.view_state: head_to_head.restored_view(view, top, named)}

    def restore_view(request: gr.Request) -> dict:
        return restore(request.query_params, request.query_params, tab_named=False)

    def restore_visited(search: str) -> dict:
        """The view of the URL the page now shows (`search`: its query): every key, a key it
        leaves out at its default."""
        return restore(dict(parse_qsl(search.removeprefix("?"))), share.DEFAULTS, tab_named=True)

    outputs = [tabs, *opened.values(), *leaderboard.restored, model_details.view_state, head_to_head.view_state]
    # The table is made in a second call, from the controls as they are once the first has
    # answered: a visitor may have typed in them meanwhile (a busy server answers late). The
    # next view's (Back twice) is made too, once the last one's has come.
    show_table = dict(fn=leaderboard.show_restored,
                      inputs=[leaderboard.stale, *leaderboard.inputs, leaderboard.page, leaderboard.plot_open],
                      outputs=leaderboard.outputs, queue=False, trigger_mode="always_last", **PRIVATE)
    app.load(restore_view, None, outputs, queue=False, **PRIVATE).then(**show_table)
    # static/history.js clicks this (hidden) button when the URL changed without a page load;
    # a click while the last one's view is on its way (Back twice) asks, once it has come,
    # for the view of the URL then (Gradio's default trigger mode drops it). Queued: the page
    # fires a State's change (Details' and Head-to-head's view states, which their built tabs
    # follow) only for a queued call's answer.
    visited = gr.Textbox(elem_id="visited-query", elem_classes="page-trigger", show_label=False, container=False)
    trigger = gr.Button(elem_id="visited", elem_classes="page-trigger")
    trigger.click(restore_visited, visited, outputs, js="() => [location.search]", trigger_mode="always_last",
                  **PRIVATE).then(**show_table)
    app.load(None, js=script("history.js"), **PRIVATE)
