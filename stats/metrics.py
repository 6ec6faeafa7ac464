"""The metric registry: one entry per metric says everything the duel engine needs.

A metric names
- `sample_kind`: the per-sample value's shape, one of SAMPLE_KINDS (parsing of
  submission files lives in `leaderboard.submission.samples`, keyed by this kind);
- `aggregate`: per-sample values -> the task score shown on the leaderboard;
- `higher_is_better`: the direction;
- `summarize`: per-sample values -> a fixed-length vector (d,) that is everything the
  test needs from one model, computed once per model and task and then reused in
  every duel (raw 0/1 vector, bootstrap statistics, posterior AUC moments);
- `test`: (summary_a, summary_b, delta) -> p-value, broadcasting over leading axes;
  `test_both_ways` (optional): the same -> (p of A over B, p of B over A, whether the
  summaries are identical), the p-values `test`'s, computing once what the two
  directions share (a model dueling many is tested both ways: `stats.duel_both_ways`);
- `replicates`: (summaries (N, d), aggregates (N,), task seed, R) -> (R, N), every model's
  score on the first R bootstrap resamples of the task's items (`resample_counts`, the
  same resamples for every model), oriented so that larger is better: what the rank
  intervals resample (`stats.field.field_certainty`).

Adding a metric is one `register(Metric(name=..., ...))`, plus a parser in
`leaderboard.submission.samples` when its per-sample shape is new. A name or alias already taken is
refused (`NameClash`); looking up an unknown name lists the known ones (`UnknownName`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, TypedDict

import numpy as np

from stats.arrays import FloatArray
from stats import duel_tests as dt
from stats.registry import Registry


class ClassProbs(NamedTuple):
    """Samples of a classification task: gold (n,) int and probs (n, k) float."""

    gold: np.ndarray
    probs: np.ndarray

    @property
    def n_classes(self) -> int:
        return int(self.probs.shape[1])


class LabelPairs(NamedTuple):
    """Samples of a task scored from predicted labels: gold (n,) and predicted (n,) class
    indices in 0..n_classes-1; a predicted -1 is an answer that names no class (wrong)."""

    gold: np.ndarray
    predicted: np.ndarray
    n_classes: int


SAMPLE_KINDS = {
    "binary": "0 or 1",
    "unit_interval": "a number in [0, 1]",
    "loglik_words": "a pair [loglikelihood, number_of_words]",
    "gold_probs": "a pair [gold_class_index, [p_class0, p_class1, ...]]",
    "label_pair": "a pair [gold_label, predicted_label] of class indices (predicted -1: no valid answer)",
    "judge": "a number in the task's score range, or {criterion: number} when the task declares criteria",
    "tp_fp_fn": "a triple [true_positives, false_positives, false_negatives] of whole counts, or {class: triple} "
                "when the task declares entity classes",
}


@dataclass(frozen=True, kw_only=True)
class Metric:
    name: str
    sample_kind: str
    higher_is_better: bool
    aggregate: Callable[[Any], float]
    summarize: Callable[[Any, int], np.ndarray]
    test: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    test_name: str
    replicates: Callable[[np.ndarray, np.ndarray, int, int], np.ndarray] | None = None  # required to register
    test_both_ways: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]] | None \
        = None
    aliases: tuple[str, ...] = field(default=())
    label: str = ""  # what a table header calls it (default: the name)
    percent: bool = False  # shown x100 with "%" (a share, differences in pp), else as is
    unit: str = ""  # a short word for differences when not in percent (default: the label)
    # What the summary holds when it is one value per item (the matrix a reader downloads,
    # `leaderboard.views.item_matrix`); "" when it is not (bootstrap statistics).
    item_values: str = ""

    @property
    def sign(self) -> float:
        return 1.0 if self.higher_is_better else -1.0

    @property
    def display_name(self) -> str:
        return self.label or self.name


METRICS: Registry[Metric] = Registry("metric")
METRIC_ALIASES = METRICS.aliases  # every name and alias -> the metric's name


def register(metric: Metric) -> Metric:
    if metric.sample_kind not in SAMPLE_KINDS:
        raise ValueError(f"metric {metric.name!r}: unknown sample kind {metric.sample_kind!r}; "
                         f"known: {', '.join(SAMPLE_KINDS)}")
    if metric.replicates is None:
        raise ValueError(f"metric {metric.name!r}: no `replicates`; the rank intervals resample every task's scores")
    return METRICS.register(metric.name, metric, metric.aliases)


def _word_perplexity(loglik_words: np.ndarray) -> FloatArray:
    """exp(-sum(loglik) / sum(words)) over the last axis of (..., n, 2) or of two sums."""
    perplexity: FloatArray = np.exp(-loglik_words[..., 0].sum(axis=-1) / loglik_words[..., 1].sum(axis=-1))
    return perplexity


def _bootstrap_perplexity(samples: np.ndarray, seed: int) -> FloatArray:
    # float64 once: `counts @ column` would make a float64 copy of the (R, n) counts for each column
    counts = dt.resample_counts(len(samples), seed).astype(np.float64)
    perplexities: FloatArray = -np.exp(-(counts @ samples[:, 0]) / (counts @ samples[:, 1]))  # negated: larger is better
    return perplexities


def _bootstrap_mean(samples: np.ndarray, seed: int) -> FloatArray:
    means: FloatArray = dt.resample_counts(len(samples), seed) @ samples / len(samples)
    return means


def _resampled_sums(summaries: np.ndarray, seed: int, r: int) -> FloatArray:
    """counts (R, n) @ per-sample values (N, n).T: (R, N). In float32 (7 digits), twice as
    fast as float64 at a thousand models; the sums of 0/1 values are exact."""
    counts = dt.resample_counts(summaries.shape[1], seed, r)
    return (counts @ summaries.T.astype(np.float32)).astype(np.float64)


def resampled_means(summaries: np.ndarray, aggregates: np.ndarray, seed: int, r: int) -> FloatArray:
    """Replicates of a mean of per-sample values (the summaries): counts (R, n) @ values / n."""
    means: FloatArray = _resampled_sums(summaries, seed, r) / summaries.shape[1]
    return means


def _stored_replicates(summaries: np.ndarray, aggregates: np.ndarray, seed: int, r: int) -> np.ndarray:
    """Replicates of a bootstrap metric: its summary is the statistic on resamples 1..1000."""
    return summaries[:, :r].T


def _auroc_replicates(summaries: np.ndarray, aggregates: np.ndarray, seed: int, r: int) -> FloatArray:
    """Replicates of the AUROC to first order: the AUROC plus the resampled sum of the
    influence values (the summaries), sum_i psi_i (count_i - 1); its variance is DeLong's."""
    replicates: FloatArray = aggregates[None, :] + _resampled_sums(summaries, seed, r) - summaries.sum(axis=1)[None, :]
    return replicates


