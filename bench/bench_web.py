"""Page load and category switch of the web app on a 100-model store, in headless Chromium.

    python bench/bench_web.py [--models 100] [--workdir bench/out] [--repeats 5]

Page load: from navigation until the ranking shows its rows. Category switch: from
choosing a category until its task columns are shown. Each load is in a fresh browser
context (cold cache), then reloaded (warm cache). Plot: from opening the plot
until plotly has drawn it. Prints a JSON summary;
bench/RESULTS.md records the numbers with machine and date.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    from playwright.sync_api import expect, sync_playwright

    from leaderboard.demo import build_demo_store
    from test_e2e import CHROMIUM_ARGS, choose, free_port, rows, start_app

    store = Path(args.workdir) / f"store{args.models}"
    if not store.exists():
        build_demo_store(store, args.models, seed=1)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    t = time.perf_counter()
    app = start_app(env, Path(args.workdir) / "bench_web_app.log")
    startup = time.perf_counter() - t
    loads, reloads, switches, plots = [], [], [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for _ in range(args.repeats):
                page = browser.new_page(viewport={"width": 1500, "height": 1100})
                t = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/")
                expect(page.locator("#board [role=grid]")).to_have_attribute(
                    "aria-rowcount", str(args.models + 1), timeout=60000)
                expect(rows(page).first).to_be_visible()
                loads.append(time.perf_counter() - t)
                t = time.perf_counter()  # again, with the browser's cache warm
                page.reload()
                expect(page.locator("#board [role=grid]")).to_have_attribute(
                    "aria-rowcount", str(args.models + 1), timeout=60000)
                expect(rows(page).first).to_be_visible()
                reloads.append(time.perf_counter() - t)
                headers = page.locator("#board thead th")
                for category, column in (("NER", "CNEC"), ("Historical", "HIST-IR"), ("Overall", "Reading Comprehension")):
                    t = time.perf_counter()
                    choose(page, "category", category)
                    expect(headers.filter(has_text=column).first).to_be_visible(timeout=60000)
                    switches.append(time.perf_counter() - t)
                t = time.perf_counter()
                page.get_by_text("Plot: score against model size").click()
                expect(page.locator("#scatter .main-svg").first).to_be_visible(timeout=60000)
                plots.append(time.perf_counter() - t)
                page.close()
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=30)
    print(json.dumps({"models": args.models, "app_start_seconds": startup,
                      "page_load_seconds": {"median": statistics.median(loads), "max": max(loads), "all": loads},
                      "page_reload_seconds": {"median": statistics.median(reloads), "all": reloads},
                      "category_switch_seconds": {"median": statistics.median(switches), "max": max(switches),
                                                  "all": switches},
                      "plot_open_seconds": {"median": statistics.median(plots), "all": plots}}, indent=1))


if __name__ == "__main__":
    main()
