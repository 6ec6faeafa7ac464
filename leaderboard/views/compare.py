"""Comparing models: head-to-head of two models, and the duel map of every pair.

Data (pandas tables in small result objects) and figures are separate functions, so the
data can be served as is (CSV, an API) and the figure drawn from it (the duel map's here,
the head-to-head's as HTML in pair_chart).
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.engine import ranking
from leaderboard.board.state import Leaderboard
from leaderboard.views.markdown import escape_markdown
from leaderboard.views.table import OVERALL, check_category, delta_scale, is_overall, p_phrase, p_text, scope_order
from stats import evidence

if TYPE_CHECKING:
    import plotly.graph_objects as go

A_WINS, B_WINS, NOT_SEPARABLE = "A wins", "B wins", "not separable"
WON, LOST, NOT_DUELED = "won", "lost", "not dueled"
VERDICT_COLOURS = {A_WINS: "#2e7d32", B_WINS: "#c62828", NOT_SEPARABLE: "#9e9e9e",
                   WON: "#2e7d32", LOST: "#c62828", NOT_DUELED: "#ffffff"}


@dataclass(frozen=True)
class HeadToHead:
    """Two models compared on the tasks of a category (or all tasks).

    tasks: one row per task (benchmark order): Category, Task, task_id, Unit, Better when
    (higher or lower), A, B (each model's metric value in the unit), A − B (truly A minus
    B, in `Δ unit`: pp for percentages, else the metric's unit), Better (A, B or equal),
    A better by (A − B oriented so that positive means A is better: B − A where lower is
    better), p one-sided (A better), p one-sided (B better), p two-sided (2 x the smaller
    one-sided p, capped at 1), Verdict (A wins, B wins, not separable). record: per
    category and Total, the tasks each model won and those not separable. sign: the sign
    test over the tasks' Better (stats.evidence.SignTest)."""

    a: str
    b: str
    title_a: str
    title_b: str
    category: str
    adjusted: bool
    on_demand: bool  # the pair never met: the duels were run for this comparison
    tasks: pd.DataFrame
    record: pd.DataFrame
    sign: evidence.SignTest
    alpha: float  # the benchmark's significance level, for duels and the sign test
    top_opponents: int  # how many of the best models a new model duels


def _category_tasks(board: Leaderboard, category: str | None):
    if is_overall(category):
        return list(board.benchmark.tasks)
    check_category(board, category)
    return board.benchmark.tasks_in(category)


def head_to_head(board: Leaderboard, a: str, b: str, category: str | None = None,
                 adjusted: bool = False) -> HeadToHead:
    """Models `a` and `b` (submission ids) on every task of `category` (None or Overall:
    all tasks): who wins significantly in each direction, one- and two-sided p-values,
    A − B and which side is better, both metric values, the record per category and a
    sign test. A pair that never met is dueled now (`Leaderboard.pair_duels`).
    `adjusted`: Benjamini-Hochberg p-values (the two-sided p doubles the adjusted ones)."""
    tasks = _category_tasks(board, category)
    forward, backward, on_demand = board.pair_duels(a, b, adjusted)
    index = np.array([board.benchmark.task_ids.index(t.id) for t in tasks])
    ids = [t.id for t in tasks]
    scale, units = delta_scale(board, ids)
    won, lost = forward.significant[0, index], backward.significant[0, index]
    values = {m: np.array([board.models[m].results.aggregates[t] for t in ids]) * scale for m in (a, b)}
    better_by = forward.delta[0, index] * scale
    p_a, p_b = forward.p_value[0, index], backward.p_value[0, index]
    table = pd.DataFrame({
        "Category": [t.category for t in tasks], "Task": [t.abbreviation for t in tasks], "task_id": ids,
        "Unit": ["%" if u == "pp" else u for u in units],
        "Better when": ["higher" if t.metric.higher_is_better else "lower" for t in tasks],
        "A": values[a], "B": values[b], "A − B": values[a] - values[b], "Δ unit": units,
        "Better": np.select([better_by > 0, better_by < 0], ["A", "B"], "equal"), "A better by": better_by,
        "p one-sided (A better)": p_a, "p one-sided (B better)": p_b,
        "p two-sided": np.minimum(1.0, 2 * np.minimum(p_a, p_b)),
        "Verdict": np.select([won, lost], [A_WINS, B_WINS], NOT_SEPARABLE)})
    record = pd.crosstab(pd.Categorical(table["Category"], categories=list(dict.fromkeys(table["Category"]))),
                         pd.Categorical(table["Verdict"], categories=[A_WINS, B_WINS, NOT_SEPARABLE]),
                         margins=True, margins_name="Total", dropna=False)
    record.index.name, record.columns.name = "Category", None
    return HeadToHead(a, b, board.models[a].title, board.models[b].title, OVERALL if is_overall(category) else category,
                      adjusted, on_demand, table, record.reset_index(), evidence.sign_test(better_by),
                      board.benchmark.alpha, board.benchmark.top_opponents)


def head_to_head_export(result: HeadToHead) -> pd.DataFrame:
    """The per-task table for a CSV: A and B named by their titles."""
    return result.tasks.rename(columns={"A": f"A: {result.title_a}", "B": f"B: {result.title_b}"})


def sign_verdict(result: HeadToHead) -> str:
    """The sign test in words: who is ahead on more tasks, with its p-values."""
    sign, leader = result.sign, result.sign.leader(result.alpha)
    p_values = (f"sign test, two-sided {p_phrase(sign.p_two_sided)}; one-sided: A ahead {p_phrase(sign.p_a_ahead)}, "
                f"B ahead {p_phrase(sign.p_b_ahead)}")
    if leader:
        return f"**{leader} is ahead on this suite** ({p_values})"
    return f"neither is ahead on this suite ({p_values}; a leader needs two-sided p ≤ {result.alpha:g})"


def head_to_head_summary(result: HeadToHead) -> str:
    """The comparison in words: the record, the sign test, how the duels were obtained."""
    a, b = escape_markdown(result.title_a), escape_markdown(result.title_b)
    total = result.record.set_index("Category").loc["Total"]
    tasks = len(result.tasks)
    scope = "all tasks" if result.category == OVERALL else f"the {escape_markdown(result.category)} tasks"
    lines = [f"**A** = {a} · **B** = {b}",
             "",
             f"On {scope} ({tasks}): **A wins {total[A_WINS]}**, **B wins {total[B_WINS]}**, "
             f"**{total[NOT_SEPARABLE]} not separable** (one-sided duels in each direction, p ≤ {result.alpha:g}"
             f"{', Benjamini-Hochberg adjusted' if result.adjusted else ''}).",
             f"A has the better metric on {result.sign.ahead} tasks, B on {result.sign.behind}: "
             f"{sign_verdict(result)}."]
    if result.on_demand:
        lines.append(f"These two never dueled on the board (neither was among the other's top {result.top_opponents} "
                     "opponents): the duels were run now from the stored results; they do not count in any score.")
    return "\n".join(lines)


ONE_SIDED = ("p one-sided (A better)", "p one-sided (B better)")
DELTA = "Δ (A better by)"  # the screen's difference column: the Details tab's convention (details.delta_explained)


# --- the duel map: every pair of models on a task or a category ---------------------------

@dataclass(frozen=True)
class DuelMap:
    """Every ordered pair of models on one scope (a task, a category or Overall), models
    in the scope's rank order. cells: one row per (model, opponent) pair, model-major:
    Rank, Model, model_id, Opponent rank, Opponent, opponent_id, Verdict (won, lost, not
    separable, not dueled; "" for a model against itself), Won, Lost, Not separable (task
    counts), p one-sided (model better), p one-sided (opponent better), Δ, Δ unit (p and Δ on a task only)."""

    scope: str  # a task id, a category or Overall
    scope_name: str
    model_ids: list[str]
    cells: pd.DataFrame


MAP_MODELS = 50  # the page's duel map: the best 50 models on its scope (more cells are unreadable on a screen)


def scope_choices(board: Leaderboard) -> list[tuple[str, str]]:
    """(label, key) of every duel-map scope: Overall, each category, then each task."""
    return [(OVERALL, OVERALL), *[(c, c) for c in board.benchmark.categories],
            *[(f"{t.category} › {t.abbreviation}", t.id) for t in board.benchmark.tasks]]


def duel_map(board: Leaderboard, scope: str = OVERALL, adjusted: bool = False, top: int | None = None) -> DuelMap:
    """The duels of every pair on `scope`: a task id, a category, or Overall (all tasks),
    among the `top` best models on it (None: all). On a task each cell is its duel's
    verdict; on several tasks the side that won more of them (equal counts: not
    separable). Memory: (models² x tasks) booleans, p and Δ only on a task."""
    benchmark = board.benchmark
    if scope in benchmark.task_ids:
        tasks, key, name = [benchmark.task(scope)], scope, benchmark.task(scope).name
    else:
        tasks = _category_tasks(board, scope)
        key, name = (ranking.OVERALL, OVERALL) if is_overall(scope) else (scope, scope)
    order = list(scope_order(board.ranked(adjusted), key).index)[:top]
    tournament = board.duels(adjusted)
    rows = tournament.rows()
    n, columns = len(order), np.array([benchmark.task_ids.index(t.id) for t in tasks])
    position = np.full(len(tournament.model_ids), -1)
    position[[tournament.index(m) for m in order]] = np.arange(n)
    i, j = position[rows.first], position[rows.second]
    kept = (i >= 0) & (j >= 0)
    fought = np.zeros((n, n, len(tasks)), dtype=bool)
    won = np.zeros_like(fought)
    fought[i[kept], j[kept]] = rows.fought[kept][:, columns]
    won[i[kept], j[kept]] = (rows.significant & rows.fought)[kept][:, columns]
    single = len(tasks) == 1
    if single:
        p_value, delta = np.full((n, n), np.nan), np.full((n, n), np.nan)
        p_value[i[kept], j[kept]] = rows.p_value[kept][:, columns[0]]
        delta[i[kept], j[kept]] = rows.delta[kept][:, columns[0]]
    lost = won.transpose(1, 0, 2)
    dueled = fought | fought.transpose(1, 0, 2)
    n_won, n_lost = won.sum(axis=2), lost.sum(axis=2)
    n_open = (dueled & ~won & ~lost).sum(axis=2)
    verdict = np.select([n_won > n_lost, n_lost > n_won, dueled.any(axis=2)], [WON, LOST, NOT_SEPARABLE], NOT_DUELED)
    verdict[np.arange(n), np.arange(n)] = ""
    scale, units = delta_scale(board, [tasks[0].id]) if single else (np.array([np.nan]), [""])
    titles = np.array([board.models[m].title for m in order], dtype=object)
    cells = pd.DataFrame({
        "Rank": np.repeat(np.arange(1, n + 1), n), "Model": np.repeat(titles, n), "model_id": np.repeat(order, n),
        "Opponent rank": np.tile(np.arange(1, n + 1), n), "Opponent": np.tile(titles, n),
        "opponent_id": np.tile(order, n), "Verdict": verdict.ravel(), "Won": n_won.ravel(), "Lost": n_lost.ravel(),
        "Not separable": n_open.ravel(),
        "p one-sided (model better)": p_value.ravel() if single else np.nan,
        "p one-sided (opponent better)": p_value.T.ravel() if single else np.nan,
        "Δ": delta.ravel() * scale[0] if single else np.nan, "Δ unit": units[0]})
    return DuelMap(scope if single else name, name, order, cells)


CELL_LABELS_PX = 230  # the duel map's row names ("12. " and 24 letters) and margins


def duel_map_figure(result: DuelMap) -> go.Figure:
    """A models x models heatmap in rank order (row: the model, column: its opponent),
    cells coloured by verdict, the duel's p and Δ (or the task counts) on hover."""
    import plotly.graph_objects as go  # here: the app starts without plotly
    cells = result.cells
    n = len(result.model_ids)
    codes = {WON: 0, LOST: 1, NOT_SEPARABLE: 2, NOT_DUELED: 3, "": 3}
    z = cells["Verdict"].map(codes).to_numpy(dtype=float).reshape(n, n) + 0.5  # the middle of its colour band
    titles = [html.escape(str(t)) for t in cells["Model"].iloc[::n]]
    names = [f"{r}. {t[:24]}" for r, t in enumerate(titles, 1)]  # rows; columns by rank, the names on hover
    single = cells["Δ unit"].iloc[0] != ""
    detail = (cells["Verdict"] + " · Δ " + cells["Δ"].map("{:+.2f}".format) + " " + cells["Δ unit"]
              + "<br>one-sided p: row better " + cells["p one-sided (model better)"].map(p_text)
              + " · column better " + cells["p one-sided (opponent better)"].map(p_text)) if single else (
        cells["Verdict"] + "<br>tasks won " + cells["Won"].astype(str) + " · lost " + cells["Lost"].astype(str)
        + " · not separable " + cells["Not separable"].astype(str))
    detail = detail.where(cells["Verdict"] != "", "").where(cells["Verdict"] != NOT_DUELED, NOT_DUELED)
    palette = [VERDICT_COLOURS[v] for v in (WON, LOST, NOT_SEPARABLE, NOT_DUELED)]
    scale = [[k / 4 + e / 4, colour] for k, colour in enumerate(palette) for e in (0, 1)]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(1, n + 1)), y=names, zmin=0, zmax=4, colorscale=scale, xgap=1, ygap=1,
        customdata=np.stack([detail.to_numpy(dtype=object).reshape(n, n), np.tile(np.array(titles, dtype=object), (n, 1))],
                            axis=-1), showscale=False,
        hovertemplate="%{y} vs %{x}. %{customdata[1]}<br>%{customdata[0]}<extra></extra>"))
    for verdict in (WON, LOST, NOT_SEPARABLE, NOT_DUELED):  # a legend of the colours
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=verdict, showlegend=True,
                                 marker={"size": 12, "symbol": "square", "color": VERDICT_COLOURS[verdict],
                                         "line": {"color": "#999", "width": 1}}))
    side = max(360, 16 * n + 170)
    fig.update_layout(
        # As wide as the rows are high (16px cells, the names beside them) whatever the screen's
        # width: a phone scrolls the map sideways (page.css) instead of squeezing its cells to 3px.
        width=max(360, 16 * n + CELL_LABELS_PX),
        # The title starts below the toolbar (about 30px, shown on hover) that a phone's width
        # puts over it; the top axis's title and ticks follow in the margin.
        template="plotly_white", height=side, margin={"l": 10, "r": 10, "t": 110, "b": 10},
        title={"text": f"{html.escape(result.scope_name)}: row vs column", "x": 0, "font": {"size": 14},
               "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 34}},
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0},
        xaxis={"title": "opponent (rank)", "showgrid": False, "automargin": True, "side": "top", "dtick": 1 if n <= 30 else 5},
        yaxis={"autorange": "reversed", "showgrid": False, "automargin": True})
    return fig


