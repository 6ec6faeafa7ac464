"""The evidence views in a real headless Chromium: rank intervals and tie groups in the table,
the p-value switch, the Head-to-head tab and the duel map, on a desktop and a phone.

Screenshots are saved in test-artifacts/; the app is conftest.py's `shared_app`.
"""
from __future__ import annotations

from support.pages import cells, choose, close, column, headers, open_filters, open_page, rows, shot

import hashlib
import re
from urllib.parse import urlencode

from playwright.sync_api import expect

from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.views import item_matrix

# app_url: conftest's, the app shared by the modules that only read it


def downloaded_name(page, selector: str) -> str:
    """The name of the file a download button gives, once the button holds one (enabled)."""
    expect(page.locator(selector)).to_be_enabled()
    with page.expect_download() as download:
        page.locator(selector).click()
    return download.value.suggested_filename


def made_csv_name(page, says: str) -> str:
    """The name of the Details tab's duels CSV, made by its button (saying `says`) and downloaded."""
    page.locator("#duel-csv-make").click()
    expect(page.locator("#duel-csv")).to_contain_text(says)
    with page.expect_download() as download:
        page.locator("#duel-csv").get_by_role("link").first.click()
    return download.value.suggested_filename


def open_pair_tab(page):
    page.get_by_role("tab", name="Head-to-head").click()
    expect(page.locator("#pair-summary")).to_contain_text("A wins")


def test_table_shows_each_interval_beside_the_score_and_the_rank_it_is_about(page):
    """The score's interval right of the score, the rank's and the tie group next; the
    shown score and rank lie inside their own intervals."""
    expect(rows(page)).to_have_count(5)
    assert headers(page)[:6] == ["Rank", "Model", "Overall score %", "Overall score % 95%", "Rank 95%",
                                 "Tie group"]
    ranks, scores = [int(r) for r in column(page, 0)], [float(v) for v in column(page, 2)]
    for rank, interval in zip(ranks, column(page, 4)):
        low, high = (int(x) for x in (interval.split("–") * 2)[:2])
        assert low <= rank <= high, (rank, interval)
    assert all(re.fullmatch(r"\d+\.\d\d(–\d+\.\d\d)?", v) for v in column(page, 3)), column(page, 3)
    for score, interval in zip(scores, column(page, 3)):
        low, high = (float(x) for x in (interval.split("–") * 2)[:2])
        assert low <= score <= high, (score, interval)
    groups = column(page, 5)
    assert groups[0] == "A" and groups == sorted(groups, key=lambda g: (len(g), g))
    with page.expect_download() as download:
        page.locator("#csv").click()
    header = open(download.value.path(), encoding="utf-8").readline()
    assert "Overall score % 95% low,Overall score % 95% high,Rank 95% low,Rank 95% high,Tie group" in header
    check_p_value_switch_applies_to_the_page_the_link_and_the_exports(page)


def check_p_value_switch_applies_to_the_page_the_link_and_the_exports(page):
    """On the same page (a load of it costs some 2.5 s of Chromium's CPU and 1 s of the app's:
    bench/RESULTS.md), the table as loaded: BH-adjusted p-values on the page, in its link and
    in the exports."""
    open_filters(page)
    page.locator("#p-values").get_by_text("BH-adjusted", exact=True).click()
    page.wait_for_url(re.compile("p=bh"))
    # the table's label and its downloads come in one answer of the server
    expect(page.locator("#board")).to_contain_text("Ranking (BH-adjusted p-values)")
    assert "bh-adjusted" in downloaded_name(page, "#csv")
    shot(page, "20_p_values_adjusted", full_page=False)
    open_pair_tab(page)
    expect(page.locator("#pair-summary")).to_contain_text("Benjamini-Hochberg adjusted")
    page.get_by_role("tab", name="Details").click()
    expect(page.locator("#card")).to_contain_text("tie group")
    assert "bh-adjusted" in made_csv_name(page, "BH-adjusted p-values")


