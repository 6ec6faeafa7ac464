"""The table and plot builders of the web app: pandas and plotly objects, escaping, exports."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest
import plotly.graph_objects as go

from leaderboard.app.column_widths import column_widths
from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.config.tasks import TOP_OF_ITS_DAY
from leaderboard.storage.local import LocalStore
from leaderboard.submission.demo import sample_document
from leaderboard.engine.ranking import competition_rank
from leaderboard.strict_json import dump_json
from leaderboard.storage.flags import MARKER
from leaderboard.views import board_html, details, pair_chart, share, submission, table as views
from leaderboard.views.markdown import escape_markdown

HOSTILE = "<img src=x onerror=alert(1)> [x](javascript:alert(2)) =cmd|' /C calc'!A0"


def chart_titles(chart: str) -> str:
    """What the head-to-head chart's bars say on hover (their titles), one after another."""
    return " ".join(element.get("title") for element in ElementTree.fromstring(chart).iter() if element.get("title"))


def test_overall_table_is_ranked_with_metadata_and_category_columns(small_store):
    table = views.leaderboard_table(small_store)
    cats = list(small_store.benchmark.categories)
    assert list(table.columns) == ["Rank", "Model", "Overall score %", "Overall score % 95% low",
                                   "Overall score % 95% high", "Rank 95% low", "Rank 95% high", "Tie group",
                                   "Overall duel wins %", *[f"{c} score %" for c in cats],
                                   "Type", "Parameters (B)", "Precision", "Input length (tokens)",
                                   "Description", "Submitted", "Link", views.PRESUBMISSIONS, *views.FLAG_COLUMNS]
    ranked = small_store.ranked()
    assert list(table.index) == list(ranked.index)
    assert table["Overall score %"].is_monotonic_decreasing
    np.testing.assert_allclose(table["Overall score %"], (ranked["overall"] * 100).round(2))
    np.testing.assert_allclose(table[f"{cats[0]} score %"], (ranked[cats[0]] * 100).round(2))
    assert table["Model"].tolist() == [small_store.models[s].title for s in ranked.index]
    assert table["Submitted"].str.match(r"\d{4}-\d\d-\d\d").all()


def test_category_table_has_its_tasks_and_metric_values_in_their_units(small_store):
    table = views.leaderboard_table(small_store, "Language", views.METRIC_VALUE)
    assert list(table.columns[:11]) == ["Language rank", "Model", "Language score %", "Language score % 95% low",
                                        "Language score % 95% high", "Language rank 95% low",
                                        "Language rank 95% high", "Language tie group",
                                        "Overall rank", "AUC AUROC % ↑", "PPL perplexity ↓"]
    sid = table.index[0]
    aggregates = small_store.models[sid].results.aggregates
    assert table.loc[sid, "AUC AUROC % ↑"] == round(aggregates["t_auc"] * 100, 2)  # AUROC in percent
    assert table.loc[sid, "PPL perplexity ↓"] == round(aggregates["t_ppl"], 2)  # perplexity as is
    assert table.loc[sid, "Language score %"] == round(small_store.ranked().loc[sid, "Language"] * 100, 2)
    win = views.leaderboard_table(small_store, "Language")
    assert win.loc[sid, "PPL score %"] == round(small_store.ranked().loc[sid, "t_ppl"] * 100, 2)


def test_category_view_is_ranked_by_the_category_with_shared_ranks(small_store):
    ranked = small_store.ranked()
    table = views.leaderboard_table(small_store, "Knowledge")
    assert table["Knowledge score %"].is_monotonic_decreasing
    assert table["Knowledge rank"].tolist() == competition_rank(ranked.loc[table.index, "Knowledge"]).tolist()
    assert table["Overall rank"].tolist() == ranked.loc[table.index, "rank"].tolist()
    assert table["Knowledge rank"].iloc[0] == 1
    # equal category scores share a rank and keep the overall order
    ties = table[table.duplicated("Knowledge score %", keep=False)]
    for _, group in ties.groupby("Knowledge score %"):
        assert group["Knowledge rank"].nunique() == 1 and group["Overall rank"].is_monotonic_increasing


def test_sort_control_orders_by_any_score_column_best_first(small_store):
    columns = views.score_columns(small_store, "Language", views.METRIC_VALUE)
    table = views.leaderboard_table(small_store, "Language", views.METRIC_VALUE)
    assert [key for _, key in views.sort_choices(columns)] == ["rank", "Language", "t_auc", "t_ppl", "parameters"]
    assert views.sort_table(table, columns, "t_ppl")["PPL perplexity ↓"].is_monotonic_increasing  # lower is better
    assert views.sort_table(table, columns, "t_auc")["AUC AUROC % ↑"].is_monotonic_decreasing
    assert views.sort_table(table, columns, "parameters")["Parameters (B)"].is_monotonic_decreasing
    assert views.sort_table(table, columns, "rank").index.equals(table.index)


def test_a_column_is_as_wide_as_its_header_on_two_lines_plus_a_sort_menu_only_where_headers_have_one():
    """A Dataframe's header holds a 16 px menu button beside its text; the Leaderboard tab's
    HTML table has none. "Czech Language Understanding" on two lines ("Czech Language" /
    "Understanding"): 14 letters of 8.6 px and 20 px of padding, 141 px (the Model column: 170 px)."""
    display = pd.DataFrame({"Model": ["a long model name"], "Czech Language Understanding": ["71.20"]})
    assert column_widths(display) == ["170px", "157px"]
    assert column_widths(display, sort_menus=False) == ["170px", "141px"]


