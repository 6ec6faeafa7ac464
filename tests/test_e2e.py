"""The web app in a real headless Chromium: browsing, model details, pre-submission, publication.

Screenshots of each step are saved in test-artifacts/.
"""
from __future__ import annotations

from support.own_app import app_url  # noqa: F401 (fixture: an app of the module's own, whose store its tests change)

from support.pages import DESKTOP, PHONE, blank_page, cells, choose, close, column, fill_form, headers, open_filters, open_page, rows, shot
from support.stores import tree_digest

import json

import re

import pytest
from playwright.sync_api import expect

from leaderboard.submission.demo import demo_model
from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR
from leaderboard.strict_json import dump_json


def type_into(page, elem_id: str, text: str) -> None:
    """Type as a user does (Gradio's input event), replacing what is there."""
    box = page.locator(f"#{elem_id} textarea, #{elem_id} input").first
    box.fill("")
    box.press_sequentially(text, delay=20)


def test_leaderboard_shows_ranked_rows_and_category_columns(page):
    expect(rows(page)).to_have_count(5)
    first = rows(page).first
    expect(cells(first).first).to_have_text("1")
    assert headers(page).count("Overall score %") == 1
    shot(page, "01_leaderboard_overall")
    header_cells = page.locator("#board thead th")
    choose(page, "category", "NER")
    expect(header_cells.filter(has_text="CNEC")).to_have_count(1, timeout=15000)
    expect(header_cells.filter(has_text="CCDNER")).to_have_count(1)
    expect(header_cells.filter(has_text="Overall score")).to_have_count(0)
    expect(page.get_by_text("Czech Court Decisions")).to_be_visible()  # the legend
    expect(header_cells.filter(has_text="CNEC").first).to_have_attribute("title", re.compile("Czech Named Entity"))
    page.get_by_text("score against model size").click()
    expect(page.locator("#scatter .ytitle")).to_have_text("NER score %")
    expect(page.locator("#scatter .point")).to_have_count(5)
    ticks = page.locator("#scatter .xtick text").all_text_contents()
    assert ticks and all(t in ("0.5", "1", "2", "5", "10", "20", "50", "100", "200") for t in ticks), ticks
    shot(page, "02_leaderboard_ner")
    # the same page's other views, in turn (a load of it costs some 2.5 s of Chromium's CPU and
    # 1 s of the app's: bench/RESULTS.md)
    check_category_view_is_ranked_by_the_category_with_overall_rank_beside(page)
    choose(page, "category", "Overall")
    expect(page.locator("#board thead th .header").first).to_have_text("Rank", timeout=15000)  # its table in place
    check_rank_and_model_stay_pinned_and_headers_wrap_at_words(page)
    check_score_headers_say_what_and_unit_and_overall_explains_the_switch(page)


def check_category_view_is_ranked_by_the_category_with_overall_rank_beside(page):
    choose(page, "category", "NER")
    expect(page.locator("#board thead th .header").first).to_have_text("NER rank", timeout=15000)
    assert headers(page)[:8] == ["NER rank", "Model", "NER score %", "NER score % 95%", "NER rank 95%",
                                 "NER tie group", "NER duel wins %", "Overall rank"]
    ranks, scores = [int(r) for r in column(page, 0)], [float(v) for v in column(page, 2)]
    assert scores == sorted(scores, reverse=True), scores  # best NER score first
    assert ranks == [1 + sum(other > s for other in scores) for s in scores]  # ties share a rank
    assert sorted(int(r) for r in column(page, 7)) == [1, 2, 3, 4, 5]
    shot(page, "08_ner_ranked")


def check_score_headers_say_what_and_unit_and_overall_explains_the_switch(page):
    assert headers(page)[3:7] == ["Overall score % 95%", "Rank 95%", "Tie group", "Overall duel wins %"]
    assert all(h.endswith(" score %") for h in [headers(page)[2], *headers(page)[7:16]]), headers(page)
    expect(page.locator("#values input").first).to_be_disabled()  # no metric values in Overall
    expect(page.locator("#values")).to_contain_text("Overall shows scores only")
    choose(page, "category", "Language Modeling")
    page.locator("#values").get_by_text("Metric value", exact=True).click()
    expect(page.locator("#board thead th").filter(has_text="perplexity ↓").first).to_be_visible(timeout=15000)
    task_headers = headers(page)[7:15]
    assert all(h.endswith(("% ↑", "perplexity ↓")) for h in task_headers), task_headers
    assert sum(h.endswith("perplexity ↓") for h in task_headers) == 7
    choose(page, "category", "NER")
    expect(page.locator("#board thead th").filter(has_text="exact match % ↑")).to_have_count(2, timeout=15000)
    with page.expect_download() as download:
        page.locator("#csv").click()
    assert re.fullmatch(r"benczechmark_ner_metric-value_\d{4}-\d\d-\d\d\.csv", download.value.suggested_filename)
    csv_header = open(download.value.path(), encoding="utf-8").readline()
    assert "CNEC exact match % ↑" in csv_header and "NER score %" in csv_header


