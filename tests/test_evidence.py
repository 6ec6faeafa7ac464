"""Evidence statistics against hand-computed and simulated truth: Benjamini-Hochberg,
score and rank intervals (coverage), tie groups, the sign test."""
from __future__ import annotations

import numpy as np
import pytest

from stats.evidence import bh_adjusted, rank_certainty, sign_test, tie_groups

# BenCzechMark's category sizes: 50 tasks in 9 categories, one of them a single task.
SIZES = [16, 8, 7, 6, 4, 4, 2, 2, 1]
CATEGORY = np.repeat(np.arange(len(SIZES)), SIZES)
SPREAD = 0.12  # sd of a model's task win scores around its category mean


def test_bh_matches_a_hand_computed_example_per_family():
    p = np.array([[0.01, 0.04], [0.03, 0.005], [0.02, 0.5], [0.2, np.nan]])
    tested = np.array([[True, True], [True, True], [True, True], [False, True]])
    adjusted = bh_adjusted(p, np.array([0, 0, 1, 1]), tested)
    # family 0: sorted 0.005, 0.01, 0.03, 0.04 times 4/rank = 0.02, 0.02, 0.04, 0.04 (running minimum from the top)
    np.testing.assert_allclose(adjusted[:2], [[0.02, 0.04], [0.04, 0.02]])
    # family 1 holds two p-values: the untested cell and the NaN p-value are not in it
    np.testing.assert_allclose(adjusted[2], [0.04, 0.5])
    assert np.isnan(adjusted[3]).all()


def test_bh_never_lowers_a_p_value_and_leaves_a_single_test_as_is():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(40, 5)) ** 3
    family = rng.integers(0, 4, size=40)
    adjusted = bh_adjusted(p, family, np.ones_like(p, dtype=bool))
    assert (adjusted >= p - 1e-15).all() and (adjusted <= 1).all()
    one = bh_adjusted(np.array([[0.03]]), np.array([0]), np.array([[True]]))
    assert one[0, 0] == pytest.approx(0.03)


def simulated_board(rng, n_models: int, ability=None):
    """Task win scores of models whose true category scores are `ability` (n, C), each task
    a category score plus normal noise; returns (task scores, true category scores)."""
    truth = rng.uniform(0.3, 0.7, size=(n_models, len(SIZES))) if ability is None else ability
    return truth[:, CATEGORY] + SPREAD * rng.standard_normal((n_models, CATEGORY.size)), truth


def test_intervals_cover_the_true_scores_as_stated():
    """About says: overall 95% (measured ~94.5%), a category ~93%. Each model of a board
    is one independent trial; 3 boards x 400 models, so the sampling error is ~0.7 pp."""
    rng = np.random.default_rng(7)
    covered = {"overall": [], "4 tasks": [], "1 task": []}
    for seed in range(3):
        scores, truth = simulated_board(rng, 400)
        result = rank_certainty(scores, CATEGORY, seed=seed)
        for name, scope, true in (("overall", 0, truth.mean(axis=1)), ("4 tasks", 5, truth[:, 4]),
                                  ("1 task", 9, truth[:, 8])):
            covered[name] += list((result.score_low[:, scope] <= true) & (true <= result.score_high[:, scope]))
    assert 0.93 <= np.mean(covered["overall"]) <= 0.97, np.mean(covered["overall"])
    assert 0.90 <= np.mean(covered["4 tasks"]) <= 0.96, np.mean(covered["4 tasks"])
    assert 0.89 <= np.mean(covered["1 task"]) <= 0.96, np.mean(covered["1 task"])


def test_equal_models_share_a_group_and_clearly_different_ones_do_not():
    """Boards of 6 models: two of equal ability on top, then steps of 0.15 (about six
    standard errors of an overall score)."""
    rng = np.random.default_rng(3)
    ability = np.repeat(np.array([0.7, 0.7, 0.55, 0.4, 0.25, 0.1])[:, None], len(SIZES), axis=1)
    same_equal, same_different = [], []
    for seed in range(150):
        scores, _ = simulated_board(rng, 6, ability)
        group = rank_certainty(scores, CATEGORY, seed=seed).group[:, 0]
        same_equal.append(group[0] == group[1])
        same_different.append(group[2] == group[3])
    assert np.mean(same_equal) >= 0.9, np.mean(same_equal)
    assert np.mean(same_different) <= 0.05, np.mean(same_different)


def test_rank_intervals_hold_the_rank_and_a_model_without_scores_is_last():
    rng = np.random.default_rng(1)
    scores, _ = simulated_board(rng, 12)
    scores[5] = np.nan
    result = rank_certainty(scores, CATEGORY)
    assert result.score.shape == (12, 1 + len(SIZES))
    finite = np.isfinite(result.score[:, 0])
    assert (result.rank_low[finite] <= result.rank[finite]).all()
    assert (result.rank[finite] <= result.rank_high[finite]).all()
    assert (result.score_low[finite] <= result.score[finite]).all()
    assert (result.score[finite] <= result.score_high[finite]).all()
    assert result.rank[5, 0] == 12 and result.group[5, 0] == -1 and np.isnan(result.score_low[5]).all()
    # the single-task category's spread comes from the pooled residuals: not a point
    assert (result.score_high[finite, 9] > result.score_low[finite, 9]).all()
    again = rank_certainty(scores, CATEGORY)  # seeded: the same on every run
    np.testing.assert_array_equal(again.score_low, result.score_low)
    np.testing.assert_array_equal(again.rank_high, result.rank_high)


def test_tie_groups_follow_the_leader_rule():
    score = np.array([[0.9], [0.8], [0.7], [0.6]])
    low = np.array([[0.75], [0.65], [0.55], [0.45]])
    high = np.array([[1.0], [0.95], [0.85], [0.72]])
    # 0.8 reaches the leader's 0.75: group 0; 0.7's upper 0.85 too; 0.6's upper 0.72 does not: a new group
    assert tie_groups(score, low, high)[:, 0].tolist() == [0, 0, 0, 1]


def test_sign_test_counts_tasks_and_matches_the_binomial():
    ahead, behind, p = sign_test(np.array([0.5, 1.0, 2.0, -1.0, 0.0]))
    assert (ahead, behind) == (3, 1)
    assert p == pytest.approx(5 / 16)  # P(X >= 3), X ~ Binomial(4, 1/2)
    assert sign_test(np.zeros(3)) == (0, 0, 1.0)