def test_the_boards_table_is_escaped_html_with_titles_widths_links_and_the_score_in_bold(small_store):
    """Issue 35: the Leaderboard's table as the page's own HTML keeps what the Dataframe showed."""
    table = views.leaderboard_table(small_store)
    named, flagged, unpublished = table.index[:3]
    hostile = HOSTILE + ' "quoted" <script>alert(1)</script> ${x} {{x}}'
    table.loc[named, "Model"] = hostile
    table.loc[flagged, ["Flagged", "Flag reason"]] = True, '<b onclick="x">"too good"</b>'
    table.loc[named, "Overall duel wins %"] = np.nan  # shown as "–"
    table.loc[named, "Type"] = None  # shown empty
    published = {sid: m for sid, m in small_store.models.items() if sid != unpublished}
    display = views.with_model_links(table, published, views.DEFAULT_META, as_html=True)
    widths = [f"{60 + i}px" for i in range(len(display.columns))]
    titles = views.header_titles(small_store)
    shown = board_html.board_table(display, "Overall score %", widths, titles, "Ranking <i>")
    assert "<script>" not in shown and "<b " not in shown and "<img" not in shown
    root = ElementTree.fromstring(f"<div>{shown}</div>")  # well-formed: no name got out of its text or attribute
    assert root.find("div[@class='board-label']").text == "Ranking <i>"
    grid = root.find(".//table")
    assert grid.get("style") == f"--rank-width:{widths[0]}"  # where the pinned Model column starts
    assert [c.get("style") for c in grid.findall("colgroup/col")] == [f"width:{w}" for w in widths]
    headers = grid.findall("thead/tr/th")
    assert [h.find("span[@class='header']").text for h in headers] == list(display.columns)
    assert all(h.get("class") == "header-cell" and h.get("title") == titles[name]  # page.js's help box reads them
               for h, name in zip(headers, display.columns))
    rows = grid.findall("tbody/tr")
    assert len(rows) == len(table)
    score = list(display.columns).index("Overall score %")
    assert all([td.get("class") for td in row] == [None] * score + ["score"] + [None] * (len(row) - score - 1)
               for row in rows)  # a class on the score column's cells: one rule makes them bold
    link = rows[0][1].find("a")
    assert link.text == link.get("title") == hostile and link.get("href") == f"?tab=details&model={named}"
    marked = rows[1][1]  # a flagged model: the marker, its reason on hover
    assert marked.text == f"{MARKER} " and marked.find("a").get("title") == 'Flagged: <b onclick="x">"too good"</b>'
    assert rows[2][1].text == table.loc[unpublished, "Model"] and not list(rows[2][1])  # no details to link to
    # Every other cell as the Dataframe's Styler (table.emphasised) showed it: two decimals, "–"
    # for a missing number, sizes as parameters_text; a missing text empty.
    styled = views.emphasised(views.with_model_links(table, published, views.DEFAULT_META), "Overall score %")
    expected = [[str(cell["display_value"]) for cell in row[1:]] for row in styled._translate(False, False)["body"]]
    cells = [[td.text or "" for td in row] for row in rows]
    type_column = list(display.columns).index("Type")
    assert cells[0][type_column] == "" and cells[0][list(display.columns).index("Overall duel wins %")] == "–"
    expected[0][type_column] = ""
    assert [row[:1] + row[2:] for row in cells] == [row[:1] + row[2:] for row in expected]


def test_filter_note_explains_an_empty_view(small_store):
    table = views.leaderboard_table(small_store)
    empty = views.filter_table(table, "no such model")
    assert "No model matches" in views.filter_note(empty, len(table), "no such model")
    shown = views.with_model_links(empty, small_store.models)  # the screen's table, with no rows
    assert len(shown) == 0 and "Rank 95%" in shown.columns
    assert "above the maximum" in views.filter_note(views.filter_table(table, min_params=70, max_params=7),
                                                    len(table), min_params=70, max_params=7)
    assert views.filter_note(table, len(table)) == ""


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
    assert len(views.filter_table(table, min_params=None, max_params=None)) == len(table)  # unset: no limit
    assert views.filter_table(table, min_params=low, max_params=low)["Parameters (B)"].eq(low).all()
    assert (views.filter_table(table, min_params=high)["Parameters (B)"] == high).all()


def test_user_strings_are_escaped_in_cells_links_plots_and_csv(small_store, tmp_path):
    table = views.leaderboard_table(small_store)
    sid = table.index[0]
    table.loc[sid, "Model"] = HOSTILE
    table.loc[sid, "Link"] = "javascript:alert(3)"
    shown = views.with_model_links(table, small_store.models)
    cell = shown.loc[sid, "Model"]
    assert "<img" not in cell and "](javascript" not in cell and "&lt;img" in cell
    assert "Link" not in shown.columns and "Description" not in shown.columns
    second = table.index[1]  # to its details, its whole name on hover
    assert shown.loc[second, "Model"].endswith(
        f'](?tab=details&model={second} "{escape_markdown(table.loc[second, "Model"])}")'), shown.loc[second, "Model"]
    from leaderboard.views.markdown import markdown_link
    assert markdown_link("a", "https://x.org/a) [b](c") == "[a](https://x.org/a%29%20%5Bb%5D%28c)"
    assert escape_markdown("Team's \"best\"") == "Team's \"best\""  # no &#x27; entities
    fig = views.score_scatter(table, "Overall score %")
    assert "<img" not in fig.data[0].text[0]
    from leaderboard.views import compare
    pair = compare.head_to_head(small_store, sid, second)
    pair = dataclasses.replace(pair, title_a=HOSTILE, tasks=pair.tasks.assign(Task=HOSTILE))
    chart = ElementTree.fromstring(pair_chart.head_to_head_chart(pair))  # well-formed: nothing got out of its text
    assert not [e for e in chart.iter() if e.tag == "img"] and HOSTILE in "".join(chart.itertext())
    path = views.export_table(table, "csv")
    exported = pd.read_csv(path)
    assert exported.loc[0, "Model"] == HOSTILE  # not a formula: it starts with "<"
    table.loc[sid, "Model"] = "=HYPERLINK(1)"
    assert pd.read_csv(views.export_table(table, "csv")).loc[0, "Model"] == "'=HYPERLINK(1)"


def test_spreadsheet_safe_quotes_each_formula_cell_as_checking_cell_by_cell_does():
    texts = ["=1+1", "+cmd", "-2", "@SUM(A1)", "\tx", "\ry", "plain", "", "a=b", "=1+1", "plain"] * 3
    table = pd.DataFrame({"text": texts,
                          "mixed": [None, np.nan, 3, "-x", 2.5, "ok", True, "=y", None, "=y", 1] * 3,
                          "number": np.arange(33, dtype=float) - 5,
                          "count": pd.array([1, None, -3] * 11, dtype="Int64")})
    expected = pd.DataFrame({name: [("'" + v) if isinstance(v, str) and v[:1] in "=+-@\t\r" and v else v
                                    for v in column] for name, column in table.items()})
    safe = views.spreadsheet_safe(table)
    for name in table.columns:
        assert [repr(v) for v in safe[name]] == [repr(v) for v in expected[name]], name
    assert safe["number"].dtype == float and safe["count"].dtype == "Int64"
    assert table["text"][0] == "=1+1"  # the table itself unchanged
    assert views.spreadsheet_safe(pd.DataFrame({"text": pd.Series([], dtype=object)})).empty