# The screen table's column widths (head_to_head_display's columns): left to Gradio, a
# column of short values (a p of 1 on every task) squeezed its header to a letter a line.
DISPLAY_WIDTHS = ["95px", "120px", "135px", "135px", "140px", "110px", "110px", "110px", "100px", "120px"]


def head_to_head_display(result: HeadToHead):
    """The per-task table for the screen (Styler): metric values and Δ (A better by) with their unit,
    which side is better and by which direction, p-values readable and named one- or
    two-sided, the verdict cell coloured (green A, red B, grey not separable)."""
    tasks = result.tasks
    shown = pd.DataFrame({
        "Task": tasks["Task"], "Verdict": tasks["Verdict"],
        "A": tasks["A"].map("{:.2f}".format) + " " + tasks["Unit"],
        "B": tasks["B"].map("{:.2f}".format) + " " + tasks["Unit"],
        DELTA: tasks["A better by"].map("{:+.2f}".format) + " " + tasks["Δ unit"],
        "Better": np.where(tasks["Better"] == "equal", "equal", tasks["Better"] + " (" + tasks["Better when"] + ")"),
        **{c: tasks[c].map(p_text) for c in (*ONE_SIDED, "p two-sided")},
        "Category": tasks["Category"]})
    colours = {verdict: f"background-color: {colour}; color: white" for verdict, colour in VERDICT_COLOURS.items()
               if verdict in (A_WINS, B_WINS)}
    colours[NOT_SEPARABLE] = "background-color: #eeeeee"
    return shown.style.map(lambda v: colours.get(v, ""), subset=["Verdict"])
