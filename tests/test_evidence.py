"""Evidence statistics against hand-computed and simulated truth: Benjamini-Hochberg, the
sign test, and the intervals through the board (their coverage: test_coverage.py)."""
from __future__ import annotations

from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest

from scipy.stats import binom, binomtest, ttest_rel

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
    result = sign_test(np.array([0.5, 1.0, 2.0, -1.0, 0.0]))
    assert (result.ahead, result.behind) == (3, 1)
    assert result.p_a_ahead == pytest.approx(5 / 16)  # P(X >= 3), X ~ Binomial(4, 1/2)
    assert result.p_b_ahead == pytest.approx(15 / 16)  # P(X <= 3)
    assert result.p_two_sided == pytest.approx(10 / 16)  # 2 x the smaller one-sided p
    none = sign_test(np.zeros(3))
    assert (none.ahead, none.behind, none.p_a_ahead, none.p_b_ahead, none.p_two_sided) == (0, 0, 1.0, 1.0, 1.0)


def test_sign_test_matches_scipy_binomtest_in_both_directions():
    """Every p-value against scipy.stats.binomtest, one suite at a time; the function takes
    many suites at once: deltas (P, T)."""
    rng = np.random.default_rng(31)
    deltas = rng.integers(-1, 2, size=(300, 20)) * rng.uniform(0.1, 2.0, size=(300, 20))  # ties included
    deltas[:100] += 0.6 * np.abs(deltas[:100])  # some suites lean to A, some to B
    deltas[100:200] -= 0.6 * np.abs(deltas[100:200])
    result = sign_test(deltas)
    for k, row in enumerate(deltas):
        ahead, behind = int((row > 0).sum()), int((row < 0).sum())
        assert (result.ahead[k], result.behind[k]) == (ahead, behind)
        if ahead + behind == 0:
            continue
        assert result.p_a_ahead[k] == pytest.approx(binomtest(ahead, ahead + behind, alternative="greater").pvalue)
        assert result.p_b_ahead[k] == pytest.approx(binomtest(ahead, ahead + behind, alternative="less").pvalue)
        assert result.p_two_sided[k] == pytest.approx(binomtest(ahead, ahead + behind).pvalue)


def test_sign_test_says_which_side_is_ahead_either_way():
    b_ahead = np.r_[-np.ones(10), 1.0, 0.0]  # B better on 10 tasks, A on 1
    assert sign_test(b_ahead).leader(0.05) == "B"
    assert sign_test(-b_ahead).leader(0.05) == "A"
    assert sign_test(np.r_[-np.ones(6), np.ones(5)]).leader(0.05) == ""


def test_sign_test_false_positive_rate_for_equal_models_is_at_most_alpha():
    """Equal models: each task's delta is symmetric around 0 (a third of them tied). The
    share of suites where the sign test names a leader equals the exact binomial rate
    of its two-sided rule (within 3 SE) and stays under alpha; testing each one-sided
    direction at alpha would name one about twice as often."""
    rng = np.random.default_rng(32)
    suites, tasks = 40_000, 12
    deltas = rng.integers(-1, 2, size=(suites, tasks)).astype(float)
    result = sign_test(deltas)
    named = result.leader(0.05) != ""
    n = (deltas != 0).sum(axis=1)  # tasks that are not tied
    # by hand: P(binomtest's two-sided p <= alpha) under Binomial(m, 1/2), weighted by how often m occurs
    exact = sum(np.mean(n == m) * sum(binom.pmf(x, m, 0.5) for x in range(m + 1) if binomtest(x, m).pvalue <= 0.05)
                for m in range(1, tasks + 1))
    rate, se = named.mean(), np.sqrt(exact * (1 - exact) / suites)
    assert abs(rate - exact) <= 3 * se, (rate, exact)
    assert rate <= 0.05
    either = np.mean((result.p_a_ahead <= 0.05) | (result.p_b_ahead <= 0.05))
    assert rate < either


# --- through the board: the p-value setting, head-to-head, the duel map, the snapshot ---------