def test_json_export_round_trips_the_view(small_store):
    table = views.filter_table(views.leaderboard_table(small_store, "Knowledge"), min_params=1)
    records = json.loads(open(views.export_table(table, "json"), encoding="utf-8").read())
    assert [r["Model"] for r in records] == table["Model"].tolist()
    assert [r["Knowledge score %"] for r in records] == table["Knowledge score %"].tolist()
    name = views.board_export_name(small_store, "Knowledge", views.METRIC_VALUE)
    assert re.fullmatch(r"mini_knowledge_metric-value_\d{4}-\d\d-\d\d", name)
    assert views.export_table(table, "csv", name).endswith(f"/{name}.csv")


def test_view_exports_are_made_once_per_table_and_view_and_again_when_a_file_is_gone(small_store, monkeypatch):
    full = views.leaderboard_table(small_store, "Knowledge")
    narrow = views.filter_table(full, min_params=1)
    made = []
    monkeypatch.setattr(views, "export_table", lambda table, fmt, name: made.append((len(table), fmt)) or
                        str(views.export_file(table.to_csv().encode(), f"{name}.{fmt}")))
    first = views.view_exports(full, narrow, "knowledge", ("", (), 1, None, "rank"))
    assert sorted(made) == [(len(narrow), "csv"), (len(narrow), "json")]
    assert views.view_exports(full, narrow, "knowledge", ("", (), 1, None, "rank")) == first and len(made) == 2
    views.view_exports(full, full, "knowledge", ("", (), None, None, "rank"))  # another view of the table
    views.view_exports(full.copy(), narrow, "knowledge", ("", (), 1, None, "rank"))  # another table (a new state)
    assert len(made) == 6
    Path(first["csv"]).unlink()  # pruned, or deleted with Gradio's cache
    assert views.view_exports(full, narrow, "knowledge", ("", (), 1, None, "rank")) == first and len(made) == 8
    assert Path(first["csv"]).exists()


def test_scatter_plots_score_against_log_parameters(small_store):
    table = views.leaderboard_table(small_store, "Knowledge")
    fig = views.score_scatter(table, "Knowledge score %")
    assert isinstance(fig, go.Figure) and fig.layout.xaxis.type == "log"
    assert list(fig.data[0].x) == table["Parameters (B)"].tolist()
    assert list(fig.data[0].y) == table["Knowledge score %"].tolist()
    assert list(fig.data[0].text) == table["Model"].tolist()
    assert views.log_ticks([0.5, 3, 70]) == [0.5, 1, 2, 5, 10, 20, 50, 100]  # 1-2-5, not 4 5 6 7 8 9 1 2 3
    assert list(fig.layout.xaxis.ticktext) == [f"{t:g}" for t in views.log_ticks(table["Parameters (B)"])]


def test_score_bars_show_each_category_or_each_task_of_the_category(small_store):
    sid = small_store.ranked().index[0]
    def bars(category=None):
        chart = details.score_bars(small_store, sid, category)
        labels = re.findall(r'class="bar-label">([^<]*)<', chart)
        widths = [float(w) for w in re.findall(r'style="width:([0-9.]+)%"', chart)]
        return chart, labels, widths
    chart, labels, widths = bars()
    assert labels == list(small_store.benchmark.categories) and "Score per category (%)" in chart
    np.testing.assert_allclose(widths, [small_store.ranked().loc[sid, c] * 100 for c in labels], atol=0.05)
    chart, labels, widths = bars("Language")
    assert labels == ["AUC", "PPL"] and "Language: score per task" in chart
    np.testing.assert_allclose(widths, [small_store.ranked().loc[sid, t] * 100 for t in ("t_auc", "t_ppl")], atol=0.05)
    card = details.model_card(small_store, sid, "Language")
    assert "Language: rank **" in card and "Rank **1** of 5" in card
    assert "overall score **" in card and "win score" not in card.lower()  # the field score, not duels won


def under_original_rule(board: Leaderboard) -> Leaderboard:
    """The same store opened under `"opponents": "top-of-its-day"` (BenCzechMark's Win Score)."""
    return Leaderboard(LocalStore(board.store.root), dataclasses.replace(board.benchmark, opponents=TOP_OF_ITS_DAY))


def test_card_and_bars_name_the_win_score_under_the_original_rule(small_store):
    """Under `"opponents": "top-of-its-day"` the board ranks by BenCzechMark's Win Score,
    and the details say so, as the table's headers do."""
    original = under_original_rule(small_store)
    sid = original.ranked().index[0]
    assert "Win score per category (%)" in details.score_bars(original, sid)
    assert "Language: win score per task" in details.score_bars(original, sid, "Language")
    card = details.model_card(original, sid, "Language")
    assert "overall win score **" in card and "· win score **" in card


