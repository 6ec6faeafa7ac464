"""The web app's speed in headless Chromium, at 1440x900 and 390x844: a demo store of
`--models` models, or any store (`--store`, e.g. `bench_scale.py --settled`'s at 10,000).

    python bench/bench_web.py [--models 100] [--workdir bench/out] [--repeats 5]
    python bench/bench_web.py --store /work/scratch/b/s/scale10000-0-settled --repeats 3 --desktop-only

First load: from navigation in a fresh browser context (cold cache) until the first
row's score shows; warm reload: the same page reloaded. Category switch: from the click
on a category in the open menu until its ranking shows. Search: from typing a team name
into the search box (one fill) until the row count says "matching"; cleared: from
emptying it until the count is the whole board's again. Details: from clicking the tab
until duels and chart show. Model details: from picking a model in the Details picker
(found through its search box; the search timed apart, until the picker says it
matches) until its card, bars and duels show. Pre-submission: from the click until the
preview shows the new model's row, of a file the app records (a new model's, not the
board's sample file, which the app answers without recording it); the app serves a
hard-linked copy of the store (`bench_scale.linked_copy`), so the records it writes leave
the store unchanged, with the pre-submission quotas raised for the repeats. Page HTML: the bytes of the page's HTML (Gradio puts
its config, every component's first value, in it). Floor: an empty Gradio page (one
Markdown). Prints medians and maxima as JSON; bench/RESULTS.md records the numbers with
machine and date.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from leaderboard.storage.store import stored_titles  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--store", help="an existing store instead of a demo store of --models models")
    parser.add_argument("--desktop-only", action="store_true", help="1440x900 only")
    parser.add_argument("--port", type=int, help="the app's port, the empty page's the next (default: free ones)")
    parser.add_argument("--wait-seconds", type=float, default=60, help="how long one interaction may take")
    parser.add_argument("--start-seconds", type=float, default=900, help="how long the app may take to start")
    args = parser.parse_args()

    from playwright.sync_api import expect, sync_playwright

    from bench.bench_scale import linked_copy, write_probe
    from leaderboard.board.configured import build_demo_store
    from support.browser import launch_chromium
    from support.servers import free_port, start_app
    from support.pages import rows

    store = Path(args.store) if args.store else Path(args.workdir) / f"store{args.models}"
    if not store.exists():
        build_demo_store(store, args.models, seed=1)
    served = Path(args.workdir) / f"served-{store.name}"
    linked_copy(store, served)
    port = args.port or free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(served), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "1000",
           "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "1000"}
    t = time.perf_counter()
    app = start_app(env, Path(args.workdir) / "bench_web_app.log", args.start_seconds)
    startup = time.perf_counter() - t
    sample = Path(args.workdir) / f"probe-{store.name}" / "probe.json"  # a new model's file, recorded
    if not sample.exists():
        sample.parent.mkdir(parents=True, exist_ok=True)
        write_probe(sample, store, "bench-model")
    picked = picked_model(store)
    results = {}
    try:
        page_html = len(urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=600).read())
        with sync_playwright() as p:
            browser = launch_chromium(p)
            viewports = {"1440x900": {"width": 1440, "height": 900}, "390x844": {"width": 390, "height": 844}}
            for name, viewport in list(viewports.items())[:1 if args.desktop_only else 2]:
                results[name] = measure(browser, viewport, port, args, sample, picked, expect, rows)
            results["empty_gradio_page"] = empty_page(browser, args.repeats, args.port and args.port + 1)
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=30)
        shutil.rmtree(served, ignore_errors=True)
    summary = {k: {m: {"median": round(statistics.median(v), 3), "max": round(max(v), 3)} for m, v in r.items()}
               for k, r in results.items()}
    print(json.dumps({"store": str(store), "models": len(titles_of(store)),
                      "app_start_seconds": round(startup, 2), "page_html_bytes": page_html, **summary}, indent=1))


def titles_of(store: Path) -> dict:
    """The store's titles by id, as it stores them (the parts, or the reference layout's file)."""
    return stored_titles(lambda path: (store / path).read_bytes() if (store / path).exists() else None)


def picked_model(store: Path) -> tuple[str, str]:
    """(a search that finds one model, its title): the model in the middle of the titles
    file, found by the part of its title after the team (far from the first page)."""
    titles = sorted(titles_of(store).values())
    title = titles[len(titles) // 2]
    return title.split("/", 1)[1], title


def measure(browser, viewport, port, args, sample, picked, expect, rows) -> dict:
    """Medians over `args.repeats` fresh browser contexts of one viewport."""
    wait = args.wait_seconds * 1000  # how long an interaction may take (ms)
    times = {k: [] for k in ("first_load", "warm_reload", "category_switch", "search", "search_cleared",
                             "details_open", "picker_search", "model_details", "presubmit_to_preview")}
    url = f"http://127.0.0.1:{port}/"
    for _ in range(args.repeats):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        t = time.perf_counter()
        page.goto(url)
        expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=wait)
        times["first_load"].append(time.perf_counter() - t)
        t = time.perf_counter()  # again, with the browser's cache warm
        page.reload()
        expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=wait)
        times["warm_reload"].append(time.perf_counter() - t)
        header = page.locator("#board thead th .header").first
        for category in ("NER", "Historical", "Overall"):
            page.locator("#category input").click()
            option = page.get_by_role("option", name=category, exact=True)
            option.hover()  # Playwright's own waits for the menu (~0.5 s) are not the app's time
            t = time.perf_counter()
            option.click()
            expect(header).to_have_text("Rank" if category == "Overall" else f"{category} rank", timeout=wait)
            expect(rows(page).first).to_be_visible()
            times["category_switch"].append(time.perf_counter() - t)
        pager = page.locator("#page-of")
        everyone = pager.inner_text()
        search = page.locator("#search textarea, #search input").first
        team = rows(page).first.locator("[role=gridcell]").nth(1).inner_text().strip().split("/")[0]
        t = time.perf_counter()
        search.fill(team)
        expect(pager).to_contain_text("matching", timeout=wait)
        times["search"].append(time.perf_counter() - t)
        t = time.perf_counter()
        search.fill("")
        expect(pager).to_have_text(everyone, timeout=wait)
        times["search_cleared"].append(time.perf_counter() - t)
        t = time.perf_counter()
        page.get_by_role("tab", name="Details").click()
        expect(rows(page, "duels").first).to_be_visible(timeout=wait)
        expect(page.locator("#bars .bar-row").first).to_be_visible(timeout=wait)
        times["details_open"].append(time.perf_counter() - t)
        find, title = picked
        t = time.perf_counter()
        page.locator("#model-find textarea, #model-find input").first.press_sequentially(find)  # fill sends no input
        expect(page.locator("#model-pick")).to_contain_text("match", timeout=wait)
        times["picker_search"].append(time.perf_counter() - t)
        page.locator("#model-pick input").click()
        option = page.get_by_role("option", name=title, exact=True)
        option.hover()
        t = time.perf_counter()
        option.click()
        expect(page.locator("#card")).to_contain_text(title.split("/", 1)[1], timeout=wait)
        expect(page.locator("#bars .bar-row").first).to_be_visible(timeout=wait)
        expect(rows(page, "duels").first).to_be_visible(timeout=wait)
        times["model_details"].append(time.perf_counter() - t)
        fill_submit_form(page, sample, "bench-model", expect, wait)
        t = time.perf_counter()
        page.locator("#presubmit").click()
        expect(page.locator("#preview [role=row]").filter(has_text="★")).to_be_visible(timeout=wait)
        times["presubmit_to_preview"].append(time.perf_counter() - t)
        context.close()
    return times


def fill_submit_form(page, sample: Path, model: str, expect, wait: float) -> None:
    """The Submit tab opened, its form filled for `model` (team Bench) and `sample` uploaded."""
    page.get_by_role("tab", name="Submit").click()
    page.locator("#team textarea, #team input").first.fill("Bench")
    page.locator("#model textarea, #model input").first.fill(model)
    page.locator("#params input").fill("7")
    page.locator("#input-length input").fill("4096")
    page.locator("#link textarea, #link input").first.fill("https://example.com/bench")
    page.locator("#file input[type=file]").set_input_files(str(sample))
    expect(page.locator("#file")).to_contain_text(sample.name, timeout=wait)


def empty_page(browser, repeats: int, port: int | None) -> dict:
    """The floor: an empty Gradio page (one Markdown) served and loaded the same way."""
    import gradio as gr
    from support.servers import free_port
    port = port or free_port()
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
