"""Intervals and tie groups against known truth.

The field score's intervals (`stats.field.field_certainty`) on simulated boards of known
abilities (`field_coverage`: items of shared difficulty, accuracy and token F1, the truth
the field score's expected value at these sample sizes, by re-simulation); the demo
designs of both shipped benchmarks through the engine (`demo_board`: its truth the panel
score of the demo's skills, `truth_score`); the nearest-tails interval rule, the common
scale and each metric's replicates.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import field_coverage
import stats
from field_coverage import ACC
from stats import evidence

# Designs whose figures miss the target today (strict: a design that comes within it fails
# the suite until unmarked); bench/RESULTS.md gives every design's figures.
MISSES = {name: pytest.mark.xfail(strict=True, reason=reason) for name, reason in {
    "many tasks": "rank coverage 100% (score 94.4%): 50 tasks pin most ranks, the truth's rank taken whole",
    "three models": "score coverage 87.8%, rank 100% (180 models)",
    "tiers of 5 equal models": "rank coverage 81.7% of the tie's best rank (it meets the tie's rank range for 99.4%)",
}.items()}


def truth_score(skill: np.ndarray, category: np.ndarray, panel: np.ndarray) -> np.ndarray:
    """The true overall panel score of each model from its true abilities skill (N, T):
    per task the share of the panel (itself left out) with a lower ability, an equal one
    counting half; the mean over each category's tasks, then over the categories."""
    n_models, n_tasks = skill.shape
    share = np.zeros((n_models, n_tasks))
    for m in range(n_models):
        others = np.array([o for o in panel if o != m])
        for t in range(n_tasks):
            share[m, t] = ((skill[others, t] < skill[m, t]).sum()
                           + 0.5 * (skill[others, t] == skill[m, t]).sum()) / len(others)
    return np.mean([share[:, category == c].mean(axis=1) for c in np.unique(category)], axis=0)