def test_duel_table_has_every_duel_with_its_verdict_p_value_and_delta_in_the_task_unit(small_store):
    stored = small_store.tournament.to_json()  # {A: {B: {task: duel}}}
    sid = small_store.ranked().index[1]
    duels = details.duel_table(small_store, sid)
    assert len(duels) == (len(small_store.models) - 1) * len(small_store.benchmark.tasks)
    for row in duels.to_dict("records"):
        ours, theirs = stored[sid][row["competitor_id"]][row["task_id"]], stored[row["competitor_id"]][sid][row["task_id"]]
        expected = (details.WON if ours["significant"] else
                    details.LOST if theirs["significant"] else details.NOT_SIGNIFICANT)
        assert row["Result"] == expected
        assert row["p one-sided (this model better)"] == ours["p_value"]
        assert row["p one-sided (competitor better)"] == theirs["p_value"]
        percent = row["task_id"] != "t_ppl"
        assert row["Δ unit"] == ("pp" if percent else "perplexity")
        assert row["Δ"] == ours["delta"] * (100 if percent else 1)
    assert set(duels["Result"]) >= {details.WON, details.LOST}
    assert list(dict.fromkeys(duels["competitor_id"])) == [o for o in small_store.ranked().index if o != sid]
    only = details.duel_table(small_store, sid, "Summaries")
    assert set(only["Task"]) == {"RG"}

    grid = details.duel_grid(duels, "all tasks")  # not Overall: a cell per task of the given duels
    frame = grid.data
    assert list(frame.columns) == ["Competitor", "ACC", "EM", "AUC", "PPL", "RG"]
    ranks = small_store.ranked()["rank"]
    assert frame["Competitor"].tolist() == [f"{ranks[o]}. {small_store.models[o].title}"
                                            for o in small_store.ranked().index if o != sid]  # rank order
    won = duels[duels["Result"] == details.WON].iloc[0]
    cell = frame.set_index("Competitor").loc[f"{ranks[won['competitor_id']]}. {won['Competitor']}", won["Task"]]
    assert cell.startswith("won\nΔ +") and re.search(r"\np [=<] ", cell)
    assert cell.split("\n")[1].endswith("perplexity" if won["Task"] == "PPL" else "pp")
    styles = grid._compute().ctx  # the cell colours
    assert ("background-color", "#c8e6c9") in [s for v in styles.values() for s in v]

    overall = details.duel_grid(duels).data.set_index("Competitor")  # per category: counts of the duels
    assert list(overall.columns) == list(small_store.benchmark.categories)
    first = overall.index[0]
    mine = duels[duels["Competitor"] == first.split(". ", 1)[1]]
    language = mine[mine["Category"] == "Language"]["Result"].value_counts()
    assert overall.loc[first, "Language"] == (f"{language.get(details.WON, 0)} won · {language.get(details.LOST, 0)} lost"
                                              f"\n{language.get(details.NOT_SIGNIFICANT, 0)} n.s.")


def test_duel_grid_shows_the_best_competitors_and_says_how_many_of_how_many(small_store):
    sid = small_store.ranked().index[1]
    duels = details.model_duels(small_store, sid)
    every = details.duel_table(small_store, sid)
    opponents = [o for o in small_store.ranked().index if o != sid]  # rank order
    shown = details.duel_frame(small_store, duels, competitors=2)
    assert list(dict.fromkeys(shown["competitor_id"])) == opponents[:2]
    assert shown.equals(every[every["competitor_id"].isin(opponents[:2])])  # the same rows as in the CSV
    assert details.duel_frame(small_store, duels, competitors=len(opponents)).equals(every)
    assert details.grid_label(len(opponents), "Duels", " (all in the CSV)", limit=2) == (
        f"Duels: the best 2 of {len(opponents)} competitors (all in the CSV)")
    assert details.grid_label(len(opponents), "Duels", " (all in the CSV)", limit=len(opponents)) == "Duels"


def test_duel_summary_counts_won_lost_not_significant_per_category_and_task(small_store):
    """The summary, counted on the duel arrays, against pandas' crosstab of the CSV's rows."""
    sid = small_store.ranked().index[1]
    for category, by in ((None, "Category"), ("Language", "Task")):
        rows = details.duel_table(small_store, sid, category)
        expected = pd.crosstab(pd.Categorical(rows[by], categories=list(dict.fromkeys(rows[by]))),
                               pd.Categorical(rows["Result"], categories=[details.WON, details.LOST,
                                                                          details.NOT_SIGNIFICANT]),
                               margins=True, margins_name="Total", dropna=False)
        summary = details.duel_summary(details.model_duels(small_store, sid, category), category).set_index(by)
        assert list(summary.columns) == ["won", "lost", "not significant", "Total"]
        assert summary.to_numpy().tolist() == expected.to_numpy().tolist()
        assert list(summary.index) == [*map(str, expected.index)]
    summary = details.duel_summary(details.model_duels(small_store, sid)).set_index("Category")
    assert list(summary.index) == [*small_store.benchmark.categories, "Total"]
    assert summary.loc["Total", "Total"] == len(details.duel_table(small_store, sid))
    by_task = details.duel_summary(details.model_duels(small_store, sid, "Language"), "Language").set_index("Task")
    assert list(by_task.index) == ["AUC", "PPL", "Total"]
    assert (by_task.loc[["AUC", "PPL"], "Total"] == len(small_store.models) - 1).all()
    assert set(details.duel_table(small_store, sid)["Result"]) >= {details.WON, details.LOST}  # counts of both


def test_preview_table_marks_the_new_model_and_rank_changes(small_store, small_documents):
    form, document, _ = small_documents[6]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    table = submission.preview_table(small_store, preview)
    assert len(table) == len(small_store.models) + 1
    assert table.loc[preview.submission_id, "Change"] == "new"
    assert table.loc[preview.submission_id, "Model"].startswith("★ ")
    for sid in small_store.models:
        change = int(preview.table.loc[sid, "rank_change"])
        assert table.loc[sid, "Change"] == ("" if change == 0 else f"▲{change}" if change > 0 else f"▼{-change}")
    style = views.emphasised(table, "Overall score %", preview.submission_id)._compute().ctx
    shaded = {row for (row, _), props in style.items() if ("background-color", "#fff3c4") in props}
    assert shaded == {list(table.index).index(preview.submission_id)}
    shown = views.with_model_links(table, small_store.models)
    assert not shown.loc[preview.submission_id, "Model"].startswith("[")  # not published: no details link


def test_a_neighbourhood_of_the_preview_table_is_made_alone_with_the_whole_rankings_rows(small_store, small_documents):
    """The preview's first screen makes only the new model's neighbourhood (`rows`): the
    same rows as the whole would-be ranking's, ranks and rank changes counted over all."""
    form, document, _ = small_documents[6]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    whole = submission.preview_table(small_store, preview)
    for around in (preview.submission_id, whole.index[0], whole.index[-1]):
        ids = views.rows_around(whole, around, 3).index
        part = submission.preview_table(small_store, preview, rows=ids)
        pd.testing.assert_frame_equal(part, whole.loc[ids])


def test_preview_summary_names_the_rules_score(small_store, small_documents):
    """Under the panel the preview gives the field score (whom it counts: every other
    published model); under top-of-its-day the Win Score of its duels."""
    form, document, _ = small_documents[6]
    said = submission.preview_summary(small_store, Publishing(small_store).presubmit(dump_json(document), form))
    assert "Overall score **" in said and "win score" not in said.lower()
    assert "of the other published models" in said and "duels" not in said.split("\n")[1]
    original = under_original_rule(small_store)
    said = submission.preview_summary(original, Publishing(original).presubmit(dump_json(document), form))
    assert "Overall win score **" in said and "from duels with" in said


