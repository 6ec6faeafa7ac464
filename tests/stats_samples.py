"""Seeded synthetic samples of each metric's kind, for the duel tests (`test_stats.py`) and the
fresh processes that check their reproducibility: numpy and `stats` only, so that a process
importing them starts without scikit-learn, scipy.stats and pytest."""
from __future__ import annotations

import numpy as np

from stats import ClassProbs, LabelPairs


def binary_models(rng, n, accuracies):
    return (rng.random((len(accuracies), n)) < np.asarray(accuracies)[:, None]).astype(float)


def perplexity_samples(rng, n, nll):
    words = rng.integers(5, 80, n).astype(float)
    return np.column_stack([-words * (nll + rng.normal(0, 0.3, n)), words])


def classifier(rng, gold, k, skill):
    logits = rng.normal(0, 1, (len(gold), k))
    logits[np.arange(len(gold)), gold] += skill
    return np.exp(logits) / np.exp(logits).sum(1, keepdims=True)


def f1_counts(rng, n, recall):
    """Counts [tp, fp, fn] of n items: Poisson(1.5) to find, each found with probability `recall`."""
    gold = rng.poisson(1.5, n)
    tp = rng.binomial(gold, recall)
    return np.column_stack([tp, rng.poisson(0.5, n), gold - tp]).astype(float)


def labeller(rng, gold, k, accuracy):
    """Predicted labels: right with probability `accuracy`, else a random class or -1."""
    wrong = rng.integers(-1, k, len(gold))
    return LabelPairs(gold, np.where(rng.random(len(gold)) < accuracy, gold, wrong), k)


def samples_of(metric, rng, n=300):
    """n samples of one model of the metric's kind (middling skill)."""
    if metric.sample_kind == "binary":
        return binary_models(rng, n, [0.6])[0]
    if metric.sample_kind == "loglik_words":
        return perplexity_samples(rng, n, 3.0)
    if metric.sample_kind == "unit_interval":
        return rng.random(n)
    if metric.sample_kind == "judge":
        return rng.integers(1, 11, n).astype(float)
    if metric.sample_kind == "label_pair":
        return labeller(rng, np.arange(n) % 3, 3, 0.6)
    if metric.sample_kind == "tp_fp_fn":
        return f1_counts(rng, n, 0.6)
    gold = np.arange(n) % 3
    return ClassProbs(gold, classifier(rng, gold, 3, 1.0))
