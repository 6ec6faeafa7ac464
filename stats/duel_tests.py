"""One-tailed duel tests: is model A better than model B on one task?

Every function broadcasts over leading axes, so one call duels one model against
many: pass A's arrays with shape (1, d) and the opponents' with shape (m, d) to get
m p-values, or swap them for the opponents-against-A direction.

The tests follow the reference leaderboard's rules (README, "The statistics"): paired
t-test for 0/1 metrics, the "resampled delta > 2 x observed delta" paired bootstrap for
perplexity and ROUGE; for AUROC a paired Bayesian test (`paired_auroc`) replaces the
reference's unpaired one of Goutte & Gaussier, which is kept below to reproduce its verdicts.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol

import numpy as np

from stats.arrays import FloatArray


def _scipy_stats() -> ModuleType:
    """scipy.stats, imported on first use: it takes most of a second to import. Only the
    reference's AUROC test and the evidence views use it; a duel needs two distributions,
    which `scipy_special` has for a third of the cost."""
    return importlib.import_module("scipy.stats")


@functools.cache  # a duel of one model against 10,000 asks 10,000 times (importlib's lookup: 0.1-0.2 s)
def scipy_special() -> ModuleType:
    """scipy.special (Student's t and the normal distribution), imported on first use:
    reading and validating a file never needs it."""
    return importlib.import_module("scipy.special")


ALPHA = 0.05
N_RESAMPLES = 1000


@dataclass(frozen=True)
class DuelResult:
    """Outcome of duels "A is better than B"; each field has the broadcast shape (m,)."""

    p_value: np.ndarray
    delta: np.ndarray  # A minus B in the metric, oriented so that positive means A is better
    alpha: float = ALPHA  # the benchmark's significance level

    @property
    def significant(self) -> np.ndarray:
        return self.p_value <= self.alpha  # inclusive, as in the reference


# --- paired t-test (acc, exact_match) ------------------------------------------------

def _paired_t(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """The paired t statistic of mean(a) - mean(b), the number of pairs n, and the
    differences a - b."""
    differences = np.subtract(*np.broadcast_arrays(a, b), dtype=float)
    n = differences.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's note on the variance of one sample
        return differences.mean(axis=-1) / np.sqrt(differences.var(axis=-1, ddof=1) / n), n, differences


def paired_ttest(a: np.ndarray, b: np.ndarray, delta: np.ndarray | None = None) -> np.ndarray:
    """p-value of the one-tailed paired t-test mean(a) > mean(b).

    a, b: per-sample values, broadcastable shapes (..., n). Returns shape (...,).
    The same p-value as `scipy.stats.ttest_rel(a, b, axis=-1, alternative="greater")`,
    from Student's t distribution. Zero-variance differences give NaN when the means are
    equal (0 or 1 when they differ); the caller (`duel`) turns NaN into "not significant".
    """
    t, n, _ = _paired_t(a, b)
    return np.asarray(scipy_special().stdtr(n - 1, -t), dtype=float)


def paired_ttest_both_ways(a: np.ndarray, b: np.ndarray, delta: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(`paired_ttest(a, b)`, `paired_ttest(b, a)`, whether a and b are identical), the
    p-values equal to the last bit, from one pass over the differences: b - a is exactly
    -(a - b), so its t statistic is exactly -t."""
    t, n, differences = _paired_t(a, b)
    stdtr = scipy_special().stdtr
    return (np.asarray(stdtr(n - 1, -t), dtype=float), np.asarray(stdtr(n - 1, t), dtype=float),
            ~np.any(differences != 0, axis=-1))


def binary_paired_ttest(a: np.ndarray, b: np.ndarray, delta: np.ndarray | None = None) -> np.ndarray:
    """`paired_ttest` of 0/1 samples (accuracy, exact match), from counts: see
    `binary_paired_ttest_both_ways`."""
    return binary_paired_ttest_both_ways(a, b)[0]


def binary_paired_ttest_both_ways(a: np.ndarray, b: np.ndarray, delta: np.ndarray | None = None
                                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(`paired_ttest(a, b)`, `paired_ttest(b, a)`, whether a and b are identical) for
    samples that are all 0 or 1, from three counts per pair: the ones of a, of b, and of
    both (a product, which BLAS computes for one model against many in one pass). With
    d = a - b: sum(d) = ones_a - ones_b, sum(d^2) = the discordant pairs, and
    n (n - 1) var(d) = n sum(d^2) - sum(d)^2, all whole numbers, exact in floats below
    2^53; the t statistic is then sum(d) sqrt(n - 1) / sqrt(n (n - 1) var(d)). The same
    statistic as `paired_ttest`'s (whose variance sums rounded squared deviations), so the
    p-values agree to rounding (1e-12 relative) and the pair is identical exactly when no
    pair is discordant. Zero variance: as `paired_ttest` (p 0 or 1, NaN for equal means)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = np.broadcast_shapes(a.shape, b.shape)[-1]
    ones_a, ones_b, ones_of_both = _ones(a, b)
    lead = ones_a - ones_b
    discordant = ones_a + ones_b - 2.0 * ones_of_both
    with np.errstate(divide="ignore", invalid="ignore"):
        t = lead * np.sqrt(n - 1.0) / np.sqrt(n * discordant - lead ** 2)
    stdtr = scipy_special().stdtr
    return (np.asarray(stdtr(n - 1, -t), dtype=float), np.asarray(stdtr(n - 1, t), dtype=float),
            np.asarray(discordant == 0))


def _ones(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the ones of a, of b, of both) over the last axis of 0/1 values. One model against
    many: the many's ones and ones in common in one product with (the one, 1), a single
    pass over the many (exact: every partial sum is a whole number)."""
    if a.ndim == 2 and a.shape[0] == 1 and b.ndim == 2:
        common, ones_b = (b @ np.stack([a[0], np.ones(a.shape[1])], axis=1)).T
        return a.sum(axis=-1), ones_b, common
    if b.ndim == 2 and b.shape[0] == 1 and a.ndim == 2:  # the one is b: the same, sides swapped
        ones_b, ones_a, common = _ones(b, a)
        return ones_a, ones_b, common
    return a.sum(axis=-1), b.sum(axis=-1), np.sum(a * b, axis=-1)


# --- paired bootstrap (word_perplexity, rouge, token_f1, chrf, macro_f1, mcc) -----------------------------------------

@functools.lru_cache(maxsize=16)
def resample_counts(n: int, seed: int, n_resamples: int = N_RESAMPLES) -> np.ndarray:
    """How often each of n samples appears in each bootstrap resample: shape (R, n).

    One matrix per task serves every model, which keeps duels paired (A and B see the
    same resampled indices) and lets each model's resampled statistic be computed once.
    Cached (read-only, float32 holds the counts exactly) since every model reuses it: the
    last few tasks' as float32, every task's in a compact copy (`_drawn_counts`).
    """
    counts = _drawn_counts(n, seed, n_resamples).astype(np.float32)
    counts.flags.writeable = False
    return counts


class DrawKeeper(Protocol):
    """Where drawn counts outlive the process (`leaderboard.storage.kept_draws`): a fresh
    process reads them instead of drawing again."""

    def read(self, n: int, seed: int, n_resamples: int) -> np.ndarray | None:
        """The kept counts of this draw (`_draw`'s, exactly), or None."""

    def keep(self, n: int, seed: int, n_resamples: int, counts: np.ndarray) -> None: ...


DRAW_VERSION = 1  # of `_draw`'s values: change it with them, and the counts kept of another are drawn again
_keeper: DrawKeeper | None = None


@contextlib.contextmanager
def draws_kept_in(keeper: DrawKeeper | None) -> Iterator[None]:
    """Within: the counts `_drawn_counts` misses in memory are read from `keeper`, or drawn
    and kept there (None: drawn). Process-wide (the values do not depend on where they come from)."""
    global _keeper
    previous, _keeper = _keeper, keeper
    try:
        yield
    finally:
        _keeper = previous


@functools.lru_cache(maxsize=256)
def _drawn_counts(n: int, seed: int, n_resamples: int) -> np.ndarray:
    """`resample_counts`' draw, in one byte per count when every count fits (a count
    above 255 is next to impossible): a benchmark's every task stays cached (about 80 MB
    for BenCzechMark's 50) where float32 would take four times as much, and making the
    float32 copy is 20-50 times faster than drawing again (a pre-submission needs each
    task's once). Read from the keeper `draws_kept_in` names, when one does."""
    keeper = _keeper
    compact = keeper.read(n, seed, n_resamples) if keeper else None
    if compact is None:
        compact = _draw(n, seed, n_resamples)
        if keeper:
            keeper.keep(n, seed, n_resamples, compact)
    compact.flags.writeable = False
    return compact


def _draw(n: int, seed: int, n_resamples: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n_resamples) * n, n)
    flat = rows + rng.integers(0, n, size=n_resamples * n)
    counts = np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n)
    return counts.astype(np.uint8 if counts.max(initial=0) <= np.iinfo(np.uint8).max else np.float32)


def paired_bootstrap(boot_a: np.ndarray, boot_b: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """p-value of the paired bootstrap: share of resamples whose delta exceeds 2 x delta.

    boot_a, boot_b: the models' statistic on the same R resamples, oriented so that
    larger is better, broadcastable shapes (..., R). delta: observed oriented
    difference, shape (...,). Returns shape (...,).
    """
    p_value: np.ndarray = np.mean((boot_a - boot_b) > 2.0 * np.asarray(delta)[..., None], axis=-1)
    return p_value


def paired_bootstrap_both_ways(boot_a: np.ndarray, boot_b: np.ndarray, delta: np.ndarray
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(`paired_bootstrap(boot_a, boot_b, delta)`, `paired_bootstrap(boot_b, boot_a, -delta)`,
    whether the two are identical), the p-values equal to the last bit, from one
    difference: boot_b - boot_a > -2 delta is boot_a - boot_b < 2 delta, negation being
    exact; finite values are equal exactly when their difference is 0."""
    resampled, twice = boot_a - boot_b, 2.0 * np.asarray(delta)[..., None]
    return (np.mean(resampled > twice, axis=-1), np.mean(resampled < twice, axis=-1),
            ~np.any(resampled != 0, axis=-1))


# --- the reference's Bayesian AUROC test -------------------------------------------------
# Kept to reproduce the reference's verdicts (`stats.metrics.REFERENCE_AUROC`): it draws
# every ROC point's TPR independently, which makes the posterior AUC about 8 times too
# narrow and the test liberal (a ~45% false-positive rate at alpha = 0.05 between
# models from one distribution; see tests/test_stats.py). The engine uses
# `paired_auroc` below instead.

def roc_points(positive: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empirical ROC curve as scikit-learn's `roc_curve` returns it by default.

    positive: (n,) bool, score: (n,) float. Collinear points are dropped and the origin
    is prepended. Returns (fpr, tp, fn), each of shape (P,).
    """
    order = np.argsort(-score, kind="mergesort")
    score, positive = score[order], positive[order]
    last_of_threshold = np.r_[np.flatnonzero(np.diff(score)), score.size - 1]
    tps = np.cumsum(positive)[last_of_threshold]
    fps = last_of_threshold + 1 - tps
    if fps.size > 2:
        keep = np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True]
        tps, fps = tps[keep], fps[keep]
    tps, fps = np.r_[0, tps], np.r_[0, fps]
    return fps / fps[-1], tps, tps[-1] - tps


def trapezoid_weights(fpr: FloatArray) -> FloatArray:
    """w such that the trapezoid area under (fpr, tpr) equals w @ tpr; shape (P,)."""
    step = np.diff(fpr)
    weights: FloatArray = (np.r_[step, 0.0] + np.r_[0.0, step]) / 2.0  # np.r_ is untyped
    return weights


def auc_posterior_parts(gold: np.ndarray, probs: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per class with positives and negatives: trapezoid weights and Beta parameters."""
    for c in range(probs.shape[1]):
        positive = gold == c
        if 0 < positive.sum() < positive.size:
            fpr, tp, fn = roc_points(positive, probs[:, c])
            yield trapezoid_weights(fpr), tp + 1.0, fn + 1.0


def auc_posterior_moments(gold: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Mean and variance of the posterior class-averaged AUC: shape (2,).

    gold: (n,) int class indices; probs: (n, k). Each point of each one-vs-rest ROC
    curve has TPR ~ Beta(TP+1, FN+1) with its FPR fixed, so a posterior AUC draw is a
    weighted sum of independent Beta draws, and so is their mean over classes: its
    mean and variance are exact sums.
    """
    parts = list(auc_posterior_parts(gold, probs))
    k = len(parts)
    mean = sum(w @ (al / (al + be)) for w, al, be in parts) / k
    var = sum((w ** 2) @ (al * be / ((al + be) ** 2 * (al + be + 1))) for w, al, be in parts) / k ** 2
    return np.array([mean, var])


def bayes_auroc_normal(moments_a: np.ndarray, moments_b: np.ndarray,
                       delta: np.ndarray | None = None) -> np.ndarray:
    """p = P(AUC_A <= AUC_B) for independent posterior AUCs, in closed form.

    moments_*: (..., 2) posterior mean and variance from `auc_posterior_moments`.
    A sum of many independent Betas is close to normal, so
    p = Phi((mean_B - mean_A) / sqrt(var_A + var_B)). Returns shape (...,). The closed-form
    limit of the reference's Monte-Carlo scheme (tests/support/auroc_monte_carlo.py).
    """
    mean_a, var_a = moments_a[..., 0], moments_a[..., 1]
    mean_b, var_b = moments_b[..., 0], moments_b[..., 1]
    p_value: np.ndarray = scipy_special().ndtr((mean_b - mean_a) / np.sqrt(var_a + var_b))
    return p_value


# --- paired AUROC test (avg_mcauroc, the engine's default) ---------------------------------

def _one_vs_rest_parts(gold: np.ndarray, probs: np.ndarray
                       ) -> Iterator[tuple[np.ndarray, np.ndarray, float, int, int]]:
    """Per class with positives and negatives: (positive mask, placement values, AUC).

    A positive's placement is the share of negatives it outscores, a negative's the
    share of positives that outscore it (ties count half); both average to the AUC.
    Counted by binary search in the other group's sorted scores."""
    for c in range(probs.shape[1]):
        positive = gold == c
        m = int(positive.sum())
        n = len(gold) - m
        if m == 0 or n == 0:
            continue
        scores = probs[:, c]
        positives, negatives = scores[positive], scores[~positive]
        placement = np.empty(len(scores))
        placement[positive] = _below_and_half_tied(np.sort(negatives), positives) / n
        placement[~positive] = 1.0 - _below_and_half_tied(np.sort(positives), negatives) / m
        yield positive, placement, placement[positive].mean(), m, n


def _below_and_half_tied(ordered: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each of values (q,): how many of ordered (sorted, p) are below it, plus half of
    those equal to it: shape (q,)."""
    return (np.searchsorted(ordered, values, "left") + np.searchsorted(ordered, values, "right")) / 2.0


def auroc_influence(gold: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Per-sample influence on the class-averaged AUROC: shape (n,).

    gold: (n,) int; probs: (n, k). For two models scored on the same samples,
    sum((psi_a - psi_b) ** 2) is DeLong's variance of AUC_a - AUC_b for one class, and
    its extension to the mean over classes (each sample is a positive of one class and
    a negative of the others, so the per-class estimates are correlated).
    """
    psi, k = np.zeros(len(gold)), 0
    for positive, placement, auc, m, n in _one_vs_rest_parts(gold, probs):
        scale = np.where(positive, np.sqrt(m * max(m - 1, 1)), np.sqrt(n * max(n - 1, 1)))
        psi += (placement - auc) / scale
        k += 1
    return psi / k


def paired_auroc(psi_a: np.ndarray, psi_b: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """p = P(AUC_A <= AUC_B), paired over the shared samples, in closed form.

    psi_*: (..., n) from `auroc_influence`; delta: (...,) observed AUC_A - AUC_B.
    The posterior of AUC_A - AUC_B under a Bayesian bootstrap of the test samples is
    close to normal with mean delta and variance sum((psi_a - psi_b)^2), so
    p = Phi(-delta / sd): numerically DeLong's one-tailed test. Returns shape (...,).
    """
    return _auroc_p(-np.asarray(delta), _auroc_difference_sd(psi_a, psi_b))


def paired_auroc_both_ways(psi_a: np.ndarray, psi_b: np.ndarray, delta: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(`paired_auroc(psi_a, psi_b, delta)`, `paired_auroc(psi_b, psi_a, -delta)`, whether
    the two are identical), the p-values equal to the last bit: the standard deviation is
    the same both ways (the squares of exactly negated differences), computed once. Only
    pairs whose standard deviation is 0 can be identical (tiny differences square to 0)."""
    psi_a, psi_b = np.asarray(psi_a), np.asarray(psi_b)
    sd = _auroc_difference_sd(psi_a, psi_b)
    identical = sd == 0
    if identical.any():  # rare: compared then
        identical &= np.all(psi_a == psi_b, axis=-1)
    return _auroc_p(-np.asarray(delta), sd), _auroc_p(np.asarray(delta), sd), identical


def _auroc_difference_sd(psi_a: np.ndarray, psi_b: np.ndarray) -> FloatArray:
    squares = np.subtract(psi_a, psi_b)
    np.multiply(squares, squares, out=squares)  # in place: one (m, n) array, not two
    sd: FloatArray = np.sqrt(squares.sum(axis=-1))
    return sd


def _auroc_p(z_numerator: np.ndarray, sd: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        p_value: np.ndarray = scipy_special().ndtr(z_numerator / sd)
    return p_value


def one_vs_rest_auroc(gold: np.ndarray, probs: np.ndarray) -> float:
    """Mean over classes (with positives and negatives) of the empirical one-vs-rest AUROC.

    gold: (n,) int; probs: (n, k). Equals scikit-learn's roc_auc_score per class.
    """
    return float(np.mean([auc for _, _, auc, _, _ in _one_vs_rest_parts(gold, probs)]))
