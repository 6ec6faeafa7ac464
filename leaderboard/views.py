"""Tables of the leaderboard for people: display columns, percentages, model titles.

Shared by the command line and the web app; plain pandas, no UI code.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd

from leaderboard.board import Leaderboard, Preview
from leaderboard.store import PublishedModel
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
        rows.append({"Model": f"{m.get('team_name', '?')} / {m.get('model_name', '?')}",
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
