"""Intervals and tie groups against known truth.

The field score's intervals (`stats.field.field_certainty`) on simulated boards of known
abilities (`field_coverage`: items of shared difficulty, accuracy and token F1, the truth
the field score's expected value at these sample sizes, by re-simulation); the demo
boards of both shipped benchmarks through the engine (`demo_board`: each displayed score
and rank inside its own interval); the nearest-tails interval rule and each metric's
replicates.
"""
from __future__ import annotations

from support.coverage_boards import demo_board


import numpy as np
import pytest

import field_coverage
import stats
from field_coverage import ACC
from stats import evidence

# Designs whose figures miss the target today (strict: a design that comes within it fails
# the suite until unmarked); bench/RESULTS.md gives every design's figures.
MISSES = {name: pytest.mark.xfail(strict=True, reason=reason) for name, reason in {
    "many tasks": "rank coverage 100% of 90 models at 3 boards (a small sample: 98.1% at 12 boards, score 96.1%)",
    "three models": "rank coverage 99.7% (99.65% at 24 boards: the data pin a rank among 3, and an interval of "
                    "whole numbers then holds it nearly always); score 96.1% (87.8% before the half step and the "
                    "re-centring)",
    "tiers of 5 equal models": "rank coverage 88.9%, a tie's ranks each equally likely (81.7% holding its best rank, "
                               "99.4% meeting its range)",
}.items()}


def assert_groups_never_join_disjoint_intervals(result):
    for scope in range(result.group.shape[1]):
        group, low, high = result.group[:, scope], result.rank_low[:, scope], result.rank_high[:, scope]
        same = group[:, None] == group[None, :]
        disjoint = (high[:, None] < low[None, :]) | (high[None, :] < low[:, None])
        assert not (same & disjoint).any(), scope


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
@pytest.mark.parametrize("name", [pytest.param(name, marks=MISSES[name]) if name in MISSES else name
                                  for name in field_coverage.DESIGNS])
def test_field_intervals_cover_the_expected_field_score_as_stated(name):
    """Per design (`field_coverage.DESIGNS`; the truth the field score's expected value at
    these sample sizes, by 40 re-simulations): 90-99% of the true overall field scores
    and of their true ranks lie in their 95% intervals; the displayed score and rank lie
    inside their own intervals for >= 95% of models; no tie group joins disjoint rank
    intervals.

    The true rank of a model in a tie of exactly equal models (equal expected scores) is
    each of the tie's ranks with equal chance (`field_coverage.tie_share_held`): nothing
    but the draw of items and answers orders them, so the board's ranks among them are
    dealt at random. Taking the tie's best rank as every member's truth asked the
    interval of a member displayed last of five to reach four ranks above it even were
    the tie known exactly (81.7% on the tiers design); taking "meets the tie's range"
    counted an interval holding one of five ranks as holding the truth (99.4%).

    The panel's size K plays no part here (it chooses the duel panel, not the field score
    or its intervals), so close abilities with K = 20 is the close abilities design."""
    outcomes = field_coverage.simulate(field_coverage.DESIGNS[name], 1, 40)
    measured = field_coverage.coverage(outcomes)
    for outcome in outcomes:
        assert_groups_never_join_disjoint_intervals(outcome.certainty)
    assert measured["displayed_score_inside"] >= 0.95 and measured["displayed_rank_inside"] >= 0.95, measured
    assert 0.90 <= measured["score"] <= 0.99 and 0.90 <= measured["rank"] <= 0.99, measured


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
def test_few_models_on_many_tasks_hold_their_displayed_score_and_its_truth():
    """6 close models (ability sd 0.1) on BenCzechMark's 50 tasks of 100 items, 12 boards:
    the displayed score lies inside its own 95% interval for >= 95% of models and the
    interval holds the truth for 90-99%. A resample's share compares differences that
    carry the items' noise twice, so the resamples' mean lies nearer one half than the
    displayed score and its expected value; over many tasks the interval is narrow
    enough for that to show: before the interval also took the resamples' interval moved
    onto the displayed score, 94.4% of displayed scores and 93.1% of truths were inside
    (30 models on the same tasks, 12 boards: 88.1% of truths, bench/RESULTS.md). Its rank
    interval, a rank among 6, holds the truth nearly always (not asserted here)."""
    design = field_coverage.Design(6, tuple(field_coverage.BENCZECHMARK_SIZES), 0.1, 100, 12)
    measured = field_coverage.coverage(field_coverage.simulate(design, 1, 40))
    assert measured["displayed_score_inside"] >= 0.95 and 0.90 <= measured["score"] <= 0.99, measured


def test_tie_groups_follow_the_rank_intervals():
    score = np.array([[0.9], [0.8], [0.7], [0.6]])
    low, high = np.array([[1], [1], [2], [3]]), np.array([[2], [3], [4], [4]])
    # 1-3 and 2-4 meet 1-2 and each other; 3-4 misses the first model's 1-2: it starts a group
    assert evidence.tie_groups(score, low, high)[:, 0].tolist() == [0, 0, 0, 1]


