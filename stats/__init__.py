"""Pure statistics for duels: numpy/scipy only, no I/O."""
from __future__ import annotations

import numpy as np

from stats.duel_tests import ALPHA, DuelResult
from stats.metrics import METRIC_ALIASES, METRICS, ClassProbs, LabelPairs, Metric, register

__all__ = ["ALPHA", "ClassProbs", "DuelResult", "LabelPairs", "METRICS", "METRIC_ALIASES", "Metric", "duel", "register"]


def duel(metric: Metric, aggregate_a, summary_a, aggregate_b, summary_b, alpha: float = ALPHA) -> DuelResult:
    """Is A better than B at significance level `alpha`? Broadcasts: aggregates (...,),
    summaries (..., d).

    Rules on top of the metric's test: A is not tested when its aggregate is worse
    (p = 1, as the reference); identical results are never significant and a NaN
    p-value never counts as a win (the reference's NaN from a t-test on identical
    vectors counted as significant). Non-finite aggregates or summaries are refused
    (ValueError): a NaN would otherwise both win and lose.
    """
    for name, value in (("aggregate", aggregate_a), ("aggregate", aggregate_b),
                        ("summary", summary_a), ("summary", summary_b)):
        if not np.isfinite(value).all():
            raise ValueError(f"{metric.name}: a model's {name} is not finite; duels need finite inputs")
    delta = metric.sign * (np.asarray(aggregate_a, dtype=float) - np.asarray(aggregate_b, dtype=float))
    p_value = np.asarray(metric.test(summary_a, summary_b, delta), dtype=float)
    identical = np.all(np.asarray(summary_a) == np.asarray(summary_b), axis=-1)
    p_value = np.where((delta < 0) | identical | np.isnan(p_value), 1.0, p_value)
    shape = np.broadcast_shapes(p_value.shape, delta.shape)
    return DuelResult(p_value=np.broadcast_to(p_value, shape).copy(), delta=np.broadcast_to(delta, shape).copy(),
                      alpha=alpha)
