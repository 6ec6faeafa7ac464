"""Category and overall scores, ranks, and their intervals.

A task score per model (the field score under the default rule, `engine/panel.py`; under
"top-of-its-day" the Win Score, duels won / duels fought on that task); a category score
is the mean of its tasks' scores; the overall score is the mean of the category scores,
so every category weighs the same whatever its number of tasks.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark
from stats import evidence, field, rank_sets
from leaderboard.engine.board_model import BoardModel
from leaderboard.engine.tournament import ModelResults, SummaryRows, Tournament, task_seed

OVERALL = "overall"


def scores_table(tournament: Tournament, benchmark: Benchmark) -> pd.DataFrame:
    """One row per model (index: submission id): a column per task id with its WS, a
    column per category and `overall`; all in [0, 1], NaN for a model without duels."""
    return scores_from_win_scores(tournament.win_scores(), tournament.model_ids, benchmark)


def scores_from_win_scores(win_scores: np.ndarray, model_ids: list[str], benchmark: Benchmark) -> pd.DataFrame:
    """`scores_table` from win scores of shape (n_models, n_tasks), tasks in benchmark order."""
    column = {t: k for k, t in enumerate(benchmark.task_ids)}
    categories = list(benchmark.categories)
    # in numpy, one frame made at the end: a column added per category cost 0.3 s per call
    by_category = np.column_stack([win_scores[:, [column[t.id] for t in benchmark.tasks_in(c)]].mean(axis=1)
                                   for c in categories]).reshape(len(model_ids), len(categories))
    overall = by_category.mean(axis=1)  # NaN wherever a category is, as a NaN task makes its category
    return pd.DataFrame(np.column_stack([win_scores, by_category, overall]),
                        index=pd.Index(model_ids, name="submission_id"),
                        columns=[*benchmark.task_ids, *categories, OVERALL])


def competition_rank(scores: pd.Series, family: pd.Series | None = None) -> pd.Series:
    """1 + the number of strictly better scores ("1224" ranking: ties share a rank); with
    `family` (each model's family of near-copies, by id) a family above counts once
    (`stats.field.family_ranks`).

    Scores are rounded first so that equal fractions summed in another order tie."""
    values = scores.round(9).fillna(-np.inf).to_numpy(dtype=float)
    if family is None:
        family_codes = np.arange(len(values))
    else:
        family_codes = np.unique(family.reindex(scores.index).to_numpy(), return_inverse=True)[1].reshape(-1)
    return pd.Series(field.family_ranks(values, family_codes).astype(int), index=scores.index)


def ranked(table: pd.DataFrame, submitted: pd.Series) -> pd.DataFrame:
    """`table` sorted best first with a `rank` column (a family of near-copies above a
    model counts once: `table.attrs["family"]`, when given); ties are ordered by
    submission time."""
    order = pd.DataFrame({"score": table[OVERALL].round(9), "submitted": submitted.reindex(table.index)})
    order = order.sort_values(["score", "submitted"], ascending=[False, True], na_position="last", kind="stable")
    out = table.loc[order.index].copy()
    out.insert(0, "rank", competition_rank(out[OVERALL], table.attrs.get("family")))
    return out


# The simultaneous rank sets (`stats.rank_sets`) beside the intervals: the set's best and
# worst rank, the model's tier (1 = the top level of the established order), the models
# established below it, and the scope's largest set of mutually unseparated models and the
# bits of its top 10's order left undetermined (`rank_sets.order_bits`; the same on every row).
# Above this many models the pairwise sets are not computed (N x N matrices: 8 s of CPU at
# 1,000 models, bench/bench_rank_sets.py, and quadratic beyond): every set is then the
# whole range, which holds every rank at once but establishes nothing.
RANK_SETS_MAX_MODELS = 1000
RANK_SET_FIELDS = ("set_low", "set_high", "tier", "established_below", "largest_unseparated", "top_k_bits")
# The intervals when the tasks, too, are a draw (`field.task_set_certainty`: tasks
# resampled within categories as well as items), beside those conditioning on these tasks.
TASK_SET_FIELDS = ("task_set_score_low", "task_set_score_high", "task_set_rank_low", "task_set_rank_high")
CERTAINTY_FIELDS = ("score_low", "score_high", "rank_low", "rank_high", "group", *RANK_SET_FIELDS, *TASK_SET_FIELDS)
# The last (ranked table, benchmark, panel, certainty): a publication's snapshot and the
# board's views after it ask for the same table's certainty.
_last_certainty: tuple[pd.DataFrame | None, Benchmark | None, frozenset[str], pd.DataFrame | None] = (
    None, None, frozenset(), None)


def certainty_table(ranked_table: pd.DataFrame, benchmark: Benchmark, results: Mapping[str, ModelResults],
                    flagged: Collection[str] = ()) -> pd.DataFrame:
    """How certain each score and rank of `ranked_table` (a `ranked` table of field
    scores, `engine/panel.py`) is: one row per model in its order, columns (scope, field)
    for scope `overall` and each category and field in CERTAINTY_FIELDS: the 95% interval
    of the score (fractions in [0, 1]) and of the rank, the tie group ("A" = the top
    group; "" without results), and the RANK_SET_FIELDS of the simultaneous 95% rank sets
    (`stats.rank_sets.field_rank_sets`; a model without results: the set N..N, tier and
    count 0), and the TASK_SET_FIELDS: the score's and rank's intervals over draws of tasks
    within categories as well as of items.

    results: every model's ModelResults (its summaries are resampled); flagged: models
    left out of the field (they weigh nothing as opponents). Each task's items are
    resampled with the same resamples for every model (`Metric.replicates`) and every
    field score and rank recomputed on each resample (`stats.field.field_certainty`).
    Computed on the whole board, so a filtered view keeps every model's group. Ranked
    tables are never modified, so the last one's certainty is reused."""
    global _last_certainty
    flagged = frozenset(flagged)
    table, benchmark_of, flagged_of, certainty = _last_certainty
    if table is ranked_table and benchmark_of is benchmark and flagged_of == flagged:
        return certainty
    ids, scopes = list(ranked_table.index), [OVERALL, *benchmark.categories]
    if not ids:  # an empty board: nothing to resample
        return pd.DataFrame(index=ranked_table.index, columns=pd.MultiIndex.from_product([scopes, CERTAINTY_FIELDS]))
    categories = {c: i for i, c in enumerate(benchmark.categories)}
    family, representative = ranked_table.attrs.get("family"), ranked_table.attrs.get("representative")
    family = (np.arange(len(ids)) if family is None
              else np.unique(family.reindex(ids).to_numpy(), return_inverse=True)[1].reshape(-1))
    weights = field.family_weights(family, None if representative is None else representative.reindex(ids).to_numpy(
        dtype=bool)) * np.array([m not in flagged for m in ids])
    task_category = np.array([categories[t.category] for t in benchmark.tasks], dtype=int)
    displayed = ranked_table[scopes].to_numpy(dtype=float)
    result, draws = field.field_certainty_and_draws(task_replicates(benchmark, results, ids), task_category, weights,
                                                    family, displayed)
    over_tasks = field.task_set_certainty(task_replicates(benchmark, results, ids), task_category, weights, family,
                                          displayed)
    fields = {"score_low": result.score_low, "score_high": result.score_high,
              "rank_low": result.rank_low, "rank_high": result.rank_high,
              "group": np.vectorize(group_label, otypes=[object])(result.group),
              "task_set_score_low": over_tasks.score_low, "task_set_score_high": over_tasks.score_high,
              "task_set_rank_low": over_tasks.rank_low, "task_set_rank_high": over_tasks.rank_high,
              **rank_set_fields(benchmark, results, ids, task_category, weights, family, displayed, draws)}
    columns = {(scope, field_name): values[:, s] for field_name, values in fields.items()
               for s, scope in enumerate(scopes)}
    certainty = pd.DataFrame(columns, index=ranked_table.index)[pd.MultiIndex.from_product([scopes, CERTAINTY_FIELDS])]
    _last_certainty = (ranked_table, benchmark, flagged, certainty)
    return certainty


def rank_set_fields(benchmark: Benchmark, results: Mapping[str, ModelResults], ids: list[str],
                    task_category: np.ndarray, weights: np.ndarray, family: np.ndarray, displayed: np.ndarray,
                    draws: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """RANK_SET_FIELDS, (N, scopes) each, of the models `ids` (arguments as
    `field.field_certainty` takes them; draws: the field scores' draws it computed). Holm's tails take the fewest items a task has
    when the tasks file states every task's `samples`, else normal tails."""
    n, n_scopes = displayed.shape
    ok = np.isfinite(displayed).all(axis=1)
    if ok.sum() > RANK_SETS_MAX_MODELS:  # nothing established: every set the whole range, one tier
        return {"set_low": np.where(ok[:, None], 1, n).repeat(n_scopes, axis=1),
                "set_high": np.full((n, n_scopes), n), "tier": np.where(ok[:, None], 1, 0).repeat(n_scopes, axis=1),
                "established_below": np.zeros((n, n_scopes), dtype=int),
                "largest_unseparated": np.full((n, n_scopes), int(ok.sum())),
                "top_k_bits": np.full((n, n_scopes), float(np.log2(math.factorial(min(rank_sets.TOP_K, ok.sum())))))}
    signs = np.array([task.metric.sign for task in benchmark.tasks])
    task_scores = np.array([[results[m].aggregates[t] for t in benchmark.task_ids] for m in ids], dtype=float) * signs
    samples = [task.samples for task in benchmark.tasks if task.samples is not None]
    items = min(samples) if len(samples) == len(benchmark.tasks) else None
    sets = rank_sets.field_rank_sets(lambda: task_replicates(benchmark, results, ids), task_scores, task_category,
                                     weights, family, displayed, items, shares=draws)
    out = {"set_low": np.full((n, n_scopes), n), "set_high": np.full((n, n_scopes), n),
           "tier": np.zeros((n, n_scopes), dtype=int), "established_below": np.zeros((n, n_scopes), dtype=int),
           "largest_unseparated": np.zeros((n, n_scopes), dtype=int), "top_k_bits": np.zeros((n, n_scopes))}
    for s, scope_sets in enumerate(sets):
        out["set_low"][ok, s], out["set_high"][ok, s] = scope_sets.low, scope_sets.high
        out["tier"][ok, s] = scope_sets.order.level
        out["established_below"][ok, s] = scope_sets.above.sum(axis=1)
        out["largest_unseparated"][:, s] = scope_sets.order.largest_unseparated
        out["top_k_bits"][:, s] = scope_sets.order.top_k_bits
    return out


def certainty_of(ranked_table: pd.DataFrame, benchmark: Benchmark, models: Mapping[str, BoardModel],
                 flagged: Collection[str] = ()) -> pd.DataFrame:
    """`certainty_table` of a board: models (submission id -> a model with `results`)."""
    return certainty_table(ranked_table, benchmark, {m: models[m].results for m in ranked_table.index}, flagged)


# Summaries held at once to compute missing replicates (float32: ~660 full-size models,
# BenCzechMark's real task sizes). Small summaries make one batch of thousands of models:
# there is a product per task and batch, each with a fixed cost (BLAS waking its threads)
# that outweighs the sums when the summaries are small (1,000 models of 40 samples per
# task: 4.2 s in batches of 120 models, 2.1 s in one, loaded machine).
REPLICATES_BYTES_AT_ONCE = 160_000_000
# A batch of fewer models is padded to this width: BLAS computes a product with 1-3
# columns by another kernel, whose float32 sums differ in the last digits, and a model's
# replicates must not depend on which models they were computed with.
REPLICATES_MIN_WIDTH = 16


def task_replicates(benchmark: Benchmark, results: Mapping[str, ModelResults], model_ids: list[str],
                    n_resamples: int = evidence.CERTAINTY_RESAMPLES,
                    before_batch: Callable[[], object] | None = None) -> Iterator[np.ndarray]:
    """Per task, in benchmark order, the models' scores on its first `n_resamples` bootstrap
    resamples of the items, the same for every model: (R, N) arrays, larger is better.

    Each model's replicates are computed once and kept on its ModelResults (`replicates`),
    so a board version after a publication computes only the new model's. The models
    lacking them are read in batches of REPLICATES_BYTES_AT_ONCE of summaries (`SummaryRows`:
    every task of a model in one read, several models at once), each batch one product per
    task. `before_batch`: called before each batch is computed (the app's start waits there
    while visitors are served)."""
    missing = [m for m in dict.fromkeys(model_ids)
               if any((task.id, n_resamples) not in results[m].replicates for task in benchmark.tasks)]
    if missing:
        lengths = [np.size(results[missing[0]].summaries[task]) for task in benchmark.task_ids]
        matrix = SummaryRows(benchmark.task_ids, lengths, len(missing), np.float32, REPLICATES_BYTES_AT_ONCE)
        for start, rows in matrix.groups(results, missing):
            if before_batch is not None:
                before_batch()
            _compute_replicates(benchmark, results, missing[start:start + len(rows)], rows, matrix.columns,
                                n_resamples)
    for task in benchmark.tasks:
        yield np.stack([results[m].replicates[(task.id, n_resamples)] for m in model_ids], axis=1)


def _compute_replicates(benchmark: Benchmark, results: Mapping[str, ModelResults], group: list[str],
                        rows: np.ndarray, columns: list[slice], n_resamples: int) -> None:
    """The replicates of the models `group`, whose summaries are `rows` (float32, what the
    replicates are summed in, `stats.metrics`; task i in `columns[i]`), kept on their
    ModelResults."""
    width = max(len(group), REPLICATES_MIN_WIDTH)
    padded = rows if width == len(group) else rows[np.arange(width) % len(group)]
    for task, task_columns in zip(benchmark.tasks, columns):
        aggregates = np.array([results[group[k % len(group)]].aggregates[task.id] for k in range(width)], dtype=float)
        replicates = task.metric.replicates
        if replicates is None:  # `stats.metrics.register` refuses such a metric
            raise ValueError(f"metric {task.metric.name!r} has no replicates; the intervals need them")
        values = replicates(padded[:, task_columns], aggregates, task_seed(task.id), n_resamples)
        for k, m in enumerate(group):
            # a copy: a bootstrap metric's replicates are a view of `rows`, which the next batch overwrites
            results[m].replicates[(task.id, n_resamples)] = values[:, k].copy()


def group_label(group: int) -> str:
    """A tie group as letters: 0 -> A, 25 -> Z, 26 -> AA; a negative group (no duels) -> ""."""
    label, group = "", int(group) + 1
    while group > 0:
        group, letter = divmod(group - 1, 26)
        label = chr(ord("A") + letter) + label
    return label
