"""How much to trust a ranking: multiple-comparison control of duel p-values, intervals
for scores and ranks, and tie groups. numpy in, small result objects out, every draw seeded.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from stats.duel_tests import _scipy_stats

CERTAINTY_LEVEL = 0.95
CERTAINTY_RESAMPLES = 200  # resamples of the test items behind the intervals (`panel_certainty`)


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

    score: (N, S) float, the panel score estimated from the samples (see `panel_certainty`);
    score_low, score_high: (N, S) its interval; rank_low, rank_high: (N, S) int, the rank's
    interval (1 = best); group: (N, S) int, 0 = the top tie group. A model without results
    (NaN) gets NaN scores, rank interval N..N and group -1 in every scope.
    """

    score: np.ndarray
    score_low: np.ndarray
    score_high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    group: np.ndarray


def panel_certainty(observed: np.ndarray, replicates: Iterable[np.ndarray], task_category: np.ndarray,
                    panel: np.ndarray, displayed: np.ndarray | None = None,
                    level: float = CERTAINTY_LEVEL) -> RankCertainty:
    """Score and rank intervals against a reference panel, and tie groups.

    observed: (N, T) each model's task aggregate, oriented so that larger is better (NaN
    for a model without results); replicates: T arrays (R, N), task t's aggregates of every
    model on R bootstrap resamples of t's test items, THE SAME resampled items for every
    model (yielded one task at a time, so memory stays (R, N, C)); task_category: (T,) int
    in [0, C); panel: (K,) model indices, the reference opponents; displayed: (N, S) the
    scores the board shows (groups go down their order, equal scores in input order;
    default `score`). Scopes: 0 = overall, 1 + c = category c (S = 1 + C).

    The panel score of a model on a task is the share of the panel (itself left out) whose
    aggregate is lower, an equal one counting half; a category's is the mean of its tasks',
    the overall the mean of the categories'. With infinitely many items like these it is
    the panel truth: the win score every duel would give once every difference is
    significant. `score` is it on the observed items; each resample recomputes it from
    the models' resampled aggregates (plug-in: no test), so a model's duels stay correlated
    as they share the items. Intervals are the resamples' percentile intervals at `level`,
    of the score and of the rank among all N models (equal scores share the best rank).
    Task-set uncertainty is not included: the truth is defined on these tasks.

    Tie groups (`tie_groups`): down the displayed order, a model joins the current group
    when its rank interval meets every member's, else it starts the next group; so two
    models whose rank intervals are disjoint never share a group.
    """
    observed = np.asarray(observed, dtype=float)
    category = np.asarray(task_category, dtype=int)
    n_models, n_tasks = observed.shape
    n_categories = int(category.max()) + 1 if n_tasks else 0
    sizes = np.bincount(category, minlength=n_categories)
    if (sizes == 0).any():
        raise ValueError("every category needs at least one task")
    ok = np.isfinite(observed).all(axis=1)
    in_panel = np.zeros(n_models, dtype=bool)
    in_panel[np.asarray(panel, dtype=int)] = True
    in_panel &= ok
    if not in_panel.any():  # nobody to measure against (a board of one model): no intervals
        ok[:] = False
    point = np.zeros((1, ok.sum(), n_categories))
    resampled = None  # (R, n, C): category sums of panel scores
    n_given = 0
    for t, values in enumerate(replicates):
        values = np.asarray(values, dtype=float)[:, ok]
        if resampled is None:
            resampled = np.zeros((len(values), ok.sum(), n_categories))
        resampled[:, :, category[t]] += panel_shares(values, in_panel[ok])
        point[:, :, category[t]] += panel_shares(observed[ok, t][None, :], in_panel[ok])
        n_given += 1
    if n_given != n_tasks:
        raise ValueError(f"replicates of {n_given} tasks given for {n_tasks} tasks")
    resampled /= sizes
    point /= sizes
    tail = (1 - level) / 2
    n_scopes = 1 + n_categories
    out = {name: np.full((n_models, n_scopes), np.nan) for name in ("score", "score_low", "score_high")}
    rank_low, rank_high = np.full((n_models, n_scopes), n_models), np.full((n_models, n_scopes), n_models)
    for scope in range(n_scopes):
        draws = resampled.mean(axis=2) if scope == 0 else resampled[:, :, scope - 1]
        out["score"][ok, scope] = point[0].mean(axis=1) if scope == 0 else point[0, :, scope - 1]
        out["score_low"][ok, scope], out["score_high"][ok, scope] = np.quantile(draws, [tail, 1 - tail], axis=0)
        rank_low[ok, scope], rank_high[ok, scope] = np.quantile(
            _min_ranks(np.round(draws, 9)), [tail, 1 - tail], axis=0, method="inverted_cdf")
    order_by = out["score"] if displayed is None else np.asarray(displayed, dtype=float)
    group = np.full((n_models, n_scopes), -1)
    group[ok] = tie_groups(order_by[ok], rank_low[ok], rank_high[ok])
    return RankCertainty(out["score"], out["score_low"], out["score_high"], rank_low, rank_high, group)


