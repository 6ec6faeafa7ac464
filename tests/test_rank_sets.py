"""Simultaneous rank sets and tiers (`stats.rank_sets`, issue 34) against known truth.

Simulated boards (`field_coverage`: items of shared difficulty, accuracy and token F1, the
truth the field score's expected value at these sample sizes) in every design of the
ranking issue and in boards of many models on few items; identical and far-apart models;
the rank bounds against a loop over families; the tiers against the Leaderboard Reporting
Standard's reference implementation (`../shared/reference/leaderboard_standard`, MIT).
"""
from __future__ import annotations

import importlib
import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import field_coverage
from stats import field, rank_sets
from stats.discordance import binary_discordance

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "leaderboard_standard"

FEW_ITEMS = {  # models per item above 1, where the draft reports the multiplier bootstrap failing
    "60 models on 30 items": field_coverage.Design(60, (1,), 0.3, 30, 40),
    "100 equal models on 20 items": field_coverage.Design(100, (1,), 0.0, 20, 20),
    "100 models on 20 items": field_coverage.Design(100, (1,), 0.3, 20, 20),
}


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
@pytest.mark.parametrize("name", [*field_coverage.DESIGNS, *FEW_ITEMS])
def test_simultaneous_sets_hold_every_true_rank_at_once(name):
    """Every model's true rank (a tie's best to its worst) lies in its set at once on >=
    95% of the boards of a design (every board of the small designs), and every displayed
    rank in its own set."""
    design = field_coverage.DESIGNS.get(name) or FEW_ITEMS[name]
    outcomes = field_coverage.simulate(design, 1, 30)
    measured = field_coverage.simultaneous_coverage(outcomes)
    assert measured["displayed_inside"] == 1.0, measured
    assert measured["all"] >= 0.95, measured
    if name in FEW_ITEMS:  # the per-model score intervals too (test_coverage.py checks them on DESIGNS)
        per_model = field_coverage.coverage(outcomes)
        assert 0.90 <= per_model["score"] <= 0.99, per_model


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
@pytest.mark.xfail(strict=True, reason="per-model rank intervals under-cover when models outnumber items: 84.5% "
                                       "(60 on 30 items), 71.9% (100 equal on 20; 10.6% holding a tie's best rank), "
                                       "82.4% (100 on 20); the scores' intervals hold 92.9-93.3% and the "
                                       "simultaneous sets every board")
@pytest.mark.parametrize("name", FEW_ITEMS)
def test_per_model_rank_intervals_on_many_models_on_few_items(name):
    """90-99% of the true ranks in their per-model 95% intervals, as on the designs of
    test_coverage.py, where models outnumber items."""
    measured = field_coverage.coverage(field_coverage.simulate(FEW_ITEMS[name], 1, 30))
    assert 0.90 <= measured["rank"] <= 0.99, measured


