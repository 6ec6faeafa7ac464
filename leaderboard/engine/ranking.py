"""Win scores, category and overall scores, and ranks.

WS(model, task) = duels won / duels fought on that task; a category score is the mean
of its tasks' WS; the overall score is the mean of the category scores, so every
category weighs the same whatever its number of tasks.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark
from stats import evidence
from leaderboard.engine.tournament import Tournament

OVERALL = "overall"


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


CERTAINTY_FIELDS = ("score_low", "score_high", "rank_low", "rank_high", "group")
# The last (ranked table, benchmark, certainty): a publication's snapshot and the board's
# views after it ask for the same table's certainty, which costs ~1 s at 1,000 models.
_last_certainty: tuple = (None, None, None)


def certainty_table(ranked_table: pd.DataFrame, benchmark: Benchmark) -> pd.DataFrame:
    """How certain each score and rank of `ranked_table` (a `ranked` table) is: one row per
    model in its order, columns (scope, field) for scope `overall` and each category and
    field in CERTAINTY_FIELDS: the 95% interval of the score (fractions in [0, 1]) and of
    the rank, and the tie group ("A" = the top group; "" without duels). Computed on the
    whole board, so a filtered view keeps every model's group (see
    `stats.evidence.rank_certainty` for the method). Ranked tables are never modified,
    so the last one's certainty is reused."""
    global _last_certainty
    table, benchmark_of, certainty = _last_certainty
    if table is ranked_table and benchmark_of is benchmark:
        return certainty
    categories = {c: i for i, c in enumerate(benchmark.categories)}
    result = evidence.rank_certainty(ranked_table[benchmark.task_ids].to_numpy(dtype=float),
                                     np.array([categories[t.category] for t in benchmark.tasks], dtype=int))
    scopes = [OVERALL, *benchmark.categories]
    fields = {"score_low": np.clip(result.score_low, 0, 1), "score_high": np.clip(result.score_high, 0, 1),
              "rank_low": result.rank_low, "rank_high": result.rank_high,
              "group": np.vectorize(group_label, otypes=[object])(result.group)}
    columns = {(scope, field): values[:, s] for field, values in fields.items() for s, scope in enumerate(scopes)}
    certainty = pd.DataFrame(columns, index=ranked_table.index)[pd.MultiIndex.from_product([scopes, CERTAINTY_FIELDS])]
    _last_certainty = (ranked_table, benchmark, certainty)
    return certainty


def group_label(group: int) -> str:
    """A tie group as letters: 0 -> A, 25 -> Z, 26 -> AA; a negative group (no duels) -> ""."""
    label, group = "", int(group) + 1
    while group > 0:
        group, letter = divmod(group - 1, 26)
        label = chr(ord("A") + letter) + label
    return label
