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

    def restore_view(request: gr.Request) -> dict:
        view = share.view_from_query(request.query_params, board)
        board.refresh()
        restored = leaderboard.restore(view, request.query_params)
        top = best_two(board)  # the board may have changed
        if view["tab"] != default_view["tab"]:
            restored[tabs] = gr.Tabs(selected=view["tab"])
        return {**restored, **model_details.restore(view, view["model"] or top[0], request.query_params),
                **head_to_head.restore(view, top, request.query_params)}

    # The table is made in a second call, from the controls as they are once the first has
    # answered: a visitor may have typed in them meanwhile (a busy server answers late).
    app.load(restore_view, None,
             [tabs, *leaderboard.restored, *model_details.restored, *head_to_head.restored,
              *head_to_head.restored_map],
             queue=False, **PRIVATE).then(
        leaderboard.show_restored, [leaderboard.stale, *leaderboard.inputs, leaderboard.page, leaderboard.plot_open],
        leaderboard.outputs, queue=False, **PRIVATE)