def boards_of(skill: np.ndarray, items: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    scores, replicates = field_coverage.observe(rng, skill, items, 200)
    category = np.zeros(skill.shape[1], dtype=int)
    n = len(skill)
    displayed = field.category_means(field.field_shares(scores.T, np.ones(n)).T, category)
    return rank_sets.field_rank_sets(lambda: replicates, scores, category, np.ones(n), np.arange(n), displayed, items)[0]


def test_identical_models_get_the_full_set():
    sets = boards_of(np.zeros((8, 2)), 200)
    assert sets.low.tolist() == [1] * 8 and sets.high.tolist() == [8] * 8
    assert (sets.could_be_first, sets.could_be_last, sets.order.height, sets.order.largest_unseparated) == (8, 8, 1, 8)
    assert sets.order.established_share == 0.0


def test_far_apart_models_get_singletons():
    sets = boards_of(np.linspace(3, -3, 6)[:, None] * np.ones((1, 2)), 300)
    assert sets.low.tolist() == sets.high.tolist() == [1, 2, 3, 4, 5, 6]
    assert (sets.could_be_first, sets.could_be_last, sets.order.height, sets.order.largest_unseparated) == (1, 1, 6, 1)
    assert sets.order.established_share == 0.5  # every ordered pair one way


def test_rank_bounds_count_a_family_of_near_copies_once():
    """Against a loop: the best rank counts each other family with a member established
    above once, the worst each other family with a member not established below."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 9))
        point = rng.normal(size=n)
        draws = point + rng.normal(0, rng.uniform(0.05, 2.0), (200, n))
        family = rng.integers(0, max(1, n - 2), n)
        sets = rank_sets.rank_sets(draws, point, family)
        for i in range(n):
            others = [j for j in range(n) if j != i]
            above = {family[j] if family[j] != family[i] else ("own", j) for j in others if sets.above[j, i]}
            maybe = {family[j] if family[j] != family[i] else ("own", j) for j in others if not sets.above[i, j]}
            assert (sets.low[i], sets.high[i]) == (1 + len(above), 1 + len(maybe))


@pytest.fixture(scope="module")
def reference():
    if not REFERENCE.is_dir():
        pytest.skip(f"the reference implementation is not at {REFERENCE}")
    sys.path.insert(0, str(REFERENCE))
    try:
        yield importlib.import_module("leaderboard_geometry")
    finally:
        sys.path.remove(str(REFERENCE))


def test_tiers_equal_the_reference_implementations(reference):
    """Height (longest chain) and the largest antichain of established relations as the
    sets give them, against leaderboard_geometry.py on the same relation."""
    rng = np.random.default_rng(8)
    for _ in range(25):
        n = int(rng.integers(2, 40))
        point = np.sort(rng.normal(0, rng.uniform(0.2, 3), n))[::-1]
        draws = point + rng.normal(0, 0.3, (200, n))
        sets = rank_sets.rank_sets(draws, point)
        assert sets.order.height == reference.longest_chain(sets.above)
        assert sets.order.largest_unseparated == reference.largest_antichain(sets.above)
        assert sets.order.established_share == sets.above.sum() / (n * (n - 1))


def test_the_board_carries_the_sets_of_every_scope_into_the_snapshot(small_store):
    """Through the board: every scope's sets equal `field_rank_sets` on the board's own
    replicates, hold the displayed rank, and go into the snapshot (`<scope>_set_low`,
    ...)."""
    from leaderboard.engine import ranking
    from leaderboard.storage.snapshot import snapshot_table
    certainty, ranked, benchmark = small_store.certainty(), small_store.ranked(), small_store.benchmark
    scopes = [ranking.OVERALL, *benchmark.categories]
    ids = list(ranked.index)
    results = {m: small_store.models[m].results for m in ids}
    categories = {c: i for i, c in enumerate(benchmark.categories)}
    signs = np.array([t.metric.sign for t in benchmark.tasks])
    expected = rank_sets.field_rank_sets(
        lambda: ranking.task_replicates(benchmark, results, ids),
        np.array([[results[m].aggregates[t] for t in benchmark.task_ids] for m in ids]) * signs,
        np.array([categories[t.category] for t in benchmark.tasks]), np.ones(len(ids)), np.arange(len(ids)),
        ranked[scopes].to_numpy(dtype=float))
    for scope, sets in zip(scopes, expected):
        assert certainty[scope, "set_low"].tolist() == sets.low.tolist()
        assert certainty[scope, "set_high"].tolist() == sets.high.tolist()
        assert certainty[scope, "tier"].tolist() == sets.order.level.tolist()
        assert (certainty[scope, "largest_unseparated"] == sets.order.largest_unseparated).all()
        shown = ranking.competition_rank(ranked[scope])
        assert ((certainty[scope, "set_low"] <= shown) & (shown <= certainty[scope, "set_high"])).all()
    snapshot = snapshot_table(small_store.models, ranked, benchmark, small_store.flags)
    assert snapshot["overall_set_high"].tolist() == certainty[ranking.OVERALL, "set_high"].tolist()
    assert snapshot["overall_tier"].tolist() == certainty[ranking.OVERALL, "tier"].tolist()


@pytest.mark.integration  # whole simulated boards, the truth by re-simulation
def test_task_set_intervals_cover_a_truth_over_draws_of_tasks():
    """Where models' strengths differ from task to task, the truth over another draw of
    tasks (each model's general level kept, a fresh task profile per draw) lies in the
    tasks-and-items interval (`field.task_set_certainty`) for 90-99% of models, and in the
    items-only interval, which conditions on these tasks, far less often."""
    measured = field_coverage.task_set_coverage(field_coverage.Design(30, (4, 4, 4), 0.3, 200, 6, profile=1.0), 1, 30)
    assert 0.90 <= measured["tasks"] <= 0.99, measured
    assert measured["items"] < 0.8 and measured["tasks_width"] > measured["items_width"], measured


def test_the_board_carries_both_kinds_of_interval(small_store):
    """The board's task-set intervals are `field.task_set_certainty` on its own replicates,
    and go into the snapshot."""
    from leaderboard.engine import ranking
    from leaderboard.storage.snapshot import snapshot_table
    certainty, ranked, benchmark = small_store.certainty(), small_store.ranked(), small_store.benchmark
    scopes = [ranking.OVERALL, *benchmark.categories]
    ids = list(ranked.index)
    results = {m: small_store.models[m].results for m in ids}
    categories = {c: i for i, c in enumerate(benchmark.categories)}
    expected = field.task_set_certainty(ranking.task_replicates(benchmark, results, ids),
                                        np.array([categories[t.category] for t in benchmark.tasks]),
                                        np.ones(len(ids)), np.arange(len(ids)), ranked[scopes].to_numpy(dtype=float))
    for s, scope in enumerate(scopes):
        np.testing.assert_allclose(certainty[scope, "task_set_score_low"], expected.score_low[:, s])
        assert certainty[scope, "task_set_rank_high"].tolist() == expected.rank_high[:, s].tolist()
    snapshot = snapshot_table(small_store.models, ranked, benchmark, small_store.flags)
    assert snapshot["overall_task_set_score_high"].tolist() == certainty[ranking.OVERALL, "task_set_score_high"].tolist()


def reference_module(name: str):
    sys.path.insert(0, str(REFERENCE))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(REFERENCE))


@pytest.mark.parametrize("models, items, spread, seed", [(10, 300, 0.5, 1), (30, 500, 1.0, 3)])
def test_a_single_task_binary_board_against_the_reference_implementation(reference, full_benchmark, models, items,
                                                                         spread, seed):
    """One models x items matrix of 0/1 answers, exported as a reader downloads it
    (`item_matrix`), read by the reference (leaderboard_standard.load) and by pandas: the
    same shape; the sets from the accuracy's own draws (`rank_sets.rank_sets` on the
    replicates, Holm's t tails at the items) give the reference's figures (rank_sets.py,
    its default Holm): could be first, could be last, tiers, largest antichain, the
    established share within 0.5 points; the top-10 resolution its Knuth estimate's
    (leaderboard_entropy.py, 4,000 samples) within 4 of its standard errors; the
    discordance of the whole field and of the top decile its expected_discordant
    (information_depletion.py). The field score's sets on the same board are no narrower
    (on 30 models at spread 1.0: 4 could be first and 11 last against 1 and 2; the
    shares' steps of 1/29 are noisier than the accuracies they order)."""
    from leaderboard.views import item_matrix, report_card
    import matrix_board
    standard, reference_sets = reference_module("leaderboard_standard"), reference_module("rank_sets")
    entropy, depletion = reference_module("leaderboard_entropy"), reference_module("information_depletion")
    rng = np.random.default_rng(seed)
    x = field_coverage.samples(rng, field_coverage.ACC, rng.normal(0, spread, models), items)
    task = next(t for t in full_benchmark.tasks if t.metric.sample_kind == "binary")
    board = matrix_board.board_of(full_benchmark, {task.id: x})
    exported = item_matrix.item_matrix(board, task.id)
    theirs_x = standard.load(exported.path)[0]
    ours_x = pd.read_csv(exported.path, index_col=0).to_numpy()
    assert theirs_x.shape == ours_x.shape == (exported.models, exported.items) == (models, items)
    accuracy = ours_x.mean(axis=1)
    replicates = field_coverage.ACC.replicates(ours_x, accuracy, 7919, 200)
    ours = rank_sets.rank_sets(replicates, accuracy, items=items)
    theirs = reference_sets.rank_sets(theirs_x, method="holm")
    beats = theirs["beats"]
    assert (ours.could_be_first, ours.could_be_last) == (int((theirs["best"] == 1).sum()),
                                                         int((theirs["worst"] == models).sum()))
    assert (ours.order.height, ours.order.largest_unseparated) == (reference.longest_chain(beats),
                                                                   reference.largest_antichain(beats))
    assert abs(ours.order.established_share - beats.sum() / (models * (models - 1))) <= 0.005
    top = np.argsort(-theirs_x.mean(axis=1), kind="stable")[:10]
    estimate = entropy.log_extensions(beats[np.ix_(top, top)], 4000, np.random.default_rng(0))
    assert abs(rank_sets.order_bits(beats[np.ix_(top, top)]) - estimate["bits"]) <= 4 * estimate["se_bits"] + 1e-9, estimate
    tasks = report_card.task_rows(board).set_index("task")
    assert tasks.loc[task.id, "discordance"] == pytest.approx(depletion.expected_discordant(theirs_x), abs=0.005)
    front = depletion.frontier_subset(theirs_x)
    assert tasks.loc[task.id, "discordance_top"] == pytest.approx(depletion.expected_discordant(theirs_x[front]),
                                                                  abs=0.005)
    board_sets = rank_sets.field_rank_sets(
        lambda: [replicates], accuracy[:, None], np.zeros(1, dtype=int), np.ones(models), np.arange(models),
        field.category_means(field.field_shares(accuracy[None], np.ones(models)).T, np.zeros(1, dtype=int)), items)[0]
    assert (board_sets.low <= ours.low).all() and (board_sets.high >= ours.high).all()


def test_above_the_size_limit_every_set_is_the_whole_range(small_store, monkeypatch):
    """Past RANK_SETS_MAX_MODELS the N x N pairwise sets are not computed: each set is the
    whole range (it still holds every rank at once), one tier, nothing established."""
    from leaderboard.engine import ranking
    ranked, benchmark = small_store.ranked(), small_store.benchmark
    results = {m: small_store.models[m].results for m in ranked.index}
    monkeypatch.setattr(ranking, "RANK_SETS_MAX_MODELS", len(ranked) - 1)
    certainty = ranking.certainty_table(ranked.copy(), benchmark, results)  # a new table: not the cached one
    for scope in [ranking.OVERALL, *benchmark.categories]:
        assert certainty[scope, "set_low"].tolist() == [1] * len(ranked)
        assert certainty[scope, "set_high"].tolist() == [len(ranked)] * len(ranked)
        assert (certainty[scope, "tier"] == 1).all() and (certainty[scope, "established_below"] == 0).all()
        assert (certainty[scope, "largest_unseparated"] == len(ranked)).all()


def count_orders(above: np.ndarray) -> int:
    """The total orders keeping every pair of `above`, by trying every permutation."""
    k = len(above)
    return sum(all(not above[later, earlier] for i, earlier in enumerate(order) for later in order[i + 1:])
               for order in itertools.permutations(range(k)))


def test_top_k_bits_count_the_orders_the_established_pairs_allow():
    """`order_bits` against every permutation tried on random relations of up to 7 models,
    and the closed forms: a chain 0 bits, nothing established log2 k!, two separate chains
    of a and b log2 C(a + b, a)."""
    rng = np.random.default_rng(4)
    for _ in range(40):
        k = int(rng.integers(1, 8))
        point = rng.normal(size=k)
        above = (point[:, None] > point[None, :]) & (rng.random((k, k)) < rng.uniform(0, 1))
        assert rank_sets.order_bits(above) == pytest.approx(np.log2(count_orders(above)))
    chain = np.triu(np.ones((10, 10), dtype=bool), k=1)
    assert rank_sets.order_bits(chain) == 0.0
    assert rank_sets.order_bits(np.zeros((10, 10), dtype=bool)) == pytest.approx(np.log2(math.factorial(10)))
    two = np.zeros((7, 7), dtype=bool)
    two[:3, :3], two[3:, 3:] = np.triu(np.ones((3, 3), dtype=bool), k=1), np.triu(np.ones((4, 4), dtype=bool), k=1)
    assert rank_sets.order_bits(two) == pytest.approx(np.log2(math.comb(7, 3)))


def test_discordance_from_the_counts_of_right_answers_against_a_loop_over_pairs():
    rng = np.random.default_rng(6)
    for _ in range(20):
        values = (rng.random((int(rng.integers(2, 12)), int(rng.integers(1, 30)))) < rng.random()).astype(float)
        pairs = itertools.combinations(range(len(values)), 2)
        assert binary_discordance(values.sum(axis=0), len(values)) == pytest.approx(
            np.mean([np.abs(values[a] - values[b]).sum() for a, b in pairs]))


def test_rank_sets_without_tasks_say_so():
    """No task's replicates: a clear refusal, not numpy's "'NoneType' object is not subscriptable"."""
    with pytest.raises(ValueError, match="at least one task"):
        rank_sets.field_rank_sets(lambda: [], np.zeros((3, 0)), np.zeros(0, dtype=int), np.ones(3), np.arange(3),
                                  np.full((3, 1), 0.5))


def test_field_rank_sets_leave_out_a_model_without_a_displayed_score():
    """A model whose displayed score is missing is left out once (the s11 merge masked the
    field scores' draws twice: an IndexError whenever one was missing)."""
    rng = np.random.default_rng(3)
    skill = np.linspace(0, 1, 6)[:, None] * np.ones((1, 2))
    scores, replicates = field_coverage.observe(rng, skill, 40, 100)
    category = np.zeros(skill.shape[1], dtype=int)
    n = len(skill)
    displayed = field.category_means(field.field_shares(scores.T, np.ones(n)).T, category)
    displayed[2] = np.nan
    sets = rank_sets.field_rank_sets(lambda: replicates, scores, category, np.ones(n), np.arange(n), displayed, 40)
    assert len(sets[0].low) == n - 1
