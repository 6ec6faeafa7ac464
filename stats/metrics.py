"""The metric registry: one entry per metric says everything the duel engine needs.

A metric names
- `sample_kind`: the per-sample value's shape, one of SAMPLE_KINDS (parsing of
  submission files lives in `leaderboard.submission`, keyed by this kind);
- `aggregate`: per-sample values -> the task score shown on the leaderboard;
- `higher_is_better`: the direction;
- `summarize`: per-sample values -> a fixed-length vector (d,) that is everything the
  test needs from one model, computed once per model and task and then reused in
  every duel (raw 0/1 vector, bootstrap statistics, posterior AUC moments);
- `test`: (summary_a, summary_b, delta) -> p-value, broadcasting over leading axes.

Adding a metric (a 1-10 judge score, macro-F1, ...) is one `register(Metric(...))`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from stats import duel_tests as dt


class ClassProbs(NamedTuple):
    """Samples of a classification task: gold (n,) int and probs (n, k) float."""

    gold: np.ndarray
    probs: np.ndarray


SAMPLE_KINDS = {
    "binary": "0 or 1",
    "unit_interval": "a number in [0, 1]",
    "loglik_words": "a pair [loglikelihood, number_of_words]",
    "gold_probs": "a pair [gold_class_index, [p_class0, p_class1, ...]]",
}


@dataclass(frozen=True)
class Metric:
    name: str
    sample_kind: str
    higher_is_better: bool
    aggregate: Callable[[Any], float]
    summarize: Callable[[Any, int], np.ndarray]
    test: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    test_name: str
    aliases: tuple[str, ...] = field(default=())

    @property
    def sign(self) -> float:
        return 1.0 if self.higher_is_better else -1.0


METRICS: dict[str, Metric] = {}
METRIC_ALIASES: dict[str, str] = {}


def register(metric: Metric) -> Metric:
    assert metric.sample_kind in SAMPLE_KINDS, metric.sample_kind
    METRICS[metric.name] = metric
    for alias in (metric.name, *metric.aliases):
        METRIC_ALIASES[alias] = metric.name
    return metric


def _word_perplexity(loglik_words: np.ndarray) -> np.ndarray:
    """exp(-sum(loglik) / sum(words)) over the last axis of (..., n, 2) or of two sums."""
    return np.exp(-loglik_words[..., 0].sum(axis=-1) / loglik_words[..., 1].sum(axis=-1))


def _bootstrap_perplexity(samples: np.ndarray, seed: int) -> np.ndarray:
    counts = dt.resample_counts(len(samples), seed)
    return -np.exp(-(counts @ samples[:, 0]) / (counts @ samples[:, 1]))  # negated: larger is better


def _bootstrap_mean(samples: np.ndarray, seed: int) -> np.ndarray:
    return dt.resample_counts(len(samples), seed) @ samples / len(samples)


def _mean(samples: np.ndarray) -> float:
    return float(np.mean(samples))


def _same(samples: np.ndarray, seed: int) -> np.ndarray:
    return np.asarray(samples, dtype=float)


for _name in ("acc", "exact_match"):
    register(Metric(_name, "binary", True, _mean, _same, dt.paired_ttest, "paired t-test"))

register(Metric("word_perplexity", "loglik_words", False, lambda s: float(_word_perplexity(s)),
                _bootstrap_perplexity, dt.paired_bootstrap, "paired bootstrap"))
register(Metric("rouge_raw_r2_mid_f", "unit_interval", True, _mean, _bootstrap_mean,
                dt.paired_bootstrap, "paired bootstrap",
                aliases=("rouge_raw_r2_mid_f_without_bootstrap",)))
register(Metric("avg_mcauroc", "gold_probs", True, lambda s: dt.one_vs_rest_auroc(*s),
                lambda s, seed: dt.auroc_influence(*s), dt.paired_auroc, "paired Bayesian AUROC test"))

# The reference's unpaired test, for reproducing its verdicts only (see duel_tests.py).
REFERENCE_AUROC = Metric("avg_mcauroc", "gold_probs", True, lambda s: dt.one_vs_rest_auroc(*s),
                         lambda s, seed: dt.auc_posterior_moments(*s), dt.bayes_auroc_normal,
                         "reference Bayesian AUROC test (unpaired)")
