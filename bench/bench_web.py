"""The web app's speed in headless Chromium, at 1440x900 and 390x844: a demo store of
`--models` models, or any store (`--store`, e.g. `bench_scale.py --settled`'s at 10,000).

    python bench/bench_web.py [--models 100] [--workdir bench/out] [--repeats 5]
    python bench/bench_web.py --store /work/scratch/b/s/scale10000-0-settled --repeats 5 --desktop-only \
        [--presubmit NEW.json ...] [--code BEFORE_TREE --code .]   # before and after, in turn

First load: from navigation in a fresh browser context (cold cache) until the first
row's score shows; warm reload: the same page reloaded. Category switch: from the click
on a category in the open menu until its ranking shows. Search: from typing a team name
into the search box (one fill) until the row count says "matching"; cleared: from
emptying it until the count is the whole board's again. Details: from clicking the tab
until duels and chart show. Model details: from picking a model in the Details picker
(found through its search box; the search timed apart, until the picker says it
matches) until its card, bars and duels show. Head-to-head first open: from clicking the
tab (first time in the context) until the default pair's summary and its chart show. About
open: from clicking the tab until the report card's summary and the first row of its per-task
table show (the first context's is the first open after the app's start).
`--pause-before-click S`: the visitor's pause between the uploaded file's name showing and the
click to pre-submit (default 0: at once; an app that reads an upload as it arrives then
waits for what is left of that reading within the click's figure).
Pre-submission, per file: from the click until the preview shows the new model's row (★;
timed in the page: `Date.now()` at the click and when a MutationObserver sees the row put in
the page (painted the frame after), where Playwright's polling of the page, every 0.1 s then every 1 s, added up
to a second to the 3-6 s waits; its rank is reported, so a file meant to enter the panel can be told from one staying
off), of files the app records: `--presubmit` files (each with its form beside it,
`.form.json`), by default a new model's generated probe (not the board's sample file,
which the app answers without recording it); the app serves a hard-linked copy of the
store (`bench_scale.linked_copy`), so the records it writes leave the store unchanged,
with the pre-submission and upload quotas raised for the repeats. `--code TREE` serves
that tree's app.py instead (repeatable: the trees one after the other, each on a fresh
copy of the store, one app at a time). Page HTML: the bytes of the page's HTML (Gradio
puts its config, every component's first value, in it). App's peak memory: the app process's VmHWM once every figure is taken (its
start and warming, the page loads, the pre-submissions). Floor: an empty Gradio page (one
Markdown, served by this process), loaded in a fresh context of the same viewport right before
each of the app's first loads, so that both meet the machine as it is then (a ratio of loads
taken minutes apart said more of the load than of the page: bench/RESULTS.md, session 20);
`first_load_over_empty_page`, over the repeats' first loads and `--more-first-loads` pairs
more: the ratio of the two medians (and of the first calls), and the median of the pairs'
ratios with its 95% interval.
A settled app: the figures are taken once the app is idle after its start (its background
warming done), and each first load (with its empty page) once the app is idle again after
the visit before it (a preview's duels grid, memory given back): the page as a visitor
meets a started app that is not busy with another's work (`process_cpu.wait_until_idle`: under
10% of a core in three one-second windows in a row; the waits are reported, and any first load
for which the app was still busy after 5 minutes is counted). A visitor at a busy app is another figure, and
`--no-settle` takes it: from the app saying it serves, each load right after the visit before
(bench/RESULTS.md, session 22: 2.1-2.3x against 1.85x settled).
Prints, per figure, the first call (the fresh app's and cold browser's) apart from the
median and maximum of the rest, as JSON; bench/RESULTS.md records the numbers with machine
and date.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.process_cpu import wait_until_idle  # noqa: E402
from bench.process_memory import memory_gb  # noqa: E402
from leaderboard.storage.store import stored_titles  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--more-first-loads", type=int, default=20, metavar="N",
                        help="N more pairs of first loads (the empty page's, the app's), after the repeats: "
                             "the ratio of their medians moved by 0.2-0.5 between runs of 5 (session 20)")
    parser.add_argument("--store", help="an existing store instead of a demo store of --models models")
    parser.add_argument("--desktop-only", action="store_true", help="1440x900 only")
    parser.add_argument("--port", type=int, help="the app's port, the empty page's the next (default: free ones)")
    parser.add_argument("--wait-seconds", type=float, default=60, help="how long one interaction may take")
    parser.add_argument("--start-seconds", type=float, default=900, help="how long the app may take to start")
    parser.add_argument("--presubmit", action="append", type=Path, default=[], metavar="FILE",
                        help="pre-submit FILE (its form in FILE's .form.json) instead of the generated probe; "
                             "repeatable, each timed apart")
    parser.add_argument("--pause-before-click", type=float, default=0.0, metavar="S",
                        help="seconds between the uploaded file showing and the click to pre-submit (default 0)")
    parser.add_argument("--no-settle", dest="settle", action="store_false",
                        help="time from the app saying it serves, and each first load right after the visit "
                             "before, while their background work runs (default: wait until the app is idle)")
    parser.add_argument("--code", action="append", type=Path, default=[], metavar="TREE",
                        help="serve TREE's app.py (e.g. a `git archive` of another commit) on the same store; "
                             "repeatable, the trees in turn (default: this tree)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from leaderboard.board.configured import build_demo_store
    from support.browser import launch_chromium

    store = Path(args.store) if args.store else Path(args.workdir) / f"store{args.models}"
    if not store.exists():
        build_demo_store(store, args.models, seed=1)
    files = args.presubmit or [generated_probe(store, Path(args.workdir))]
    result: dict = {"store": str(store), "models": len(titles_of(store))}
    empty, empty_url = serve_empty_page(args.port and args.port + 1)
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p)
            for code in args.code or [ROOT]:
                result[str(code)] = served_figures(code, store, files, browser, args, empty_url)
            browser.close()
    finally:
        empty.close(verbose=False)  # else Gradio prints a line amid the JSON
    print(json.dumps(result, indent=1))


def served_figures(code: Path, store: Path, files: list[Path], browser, args, empty_url: str) -> dict:
    """The figures of `code`'s app serving a hard-linked copy of `store`, per viewport."""
    result: dict = {"load_average_at_start": os.getloadavg()}
    t = time.perf_counter()
    quotas = {"LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "1000", "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "1000",
              "LEADERBOARD_UPLOADS_PER_HOUR": "1000"}
    with app_on_a_copy(code, store, Path(args.workdir), args.port, args.start_seconds, "bench_web_app.log",
                       **quotas) as (app, port):
        result["app_start_seconds"] = round(time.perf_counter() - t, 2)
        if args.settle:
            result["settled_after_start"] = vars(wait_until_idle(app.pid))
        result["page_html_bytes"] = len(urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=600).read())
        viewports = {"1440x900": {"width": 1440, "height": 900}, "390x844": {"width": 390, "height": 844}}
        for name, viewport in list(viewports.items())[:1 if args.desktop_only else 2]:
            times, ranks, busy = measure(browser, viewport, port, args, files, picked_model(store), empty_url,
                                         app.pid)
            result[name] = {**figures(times), "preview_rank_of_new_model": ranks, "first_load_over_empty_page":
                            load_ratio(times["first_load"], times["empty_gradio_page_first_load"]),
                            "first_loads_with_the_app_still_busy": busy}
        # its start, warming and every figure above; and what it holds once they are done
        result["app_peak_memory_gb"], result["app_resident_memory_gb"] = memory_gb(app.pid)
    result["load_average_at_end"] = os.getloadavg()
    return result


