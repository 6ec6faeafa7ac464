"""How much to trust a ranking: multiple-comparison control of duel p-values, intervals
for scores and ranks, and tie groups. numpy in, small result objects out, every draw seeded.
"""
from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from stats.duel_tests import _scipy_stats

CERTAINTY_LEVEL = 0.95
CERTAINTY_RESAMPLES = 1000
CERTAINTY_SEED = 20251
THREADS = min(2, os.cpu_count() or 1)  # scopes of rank_certainty ranked at once


def bh_adjusted(p_value: np.ndarray, family: np.ndarray, tested: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values, each family on its own.

    p_value, tested: (P, T) float and bool; family: (P,) int, the family of each row (all
    tested cells of the rows of one family form one set of hypotheses). Returns (P, T):
    the adjusted p-value of every tested cell, NaN elsewhere. Cells with a NaN p-value
    are not part of any family (and stay NaN).
    """
    p_value, tested = np.asarray(p_value, dtype=float), np.asarray(tested, dtype=bool) & ~np.isnan(p_value)
    family = np.broadcast_to(np.asarray(family)[:, None], p_value.shape)[tested]
    adjusted = np.full(p_value.shape, np.nan)
    values = p_value[tested]
    out = np.empty_like(values)
    order = np.argsort(family, kind="stable")
    bounds = np.flatnonzero(np.diff(family[order])) + 1
    fdr = _scipy_stats().false_discovery_control
    for members in np.split(order, bounds):  # one call per family (a model), not per p-value
        if len(members):
            out[members] = fdr(values[members], method="bh")
    adjusted[tested] = out
    return adjusted


@dataclass(frozen=True)
class RankCertainty:
    """Intervals and tie groups of S scopes (e.g. overall and each category) for N models.

    score, score_low, score_high: (N, S) float; rank, rank_low, rank_high: (N, S) int
    (1 = best; ties share the best rank); group: (N, S) int, 0 = the top tie group.
    Models with a NaN score get NaN scores, rank N and group -1 in that scope.
    """

    score: np.ndarray
    score_low: np.ndarray
    score_high: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    group: np.ndarray


def rank_certainty(task_scores: np.ndarray, task_category: np.ndarray, n_resamples: int = CERTAINTY_RESAMPLES,
                   seed: int = CERTAINTY_SEED, level: float = CERTAINTY_LEVEL) -> RankCertainty:
    """Intervals for category and overall scores and for the ranks they give, and tie groups.

    task_scores: (N, T), each model's score per task; task_category: (T,) int in [0, C).
    A category's score is the mean of its tasks, the overall score the mean of the C
    categories. Scopes of the result: 0 = overall, 1 + c = category c (S = 1 + C).

    Method: a paired residual bootstrap of tasks. The spread of a model's task scores
    around its category mean (residuals scaled by sqrt(k / (k - 1)) for a category of k
    tasks, so their variance is unbiased) is pooled over the categories with two or more
    tasks; each resample gives category c its observed score plus the mean of k_c
    residuals drawn from that pool, the same draws for every model (so models stay paired
    and similar profiles move together). Score intervals are the resamples' percentile
    intervals, rank intervals those of the ranks within each resample, all at `level`.
    It assumes tasks are exchangeable within a category and spread alike in every
    category; it treats each task score as exact (no noise of the duels themselves).

    Tie groups, per scope, in order of score (the best first; equal scores keep the
    input order): the best model leads group 0; each next model joins the current group
    when its interval reaches the leader's lower end, else it leads a new group.
    """
    scores = np.asarray(task_scores, dtype=float)
    category = np.asarray(task_category, dtype=int)
    n_models, n_tasks = scores.shape
    n_categories = int(category.max()) + 1 if n_tasks else 0
    sizes = np.bincount(category, minlength=n_categories)
    if (sizes == 0).any():
        raise ValueError("every category needs at least one task")
    ok = np.isfinite(scores).all(axis=1)
    one_hot = np.eye(n_categories)[category]  # (T, C)
    category_scores = scores[ok] @ one_hot / sizes  # (n, C)
    residuals = (scores[ok] - category_scores[:, category]) * np.sqrt(sizes / np.maximum(sizes - 1, 1))[category]
    pool = np.flatnonzero(sizes[category] > 1)  # tasks whose category gives a spread
    rng = np.random.default_rng(seed)
    draws = np.zeros((n_resamples, max(len(pool), 1), n_categories))  # (R, pool, C): draw counts / k_c
    if len(pool):
        picked = rng.integers(0, len(pool), size=(n_resamples, n_tasks))  # slot j of category[j]
        flat = (np.arange(n_resamples)[:, None] * len(pool) + picked) * n_categories + category[None, :]
        draws = np.bincount(flat.ravel(), minlength=draws.size).reshape(draws.shape) / sizes
    pooled = residuals[:, pool] if len(pool) else np.zeros((ok.sum(), 1))  # (n, pool)
    observed = np.concatenate([category_scores.mean(axis=1, keepdims=True), category_scores], axis=1)  # (n, S)
    tail = (1 - level) / 2
    low, high = np.empty(observed.shape), np.empty(observed.shape)
    rank_low, rank_high = np.empty(observed.shape, dtype=int), np.empty(observed.shape, dtype=int)

    def scope_resamples():
        """(scope, its resampled scores (R, n)), one scope at a time, overall last."""
        overall = np.zeros((n_resamples, len(observed)))
        for c in range(n_categories):
            resampled = category_scores[None, :, c] + draws[:, :, c] @ pooled.T
            overall += resampled
            yield 1 + c, resampled
        yield 0, overall / n_categories  # as the mean over categories

    def intervals(resampled: np.ndarray) -> tuple:
        return (*np.quantile(resampled, [tail, 1 - tail], axis=0),
                *np.quantile(_min_ranks(resampled), [tail, 1 - tail], axis=0, method="inverted_cdf"))

    def keep(scope: int, future) -> None:
        low[:, scope], high[:, scope], rank_low[:, scope], rank_high[:, scope] = future.result()

    # Scopes are ranked in parallel (numpy's sorts release the GIL), at most THREADS at a
    # time, so memory stays a few (R, n) arrays instead of (R, n, S).
    with ThreadPoolExecutor(THREADS) as executor:
        running = deque()
        for scope, resampled in scope_resamples():
            running.append((scope, executor.submit(intervals, resampled)))
            if len(running) == THREADS:
                keep(*running.popleft())
        for scope, future in running:
            keep(scope, future)

    n_scopes = 1 + n_categories
    out = {name: np.full((n_models, n_scopes), np.nan) for name in ("score", "score_low", "score_high")}
    out["score"][ok], out["score_low"][ok], out["score_high"][ok] = observed, low, high
    rank = np.full((n_models, n_scopes), n_models)
    rank[ok] = _scipy_stats().rankdata(-np.round(observed, 9), axis=0, method="min")
    interval = {name: np.full((n_models, n_scopes), n_models) for name in ("rank_low", "rank_high")}
    interval["rank_low"][ok], interval["rank_high"][ok] = rank_low, rank_high
    group = np.full((n_models, n_scopes), -1)
    group[ok] = tie_groups(observed, low, high)
    return RankCertainty(out["score"], out["score_low"], out["score_high"], rank, interval["rank_low"],
                         interval["rank_high"], group)


def _min_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks within each row, the highest value first: values (R, n) -> (R, n) int, 1 =
    best, equal values share the best of their ranks (scipy's rankdata method "min",
    without its overhead on many rows)."""
    order = np.argsort(-values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    first = np.ones(ordered.shape, dtype=bool)  # where a run of equal values starts
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    del ordered  # int32 and early frees: two threads rank 10,000 models x 1,000 resamples each
    position = np.where(first, np.arange(values.shape[1], dtype=np.int32), np.int32(0))
    np.maximum.accumulate(position, axis=1, out=position)
    ranks = np.empty(values.shape, dtype=np.int32)
    np.put_along_axis(ranks, order, position + 1, axis=1)
    return ranks


def tie_groups(score: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Greedy tie groups per column: score, low, high (N, S) -> group (N, S) int, 0 = best.

    In order of score (best first, equal scores in input order) a model joins the current
    group when its upper end reaches the group leader's lower end, else it leads the next
    group. Loops over models, once per scope (a handful of scopes, ~100 models)."""
    group = np.zeros(score.shape, dtype=int)
    for s in range(score.shape[1]):
        order = np.argsort(-score[:, s], kind="stable")
        leader, current = order[0] if len(order) else 0, 0
        for m in order:
            if high[m, s] < low[leader, s]:
                leader, current = m, current + 1
            group[m, s] = current
    return group


@dataclass(frozen=True)
class SignTest:
    """A sign test over tasks, for one suite or many: fields have the leading shape of the
    deltas (scalars for one suite).

    ahead, behind: tasks A (B) is better on, ties left out; p_a_ahead, p_b_ahead: the
    one-sided p-values of "A (B) is better on more tasks than a fair coin would give";
    p_two_sided: the two-sided p-value, 2 x the smaller one-sided p capped at 1 (exactly
    scipy's two-sided binomtest at 1/2, a symmetric distribution)."""

    ahead: np.ndarray
    behind: np.ndarray
    p_a_ahead: np.ndarray
    p_b_ahead: np.ndarray
    p_two_sided: np.ndarray

    def leader(self, alpha: float) -> np.ndarray:
        """"A" or "B" where the two-sided p is at most `alpha` (the side with more tasks),
        else "": one test per suite, so two equal models get a leader at most alpha of
        the time (two one-sided tests at alpha would name one up to twice as often)."""
        decided = self.p_two_sided <= alpha
        return np.select([decided & (self.ahead > self.behind), decided & (self.behind > self.ahead)], ["A", "B"], "")[()]


def sign_test(deltas: np.ndarray) -> SignTest:
    """Sign test over tasks: deltas (..., T), per task A's metric minus B's oriented so that
    positive means A is better (ties, 0, are left out). Returns a SignTest of shape (...)."""
    deltas = np.asarray(deltas, dtype=float)
    ahead, behind = (deltas > 0).sum(axis=-1), (deltas < 0).sum(axis=-1)
    binom = _scipy_stats().binom
    p_a, p_b = binom.sf(ahead - 1, ahead + behind, 0.5), binom.sf(behind - 1, ahead + behind, 0.5)
    p_a, p_b = np.where(ahead + behind == 0, 1.0, p_a), np.where(ahead + behind == 0, 1.0, p_b)
    two_sided = np.minimum(1.0, 2 * np.minimum(p_a, p_b))
    return SignTest(ahead[()], behind[()], p_a[()], p_b[()], two_sided[()])
