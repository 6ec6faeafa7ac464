"""The Leaderboard tab's table as the page's own HTML, for one gr.HTML: the label, then a
scroll box (page.css: 700 px high, the header sticky, the rank and Model columns pinned)
holding a plain table. Gradio's Dataframe was the largest single cost of the page's first
load at 10,000 models (0.35-0.6 s of Chromium's main thread, and 0.4-0.5 s more before its
rows showed; issue 35, bench/RESULTS.md); a plain table of the page's 50 rows draws at once.
Sorting is the Sort control's, on the whole board on the server."""
from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pandas as pd

from leaderboard.views.table import cell_formats


def board_table(display: pd.DataFrame, score_column: str, widths: list[str], titles: dict[str, str], label: str) -> str:
    """`display` (table.with_model_links(..., as_html=True): its Model cells are escaped HTML
    links) as HTML under `label`: each header with its explanation (`titles`, by header) as
    its title, which static/page.js shows on a click or tap too; each column as wide as
    `widths` says (CSS lengths), the first's width also where the pinned Model column starts;
    `score_column`'s cells in bold."""
    columns = list(display.columns)
    head = "".join(f'<th class="header-cell"{attribute("title", titles.get(name))}>'
                   f'<span class="header">{html.escape(name)}</span></th>' for name in columns)
    opening = ['<td class="score">' if name == score_column else "<td>" for name in columns]  # page.css: bold
    formats = cell_formats(display)
    texts = [cell_texts(display[name], name, formats.get(name)) for name in columns]
    body = "".join("<tr>" + "".join(f"{td}{text}</td>" for td, text in zip(opening, row)) + "</tr>"
                   for row in zip(*texts))
    cols = "".join(f'<col style="width:{html.escape(width)}"/>' for width in widths)
    return (f'<div class="board-label">{html.escape(label)}</div><div class="board-scroll">'
            f'<table style="--rank-width:{html.escape(widths[0])}"><colgroup>{cols}</colgroup>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def attribute(name: str, value: str | None) -> str:
    """` name="value"` escaped, or nothing for no value."""
    return f' {name}="{html.escape(value)}"' if value else ""


def cell_texts(values: pd.Series, name: str, shown: Callable[[Any], str] | None) -> list[str]:
    """One column's cells as the Dataframe's Styler (table.emphasised) shows them, escaped: by
    `shown`, the column's table.cell_formats entry, or as text (empty when missing); the Model
    column's cells are HTML already."""
    if name == "Model":
        return list(values)
    if shown is not None:
        return [html.escape(shown(v)) for v in values]
    return [html.escape(str(v)) if pd.notna(v) else "" for v in values.to_numpy(dtype=object)]
