"""The pre-submission's preview (issues 36 and 35), in Chromium on a desktop (1440x900) and a
phone (390x844): after a pre-submission the new model's row and its neighbours are whole in
the window with the outcome's headline, the visitor having scrolled nowhere; the preview holds
that neighbourhood, not the whole would-be ranking, which is a click away, a page at a time
(the main table's pager). The preview's answer carries that neighbourhood; the new model's
duels grid, most of the bytes, follows in an event of its own.

Screenshots are saved in test-artifacts/.
"""
from __future__ import annotations

from support.benchmarks import BENCHMARKS
from support.page_sessions import FORM, PageSession, shown
from support.pages import DESKTOP, PHONE, close, fill_form, open_page, rows, settled, shot
from support.servers import PAGED_MODELS, PAGED_ROWS

import json
import re

import pytest
from playwright.sync_api import expect

from leaderboard.config.tasks import load_benchmark
from leaderboard.strict_json import dump_json
from leaderboard.submission.demo import demo_model

MODELS, PAGE_ROWS = PAGED_MODELS, PAGED_ROWS  # conftest's `paged_app`, 13 models
PAGES = 4  # of 14 rows with the new one: more than a neighbourhood, several pages
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def preview_file(tmp_path_factory):
    """A model's file the board does not hold (the demo's next model)."""
    _, document, _ = demo_model(load_benchmark(BENCHMARKS["BenCzechMark"]), MODELS, seed=0)
    path = tmp_path_factory.mktemp("preview") / "preview_model.json"
    path.write_bytes(dump_json(document))
    return path


def whole_in_window(locator) -> bool:
    return locator.evaluate("e => { const b = e.getBoundingClientRect(); "
                            "return b.top >= -0.5 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth; }")


def row_in_window(row) -> bool:
    """The row's height in the window, and its rank, change, model and score cells (the
    columns right of them scroll sideways)."""
    return row.evaluate("""r => { const b = r.getBoundingClientRect();
        return b.top >= 0 && b.bottom <= innerHeight && [...r.querySelectorAll('[role=gridcell]')].slice(0, 4)
            .every(c => { const cb = c.getBoundingClientRect(); return cb.left >= 0 && cb.right <= innerWidth; }); }""")


def new_row(page):
    return rows(page, "preview").filter(has_text="★")


@VIEWPORTS
def test_the_preview_shows_the_new_row_and_its_neighbours_and_pages_the_whole_ranking(
        browser, paged_app, preview_file, viewport):
    page = open_page(browser, paged_app, viewport)
    settled(page)
    fill_form(page, preview_file, "Preview Team", "preview-model")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text("would rank")
    rank = int(re.search(r"would rank (\d+) of 14", status.inner_text()).group(1))
    expect(new_row(page)).to_contain_text("★ Preview Team/preview-model")
    expect(rows(page, "preview-duels").first).to_be_visible()  # the grid follows the rows
    page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
    shot(page, "50_preview_first_screen", full_page=False)
    # the headline and the new row whole in the window, as the page left it after the click
    assert whole_in_window(status.locator("h3")), status.locator("h3").bounding_box()
    assert row_in_window(new_row(page)), (new_row(page).bounding_box(), page.evaluate("innerHeight"))
    # a neighbourhood, not the whole ranking: rows around the new one, in rank order
    shown = rows(page, "preview").evaluate_all("rs => rs.map(r => r.querySelector('[role=gridcell]').innerText.trim())")
    ranks = [int(r) for r in shown]
    assert rank in ranks and len(ranks) < 14 and ranks == sorted(ranks), (rank, ranks)
    assert all(r in ranks for r in range(max(1, rank - 2), min(14, rank + 2) + 1)), (rank, ranks)
    # the whole would-be ranking a click away, a page at a time, from the new model's page
    page.locator("#preview-whole").click()
    pager = page.locator("#preview-page-of")
    page_of_model = (rank - 1) // PAGE_ROWS + 1
    expect(pager).to_contain_text(f"Page {page_of_model} of {PAGES}")
    expect(new_row(page)).to_be_visible()
    expect(rows(page, "preview")).to_have_count(PAGE_ROWS if page_of_model < PAGES else 14 - 3 * PAGE_ROWS)
    page.locator("#preview-page-first").click()
    expect(pager).to_contain_text(f"Page 1 of {PAGES}")
    expect(rows(page, "preview").first.locator("[role=gridcell]").first).to_have_text("1")
    page.locator("#preview-page-next").click()
    expect(pager).to_contain_text(f"Page 2 of {PAGES}")
    expect(rows(page, "preview").first.locator("[role=gridcell]").first).to_have_text(str(PAGE_ROWS + 1))
    page.locator("#preview-page-last").click()
    expect(pager).to_contain_text(f"Page {PAGES} of {PAGES}")
    expect(rows(page, "preview")).to_have_count(14 - 3 * PAGE_ROWS)
    shot(page, "51_preview_paged", full_page=False)
    page.locator("#preview-whole").click()  # back to the new model's neighbourhood
    expect(new_row(page)).to_be_visible()
    expect(pager).to_be_hidden()
    expect(rows(page, "preview-duels").first).to_be_visible()
    shot(page, "52_preview_with_duels")
    assert not page.dialogs
    close(page)


