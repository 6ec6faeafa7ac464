"""The web app in a real headless Chromium: browsing, model details, pre-submission, publication.

Screenshots of each step are saved in test-artifacts/.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import re

import pytest
from playwright.sync_api import expect, sync_playwright

from conftest import tree_digest
from leaderboard.demo import demo_model
from leaderboard.store import dump_json

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(env: dict, log_path: Path, seconds: float = 180.0) -> subprocess.Popen:
    """Start app.py and return once it says it is serving (no polling): its output is
    copied to log_path by a thread, which signals the "Running on" line."""
    process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    serving = threading.Event()

    def copy_output():
        with open(log_path, "w") as log:
            for line in process.stdout:
                log.write(line)
                log.flush()
                if "Running on local URL" in line:
                    serving.set()
        serving.set()  # the app exited: stop waiting

    threading.Thread(target=copy_output, daemon=True).start()
    if not serving.wait(seconds) or process.poll() is not None:
        process.kill()
        raise RuntimeError(f"the app did not start; see {log_path}")
    return process


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, full_store_template):
    store = tmp_path_factory.mktemp("e2e") / "store"
    shutil.copytree(full_store_template, store)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    process = start_app(env, tmp_path_factory.mktemp("log") / "app.log")
    try:
        yield f"http://127.0.0.1:{port}/", store
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    dialogs = []  # an alert() would mean a user string ran as HTML
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(app_url[0])
    yield page
    assert not dialogs, dialogs
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def choose(page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def rows(page, elem_id: str = "board"):
    """Gradio's Dataframe renders its rows virtually, as div[role=row]."""
    return page.locator(f"#{elem_id} div[role=row]")


def test_leaderboard_shows_ranked_rows_and_category_columns(page):
    expect(rows(page)).to_have_count(5, timeout=30000)
    first = rows(page).first
    expect(first.locator("[role=gridcell]").first).to_have_text("1")
    headers = page.locator("#board thead th")
    expect(headers.filter(has_text="Overall")).to_have_count(1)
    shot(page, "01_leaderboard_overall")
    choose(page, "category", "NER")
    expect(headers.filter(has_text="CNEC")).to_have_count(1, timeout=15000)
    expect(headers.filter(has_text="CCDNER")).to_have_count(1)
    expect(headers.filter(has_text="Overall")).to_have_count(0)
    expect(page.get_by_text("Czech Court Decisions")).to_be_visible()  # the legend
    expect(headers.filter(has_text="CNEC").first).to_have_attribute("title", re.compile("Czech Named Entity"))
    page.get_by_text("Plot: score against model size").click()
    expect(page.locator("#scatter .ytitle")).to_have_text("NER (%)", timeout=30000)
    expect(page.locator("#scatter .point")).to_have_count(5)
    shot(page, "02_leaderboard_ner")


def test_model_details_show_a_duel_table(page):
    page.get_by_role("tab", name="Model details").click()
    expect(rows(page, "duels")).to_have_count(4, timeout=30000)  # the top model against the other four
    text = " ".join(rows(page, "duels").all_inner_texts())
    assert "p=" in text and "Δ=" in text and any(v in text for v in ("won", "lost", "n.s."))
    expect(page.get_by_text("Rank 1 of 5")).to_be_visible()
    page.locator("#model-pick input").click()
    page.get_by_role("option").nth(2).click()
    expect(page.get_by_text("Rank 1 of 5")).to_be_hidden(timeout=30000)
    expect(rows(page, "duels")).to_have_count(4)
    shot(page, "03_model_details")


def fill_form(page, file: Path, team: str, model: str):
    page.get_by_role("tab", name="Submission").click()
    page.locator("#team textarea, #team input").first.fill(team)
    page.locator("#model textarea, #model input").first.fill(model)
    page.locator("#params input").fill("7")
    page.locator("#input-length input").fill("4096")
    page.locator("#link textarea, #link input").first.fill("https://example.com/e2e")
    page.locator("#file input[type=file]").set_input_files(str(file))


def test_invalid_file_shows_error_and_publishes_nothing(page, app_url, tmp_path, new_model_file):
    store = app_url[1]
    before = tree_digest(store)
    doc = json.loads(new_model_file.read_text())
    doc["predictions"]["benczechmark_propaganda_argumentace"][3]["avg_mcauroc"][1] = "high"
    doc["predictions"].pop("benczechmark_cs_ner")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    fill_form(page, bad, "E2E Team", "broken")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text("not accepted", timeout=60000)
    expect(status).to_contain_text("benczechmark_cs_ner")  # the missing task
    expect(status).to_contain_text("benczechmark_propaganda_argumentace")  # the bad sample
    expect(page.locator("#publish")).to_be_hidden()
    shot(page, "04_invalid_file")
    assert tree_digest(store) == before


def test_presubmit_preview_and_publish(page, app_url, new_model_file):
    store = app_url[1]
    team = "E2E <img src=x onerror=alert(1)> Team"  # must show as text everywhere
    fill_form(page, new_model_file, team, "e2e-model")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text("would rank", timeout=60000)
    expect(rows(page, "preview")).to_have_count(6)
    expect(page.locator("#preview [role=grid]")).to_contain_text(f"★ {team}/e2e-model")
    expect(page.locator("#preview [role=grid]")).to_contain_text("new")
    shot(page, "05_preview")
    assert len(list((store / "data").glob("*.json"))) == 5  # nothing stored yet
    page.locator("#publish").click()
    expect(page.locator("#confirm")).to_be_visible()
    shot(page, "06_confirm")
    page.locator("#confirm").click()
    expect(status).to_contain_text("Published", timeout=60000)
    assert len(list((store / "data").glob("*.json"))) == 6
    page.get_by_role("tab", name="Leaderboard").click()
    expect(rows(page)).to_have_count(6, timeout=30000)
    expect(page.locator("#board [role=grid]")).to_contain_text(f"{team}/e2e-model")
    shot(page, "07_published")
    page.get_by_role("tab", name="Model details").click()  # the new model is picked there
    expect(page.locator("#model-pick input")).to_have_value(f"{team}/e2e-model")
    expect(rows(page, "duels")).to_have_count(5, timeout=30000)


def test_cancel_discards_the_presubmission(page, app_url, tmp_path, full_benchmark):
    store = app_url[1]
    _, document, _ = demo_model(full_benchmark, 9, seed=0)
    new_model_file = tmp_path / "other_model.json"
    new_model_file.write_bytes(dump_json(document))
    before = tree_digest(store)
    fill_form(page, new_model_file, "Cancel Team", "kept-out")
    page.locator("#presubmit").click()
    expect(page.locator("#status")).to_contain_text("would rank", timeout=60000)
    page.locator("#publish").click()
    page.locator("#cancel").click()
    expect(page.locator("#status")).to_contain_text("discarded")
    expect(page.locator("#confirm")).to_be_hidden()
    expect(page.locator("#publish")).to_be_hidden()
    assert tree_digest(store) == before