def test_head_to_head_compares_two_models_per_task_with_a_chart_and_csv(page):
    open_pair_tab(page)
    summary = page.locator("#pair-summary")
    expect(summary).to_contain_text("On all tasks (50)")
    expect(summary).to_contain_text("sign test")
    expect(rows(page, "pair-tasks").first).to_be_visible()  # rendered virtually: not all 50 rows
    expect(page.locator("#pair-record")).to_contain_text("Total")
    expect(page.locator("#pair-chart .pair-bar")).to_have_count(50)
    axes = page.locator("#pair-chart figcaption").all_inner_texts()  # one chart per unit: pp, perplexity
    assert len(axes) == 2 and "A − B, pp" in axes[0] and "B − A, perplexity (lower is better)" in axes[1], axes
    assert "p one-sided: A better" in page.locator("#pair-chart .pair-row").first.get_attribute("title")
    assert "Δ (A better by)" in headers(page, "pair-tasks") and "p two-sided" in headers(page, "pair-tasks")
    assert "tab=head-to-head" in page.url
    shot(page, "21_head_to_head")
    choose(page, "pair-category", "Language Modeling")
    expect(rows(page, "pair-tasks")).to_have_count(8)
    expect(summary).to_contain_text("the Language Modeling tasks (8)")
    assert "perplexity" in " ".join(rows(page, "pair-tasks").all_inner_texts())
    choose(page, "pair-category", "NER")
    expect(rows(page, "pair-tasks")).to_have_count(2)
    expect(summary).to_contain_text("the NER tasks (2)")
    assert "h2h_category=NER" in page.url
    assert " %" in " ".join(rows(page, "pair-tasks").all_inner_texts())
    with page.expect_download() as download:
        page.locator("#pair-csv").click()
    header = open(download.value.path(), encoding="utf-8").readline()
    assert "p one-sided (A better)" in header and "p two-sided" in header and "Verdict" in header
    assert header.count("A: ") == 1 and "A − B" in header
    shot(page, "22_head_to_head_ner")


PLOTLY_FETCHED = ("() => performance.getEntriesByType('resource').some("
                  "(e) => /[/]PlotlyPlot-[^/]*[.]js$/.test(e.name))")


def test_the_page_and_head_to_head_s_chart_need_no_plotly(browser, app_url):
    """Issue 35: Plotly's bundle (4.6 MB of script) took 2-4 s of the page's main thread
    to run, which the page did once idle after load (in the way of whatever the visitor
    clicked meanwhile) so that Head-to-head's chart could show at once. The chart is now
    the page's own elements: a new visitor's page, left to go idle and then opening
    Head-to-head, never fetches Plotly (the charts behind an accordion still do, when opened)."""
    page = open_page(browser, app_url[0], own_context=True)  # a cold cache, as a new visitor's
    expect(rows(page).first).to_be_visible()
    page.evaluate("() => new Promise((idle) => requestIdleCallback(() => setTimeout(idle, 1000), {timeout: 4000}))")
    assert not page.evaluate(PLOTLY_FETCHED)
    open_pair_tab(page)
    expect(page.locator("#pair-chart .pair-bar")).to_have_count(50)
    assert not page.evaluate(PLOTLY_FETCHED)
    page.get_by_text("Duel map: every pair of the best").click()
    expect(page.locator("#duel-map .hm").first).to_be_attached()
    assert page.evaluate(PLOTLY_FETCHED)  # the duel map is Plotly's, fetched when asked for
    close(page)


def test_a_head_to_head_link_opens_the_pair(browser, app_url):
    board = Leaderboard(LocalStore(app_url[1]))  # the served board, read (its ids are what the page's links carry)
    ids = board.ranked().index
    query = urlencode({"tab": "head-to-head", "a": ids[3], "b": ids[1], "h2h_category": "Sentiment"})
    other = open_page(browser, f"{app_url[0]}?{query}", own_context=True)  # someone opening the link
    expect(other.locator("#pair-summary")).to_contain_text("the Sentiment tasks (4)")
    expect(other.locator("#model-a input")).to_have_value(board.models[ids[3]].title)
    expect(other.locator("#model-b input")).to_have_value(board.models[ids[1]].title)
    expect(rows(other, "pair-tasks")).to_have_count(4)
    close(other)


