"""Tables of the leaderboard for people: display columns, percentages, model titles.

Shared by the command line and the web app; plain pandas, no UI code.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import html
import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from leaderboard.board import Leaderboard, Preview
from leaderboard.store import PublishedModel
from leaderboard.tournament import Tournament
from leaderboard.ranking import OVERALL

WIN_SCORE, METRIC_VALUE = "win_score", "metric"
META_COLUMNS = {"model_type": "Type", "parameters": "Parameters (B)", "precision": "Precision",
                "input_length": "Input length", "description": "Description"}


def _submitted(timestamp) -> str:
    if not timestamp:
        return ""
    return dt.datetime.fromtimestamp(float(timestamp), dt.timezone.utc).strftime("%Y-%m-%d")


def model_info(models: dict[str, PublishedModel], ids) -> pd.DataFrame:
    """Title and metadata columns for the given submission ids."""
    rows = []
    for sid in ids:
        m = models[sid].metadata
        rows.append({"Model": models[sid].title,
                     **{label: m.get(key) for key, label in META_COLUMNS.items()},
                     "Submitted": _submitted(m.get("submission_timestamp")),
                     "Link": m.get("link_to_model", "")})
    return pd.DataFrame(rows, index=pd.Index(list(ids), name="submission_id"))


def score_columns(board: Leaderboard, category: str | None) -> list[tuple[str, str]]:
    """(column in the scores table, display name) for the Overall view or a category."""
    if category in (None, "", "Overall"):
        return [(OVERALL, "Overall"), *[(c, c) for c in board.benchmark.categories]]
    tasks = board.benchmark.tasks_in(category)
    if not tasks:
        raise ValueError(f"unknown category {category!r}; choose Overall or one of "
                         f"{', '.join(board.benchmark.categories)}")
    return [(category, category), *[(t.id, t.abbreviation) for t in tasks]]


def leaderboard_table(board: Leaderboard, category: str | None = None, values: str = WIN_SCORE,
                      preview: Preview | None = None) -> pd.DataFrame:
    """The ranked table: rank, model and metadata, then scores in percent; with a
    preview, the ranking as it would be with `previous_rank` and `rank_change`.

    values=METRIC_VALUE shows each task's own metric (accuracy etc. in percent,
    perplexity as is) instead of its win score; category columns stay win scores.
    """
    models = dict(board.models)
    ranked = board.ranked()
    if preview is not None:
        models[preview.submission_id] = preview.model
        ranked = preview.table
    columns = score_columns(board, category)
    scores = ranked[[c for c, _ in columns]] * 100.0
    if values == METRIC_VALUE:
        raw = pd.DataFrame({sid: m.results.aggregates for sid, m in models.items()}).T.reindex(ranked.index)
        for column, _ in columns:
            if column in raw.columns:
                metric = board.benchmark.task(column).metric
                scores[column] = raw[column] * (100.0 if metric.higher_is_better else 1.0)
    scores.columns = [name for _, name in columns]
    extra = [c for c in ("previous_rank", "rank_change") if c in ranked.columns]
    table = pd.concat([ranked[["rank", *extra]], model_info(models, ranked.index), scores.round(2)], axis=1)
    return table.rename(columns={"rank": "Rank", "previous_rank": "Previous rank", "rank_change": "Rank change"})


# --- for the web app: escaping, filters, exports, plots, duel tables ------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def escape_markdown(text) -> str:
    """User text shown as literal text in a markdown cell: no HTML, no markup, no links."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=True))


def markdown_link(text, url) -> str:
    url = str(url or "")
    if not url.startswith(("http://", "https://")):
        return escape_markdown(text)
    return f"[{escape_markdown(text)}]({quote(url, safe=':/?&=#%@+,;~')})"


def with_model_links(table: pd.DataFrame) -> pd.DataFrame:
    """The table for the screen: the Model column as escaped markdown links (for
    gr.Dataframe's markdown datatype); descriptions stay in exports and model details."""
    out = table.drop(columns=["Link", "Description"]).copy()
    out["Model"] = [markdown_link(m, link) for m, link in zip(table["Model"], table["Link"])]
    return out


def emphasised(table: pd.DataFrame, score_column: str, highlight: str | None = None):
    """Styler for gr.Dataframe: the ranking's score column in bold, the row of submission
    id `highlight` (a pre-submitted model) shaded."""
    style = table.style.set_properties(subset=[score_column], **{"font-weight": "bold"})
    if highlight in table.index:
        style = style.apply(lambda row: ["background-color: #fff3c4" if row.name == highlight else ""] * len(row),
                            axis=1)
    scores = [c for c in table.select_dtypes("float").columns if c != "Parameters (B)"]
    return style.format(precision=2, subset=scores).format("{:g}", subset=["Parameters (B)"])