@contextlib.contextmanager
def app_on_a_copy(code: Path, store: Path, workdir: Path, port: int | None, start_seconds: float, log_name: str,
                  **env: str):
    """`code`'s app.py serving a hard-linked copy of `store` (`bench_scale.linked_copy`: the
    records it writes leave `store` as it is) on `port` (None: a free one), `env` added to its
    environment, its output in `workdir / log_name`: (the process, its port); once done, the app
    stopped and the copy removed."""
    from bench.bench_scale import linked_copy
    from support.servers import free_port, start_app

    served = workdir / f"served-{store.name}"
    linked_copy(store, served)
    port = port or free_port()
    try:
        app = start_app({**os.environ, "LEADERBOARD_STORE": str(served), "GRADIO_SERVER_PORT": str(port),
                         "GRADIO_ANALYTICS_ENABLED": "False", **env}, workdir / log_name, start_seconds, code)
        try:
            yield app, port
        finally:
            app.terminate()
            app.wait(timeout=30)
    finally:
        shutil.rmtree(served, ignore_errors=True)


def figures(times: dict[str, list[float]]) -> dict:
    """Each figure's first call apart (a fresh app's first pays what later calls find warm),
    the median and maximum of the rest."""
    return {name: {"first": round(v[0], 3), "median_after_first": round(statistics.median(v[1:] or v), 3),
                   "max_after_first": round(max(v[1:] or v), 3)} for name, v in times.items() if v}


