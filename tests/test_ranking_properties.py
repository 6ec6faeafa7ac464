"""Properties of the field ranking over random simulated boards (issue 33), through
`stats.field` composed as the board composes it (`field_simulation.board_of`):

- one answer: the scores, families and ranks equal the rule computed a second, slow way
  (`field_reference.slow_board`: loops over models and pairs);
- order invariance: permuting the models changes no score, rank or family;
- monotonicity: turning wrong answers right on one task of one model never lowers its
  score or its rank in any scope (top, panel border, median and last models);
- cannot be bought: one team or several publishing up to 20 near-copies (2% of answers
  flipped) of a strong, median or weak model move no other model's rank by more than 2
  places nor its score by more than 2 points;
- tie groups: exactly equal models share a group in >= 90% of equal pairs, and no group
  joins models whose rank intervals are disjoint.

Two targets are missed today and marked as expected failures (strict: they fail the
suite once met, to be unmarked): the category scores under the copy attack and the tie
groups of equal models; their docstrings give the measured figures.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from field_reference import slow_board
from field_simulation import accuracy_board, board_of, item_answers, near_copies, replicates_of
from stats import field

N_MODELS, N_ITEMS, K = 24, 200, 8  # K: the panel's size, for the border models
CATEGORY = np.repeat(np.arange(3), [3, 2, 1])  # 6 tasks in 3 categories of unequal size


def random_answers(seed: int, n_models: int = N_MODELS, copies: int = 3) -> np.ndarray:
    """A random board's answers (N, T, n): a general ability (sd 0.6) plus a task profile
    (sd 0.3), and `copies` near-copies of a random model among them."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 0.6, (n_models - copies, 1)) + rng.normal(0, 0.3, (n_models - copies, len(CATEGORY)))
    answers = item_answers(rng, ability, N_ITEMS)
    return np.concatenate([answers, near_copies(rng, answers[rng.integers(len(answers))], copies)])


def same_partition(first: np.ndarray, second: np.ndarray) -> bool:
    return bool((np.equal.outer(first, first) == np.equal.outer(second, second)).all())


@pytest.mark.parametrize("seed", range(3))
def test_the_board_equals_the_rule_computed_by_loops(seed):
    answers = random_answers(seed)
    flagged = np.zeros(len(answers), dtype=bool)
    flagged[seed] = True  # one flagged model: scored, weighing nothing
    board = accuracy_board(answers, CATEGORY, flagged)
    family, scores, ranks = slow_board(answers.mean(axis=2), replicates_of(answers), CATEGORY, flagged)
    assert len(np.unique(board.family)) < len(answers)  # the copies form a family
    np.testing.assert_array_equal(board.family, family)
    np.testing.assert_allclose(board.scores, scores, atol=1e-12)
    np.testing.assert_array_equal(board.ranks, ranks)


@pytest.mark.parametrize("seed", range(3))
def test_permuting_the_models_changes_no_score_rank_or_family(seed):
    answers = random_answers(seed)
    board = accuracy_board(answers, CATEGORY)
    order = np.random.default_rng(seed).permutation(len(answers))
    permuted = accuracy_board(answers[order], CATEGORY)
    np.testing.assert_allclose(permuted.scores, board.scores[order], atol=1e-12)
    np.testing.assert_array_equal(permuted.ranks, board.ranks[order])
    assert same_partition(permuted.family, board.family[order])


def improved(rng, answers: np.ndarray, model: int, task: int, count: int) -> np.ndarray:
    """The answers with `count` (at most all) of `model`'s wrong answers on `task` turned right."""
    out = answers.copy()
    wrong = np.flatnonzero(out[model, task] == 0)
    out[model, task, rng.choice(wrong, min(count, len(wrong)), replace=False)] = 1
    return out