def _mean(samples: np.ndarray) -> float:
    return float(np.mean(samples))


def _same(samples: np.ndarray, seed: int) -> np.ndarray:
    return np.asarray(samples, dtype=float)


def _confusions(pairs: LabelPairs, counts: np.ndarray) -> np.ndarray:
    """Confusion matrices of R weightings of the samples: shape (R, k, k + 1), rows gold,
    columns predicted, the last column "no valid answer". counts: (R, n), how often each
    sample is in each weighting. Equal to counts @ one-hot(confusion cell of each sample),
    summed per cell over the samples sorted by cell, so the cost is O(R n) for any k."""
    k = pairs.n_classes
    cell = pairs.gold * (k + 1) + np.where(pairs.predicted < 0, k, pairs.predicted)
    order = np.argsort(cell, kind="stable")
    cells, starts = np.unique(cell[order], return_index=True)
    out = np.zeros((len(counts), k * (k + 1)))
    out[:, cells] = np.add.reduceat(np.asarray(counts, dtype=float)[:, order], starts, axis=1)
    return out.reshape(len(counts), k, k + 1)


def _macro_f1(conf: np.ndarray) -> FloatArray:
    """Mean F1 over the classes among the gold or predicted labels (scikit-learn's macro
    average), per confusion matrix of (R, k, k + 1): shape (R,)."""
    k = conf.shape[1]
    tp = np.einsum("rkk->rk", conf[:, :, :k])
    occurs = conf.sum(axis=2) + conf[:, :, :k].sum(axis=1)  # gold + predicted = 2 tp + fp + fn
    present = occurs > 0
    f1: FloatArray = np.sum(2 * tp / np.where(present, occurs, 1.0), axis=1) / present.sum(axis=1)
    return f1


