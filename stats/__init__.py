"""Pure statistics for duels: numpy/scipy only, no I/O."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from stats.arrays import BoolArray, FloatArray
from stats.duel_tests import ALPHA, DuelResult
from stats.metrics import METRIC_ALIASES, METRICS, ClassProbs, LabelPairs, Metric, register

__all__ = ["ALPHA", "ClassProbs", "DuelResult", "LabelPairs", "METRICS", "METRIC_ALIASES", "Metric", "all_finite",
           "duel", "duel_both_ways", "register"]


def duel(metric: Metric, aggregate_a: ArrayLike, summary_a: np.ndarray, aggregate_b: ArrayLike, summary_b: np.ndarray,
         alpha: float = ALPHA) -> DuelResult:
    """Is A better than B at significance level `alpha`? Broadcasts: aggregates (...,),
    summaries (..., d).

    Rules on top of the metric's test: A is not tested when its aggregate is worse
    (p = 1, as the reference); identical results are never significant and a NaN
    p-value never counts as a win (the reference's NaN from a t-test on identical
    vectors counted as significant). Non-finite aggregates or summaries are refused
    (ValueError): a NaN would otherwise both win and lose.
    """
    delta = _duel_inputs(metric, aggregate_a, summary_a, aggregate_b, summary_b)
    return _verdicts(metric.test(summary_a, summary_b, delta), delta, _identical(summary_a, summary_b), alpha)


def duel_both_ways(metric: Metric, aggregate_a: ArrayLike, summary_a: np.ndarray, aggregate_b: ArrayLike,
                   summary_b: np.ndarray, alpha: float = ALPHA, checked: bool = False) -> tuple[DuelResult, DuelResult]:
    """(`duel` of A against B, `duel` of B against A), equal to the last bit: the checks,
    and with the metric's `test_both_ways` what the tests share, done once. `checked`: the
    caller found every input finite (`all_finite`), so it is not looked at again: one
    model dueled against a whole board checks each group of opponents once, not once per
    task."""
    delta = (_oriented_lead(metric, aggregate_a, aggregate_b) if checked
             else _duel_inputs(metric, aggregate_a, summary_a, aggregate_b, summary_b))
    delta_back = _oriented_lead(metric, aggregate_b, aggregate_a)  # -delta, but 0 where delta is 0, not -0
    if metric.test_both_ways is not None:
        forward, backward, identical = metric.test_both_ways(summary_a, summary_b, delta)
    else:
        forward, backward = metric.test(summary_a, summary_b, delta), metric.test(summary_b, summary_a, delta_back)
        identical = _identical(summary_a, summary_b)
    return _verdicts(forward, delta, identical, alpha), _verdicts(backward, delta_back, identical, alpha)


def _duel_inputs(metric: Metric, aggregate_a: ArrayLike, summary_a: np.ndarray, aggregate_b: ArrayLike,
                 summary_b: np.ndarray) -> FloatArray:
    """A's oriented lead (A minus B, positive when A is better); refuses non-finite inputs."""
    for name, value in (("aggregate", aggregate_a), ("aggregate", aggregate_b),
                        ("summary", summary_a), ("summary", summary_b)):
        if not np.isfinite(value).all():
            raise ValueError(f"{metric.name}: a model's {name} is not finite; duels need finite inputs")
    return _oriented_lead(metric, aggregate_a, aggregate_b)


def all_finite(values: np.ndarray) -> BoolArray:
    """Per row of a (m, d) array, whether every value is finite: (m,). What `duel` refuses
    a duel on, checked for many opponents at once (`duel_both_ways(checked=True)`). A row's
    sum is finite only if each value is (NaN and infinities carry into it), a sum made
    without the (m, d) mask isfinite would allocate; the rare finite row whose sum
    overflows is looked at value by value."""
    values = np.asarray(values)
    with np.errstate(over="ignore", invalid="ignore"):
        finite: BoolArray = np.isfinite(values.sum(axis=-1))
    if not finite.all():
        finite[~finite] = np.isfinite(values[~finite]).all(axis=-1)
    return finite


def _identical(summary_a: ArrayLike, summary_b: ArrayLike) -> BoolArray:
    identical: BoolArray = np.all(np.asarray(summary_a) == np.asarray(summary_b), axis=-1)
    return identical


def _oriented_lead(metric: Metric, aggregate_a: ArrayLike, aggregate_b: ArrayLike) -> FloatArray:
    lead: FloatArray = metric.sign * (np.asarray(aggregate_a, dtype=float) - np.asarray(aggregate_b, dtype=float))
    return lead


def _verdicts(p_value: ArrayLike, delta: np.ndarray, identical: np.ndarray, alpha: float) -> DuelResult:
    p_value = np.asarray(p_value, dtype=float)
    p_value = np.where((delta < 0) | identical | np.isnan(p_value), 1.0, p_value)
    if p_value.shape == delta.shape:  # one against many: no broadcast (a tenth of a duel's cost at 10,000 models)
        return DuelResult(p_value=p_value, delta=delta.copy(), alpha=alpha)
    shape = np.broadcast_shapes(p_value.shape, delta.shape)
    return DuelResult(p_value=np.broadcast_to(p_value, shape).copy(), delta=np.broadcast_to(delta, shape).copy(),
                      alpha=alpha)