@pytest.mark.integration  # 112 whole boards
@pytest.mark.parametrize("seed", range(4))
def test_turning_wrong_answers_right_never_lowers_a_score_or_a_rank(seed):
    """Per board: the first, the models around the panel border (ranks K - 1 to K + 2),
    the median and the last, each improved on every task by 1, 5 or 20 answers."""
    rng = np.random.default_rng(100 + seed)
    answers = random_answers(seed)
    before = accuracy_board(answers, CATEGORY)
    by_rank = np.argsort(before.ranks[:, 0], kind="stable")
    for model in by_rank[[0, K - 2, K - 1, K, K + 1, N_MODELS // 2, -1]]:
        for task in range(len(CATEGORY)):
            count = int(rng.choice([1, 5, 20]))
            after = accuracy_board(improved(rng, answers, model, task, count), CATEGORY)
            assert (after.scores[model] >= before.scores[model] - 1e-12).all(), (model, task, count)
            assert (after.ranks[model] <= before.ranks[model]).all(), (model, task, count)


# (models copied, copies of each, teams publishing them): one team's 20 copies of one model,
# and two teams each copying another model 10 times
ATTACKS = {"one team, strong": ([0], 20), "one team, median": ([N_MODELS // 2], 20), "one team, weak": ([-1], 20),
           "two teams, strong and weak": ([1, -2], 10)}


def copy_attack(attack: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The changes of every other model's (scores (N, 1 + C), ranks (N, 1 + C)) when the
    copies of `attack` are published on a board without copies; asserts that each
    copied model's family holds exactly its copies."""
    positions, count = ATTACKS[attack]
    rng = np.random.default_rng(200 + seed)
    answers = random_answers(seed, copies=0)
    before = accuracy_board(answers, CATEGORY)
    copied = np.argsort(before.ranks[:, 0], kind="stable")[positions]
    after = accuracy_board(np.concatenate([answers, *(near_copies(rng, answers[m], count) for m in copied)]), CATEGORY)
    assert all((after.family == after.family[m]).sum() == count + 1 for m in copied), attack
    others = np.setdiff1d(np.arange(len(answers)), copied)
    return (np.abs(after.scores[others] - before.scores[others]),
            np.abs(after.ranks[others] - before.ranks[others]))


@pytest.mark.integration  # whole boards with and without the copies
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_near_copies_move_no_other_model_more_than_2_places_or_2_points_overall(attack):
    """Every scope's rank, and the overall score (4 boards per attack)."""
    for seed in range(4):
        score_moves, rank_moves = copy_attack(attack, seed)
        assert rank_moves.max() <= 2, (attack, seed, rank_moves.max(axis=0))
        assert score_moves[:, 0].max() <= 0.02, (attack, seed, score_moves[:, 0].max())


@pytest.mark.integration
def test_near_copies_move_no_other_model_more_than_2_points_in_a_category():
    """The category scores, on the boards above. A family counts as its medoid alone (the
    copied model, whose answers are nearest the copies'), so the copies' spread of task
    scores around it changes no other model's shares. (When a family weighed 1 / its
    size, a model inside that spread went from beating the copied model or not to beating
    part of the family: up to 2.69 points in a one-task category.)"""
    moves = [copy_attack(attack, seed)[0][:, 1:].max() for attack in ATTACKS for seed in range(4)]
    assert max(moves) <= 0.02, max(moves)


@pytest.mark.integration
@pytest.mark.xfail(strict=True, reason="measured 86-87% of equal pairs in one group (issue 33, see the docstring)")
def test_exactly_equal_models_share_a_tie_group():
    """Tiers of 5 models of exactly equal abilities (test_coverage.py's `abilities`
    design: sd 0.5, task profile 0.25; 9 tasks in 3 categories, 300 items), 10 boards:
    equal pairs share a group in >= 90% of cases. Fails: 87% (86% with another seed);
    the groups are cut down the displayed order where an interval misses a member's, and
    a cut falls inside a tier whose neighbour tier is close. Tiers 0.4 apart with a 0.1
    profile: 94%. Measured against what any cut could give (issue 33, session 10): groups
    are runs of the displayed order whose rank intervals all meet, and the partition into
    such runs keeping the most equal pairs together, chosen knowing the tiers, keeps 92%
    (seed 1) and 93% (seed 2): 95% of the tiers' own intervals all meet, but close tiers
    interleave in the displayed order, so a cut the intervals force splits one of them.
    Rules tried without the truth: cutting a run whose intervals do not all meet where
    neighbours' resampled difference is clearest (85%, 87%, 86% for seeds 1-3), the fewest
    runs with the clearest cuts (85%, 91%, 88%), against 87%, 86%, 90% today."""
    assert np.mean(tie_groups_of_tiers(seed=1)[0]) >= 0.9


@pytest.mark.integration
def test_no_tie_group_joins_models_whose_rank_intervals_are_disjoint():
    assert not tie_groups_of_tiers(seed=1)[1]


@functools.cache  # the two tests above read the same boards
def tie_groups_of_tiers(seed: int) -> tuple[list[bool], int]:
    """(per equal pair of every board: whether they share the overall tie group, the
    count of (board, scope) whose groups join disjoint rank intervals)."""
    rng = np.random.default_rng(seed)
    category = np.repeat(np.arange(3), 3)
    tier = np.repeat(np.arange(6), 5)
    pairs = np.array([(i, j) for i in range(30) for j in range(i + 1, 30) if tier[i] == tier[j]])
    same, joined = [], 0
    for _ in range(10):
        ability = np.repeat(rng.normal(0, 0.5, (6, 1)) + rng.normal(0, 0.25, (6, 9)), 5, axis=0)
        answers = item_answers(rng, ability, 300)
        replicates = replicates_of(answers)
        board = board_of(answers.mean(axis=2), replicates, category)
        certainty = field.field_certainty(replicates, category, board.weights, board.family, board.scores)
        group, low, high = certainty.group, certainty.rank_low, certainty.rank_high
        same += (group[pairs[:, 0], 0] == group[pairs[:, 1], 0]).tolist()
        for scope in range(group.shape[1]):
            together = np.equal.outer(group[:, scope], group[:, scope])
            disjoint = np.less.outer(high[:, scope], low[:, scope])
            joined += bool((together & (disjoint | disjoint.T)).any())
    return same, joined