def check_rank_and_model_stay_pinned_and_headers_wrap_at_words(page):
    first_row = cells(rows(page).first)
    before = [first_row.nth(i).bounding_box()["x"] for i in range(3)]
    page.locator("#board .board-scroll").evaluate("e => e.scrollLeft = 600")
    page.wait_for_function("([cell, x]) => cell.getBoundingClientRect().x < x - 300",  # the scroll has been painted
                           arg=[first_row.nth(2).element_handle(), before[2]])
    after = [first_row.nth(i).bounding_box()["x"] for i in range(3)]
    assert after[:2] == before[:2], (before, after)  # Rank and Model did not move
    on_top = page.locator("#board thead th").evaluate_all("""ths => ths.slice(0, 2).map(th => {
        const b = th.getBoundingClientRect();
        return th.contains(document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2)); })""")
    assert on_top == [True, True]  # their headers too, above the scrolled ones
    assert after[2] < before[2] - 300  # the scores did
    shot(page, "09_scrolled_right", full_page=False)
    for th in page.locator("#board thead th .header").all():  # no word is broken across lines
        words = th.inner_text().split()
        lines = th.evaluate("e => { const r = document.createRange(); r.selectNodeContents(e); "
                            "return [...r.getClientRects()].length }")
        assert lines <= len(words), (th.inner_text(), lines)


def test_sort_control_and_empty_filters_explain_themselves(page):
    expect(rows(page)).to_have_count(5)
    index = headers(page).index("Parameters (B)")
    largest_first = sorted(column(page, index), key=float, reverse=True)
    choose(page, "sort", "Parameters (B)")
    expect(page).to_have_url(re.compile(r"sort=parameters"))
    expect(page.locator(f"#board tbody td:nth-child({index + 1})")).to_have_text(largest_first)
    type_into(page, "search", "no such model at all")
    expect(page.locator("#board-note")).to_contain_text("No model matches", timeout=15000)
    type_into(page, "search", "")
    open_filters(page)
    page.locator("#min-params input").fill("70")
    page.locator("#max-params input").fill("7")
    page.locator("#max-params input").press("Enter")
    expect(page.locator("#board-note")).to_contain_text("above the maximum", timeout=15000)
    expect(page.locator("#min-params input")).to_have_value("70")
    shot(page, "10_empty_filters")


def test_what_is_typed_before_the_page_has_loaded_is_kept(browser, app_url):
    """A busy server answers the page's load events late: what the visitor typed meanwhile
    stays, and the table shows it (the answer once emptied the number fields and the search
    after the typing, and showed the whole board under the visitor's filters)."""
    page = blank_page(browser)
    held, typed = [], []  # the page's load calls (Gradio's trigger 0), let through once the visitor has typed

    def hold_load_calls(route):
        if route.request.method == "POST" and '"trigger_id":0' in (route.request.post_data or "") and not typed:
            held.append(route)
        else:
            route.continue_()
    page.route("**/gradio_api/**", hold_load_calls)
    page.goto(app_url[0])
    expect(rows(page)).to_have_count(5)  # the table built with the page
    open_filters(page)
    page.locator("#min-params input").fill("70")
    page.locator("#min-params input").press("Enter")
    note = page.locator("#board-note")
    expect(note).to_contain_text("No model matches 70–any B parameters", timeout=15000)  # the visitor's own call
    type_into(page, "search", "no such model")
    expect(note).to_contain_text("“no such model” in the model or team name, 70–any B", timeout=15000)
    page.get_by_role("tab", name="Submit").click()
    page.locator("#params input").fill("7")
    page.locator("#input-length input").fill("4096")
    assert held, "the load events were not held back"
    typed.append(True)
    for route in held:
        route.continue_()
    for route in held:  # each answer received whole (`response` and `finished` wait for it)
        response = route.request.response()
        assert response is not None and response.finished() is None, route.request.url
    expect(page.locator("#params input")).to_have_value("7")
    expect(page.locator("#input-length input")).to_have_value("4096")
    page.get_by_role("tab", name="Leaderboard").click()
    expect(page.locator("#min-params input")).to_have_value("70")
    expect(page.locator("#search input, #search textarea").first).to_have_value("no such model")
    expect(note).to_contain_text("“no such model” in the model or team name, 70–any B", timeout=15000)
    expect(rows(page)).to_have_count(0)
    close(page)