def test_legend_and_header_titles_name_every_task(small_store):
    legend = views.category_legend(small_store, "Knowledge")
    assert "Accuracy task" in legend and "(https://example.com/em)" in legend
    assert "% of the other models whose result is lower" in views.category_legend(small_store, "Overall")
    titles = views.header_titles(small_store)
    assert titles["PPL perplexity ↓"] == "Perplexity task (perplexity, lower is better)"
    assert titles["PPL score %"].startswith("Perplexity task")


def test_every_p_value_shown_says_whether_it_is_one_or_two_sided(small_store):
    """Duels are one-sided tests; wherever a p-value is shown or exported its name (or the
    text beside it) says so, and the head-to-head adds a two-sided one."""
    import content
    from leaderboard.views import compare
    a, b = small_store.ranked().index[:2]
    pair = compare.head_to_head(small_store, a, b)
    columns = [*details.duel_table(small_store, a, "Knowledge").columns, *compare.duel_map(small_store, "t_acc").cells,
               *pair.tasks.columns, *compare.head_to_head_display(pair).data.columns]
    p_columns = [c for c in columns if c.startswith("p ")]
    assert p_columns and all("one-sided" in c or "two-sided" in c for c in p_columns), p_columns
    assert "p two-sided" in pair.tasks
    map_hover = {str(pair_) for row in compare.duel_map_figure(compare.duel_map(small_store, "t_acc")).data[0].customdata
                 for pair_ in row}
    assert any("one-sided p" in h for h in map_hover)
    pair_hover = chart_titles(pair_chart.head_to_head_chart(pair))
    assert "one-sided" in pair_hover and "two-sided" in pair_hover
    assert "one-sided" in details.duels_explained(small_store.benchmark)
    assert all("one-sided" in t for k, t in views.header_titles(small_store).items() if "duel wins" in k)
    about = content.about(small_store.benchmark, "http://x/")
    assert "half the two-sided paired t-test's" in about  # the judge score's and accuracy's t-test
    assert "`p one-sided (A better)`, `p one-sided (B better)`, `p two-sided`" in about


def test_task_weights_of_benczechmark_match_a_hand_computation():
    """Overall is the mean of 9 categories, so a task of a k-task category weighs 1/(9 k):
    Historical's one task 1/9, each of NLI's 16 tasks 1/144, 16 times less; effective
    number of tasks 1/sum(w^2) = 81 / (1/16 + 1/8 + 1/7 + 1/6 + 1/4 + 1/4 + 1/2 + 1/2 + 1) = 27.03."""
    from leaderboard.config.tasks import load_benchmark
    benchmark = load_benchmark(Path(__file__).resolve().parent.parent / "data" / "tasks_metadata.json")
    weights = benchmark.task_weights
    assert sum(weights.values()) == pytest.approx(1.0) and len(weights) == 50
    historical, = (t.id for t in benchmark.tasks_in("Historical"))
    nli = [t.id for t in benchmark.tasks_in("NLI")]
    assert weights[historical] == pytest.approx(1 / 9) and all(weights[t] == pytest.approx(1 / 144) for t in nli)
    effective = 81 / (1 / 16 + 1 / 8 + 1 / 7 + 1 / 6 + 1 / 4 + 1 / 4 + 1 / 2 + 1 / 2 + 1)
    assert benchmark.effective_tasks == pytest.approx(effective) and round(effective) == 27


def test_the_legend_and_about_show_each_tasks_weight_in_overall(small_store):
    """Mini: 3 categories of 2, 2 and 1 tasks: weights 1/6, 1/6, 1/6, 1/6, 1/3; effective
    number 1 / (4/36 + 1/9) = 4.5 of 5."""
    import content
    overall = views.category_legend(small_store, "Overall")
    assert "4.5 effective tasks of 5" in overall and "33.3%" in overall and "16.7%" in overall
    knowledge = views.category_legend(small_store, "Knowledge")
    assert "| Weight in Overall |" in knowledge and "| 16.7% |" in knowledge
    about = content.about(small_store.benchmark, "http://x/")
    assert "4.5 effective tasks of 5" in about and "1/(C × k)" in about
    assert views.header_titles(small_store)["RG score %"].endswith("weighs 33.3% of Overall")


def test_about_states_the_field_rule_its_panel_and_what_the_intervals_are_about(small_store):
    """The About tab under the default rule says what the score, the panel, the duel wins
    and the intervals are, and nothing of the dropped fixed point or its posterior draws;
    under top-of-its-day it gives the Win Score and says no intervals are shown."""
    import content
    about = content.about(small_store.benchmark, "http://x/")
    for dropped in ("fixed point", "Borda", "empirical-Bayes", "common scale", "panel score", "cycle"):
        assert dropped not in about, dropped
    for said in ("near-copies", "one seat per family", "**duel wins**", "never the ranking",
                 "score's expected value", "87.8%"):
        assert said in about, said
    original = content.about(dataclasses.replace(small_store.benchmark, opponents=TOP_OF_ITS_DAY), "http://x/")
    assert "duels won ÷ duels fought" in original and "no intervals" in original
    assert "duel wins" in content.P_VALUES_INFO and "every score, rank" not in content.P_VALUES_INFO


def test_about_says_equal_models_get_a_winner_about_twice_alpha_of_the_time(small_store):
    import content
    for alpha, rate in ((0.05, "10%"), (0.01, "2%")):
        about = content.about(dataclasses.replace(small_store.benchmark, alpha=alpha), "http://x/")
        assert f"two equal models get a winner about {rate} of the time" in about, alpha


def test_problems_are_split_by_field_and_name_tasks_by_abbreviation(small_store):
    problems = ["Team name: required", "Input length: a whole number of tokens greater than 0, got 12.5",
                "t_auc: sample 3: class probabilities must be numbers", "missing tasks: t_ppl"]
    form, file = submission.split_problems(problems)
    assert form == problems[:2] and file == problems[2:]
    text = submission.problems_markdown(small_store.benchmark, file, "The file was not accepted:")
    assert r"AUC \(t\_auc\)" in text and r"PPL \(t\_ppl\)" in text


