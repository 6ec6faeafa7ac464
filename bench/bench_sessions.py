"""The served app's memory as visitors come and go. Each visit: a fresh browser context (its own
Gradio session) loads the page, then, with `--open-tabs`, opens Details, Head-to-head, Submit and
About (since session 22 each is built for its session when first opened), waits until the app
is idle (its answers to the visit all made), then closes; with `--leave-at-once` it closes as
soon as what it waits for shows, leaving the app to answer a visitor who has gone.
Gradio keeps each session's state and what was built for it, whether its visitor has gone or
not, until the number of sessions passes `state_session_capacity` (10,000 by default); since
ff8d743 the app lets a session go once its page has left and it has idled
LEADERBOARD_IDLE_SESSION_SECONDS (`--idle-session-seconds`). The memory a visit leaves behind,
times the sessions kept, is what many visitors cost the app.

    python bench/bench_sessions.py --store /work/scratch/b/s/scale10000-0-settled --visits 60 \
        [--every 10] [--open-tabs] [--leave-at-once] [--idle-session-seconds 5] [--code BEFORE_TREE --code .]

Prints, per tree, as JSON: the app's resident memory (VmRSS) once its start has settled, and
again after every `--every` visits, each taken once the app is idle (`process_cpu.wait_until_idle`);
the memory left per visit (the least-squares slope over those points, with its 95% interval;
and over the points after the first, leaving out what the first visits pay once) and the
seconds a visit took in median.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.bench_web import app_on_a_copy  # noqa: E402
from bench.process_cpu import wait_until_idle  # noqa: E402
from bench.process_memory import memory_gb  # noqa: E402

# Each tab, and what shows once it is built and has its first view.
TABS = {"Details": "#bars .bar-row", "Head-to-head": "#pair-summary", "Submit": "#team", "About": "#about"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True, help="the store the app serves (a hard-linked copy of it)")
    parser.add_argument("--workdir", default="bench/out")
    parser.add_argument("--visits", type=int, default=60)
    parser.add_argument("--every", type=int, default=10, help="the memory taken after every N visits")
    parser.add_argument("--open-tabs", action="store_true", help="each visit opens every tab after the load")
    parser.add_argument("--leave-at-once", action="store_true",
                        help="each visit closes once what it waits for shows, not once the app is idle")
    parser.add_argument("--idle-session-seconds", type=int,
                        help="the app's LEADERBOARD_IDLE_SESSION_SECONDS (a tree before ff8d743 ignores it)")
    parser.add_argument("--port", type=int, help="the app's port (default: a free one)")
    parser.add_argument("--code", action="append", type=Path, default=[], metavar="TREE",
                        help="serve TREE's app.py (repeatable, the trees in turn; default: this tree)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from support.browser import launch_chromium

    result: dict = {"store": args.store, "visits": args.visits, "open_tabs": args.open_tabs,
                    "idle_session_seconds": args.idle_session_seconds}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for code in args.code or [ROOT]:
            result[str(code)] = memory_over_visits(code, Path(args.store), browser, args)
        browser.close()
    print(json.dumps(result, indent=1))


def memory_over_visits(code: Path, store: Path, browser, args) -> dict:
    from playwright.sync_api import expect

    from support.pages import cells, rows

    visits, resident_gb, seconds = [0], [], []
    env = {} if args.idle_session_seconds is None else {"LEADERBOARD_IDLE_SESSION_SECONDS": str(args.idle_session_seconds)}
    with app_on_a_copy(code, store, Path(args.workdir), args.port, 1200, "bench_sessions_app.log", **env) as (app, port):
        wait_until_idle(app.pid)
        resident_gb.append(memory_gb(app.pid)[1])
        for visit in range(1, args.visits + 1):
            t = time.perf_counter()
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            expect(cells(rows(page).first).nth(2)).to_be_visible(timeout=180_000)
            for tab, shown in TABS.items() if args.open_tabs else ():
                page.get_by_role("tab", name=tab).click()
                expect(page.locator(shown).first).to_be_visible(timeout=180_000)
            if not args.leave_at_once:
                wait_until_idle(app.pid)
            context.close()
            seconds.append(time.perf_counter() - t)
            if visit % args.every == 0:
                wait_until_idle(app.pid)
                visits.append(visit)
                resident_gb.append(memory_gb(app.pid)[1])
                print(f"{code.name}: {visit} visits, {resident_gb[-1]} GB", file=sys.stderr, flush=True)
        peak_gb = memory_gb(app.pid)[0]
    return {"after_visits": visits, "resident_gb": resident_gb, **mb_per_visit(visits, resident_gb, ""),
            **mb_per_visit(visits[1:], resident_gb[1:], "_after_the_first_points"),
            "visit_seconds_median": round(statistics.median(seconds), 2), "peak_gb": peak_gb}


def mb_per_visit(visits: list[int], resident_gb: list[float], suffix: str) -> dict:
    """The least-squares slope of memory over visits (MB a visit) with its 95% interval; over
    the points after the first, as `suffix` says, it leaves out what the first visits pay once
    (a tab's first build, Gradio's first answers)."""
    if len(visits) < 3:
        return {}
    slope = stats.linregress(visits, resident_gb)
    interval = stats.t.ppf(0.975, len(visits) - 2) * slope.stderr
    return {f"mb_per_visit{suffix}": round(slope.slope * 1000, 3),
            f"mb_per_visit{suffix}_interval_95": [round((slope.slope - interval) * 1000, 3),
                                                  round((slope.slope + interval) * 1000, 3)]}

if __name__ == "__main__":
    main()