def test_a_link_restores_the_view_and_can_be_copied(browser, app_url):
    page = open_page(browser, app_url[0])
    expect(rows(page)).to_have_count(5)
    choose(page, "category", "NER")
    expect(page.locator("#board thead th .header").first).to_have_text("NER rank", timeout=15000)
    page.locator("#values").get_by_text("Metric value", exact=True).click()
    type_into(page, "search", "v1")
    page.wait_for_url(re.compile("search=v1"))
    assert "category=NER" in page.url and "values=metric" in page.url and "search=v1" in page.url
    page.locator("#copy-link").click()
    expect(page.locator("#link-box textarea, #link-box input").first).to_have_value(page.url)
    shown = column(page, 1)
    link = page.url
    close(page)
    other = open_page(browser, link, own_context=True)  # someone opening the shared link
    expect(other.locator("#board thead th .header").first).to_have_text("NER rank")
    expect(other.locator("#search input, #search textarea").first).to_have_value("v1")
    expect(other.locator("#values input[value=metric]")).to_be_checked()
    assert any("exact match %" in h for h in headers(other))
    assert column(other, 1) == shown
    close(other)


def test_phone_shows_a_score_on_the_first_screen_and_every_tab(phone):
    expect(rows(phone)).to_have_count(5)
    score = cells(rows(phone).first).nth(2)
    box = score.bounding_box()
    assert box["y"] + box["height"] <= 844 and box["x"] + 20 <= 390, box  # visible without scrolling
    assert re.fullmatch(r"\d+\.\d\d", score.inner_text().strip())
    for name in ("Leaderboard", "Details", "Submit", "About"):
        expect(phone.get_by_role("tab", name=name)).to_be_visible()
    shot(phone, "11_phone_first_screen", full_page=False)
    phone.get_by_role("tab", name="Details").click()
    expect(rows(phone, "duels")).to_have_count(4)
    shot(phone, "12_phone_details")


def test_model_details_show_duels_in_rank_order_with_units_and_a_summary(page):
    page.get_by_role("tab", name="Details").click()
    expect(rows(page, "duels")).to_have_count(4)  # the top model against the other four
    text = " ".join(rows(page, "duels").all_inner_texts())  # Overall: duels counted per category
    assert re.search(r"\d+ won · \d+ lost\s+\d+ n\.s\.", text), text
    expect(page.locator("#duels thead th")).to_have_count(10)  # competitor + 9 categories
    assert [c.split(".")[0] for c in column(page, 0, "duels")] == ["2", "3", "4", "5"]  # by rank
    expect(page.get_by_text("Rank 1 of 5")).to_be_visible()
    expect(page.locator("#duels-explained")).to_contain_text("p = 1: not tested")
    expect(page.locator("#duel-summary")).to_contain_text("Factual Knowledge")
    shot(page, "03_model_details")
    choose(page, "details-category", "Language Modeling")  # drives card, chart, summary and grid
    expect(page.locator("#card")).to_contain_text("Language Modeling: rank")
    expect(page.locator("#bars")).to_contain_text("Language Modeling: score per task")
    expect(page.locator("#duels thead th")).to_have_count(9)  # competitor + 8 tasks
    text = " ".join(rows(page, "duels").all_inner_texts())
    assert "perplexity" in text and "p = " in text and "Δ " in text
    expect(page.locator("#duel-summary")).not_to_contain_text("Factual Knowledge")
    assert "details_category=Language+Modeling" in page.url
    page.locator("#model-pick input").click()
    page.get_by_role("option").nth(2).click()
    expect(page.get_by_text("Rank 1 of 5")).to_be_hidden()
    expect(rows(page, "duels")).to_have_count(4)
    shot(page, "13_model_details_category")


def test_a_leaderboard_row_links_to_its_model_details(page):
    expect(rows(page)).to_have_count(5)
    title = column(page, 1)[2]
    rows(page).nth(2).locator("a").click()  # in the page, with a URL of its own (Back returns: test_e2e_layout.py)
    expect(page.locator("#card")).to_contain_text("Rank 3 of 5")
    expect(page.locator("#model-pick input")).to_have_value(title)
    assert "tab=details" in page.url