def test_url_query_round_trips_a_view_and_ignores_junk(small_store):
    sid = small_store.ranked().index[2]
    query = {"tab": "details", "category": "Language", "values": "metric", "search": "Lipa", "types": "chat,bogus",
             "min": "1.5", "max": "-3", "sort": "t_ppl", "columns": "Type,Submitted", "exclude_flagged": "true",
             "model": sid, "details_category": "Knowledge", "table_page": "3"}
    view = share.view_from_query(query, small_store)
    assert view == {"tab": "details", "category": "Language", "values": "metric", "search": "Lipa", "types": ["chat"],
                    "min": 1.5, "max": None, "sort": "t_ppl", "columns": ["Type", "Submitted"], "p": "raw",
                    "exclude_flagged": True, "table_page": 3, "model": sid, "details_category": "Knowledge", "a": None, "b": None,
                    "h2h_category": "Overall", "map": None}
    other = small_store.ranked().index[0]
    pair = share.view_from_query({"tab": "head-to-head", "a": sid, "b": other, "h2h_category": "Language",
                                  "p": "bh"}, small_store)
    assert (pair["tab"], pair["a"], pair["b"], pair["h2h_category"], pair["p"]) == ("head-to-head", sid, other,
                                                                                    "Language", "bh")
    for scope in ("Overall", "Language", "t_acc"):  # the open duel map's scope: Overall, a category or a task
        assert share.view_from_query({"map": scope}, small_store)["map"] == scope
    junk = share.view_from_query({"tab": "x", "category": "<script>", "sort": "nope", "model": "none", "map": "t_",
                                  "table_page": "-2"}, small_store)
    assert junk == share.DEFAULTS
    assert share.view_from_query({"values": "metric"}, small_store)["values"] == views.WIN_SCORE  # Overall
    for page in ("0", "1.5", "x", "9" * 40, "-2", ""):  # past the last page is the server's to clamp
        assert share.view_from_query({"table_page": page}, small_store)["table_page"] == 1, page
    assert share.view_from_query({"table_page": "12345"}, small_store)["table_page"] == 12345


def test_sample_file_lines_up_with_the_store(small_store):
    document = sample_document(small_store.benchmark, small_store.references())
    preview = Publishing(small_store).presubmit(dump_json(document), {
        "team_name": "Sample", "model_name": "sample", "model_type": "chat", "parameters": 1, "input_length": 2048,
        "precision": "bfloat16", "link_to_model": "https://example.com"})
    assert preview.rank >= 1 and preview.submission_id not in small_store.models
    assert open(submission.sample_file(small_store), "rb").read() == dump_json(document)


def test_provenance_says_how_the_model_was_evaluated():
    rows = dict(details.provenance({
        "lm_eval_version": {"run_a": "0.4.13", "run_b": "0.4.13"}, "transformers_version": "4.57.1",
        "n-shot": {"t1": 0, "t2": 0, "t3": 3}, "chat_template_sha": "0123456789abcdef" * 4,
        "total_evaluation_time_seconds": {"run_a": "5400", "run_b": "1800.5"}, "task_hashes": {"t1": "h1"}}))
    assert rows["lm-evaluation-harness"] == "0.4.13" and rows["transformers"] == "4.57.1"
    assert rows["Few-shot examples"] == "0 on 2 tasks, 3 on 1 task"
    assert rows["Chat template"] == "used (sha256 0123456789ab)"
    assert rows["Evaluation time"] == "2.0 h"
    assert rows["Task hashes"].startswith("1 task, fingerprint ")
    differing = dict(details.provenance({"lm_eval_version": {"a": "0.4.12", "b": "0.4.13"}, "chat_template": None}))
    assert differing["lm-evaluation-harness"] == "0.4.12 / 0.4.13 (differs between runs)"
    assert differing["Chat template"] == "not used"


def test_what_the_logs_do_not_record_is_said_so_and_an_aggregated_task_is_explained():
    rows = dict(details.provenance({"lm_eval_version": None, "transformers_version": {"a": "4.42.3", "b": None},
                                    "aggregated_tasks": {"bbh": {
                                        "subtasks": ["bbh_navigate", "bbh_snarks"], "documents": [250, 178],
                                        "harness_group": "leaderboard_bbh", "harness_value": 0.5512},
                                        "mmlu": {"subtasks": ["mmlu_a", "mmlu_b", "mmlu_c"],
                                                 "documents": [100, 200, 300]}}}))
    assert rows["lm-evaluation-harness"] == "not recorded"
    assert rows["transformers"] == "4.42.3 / not recorded (differs between runs)"
    assert rows["Aggregated tasks"] == ("bbh: 2 subtasks, 428 documents, scored on all of them (the harness reports "
                                        "0.5512 for leaderboard_bbh, another aggregate); mmlu: 3 subtasks, 600 "
                                        "documents, scored on all of them")


def test_a_metric_label_names_the_measure_in_headers_and_legend(tmp_path):
    from leaderboard.config.tasks import load_benchmark
    from support.stores import SMALL_TASKS
    tasks = json.loads(json.dumps(SMALL_TASKS))
    tasks["tasks"][0].update(metric_label="BLEU accuracy", harness_metric="bleu_acc")
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    labelled, plain = load_benchmark(tmp_path / "tasks.json").tasks[:2]
    assert views.metric_header(labelled) == "ACC BLEU accuracy % ↑"
    assert views.metric_description(labelled) == "BLEU accuracy"
    assert views.metric_header(plain) == "EM exact match % ↑"


def test_search_is_literal_text_and_an_over_long_one_is_refused_with_a_message(small_store):
    table = views.leaderboard_table(small_store)
    titled = table.assign(Model=table["Model"].where(table.index != table.index[1], "Lab (v2)/Model.*+[x]"))
    assert list(views.filter_table(titled, "(V2)/model.*+[").index) == [table.index[1]]  # regex characters as text
    assert views.filter_table(titled, "Lab.*x").empty and views.filter_table(titled, "L.b").empty
    longest = "x" * views.MAX_SEARCH_CHARS
    assert views.filter_table(table, longest).empty and "No model matches" in views.filter_note(
        views.filter_table(table, longest), len(table), longest)
    megabyte = "(" * 1_000_000
    refused = views.filter_table(table, megabyte)
    assert refused.empty
    note = views.filter_note(refused, len(table), megabyte)
    assert note == (f"**Search not applied:** it is 1,000,000 characters long; at most {views.MAX_SEARCH_CHARS} "
                    f"(the longest model title). Shorten it.")