def test_the_preview_answers_with_the_neighbourhood_and_the_duels_grid_follows(paged_app, preview_file):
    """Through the page's own calls: the pre-submission's answer holds the ranking's rows and
    hides the duels grid; the event after it (the page chains it) gives the grid."""
    session = PageSession(paged_app)
    labels = {c["id"]: c["props"].get("label") for c in session.components}
    outputs = next(d["outputs"] for d in session.dependencies if d.get("api_name") == "presubmit")
    answer = session.call("presubmit", [*FORM, session.upload(preview_file)])
    assert "would rank" in answer[0], answer[0]
    grid = answer[[labels[o] for o in outputs].index("Your model's duels")]
    assert grid == {"__type__": "update", "visible": False}, grid
    shown = session.call("duels_view", [None])[0]
    assert shown["visible"] and shown["value"]["data"], shown


def test_a_json_upload_is_read_as_it_arrives_and_its_pre_submission_reads_it_no_more(
        tmp_path_factory, full_store_template, preview_file, monkeypatch):
    """Through the page's own calls, on an app served in this process: the upload's event
    reads the file (so the click to preview does not wait for the parse); the pre-submission
    uses that reading."""
    from support.servers import serve_in_process
    from leaderboard.board import publishing

    reads = []
    parse = publishing.parse_submission
    monkeypatch.setattr(publishing, "parse_submission", lambda *a, **k: reads.append(a[0]) or parse(*a, **k))
    with serve_in_process(tmp_path_factory, full_store_template) as (url, *_):
        session = PageSession(url)
        upload = session.upload(preview_file)
        team, model, model_type, params, input_length, precision, _, _ = FORM
        session.call("uploaded", [upload, team, model, model_type, input_length, params, precision])
        assert len(reads) == 1
        answer = session.call("presubmit", [*FORM, upload])
        assert "would rank" in answer[0], answer[0]
        assert len(reads) == 1, "the pre-submission read the file again"


def test_a_json_upload_read_after_its_pre_submission_leaves_the_files_messages(paged_app, preview_file, tmp_path):
    """Through the page's own calls, in the order a loaded server can answer them (seen in CI):
    the click to pre-submit a bad JSON file is answered first, with what is wrong with it,
    and the upload's own reading of the file ends after. That reading's answer leaves the
    file's messages as the pre-submission left them; a new upload is what clears them."""
    document = json.loads(preview_file.read_text())
    document["predictions"].pop("benczechmark_cs_ner")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    session = PageSession(paged_app)
    upload = session.upload(bad)
    _, _, file_errors, *_ = session.call("presubmit", [*FORM, upload])
    assert "CNEC (benczechmark_cs_ner)" in shown(file_errors), file_errors
    team, model, model_type, params, input_length, precision, _, _ = FORM
    read = session.call("uploaded", [upload, team, model, model_type, input_length, params, precision])
    assert read[0] == {"__type__": "update"}, read[0]  # Gradio's "no change"
    cleared = session.run("compiling", [session.upload(preview_file)])  # at the next upload, before its reading
    assert cleared[0] == "", cleared


def test_the_duels_a_preview_leaves_to_its_publication_start_at_the_click_to_publish(
        tmp_path_factory, full_store_template, preview_file, monkeypatch):
    """Through the page's own calls, on an app served in this process: a pre-submission runs
    no duel ahead of its publication (most previews are never published, and at 10,000
    models an entering one's took a core for seconds while other visitors' pages loaded);
    the click to publish, which asks for the confirmation, starts them, once."""
    from support.servers import serve_in_process
    from leaderboard.board.publishing import Publishing

    started = []
    monkeypatch.setattr(Publishing, "duel_ahead", lambda self, preview, pool: started.append(preview.submission_id))
    with serve_in_process(tmp_path_factory, full_store_template) as (url, *_):
        session = PageSession(url)
        answer = session.call("presubmit", [*FORM, session.upload(preview_file)])
        assert "would rank" in answer[0], answer[0]
        assert started == []
        session.call("confirming", [None])  # Gradio takes the token from the session's state
        assert len(started) == 1