from leaderboard.engine import ranking  # noqa: E402
from leaderboard.board.state import Leaderboard  # noqa: E402
from leaderboard.storage.snapshot import snapshot_table  # noqa: E402
from leaderboard.storage.local import LocalStore  # noqa: E402
from leaderboard.errors import BadInput  # noqa: E402
from leaderboard.views import compare, pair_chart, table as views  # noqa: E402
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
    assert list(ranked.index) == list(small_store.ranked().index)  # the scores are not the duels': the same order
    np.testing.assert_allclose(ranked.attrs["duel_wins"].loc[raw.model_ids, "overall"],
                               ranking.scores_from_win_scores(expected_won / raw._fought, raw.model_ids,
                                                              small_store.benchmark)["overall"])
    table = views.leaderboard_table(small_store, adjusted=True)
    assert list(table.index) == list(ranked.index)
    np.testing.assert_allclose(table["Overall score %"], (ranked["overall"] * 100).round(2))
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
    np.testing.assert_allclose(result.tasks["p one-sided (A better)"], ab.p_value[0])
    np.testing.assert_allclose(result.tasks["p one-sided (B better)"], ba.p_value[0])
    expected = np.select([ab.significant[0], ba.significant[0]], [compare.A_WINS, compare.B_WINS], compare.NOT_SEPARABLE)
    assert result.tasks["Verdict"].tolist() == expected.tolist()
    acc = result.tasks.set_index("task_id").loc["t_acc"]
    assert acc["A"] == pytest.approx(small_store.models[a].results.aggregates["t_acc"] * 100)  # in percent
    assert acc["A − B"] == pytest.approx(acc["A"] - acc["B"]) and acc["Δ unit"] == "pp"
    ppl = result.tasks.set_index("task_id").loc["t_ppl"]
    assert ppl["Unit"] == "perplexity" and ppl["A − B"] == pytest.approx(ppl["A"] - ppl["B"])
    record = result.record.set_index("Category")
    assert record.loc["Total", "Total"] == 5 and record.loc["Total", compare.A_WINS] == (expected == compare.A_WINS).sum()
    ahead, behind = (result.tasks["Better"] == "A").sum(), (result.tasks["Better"] == "B").sum()
    assert (result.sign.ahead, result.sign.behind) == (ahead, behind)
    assert result.sign.p_two_sided == pytest.approx(binomtest(ahead, ahead + behind).pvalue)
    language = compare.head_to_head(small_store, a, b, "Language")
    assert language.tasks["Task"].tolist() == ["AUC", "PPL"] and "Language tasks" in compare.head_to_head_summary(language)
    with pytest.raises(BadInput, match="two different"):
        compare.head_to_head(small_store, a, a)
    with pytest.raises(BadInput, match="no published model"):
        compare.head_to_head(small_store, a, "nobody")
    with pytest.raises(ValueError, match="unknown category"):
        compare.head_to_head(small_store, a, b, "Nope")


def test_head_to_head_delta_is_a_minus_b_in_the_tasks_unit_with_the_better_side_named(small_store):
    """The issue's case: A's perplexity 16.62 against B's 27.99 is A − B = −11.37
    perplexity, lower is better, so A is better (never "+11.37" under "A − B")."""
    top = list(small_store.ranked().index[:2])
    ppl = {m: small_store.models[m].results.aggregates["t_ppl"] for m in top}
    a, b = sorted(top, key=ppl.get)  # A has the lower (better) perplexity
    result = compare.head_to_head(small_store, a, b)
    tasks = result.tasks.set_index("task_id")
    for task in small_store.benchmark.tasks:
        metric, row = task.metric, tasks.loc[task.id]
        scale = 100.0 if metric.percent else 1.0
        value_a, value_b = (small_store.models[m].results.aggregates[task.id] * scale for m in (a, b))
        assert row["A − B"] == pytest.approx(value_a - value_b)
        assert row["Better when"] == ("higher" if metric.higher_is_better else "lower")
        assert row["Better"] == ("equal" if value_a == value_b else
                                 "A" if (value_a > value_b) == metric.higher_is_better else "B")
        assert row["A better by"] == pytest.approx(value_a - value_b if metric.higher_is_better else value_b - value_a)
    assert tasks.loc["t_ppl", "A − B"] < 0 and tasks.loc["t_ppl", "Better"] == "A"
    shown = compare.head_to_head_display(result).data.set_index("Task")
    # the screen shows the Details tab's Δ: A better by, so A's lower perplexity is positive
    assert shown.loc["PPL", compare.DELTA] == f"+{tasks.loc['t_ppl', 'A better by']:.2f} perplexity"
    assert shown.loc["PPL", "Better"] == "A (lower)"
    assert shown.loc["ACC", compare.DELTA].endswith(" pp")