def test_replicates_are_each_metric_on_the_same_resampled_items():
    """Every model's replicate r is its metric on resample r of the task's items (counts
    from `resample_counts`, shared by all models): recomputed here from the items
    repeated as counted; AUROC's first-order replicates against scikit-learn's AUROC of
    the resampled items (they agree to the linearisation's error)."""
    from sklearn.metrics import roc_auc_score
    from stats.duel_tests import resample_counts
    rng = np.random.default_rng(11)
    n, seed, r = 300, 99, 20
    counts = resample_counts(n, seed, r).astype(int)
    right = (rng.random((3, n)) < 0.6).astype(float)
    expected = [[np.repeat(v, counts[k]).mean() for v in right] for k in range(r)]
    np.testing.assert_allclose(ACC.replicates(right, right.mean(axis=1), seed, r), expected)
    gold = rng.integers(0, 2, n)
    probs = np.clip(gold[None, :] * 0.3 + rng.random((2, n)) * 0.7, 0, 1)
    auroc = stats.METRICS["avg_mcauroc"]
    as_classes = [stats.ClassProbs(gold, np.column_stack([1 - p, p])) for p in probs]
    summaries = np.stack([auroc.summarize(s, seed) for s in as_classes])
    aggregates = np.array([auroc.aggregate(s) for s in as_classes])
    exact = [[roc_auc_score(np.repeat(gold, counts[k]), np.repeat(p, counts[k])) for p in probs] for k in range(r)]
    np.testing.assert_allclose(auroc.replicates(summaries, aggregates, seed, r), exact, atol=0.01)


def test_a_metric_without_replicates_is_refused():
    with pytest.raises(ValueError, match="no `replicates`"):
        stats.register(stats.Metric(name="no_replicates", sample_kind="binary", higher_is_better=True,
                                    aggregate=np.mean, summarize=lambda s, seed: s, test=ACC.test, test_name="t"))
    assert "no_replicates" not in stats.METRICS


@pytest.mark.integration  # whole demo boards (40 models) through the engine
@pytest.mark.parametrize("tasks_file", ["czechsuite_tasks.json", "tasks_metadata.json"])
def test_demo_boards_show_each_score_and_rank_inside_its_own_interval(tasks_file):
    """Both shipped benchmarks' demo boards through the engine: in every scope, the displayed
    score lies in its own 95% interval and the displayed rank in its own rank interval for
    at least 95% of the models (the intervals are about the numbers beside them)."""
    board = demo_board(tasks_file, 1)
    assert np.mean(board["score_inside"]) >= 0.95 and np.mean(board["rank_inside"]) >= 0.95, \
        (np.mean(board["score_inside"]), np.mean(board["rank_inside"]))


def test_nearest_tails_intervals_cover_a_discrete_truth_as_stated():
    """Why the demo boards' rank intervals covered more than 99%, and the fix, against a
    known truth: 4,000 models whose rank (a whole number) is a normal variable rounded, sd
    0.5-2 ranks; the truth and 200 draws come from that same distribution (a calibrated
    posterior). The percentile interval holding at least 95% of the draws covers the truth
    nearly 98% of the time; with each tail nearest to 2.5% of the draws, 95-96%. On
    continuous draws the two agree (within one draw at each end)."""
    rng = np.random.default_rng(8)
    centre, spread = rng.uniform(0, 40, 4000), rng.uniform(0.5, 2.0, 4000)
    truth, draws = (np.round(centre + spread * rng.standard_normal(shape)) for shape in (4000, (200, 4000)))
    low, high = evidence.nearest_tails_interval(draws, 0.95)
    at_least = np.quantile(draws, [0.025, 0.975], axis=0, method="inverted_cdf")
    nearest_coverage = np.mean((low <= truth) & (truth <= high))
    assert 0.94 <= nearest_coverage <= 0.97 < np.mean((at_least[0] <= truth) & (truth <= at_least[1])), nearest_coverage
    continuous = rng.standard_normal((200, 50))
    low, high = evidence.nearest_tails_interval(continuous, 0.95)
    ordered = np.sort(continuous, axis=0)
    np.testing.assert_array_equal(low, ordered[5])  # 5 draws below: 2.5% exactly
    np.testing.assert_array_equal(high, ordered[194])


def test_nearest_tails_interval_equals_a_slow_loop():
    """Against a direct loop over each column's distinct values: from the lowest, a value
    is left out while (draws below it + half the draws equal to it) < 2.5% of the draws; the
    same from the highest."""
    rng = np.random.default_rng(9)
    draws = np.column_stack([rng.integers(0, 4, (200, 30)), np.round(rng.normal(0, 1, (200, 30)), 1),
                             np.repeat([[3.0]], 200, axis=0)])
    low, high = evidence.nearest_tails_interval(draws, 0.95)
    for column in range(draws.shape[1]):
        values, counts = np.unique(draws[:, column], return_counts=True)
        below = np.concatenate([[0], np.cumsum(counts)[:-1]])
        above = len(draws) - below - counts
        kept_low = [v for v, b, c in zip(values, below, counts) if b + c / 2 >= 5]
        kept_high = [v for v, a, c in zip(values, above, counts) if a + c / 2 >= 5]
        assert (low[column], high[column]) == (min(kept_low), max(kept_high)), column
