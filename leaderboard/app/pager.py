"""A pager for a table the server cuts into pages (board_views.table_page): first, previous,
next and last around where the page is ("Page 2 of 198 · rows 51–100 of 9,874"), and the page
shown, kept in the page for the events. The Leaderboard tab's table and the Submit tab's
would-be ranking each have one."""
from __future__ import annotations

import math

import gradio as gr

from leaderboard.app.settings import PRIVATE
from leaderboard.views import table as board_views

# The buttons: the page each turns to from the page shown (past the last: the last).
TURNS = {"first": lambda page: 1, "previous": lambda page: page - 1, "next": lambda page: page + 1,
         "last": lambda page: math.inf}
TURN_LABELS = {"first": "« First", "previous": "‹ Previous", "next": "Next ›", "last": "Last »"}


def turnable(shown: board_views.TablePage) -> dict[str, bool]:
    """Which buttons turn to another page."""
    return {"first": shown.page > 1, "previous": shown.page > 1, "next": shown.page < shown.pages,
            "last": shown.page < shown.pages}


class Pager:
    """`prefix` starts its elements' ids (`{prefix}pager`, `{prefix}page-first`, ...,
    `{prefix}page-of`, `{prefix}page-number`); `shown`: the page it shows first (None: none,
    the pager hidden until `updates` gives one)."""

    def __init__(self, prefix: str = "", shown: board_views.TablePage | None = None):
        can_turn = turnable(shown) if shown else dict.fromkeys(TURNS, False)

        def buttons(names):
            return {name: gr.Button(TURN_LABELS[name], size="sm", elem_id=f"{prefix}page-{name}", min_width=60,
                                    interactive=can_turn[name]) for name in names}

        with gr.Row(elem_id=f"{prefix}pager", elem_classes="pager", visible=shown is not None) as self.row:
            self.buttons = buttons(["first", "previous"])
            self.note = gr.Markdown(board_views.pager_note(shown) if shown else "", elem_id=f"{prefix}page-of",
                                    elem_classes="page-of")
            self.buttons.update(buttons(["next", "last"]))
        # The page shown (the server's, after clamping), for the events and the URL.
        self.page = gr.Number(shown.page if shown else 0, precision=0, visible=False, elem_id=f"{prefix}page-number")
        # Each button's name, an input of its event (a partial of the handler would hide the
        # handler's gr.Request from Gradio, which reads it from the handler's own type hints).
        self.names = {name: gr.State(name) for name in TURNS}
        self.outputs = [self.row, self.page, self.note, *self.buttons.values()]

    def updates(self, shown: board_views.TablePage | None, page: int | None = None) -> dict:
        """The pager showing where `shown` is; None: hidden, the page number `page` kept for the events."""
        if shown is None:
            return {self.row: gr.Row(visible=False), self.page: page, self.note: gr.skip(),
                    **{button: gr.skip() for button in self.buttons.values()}}
        can_turn = turnable(shown)
        return {self.row: gr.Row(visible=True), self.page: shown.page, self.note: board_views.pager_note(shown),
                **{button: gr.Button(interactive=can_turn[name]) for name, button in self.buttons.items()}}

    def on_turn(self, turn, inputs: list, outputs: list, **event) -> list:
        """Each button's click runs `turn(*inputs, name)`, `name` the button's (`turned_to`
        gives its page); the events, for what follows them."""
        return [button.click(turn, [*inputs, self.names[name]], outputs, **event, **PRIVATE)
                for name, button in self.buttons.items()]


def turned_to(name: str, page) -> float:
    """The page button `name` turns to from page `page` (past the last: math.inf, which
    board_views.table_page takes as the last)."""
    return TURNS[name](int(page or 1))