def test_phone_shows_head_to_head_and_duel_map(phone):
    expect(rows(phone)).to_have_count(5)
    score = cells(rows(phone).first).nth(2)  # the switch leaves a score on the first screen
    box = score.bounding_box()
    assert box["y"] + box["height"] <= 844, box
    shot(phone, "24_phone_board_first_screen", full_page=False)
    open_pair_tab(phone)
    expect(rows(phone, "pair-tasks").first).to_be_visible()
    expect(phone.locator("#pair-chart .pair-bar")).to_have_count(50)
    for part in ("#pair-chart", "#pair-chart .pair-row >> nth=0", "#pair-chart .bar-value >> nth=0"):
        box = phone.locator(part).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, (part, box)  # no sideways scrolling of the page
    shot(phone, "25_phone_head_to_head")
    phone.get_by_text("Duel map: every pair of the best").click()
    expect(phone.locator("#duel-map .hm").first).to_be_attached()
    phone.locator("#map-box").scroll_into_view_if_needed()
    shot(phone, "26_phone_duel_map")


def test_duel_map_shows_every_pair_coloured_by_verdict_and_a_link_opens_it_on_its_scope(browser, app_url):
    page = open_page(browser, app_url[0])
    open_pair_tab(page)
    page.get_by_text("Duel map: every pair of the best").click()
    expect(page.locator("#duel-map .hm").first).to_be_attached()
    expect(page.locator("#duel-map .legendtext")).to_have_count(4)
    expect(page.locator("#duel-map .gtitle")).to_contain_text("Overall: row vs column")
    choose(page, "map-scope", "NER")
    expect(page.locator("#duel-map .gtitle")).to_contain_text("NER: row vs column")
    page.wait_for_url(re.compile("map=NER"))
    link = page.url
    choose(page, "map-scope", "NER › CNEC")
    expect(page.locator("#duel-map .gtitle")).to_contain_text("Czech Named Entity")
    page.locator("#map-box").scroll_into_view_if_needed()
    shot(page, "23_duel_map")
    assert not page.dialogs, page.dialogs
    close(page)
    other = open_page(browser, link, own_context=True)  # someone opening the link
    expect(other.locator("#duel-map .gtitle")).to_contain_text("NER: row vs column")
    expect(other.locator("#map-scope input")).to_have_value("NER")
    other.get_by_text("Duel map: every pair of the best").click()  # closing the map takes it out of the link
    other.wait_for_url(lambda url: "map=" not in url)
    close(other)


def shown_delta(text: str) -> float:
    """The signed number a duel's Δ cell shows ("won\\nΔ +0.35 perplexity\\np = ...", "+0.35 perplexity")."""
    return float(re.search(r"[+-]\d+\.\d+", text).group())


def test_a_duel_shows_one_delta_convention_on_details_and_head_to_head(browser, app_url):
    """The best model against the second on a perplexity task (lower is better): the Details
    grid and the Head-to-head table show the same Δ, and both tabs state the same convention."""
    board = Leaderboard(LocalStore(app_url[1]))
    a, b = board.ranked().index[:2]
    task = "HIST"  # Language Modeling's word perplexity
    page = open_page(browser, f"{app_url[0]}?{urlencode({'tab': 'details', 'model': a, 'details_category': 'Language Modeling'})}")
    expect(rows(page, "duels").first).to_contain_text(f"2. {board.models[b].title}")
    details = shown_delta(column(page, headers(page, "duels").index(task), "duels")[0])
    legend = " ".join(page.locator("#duels-explained").inner_text().split())
    page.goto(f"{app_url[0]}?{urlencode({'tab': 'head-to-head', 'a': a, 'b': b, 'h2h_category': 'Language Modeling'})}")
    expect(rows(page, "pair-tasks")).to_have_count(8)
    pair_headers = headers(page, "pair-tasks")
    difference = next(i for i, h in enumerate(pair_headers) if h.startswith(("Δ", "A − B")))
    pair_row = column(page, pair_headers.index("Task"), "pair-tasks").index(task)
    assert shown_delta(column(page, difference, "pair-tasks")[pair_row]) == details != 0
    pair_legend = " ".join(page.locator("#pair-explained").inner_text().split())
    convention = ("Δ is how much better {0} is than {1}: positive = {0} better, in percentage points (pp) for "
                  "metrics shown in percent, else in the metric's own unit; where lower is better (perplexity), "
                  "{1}'s value minus {0}'s.")
    assert convention.format("this model", "the competitor") in legend, legend
    assert convention.format("A", "B") in pair_legend, pair_legend
    assert "minus the competitor" not in legend
    assert not page.dialogs, page.dialogs
    close(page)


