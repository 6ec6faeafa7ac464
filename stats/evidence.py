"""How much to trust a ranking: multiple-comparison control of duel p-values, the rule of
the central intervals, tie groups and the sign test. numpy in, small result objects out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stats.duel_tests import _scipy_stats

CERTAINTY_LEVEL = 0.95
CERTAINTY_RESAMPLES = 200  # resamples of the test items behind the intervals (`stats.field.field_certainty`)


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

    score: (N, S) float, the score shown (see `stats.field.field_certainty`);
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


def nearest_tails_interval(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The central interval of each column of draws (R, n) whose two tails each hold the
    share of the draws nearest to (1 - level) / 2: (low, high), (n,) each, values of the draws.

    From the lowest value up, a value v is left out of the interval while leaving out its
    draws brings the share below the interval nearer to (1 - level) / 2 than keeping
    them, i.e. while (draws below v + half the draws equal to v) / R < (1 - level) / 2 (the
    mid-distribution function, as in Lancaster's mid-p); at equal distance v is kept. The
    high end likewise from the highest value down. On draws without repeated values this
    leaves out (1 - level) / 2 of the draws at each end (5 of 200). On draws of few values
    (a rank is a whole number, and a far-apart model's draws take one to three ranks) the
    percentile interval holding at least `level` of the draws keeps every value holding
    more than (1 - level) / 2 of them at an end: 96% of the draws on rank 3 and 4% on rank
    4 give 3-4, which holds 100% of the draws, and a calibrated posterior's truth is then
    covered far more often than stated. Here 4 is left out (3 alone holds 96%, nearer to
    `level`). Each end leaves out less than 2 x (1 - level) / 2 of the draws, so a
    one-point interval holds more than 1 - 2 x (1 - level) of them (90% at 95%)."""
    draws = np.sort(draws, axis=0)
    n_draws = len(draws)
    start = np.ones(draws.shape, dtype=bool)  # where a run of equal values starts
    start[1:] = draws[1:] != draws[:-1]
    end = np.ones(draws.shape, dtype=bool)  # where one ends
    end[:-1] = start[1:]
    index = np.arange(n_draws)[:, None]
    below = np.maximum.accumulate(np.where(start, index, 0), axis=0)  # draws below each value
    through = np.minimum.accumulate(np.where(end, index + 1, n_draws)[::-1], axis=0)[::-1]  # at or below it
    mid = (below + through) / 2  # draws below + half the equal ones
    tail = round((1 - level) / 2 * n_draws, 9)  # 5 of 200 draws, not 5.000000000000004
    low = np.take_along_axis(draws, np.argmax(mid >= tail, axis=0)[None], axis=0)[0]
    high = np.take_along_axis(draws, (n_draws - 1 - np.argmax((n_draws - mid >= tail)[::-1], axis=0))[None],
                              axis=0)[0]
    return low, high


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