def chart_panels(chart: str) -> list[tuple[str, list[dict]]]:
    """The head-to-head chart's panels: (the axis' title, its bars: task, title, style)."""
    chart = ElementTree.fromstring(chart)
    return [("".join(panel.find("figcaption").itertext()),
             [{"task": row.find("span").text, "title": row.get("title"),
               "bar": row.find(".//span[@class='pair-bar']")} for row in panel.iter("div") if row.get("class") == "pair-row"])
            for panel in chart.iter("figure")]


def test_head_to_head_chart_puts_one_unit_on_each_axis(small_store):
    """Percentage points, perplexity and judge points never share an axis: each unit gets
    its own panel, whose axis title names the unit and which side is A better; drawn as
    the page's own elements (issue 35: Plotly's 4.6 MB bundle took 2-4 s of the page's
    main thread before the tab could show its chart)."""
    a, b = small_store.ranked().index[:2]
    result = compare.head_to_head(small_store, a, b)
    panels = chart_panels(pair_chart.head_to_head_chart(result))
    units = result.tasks.set_index("Task")["Δ unit"]
    assert len(panels) == units.nunique() == 2  # pp and perplexity
    assert sum(len(bars) for _, bars in panels) == len(result.tasks)
    for title, bars in panels:
        (unit,) = {units[bar["task"]] for bar in bars}
        assert unit in title and "A better" in title, title
    assert "B − A" in next(title for title, _ in panels if "perplexity" in title)


def test_head_to_head_chart_draws_right_of_zero_when_a_is_better(small_store):
    """Each bar starts at the panel's zero (its middle) and goes right when A is better,
    its length proportional to the difference, the longest of a panel reaching its edge."""
    a, b = small_store.ranked().index[:2]
    result = compare.head_to_head(small_store, a, b)
    better_by = result.tasks.set_index("Task")["A better by"]
    for _, bars in chart_panels(pair_chart.head_to_head_chart(result)):
        widest = max(abs(better_by[bar["task"]]) for bar in bars)
        for bar in bars:
            style = dict(part.split(":") for part in bar["bar"].get("style").rstrip(";").split(";"))
            left, width = float(style["left"].rstrip("%")), float(style["width"].rstrip("%"))
            value = better_by[bar["task"]]
            assert width == pytest.approx(50 * abs(value) / widest, abs=0.06)
            assert left == pytest.approx(50 if value >= 0 else 50 - width, abs=0.06)


def test_head_to_head_gives_a_two_sided_p_per_task(small_store):
    """p two-sided = 2 x the smaller one-sided p, capped at 1: for the t-tested tasks this
    is scipy's two-sided paired t-test."""
    a, b = small_store.ranked().index[:2]
    tasks = compare.head_to_head(small_store, a, b).tasks.set_index("task_id")
    np.testing.assert_allclose(tasks["p two-sided"], np.minimum(1, 2 * np.minimum(
        tasks["p one-sided (A better)"], tasks["p one-sided (B better)"])))
    for task_id in ("t_acc", "t_em"):
        x, y = (small_store.models[m].results.summaries[task_id] for m in (a, b))
        assert tasks.loc[task_id, "p two-sided"] == pytest.approx(ttest_rel(x, y).pvalue)


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
    assert (adjusted.tasks["p one-sided (A better)"] >= fresh.tasks["p one-sided (A better)"] - 1e-12).all()


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
        assert row["p one-sided (model better)"] == ab.p_value[0, k] and row["Δ"] == pytest.approx(ab.delta[0, k] * 100)
    overall = compare.duel_map(small_store).cells
    assert overall["model_id"].iloc[::len(order)].tolist() == order
    mine = overall[(overall["Won"] + overall["Lost"] + overall["Not separable"]) > 0]
    assert ((mine["Won"] + mine["Lost"] + mine["Not separable"]) == 5).all()
    fig = compare.duel_map_figure(compare.duel_map(small_store, "Knowledge"))
    assert fig.data[0].z.shape == (len(order), len(order))
    assert [t.name for t in fig.data[1:]] == ["won", "lost", "not separable", "not dueled"]
    panels = chart_panels(pair_chart.head_to_head_chart(compare.head_to_head(small_store, *order[:2])))
    assert sum(len(bars) for _, bars in panels) == 5