def test_p_values_and_parameters_read_the_same_in_every_view(small_store):
    """One format everywhere: "p = 0.012", "p < 0.0001" (never "p=<0.0001" or "8.88e-16");
    parameters as "7", not "7.0"."""

    from leaderboard.views import compare
    tiny, some = 8.88e-16, 0.01234
    a, b = small_store.ranked().index[:2]
    result = compare.head_to_head(small_store, a, b)
    result = dataclasses.replace(result, sign=dataclasses.replace(result.sign, p_two_sided=tiny),
                                 tasks=result.tasks.assign(**{"p one-sided (A better)": tiny,
                                                              "p one-sided (B better)": some}))
    assert "(sign test, two-sided p < 0.0001;" in compare.head_to_head_summary(result)
    display = compare.head_to_head_display(result).data
    assert set(display["p one-sided (A better)"]) == {"< 0.0001"} and set(display["p one-sided (B better)"]) == {"0.012"}
    hover = chart_titles(pair_chart.head_to_head_chart(result))
    assert "A better < 0.0001" in hover and "B better 0.012" in hover
    duels = details.duel_table(small_store, a, "Knowledge").assign(**{"p one-sided (this model better)": tiny,
                                                                       "p one-sided (competitor better)": tiny})
    cells = details.duel_grid(duels, "Knowledge").data.drop(columns="Competitor").to_numpy().ravel()
    assert all(cell.endswith("\np < 0.0001") for cell in cells), cells[:3]
    duel_map = compare.duel_map(small_store, "t_acc")
    duel_map = dataclasses.replace(duel_map, cells=duel_map.cells.assign(**{"p one-sided (model better)": tiny,
                                                                            "p one-sided (opponent better)": some}))
    map_hover = {str(v) for row in compare.duel_map_figure(duel_map).data[0].customdata for pair in row for v in pair}
    assert any("one-sided p: row better < 0.0001 · column better 0.012" in h for h in map_hover)
    for sid, model in small_store.models.items():
        shown = views.parameters_text(model.metadata["parameters"])
        assert shown == f"{model.metadata['parameters']:g}" and not shown.endswith(".0")
        assert f"| Parameters (B) | {shown} |" in details.model_card(small_store, sid)
    table = views.with_model_links(views.leaderboard_table(small_store), small_store.models)
    styled = views.emphasised(table, "Overall score %")
    rendered = styled._translate(False, False)["body"]  # the strings the page shows
    column = list(table.columns).index("Parameters (B)")
    assert [row[column + 1]["display_value"] for row in rendered] == [
        views.parameters_text(small_store.models[sid].metadata["parameters"]) for sid in table.index]


def slow_order(table, columns, search="", model_types=None, min_params=None, max_params=None, sort="rank"):
    """The rows table_page pages through, by a loop over the rows: which match, in which order."""
    kept = []
    for position, (sid, row) in enumerate(table.iterrows()):
        size = row["Parameters (B)"]
        if search.strip() and search.strip().lower() not in row["Model"].lower():
            continue
        if model_types and row["Type"] not in model_types:
            continue
        if (min_params is not None and not size >= min_params) or (max_params is not None and not size <= max_params):
            continue
        kept.append((position, sid, row))
    by = {c.key: (c.header, c.lower_is_better) for c in columns} | {"parameters": ("Parameters (B)", False)}
    if sort in by:
        header, lower = by[sort]
        missing = [k for k in kept if np.isnan(k[2][header])]
        present = sorted((k for k in kept if not np.isnan(k[2][header])),
                         key=lambda k: (k[2][header] if lower else -k[2][header], k[0]))
        kept = present + missing
    return [k[1] for k in kept]