def load_ratio(page: list[float], floor: list[float]) -> dict:
    """The app's first loads over the empty page's, each loaded right before its app load:
    the first pair's ratio; after it, the ratio of the two medians, and the median of the
    pairs' own ratios (the machine's state, which both loads of a pair meet, cancels in it)
    with its 95% interval (distribution-free: `scipy.stats.quantile_test`)."""
    page_after, floor_after = np.array(page[1:] or page), np.array(floor[1:] or floor)
    pair_ratios = page_after / floor_after
    interval = stats.quantile_test(pair_ratios, q=float(np.median(pair_ratios)), p=0.5).confidence_interval(0.95)
    bounds = [round(float(b), 2) for b in (interval.low, interval.high)]  # nan below 6 pairs: no 95% then
    return {"first": round(float(page[0] / floor[0]), 2),
            "median_after_first": round(float(np.median(page_after) / np.median(floor_after)), 2),
            "median_of_pair_ratios": round(float(np.median(pair_ratios)), 2),
            "pair_ratios_median_interval_95": None if np.isnan(bounds).any() else bounds,
            "pairs_after_first": len(pair_ratios)}


def generated_probe(store: Path, workdir: Path) -> Path:
    """A new model's file for `store`, which the app records (not the board's sample file)."""
    from bench.bench_scale import write_probe
    probe = workdir / f"probe-{store.name}" / "probe.json"
    if not probe.exists():
        probe.parent.mkdir(parents=True, exist_ok=True)
        write_probe(probe, store, "bench-model")
    return probe


def titles_of(store: Path) -> dict:
    """The store's titles by id, as it stores them (the parts, or the reference layout's file)."""
    return stored_titles(lambda path: (store / path).read_bytes() if (store / path).exists() else None)