def panel_shares(values: np.ndarray, in_panel: np.ndarray) -> np.ndarray:
    """Share of the panel each model beats, per row: values (R, N) float, larger is better;
    in_panel (N,) bool. Returns (R, N): (panel members below + half the others equal) /
    (panel size, the model itself left out). One sort per row, no (R, N, K) array."""
    n_rows, n = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    member = in_panel[order].astype(np.int32)
    at_or_before = np.cumsum(member, axis=1)
    positions = np.arange(n)
    new_run = np.ones((n_rows, n), dtype=bool)  # where a run of equal values starts / ends
    new_run[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    run_start = np.maximum.accumulate(np.where(new_run, positions, 0), axis=1)
    run_end = np.empty((n_rows, n), dtype=bool)
    run_end[:, :-1], run_end[:, n - 1:] = new_run[:, 1:], True
    run_last = np.minimum.accumulate(np.where(run_end, positions, n - 1)[:, ::-1], axis=1)[:, ::-1]
    below = np.take_along_axis(at_or_before - member, run_start, axis=1)
    equal = np.take_along_axis(at_or_before, run_last, axis=1) - below - member  # others in the panel
    share = (below + 0.5 * equal) / np.maximum(in_panel.sum() - member, 1)
    out = np.empty((n_rows, n))
    np.put_along_axis(out, order, share, axis=1)
    return out


def _min_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks within each row, the highest value first: values (R, n) -> (R, n) int, 1 =
    best, equal values share the best of their ranks (scipy's rankdata method "min",
    without its overhead on many rows)."""
    order = np.argsort(-values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    first = np.ones(ordered.shape, dtype=bool)  # where a run of equal values starts
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    del ordered
    position = np.where(first, np.arange(values.shape[1], dtype=np.int32), np.int32(0))
    np.maximum.accumulate(position, axis=1, out=position)
    ranks = np.empty(values.shape, dtype=np.int32)
    np.put_along_axis(ranks, order, position + 1, axis=1)
    return ranks


def tie_groups(score: np.ndarray, rank_low: np.ndarray, rank_high: np.ndarray) -> np.ndarray:
    """Tie groups per column: score, rank_low, rank_high (N, S) -> group (N, S) int, 0 = best.

    In order of score (best first, equal scores in input order) a model joins the current
    group when its rank interval meets the interval of every member (its low end at most
    the members' smallest high end, its high end at least their largest low end), else it
    starts the next group. Intervals that pairwise meet share a rank, so every group's
    models could all hold one rank, and no group holds two disjoint intervals. Loops over
    models, once per scope."""
    group = np.zeros(score.shape, dtype=int)
    for s in range(score.shape[1]):
        current, lowest_high, highest_low = -1, -1, -1
        for m in np.argsort(-score[:, s], kind="stable"):
            low, high = rank_low[m, s], rank_high[m, s]
            if current < 0 or low > lowest_high or high < highest_low:
                current, lowest_high, highest_low = current + 1, high, low
            else:
                lowest_high, highest_low = min(lowest_high, high), max(highest_low, low)
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
