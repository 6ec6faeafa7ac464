"""Simultaneous 95% rank sets and the tiers they resolve (issue 34).

A model's rank set holds its true rank together with every other model's in 95% of boards
(Mogstad, Romano, Shaikh and Wilhelm, "Inference for ranks", Review of Economic Studies
2024): simultaneous confidence intervals for every pairwise difference of the scores
establish the pairs whose interval excludes 0, and a model's set runs from 1 + the models
established above it to N - those established below it. The intervals come from the
bootstrap draws the per-model intervals use (`stats.field.field_draws`: the same resampled
items for every model): the critical value is the 95% quantile over the draws of the
largest studentized centred difference |(a* - mean a*) - (b* - mean b*)| / sd(a* - b*)
over the pairs (max-|t|), and a Romano-Wolf stepdown recomputes it over the pairs not yet
established until none is added, which keeps the family-wise error at 5% with more power.

A pair whose difference is the same on every draw (two far-apart models beat the same
share of the field on every resample) is established when the difference is not 0 and
never otherwise. numpy in, small result objects out.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

# Pairs whose draws are held at once: (R, pairs) float32, 40 MB at 200 draws.
PAIRS_AT_ONCE = 50_000
# The pairs of the largest bounds whose maxima are taken first (`established_pairs`).
FIRST_PAIRS = 20_000
# A standard deviation or a difference below this is 0: the field scores are rounded to 9
# digits, and centring leaves sums' last digits behind.
ZERO = 1e-9
# The top-k resolution's k (the draft's R4): the best 10 models' order.
TOP_K = 10


@dataclass(frozen=True)
class PartialOrder:
    """What a relation "established above" (N, N) bool separates.

    level: (N,) int, 1 + the longest chain of models established above a model (a tier:
    models of one level are mutually unseparated); height: the number of levels;
    largest_unseparated: the most models no two of which are separated (Dilworth, on the
    relation's transitive closure); established_share: established ordered pairs /
    N (N - 1); top_k_bits: the bits of the top_k best models' order the data leaves
    undetermined, of log2(top_k!) when nothing among them is established."""

    level: np.ndarray
    height: int
    largest_unseparated: int
    established_share: float
    top_k: int = 0  # the best top_k models by score (at most TOP_K)
    top_k_bits: float = 0.0  # log2 of the orders of them the relation allows (`order_bits`)


@dataclass(frozen=True)
class RankSets:
    """Simultaneous rank sets of N models in one scope.

    low, high: (N,) int, the set's best and worst rank (1 = best); above: (N, N) bool,
    [i, j] when i is established above j; critical: the stepdown's last critical value
    (in standard deviations of a pair's difference); order: the partial order `above`
    resolves."""

    low: np.ndarray
    high: np.ndarray
    above: np.ndarray
    critical: float
    order: PartialOrder

    @property
    def could_be_first(self) -> int:
        return int((self.low == 1).sum())

    @property
    def could_be_last(self) -> int:
        return int((self.high == len(self.high)).sum())


def _largest_t(centred: np.ndarray, first: np.ndarray, second: np.ndarray, weight: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the largest |centred[:, first] - centred[:, second]| * weight over the
    listed pairs and where it is: centred (R, N) float32, first, second (P,) int, weight
    (P,) float32 (1 / the pair's standard deviation; 0 for a pair left out). Returns
    (largest (R,), the pair's position in the list (R,), -1 for none); PAIRS_AT_ONCE pairs
    at a time."""
    n_draws = len(centred)
    largest, where = np.zeros(n_draws, dtype=np.float32), np.full(n_draws, -1)
    for start in range(0, len(first), PAIRS_AT_ONCE):
        stop = start + PAIRS_AT_ONCE
        t = np.abs(centred[:, first[start:stop]] - centred[:, second[start:stop]])
        t *= weight[start:stop]
        at = t.argmax(axis=1)
        value = t[np.arange(n_draws), at]
        better = value > largest
        largest[better], where[better] = value[better], start + at[better]
    return largest, where


def established_pairs(draws: np.ndarray, point: np.ndarray, level: float, items: int | None = None,
                      bootstrap: bool = True) -> tuple[np.ndarray, float]:
    """Which models are established above which, all pairs at once at `level`.

    draws: (R, N) the scores on R resamples (the same for every model), point: (N,) the
    scores shown; items: the fewest items a score is computed on (Holm's tests take t
    tails with items - 1 degrees of freedom; None: normal tails). Returns (above (N, N)
    bool, the last critical value). Max-|t| over the
    pairs' centred draws, Romano-Wolf stepdown: each step's largest values are those of
    the last step except on the draws whose largest pair was just established, which alone
    are recomputed; and Holm's test. bootstrap=False: Holm's test alone (the critical
    value inf), the pairs' standard deviations still from the draws."""
    draws = np.asarray(draws, dtype=float)
    point = np.asarray(point, dtype=float)
    n_draws, n = draws.shape
    centred = draws - draws.mean(axis=0)
    spread = centred.T @ centred / n_draws  # covariance over the draws (BLAS; einsum's loop took ~1 s at 1,000)
    variance = np.diag(spread)
    sd = np.sqrt(np.maximum(variance[:, None] + variance[None, :] - 2 * spread, 0.0))
    constant = sd <= ZERO
    inverse_sd = np.where(constant, 0.0, 1 / np.where(constant, 1.0, sd))
    difference = point[:, None] - point[None, :]
    apart = np.abs(difference) > ZERO
    t = np.where(constant, np.where(apart, np.inf, 0.0), np.abs(difference) * inverse_sd)
    # A draw's studentized value is at most sqrt(R - 1) (its deviation from the mean over
    # R draws of unit standard deviation), so no critical value exceeds it: the pairs
    # beyond it are established at the first step whatever the others, and leaving them
    # out of every maximum can only lower the critical values while a true tie among them
    # is already the error the first step allows.
    holm = _holm(t, 1 - level, items)
    if not bootstrap:
        return (holm | holm.T) & (difference > 0), np.inf
    established = np.triu(apart & (t > np.sqrt(n_draws - 1)), k=1)
    first, second = np.nonzero(np.triu(~constant & apart & ~established, k=1))  # the pairs still open
    centred32 = centred.astype(np.float32)
    weight = inverse_sd[first, second].astype(np.float32)
    t_open = t[first, second]
    # A pair's |centred difference| is at most the sum of its two models' largest |centred
    # value| over the draws, so its studentized values are at most `bound`. A pair whose
    # bound is at most a step's critical value cannot change that quantile of the draws'
    # maxima (it raises no draw's maximum above it), so the maxima are taken over the
    # pairs of the largest bounds only, and others join whenever a step's critical value
    # falls below their bound: the same critical values as over every open pair, at a
    # fraction of the cost (the bounds of most pairs lie below the first step's).
    reach = np.abs(centred32).max(axis=0).astype(float)
    bound = (reach[first] + reach[second]) * weight * (1 + 1e-5)  # float32 rounding
    included = np.zeros(len(first), dtype=bool)
    included[np.argpartition(-bound, FIRST_PAIRS)[:FIRST_PAIRS] if len(bound) > FIRST_PAIRS else slice(None)] = True
    largest, pair = np.zeros(n_draws, dtype=np.float32), np.full(n_draws, -1)
    joining, critical = np.flatnonzero(included), np.inf
    alive = np.ones(len(first), dtype=bool)
    while alive.any():
        if len(joining):
            more, at = _largest_t(centred32, first[joining], second[joining], weight[joining])
            better = more > largest
            largest[better], pair[better] = more[better], joining[at[better]]
        critical = float(np.quantile(largest, level, method="higher"))
        joining = np.flatnonzero(alive & ~included & (bound > critical))
        if len(joining):  # the critical value again with them
            included[joining] = True
            continue
        new = alive & (t_open > critical)
        if not new.any():
            break
        established[first[new], second[new]] = True
        alive &= ~new
        stale = np.flatnonzero((pair >= 0) & new[np.maximum(pair, 0)])
        if len(stale):
            kept = np.flatnonzero(included & alive)
            largest[stale], at = _largest_t(centred32[stale], first[kept], second[kept], weight[kept])
            pair[stale] = np.where(at >= 0, kept[np.maximum(at, 0)], -1) if len(kept) else -1
    established &= holm
    established |= established.T
    return established & (difference > 0), critical


def _holm(t: np.ndarray, alpha: float, items: int | None) -> np.ndarray:
    """The pairs i < j Holm's stepdown establishes among two-sided normal tests of
    statistics t (N, N) (|difference| / its standard deviation), against t tails of
    items - 1 degrees of freedom (normal ones without `items`): (N, N) bool, upper
    triangle. Without the bootstrap's critical value it holds its error rate however many
    models share few items (where the max-|t| quantile, estimated from R draws of many
    more statistics than items, comes out too small)."""
    from scipy.special import ndtr, ndtri, stdtr, stdtrit  # scipy only where the sets are computed
    m = len(t) * (len(t) - 1) // 2

    def upper_of(x: np.ndarray) -> np.ndarray:  # one tail's p
        tail: np.ndarray = ndtr(-x) if items is None else stdtr(max(items - 1, 1), -x)
        return tail

    def beyond(p: float) -> float:
        bound: float = ndtri(1 - p / 2) if items is None else stdtrit(max(items - 1, 1), 1 - p / 2)
        return bound

    # A pair with p at most alpha / m (its statistic beyond Bonferroni's, a hair over for
    # rounding) passes wherever it stands, as every pair before it does; one with p above
    # alpha (the last and loosest threshold) never does: only the pairs between are sorted.
    sure = np.triu(t >= beyond(alpha / max(m, 1)) * (1 + 1e-9), k=1)
    rows, columns = np.nonzero(np.triu(t >= beyond(alpha) * (1 - 1e-9), k=1) & ~sure)
    ordered = np.argsort(-t[rows, columns], kind="stable")
    rows, columns = rows[ordered], columns[ordered]
    before = int(sure.sum())
    # the k-th smallest p against alpha / (m - k)
    passed = 2 * upper_of(t[rows, columns]) <= alpha / (m - before - np.arange(len(rows)))
    count = len(rows) if passed.all() else int(np.argmin(passed))
    sure[rows[:count], columns[:count]] = True
    return sure


def partial_order(above: np.ndarray, point: np.ndarray) -> PartialOrder:
    """The tiers of a relation `above` (N, N) bool that follows the scores `point` (N,)
    (i above j only where point_i > point_j, so it has no cycle)."""
    above = np.asarray(above, dtype=bool)
    n = len(above)
    if n == 0:
        return PartialOrder(np.zeros(0, dtype=int), 0, 0, 0.0)
    descending = np.argsort(-np.asarray(point, dtype=float), kind="stable")
    level = np.ones(n, dtype=int)
    for i in descending:  # everyone above i comes earlier
        higher = above[:, i]
        if higher.any():
            level[i] = 1 + level[higher].max()
    closure = above.astype(np.float32)  # the transitive closure, by squaring until it holds
    while True:
        wider = (closure + closure @ closure) > 0
        if (wider == (closure > 0)).all():
            break
        closure = wider.astype(np.float32)
    from scipy.sparse import csr_matrix  # scipy's graph tools only where the card is computed
    from scipy.sparse.csgraph import maximum_bipartite_matching
    # shuffled: on rows sorted by score scipy's matching takes seconds at 1,000 models, shuffled 0.03 s
    shuffle = np.random.default_rng(0).permutation(n)
    matched = int((maximum_bipartite_matching(csr_matrix(closure[:, shuffle] > 0), perm_type="column") >= 0).sum())
    share = float(above.sum() / (n * (n - 1))) if n > 1 else 0.0
    top = descending[:TOP_K]
    return PartialOrder(level, int(level.max()), n - matched, share, len(top), order_bits(above[np.ix_(top, top)]))


def order_bits(above: np.ndarray) -> float:
    """log2 of the number of total orders of k models (k <= 20) that keep every established
    pair of `above` (k, k) bool (its linear extensions): counted exactly over the sets of
    models that can come first (a set's orders are the sum of its orders without each of
    its members that no other member of the set is established below), 2^k sets."""
    k = len(above)
    above_of = (np.asarray(above, dtype=bool) * (1 << np.arange(k))[:, None]).sum(axis=0)  # per model, who is above
    orders = np.zeros(1 << k, dtype=float)
    orders[0] = 1.0
    for prefix in range(1 << k):  # every set after its subsets
        if orders[prefix]:
            for model in range(k):
                if not prefix >> model & 1 and above_of[model] & ~prefix == 0:
                    orders[prefix | 1 << model] += orders[prefix]
    return float(np.log2(orders[-1]))


def rank_sets(draws: np.ndarray, point: np.ndarray, family: np.ndarray | None = None, level: float = 0.95,
              confirming: tuple[np.ndarray, np.ndarray] | None = None, items: int | None = None) -> RankSets:
    """Simultaneous rank sets of N models: draws (R, N), point (N,) as `established_pairs`
    takes them; family (N,) int, near-copies counting once as in `field.family_ranks`
    (default: every model its own family): a set's best rank is 1 + the families with a
    member established above the model + its own family's members established above it,
    its worst 1 + the families with a member not established below it + its own such
    members. confirming: (draws, point) of a second score whose order a pair must also
    establish in the same direction by Holm's test (`field_rank_sets`; the intersection
    of two tests that each hold the error rate holds it too); items as
    `established_pairs`."""
    above, critical = established_pairs(draws, point, level, items)
    if confirming is not None:
        above &= established_pairs(*confirming, level, items, bootstrap=False)[0]
    n = len(point)
    family = np.arange(n) if family is None else np.asarray(family, dtype=int)
    members = np.eye(int(family.max(initial=-1)) + 1, dtype=np.float32)[family]  # (N, F)
    same = family[:, None] == family[None, :]

    def rank_bound(could_be_above: np.ndarray) -> np.ndarray:
        """1 + the other families with a member in `could_be_above`[i] + own members in it."""
        families = (could_be_above.astype(np.float32) @ members) > 0  # float: BLAS (an int product took 8 s at 1,000)
        bound: np.ndarray = 1 + (families & (members == 0)).sum(axis=1) + (could_be_above & same).sum(axis=1)
        return bound
    low = rank_bound(above.T)
    high = rank_bound(~above & ~np.eye(n, dtype=bool))  # not established below the model
    return RankSets(low, high, above, critical, partial_order(above, point))


def field_rank_sets(replicates: Callable[[], Iterable[np.ndarray]], task_scores: np.ndarray, task_category: np.ndarray,
                    weights: np.ndarray, family: np.ndarray, displayed: np.ndarray, items: int | None = None,
                    level: float = 0.95, shares: np.ndarray | None = None) -> list[RankSets]:
    """Simultaneous rank sets of the field scores in every scope (overall, then each
    category), for the models with a displayed score in every scope (in their order).

    replicates() -> per task (R, N), as `field.field_certainty` takes them (called twice:
    the arrays are streamed, not held); task_category, weights, family, displayed: as
    there; task_scores (N, T) the task scores shown (larger is better); items: the fewest
    items of a task (`established_pairs`). A pair is established when both the field
    scores' draws (`field.field_draws`) and the task scores averaged as the board averages
    them (the replicates themselves; Holm's test alone, which costs no pass over the
    draws) establish it: a share of the field is bounded, so a
    model far ahead by luck keeps nearly the same share on every resample and its share's
    draws understate how far it could fall (100 equal models on 20 items: every board
    "established" pairs of them), while the scores' own draws do not saturate. A true
    order of the field scores that the scores do not share is then left unestablished:
    slower to separate, never wrong for it. shares: the field scores' draws when already
    computed (`field.field_certainty_and_draws`; the replicates are then streamed once)."""
    displayed = np.asarray(displayed, dtype=float)
    ok = np.isfinite(displayed).all(axis=1)
    n_scopes = displayed.shape[1]
    from stats.field import category_means, field_draws, scope_draws  # field imports nothing from here
    shares = field_draws(replicates(), task_category, weights, n_scopes) if shares is None else shares
    score_draws = scope_draws((np.asarray(values, dtype=float)[:, ok] for values in replicates()), task_category,
                              n_scopes)
    if shares is None or score_draws is None:
        raise ValueError("rank sets need at least one task's replicates")
    shares = shares[:, ok]
    scores = category_means(np.asarray(task_scores, dtype=float)[ok], task_category)
    family = np.asarray(family)[ok]
    return [rank_sets(shares[:, :, s], displayed[ok, s], family, level, (score_draws[:, :, s], scores[:, s]), items)
            for s in range(n_scopes)]