def _mcc(conf: np.ndarray) -> np.ndarray:
    """Matthews correlation of multi-class labels (Gorodkin's R_K, scikit-learn's
    matthews_corrcoef; "no valid answer" is one more predicted class), 0 when either side
    holds a single class: shape (R,)."""
    k = conf.shape[1]
    total, correct = conf.sum(axis=(1, 2)), np.einsum("rkk->r", conf[:, :, :k])
    gold, predicted = conf.sum(axis=2), conf.sum(axis=1)
    covariance = correct * total - np.sum(gold * predicted[:, :k], axis=1)
    scale = np.sqrt((total ** 2 - np.sum(gold ** 2, axis=1)) * (total ** 2 - np.sum(predicted ** 2, axis=1)))
    return np.where(scale > 0, covariance / np.where(scale > 0, scale, 1.0), 0.0)


class _LabelScores(TypedDict):
    aggregate: Callable[[LabelPairs], float]
    summarize: Callable[[LabelPairs, int], np.ndarray]


class _TestParts(TypedDict):
    test: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    test_both_ways: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
    test_name: str
    replicates: Callable[[np.ndarray, np.ndarray, int, int], np.ndarray]


def _on_labels(score: Callable[[np.ndarray], np.ndarray]) -> _LabelScores:
    """aggregate and summarize of a metric that `score` computes from confusion matrices:
    the metric on the samples, and on each bootstrap resample of them."""
    return {"aggregate": lambda s: float(score(_confusions(s, np.ones((1, len(s.gold)))))[0]),
            "summarize": lambda s, seed: score(_confusions(s, dt.resample_counts(len(s.gold), seed)))}


def _f1_of_counts(counts: np.ndarray, nothing_to_find: float) -> np.ndarray:
    """F1 = 2 tp / (2 tp + fp + fn) over the last axis of (..., 3) counts [tp, fp, fn];
    `nothing_to_find` where there is nothing on either side (tp = fp = fn = 0)."""
    tp, wrong = counts[..., 0], counts[..., 1] + counts[..., 2]
    positives = 2 * tp + wrong
    return np.where(positives > 0, 2 * tp / np.where(positives > 0, positives, 1.0), nothing_to_find)


def _micro_f1(counts: np.ndarray) -> np.ndarray:
    """Entity micro-F1 from summed counts (..., 3): seqeval's overall F1, 0 with no entity."""
    return _f1_of_counts(counts, 0.0)


def _answer_f1(samples: np.ndarray) -> np.ndarray:
    """Each answer's F1 from its counts (n, 3): SQuAD's rule, 1 when answer and gold are both empty."""
    return _f1_of_counts(samples, 1.0)


_T_TEST: _TestParts = {"test": dt.paired_ttest, "test_both_ways": dt.paired_ttest_both_ways, "test_name": "paired t-test",
           "replicates": resampled_means}
