"""The web app in a real headless Chromium: browsing the ranking.

Screenshots of each step are saved in test-artifacts/.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

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
    page.goto(app_url[0])
    yield page
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
    shot(page, "02_leaderboard_ner")