def filter_table(table: pd.DataFrame, search: str = "", model_types=None,
                 min_params: float | None = None, max_params: float | None = None) -> pd.DataFrame:
    """Rows whose model or team contains `search` (case-insensitive), of the given types
    and parameter range (max 0 or None: no upper limit); ranks are kept as on the full board."""
    keep = pd.Series(True, index=table.index)
    if search and search.strip():
        keep &= table["Model"].str.contains(search.strip(), case=False, regex=False)
    if model_types:
        keep &= table["Type"].isin(model_types)
    if min_params is not None:
        keep &= table["Parameters (B)"] >= min_params
    if max_params:  # 0 or empty: no upper limit
        keep &= table["Parameters (B)"] <= max_params
    return table[keep]


def _csv_safe(value):
    """Keep spreadsheet programs from running a cell as a formula."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell that a spreadsheet would run as a formula quoted."""
    return table.map(_csv_safe)


def terminal_safe(text) -> str:
    """Text for a terminal: control characters (escape sequences, bidirectional
    overrides) shown as \\x1b-style escapes instead of being obeyed."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in str(text))


def percent(fraction) -> str:
    """A win score for a sentence: "63.50%", or "no duels yet" for a model without any."""
    return "no duels yet" if fraction is None or np.isnan(fraction) else f"{fraction * 100:.2f}%"


EXPORTS = Path(tempfile.gettempdir()) / f"leaderboard-exports-{os.getpid()}"
MAX_EXPORTS = 64


def export_table(table: pd.DataFrame, fmt: str, name: str = "leaderboard") -> str:
    """Write the table as CSV or JSON and return its path. Files are named by their
    content, so rendering a view again reuses its file, and only the newest MAX_EXPORTS
    are kept (Gradio serves its own copy, deleted by the app's `delete_cache`)."""
    data = (spreadsheet_safe(table).to_csv(index=False) if fmt == "csv"
            else table.to_json(orient="records", indent=1, force_ascii=False)).encode("utf-8")
    path = EXPORTS / hashlib.sha256(data).hexdigest()[:16] / f"{name}.{fmt}"
    if path.exists():
        os.utime(path.parent)  # newest again: not pruned below
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for old in sorted(EXPORTS.iterdir(), key=lambda p: p.stat().st_mtime)[:-MAX_EXPORTS]:
        shutil.rmtree(old, ignore_errors=True)
    return str(path)


def score_scatter(table: pd.DataFrame, score_column: str) -> go.Figure:
    """Score against parameters (log scale), model names on hover."""
    fig = go.Figure(go.Scatter(
        x=table["Parameters (B)"], y=table[score_column], mode="markers",
        marker={"size": 10, "color": table[score_column], "colorscale": "Viridis", "showscale": False},
        text=[html.escape(str(m)) for m in table["Model"]],
        hovertemplate="%{text}<br>%{x} B parameters<br>" + html.escape(score_column) + " %{y:.2f}<extra></extra>"))
    fig.update_layout(xaxis={"type": "log", "title": "Parameters (billions, log scale)"},
                      yaxis={"title": f"{score_column} (%)"}, margin={"l": 50, "r": 20, "t": 30, "b": 50},
                      height=420, template="plotly_white")
    return fig


def category_bars(board: Leaderboard, submission_id: str) -> go.Figure:
    row = board.ranked().loc[submission_id]
    categories = list(board.benchmark.categories)
    fig = go.Figure(go.Bar(x=[row[c] * 100 for c in categories], y=categories, orientation="h",
                           marker_color="#4C78A8", text=[f"{row[c] * 100:.1f}" for c in categories],
                           textposition="outside", cliponaxis=False))
    fig.update_layout(xaxis={"title": "Win score (%)", "range": [0, 100]}, yaxis={"autorange": "reversed"},
                      margin={"l": 10, "r": 20, "t": 30, "b": 40}, height=360, template="plotly_white",
                      title=html.escape(board.models[submission_id].title))
    return fig


WON, LOST, NOT_SIGNIFICANT = "won", "lost", "n.s."


def duel_table(board: Leaderboard, submission_id: str, category: str | None = None,
               tournament: Tournament | None = None, models: dict | None = None) -> pd.DataFrame:
    """Competitors x tasks: one long-form row per duel of `submission_id` with both
    directions' verdicts, p-values and deltas (the CSV export), from which the display
    grid is pivoted."""
    tour = tournament or board.tournament
    models = models or board.models
    tasks = [t for t in board.benchmark.tasks if category in (None, "", "Overall") or t.category == category]
    a = tour.index(submission_id)
    task_index = {task_id: t for t, task_id in enumerate(tour.task_ids)}
    rows = []
    for opponent in tour.opponents(submission_id):
        b = tour.index(opponent)
        for task in tasks:
            t = task_index[task.id]
            won, lost = tour.significant[t, a, b], tour.significant[t, b, a]
            rows.append({"Competitor": models[opponent].title, "competitor_id": opponent, "Task": task.abbreviation,
                         "task_id": task.id, "Result": WON if won else LOST if lost else NOT_SIGNIFICANT,
                         "p_value": tour.p_value[t, a, b], "delta": tour.delta[t, a, b],
                         "p_value_reverse": tour.p_value[t, b, a]})
    return pd.DataFrame(rows)


def duel_grid(duels: pd.DataFrame) -> pd.io.formats.style.Styler | pd.DataFrame:
    """The duel table as people read it: a row per competitor, a cell per task with the
    verdict, p-value and delta; green won, red lost, grey not significant."""
    if duels.empty:
        return pd.DataFrame({"Competitor": ["no duels yet"]})
    cell = duels.apply(lambda r: f"{r['Result']} · p={_p(r['p_value'] if r['Result'] != LOST else r['p_value_reverse'])}"
                                 f" · Δ={r['delta']:+.3g}", axis=1)
    grid = duels.assign(cell=cell).pivot(index="Competitor", columns="Task", values="cell")
    grid = grid[list(dict.fromkeys(duels["Task"]))].reset_index()
    colours = {WON: "background-color: #c8e6c9", LOST: "background-color: #ffcdd2",
               NOT_SIGNIFICANT: "background-color: #eeeeee"}
    return grid.style.map(lambda v: next((c for k, c in colours.items() if str(v).startswith(k)), ""),
                          subset=grid.columns[1:])


def _p(p) -> str:
    if p is None or np.isnan(p):
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.2g}"