def test_invalid_file_shows_error_and_publishes_nothing(page, app_url, tmp_path, new_model_file):
    store = app_url[1]
    before = tree_digest(store)
    doc = json.loads(new_model_file.read_text())
    doc["predictions"]["benczechmark_propaganda_argumentace"][3]["avg_mcauroc"][1] = "high"
    doc["predictions"].pop("benczechmark_cs_ner")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    check_unset_number_fields_are_empty(page)  # on the same page, before the form is filled
    fill_form(page, bad, "E2E Team", "broken", input_length="12.5")
    page.locator("#presubmit").click()
    expect(page.locator("#status")).to_contain_text("not accepted")
    file_errors, form_errors = page.locator("#file-errors"), page.locator("#form-errors")
    expect(file_errors).to_contain_text("CNEC (benczechmark_cs_ner)")  # the missing task, as the table names it
    expect(file_errors).to_contain_text("benczechmark_propaganda_argumentace")  # the bad sample
    expect(form_errors).to_contain_text("Input length: a whole number")  # 12.5 tokens refused, not rounded
    expect(form_errors).not_to_contain_text("benczechmark")
    assert form_errors.bounding_box()["y"] < page.locator("#file").bounding_box()["y"]  # by the form
    assert file_errors.bounding_box()["y"] > page.locator("#file").bounding_box()["y"]  # by the file
    expect(page.locator("#publish")).to_be_hidden()
    shot(page, "04_invalid_file")
    assert tree_digest(store) == before


def check_unset_number_fields_are_empty(page):
    open_filters(page)
    expect(page.locator("#min-params input")).to_have_value("")
    expect(page.locator("#max-params input")).to_have_value("")
    page.get_by_role("tab", name="Submit").click()
    expect(page.locator("#params input")).to_have_value("")
    expect(page.locator("#input-length input")).to_have_value("")