def picked_model(store: Path) -> tuple[str, str]:
    """(a search that finds one model, its title): the model in the middle of the titles
    file, found by the part of its title after the team (far from the first page)."""
    titles = sorted(titles_of(store).values())
    title = titles[len(titles) // 2]
    return title.split("/", 1)[1], title


def measure(browser, viewport, port, args, files: list[Path], picked: tuple[str, str], empty_url: str,
            app_pid: int):
    """Times over `args.repeats` fresh browser contexts of one viewport, and the rank each
    file's preview gives its new model (★); before each, the empty page's first load, and
    with `args.settle` a wait until the app is idle."""
    from playwright.sync_api import expect
    from support.pages import cells, rows  # the HTML board and an older tree's Dataframe alike

    wait = args.wait_seconds * 1000  # how long an interaction may take (ms)
    times: dict[str, list[float]] = {
        k: [] for k in ("settling_before_first_load", "empty_gradio_page_first_load", "first_load", "warm_reload",
                        "category_switch", "search", "search_cleared", "details_open", "picker_search", "model_details", "head_to_head_open",
                        "about_open",
                        *(f"presubmit_to_preview {f.name}" for f in files))}
    ranks = {}
    unsettled: list[bool] = []
    url = f"http://127.0.0.1:{port}/"

    def first_load(context):
        """A new page of `context` at the app, timed until its first row's score shows (into
        `times`), the empty page's first load timed right before it; the page."""
        if args.settle:  # the visit before leaves work behind (a preview's duels grid, memory given back)
            settling = wait_until_idle(app_pid)
            times["settling_before_first_load"].append(settling.waited_seconds)
            unsettled.append(not settling.settled)
        times["empty_gradio_page_first_load"].append(empty_page_load(browser, viewport, empty_url))
        page = context.new_page()
        t = time.perf_counter()
        page.goto(url)
        expect(cells(rows(page).first).nth(2)).to_be_visible(timeout=wait)
        times["first_load"].append(time.perf_counter() - t)
        return page

    for _ in range(args.repeats):
        context = browser.new_context(viewport=viewport)
        page = first_load(context)
        t = time.perf_counter()  # again, with the browser's cache warm
        page.reload()
        expect(cells(rows(page).first).nth(2)).to_be_visible(timeout=wait)
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
        team = cells(rows(page).first).nth(1).inner_text().strip().split("/")[0]
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
        t = time.perf_counter()  # until the default pair's summary and its chart show
        page.get_by_role("tab", name="Head-to-head").click()
        expect(page.locator("#pair-summary")).to_contain_text("A wins", timeout=wait)
        expect(page.locator(PAIR_CHART_BAR).first).to_be_attached(timeout=wait)
        times["head_to_head_open"].append(time.perf_counter() - t)
        t = time.perf_counter()  # until the report card's per-task table shows a task's row
        page.get_by_role("tab", name="About").click()
        expect(page.locator("#card-summary")).to_contain_text("could be first", timeout=wait)
        expect(rows(page, "card-tasks").first).to_be_visible(timeout=wait)
        times["about_open"].append(time.perf_counter() - t)
        for file in files:
            fill_submit_form(page, file, expect, wait)
            time.sleep(args.pause_before_click)
            # this file's row: a preview of the file before may still show until the new one comes
            model = form_of(file)["model_name"]
            page.evaluate(WATCH_NEW_ROW, model)
            page.locator("#presubmit").click()
            new_row = page.locator("#preview [role=row]").filter(has_text="★").filter(has_text=model)
            expect(new_row).to_be_visible(timeout=wait)
            times[f"presubmit_to_preview {file.name}"].append(page.wait_for_function(
                "() => window.newRowAt && (window.newRowAt - window.clickAt) / 1000").json_value())
            ranks[file.name] = new_row.locator("[role=gridcell]").first.inner_text().strip()
        context.close()
    for _ in range(args.more_first_loads):
        context = browser.new_context(viewport=viewport)
        first_load(context)
        context.close()
    return times, ranks, sum(unsettled)


# A bar of the head-to-head's chart: the page's own since session 15, Plotly's before (a
# tree before it, timed with `--code`).
PAIR_CHART_BAR = "#pair-chart .pair-bar, #pair-plot .barlayer .point"


# In the page: when Pre-submit is clicked and when a row holding ★ and the model's name first
# is put in the preview (a MutationObserver: the frame after paints it).
WATCH_NEW_ROW = """model => {
    window.clickAt = window.newRowAt = null;
    document.querySelector('#presubmit').addEventListener('click', () => { window.clickAt = Date.now(); },
                                                          {capture: true, once: true});
    const shown = () => [...document.querySelectorAll('#preview [role=row]')]
        .some(row => row.textContent.includes('★') && row.textContent.includes(model));
    const watch = new MutationObserver(() => {
        if (window.clickAt && shown()) { window.newRowAt = Date.now(); watch.disconnect(); }
    });
    watch.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def fill_submit_form(page, file: Path, expect, wait: float) -> None:
    """The Submit tab opened, its text and number fields filled from `file`'s form
    (.form.json beside it; model type and precision left at their defaults) and `file` uploaded."""
    form = form_of(file)
    page.get_by_role("tab", name="Submit").click()
    page.locator("#team textarea, #team input").first.fill(form["team_name"])
    page.locator("#model textarea, #model input").first.fill(form["model_name"])
    page.locator("#params input").fill(str(form["parameters"]))
    page.locator("#input-length input").fill(str(form["input_length"]))
    page.locator("#link textarea, #link input").first.fill(form["link_to_model"])
    held = page.locator("#file").get_by_role("button", name="Clear")
    if held.count():  # the file of a pre-submission before: cleared as a user does
        held.click()
    page.locator("#file input[type=file]").set_input_files(str(file))
    expect(page.locator("#file")).to_contain_text(file.stem, timeout=wait)  # a long name shows as "stem .json"


def form_of(file: Path) -> dict:
    """The form fields of the submission `file`, kept beside it (`.form.json`)."""
    return json.loads(file.with_suffix(".form.json").read_text())


def serve_empty_page(port: int | None):
    """The floor: an empty Gradio page (one Markdown), served by this process; and its URL."""
    import gradio as gr
    from support.servers import free_port
    port = port or free_port()
    with gr.Blocks() as demo:
        gr.Markdown("empty", elem_id="empty")
    demo.launch(server_port=port, prevent_thread_lock=True, quiet=True)
    return demo, f"http://127.0.0.1:{port}/"


def empty_page_load(browser, viewport, url: str) -> float:
    """The empty page's first load in a fresh context, timed as the app's is: until its text shows."""
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        t = time.perf_counter()
        page.goto(url)
        page.locator("#empty").get_by_text("empty").wait_for(timeout=60000)
        return time.perf_counter() - t
    finally:
        context.close()


if __name__ == "__main__":
    main()
