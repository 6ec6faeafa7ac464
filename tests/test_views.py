"""The table and plot builders of the web app: pandas and plotly objects, escaping, exports."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from leaderboard import views
from leaderboard.store import dump_json

HOSTILE = "<img src=x onerror=alert(1)> [x](javascript:alert(2)) =cmd|' /C calc'!A0"


def test_overall_table_is_ranked_with_metadata_and_category_columns(small_store):
    table = views.leaderboard_table(small_store)
    cats = list(small_store.benchmark.categories)
    assert list(table.columns) == ["Rank", "Model", "Type", "Parameters (B)", "Precision", "Input length",
                                   "Description", "Submitted", "Link", "Overall", *cats]
    ranked = small_store.ranked()
    assert list(table.index) == list(ranked.index)
    assert table["Overall"].is_monotonic_decreasing
    np.testing.assert_allclose(table["Overall"], (ranked["overall"] * 100).round(2))
    np.testing.assert_allclose(table[cats[0]], (ranked[cats[0]] * 100).round(2))
    assert table["Model"].tolist() == [small_store.models[s].title for s in ranked.index]
    assert table["Submitted"].str.match(r"\d{4}-\d\d-\d\d").all()


def test_category_table_has_its_tasks_and_metric_values_in_their_units(small_store):
    table = views.leaderboard_table(small_store, "Language", views.METRIC_VALUE)
    assert list(table.columns[-3:]) == ["Language", "AUC", "PPL"]
    sid = table.index[0]
    aggregates = small_store.models[sid].results.aggregates
    assert table.loc[sid, "AUC"] == round(aggregates["t_auc"] * 100, 2)  # AUROC in percent
    assert table.loc[sid, "PPL"] == round(aggregates["t_ppl"], 2)  # perplexity as is
    assert table.loc[sid, "Language"] == round(small_store.ranked().loc[sid, "Language"] * 100, 2)
    win = views.leaderboard_table(small_store, "Language")
    assert win.loc[sid, "PPL"] == round(small_store.ranked().loc[sid, "t_ppl"] * 100, 2)


def test_filters_keep_the_full_board_ranks(small_store):
    table = views.leaderboard_table(small_store)
    team = table["Model"].iloc[2].split("/")[0]
    found = views.filter_table(table, team.upper())
    assert len(found) >= 1 and found["Model"].str.startswith(team).all()
    assert found["Rank"].tolist() == table.loc[found.index, "Rank"].tolist()
    assert views.filter_table(table, "no such model").empty
    kind = table["Type"].iloc[0]
    assert (views.filter_table(table, model_types=[kind])["Type"] == kind).all()
    low, high = table["Parameters (B)"].min(), table["Parameters (B)"].max()
    assert len(views.filter_table(table, min_params=0, max_params=0)) == len(table)  # 0 = no upper limit
    assert views.filter_table(table, min_params=low, max_params=low)["Parameters (B)"].eq(low).all()
    assert (views.filter_table(table, min_params=high)["Parameters (B)"] == high).all()


def test_user_strings_are_escaped_in_cells_links_plots_and_csv(small_store, tmp_path):
    table = views.leaderboard_table(small_store)
    sid = table.index[0]
    table.loc[sid, "Model"] = HOSTILE
    table.loc[sid, "Link"] = "javascript:alert(3)"
    shown = views.with_model_links(table)
    cell = shown.loc[sid, "Model"]
    assert "<img" not in cell and "](javascript" not in cell and "&lt;img" in cell
    assert "Link" not in shown.columns and "Description" not in shown.columns
    assert shown.loc[table.index[1], "Model"].startswith("[")  # an http link stays a link
    assert views.markdown_link("a", "https://x.org/a) [b](c") == "[a](https://x.org/a%29%20%5Bb%5D%28c)"
    fig = views.score_scatter(table, "Overall")
    assert "<img" not in fig.data[0].text[0]
    path = views.export_table(table, "csv")
    exported = pd.read_csv(path)
    assert exported.loc[0, "Model"] == HOSTILE  # not a formula: it starts with "<"
    table.loc[sid, "Model"] = "=HYPERLINK(1)"
    assert pd.read_csv(views.export_table(table, "csv")).loc[0, "Model"] == "'=HYPERLINK(1)"


def test_json_export_round_trips_the_view(small_store):
    table = views.filter_table(views.leaderboard_table(small_store, "Knowledge"), min_params=1)
    records = json.loads(open(views.export_table(table, "json"), encoding="utf-8").read())
    assert [r["Model"] for r in records] == table["Model"].tolist()
    assert [r["Knowledge"] for r in records] == table["Knowledge"].tolist()


def test_scatter_plots_score_against_log_parameters(small_store):
    table = views.leaderboard_table(small_store, "Knowledge")
    fig = views.score_scatter(table, "Knowledge")
    assert isinstance(fig, go.Figure) and fig.layout.xaxis.type == "log"
    assert list(fig.data[0].x) == table["Parameters (B)"].tolist()
    assert list(fig.data[0].y) == table["Knowledge"].tolist()
    assert list(fig.data[0].text) == table["Model"].tolist()


def test_category_bars_show_each_category_win_score(small_store):
    sid = small_store.ranked().index[0]
    fig = views.category_bars(small_store, sid)
    bar = fig.data[0]
    assert list(bar.y) == list(small_store.benchmark.categories)
    np.testing.assert_allclose(bar.x, [small_store.ranked().loc[sid, c] * 100 for c in bar.y])
    assert tuple(fig.layout.xaxis.range) == (0, 100)


def test_duel_table_has_every_duel_with_its_verdict_p_value_and_delta(small_store):
    tour = small_store.tournament
    sid = small_store.ranked().index[1]
    duels = views.duel_table(small_store, sid)
    assert len(duels) == (len(small_store.models) - 1) * len(small_store.benchmark.tasks)
    a = tour.index(sid)
    for row in duels.itertuples():
        t, b = tour.task_ids.index(row.task_id), tour.index(row.competitor_id)
        expected = (views.WON if tour.significant[t, a, b] else
                    views.LOST if tour.significant[t, b, a] else views.NOT_SIGNIFICANT)
        assert row.Result == expected
        assert row.p_value == tour.p_value[t, a, b] and row.delta == tour.delta[t, a, b]
    assert set(duels["Result"]) >= {views.WON, views.LOST}
    only = views.duel_table(small_store, sid, "Summaries")
    assert set(only["Task"]) == {"RG"}

    grid = views.duel_grid(duels)
    frame = grid.data
    assert list(frame.columns) == ["Competitor", "ACC", "EM", "AUC", "PPL", "RG"]
    assert len(frame) == len(small_store.models) - 1
    won = duels[duels["Result"] == views.WON].iloc[0]
    cell = frame.set_index("Competitor").loc[won["Competitor"], won["Task"]]
    assert cell.startswith("won · p=") and "Δ=" in cell
    styles = grid._compute().ctx  # the cell colours
    assert ("background-color", "#c8e6c9") in [s for v in styles.values() for s in v]


def test_preview_table_marks_the_new_model_and_rank_changes(small_store, small_documents):
    form, document, _ = small_documents[6]
    preview = small_store.presubmit(dump_json(document), form)
    table = views.preview_table(small_store, preview)
    assert len(table) == len(small_store.models) + 1
    assert table.loc[preview.submission_id, "Change"] == "new"
    assert table.loc[preview.submission_id, "Model"].startswith("★ ")
    for sid in small_store.models:
        change = int(preview.table.loc[sid, "rank_change"])
        assert table.loc[sid, "Change"] == ("" if change == 0 else f"▲{change}" if change > 0 else f"▼{-change}")
    style = views.emphasised(table, "Overall", preview.submission_id)._compute().ctx
    shaded = {row for (row, _), props in style.items() if ("background-color", "#fff3c4") in props}
    assert shaded == {list(table.index).index(preview.submission_id)}


def test_legend_and_header_titles_name_every_task(small_store):
    legend = views.category_legend(small_store, "Knowledge")
    assert "Accuracy task" in legend and "(https://example.com/em)" in legend
    assert views.category_legend(small_store, "Overall") == ""
    assert views.header_titles(small_store)["PPL"] == "Perplexity task (word_perplexity)"
