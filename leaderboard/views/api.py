"""The public read API: what the app's named endpoints answer, as JSON values.

Each public method is one endpoint (app.py exposes them with `gr.api`, named by the
method). Parameters and returns are typed, as `gr.api` derives the endpoint's schema from
the hints, so this module keeps real annotations (no `from __future__ import annotations`).
Bad arguments raise ValueError with a message for the caller. Nothing here writes.

Head-to-head and heatmap data will be added here as further methods.
"""
import json
import math

from leaderboard.board import Leaderboard
from leaderboard.views import details
from leaderboard.views.table import METRIC_VALUE, OVERALL, VALUE_NAMES, WIN_SCORE, is_overall, leaderboard_table

ENDPOINTS = ("leaderboard_table", "model_details")  # the public methods, in the order the About tab lists them


def _records(table) -> list[dict]:
    """A table as JSON records, its index (submission ids) as `submission_id`; NaN as null."""
    return json.loads(table.reset_index().to_json(orient="records", force_ascii=False))


def _percent(fraction: float) -> float | None:
    return None if math.isnan(fraction) else round(100 * float(fraction), 4)


class ReadApi:
    def __init__(self, board: Leaderboard):
        self.board = board

    def _category(self, category: str) -> str:
        if category != OVERALL and category not in self.board.benchmark.categories:
            raise ValueError(f"unknown category {category!r}; choose {OVERALL} or one of "
                             f"{', '.join(self.board.benchmark.categories)}")
        return category

    def leaderboard_table(self, category: str = OVERALL, values: str = WIN_SCORE,
                          exclude_flagged: bool = False) -> list[dict]:
        """The ranked table of a category, as on the Leaderboard tab: one record per model, best
        first, with submission_id, rank, model, scores in percent (values="metric": each task's
        own metric in a category), metadata and the flag (Flagged, Flag reason, Flag link).
        exclude_flagged=True ranks without the flagged models and their duels."""
        self.board.refresh()
        if values not in VALUE_NAMES:
            raise ValueError(f"unknown values {values!r}; choose {WIN_SCORE!r} or {METRIC_VALUE!r}")
        category = self._category(category)
        return _records(leaderboard_table(self.board, None if is_overall(category) else category,
                                          values, exclude_flagged=exclude_flagged))

    def model_details(self, submission_id: str, category: str = OVERALL) -> dict:
        """One published model: title, metadata, rank, overall, category and task win scores in
        percent, each task's metric value, its flag (or null), and its duels in the category
        (every task for Overall): per competitor and task the verdict, both p-values and the
        delta in the task's unit."""
        self.board.refresh()
        board = self.board
        if submission_id not in board.models:
            raise ValueError(f"no published model {submission_id!r}; the ids are in leaderboard_table's "
                             f"submission_id")
        category = self._category(category)
        model, row, flag = board.models[submission_id], board.ranked().loc[submission_id], board.flags.get(submission_id)
        return {
            "submission_id": submission_id, "title": model.title, "metadata": model.metadata,
            "rank": int(row["rank"]), "models": len(board.models), "overall": _percent(row["overall"]),
            "categories": {c: _percent(row[c]) for c in board.benchmark.categories},
            "tasks": {t: _percent(row[t]) for t in board.benchmark.task_ids},
            "metric_values": {t: model.results.aggregates[t] for t in board.benchmark.task_ids},
            "flag": None if flag is None else {"reason": flag.reason, "link": flag.link, "flagged_at": flag.flagged_at},
            "duels": _records(details.duel_table(board, submission_id, None if is_overall(category) else category)
                              .set_index("competitor_id")),
        }
