"""Win scores, category and overall scores, and ranks.

WS(model, task) = duels won / duels fought on that task; a category score is the mean
of its tasks' WS; the overall score is the mean of the category scores, so every
category weighs the same whatever its number of tasks.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard.tasks import Benchmark
from leaderboard.tournament import Tournament

OVERALL = "overall"
TOP_OPPONENTS = 50


def scores_table(tournament: Tournament, benchmark: Benchmark) -> pd.DataFrame:
    """One row per model (index: submission id): a column per task id with its WS, a
    column per category and `overall`; all in [0, 1], NaN for a model without duels."""
    return scores_from_win_scores(tournament.win_scores(), tournament.model_ids, benchmark)


def scores_from_win_scores(win_scores: np.ndarray, model_ids: list[str], benchmark: Benchmark) -> pd.DataFrame:
    """`scores_table` from win scores of shape (n_models, n_tasks), tasks in benchmark order."""
    table = pd.DataFrame(win_scores, index=pd.Index(model_ids, name="submission_id"), columns=benchmark.task_ids)
    for category in benchmark.categories:
        table[category] = table[[t.id for t in benchmark.tasks_in(category)]].mean(axis=1, skipna=False)
    table[OVERALL] = table[list(benchmark.categories)].mean(axis=1, skipna=False)
    return table


def competition_rank(scores: pd.Series) -> pd.Series:
    """1 + the number of strictly better scores ("1224" ranking: ties share a rank).

    Scores are rounded first so that equal fractions summed in another order tie."""
    return scores.round(9).rank(method="min", ascending=False, na_option="bottom").astype(int)


def ranked(table: pd.DataFrame, submitted: pd.Series) -> pd.DataFrame:
    """`table` sorted best first with a `rank` column; ties are ordered by submission time."""
    order = pd.DataFrame({"score": table[OVERALL].round(9), "submitted": submitted.reindex(table.index)})
    order = order.sort_values(["score", "submitted"], ascending=[False, True], na_position="last", kind="stable")
    out = table.loc[order.index].copy()
    out.insert(0, "rank", competition_rank(out[OVERALL]))
    return out


def opponents(ranked_table: pd.DataFrame, flagged=()) -> list[str]:
    """A new model's opponents: the TOP_OPPONENTS best models of a `ranked` table that are
    not in `flagged`."""
    return [m for m in ranked_table.index if m not in flagged][:TOP_OPPONENTS]
