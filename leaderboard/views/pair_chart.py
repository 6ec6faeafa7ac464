"""The head-to-head's chart as the page's own HTML: per task, a bar from zero, right when A
is better, coloured by the duel's verdict; one panel per unit (percentage points,
perplexity, judge points, ...), so no axis mixes units. Plain elements draw at once, where
Plotly's bundle took 2-4 s of the page's main thread to run before its first chart
(issue 35; the Details tab's score bars are drawn so for the same reason)."""
from __future__ import annotations

import html

import numpy as np

from leaderboard.views.compare import A_WINS, B_WINS, DELTA, NOT_SEPARABLE, ONE_SIDED, VERDICT_COLOURS, HeadToHead
from leaderboard.views.table import p_text


def axis_title(unit: str, better_when: str) -> str:
    """What one unit's bars are, in which unit, and which side is A better."""
    difference = f"A − B, {unit}" if better_when == "higher" else f"B − A, {unit} (lower is better)"
    return f"{difference} · right: A better"


def head_to_head_chart(result: HeadToHead) -> str:
    """The per-task differences of `result` (A better by), its legend naming A and B."""
    tasks = result.tasks
    legend = "".join(
        f'<span class="pair-key"><span class="pair-swatch" style="background:{VERDICT_COLOURS[verdict]}"></span>'
        f"{html.escape(name)}</span>"
        for verdict, name in ((A_WINS, f"A wins: {result.title_a}"), (B_WINS, f"B wins: {result.title_b}"),
                              (NOT_SEPARABLE, "not separable")))
    panels = "".join(panel(tasks[(tasks["Δ unit"] == unit) & (tasks["Better when"] == better_when)], unit, better_when)
                     for unit, better_when in dict.fromkeys(zip(tasks["Δ unit"], tasks["Better when"])))
    return (f'<div class="pair-chart" role="group" aria-label="Per task: how much A is better">'
            f'<div class="pair-legend">{legend}</div>{panels}</div>')


def panel(tasks, unit: str, better_when: str) -> str:
    """One unit's bars: zero in the middle, the widest difference reaching an edge."""
    better_by = tasks["A better by"].to_numpy(dtype=float)
    widest = np.nanmax(np.abs(better_by), initial=0.0) or 1.0
    rows = []
    for (_, task), value in zip(tasks.iterrows(), better_by):
        width = 0.0 if np.isnan(value) else 50 * abs(value) / widest
        left = 50 if np.isnan(value) or value >= 0 else 50 - width
        hover = (f"{task['Task']} · {task['Category']}\n{DELTA} {value:+.2f} {unit} · better: {task['Better']}\n"
                 f"p one-sided: A better {p_text(task[ONE_SIDED[0]])}, B better {p_text(task[ONE_SIDED[1]])}"
                 f" · two-sided {p_text(task['p two-sided'])}")
        rows.append(f'<div class="pair-row" title="{html.escape(hover)}">'
                    f'<span class="bar-label">{html.escape(task["Task"])}</span>'
                    f'<span class="pair-track"><span class="pair-bar" style="left:{left:.2f}%;width:{width:.2f}%;'
                    f'background:{VERDICT_COLOURS[task["Verdict"]]}"></span></span>'
                    f'<span class="bar-value">{"–" if np.isnan(value) else f"{value:+.2f}"}</span></div>')
    return (f'<figure class="pair-panel"><figcaption>{html.escape(axis_title(unit, better_when))}</figcaption>'
            f'{"".join(rows)}</figure>')