def column_types(table: pd.DataFrame) -> list[str]:
    """gr.Dataframe datatypes: markdown for the model links, numbers for numbers."""
    return ["markdown" if c == "Model" else "number" if pd.api.types.is_numeric_dtype(table[c]) else "str"
            for c in table.columns]


def header_titles(board: Leaderboard) -> dict[str, str]:
    """Hover text for task columns: abbreviation -> full task name and metric."""
    return {t.abbreviation: f"{t.name} ({t.metric_name})" for t in board.benchmark.tasks}


def category_legend(board: Leaderboard, category: str | None) -> str:
    tasks = board.benchmark.tasks_in(category) if category not in (None, "", "Overall") else []
    if not tasks:
        return ""
    rows = [f"| {escape_markdown(t.abbreviation)} | {escape_markdown(t.name)} | {markdown_link('dataset', t.dataset_url)} "
            f"| {t.metric_name} |" for t in tasks]
    return "\n".join([f"**{escape_markdown(category)}** tasks", "", "| Abbreviation | Task | Data | Metric |",
                      "| --- | --- | --- | --- |", *rows])


def model_card(board: Leaderboard, submission_id: str) -> str:
    m = board.models[submission_id].metadata
    row = board.ranked().loc[submission_id]
    lines = [f"### {markdown_link(board.models[submission_id].title, m.get('link_to_model'))}",
             f"Rank **{int(row['rank'])}** of {len(board.models)} · overall win score **{percent(row['overall'])}**",
             "", "| Field | Value |", "| --- | --- |"]
    for key, label in {**META_COLUMNS, "submission_id": "Submission id"}.items():
        lines.append(f"| {label} | {escape_markdown(m.get(key, ''))} |")
    lines.append(f"| Submitted | {_submitted(m.get('submission_timestamp'))} |")
    return "\n".join(lines)


def problems_markdown(problems: list[str]) -> str:
    return "**The submission was not accepted:**\n\n" + "\n".join(f"- {escape_markdown(p)}" for p in problems)


def preview_table(board: Leaderboard, preview: Preview) -> pd.DataFrame:
    """The would-be ranking: the new model marked, rank changes as arrows."""
    table = leaderboard_table(board, None, preview=preview)
    change = table.pop("Rank change")
    table.insert(1, "Change", ["new" if sid == preview.submission_id else "" if c == 0 else
                               f"▲{int(c)}" if c > 0 else f"▼{int(-c)}" for sid, c in zip(table.index, change)])
    table = table.drop(columns=["Previous rank"])
    table.loc[preview.submission_id, "Model"] = "★ " + table.loc[preview.submission_id, "Model"]
    return table


def preview_summary(board: Leaderboard, preview: Preview) -> str:
    row = preview.table.loc[preview.submission_id]
    lines = [f"### {escape_markdown(preview.model.title)} would rank **{preview.rank}** of {len(preview.table)}",
             f"Overall win score **{percent(row['overall'])}** from duels with {len(preview.opponents)} models.",
             "", "| Category | Win score |", "| --- | --- |"]
    lines += [f"| {c} | {percent(row[c])} |" for c in board.benchmark.categories]
    if preview.warnings:
        lines += ["", "**Warnings:**", *[f"- {escape_markdown(w)}" for w in preview.warnings]]
    return "\n".join(lines)
