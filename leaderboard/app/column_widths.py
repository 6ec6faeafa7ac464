"""The widths of a ranking table's columns on screen: each header on at most two lines, broken
between words, and each cell on one line; the Model column fixed (its names are cut short,
whole on hover), so a row is one line high and a first screen holds many rows."""
from __future__ import annotations

import math

import pandas as pd

MODEL_WIDTH = 170  # px: the pinned Model column, right of the rank
CHAR_WIDTH = 8.6  # px: headers and cells are 14px monospace (0.6em a letter), with a margin for wider fonts
PADDING = 20  # px: a cell's padding on both sides
MENU_BUTTON = 16  # px: a header's sort menu button, right of its text


def two_line_chars(header: str) -> int:
    """The fewest letters a line must hold for `header` to take at most two lines, broken
    between words ("Czech Language Understanding rank": "Czech Language" / "Understanding rank")."""
    words = header.split()
    return min((max(len(" ".join(words[:k])), len(" ".join(words[k:]))) for k in range(1, len(words))),
               default=len(header))


def px(chars: int, extra: int = 0) -> int:
    return math.ceil(CHAR_WIDTH * chars + PADDING + extra)


def column_widths(display: pd.DataFrame, model_column: str = "Model", sort_menus: bool = True) -> list[str]:
    """Each column's width: the Model column MODEL_WIDTH, the others their header's two-line
    width or their longest cell, whichever is wider. `sort_menus`: a Dataframe's, whose
    headers hold a menu button beside the text (the Leaderboard tab's HTML table has none)."""
    menu = MENU_BUTTON if sort_menus else 0
    return [f"{MODEL_WIDTH}px" if name == model_column else
            f"{max(px(two_line_chars(str(name)), menu), px(max(display[name].map(len_shown), default=0)))}px"
            for name in display.columns]


def len_shown(value) -> int:
    """A cell's length as the table shows it (missing: empty)."""
    return 0 if pd.isna(value) else len(str(value))
