"""`stats.field` against slow loops written from its definitions, on random small inputs
(hypothesis, derandomized: the same examples on every run), and its near-copy detection
on simulated models: exact and 98%-identical copies are found, independent models and
fine-tunes (item-level answers correlated by about 0.5) are not."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from field_reference import slow_certainty, slow_difference_share, slow_family_ranks, slow_field_shares, slow_near_copies
from field_simulation import fine_tune, item_answers, near_copies, replicates_of
from stats import field

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

# few distinct values, so that ties are common; NaN = not in the field
values_ = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, np.nan])
weights_ = st.sampled_from([0.0, 1 / 3, 0.5, 1.0])


@st.composite
def rows_and_weights(draw):
    n, r = draw(st.integers(1, 7)), draw(st.integers(1, 4))
    values = np.array(draw(st.lists(st.lists(values_, min_size=n, max_size=n), min_size=r, max_size=r)))
    return values, np.array(draw(st.lists(weights_, min_size=n, max_size=n)))


@st.composite
def scores_and_families(draw):
    n, r = draw(st.integers(1, 8)), draw(st.integers(1, 3))
    scores = np.array(draw(st.lists(st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]), min_size=n, max_size=n),
                                    min_size=r, max_size=r)))
    labels = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    return scores, np.unique(labels, return_inverse=True)[1].reshape(-1)  # families numbered 0..


@SETTINGS
@given(rows_and_weights())
def test_field_shares_equal_a_loop_over_the_others(case):
    values, weights = case
    np.testing.assert_allclose(field.field_shares(values, weights), slow_field_shares(values, weights), atol=1e-12)


def test_field_shares_count_the_weight_of_those_below_and_half_of_the_equal():
    # model 1 (0.5): model 0 below (weight 1), model 2 equal (weight 0.5), model 3 above, model 4 out
    shares = field.field_shares(np.array([[0.3, 0.5, 0.5, 0.9, np.nan]]), np.array([1.0, 1.0, 0.5, 0.5, 1.0]))
    np.testing.assert_allclose(shares[0, :4], [0 / 2, 1.25 / 2, 1.5 / 2.5, 2.5 / 2.5])
    assert np.isnan(shares[0, 4])


@SETTINGS
@given(scores_and_families())
def test_family_ranks_equal_a_loop_over_families(case):
    scores, family = case
    np.testing.assert_array_equal(field.family_ranks(scores, family), slow_family_ranks(scores, family))
    np.testing.assert_array_equal(field.family_ranks(scores[0], family), slow_family_ranks(scores[:1], family)[0])


def test_copies_above_a_model_move_it_one_place():
    # a family of three copies above model 3: one place, not three
    assert field.family_ranks(np.array([0.9, 0.85, 0.8, 0.5, 0.6]), np.array([0, 0, 0, 1, 2])).tolist() == [1, 2, 3, 3, 2]


@SETTINGS
@given(st.integers(2, 6), st.integers(1, 3), st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_difference_share_equals_a_loop_over_pairs_and_tasks(n, n_tasks, n_resamples, seed):
    rng = np.random.default_rng(seed)
    replicates = [np.round(rng.random((n_resamples, n)), 1) for _ in range(n_tasks)]
    replicates[0][:, 0] = 0.5  # a constant model: its pairs on that task count by the other's spread
    if n > 2:
        replicates[0][:, 1] = 0.5  # two constant models: that task counts as identical
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    expected = [slow_difference_share(replicates, i, j) for i, j in pairs]
    np.testing.assert_allclose(field.difference_share(replicates, pairs), expected, atol=1e-12)


@SETTINGS
@given(st.integers(1, 8), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_near_copies_equal_a_loop_over_every_pair(n, n_tasks, seed):
    """Random models, some of them copies of others with a few of their resampled values
    changed, so that every outcome (candidate or not, copy or not) occurs."""
    rng = np.random.default_rng(seed)
    replicates = [rng.random((20, n)) for _ in range(n_tasks)]
    source = rng.integers(0, n, n)
    for values in replicates:
        copied = rng.random(n) < 0.5
        values[:, copied] = values[:, source[copied]] + rng.normal(0, 0.1, (20, copied.sum())) * rng.random(copied.sum())
    scores = np.column_stack([v.mean(axis=0) for v in replicates])
    if n > 2:
        scores[rng.integers(0, n)] = np.nan  # a model outside the field is nobody's copy
    found = field.near_copies(scores, field.task_noise(replicates), lambda models: [v[:, models] for v in replicates])
    family, medoid = slow_near_copies(scores, replicates)
    np.testing.assert_array_equal(found.family, family)
    np.testing.assert_array_equal(found.representative, medoid)
    assert (found.share <= field.NEAR_COPY_SHARE).all() and (found.pairs[:, 0] < found.pairs[:, 1]).all()


@SETTINGS
@given(st.integers(2, 8), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_links_found_one_publication_at_a_time_in_any_order_give_the_same_families(n, n_tasks, seed):
    """As a publication finds them: each new model against those published before it
    (`candidates_of`, then `difference_share`), the links kept and the families made from
    them (`linked`), in a random order of publication: the same families and medoids as
    every pair looked at at once."""
    rng = np.random.default_rng(seed)
    replicates = [rng.random((20, n)) for _ in range(n_tasks)]
    source = rng.integers(0, n, n)
    for values in replicates:
        values[:, 1:] = np.where(rng.random(n - 1) < 0.6, values[:, source[1:]] + rng.normal(0, 0.05, (20, n - 1)),
                                 values[:, 1:])
    scores = np.column_stack([v.mean(axis=0) for v in replicates])
    noise = field.task_noise(replicates)
    order = rng.permutation(n)
    pairs, shares = [], []
    for k, new in enumerate(order):
        earlier = order[:k]
        found = earlier[field.candidates_of(scores[new], noise[new], scores[earlier], noise[earlier])]
        share = field.difference_share(replicates, np.column_stack([np.full(len(found), new), found]))
        pairs += [sorted((new, j)) for j, x in zip(found, share) if x <= field.NEAR_COPY_SHARE]
        shares += [x for x in share if x <= field.NEAR_COPY_SHARE]
    one_by_one = field.linked(n, np.array(pairs, dtype=int).reshape(-1, 2), np.array(shares))
    at_once = field.near_copies(scores, noise, lambda models: [v[:, models] for v in replicates])
    np.testing.assert_array_equal(one_by_one.family, at_once.family)
    np.testing.assert_array_equal(one_by_one.representative, at_once.representative)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_field_certainty_equals_the_resamples_recomputed_by_loops(n, n_tasks, seed):
    rng = np.random.default_rng(seed)
    category = np.sort(rng.integers(0, 2, n_tasks))
    category = np.unique(category, return_inverse=True)[1].reshape(-1)
    replicates = [np.round(rng.random((40, n)), 1) for _ in range(n_tasks)]  # rounded: ties occur
    family = np.unique(rng.integers(0, n, n), return_inverse=True)[1].reshape(-1)
    representative = np.zeros(n, dtype=bool)
    representative[np.unique(family, return_index=True)[1]] = True  # each family's first member
    weights = field.family_weights(family, representative)
    scores = np.column_stack([field.field_shares(v.mean(axis=0), weights)[0] for v in replicates])
    displayed = field.category_means(scores, category)
    result = field.field_certainty(replicates, category, weights, family, displayed)
    expected = slow_certainty(replicates, category, weights, family, displayed)
    for got, want in zip((result.score_low, result.score_high, result.rank_low, result.rank_high, result.group), expected):
        ok = np.isfinite(displayed).all(axis=1)  # a model without a score has no interval (the test below)
        np.testing.assert_allclose(got[ok], want[ok], atol=1e-9)


def test_a_model_without_results_gets_no_interval_and_no_group():
    replicates = [np.array([[0.5, 0.6, 0.7]] * 10)]
    displayed = np.array([[0.0, 0.0], [1.0, 1.0], [np.nan, np.nan]])
    result = field.field_certainty(replicates, np.array([0]), np.array([1.0, 1.0, 0.0]), np.arange(3), displayed)
    assert np.isnan(result.score_low[2]).all() and (result.group[2] == -1).all()
    # the third model is out of the field: one opponent, a share 0 or 1 in steps of 1/2, widened by 1/4
    assert result.score_low[:2, 0].tolist() == [0.0, 0.75] and result.score_high[:2, 0].tolist() == [0.25, 1.0]


# Near-copy detection on simulated answers: 12 models of one ability on 4 tasks of 300
# items (so every pair is a candidate and the item-level check alone decides)
N_ITEMS, N_TASKS = 300, 4


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(33)
    ability = np.full((6, N_TASKS), 0.8)
    independent = item_answers(rng, ability, N_ITEMS)
    exact = independent[0][None]  # model 6: model 0 again
    copies = near_copies(rng, independent[1], 3)  # models 7-9: 98% of model 1's answers
    tunes = np.stack([fine_tune(rng, independent[2], ability[0]), fine_tune(rng, independent[3], ability[0])])  # 10, 11
    answers = np.concatenate([independent, exact, copies, tunes])
    replicates = replicates_of(answers)
    shares = np.column_stack([field.field_shares(answers[:, t].mean(axis=1), np.ones(len(answers)))[0]
                              for t in range(N_TASKS)])
    return answers, replicates, shares


def test_exact_and_98_percent_copies_are_found_independent_models_and_fine_tunes_are_not(simulated):
    answers, replicates, shares = simulated
    found = field.near_copies(answers.mean(axis=2), field.task_noise(replicates),
                              lambda models: [r[:, models] for r in replicates])
    families = {tuple(np.flatnonzero(found.family == f)) for f in np.unique(found.family)}
    assert families == {(0, 6), (1, 7, 8, 9), (2,), (3,), (4,), (5,), (10,), (11,)}, families
    everyone = np.array([(i, j) for i in range(len(answers)) for j in range(i + 1, len(answers))])
    share = dict(zip(map(tuple, everyone), field.difference_share(replicates, everyone)))
    assert share[(0, 6)] == 0 and max(share[(1, 7)], share[(7, 8)]) <= 0.12  # 2% flipped: 0.04-0.11
    # fine-tunes keep about half their base's answers: well above the threshold, well below independence
    assert 0.3 <= min(share[(2, 10)], share[(3, 11)]) and max(share[(2, 10)], share[(3, 11)]) <= 0.65
    assert min(share[(i, j)] for i in range(6) for j in range(i + 1, 6)) > 0.6  # independent: shared difficulty only


@st.composite
def field_and_newcomer(draw):
    """A field (R, N) with weights of 0 and 1 (a board's), and one more model's values (R,)."""
    n, r = draw(st.integers(0, 7)), draw(st.integers(1, 4))
    values = np.array(draw(st.lists(st.lists(values_, min_size=n, max_size=n), min_size=r, max_size=r))).reshape(r, n)
    weights = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)), dtype=float)
    return values, weights, np.array(draw(st.lists(values_, min_size=r, max_size=r))), draw(st.sampled_from([0.0, 1.0]))


@SETTINGS
@given(field_and_newcomer())
def test_a_model_counted_into_a_field_gets_the_shares_of_a_field_counted_afresh(case):
    """`FieldCounts.with_model` (no sort) against `field_counts` of the field with the model
    in it: the same shares to the bit, its own column and everyone else's, ties and missing
    values included."""
    values, weights, newcomer, weight = case
    counted_in = field.field_counts(values, weights).with_model(newcomer, values, weights, weight)
    afresh = field.field_counts(np.column_stack([values, newcomer]), np.append(weights, weight))
    np.testing.assert_array_equal(counted_in.shares, afresh.shares)
    np.testing.assert_array_equal(counted_in.shares, slow_field_shares(np.column_stack([values, newcomer]),
                                                                       np.append(weights, weight)))