def test_presubmit_preview_and_publish(page, browser, app_url, new_model_file):
    store = app_url[1]
    other = open_page(browser, app_url[0], own_context=True)  # another visitor, page open before the publication
    expect(rows(other)).to_have_count(5)
    team = "E2E <img src=x onerror=alert(1)> O'Brien's Team"  # must show as text everywhere
    fill_form(page, new_model_file, team, "e2e-model")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text("would rank")
    expect(status).to_be_in_viewport()
    expect(status).to_contain_text(f"{team}/e2e-model would rank")  # apostrophes as apostrophes
    expect(rows(page, "preview")).to_have_count(6)
    new_row = page.locator("#preview [role=row]").filter(has_text="★")
    expect(new_row).to_contain_text(f"★ {team}/e2e-model")
    expect(new_row).to_contain_text("new")
    expect(new_row).to_be_in_viewport()
    shot(page, "05_preview")
    assert len(list((store / "data").glob("*.json"))) == 5  # nothing stored yet
    page.locator("#publish").click()
    expect(page.locator("#confirm")).to_be_visible()
    shot(page, "06_confirm")
    page.locator("#confirm").click()
    expect(status).to_contain_text("Published")
    expect(status).to_contain_text(f"{team}/e2e-model")
    expect(status).to_be_in_viewport()
    assert len(list((store / "data").glob("*.json"))) == 6
    published_row = page.locator("#preview [role=row]").filter(has_text=f"{team}/e2e-model")
    expect(published_row).to_contain_text("published")  # no longer "new"
    expect(published_row.locator("[role=gridcell]").nth(1)).not_to_have_text("new")
    expect(published_row.locator("a")).to_have_attribute("href", re.compile(r"tab=details&model="))
    details_link = status.get_by_role("link", name="See its details")
    expect(details_link).to_have_attribute("href", re.compile(r"\?tab=details&model="))
    shot(page, "06_published_status")
    page.get_by_role("tab", name="Leaderboard").click()
    expect(rows(page)).to_have_count(6)
    expect(page.locator("#board table")).to_contain_text(f"{team}/e2e-model")
    shot(page, "07_published")
    page.get_by_role("tab", name="Submit").click()
    details_link.click()  # the new model's details, in the page at a URL of its own (static/history.js)
    expect(page.get_by_role("tab", name="Details")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#card")).to_contain_text(f"{team}/e2e-model")
    expect(page.locator("#model-pick input")).to_have_value(f"{team}/e2e-model")
    assert "tab=details&model=" in page.url
    expect(rows(page, "duels")).to_have_count(5)
    # The other visitor's page follows the board: model list, card and ranking.
    other.get_by_role("tab", name="Details").click()
    expect(other.locator("#card")).to_contain_text("of 6")
    other.locator("#model-pick input").click()
    expect(other.get_by_role("option", name=f"{team}/e2e-model", exact=True)).to_be_visible()
    other.keyboard.press("Escape")
    other.get_by_role("tab", name="Leaderboard").click()
    expect(rows(other)).to_have_count(6)
    assert not other.dialogs
    close(other)


def test_cancel_discards_the_presubmission(page, app_url, tmp_path, full_benchmark):
    store = app_url[1]
    _, document, _ = demo_model(full_benchmark, 9, seed=0)
    new_model_file = tmp_path / "other_model.json"
    new_model_file.write_bytes(dump_json(document))
    before = tree_digest(store, exclude=PRESUBMISSIONS_DIR)
    fill_form(page, new_model_file, "Cancel Team", "kept-out")
    with page.expect_download() as sample:
        page.locator("#sample").click()
    assert json.loads(open(sample.value.path(), encoding="utf-8").read())["predictions"]
    page.locator("#presubmit").click()
    expect(page.locator("#status")).to_contain_text("would rank")
    page.locator("#publish").click()
    page.locator("#cancel").click()
    expect(page.locator("#status")).to_contain_text("discarded")
    expect(page.locator("#confirm")).to_be_hidden()
    expect(page.locator("#publish")).to_be_hidden()
    assert tree_digest(store, exclude=PRESUBMISSIONS_DIR) == before  # only the pre-submission's record was written
    assert '"team":"Cancel Team"' in "".join(p.read_text() for p in (store / PRESUBMISSIONS_DIR).glob("*.jsonl"))


def test_a_new_presubmission_clears_the_previous_status(page, tmp_path, new_model_file):
    """While a pre-submission runs, the status shows its progress alone, not over the
    previous pre-submission's outcome, whose messages are gone (the server's answer held
    back until that is seen)."""
    bad = tmp_path / "bad.json"
    doc = json.loads(new_model_file.read_text())
    doc["predictions"].pop("benczechmark_cs_ner")
    bad.write_text(json.dumps(doc))
    fill_form(page, bad, "Status Team", "twice")
    status = page.locator("#status")
    page.locator("#presubmit").click()
    expect(status).to_contain_text("not accepted")
    held = []
    page.route("**/gradio_api/queue/join*", lambda route: held.append(route))
    with page.expect_request(lambda r: "/gradio_api/queue/join" in r.url):
        page.locator("#presubmit").click()
    expect(status).not_to_contain_text("not accepted", timeout=5000)
    expect(page.locator("#file-errors")).not_to_contain_text("missing tasks", timeout=5000)
    timer = status.get_by_test_id("status-tracker").locator(".progress-text")  # the run's own progress
    timer.scroll_into_view_if_needed()
    assert timer.evaluate("e => { const r = e.getBoundingClientRect(); "
                          "return e.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)) }")
    shot(page, "04b_presubmit_pending", full_page=False)
    for route in held:
        route.continue_()
    page.unroute("**/gradio_api/queue/join*")
    expect(status).to_contain_text("not accepted")
    expect(page.locator("#file-errors")).to_contain_text("missing tasks (1 of 50)")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_sample_file_is_pre_submitted_but_never_published(browser, app_url, viewport, tmp_path):
    """The Submit tab's sample file: its pre-submission says it is the sample; publishing
    it is refused with the reason, and nothing is stored."""
    store = app_url[1]
    before = tree_digest(store)
    page = open_page(browser, app_url[0], viewport)
    page.get_by_role("tab", name="Submit").click()
    with page.expect_download() as sample:
        page.locator("#sample").click()
    path = tmp_path / "sample.json"
    sample.value.save_as(path)
    fill_form(page, path, "Sample Team", "the-sample")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text("would rank")
    expect(status).to_contain_text("this is the leaderboard's sample file: it can be pre-submitted, never published")
    shot(page, "08_sample_presubmitted", full_page=False)
    page.locator("#publish").click()
    page.locator("#confirm").click()
    expect(status).to_contain_text("this is the leaderboard's sample file, which cannot be published")
    expect(status).to_be_in_viewport()
    shot(page, "09_sample_refused", full_page=False)
    assert tree_digest(store) == before
    assert not page.dialogs
    close(page)
