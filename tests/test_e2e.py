"""The web app in a real headless Chromium: browsing the ranking.

Screenshots of each step are saved in test-artifacts/.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import urllib.request
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


def wait_for(url: str, process, seconds: float = 120.0) -> None:
    import time as _time  # polling a starting server; not a timing assertion
    deadline = _time.monotonic() + seconds
    while _time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            _time.sleep(0.3)
    raise RuntimeError("the app did not start")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, full_store_template):
    store = tmp_path_factory.mktemp("e2e") / "store"
    shutil.copytree(full_store_template, store)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    log = open(tmp_path_factory.mktemp("log") / "app.log", "w")
    process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for(url, process)
        yield url, store
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