def slow_page(kept, page, page_rows):
    """Page `page` (clamped to the pages there are) of the `kept` rows: its rows, the page, the pages."""
    pages = max(1, -(-len(kept) // page_rows))
    page = min(max(page, 1), pages)
    return kept[(page - 1) * page_rows:page * page_rows], page, pages


def test_a_page_is_the_slice_of_the_whole_board_filtered_and_sorted_as_a_loop_does_it():
    rng = np.random.default_rng(5)
    n = 237
    teams = ["Alpha", "beta", "Gamma", "delta-x"]
    table = pd.DataFrame({
        "Rank": np.arange(1, n + 1),
        "Model": [f"{teams[i % 4]}/m{i}-{'chat' if i % 3 else 'base'}" for i in range(n)],
        "Overall score %": np.round(rng.uniform(0, 100, n), 0),  # many ties: the stable order counts
        "PPL perplexity ↓": np.where(rng.random(n) < 0.1, np.nan, rng.uniform(2, 30, n)),
        "Type": rng.choice(["base", "chat", "merged"], n),
        "Parameters (B)": np.where(rng.random(n) < 0.1, np.nan, rng.choice([0.5, 1, 7, 13, 70], n)),
    }, index=[f"sid{i}" for i in range(n)])
    columns = [views.ScoreColumn("overall", "Overall score %"),
               views.ScoreColumn("t_ppl", "PPL perplexity ↓", "t_ppl", lower_is_better=True)]
    cases = [dict(), dict(search="ALPHA"), dict(search=" chat "), dict(search="nothing"), dict(model_types=["chat"]),
             dict(min_params=7), dict(max_params=7, min_params=1), dict(search="m1", sort="t_ppl"),
             dict(sort="overall", model_types=["base", "merged"]), dict(sort="parameters"), dict(sort="bogus")]
    for case in cases:
        kept = slow_order(table, columns, **case)  # the same for every page: looped once per case
        for page_rows in (1, 7, 50, 500):
            for page in (-3, 1, 2, 5, 34, 10**9):
                got = views.table_page(table, columns, page, page_rows, **case)
                rows, want_page, pages = slow_page(kept, page, page_rows)
                assert list(got.rows.index) == rows, (case, page_rows, page)
                assert (got.page, got.pages, len(got.matching), got.total) == (want_page, pages, len(kept), n)
    last = views.table_page(table, columns, float("inf"), 50)  # the pager's "last"
    assert (last.page, last.pages, len(last.rows)) == (5, 5, 37)


def test_the_pager_says_which_rows_of_how_many_match():
    table = pd.DataFrame({"Model": [f"t/m{i}" for i in range(120)], "Type": "chat", "Parameters (B)": 7.0,
                          "Overall score %": 50.0}, index=[f"s{i}" for i in range(120)])
    columns = [views.ScoreColumn("overall", "Overall score %")]
    assert views.pager_note(views.table_page(table, columns, 2, 50)) == "Page 2 of 3 · rows 51–100 of 120"
    assert views.pager_note(views.table_page(table, columns, 9, 50)) == "Page 3 of 3 · rows 101–120 of 120"
    assert (views.pager_note(views.table_page(table, columns, 1, 50, search="m1")) ==
            "Page 1 of 1 · rows 1–31 of 31 matching (of 120)")
    assert views.pager_note(views.table_page(table, columns, 1, 50, search="zz")) == "Page 1 of 1 · no rows match (of 120)"


def test_the_current_table_is_made_once_per_board_state(small_store):
    first = views.current_table(small_store, "Language")
    assert first is views.current_table(small_store, "Language")
    pd.testing.assert_frame_equal(first, views.leaderboard_table(small_store, "Language"))
    flagged = small_store.ranked().index[1]
    Administration(small_store).flag(flagged, "test", None)
    after = views.current_table(small_store, "Language")
    assert after is not first and after.loc[flagged, "Flagged"]


def test_model_pickers_list_the_best_and_what_the_search_finds_never_the_whole_board(small_store):
    ranked = list(small_store.ranked().index)
    titles = {sid: small_store.models[sid].title for sid in ranked}
    assert [sid for _, sid in details.model_choices(small_store, limit=2)] == ranked[:2]
    assert [sid for _, sid in details.model_choices(small_store, keep=[ranked[-1]], limit=2)] == [*ranked[:2],
                                                                                                   ranked[-1]]
    team = titles[ranked[-1]].split("/")[0]
    found = [sid for _, sid in details.model_choices(small_store, f" {team.upper()} ")]
    assert found == [sid for sid in ranked if team.lower() in titles[sid].lower()]
    assert details.model_choices(small_store, "no such model") == []
    assert details.matching_models(small_store, team) == len(found)
    assert "search to find the others" in details.picker_info(small_store, "", limit=2)
    assert details.picker_info(small_store, "", limit=len(ranked)) == ""
    assert details.picker_info(small_store, "no such model").startswith("No model")


def test_the_plot_shows_at_most_its_limit_of_models_and_says_so():
    n = views.PLOT_POINTS + 5
    table = pd.DataFrame({"Model": [f"t/m{i}" for i in range(n)], "Parameters (B)": 7.0,
                          "Overall score %": np.linspace(90, 10, n)})
    fig = views.score_scatter(table, "Overall score %")
    assert len(fig.data[0].x) == views.PLOT_POINTS and list(fig.data[0].text[:2]) == ["t/m0", "t/m1"]
    assert f"{views.PLOT_POINTS:,} of {n:,}" in fig.layout.title.text
    assert views.score_scatter(table.iloc[:10], "Overall score %").layout.title.text is None


def test_an_empty_board_has_a_table_with_its_headers_and_no_rows(tmp_path, small_benchmark):
    """A store with no model yet (a new Hub repo, a folder given in LEADERBOARD_STORE) opens
    with every view's headers, no rows, and says nothing is published rather than that
    filters hide everything."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    board = Leaderboard(LocalStore(tmp_path / "store"), small_benchmark)
    for category in (None, *small_benchmark.categories):
        for values in (views.WIN_SCORE, views.METRIC_VALUE):
            table = views.leaderboard_table(board, category, values)
            assert table.empty and "Model" in table.columns and any("95%" in c for c in table.columns)
    assert "No model is published yet" in views.filter_note(table, 0, "x")
    assert views.as_of_note(board) == "No model published yet."


def test_every_column_on_screen_has_a_one_line_explanation(small_store):
    """Issue 36: each header of every view (Overall and each category, scores and metric
    values, every optional column shown) has a one-line explanation for a newcomer."""
    titles = views.header_titles(small_store)
    for category in [views.OVERALL, *small_store.benchmark.categories]:
        for values in (views.WIN_SCORE, views.METRIC_VALUE):
            shown = views.with_model_links(views.leaderboard_table(small_store, category, values), small_store.models)
            missing = [h for h in shown.columns if not titles.get(h)]
            assert not missing, (category, values, missing)
    assert all("\n" not in t and len(t) <= 200 for t in titles.values()), [t for t in titles.values() if len(t) > 200]


def test_the_ranking_chart_draws_each_score_with_its_interval_and_tie_groups(small_store):
    """Issue 36: the chart of a view's ranking (Overall and each category): a point per model at
    its score, best at the top, its bar from the interval's low to high end, the tie groups'
    colours alternating from one group to the next."""
    from leaderboard.views.ranking_chart import GROUP_COLOURS, ranking_chart
    for category in [views.OVERALL, *small_store.benchmark.categories]:
        table = views.leaderboard_table(small_store, category)
        score = views.score_columns(small_store, category)[0].header
        group = "Tie group" if category == views.OVERALL else f"{category} tie group"
        fig = ranking_chart(table, score)
        drawn = {}
        for trace in fig.data:
            for y, x, plus, minus in zip(trace.y, trace.x, trace.error_x.array, trace.error_x.arrayminus):
                drawn[y] = (x, x - minus, x + plus, trace.marker.color)
        labels = [f"{r}. {m if len(m) <= 22 else m[:21] + '…'}" for r, m in zip(table.iloc[:, 0], table["Model"])]
        assert list(fig.layout.yaxis.categoryarray) == labels and fig.layout.yaxis.autorange == "reversed"
        for label, (_, row) in zip(labels, table.iterrows()):
            x, low, high, _ = drawn[label]
            assert (x, round(low, 6), round(high, 6)) == (row[score], round(row[f"{score} 95% low"], 6),
                                                           round(row[f"{score} 95% high"], 6)), label
        colours = [drawn[label][3] for label in labels]
        changes = table[group].ne(table[group].shift()).to_numpy()
        for i in range(1, len(labels)):  # a new group, a new colour; within one, the same
            assert (colours[i] != colours[i - 1]) == changes[i], (category, colours, list(table[group]))
        assert set(colours) <= set(GROUP_COLOURS)