def test_the_about_tab_s_report_card_says_who_could_be_first_and_last(browser, app_url):
    """Desktop and phone: the API example with the running address; per scope "could be
    first: N of M · could be last: K" from the board's own rank sets, the table of scopes,
    each figure's definition, and both downloads (the card's JSON and the models x tasks
    matrix); the per-model table finds models by name; a link to About shows it."""
    from leaderboard.engine import ranking
    board = Leaderboard(LocalStore(app_url[1]))
    sets = board.certainty()[ranking.OVERALL]
    n = len(board.models)
    first, last = int((sets["set_low"] == 1).sum()), int((sets["set_high"] == n).sum())
    for viewport, name in (({"width": 1440, "height": 900}, "desktop"), ({"width": 390, "height": 844}, "phone")):
        page = open_page(browser, app_url[0], viewport)
        page.get_by_role("tab", name="About").click()
        expect(page.locator("#about")).to_contain_text(f'Client("{app_url[0]}")')  # the API example
        assert "<this space's address>" not in page.locator("#about").inner_text()
        expect(page.locator("#card-summary")).to_contain_text(
            f"Overall: could be first: {first} of {n} · could be last: {last}")
        expect(rows(page, "card-scopes")).to_have_count(1 + len(board.benchmark.categories))
        expect(rows(page, "card-models")).to_have_count(n)
        team = board.models[board.ranked().index[-1]].title.split("/")[0]  # the last model's team, found by name
        page.locator("#card-find input, #card-find textarea").first.fill(team.upper())
        expect(rows(page, "card-models")).to_have_count(sum(team.lower() in m.title.lower() for m in board.models.values()))
        expect(page.locator("#card-find")).to_contain_text(f"“{team.upper()}”")  # how many match it
        page.locator("#card-find input, #card-find textarea").first.fill("")
        expect(rows(page, "card-models")).to_have_count(n)
        card_headers = " ".join(page.locator("#card-models thead th").all_inner_texts())
        for header in ("Score % (these tasks) 95%", "Score % (tasks drawn too) 95%", "Rank set (all at once) 95%"):
            assert header in card_headers, card_headers
        scope_headers = page.locator("#card-scopes thead th").all_inner_texts()
        assert not any("_" in header for header in scope_headers), scope_headers  # words, not the JSON's keys
        assert {"Could be first", "Largest unseparated set", "Established pairs %"} <= {
            header.strip() for header in scope_headers}, scope_headers
        task_headers = page.locator("#card-tasks thead th").all_inner_texts()
        assert not any("_" in header for header in task_headers), task_headers
        # each heading defined under its own words, with the card's JSON key beside it
        expect(page.locator("#card-definitions")).to_contain_text(
            "Largest unseparated set (largest_unseparated in the card's JSON): the most models")
        expect(page.locator("#card-definitions")).to_contain_text(
            "Top-k bits undetermined (top_k_bits in the card's JSON): top-k resolution")
        expect(page.locator("#card-definitions")).to_contain_text(
            "Discordance, top decile (discordance_top in the card's JSON): the same")
        expect(page.locator("#card-definitions")).to_contain_text("not on this card: R3")
        expect(page.locator("#card-summary")).to_contain_text(f"top-{min(10, n)} resolution")
        binary = [t.id for t in board.benchmark.tasks if t.metric.sample_kind == "binary"]
        expect(rows(page, "card-tasks")).to_have_count(len(binary))
        assert downloaded_name(page, "#card-matrix").endswith(".csv")
        assert downloaded_name(page, "#card-json").endswith(".json")
        expect(page.locator("#card-items")).to_be_disabled()  # no task picked yet
        choose(page, "card-task", binary[0])
        matrix = item_matrix.item_matrix(board, binary[0])
        expect(page.locator("#card-items-note")).to_contain_text(f"SHA-256 of the file: {matrix.sha256}")
        with page.expect_download() as download:
            page.locator("#card-items").click()
        assert hashlib.sha256(open(download.value.path(), "rb").read()).hexdigest() == matrix.sha256
        shot(page, f"34_report_card_{name}")
        close(page)
    linked = open_page(browser, f"{app_url[0]}?tab=about", own_context=True)
    expect(linked.locator("#card-summary")).to_contain_text("could be first")
    close(linked)