# 0/1 samples: the same test from counts (`binary_paired_ttest_both_ways`), a product per task
# for one model against many instead of passes over every difference
_BINARY_T_TEST: _TestParts = {**_T_TEST, "test": dt.binary_paired_ttest, "test_both_ways": dt.binary_paired_ttest_both_ways}
_BOOTSTRAP: _TestParts = {"test": dt.paired_bootstrap, "test_both_ways": dt.paired_bootstrap_both_ways,
              "test_name": "paired bootstrap", "replicates": _stored_replicates}

for _name, _label in (("acc", "accuracy"), ("exact_match", "exact match")):
    register(Metric(name=_name, sample_kind="binary", higher_is_better=True, aggregate=_mean, summarize=_same,
                    **_BINARY_T_TEST, label=_label, percent=True, item_values="the sample's value, 0 or 1"))
register(Metric(name="word_perplexity", sample_kind="loglik_words", higher_is_better=False,
                aggregate=lambda s: float(_word_perplexity(s)), summarize=_bootstrap_perplexity, **_BOOTSTRAP,
                label="perplexity", unit="perplexity"))
for _name, _label, _aliases in (("rouge_raw_r2_mid_f", "ROUGE-2", ("rouge_raw_r2_mid_f_without_bootstrap",)),
                                ("token_f1", "token F1", ()), ("chrf", "chrF", ())):
    register(Metric(name=_name, sample_kind="unit_interval", higher_is_better=True, aggregate=_mean,
                    summarize=_bootstrap_mean, **_BOOTSTRAP, aliases=_aliases, label=_label, percent=True))
register(Metric(name="avg_mcauroc", sample_kind="gold_probs", higher_is_better=True,
                aggregate=lambda s: dt.one_vs_rest_auroc(*s), summarize=lambda s, seed: dt.auroc_influence(*s),
                test=dt.paired_auroc, test_both_ways=dt.paired_auroc_both_ways, test_name="paired Bayesian AUROC test",
                replicates=_auroc_replicates,
                label="AUROC", percent=True,
                item_values="the sample's influence on the task's AUROC (DeLong's; a resample's AUROC is the "
                            "AUROC + the sum over items of influence x (times drawn - 1))"))
for _name, _score, _label in (("macro_f1", _macro_f1, "macro-F1"), ("mcc", _mcc, "MCC")):
    register(Metric(name=_name, sample_kind="label_pair", higher_is_better=True, **_on_labels(_score),
                    **_BOOTSTRAP, label=_label, percent=True))
# Entity micro-F1 is a ratio of the corpus's summed counts, not a mean: each resample sums
# its items' counts (counts (R, n) @ (n, 3)) and takes the ratio, as macro-F1 and MCC do.
register(Metric(name="micro_f1", sample_kind="tp_fp_fn", higher_is_better=True,
                aggregate=lambda s: float(_micro_f1(s.sum(axis=0))),
                summarize=lambda s, seed: _micro_f1(dt.resample_counts(len(s), seed) @ s), **_BOOTSTRAP,
                label="micro-F1", percent=True))
# Character F1 of extractive QA is SQuAD's mean of per-answer F1, with characters for tokens.
register(Metric(name="char_f1", sample_kind="tp_fp_fn", higher_is_better=True,
                aggregate=lambda s: _mean(_answer_f1(s)), summarize=lambda s, seed: _bootstrap_mean(_answer_f1(s), seed),
                **_BOOTSTRAP, label="character F1", percent=True))
register(Metric(name="judge_score", sample_kind="judge", higher_is_better=True, aggregate=_mean, summarize=_same,
                **_T_TEST, label="judge score", unit="pt", item_values="the sample's judge score"))

# The reference's unpaired test, for reproducing its verdicts only (see duel_tests.py).
REFERENCE_AUROC = Metric(name="avg_mcauroc", sample_kind="gold_probs", higher_is_better=True,
                         aggregate=lambda s: dt.one_vs_rest_auroc(*s),
                         summarize=lambda s, seed: dt.auc_posterior_moments(*s), test=dt.bayes_auroc_normal,
                         test_name="reference Bayesian AUROC test (unpaired)")
