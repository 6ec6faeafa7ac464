"""Another visitor's page load while one address floods the public read API (issue 32,
item 6), for trees of the project run in turn on copies of one store:

    python bench/bench_read_flood.py --tree before=/path/to/an/older/tree --tree after=. [--loads 5]

For each tree, a fresh `python app.py` (this interpreter, the tree's code, the default
settings) on the tree's copy of the store:
- quiet: `--loads` fresh pages (new browser contexts, headless Chromium at 1440x900), each
  timed from navigation until the first row's score shows;
- flood: the same while one address (X-Forwarded-For through the trusted local proxy)
  sends rounds of `--requests` `leaderboard_table` requests, `--at-once` at a time, for as
  long as the pages load; each request counted as answered or refused (the app's message).
Prints each tree's page-load times (s), their medians and the flood's counts as JSON lines.
"""
from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.bench_serve import WAIT_MS, App  # noqa: E402

FLOODING_ADDRESS = "10.66.0.1"
TABLE_ARGUMENTS = ["Overall", "win_score", False, False]  # the REST route wants every argument


def page_load_seconds(browser, url: str, expect, rows) -> float:
    """A fresh page, from navigation until the first row's score shows."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url)
        expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=WAIT_MS)
        return time.perf_counter() - started
    finally:
        context.close()


def table_request(http: httpx.Client) -> str:
    """One `leaderboard_table` call through Gradio's REST route: "answered" or "refused"."""
    event = http.post("gradio_api/call/leaderboard_table", json={"data": TABLE_ARGUMENTS}).json()["event_id"]
    with http.stream("GET", f"gradio_api/call/leaderboard_table/{event}") as answer:
        for line in answer.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
                if kind in ("complete", "error"):
                    return "answered" if kind == "complete" else "refused"
    return "refused"


class Flood:
    """Rounds of `requests` table requests, `at_once` at a time, from one address, until stopped."""

    def __init__(self, url: str, requests: int, at_once: int):
        self.url, self.requests, self.at_once = url, requests, at_once
        self.counts = {"answered": 0, "refused": 0, "rounds": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def _run(self):
        with httpx.Client(base_url=self.url, timeout=300, headers={"X-Forwarded-For": FLOODING_ADDRESS},
                          limits=httpx.Limits(max_connections=self.at_once)) as http, \
                ThreadPoolExecutor(self.at_once) as pool:
            while not self._stop.is_set():
                for outcome in pool.map(lambda _: table_request(http), range(self.requests)):
                    self.counts[outcome] += 1
                self.counts["rounds"] += 1

    def __enter__(self):
        self._thread.start()
        time.sleep(2)  # the flood under way before the first page
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", action="append", required=True, help="name=path of a tree of the project")
    parser.add_argument("--store", required=True, help="a store, copied for each tree")
    parser.add_argument("--loads", type=int, default=5, help="page loads, quiet and during the flood")
    parser.add_argument("--requests", type=int, default=300, help="read-API requests in a round of the flood")
    parser.add_argument("--at-once", type=int, default=24)
    parser.add_argument("--port", type=int, default=7941)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stopped: the apps it started are stopped too

    from playwright.sync_api import expect, sync_playwright
    from support.browser import launch_chromium
    from support.pages import rows

    work = Path(tempfile.mkdtemp(prefix="bench_read_flood-"))
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p)
            for name, tree in (t.split("=", 1) for t in args.tree):
                store, temp = work / name / "store", work / name / "gradio"
                shutil.copytree(args.store, store)
                temp.mkdir(parents=True)
                app = App(Path(tree), store, args.port, temp)
                try:
                    page_load_seconds(browser, app.url, expect, rows)  # Chromium's caches warm, not measured
                    quiet = [page_load_seconds(browser, app.url, expect, rows) for _ in range(args.loads)]
                    with Flood(app.url, args.requests, args.at_once) as flood:
                        flooded = [page_load_seconds(browser, app.url, expect, rows) for _ in range(args.loads)]
                finally:
                    app.close()
                print(json.dumps({"tree": name, "quiet_median_s": round(statistics.median(quiet), 2),
                                  "flood_median_s": round(statistics.median(flooded), 2),
                                  "ratio": round(statistics.median(flooded) / statistics.median(quiet), 2),
                                  "quiet_s": [round(x, 2) for x in quiet], "flood_s": [round(x, 2) for x in flooded],
                                  "flood": flood.counts}), flush=True)
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
