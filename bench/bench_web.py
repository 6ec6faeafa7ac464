"""The web app's speed on a 100-model store, in headless Chromium, at 1440x900 and 390x844.

    python bench/bench_web.py [--models 100] [--workdir bench/out] [--repeats 5]

First load: from navigation in a fresh browser context (cold cache) until the first
row's score shows; warm reload: the same page reloaded. Category switch: from the click
on a category in the open menu until its ranking shows. Details: from clicking the tab until duels and chart
show. Pre-submission: from the click until the preview shows the new model's row.
Floor: an empty Gradio page (one Markdown). Prints medians and maxima as JSON;
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

    from leaderboard.submission.demo import build_demo_store
    from test_e2e import CHROMIUM_ARGS, free_port, rows, start_app

    store = Path(args.workdir) / f"store{args.models}"
    if not store.exists():
        build_demo_store(store, args.models, seed=1)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    t = time.perf_counter()
    app = start_app(env, Path(args.workdir) / "bench_web_app.log")
    startup = time.perf_counter() - t
    sample = Path(args.workdir) / "sample.json"
    if not sample.exists():
        from leaderboard.board.state import Leaderboard
        from leaderboard.submission.demo import sample_document
        from leaderboard.storage.local import LocalStore
        from leaderboard.storage.strict_json import dump_json
        board = Leaderboard(LocalStore(store))
        sample.write_bytes(dump_json(sample_document(board.benchmark, board.references())))
    results = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for name, viewport in (("1440x900", {"width": 1440, "height": 900}), ("390x844", {"width": 390, "height": 844})):
                results[name] = measure(browser, viewport, port, args, sample, expect, rows)
            results["empty_gradio_page"] = empty_page(browser, args.repeats)
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=30)
    summary = {k: {m: {"median": round(statistics.median(v), 3), "max": round(max(v), 3)} for m, v in r.items()}
               for k, r in results.items()}
    print(json.dumps({"models": args.models, "app_start_seconds": round(startup, 2), **summary}, indent=1))


def measure(browser, viewport, port, args, sample, expect, rows) -> dict:
    """Medians over `args.repeats` fresh browser contexts of one viewport."""
    times = {k: [] for k in ("first_load", "warm_reload", "category_switch", "details_open", "presubmit_to_preview")}
    url = f"http://127.0.0.1:{port}/"
    for _ in range(args.repeats):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        t = time.perf_counter()
        page.goto(url)
        expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=60000)
        times["first_load"].append(time.perf_counter() - t)
        t = time.perf_counter()  # again, with the browser's cache warm
        page.reload()
        expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=60000)
        times["warm_reload"].append(time.perf_counter() - t)
        header = page.locator("#board thead th .header").first
        for category in ("NER", "Historical", "Overall"):
            page.locator("#category input").click()
            option = page.get_by_role("option", name=category, exact=True)
            option.hover()  # Playwright's own waits for the menu (~0.5 s) are not the app's time
            t = time.perf_counter()
            option.click()
            expect(header).to_have_text("Rank" if category == "Overall" else f"{category} rank", timeout=60000)
            expect(rows(page).first).to_be_visible()
            times["category_switch"].append(time.perf_counter() - t)
        t = time.perf_counter()
        page.get_by_role("tab", name="Details").click()
        expect(rows(page, "duels").first).to_be_visible(timeout=60000)
        expect(page.locator("#bars .bar-row").first).to_be_visible(timeout=60000)
        times["details_open"].append(time.perf_counter() - t)
        page.get_by_role("tab", name="Submit").click()
        page.locator("#team textarea, #team input").first.fill("Bench")
        page.locator("#model textarea, #model input").first.fill("bench-model")
        page.locator("#params input").fill("7")
        page.locator("#input-length input").fill("4096")
        page.locator("#link textarea, #link input").first.fill("https://example.com/bench")
        page.locator("#file input[type=file]").set_input_files(str(sample))
        expect(page.locator("#file")).to_contain_text("sample.json", timeout=60000)
        t = time.perf_counter()
        page.locator("#presubmit").click()
        expect(page.locator("#preview [role=row]").filter(has_text="★")).to_be_visible(timeout=60000)
        times["presubmit_to_preview"].append(time.perf_counter() - t)
        context.close()
    return times


def empty_page(browser, repeats: int) -> dict:
    """The floor: an empty Gradio page (one Markdown) served and loaded the same way."""
    import threading
    import gradio as gr
    from test_e2e import free_port
    port = free_port()
    with gr.Blocks() as demo:
        gr.Markdown("empty", elem_id="empty")
    demo.launch(server_port=port, prevent_thread_lock=True, quiet=True)
    loads = []
    try:
        for _ in range(repeats):
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            t = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}/")
            page.locator("#empty").get_by_text("empty").wait_for(timeout=60000)
            loads.append(time.perf_counter() - t)
            context.close()
    finally:
        demo.close()
    return {"first_load": loads}


if __name__ == "__main__":
    main()
