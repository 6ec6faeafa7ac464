"""A plain per-pair, per-sample implementation of the reference's duel rules.

Only for measuring the speed-up: one pair, one direction, loops as the reference
has them (confusion matrices per threshold in Python, one Beta draw per ROC point
per posterior sample, one index array per bootstrap resample).
"""
from __future__ import annotations

import numpy as np
from scipy import stats as sps

from stats import ClassProbs


def _roc_points_by_loop(positive, score):
    thresholds = sorted(set(score.tolist()), reverse=True)
    points = [(0, 0)]
    for t in thresholds:
        tp = fp = 0
        for y, s in zip(positive, score):
            if s >= t:
                if y:
                    tp += 1
                else:
                    fp += 1
        points.append((tp, fp))
    return points


def _auc_samples(gold, probs, rng, n_draws=1000):
    per_class = []
    for c in range(probs.shape[1]):
        positive = (gold == c).tolist()
        points = _roc_points_by_loop(positive, probs[:, c])
        n_pos = sum(positive)
        n_neg = len(positive) - n_pos
        fpr = [fp / n_neg for _, fp in points]
        samples = []
        for _ in range(n_draws):
            tpr = [rng.beta(tp + 1, n_pos - tp + 1) for tp, _ in points]
            samples.append(sum((fpr[i + 1] - fpr[i]) * (tpr[i] + tpr[i + 1]) / 2 for i in range(len(fpr) - 1)))
        per_class.append(samples)
    return np.mean(per_class, axis=0)


def _bootstrap(a, b, statistic, observed, rng, n_resamples=1000):
    exceed = 0
    for _ in range(n_resamples):
        idx = rng.integers(0, len(a), len(a))
        exceed += (statistic(a[idx]) - statistic(b[idx])) > 2 * observed
    return exceed / n_resamples


def _perplexity(s):
    return -np.exp(-s[:, 0].sum() / s[:, 1].sum())


def reference_duel(metric_name, a, b, aggregate_a, aggregate_b, rng) -> float:
    """p-value of "A better than B" by the reference's rules."""
    sign = -1 if metric_name == "word_perplexity" else 1
    if sign * (aggregate_a - aggregate_b) < 0:
        return 1.0
    if metric_name in ("acc", "exact_match"):
        return sps.ttest_rel(a, b).pvalue / 2
    if metric_name == "word_perplexity":
        return _bootstrap(a, b, _perplexity, sign * (aggregate_a - aggregate_b), rng)
    if metric_name == "avg_mcauroc":
        assert isinstance(a, ClassProbs)
        sa, sb = _auc_samples(a.gold, a.probs, rng), _auc_samples(b.gold, b.probs, rng)
        return float(np.mean(sa[:, None] <= sb[None, :]))
    return _bootstrap(a, b, np.mean, aggregate_a - aggregate_b, rng)
