"""A .zip of lm-evaluation-harness output through the Submit tab in Chromium, at desktop and
phone sizes: compiled on the server, the form filled in from the logs, pre-submitted,
published, and its provenance shown in the model details. Screenshots in test-artifacts/."""
from __future__ import annotations

from support.own_app import app_url  # noqa: F401 (fixture: an app of the module's own, whose store its tests change)

from support.archives import zip_folder
from support.pages import DESKTOP, PHONE, close, open_page, rows, shot
from support.servers import serve_in_process
from support.stores import tree_digest

import os
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from harness_logs import DATE_A, MODEL, write_run, write_two_runs
from leaderboard.submission.demo import demo_model
# app_url: a fresh app on a copy of the 5-model store, one per test module


@pytest.fixture(scope="module")
def harness_zip(tmp_path_factory, full_benchmark):
    root = tmp_path_factory.mktemp("logs") / "lm_eval_output"
    write_two_runs(root, full_benchmark, demo_model(full_benchmark, 11, seed=0)[1], variants={"benczechmark_agree": 12})
    return zip_folder(root, root.parent / "harness_output.zip")


@pytest.fixture(scope="module")
def escaping_zip(tmp_path_factory):
    path = tmp_path_factory.mktemp("bad") / "escaping.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("run/results_2025-10-01T09-15-02.json", "{}")
        z.writestr("../../outside.txt", "x")
    return path


def upload(page, path):
    page.get_by_role("tab", name="Submit").click()
    page.locator("#file input[type=file]").set_input_files(str(path))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_unsafe_archive_is_refused_with_its_entry_named(browser, app_url, escaping_zip, viewport):
    before = tree_digest(app_url[1])
    page = open_page(browser, app_url[0], viewport)
    upload(page, escaping_zip)
    errors = page.locator("#file-errors")
    expect(errors).to_contain_text("The archive was not accepted")
    expect(errors).to_contain_text("'../../outside.txt' points outside the archive's folder")
    expect(page.locator("#compiled")).to_be_hidden()
    shot(page, "21_zip_refused")
    assert tree_digest(app_url[1]) == before and not (escaping_zip.parent.parent / "outside.txt").exists()
    close(page)


def test_a_harness_zip_is_compiled_prefilled_presubmitted_published_with_provenance(browser, app_url, harness_zip):
    page = open_page(browser, app_url[0], DESKTOP)
    upload(page, harness_zip)
    expect(page.locator("#file-errors")).to_contain_text("Compiled from the harness output: 50 tasks", timeout=120000)
    expect(page.locator("#model textarea, #model input").first).to_have_value(MODEL.split("/")[1])
    expect(page.locator("#input-length input")).to_have_value("4096")
    expect(page.locator("#params input")).to_have_value("9.12")
    expect(page.locator("#compiled")).to_be_visible()
    with page.expect_download() as download:
        page.locator("#compiled").click()
    assert download.value.suggested_filename.endswith("_submission.json")
    shot(page, "22_zip_compiled")
    page.locator("#team textarea, #team input").first.fill("Harness Team")
    page.locator("#link textarea, #link input").first.fill("https://example.com/harness")
    page.locator("#presubmit").click()
    expect(page.locator("#status")).to_contain_text("would rank", timeout=120000)
    expect(rows(page, "preview")).to_have_count(6)
    shot(page, "23_zip_presubmitted")
    page.locator("#publish").click()
    page.locator("#confirm").click()
    expect(page.locator("#status")).to_contain_text("Published", timeout=120000)
    page.get_by_role("tab", name="Details").click()
    card = page.locator("#card")
    expect(card).to_contain_text("Harness Team/Buk-9B-v1")
    expect(card).to_contain_text("How it was evaluated")
    for text in ("lm-evaluation-harness", "0.4.13 (commit 4e7e0d4)", "0 on all 50 tasks", "Chat template", "not used",
                 "Evaluation time", "2.2 h", "50 tasks, fingerprint"):
        expect(card).to_contain_text(text)
    shot(page, "24_zip_model_details_provenance")
    close(page)


