"""The served app's own CPU (issue 19: the test suite's servers), for trees of the project
run in turn on copies of one store:

    python bench/bench_serve.py --tree before=/path/to/an/older/tree --tree after=. [--repeats 5]

Per round, for each tree, a fresh `python app.py` (this interpreter, the tree's code) on the
tree's copy of the store, read by the CPU it has used (/proc, user + system):
- start: from its start until it prints "Running on local URL" (wall and CPU), and its CPU
  3 s later (what it does once serving, and 3 s of being idle);
- idle: CPU per second over `--idle-seconds`, from 3 s after that (nobody using it);
- first page / another page: two fresh pages (new browser contexts, headless Chromium at
  1440x900), each from navigation until the first row's score shows and no request the
  page made (but the heartbeat stream) has been open for half a second;
- pre-submission: on the second page, from the Pre-submit click until the preview shows
  the new model's row and the page's requests have finished (a 3.5 MB file of a demo
  model the store does not hold).
Each tree's copy is started once before the rounds (its first start writes caches).
Prints each tree's medians, then its rounds' values, as JSON lines.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.bench_web import fill_submit_form  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
WAIT_MS = 120_000  # how long the page may take to show something
HEARTBEAT = "/gradio_api/heartbeat/"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class App:
    """`python app.py` of `tree` serving `store` on `port`, until closed."""

    def __init__(self, tree: Path, store: Path, port: int, temp: Path):
        env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
               "GRADIO_ANALYTICS_ENABLED": "False", "GRADIO_TEMP_DIR": str(temp),
               "LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "100000", "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "100000"}
        t = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, "app.py"], cwd=tree, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.log = []
        for line in self.process.stdout:
            self.log.append(line)
            if "Running on local URL" in line:
                break
        else:
            raise RuntimeError("the app did not start:\n" + "".join(self.log[-30:]))
        self.start_wall = time.perf_counter() - t
        self.start_cpu = self.cpu()
        threading.Thread(target=lambda: self.log.extend(self.process.stdout), daemon=True).start()
        self.url = f"http://127.0.0.1:{port}/"

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=60)


class Requests:
    """The requests a page has open (its heartbeat stream aside)."""

    def __init__(self, page):
        self.open = set()
        page.on("request", lambda r: HEARTBEAT not in r.url and self.open.add(r))
        page.on("requestfinished", lambda r: self.open.discard(r))
        page.on("requestfailed", lambda r: self.open.discard(r))

    def wait_done(self, page, quiet_ms: int = 500):
        quiet = 0
        while quiet < quiet_ms:
            page.wait_for_timeout(50)
            quiet = quiet + 50 if not self.open else 0


def page_load(browser, app: App, expect, rows):
    """(server CPU of a fresh page's load, the page, its context, its Requests)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    requests = Requests(page)
    before = app.cpu()
    page.goto(app.url)
    expect(rows(page).first.locator("[role=gridcell]").nth(2)).to_be_visible(timeout=WAIT_MS)
    requests.wait_done(page)
    return app.cpu() - before, page, context, requests


def presubmit(page, requests: Requests, app: App, sample: Path, expect) -> float:
    """Server CPU of a pre-submission of `sample`, from the click until its preview shows."""
    fill_submit_form(page, sample, expect, WAIT_MS)
    requests.wait_done(page)
    before = app.cpu()
    page.locator("#presubmit").click()
    expect(page.locator("#preview [role=row]").filter(has_text="★")).to_be_visible(timeout=WAIT_MS)
    requests.wait_done(page)
    return app.cpu() - before


def demo_file(store: Path, path: Path) -> Path:
    """A valid file of a demo model the store does not hold (not the board's sample file)."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    from leaderboard.strict_json import dump_json
    from leaderboard.submission.demo import SAMPLE_MARKER, sample_document
    board = Leaderboard(LocalStore(store))
    document = sample_document(board.benchmark, board.references(), seed=7)
    del document["metadata"][SAMPLE_MARKER]
    path.write_bytes(dump_json(document))
    path.with_suffix(".form.json").write_text(json.dumps({  # the form `fill_submit_form` reads
        "team_name": "Bench", "model_name": "bench-serve", "parameters": 7, "input_length": 4096,
        "link_to_model": "https://example.com/bench"}))
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", action="append", required=True, help="name=path of a tree of the project")
    parser.add_argument("--store", default=str(ROOT / "demo_store" / "BenCzechMark"), help="copied for each tree")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--port", type=int, default=7940)
    parser.add_argument("--workdir", help="where the copies go (default: a temporary folder, removed)")
    args = parser.parse_args()

    from playwright.sync_api import expect, sync_playwright
    from support.browser import launch_chromium
    from support.pages import rows

    trees = dict(t.split("=", 1) for t in args.tree)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_serve-"))
    stores, temps = {}, {}
    for name in trees:
        stores[name] = work / name / "store"
        if not stores[name].exists():
            shutil.copytree(args.store, stores[name])
        temps[name] = work / name / "gradio"
        temps[name].mkdir(parents=True, exist_ok=True)
        App(Path(trees[name]), stores[name], args.port, temps[name]).close()  # its first start writes caches
    sample = demo_file(stores[next(iter(trees))], work / "bench-serve.json")
    figures = {name: {k: [] for k in ("start_wall", "start_cpu", "cpu_3s_after_start", "idle_cpu_per_s",
                                      "first_page_cpu", "another_page_cpu", "presubmit_cpu")} for name in trees}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for _ in range(args.repeats):
            for name, tree in trees.items():
                app = App(Path(tree), stores[name], args.port, temps[name])
                try:
                    got = figures[name]
                    got["start_wall"].append(app.start_wall)
                    got["start_cpu"].append(app.start_cpu)
                    time.sleep(3)
                    before = app.cpu()
                    got["cpu_3s_after_start"].append(before)
                    time.sleep(args.idle_seconds)
                    got["idle_cpu_per_s"].append((app.cpu() - before) / args.idle_seconds)
                    cpu, _, context, _ = page_load(browser, app, expect, rows)
                    context.close()
                    got["first_page_cpu"].append(cpu)
                    cpu, page, context, requests = page_load(browser, app, expect, rows)
                    got["another_page_cpu"].append(cpu)
                    got["presubmit_cpu"].append(presubmit(page, requests, app, sample, expect))
                    context.close()
                finally:
                    app.close()
        browser.close()
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    for name, got in figures.items():
        print(json.dumps({"tree": name, **{k: round(statistics.median(v), 3) for k, v in got.items()}}))
        print(json.dumps({"tree": name, "runs": {k: [round(x, 3) for x in v] for k, v in got.items()}}))


if __name__ == "__main__":
    main()