def truth_rank_range(skill: np.ndarray, category: np.ndarray, panel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(best, worst) panel rank of each model from its true abilities skill (N, T): the
    rank range of its tie in the true overall score."""
    overall = np.round(truth_score(skill, category, panel), 9)
    return (np.array([1 + (overall > s).sum() for s in overall]),
            np.array([(overall >= s).sum() for s in overall]))


def covered_by(rank_low, rank_high, score_low, score_high, skill, category, panel) -> dict[str, list]:
    """Per model of one board, whether its overall intervals hold the truth of its
    abilities skill (N, T) against `panel`, and their widths. "covered": the rank interval
    holds the true rank (a tie's best rank); "covered_tie_range": it meets the tie's rank
    range (what this file counted until issue 20's rank-interval fix; bench_coverage.py
    reports both)."""
    best, worst = truth_rank_range(skill, category, panel)
    truth = truth_score(skill, category, panel)
    return {"covered": ((rank_low <= best) & (best <= rank_high)).tolist(),
            "covered_tie_range": ((rank_low <= worst) & (best <= rank_high)).tolist(),
            "width": (rank_high - rank_low).tolist(),
            "score_covered": ((score_low - 1e-9 <= truth) & (truth <= score_high + 1e-9)).tolist(),
            "score_width": (score_high - score_low).tolist()}


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
@pytest.mark.parametrize("name", [pytest.param(name, marks=MISSES[name]) if name in MISSES else name
                                  for name in field_coverage.DESIGNS])
def test_field_intervals_cover_the_expected_field_score_as_stated(name):
    """Per design (`field_coverage.DESIGNS`; the truth the field score's expected value at
    these sample sizes, by 40 re-simulations): 90-99% of the true overall field scores
    and of their true ranks (a tie's best rank) lie in their 95% intervals; the displayed
    score and rank lie inside their own intervals for >= 95% of models; no tie group joins
    disjoint rank intervals."""
    outcomes = field_coverage.simulate(field_coverage.DESIGNS[name], 1, 40)
    measured = field_coverage.coverage(outcomes)
    for outcome in outcomes:
        assert_groups_never_join_disjoint_intervals(outcome.certainty)
    assert measured["displayed_score_inside"] >= 0.95 and measured["displayed_rank_inside"] >= 0.95, measured
    assert 0.90 <= measured["score"] <= 0.99 and 0.90 <= measured["rank"] <= 0.99, measured


def assert_groups_never_join_disjoint_intervals(result):
    for scope in range(result.group.shape[1]):
        group, low, high = result.group[:, scope], result.rank_low[:, scope], result.rank_high[:, scope]
        same = group[:, None] == group[None, :]
        disjoint = (high[:, None] < low[None, :]) | (high[None, :] < low[:, None])
        assert not (same & disjoint).any(), scope


def test_panel_shares_count_panel_members_below_and_half_the_equal_ones():
    values = np.array([[0.3, 0.5, 0.5, 0.9, 0.1]])
    in_panel = np.array([True, True, True, False, False])
    # model 1: member 0 below, member 2 equal (itself left out): (1 + 0.5) / 2
    np.testing.assert_allclose(evidence.panel_shares(values, in_panel), [[0.0, 0.75, 0.75, 1.0, 0.0]])


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


def demo_board(tasks_file: str, seed: int, n_models: int = 40) -> dict[str, list]:
    """One demo board of a shipped benchmark: `n_models` demo models
    (leaderboard.submission.demo) summarized and dueled by the engine (`play`, each new
    model against the top_opponents best of its day), intervals by
    `ranking.certainty_table`; per model (`covered_by`) whether its overall intervals
    hold the truth of the demo's skills (every task of a category orders the models by the
    model's skill on the category)."""
    import pandas as pd
    from leaderboard.submission import demo
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import ranking
    from leaderboard.engine.replay import opponents_of_the_day
    from leaderboard.engine.tournament import Tournament, play, summarize
    from leaderboard.submission.parsing import ParsedSubmission

    benchmark = load_benchmark(Path(__file__).resolve().parent.parent / "data" / tasks_file)
    designs = {t.id: demo.task_design(t, seed) for t in benchmark.tasks}
    ids, results, tournament = [f"m{i}" for i in range(n_models)], {}, Tournament(benchmark.task_ids)
    submitted = pd.Series(np.arange(n_models), index=ids)
    for i, sid in enumerate(ids):
        _, document, _, tasks = demo.demo_submission(benchmark, i, seed, designs)
        results[sid] = summarize(ParsedSubmission(tasks, document, "", ""), benchmark)
        if i:
            table = ranking.ranked(ranking.scores_table(tournament, benchmark), submitted[ids[:i]])
            play(benchmark, tournament, sid, results, opponents_of_the_day(table, benchmark), rules="study")
        else:
            tournament.add_models([sid])
    ranked = ranking.ranked(ranking.scores_table(tournament, benchmark), submitted)
    certainty = ranking.certainty_table(ranked, benchmark, results)[ranking.OVERALL].reindex(ids)
    low, high = certainty["rank_low"].to_numpy(), certainty["rank_high"].to_numpy()
    groups = certainty["group"].to_numpy()
    same = groups[:, None] == groups[None, :]
    assert not (same & ((high[:, None] < low[None, :]) | (high[None, :] < low[:, None]))).any()
    categories = list(benchmark.categories)
    skill = np.array([[demo.demo_skills(benchmark, i, seed)[t.category] for t in benchmark.tasks]
                      for i in range(n_models)])
    panel = np.array([ids.index(m) for m in ranked.index[:benchmark.top_opponents]])
    return covered_by(*(certainty[f].to_numpy(dtype=float) for f in ("rank_low", "rank_high", "score_low", "score_high")),
                      skill, np.array([categories.index(t.category) for t in benchmark.tasks]), panel)


@pytest.mark.integration  # whole demo boards (40 models) through the engine
@pytest.mark.parametrize("tasks_file, seeds", [("czechsuite_tasks.json", [1]), ("tasks_metadata.json", [1, 2])])
def test_demo_design_through_the_engine_covers_the_truth(tasks_file, seeds):
    """The demo design of each shipped benchmark, through the engine (`demo_board`): 90-99%
    of the true scores and ranks in their intervals. CzechSuite: 9 tasks (macro-F1, MCC,
    token F1, exact match, judge scores), models far apart, so most ranks are nearly pinned
    and rank coverage is at the top of the range. BenCzechMark: 50 tasks in 9 categories of
    mixed metrics (AUROC, perplexity, accuracy, exact match) whose curves differ; its two
    boards covered 80% of the scores before each task was put on its category's common
    scale (`evidence.common_scale`). 40-80 models are a coarse check of the 99% bound (the
    sampling error of a share near 98% is 1.5-2 pp here, and these boards gave 97.5-100% of
    the ranks before the nearest-tails intervals); bench_coverage.py measures it on 30
    boards per benchmark, and the rule's own over-coverage on discrete draws is tested
    precisely below (`test_nearest_tails_intervals_cover_a_discrete_truth_as_stated`)."""
    held = {"covered": [], "score_covered": []}
    for seed in seeds:
        board = demo_board(tasks_file, seed)
        for field in held:
            held[field] += board[field]
    assert 0.9 <= np.mean(held["covered"]) <= 0.99 and 0.9 <= np.mean(held["score_covered"]) <= 0.99, \
        (np.mean(held["covered"]), np.mean(held["score_covered"]))


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


def test_common_scale_puts_curved_tasks_on_one_scale_and_leaves_noise_alone():
    """Category 0: two tasks measuring one skill, straight and through a curve (exp); category
    1: two tasks of noise alone. Category 0's tasks come out nearly linear in each other,
    each task's order of the models kept, a mapped task's deviations scaled by its curve's
    slope; category 1 is left as it was (the noise's bend is not significant)."""
    rng = np.random.default_rng(3)
    skill = np.sort(rng.normal(0.0, 1.0, 60))
    raw = np.column_stack([skill, np.exp(0.6 * skill), rng.normal(0.0, 1.0, (60, 2))])
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    before = z.copy()
    deviations = np.ones((2, 60, 4), dtype=np.float32)
    evidence.common_scale(z, deviations, np.array([0, 0, 1, 1]))
    assert np.corrcoef(before[:, 0], before[:, 1])[0, 1] < 0.9 < 0.99 < np.corrcoef(z[:, 0], z[:, 1])[0, 1]
    assert (np.diff(z[:, :2], axis=0) > 0).all()  # the skill is sorted: both orders kept
    assert not np.allclose(deviations[:, :, :2], 1)
    np.testing.assert_array_equal(z[:, 2:], before[:, 2:])
    np.testing.assert_array_equal(deviations[:, :, 2:], 1)
