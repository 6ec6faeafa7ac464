"""The page's state in its URL: on page load, the view a link asks for (its query, read by
`share.view_from_query`) is restored into every tab."""
from __future__ import annotations

import gradio as gr

from leaderboard.app.head_to_head_tab import best_two
from leaderboard.app.settings import PRIVATE
from leaderboard.views import share


def restore_on_load(app: gr.Blocks, board, tabs: gr.Tabs, default_view: dict, leaderboard, model_details,
                    head_to_head) -> None:
    """Each tab restores its own part (`restore`; `restored`: the components it may update)."""

    def restore_view(plot_open, request: gr.Request) -> dict:
        view = share.view_from_query(request.query_params, board)
        board.refresh()
        restored = leaderboard.restore(view, plot_open)
        top = best_two(board)  # the board may have changed
        if view["tab"] != default_view["tab"]:
            restored[tabs] = gr.Tabs(selected=view["tab"])
        return {**restored, **model_details.restore(view, view["model"] or top[0]),
                **head_to_head.restore(view, top)}

    app.load(restore_view, [leaderboard.plot_open],
             [tabs, *leaderboard.restored, *model_details.restored, *head_to_head.restored,
              *head_to_head.restored_map],
             queue=False, **PRIVATE)