def test_phone_compiles_a_zip_and_shows_provenance(browser, app_url, harness_zip):
    page = open_page(browser, app_url[0], PHONE)
    upload(page, harness_zip)
    expect(page.locator("#file-errors")).to_contain_text("Compiled from the harness output", timeout=120000)
    box = page.locator("#compiled").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box  # fits the screen
    shot(page, "25_phone_zip_compiled")
    page.get_by_role("tab", name="Details").click()
    expect(page.locator("#card")).to_contain_text("How it was evaluated")
    shot(page, "26_phone_details_provenance")
    close(page)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_zip_upload_shows_its_progress_holds_presubmit_and_fills_the_team(browser, app_url, full_benchmark,
                                                                            tmp_path, viewport):
    """The compile takes seconds: the page says so and Pre-submit waits for it; the team
    comes from the harness model name's owner (Brno-NLP/Buk-9B-v1)."""
    root = tmp_path / "lm_eval_output"  # a zip of its own: a zip compiled before is answered from memory
    write_two_runs(root, full_benchmark, demo_model(full_benchmark, 20 + viewport["width"] % 7, seed=0)[1])
    page = open_page(browser, app_url[0], viewport)
    upload(page, zip_folder(root, tmp_path / "harness_output.zip"))
    presubmit = page.locator("#presubmit")
    expect(presubmit).to_be_disabled(timeout=10000)
    expect(page.locator("#file-errors")).to_contain_text("Compiling the archive")
    presubmit.scroll_into_view_if_needed()
    shot(page, "27_zip_compiling")
    expect(page.locator("#file-errors")).to_contain_text("Compiled from the harness output", timeout=120000)
    expect(presubmit).to_be_enabled()
    expect(page.locator("#team textarea, #team input").first).to_have_value(MODEL.split("/")[0])
    expect(page.locator("#model textarea, #model input").first).to_have_value(MODEL.split("/")[1])
    presubmit.scroll_into_view_if_needed()
    close(page)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_chat_run_of_a_local_checkpoint_fills_the_type_and_asks_for_the_public_name(
        browser, app_url, full_benchmark, tmp_path, viewport):
    """Logs that record a chat template pre-select the chat type and say why; a model_name
    that is a folder on the submitter's machine fills Model name with a hint to edit it
    (issue 32, item 12)."""
    root = tmp_path / "lm_eval_output"
    write_run(root, full_benchmark, full_benchmark.task_ids,
              demo_model(full_benchmark, 30 + viewport["width"] % 7, seed=0)[1], DATE_A,
              model="/scratch/project/dd-24-5/ckpt/csmpt-step-5000", chat_template="{{ messages }}")
    page = open_page(browser, app_url[0], viewport)
    upload(page, zip_folder(root, tmp_path / "harness_output.zip"))
    errors = page.locator("#file-errors")
    expect(errors).to_contain_text("Compiled from the harness output", timeout=120000)
    expect(errors).to_contain_text("Model type: chat, as the logs record a chat template")
    expect(errors).to_contain_text("Model name: csmpt-step-5000, the last part of a local path in the logs; "
                                   "give the model's public name")
    expect(page.locator("#model-type input")).to_have_value("chat")
    expect(page.locator("#model textarea, #model input").first).to_have_value("csmpt-step-5000")
    expect(page.locator("#team textarea, #team input").first).to_have_value("")  # no owner in a path
    errors.scroll_into_view_if_needed()
    shot(page, "28_zip_chat_local_checkpoint", full_page=False)
    close(page)


def served_with(**settings):
    """A module's fixture: the app built with `settings` (Settings' fields): (url, Gradio's cache folder)."""
    @pytest.fixture(scope="module")
    def served(tmp_path_factory, full_store_template):
        with serve_in_process(tmp_path_factory, full_store_template, **settings) as (url, _, _, cache):
            yield url, cache
    return served


one_upload_an_hour = served_with(uploads_per_hour=1)  # one upload per address an hour
small_temporary_disk = served_with(temp_disk_mb=8)  # a client's share of the temporary disk is 1 MB


@pytest.mark.parametrize("viewport, address", [(DESKTOP, "10.0.5.1"), (PHONE, "10.0.5.2")], ids=["desktop", "phone"])
def test_an_upload_past_the_hourly_bound_is_refused_on_the_page_with_when_to_retry(
        browser, one_upload_an_hour, new_model_file, viewport, address, tmp_path):
    """Each viewport from an address of its own (through the trusted local proxy's
    X-Forwarded-For), so neither uses the other's upload."""
    url, cache = one_upload_an_hour
    second = tmp_path / "second_upload.json"
    second.write_bytes(new_model_file.read_bytes())
    second_upload_refused(open_page(browser, url, viewport, address), new_model_file, second, cache,
                          "Too many uploads from your address: 1 in the last hour; try again in 60 minutes",
                          "28_upload_refused")


def second_upload_refused(page, first: Path, second: Path, cache: Path, message: str | re.Pattern,
                          shot_name: str) -> None:
    """`first` uploaded on the page, then `second` in its place: refused with `message` (a
    toast, saved in a screenshot), and not stored in Gradio's `cache`. The page is closed."""
    upload(page, first)
    # the cell's accessible name: on a phone the visible text breaks the name in two
    expect(page.locator("#file").get_by_role("cell", name=first.name)).to_be_visible()
    page.locator("#file button[aria-label='Clear']").click()
    page.locator("#file input[type=file]").set_input_files(str(second))
    expect(page.get_by_text(message)).to_be_visible()
    toast = page.locator(".toast-wrap, .toast-messages").first  # faded in: opaque for the screenshot
    toast.evaluate("e => Promise.all(e.getAnimations({subtree: true}).map((a) => a.finished))")
    shot(page, shot_name, full_page=False)
    assert list(cache.rglob(second.name)) == []
    close(page)


@pytest.mark.parametrize("viewport, address", [(DESKTOP, "10.0.7.1"), (PHONE, "10.0.7.2")], ids=["desktop", "phone"])
def test_an_upload_past_the_clients_share_of_the_temporary_disk_is_refused_on_the_page(
        browser, small_temporary_disk, viewport, address, tmp_path):
    """The message says whose share is used up and when to retry; what was refused is not stored."""
    url, cache = small_temporary_disk
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for path in (first, second):
        path.write_bytes(os.urandom(600 * 1024))
    second_upload_refused(open_page(browser, url, viewport, address), first, second, cache,
                          re.compile(r"The upload needs 0.6 MB of temporary space and your address's share of it is "
                                     r"in use \(0.6 MB of 1 MB\); try again in 1[56] minutes"),
                          "29_upload_past_the_share")
