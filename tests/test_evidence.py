"""Evidence statistics against hand-computed truth: Benjamini-Hochberg, the sign test, and
the intervals through the board (their coverage: test_coverage.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stats.evidence import bh_adjusted, sign_test

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


def test_sign_test_counts_tasks_and_matches_the_binomial():
    ahead, behind, p = sign_test(np.array([0.5, 1.0, 2.0, -1.0, 0.0]))
    assert (ahead, behind) == (3, 1)
    assert p == pytest.approx(5 / 16)  # P(X >= 3), X ~ Binomial(4, 1/2)
    assert sign_test(np.zeros(3)) == (0, 0, 1.0)


# --- through the board: the p-value setting, head-to-head, the duel map, the snapshot ---------


from leaderboard.engine import ranking  # noqa: E402
from leaderboard.board import Leaderboard  # noqa: E402
from leaderboard.storage.snapshot import snapshot_table  # noqa: E402
from leaderboard.storage.local import LocalStore  # noqa: E402
from leaderboard.errors import BadInput
from leaderboard.views import compare, table as views  # noqa: E402
from scipy.stats import false_discovery_control  # noqa: E402


def test_adjusted_setting_recomputes_verdicts_win_scores_and_ranks_per_model(small_store):
    raw, adjusted = small_store.duels(), small_store.duels(adjusted=True)
    rows, adjusted_rows = raw.rows(), adjusted.rows()
    expected_won = np.zeros((len(raw.model_ids), len(raw.task_ids)))
    for model in range(len(raw.model_ids)):  # by hand: one family per model, every task of its rows
        mine = rows.first == model
        p = false_discovery_control(rows.p_value[mine].ravel()).reshape(-1, len(raw.task_ids))
        np.testing.assert_allclose(adjusted_rows.p_value[adjusted_rows.first == model], p)
        expected_won[model] = (p <= 0.05).sum(axis=0)
    np.testing.assert_allclose(adjusted.win_scores(), expected_won / raw._fought)
    assert (adjusted_rows.significant <= rows.significant).all()  # adjusting never adds a win
    ranked = small_store.ranked(adjusted=True)
    np.testing.assert_allclose(ranked.loc[raw.model_ids, "overall"],
                               ranking.scores_from_win_scores(expected_won / raw._fought, raw.model_ids,
                                                              small_store.benchmark)["overall"])
    table = views.leaderboard_table(small_store, adjusted=True)
    assert list(table.index) == list(ranked.index)
    np.testing.assert_allclose(table["Overall win score %"], (ranked["overall"] * 100).round(2))
    assert small_store.ranked() is small_store.ranked(adjusted=False)  # the raw setting is the stored ranking


def test_adjusted_tournament_matches_a_hand_computed_example():
    from leaderboard.engine.tournament import DuelRows, Tournament
    p = np.array([[0.01, 0.04], [0.03, 0.2], [1.0, 1.0], [1.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
    rows = DuelRows([0, 0, 1, 2, 1, 2], [1, 2, 0, 0, 2, 1], np.ones((6, 2)), p <= 0.05, p, np.ones((6, 2)),
                    ["r"] * 6)
    raw = Tournament(["t1", "t2"], ["m0", "m1", "m2"], rows)
    adjusted = raw.bh_adjusted()
    # model 0's family: 0.01, 0.03, 0.04, 0.2 -> x 4 / rank = 0.04, 0.06, 0.0533, 0.2 -> running minimum from the top
    np.testing.assert_allclose(adjusted.pair("m0", "m1").p_value, [[0.04, 0.16 / 3]])
    np.testing.assert_allclose(adjusted.pair("m0", "m2").p_value, [[0.16 / 3, 0.2]])
    np.testing.assert_allclose(raw.win_scores()[0], [1.0, 0.5])  # raw: 0.01, 0.03 and 0.04 win
    np.testing.assert_allclose(adjusted.win_scores()[0], [0.5, 0.0])  # adjusted: only 0.01 does
    np.testing.assert_allclose(adjusted.win_scores()[1:], raw.win_scores()[1:])


def test_certainty_is_computed_on_the_whole_board_and_goes_into_the_snapshot(small_store):
    certainty = small_store.certainty()
    ranked = small_store.ranked()
    assert list(certainty.index) == list(ranked.index)
    overall = certainty[ranking.OVERALL]
    assert (overall["rank_low"] <= overall["rank_high"]).all() and (overall["score_low"] <= overall["score_high"]).all()
    assert overall["group"].iloc[0] == "A" and list(overall["group"]) == sorted(overall["group"])
    # the panel score counts every opponent a model is ahead of, the win score only significant wins
    assert (overall["score_high"] >= ranked["overall"]).all()
    table = views.leaderboard_table(small_store)
    shown = views.filter_table(table, table["Model"].iloc[-1])  # a filter keeps the groups of the full board
    assert shown["Tie group"].tolist() == table["Tie group"].iloc[-1:].tolist()
    snapshot = snapshot_table(small_store.models, ranked, small_store.benchmark, small_store.flags)
    assert snapshot["overall_group"].tolist() == overall["group"].tolist()
    assert snapshot["Language_rank_high"].tolist() == certainty["Language", "rank_high"].tolist()
    assert {"overall_score_low", "overall_score_high", "overall_rank_low", "Knowledge_group"} <= set(snapshot)


def test_head_to_head_reads_the_stored_duels(small_store):
    a, b = small_store.ranked().index[:2]
    result = compare.head_to_head(small_store, a, b)
    ab, ba = small_store.tournament.pair(a, b), small_store.tournament.pair(b, a)
    assert not result.on_demand and len(result.tasks) == 5
    np.testing.assert_allclose(result.tasks["p (A better)"], ab.p_value[0])
    np.testing.assert_allclose(result.tasks["p (B better)"], ba.p_value[0])
    expected = np.select([ab.significant[0], ba.significant[0]], [compare.A_WINS, compare.B_WINS], compare.NOT_SEPARABLE)
    assert result.tasks["Verdict"].tolist() == expected.tolist()
    acc = result.tasks.set_index("task_id").loc["t_acc"]
    assert acc["A"] == pytest.approx(small_store.models[a].results.aggregates["t_acc"] * 100)  # in percent
    assert acc["Δ"] == pytest.approx(acc["A"] - acc["B"]) and acc["Δ unit"] == "pp"
    ppl = result.tasks.set_index("task_id").loc["t_ppl"]
    assert ppl["Unit"] == "perplexity" and ppl["Δ"] == pytest.approx(ppl["B"] - ppl["A"])  # positive: A lower
    record = result.record.set_index("Category")
    assert record.loc["Total", "Total"] == 5 and record.loc["Total", compare.A_WINS] == (expected == compare.A_WINS).sum()
    ahead, behind = (result.tasks["Δ"] > 0).sum(), (result.tasks["Δ"] < 0).sum()
    assert (result.ahead, result.behind) == (ahead, behind)
    assert result.sign_p == pytest.approx(sign_test(result.tasks["Δ"].to_numpy())[2])
    language = compare.head_to_head(small_store, a, b, "Language")
    assert language.tasks["Task"].tolist() == ["AUC", "PPL"] and "Language tasks" in compare.head_to_head_summary(language)
    with pytest.raises(BadInput, match="two different"):
        compare.head_to_head(small_store, a, a)
    with pytest.raises(BadInput, match="no published model"):
        compare.head_to_head(small_store, a, "nobody")
    with pytest.raises(ValueError, match="unknown category"):
        compare.head_to_head(small_store, a, b, "Nope")


def test_a_pair_that_never_met_is_dueled_on_demand_with_the_stored_duels_results(small_store):
    a, b = small_store.ranked().index[:2]
    stored = compare.head_to_head(small_store, a, b)
    newer = max(a, b, key=lambda s: small_store.models[s].submitted)  # its file holds the pair's duels
    (small_store.store.root / "duels" / f"{newer}.parquet").unlink()
    board = Leaderboard(LocalStore(small_store.store.root), small_store.benchmark)
    assert not board.tournament.has_dueled(a, b)
    fresh = compare.head_to_head(board, a, b)
    assert fresh.on_demand and "never dueled" in compare.head_to_head_summary(fresh)
    pd.testing.assert_frame_equal(fresh.tasks, stored.tasks)  # seeded: the very same duels
    assert not board.tournament.has_dueled(a, b)  # nothing stored
    adjusted = compare.head_to_head(board, a, b, adjusted=True)
    assert (adjusted.tasks["p (A better)"] >= fresh.tasks["p (A better)"] - 1e-12).all()


def test_duel_map_codes_every_pair_in_rank_order(small_store):
    order = list(small_store.ranked().index)
    task = compare.duel_map(small_store, "t_acc")
    cells = task.cells
    assert len(cells) == len(order) ** 2
    acc_order = list(views.scope_order(small_store.ranked(), "t_acc").index)
    assert task.model_ids == acc_order and cells["model_id"].iloc[::len(order)].tolist() == acc_order
    for row in cells.sample(12, random_state=0).to_dict("records"):
        a, b = row["model_id"], row["opponent_id"]
        if a == b:
            assert row["Verdict"] == ""
            continue
        ab, ba = small_store.tournament.pair(a, b), small_store.tournament.pair(b, a)
        k = small_store.benchmark.task_ids.index("t_acc")
        expected = "won" if ab.significant[0, k] else "lost" if ba.significant[0, k] else "not separable"
        assert row["Verdict"] == expected
        assert row["p (model better)"] == ab.p_value[0, k] and row["Δ"] == pytest.approx(ab.delta[0, k] * 100)
    overall = compare.duel_map(small_store).cells
    assert overall["model_id"].iloc[::len(order)].tolist() == order
    mine = overall[(overall["Won"] + overall["Lost"] + overall["Not separable"]) > 0]
    assert ((mine["Won"] + mine["Lost"] + mine["Not separable"]) == 5).all()
    fig = compare.duel_map_figure(compare.duel_map(small_store, "Knowledge"))
    assert fig.data[0].z.shape == (len(order), len(order))
    assert [t.name for t in fig.data[1:]] == ["won", "lost", "not separable", "not dueled"]
    bars = compare.head_to_head_figure(compare.head_to_head(small_store, *order[:2]))
    assert sum(len(t.x) for t in bars.data) == 5
