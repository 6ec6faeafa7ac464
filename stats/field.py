"""The field score: how much of the board a model's results beat, and how sure that is.

A model's field score on a task is the share of the other models (the field) whose task
score its own beats, an equal one counting half; a family of near-copies counts as one
model, its medoid (the member whose answers are nearest the others'), so that publishing
copies of a model changes nobody else's score. A
category's field score is the mean of its tasks', the overall the mean of the
categories'. It is defined directly from the models' task scores: one answer per board,
whatever the order of publication; raising a model's own task score never lowers its
field score and never raises another's.

Its intervals (`field_certainty`) resample the test items (the same resampled items for
every model, as the bootstrap duels do) and recompute every field score and rank on each
resample: they are about the field score this board would show on average over fresh
draws of test items of these sizes. numpy in, small result objects out, every draw seeded.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from stats.arrays import BoolArray
from stats.evidence import CERTAINTY_LEVEL, RankCertainty, nearest_tails_interval, tie_groups

# Two models are near-copies when, over resampled test items, the variance of their
# difference is at most this share of the sum of their variances (averaged over the
# tasks): their answers move together far beyond what shared item difficulty gives.
# 2% of binary answers changed at accuracy 0.6-0.9 gives 0.04-0.11; independent models
# on items of shared difficulty 0.6-0.9; fine-tunes of one base 0.3-0.6.
NEAR_COPY_SHARE = 0.2
# Candidates for the item-level check: pairs whose task scores differ on every task by at
# most this many standard errors of their difference (sqrt(noise_a^2 + noise_b^2), each
# model's bootstrap standard error on the task). The rule looks at the pair alone, so
# whether two models are linked depends on neither the order of publication nor the rest
# of the board. A copy with 2% of its answers flipped differs by at most 0.02 in accuracy:
# 0.3 standard errors at 100 items, 2.5 at 10,000; two independent models of equal ability
# pass it too (the item-level check tells them apart), models of distinct abilities rarely.
CANDIDATE_NOISE_GAP = 4.0


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted ascending (R, N): per position, the first position of its run of
    equal values and one past its last: (start, stop), (R, N) int each."""
    n = ordered.shape[1]
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    index = np.broadcast_to(np.arange(n), ordered.shape)
    start = np.maximum.accumulate(np.where(starts, index, 0), axis=1)
    ends = np.ones(ordered.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    stop = np.minimum.accumulate(np.where(ends, index + 1, n)[:, ::-1], axis=1)[:, ::-1]
    return start, stop


@dataclass(frozen=True)
class FieldCounts:
    """What field shares are made of, kept so that one more model can be counted in
    without sorting the field again (`with_model`): beaten (R, N) the weight of the others
    below + half of those equal; total (R, N) the others' weight; missing (R, N) bool, the
    cells without a value. With weights of 0 and 1 (every board's) both are exact in
    floating point, however they were summed, so the shares are the same to the bit."""

    beaten: np.ndarray
    total: np.ndarray
    missing: np.ndarray

    @property
    def shares(self) -> np.ndarray:
        """(R, N): beaten / total, NaN where the model has no value or the others weigh nothing."""
        with np.errstate(invalid="ignore", divide="ignore"):
            share = self.beaten / self.total
        return np.where(self.missing | (self.total <= 0), np.nan, share)

    def with_model(self, values: np.ndarray, field_values: np.ndarray, field_weights: np.ndarray,
                   weight: float) -> FieldCounts:
        """The counts with one model more, as column N: values (R,) its own (NaN: none);
        field_values (R, N) and field_weights (N,) the values and weights these counts were
        made of; weight its weight as an opponent. O(R N), no sort."""
        values = np.asarray(values, dtype=float)
        field_values = np.asarray(field_values, dtype=float)
        own_missing = np.isnan(values)
        weight_here = np.where(own_missing, 0.0, float(weight))[:, None]  # (R, 1)
        with np.errstate(invalid="ignore"):  # NaN compares False: no value beats or ties
            above, half = field_values > values[:, None], 0.5 * (field_values == values[:, None])
            below = field_values < values[:, None]
        # the others each beat the new model by 1 above it and 1/2 equal; it beats them the other way
        beaten = self.beaten + weight_here * (above + half)
        weights = np.where(np.isnan(field_values), 0.0, np.broadcast_to(np.asarray(field_weights, dtype=float),
                                                                        field_values.shape))
        own_beaten = (weights * (below + half)).sum(axis=1)
        total = self.total + weight_here
        return FieldCounts(np.column_stack([beaten, own_beaten]), np.column_stack([total, weights.sum(axis=1)]),
                           np.column_stack([self.missing, own_missing]))


def field_counts(values: np.ndarray, weights: np.ndarray) -> FieldCounts:
    """`FieldCounts` of every model in its row's field: values (R, N) float, larger is
    better, NaN for a model that is not in the field; weights (N,) >= 0, each model's
    weight as an opponent. One sort per row and cumulative weights: O(R N log N)."""
    values = np.atleast_2d(np.asarray(values, dtype=float))
    missing = np.isnan(values)
    weights = np.where(missing, 0.0, np.broadcast_to(np.asarray(weights, dtype=float), values.shape))
    filled = np.where(missing, -np.inf, values)
    order = np.argsort(filled, axis=1, kind="stable")
    ordered = np.take_along_axis(filled, order, axis=1)
    cumulative = np.concatenate([np.zeros((len(values), 1)),
                                 np.cumsum(np.take_along_axis(weights, order, axis=1), axis=1)], axis=1)
    start, stop = _runs(ordered)
    below_sorted = np.take_along_axis(cumulative, start, axis=1)
    through_sorted = np.take_along_axis(cumulative, stop, axis=1)
    below, through = np.empty_like(below_sorted), np.empty_like(through_sorted)
    np.put_along_axis(below, order, below_sorted, axis=1)
    np.put_along_axis(through, order, through_sorted, axis=1)
    equal = through - below - weights  # the others with an equal value
    return FieldCounts(below + 0.5 * equal, cumulative[:, -1:] - weights, missing)


def field_shares(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row, the weighted share of the other models each model beats: values (R, N)
    and weights (N,) as `field_counts` takes them. Returns (R, N): (sum of the weights of
    the others below + half of those equal) / (sum of the others' weights); NaN for a
    model without a value and where the others weigh nothing."""
    return field_counts(values, weights).shares


def family_ranks(scores: np.ndarray, family: np.ndarray) -> np.ndarray:
    """Ranks counting each family of near-copies once: scores (R, N) or (N,), larger is
    better, family (N,) int. Returns the same shape, int: 1 + the number of other
    families with a member scoring above the model + the members of its own family
    scoring above it. Without near-copies (every family of one) this is the competition
    rank ("1224"); copies of a model above another move it at most one place, however
    many there are. O(R N log N)."""
    scores = np.asarray(scores, dtype=float)
    single = scores.ndim == 1
    scores = np.round(np.atleast_2d(scores), 9)  # equal fractions summed in another order tie
    finite = np.isfinite(scores)
    lowest = float(scores[finite].min()) - 1.0 if finite.any() else 0.0
    scores = np.where(finite, scores, lowest)  # a model without a score (NaN, -inf) ranks last
    family = np.asarray(family, dtype=int)
    n_rows, n = scores.shape
    n_families = int(family.max()) + 1 if n else 0
    best = np.full((n_rows, n_families), -np.inf)  # each family's best score per row
    np.maximum.at(best, (np.arange(n_rows)[:, None], family[None, :]), scores)
    ordered = np.sort(best, axis=1)
    # families whose best is above each score: one binary search over all rows, each row
    # shifted into a band of its own
    low = min(float(scores.min(initial=0.0)), 0.0)
    width = float(scores.max(initial=0.0)) - low + 1.0
    band = (np.arange(n_rows) * width)[:, None]
    not_above = np.searchsorted((ordered - low + band).ravel(), (scores - low + band).ravel(), side="right")
    families_above = n_families - (not_above.reshape(n_rows, n) - np.arange(n_rows)[:, None] * n_families)
    families_above -= best[:, family] > scores  # its own family is counted below
    ranks = 1 + families_above
    sizes = np.bincount(family, minlength=n_families)
    for f in np.flatnonzero(sizes > 1):  # members of its own family above it (few, small families)
        members = np.flatnonzero(family == f)
        own = scores[:, members]
        ranks[:, members] += (own[:, None, :] > own[:, :, None]).sum(axis=2)
    return ranks[0] if single else ranks


def family_weights(family: np.ndarray, representative: np.ndarray | None = None) -> np.ndarray:
    """Each model's weight as an opponent, (N,): 1 for the representative of its family
    (`NearCopies.representative`; default: every model of a family of one) and 0 for the
    other members, so that a family counts as one model, at one model's score."""
    family = np.asarray(family)
    if representative is None:
        representative = np.bincount(family)[family] == 1
    return np.asarray(representative, dtype=float)


@dataclass(frozen=True)
class NearCopies:
    """Families of near-copies among N models.

    family: (N,) int, 0.. in order of first member; representative: (N,) bool, each
    family's medoid (`linked`), every model of a family of one; pairs: (P, 2) int, the
    near-copy links (i < j); share: (P,) their item-level difference share (see
    `NEAR_COPY_SHARE`)."""

    family: np.ndarray
    representative: np.ndarray
    pairs: np.ndarray
    share: np.ndarray


def task_noise(replicates: Iterable[np.ndarray]) -> np.ndarray:
    """Each model's bootstrap standard error per task: replicates, per task (R, N) ->
    (N, T), the standard deviation over the resamples."""
    return np.column_stack([np.asarray(values, dtype=float).std(axis=0) for values in replicates])


def candidates_of(score: np.ndarray, noise: np.ndarray, scores: np.ndarray, noises: np.ndarray) -> np.ndarray:
    """Which models may be near-copies of one model: score, noise (T,) its task scores
    and standard errors (`task_noise`); scores, noises (N, T) the others'. Returns (N,)
    bool: on every task |score - scores| <= CANDIDATE_NOISE_GAP * sqrt(noise^2 +
    noises^2); a row with a NaN is nobody's candidate."""
    gap = CANDIDATE_NOISE_GAP * np.sqrt(np.square(noise) + np.square(noises))
    with np.errstate(invalid="ignore"):
        close = np.abs(scores - score) <= gap + 1e-12  # equal scores of two constant models pass
    candidates: BoolArray = close.all(axis=1) & np.isfinite(scores).all(axis=1) & np.isfinite(score).all()
    return candidates


def candidate_pairs(scores: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Every pair of `candidates_of` each other: scores, noise (N, T). Returns (P, 2) int,
    i < j. One vectorized comparison per model with those after it."""
    pairs = [np.column_stack([np.full(k.size, i), i + 1 + k])
             for i in range(len(scores))
             for k in [np.flatnonzero(candidates_of(scores[i], noise[i], scores[i + 1:], noise[i + 1:]))]]
    return np.concatenate(pairs).astype(int) if pairs else np.empty((0, 2), dtype=int)


def difference_share(replicates: Iterable[np.ndarray], pairs: np.ndarray) -> np.ndarray:
    """How much of two models' item-level noise their difference keeps: replicates, per
    task (R, N) the models' scores on R resamples of the items (the same items for every
    model); pairs (P, 2). Returns (P,): the mean over tasks of Var(a - b) / (Var(a) +
    Var(b)) across the resamples: 1 - their correlation for equal variances, near 0 for
    copies, and a task where both are constant counts as identical (0)."""
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    total, n_tasks = np.zeros(len(pairs)), 0
    for values in replicates:
        values = np.asarray(values, dtype=float)
        a, b = values[:, pairs[:, 0]], values[:, pairs[:, 1]]
        spread = a.var(axis=0) + b.var(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            total += np.where(spread > 0, (a - b).var(axis=0) / spread, 0.0)
        n_tasks += 1
    return total / max(n_tasks, 1)


def families_of(n_models: int, pairs: np.ndarray) -> np.ndarray:
    """Connected components of the near-copy pairs: (N,) int, numbered by first member."""
    parent = np.arange(n_models)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i, j in np.asarray(pairs, dtype=int).reshape(-1, 2):
        a, b = root(i), root(j)
        parent[max(a, b)] = min(a, b)
    roots = np.array([root(i) for i in range(n_models)], dtype=int)
    return np.unique(roots, return_inverse=True)[1].reshape(-1)


def linked(n_models: int, pairs: np.ndarray, share: np.ndarray, tie_order: np.ndarray | None = None) -> NearCopies:
    """The families of N models from their near-copy links: pairs (P, 2) int, share (P,)
    their `difference_share` (each at most NEAR_COPY_SHARE); tie_order (N,) int, default
    the models' order. Each family is represented by its medoid: the member whose shares
    to the other members sum least, a pair of members without a link counting 1 (ties: the
    smaller tie_order). Depends only on the links, so a board can keep them (found at
    publication) and never read arrays to rebuild its families."""
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    share = np.asarray(share, dtype=float).reshape(-1)
    order = np.arange(n_models) if tie_order is None else np.asarray(tie_order)
    family = families_of(n_models, pairs)
    sizes = np.bincount(family, minlength=int(family.max(initial=-1)) + 1)
    # the sum over the other members: (size - 1) unlinked pairs at 1, less (1 - share) per link
    total = (sizes[family] - 1).astype(float)
    np.add.at(total, pairs[:, 0], share - 1)
    np.add.at(total, pairs[:, 1], share - 1)
    best = np.lexsort((order, np.round(total, 12), family))  # by family, then total, then tie order
    first = np.ones(n_models, dtype=bool)
    first[1:] = family[best][1:] != family[best][:-1]
    representative = np.zeros(n_models, dtype=bool)
    representative[best[first]] = True
    return NearCopies(family, representative, pairs, share)


def near_copies(scores: np.ndarray, noise: np.ndarray, replicates_of: Callable[[np.ndarray], Iterable[np.ndarray]],
                tie_order: np.ndarray | None = None
                ) -> NearCopies:
    """Families of near-copies among N models, every pair looked at: scores, noise (N, T)
    the models' task scores (larger is better) and standard errors (`task_noise`; NaN
    rows: models that pair with none, such as flagged ones); replicates_of(model indices)
    -> per task (R, n) replicates of those models, read only for the `candidate_pairs`.
    Two candidates are near-copies when their `difference_share` is at most
    NEAR_COPY_SHARE; families as `linked` makes them. (A publication finds the new model's
    links alone, with `candidates_of`, and the board keeps them.)"""
    n = len(scores)
    candidates = candidate_pairs(np.asarray(scores, dtype=float), np.asarray(noise, dtype=float))
    if not len(candidates):
        return linked(n, candidates, np.empty(0), tie_order)
    involved = np.unique(candidates)
    share = difference_share(replicates_of(involved), np.searchsorted(involved, candidates))
    close = share <= NEAR_COPY_SHARE
    return linked(n, candidates[close], share[close], tie_order)


def category_means(task_scores: np.ndarray, task_category: np.ndarray) -> np.ndarray:
    """Scores per scope from task scores (..., T): (..., 1 + C), the overall (the mean of
    the category means) first, then each category's mean of its tasks."""
    category = np.asarray(task_category, dtype=int)
    one_hot = np.eye(int(category.max()) + 1)[category]  # (T, C)
    per_category = task_scores @ one_hot / one_hot.sum(axis=0)
    return np.concatenate([per_category.mean(axis=-1, keepdims=True), per_category], axis=-1)


def _half_step(others: np.ndarray, category: np.ndarray, n_categories: int) -> np.ndarray:
    """Half the smallest step of each model's score in each scope: others (N, T) the
    weight of each model's opponents per task -> (N, 1 + C). A task's share moves in
    steps of half the lightest opponent (1 / 2 others' weight, the opponents weighing 1:
    beaten, equal, lost), and a scope's score by that times the task's weight in the scope
    (1 / tasks of its category; overall also / categories). A continuity correction: the
    truth, an expected value, lies between the values a score of few opponents takes (3
    models: steps of 1/16 overall), and an interval ending on a value held by nearly all
    resamples missed a truth just beside it (issue 33: 87.8% of scores covered); at 30
    models and 9 tasks the half step is 0.1 points."""
    sizes = np.bincount(category, minlength=n_categories).astype(float)
    with np.errstate(divide="ignore"):
        step = 0.5 / others / sizes[category]  # (N, T): a task's smallest step in its category's score
    by_category = np.column_stack([step[:, category == c].min(axis=1, initial=np.inf) for c in range(n_categories)])
    scopes = np.column_stack([by_category.min(axis=1) / n_categories, by_category])
    return np.where(np.isfinite(scopes), scopes / 2, 0.0)


def field_certainty(replicates: Iterable[np.ndarray], task_category: np.ndarray, weights: np.ndarray,
                    family: np.ndarray, displayed: np.ndarray, level: float = CERTAINTY_LEVEL) -> RankCertainty:
    """`field_certainty_and_draws`'s intervals."""
    return field_certainty_and_draws(replicates, task_category, weights, family, displayed, level)[0]


def field_certainty_and_draws(replicates: Iterable[np.ndarray], task_category: np.ndarray, weights: np.ndarray,
                              family: np.ndarray, displayed: np.ndarray, level: float = CERTAINTY_LEVEL
                              ) -> tuple[RankCertainty, np.ndarray | None]:
    """Intervals of the field scores and their ranks, and tie groups, for every scope.

    replicates: per task (R, N), every model's task score on R resamples of the task's
    items, the same items for every model, larger is better, NaN for a model outside the
    field; task_category (T,) int in [0, C); weights (N,) each model's weight as an
    opponent (`family_weights`: 1 for a family's representative, 0 for the other members
    and for a model left out of the field); family (N,) int;
    displayed (N, 1 + C) the field scores the board shows (overall, then each category;
    NaN for a model without results). Memory: (R, N, 1 + C) float.

    On each resample every model's field share is recomputed per task (`field_shares`),
    then averaged as the board averages, and every model ranked by `family_ranks`; the
    intervals are the resamples' central intervals (`nearest_tails_interval`: each tail
    the share of the resamples nearest to (1 - level) / 2, so that a score or rank taking
    few values is not covered far more often than stated). A score's interval is that of
    the resamples joined with the same interval moved by the displayed score less the
    resamples' mean, then widened by half the smallest step of the score (`_half_step`),
    within [0, 1]: a resample's share compares differences that carry the items' noise
    twice, so the resamples' mean lies nearer one half than the displayed score and its
    expected value (with 50 tasks, narrow intervals held 88% of the truths; joined, 96%).
    The truth they are about is
    the field score's expected value at these sample sizes (and its rank among the
    others'): a close pair's expected share is near one half, where the displayed share
    is 0 or 1. Ties (`evidence.tie_groups`): down the displayed order, a model joins the
    current group when its rank interval meets every member's. Returned with the draws
    (`field_draws`), which the simultaneous rank sets reuse."""
    displayed = np.asarray(displayed, dtype=float)
    category = np.asarray(task_category, dtype=int)
    weights = np.asarray(weights, dtype=float)
    others = []  # per task (N,): the weight of each model's opponents there (`_half_step`)

    def counting_opponents(replicates: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        for values in replicates:
            values = np.asarray(values, dtype=float)
            weighing = np.where(np.isnan(values[0]), 0.0, weights)
            others.append(weighing.sum() - weighing)
            yield values
    draws = field_draws(counting_opponents(replicates), category, weights, displayed.shape[1])
    half = _half_step(np.column_stack(others), category, displayed.shape[1] - 1) if others else None
    return certainty_of_draws(draws, family, displayed, level, half), draws


def certainty_of_draws(draws: np.ndarray | None, family: np.ndarray, displayed: np.ndarray,
                       level: float = CERTAINTY_LEVEL, half: np.ndarray | None = None) -> RankCertainty:
    """The intervals and tie groups of `field_certainty` from the scores' draws (R, N,
    scopes) (None without tasks): each model's central interval of its draws, joined with
    itself moved onto the displayed score and widened by `half` (N, scopes; default 0),
    and the central interval of its family rank on each draw; models with a NaN displayed
    score get none."""
    displayed = np.asarray(displayed, dtype=float)
    n_models, n_scopes = displayed.shape
    ok = np.isfinite(displayed).all(axis=1)
    score_low, score_high = np.full((n_models, n_scopes), np.nan), np.full((n_models, n_scopes), np.nan)
    rank_low, rank_high = np.full((n_models, n_scopes), n_models), np.full((n_models, n_scopes), n_models)
    group = np.full((n_models, n_scopes), -1)
    if draws is None or not ok.any():
        return RankCertainty(displayed, score_low, score_high, rank_low, rank_high, group)
    draws = draws[:, ok]
    family = np.asarray(family)[ok]
    half = np.zeros((int(ok.sum()), n_scopes)) if half is None else np.asarray(half)[ok]
    for scope in range(n_scopes):
        low, high = nearest_tails_interval(draws[:, :, scope], level)
        shift = displayed[ok, scope] - draws[:, :, scope].mean(axis=0)  # re-centred on the displayed score
        low, high = np.minimum(low, low + shift) - half[:, scope], np.maximum(high, high + shift) + half[:, scope]
        score_low[ok, scope], score_high[ok, scope] = np.clip(low, 0, 1), np.clip(high, 0, 1)
        rank_low[ok, scope], rank_high[ok, scope] = nearest_tails_interval(
            family_ranks(draws[:, :, scope], family), level)
    group[ok] = tie_groups(displayed[ok], rank_low[ok], rank_high[ok])
    return RankCertainty(displayed, score_low, score_high, rank_low, rank_high, group)


def field_draws(replicates: Iterable[np.ndarray], task_category: np.ndarray, weights: np.ndarray,
                n_scopes: int) -> np.ndarray | None:
    """Every model's field score per scope on each resample of the items: replicates,
    task_category and weights as `field_certainty` takes them. Returns (R, N, n_scopes)
    (overall, then each category; rounded to 9 digits so that equal fractions summed in
    another order tie), None without tasks."""
    shares = (field_shares(np.asarray(values, dtype=float), weights) for values in replicates)
    draws = scope_draws(shares, task_category, n_scopes)
    return None if draws is None else np.round(draws, 9)


def scope_draws(per_task: Iterable[np.ndarray], task_category: np.ndarray, n_scopes: int) -> np.ndarray | None:
    """Per task (R, N) values averaged as the board averages them, one task at a time:
    (R, N, n_scopes), the overall (the mean of the category means) first; None without
    tasks."""
    category = np.asarray(task_category, dtype=int)
    sums = None
    for t, values in enumerate(per_task):
        if sums is None:
            sums = np.zeros(np.shape(values) + (n_scopes - 1,))
        sums[:, :, category[t]] += values
    if sums is None:
        return None
    per_category = sums / np.bincount(category, minlength=n_scopes - 1)
    return np.concatenate([per_category.mean(axis=2, keepdims=True), per_category], axis=2)


def task_set_draws(per_task: Iterable[np.ndarray], task_category: np.ndarray, n_scopes: int, seed: int = 0
                   ) -> np.ndarray | None:
    """`scope_draws` over another draw of tasks as well as of items: on resample r each
    category's tasks are drawn with replacement (as many as it has, seeded), so a task
    drawn twice weighs twice and one not drawn nothing, and resample r's values of the
    drawn tasks are averaged as the board averages. per_task: per task (R, N); returns
    (R, N, n_scopes) or None without tasks. A category of one task always draws it: its
    tasks' spread cannot be estimated from one."""
    category = np.asarray(task_category, dtype=int)
    rng = np.random.default_rng(seed)
    weights = None
    sums = None
    for t, values in enumerate(per_task):
        values = np.asarray(values, dtype=float)
        if weights is None or sums is None:  # both set on the first task; per resample and task: the times it was drawn / its category's size
            weights = np.zeros((len(values), len(category)))
            for c in range(n_scopes - 1):
                members = np.flatnonzero(category == c)
                drawn = rng.multinomial(len(members), np.full(len(members), 1 / len(members)), size=len(values))
                weights[:, members] = drawn / len(members)
            sums = np.zeros(values.shape + (n_scopes - 1,))
        sums[:, :, category[t]] += weights[:, t, None] * values
    if sums is None:
        return None
    return np.concatenate([sums.mean(axis=2, keepdims=True), sums], axis=2)


def task_set_certainty(replicates: Iterable[np.ndarray], task_category: np.ndarray, weights: np.ndarray,
                       family: np.ndarray, displayed: np.ndarray, level: float = CERTAINTY_LEVEL) -> RankCertainty:
    """`field_certainty`'s intervals when the tasks, too, are a draw from the tasks the
    benchmark could have held: each resample draws the items (as there) and the tasks
    within each category (`task_set_draws`). Wider than `field_certainty`'s where models'
    strengths differ from task to task; the same where a category has one task."""
    shares = (field_shares(np.asarray(values, dtype=float), weights) for values in replicates)
    draws = task_set_draws(shares, task_category, np.shape(displayed)[1])
    return certainty_of_draws(None if draws is None else np.round(draws, 9), family, displayed, level)
