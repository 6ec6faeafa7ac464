"""How much to trust a ranking: multiple-comparison control of duel p-values, intervals
for scores and ranks, and tie groups. numpy in, small result objects out, every draw seeded.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from stats.duel_tests import _scipy_special, _scipy_stats

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
    model (yielded one task at a time); task_category: (T,) int in [0, C); panel: (K,)
    model indices, the reference opponents; displayed: (N, S) the scores the board shows
    (groups go down their order, equal scores in input order; default `score`). Scopes:
    0 = overall, 1 + c = category c (S = 1 + C). Memory: (R, N, T) float32.

    The panel score of a model on a task is the share of the panel (itself left out) whose
    true aggregate is lower, an equal one counting half; a category's is the mean of its
    tasks', the overall the mean of the categories'. It is the panel truth: the win score
    every duel would give with infinitely many items like these, once every difference is
    significant. It is a step function of the true differences, so the observed
    aggregates' own shares (plug-in) are biased toward the middle for close models (the
    truth gives a close pair wholly to the better one, the plug-in about half to each), and
    their bootstrap percentiles missed the truth for up to half the models. Instead the
    intervals are central intervals of draws of the true aggregates from an empirical-Bayes
    posterior (`posterior_draws`): each task's aggregates standardized, a model's true
    value its general level plus a category effect plus a task effect, all normal with
    variances estimated from the board; the item-level noise is the resamples' deviations (shared items keep a
    model's duels correlated). Every draw gives every model its panel score and rank;
    `score` is the draws' mean; the intervals are the draws' central intervals
    (`nearest_tails_interval`: each tail the share of the draws nearest to (1 - level) /
    2) of the score and of the rank among all N models (equal scores share the best rank,
    as the board ranks ties). Scores and ranks take few values across the draws (a rank
    is a whole number; a far-apart model holds one or two ranks in nearly every draw), so
    an interval holding at least `level` of the draws would hold far more than `level`
    of them and cover the truth more often than stated (above 99% of the ranks on the
    shipped benchmarks' demo boards). An interval is one point when leaving out the
    draws elsewhere brings each tail nearer to (1 - level) / 2 than keeping them: more
    than 90% of the draws hold that point (92.5% or more on the demo boards). Task-set
    uncertainty is not included: the truth is defined on these tasks.

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
    deviations = None  # (R, n, T) float32
    n_given = 0
    for t, values in enumerate(replicates):
        values = np.asarray(values)[:, ok]
        if deviations is None:
            deviations = np.empty((len(values), ok.sum(), n_tasks), dtype=np.float32)
        if t < n_tasks:
            deviations[:, :, t] = values - observed[ok, t]
        n_given += 1
    if n_given != n_tasks:
        raise ValueError(f"replicates of {n_given} tasks given for {n_tasks} tasks")
    n_scopes = 1 + n_categories
    out = {name: np.full((n_models, n_scopes), np.nan) for name in ("score", "score_low", "score_high")}
    rank_low, rank_high = np.full((n_models, n_scopes), n_models), np.full((n_models, n_scopes), n_models)
    if ok.any():
        draws = posterior_draws(observed[ok], deviations, category)
        del deviations
        shares = np.zeros(draws.shape[:2] + (n_categories,))  # (R, n, C): category sums
        for t in range(n_tasks):
            shares[:, :, category[t]] += panel_shares(draws[:, :, t], in_panel[ok])
        del draws
        shares /= sizes
    for scope in range(n_scopes if ok.any() else 0):
        scores = shares.mean(axis=2) if scope == 0 else shares[:, :, scope - 1]
        out["score"][ok, scope] = scores.mean(axis=0)
        scores = np.round(scores, 9)  # equal fractions summed in another order are equal
        out["score_low"][ok, scope], out["score_high"][ok, scope] = nearest_tails_interval(scores, level)
        rank_low[ok, scope], rank_high[ok, scope] = nearest_tails_interval(_min_ranks(scores), level)
    order_by = out["score"] if displayed is None else np.asarray(displayed, dtype=float)
    group = np.full((n_models, n_scopes), -1)
    group[ok] = tie_groups(order_by[ok], rank_low[ok], rank_high[ok])
    return RankCertainty(out["score"], out["score_low"], out["score_high"], rank_low, rank_high, group)


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


POSTERIOR_SEED = 20  # the draws of the models' general levels (`posterior_draws`)


def posterior_draws(observed: np.ndarray, deviations: np.ndarray, category: np.ndarray) -> np.ndarray:
    """Draws of every model's true task aggregates given the observed ones: observed (n, T)
    finite, larger is better; deviations (R, n, T) float32, each resample's aggregate minus
    the observed one (the same items for every model; overwritten); category (T,) int in
    [0, C). Returns (R, n, T) float32 in each task's standardized units (a monotone map per
    task, so panel shares and ranks are unchanged).

    Model (empirical Bayes, a normal random-effects model): per task t the aggregates are
    standardized to z (mean 0, sd 1 over the models); z[m, t] = a[m] + c[m, k] + u[m, t]
    + e[m, t] with a model's general level a ~ N(0, var_a), its effect on category k = the
    task's c ~ N(0, var_c), its effect on the task u ~ N(0, var_u) and the item noise e ~
    N(0, se2[m, t]), se2 the variance of the resamples (with the items' common shift, which
    moves every model alike, taken out). Before that, each task of a category with others
    is put on their common scale (`common_scale`): metrics measure one skill through
    different curves (perplexity, AUROC, exact match), and a curve's bend would otherwise
    count as task effects that reorder close models at random on every task. The variances
    come from the spread of z within each category (var_u per category: a category of one
    task's prompt variants agrees more than one of mixed tasks; a one-task category takes
    the pooled value), between a model's categories and between the models, less the noise
    (method of moments, floored at 0; none between one category's tasks); var_a is drawn
    per resample from its scaled inverse chi-square
    posterior (the spread of 30 models is known only to +-25%). A draw takes a, then each c
    given a, then u given both from their normal posteriors: u has mean B (z - a - c) and
    variance B se2, B = var_u / (var_u + se2), drawn as B (z - a - c) + sqrt(B) x the
    resample's deviation, so the noise keeps the correlation of models answering the same
    items. Shrinking a task's effect toward the model's level on the category and on the
    whole benchmark is what puts a close pair's true order where the model's other tasks
    point, rather than at a coin flip per task."""
    n, n_tasks = observed.shape
    n_resamples = deviations.shape[0]
    scale = observed.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (observed - observed.mean(axis=0)) / scale
    deviations -= deviations.mean(axis=1, keepdims=True)  # the items' common shift
    deviations /= scale.astype(np.float32)
    common_scale(z, deviations, category)
    se2 = np.einsum("rnt,rnt->nt", deviations, deviations, dtype=float) / max(n_resamples, 1)
    one_hot = np.eye(int(category.max()) + 1)[category]  # (T, C)
    sizes = one_hot.sum(axis=0)
    n_categories = len(sizes)
    category_mean = z @ one_hot / sizes  # (n, C)
    # per category: the tasks' spread around the category mean, (k - 1) (var_u + noise) expected
    spread = ((z - category_mean[:, category]) ** 2).mean(axis=0) @ one_hot  # (C,)
    task_effect = spread / np.maximum(sizes - 1, 1) - se2.mean(axis=0) @ one_hot / sizes
    several = sizes > 1
    pooled = np.average(task_effect[several], weights=sizes[several] - 1) if several.any() else 0.0
    var_u_of = np.maximum(np.where(several, task_effect, pooled), 0.0)  # (C,)
    var_u = var_u_of[category]  # (T,)
    noise = (var_u_of + se2 @ one_hot / sizes) / sizes  # (n, C): of a category mean, from its tasks
    level = category_mean.mean(axis=1)
    var_c = max(float(((category_mean - level[:, None]) ** 2).sum(axis=1).mean()) / (n_categories - 1)
                - float(noise.mean()), 0.0) if n_categories > 1 else 0.0
    rng = np.random.default_rng(POSTERIOR_SEED)
    level_spread = float(np.var(level)) * n / rng.chisquare(max(n - 1, 1), n_resamples)
    var_a = np.maximum(level_spread - (var_c + float(noise.mean())) / n_categories, 1e-12)[:, None]
    weight = 1 / np.maximum(var_u + se2, 1e-12)  # (n, T)
    category_weight = weight @ one_hot  # (n, C)
    category_z = (weight * z) @ one_hot / category_weight  # a + c as the category's tasks give it
    category_var = var_c + 1 / category_weight
    data_var = 1 / (1 / category_var).sum(axis=1)  # of a as the categories give it
    data_level = (category_z / category_var).sum(axis=1) * data_var
    toward_zero = data_var / (data_var + var_a)  # (R, n)
    general = (1 - toward_zero) * data_level + np.sqrt(data_var * (1 - toward_zero)) * rng.standard_normal(
        (n_resamples, n))
    category_shrink = var_c / category_var  # (n, C)
    on_category = (general[:, :, None] + category_shrink * (category_z - general[:, :, None])
                   + np.sqrt(category_shrink / category_weight) * rng.standard_normal((n_resamples, n, n_categories)))
    shrink = (var_u * weight).astype(np.float32)  # B
    draws = deviations  # reused in place: (R, n, T)
    draws *= np.sqrt(shrink)
    draws += (shrink * z).astype(np.float32)
    for t in range(n_tasks):
        draws[:, :, t] += (1 - shrink[:, t]) * on_category[:, :, category[t]]
    return draws


CURVE_DEGREE = 3  # of the polynomial putting a task on its category's common scale (`common_scale`)
CURVE_ALPHA = 0.01  # a task is mapped only when its curve's bend is significant at this level


def common_scale(z: np.ndarray, deviations: np.ndarray, category: np.ndarray) -> None:
    """Puts each task of a category with other tasks on their common scale, in place: z
    (n, T) standardized aggregates, deviations (R, n, T) their resamples' deviations, in the
    same units; category (T,) int.

    The mean of the category's other tasks is fitted by a polynomial of degree CURVE_DEGREE
    in the task's z (least squares over the models); the task's z becomes the fitted curve,
    standardized again, and its deviations are multiplied by the curve's slope at each
    model (to first order). A task is mapped only when the curve rises at every model (so
    no model's order on the task changes: the panel truth is the order) and bends
    significantly (F-test of the polynomial against a line, p < CURVE_ALPHA), so that noise
    alone, as with close models, does not bend a task; with no more models than the
    polynomial needs, nothing is mapped."""
    n = z.shape[0]
    one_hot = np.eye(int(category.max()) + 1)[category]
    sizes = one_hot.sum(axis=0)[category]
    mapped = (sizes > 1) & (z.std(axis=0) > 0)
    if n <= CURVE_DEGREE + 2 or not mapped.any():
        return
    target = ((z @ one_hot)[:, category] - z)[:, mapped] / (sizes[mapped] - 1)  # the other tasks' mean
    x = z[:, mapped]
    powers = x.T[:, :, None] ** np.arange(CURVE_DEGREE + 1)  # (T', n, d + 1)
    coef = np.einsum("tdn,nt->td", np.linalg.pinv(powers), target)
    fitted = np.einsum("tnd,td->nt", powers, coef)
    slope = np.einsum("tnd,td->nt", powers[:, :, :-1], coef[:, 1:] * np.arange(1, CURVE_DEGREE + 1))
    residual = ((target - fitted) ** 2).sum(axis=0)
    centred = target - target.mean(axis=0)  # x has mean 0 and sd 1: the line's residual directly
    line_residual = (centred ** 2).sum(axis=0) - (x * centred).sum(axis=0) ** 2 / n
    with np.errstate(divide="ignore", invalid="ignore"):
        bend = ((line_residual - residual) / (CURVE_DEGREE - 1)) / (residual / (n - CURVE_DEGREE - 1))
    # the F distribution's survival function (scipy.stats.f.sf) from scipy.special: importing
    # scipy.stats took 0.6-0.8 s of a cold process's intervals
    significant = _scipy_special().fdtrc(CURVE_DEGREE - 1, n - CURVE_DEGREE - 1,
                                         np.nan_to_num(bend, nan=0.0, posinf=np.inf)) < CURVE_ALPHA
    keep = (slope > 0).all(axis=0) & significant & (fitted.std(axis=0) > 0)
    tasks = np.flatnonzero(mapped)[keep]
    spread = fitted[:, keep].std(axis=0)
    z[:, tasks] = (fitted[:, keep] - fitted[:, keep].mean(axis=0)) / spread
    deviations[:, :, tasks] *= (slope[:, keep] / spread).astype(np.float32)


def panel_shares(values: np.ndarray, in_panel: np.ndarray) -> np.ndarray:
    """Share of the panel each model beats, per row: values (R, N) float, larger is better;
    in_panel (N,) bool. Returns (R, N): (panel members below + half the others
    equal) / (panel size, the model itself left out). The panel's values sorted per row and
    every model placed among them by one binary search over all rows (each row shifted
    into its own band), so the cost is O(R N log K), not a sort of all N."""
    n_rows, n = values.shape
    values = np.asarray(values, dtype=float)
    members = np.sort(values[:, in_panel], axis=1)
    k = members.shape[1]
    low = values.min(initial=0.0)
    band = (np.arange(n_rows) * (values.max(initial=0.0) - low + 1.0))[:, None]
    offset = (np.arange(n_rows) * k)[:, None]
    flat = (members - low + band).ravel()
    placed = values - low + band
    below = np.searchsorted(flat, placed, side="left") - offset
    equal = np.searchsorted(flat, placed, side="right") - offset - below - in_panel  # others in the panel
    return (below + 0.5 * equal) / np.maximum(k - in_panel, 1)


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
