"""A new replica of a Hugging Face dataset repo board: how long, how many HTTP requests and
how many bytes until it serves the board, and what a pre-submission then fetches. The repo
is served by the local Hub server of the tests (tests/fake_hub.py, which counts requests and
can delay each answer), read through the real huggingface_hub client.

    python bench/bench_hub.py --models 100 [--latency 0 0.05] [--repeats 3] [--workdir DIR]
    python bench/bench_hub.py --models 1000 --layout files   # the repo as older versions wrote it

The store is bench_scale.py's synthetic one (40 samples per task, every duel run by
`rebuild`, so the panel is settled: a pre-submission duels it, not the whole board), laid
out in the repo as the app writes it: submissions, per-model arrays under arrays/, duel
files, titles, snapshot, and (`--layout index`, the default) the index files a history of
one publication per model leaves (store_index.py); `--layout files` leaves them out (the repo
as versions before the index wrote it). Each replica runs in a fresh process with an empty
cache (a new replica: load, then a pre-submission), then once more on the same cache (a
restart), then the app itself from launch until it serves, new and restarted. Prints a
JSON summary (medians of the repeats); requests and bytes are those the hub answered, peak
memory is each process's own.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
REPO = "bench/leaderboard"

# A replica in a fresh process: load the board and rank it ("loaded"), then pre-submit the
# file named by argv[4] when the bench answers on stdin ("presubmitted").
REPLICA = """
import json, resource, sys, time
t = time.perf_counter()
from pathlib import Path
from leaderboard.board.state import Leaderboard
from leaderboard.storage.hub import HubStore
from leaderboard.config.tasks import load_benchmark
benchmark = load_benchmark()
board = Leaderboard(HubStore(sys.argv[1], benchmark.name, endpoint=sys.argv[2], cache_dir=sys.argv[3]), benchmark)
board.ranked()
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": time.perf_counter() - t, "models": len(board.models), "peak_mb": peak()}), flush=True)
if sys.stdin.readline().strip() == "presubmit":
    new = Path(sys.argv[4])
    t = time.perf_counter()
    preview = board.publishing.presubmit(new, json.loads(new.with_suffix(".form.json").read_text()))
    print(json.dumps({"seconds": time.perf_counter() - t, "rank": int(preview.table.loc[preview.submission_id, "rank"]),
                      "peak_mb": peak()}), flush=True)
"""


def replica(hub, cache_dir: Path, new_file: Path, presubmit: bool) -> dict:
    """One replica process on `cache_dir`: its load (and pre-submission), each with the
    requests and bytes the hub answered meanwhile."""
    env = {key: value for key, value in os.environ.items() if key not in ("HF_HUB_CACHE", "HF_HOME")}
    env["HF_HOME"] = str(cache_dir / "hf")  # the Hub client's cache: the replica's own
    process = subprocess.Popen([sys.executable, "-c", REPLICA, REPO, hub.url, str(cache_dir / "arrays"), str(new_file)],
                               cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    result = {}
    for step in ("load", "presubmit") if presubmit else ("load",):
        requests, sent = hub.requests, hub.bytes_sent
        if step == "presubmit":
            process.stdin.write("presubmit\n")
            process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"the replica process failed at {step} (exit {process.wait()})")
        result[step] = {**json.loads(line), "requests": hub.requests - requests,
                        "mb_downloaded": (hub.bytes_sent - sent) / 2**20}
    if not presubmit:
        process.stdin.write("done\n")
    process.stdin.close()
    process.wait(timeout=600)
    return result


def app_start(hub, home: Path, workdir: Path, port: int) -> dict:
    """`python app.py` on the repo from launch until it serves: seconds, requests, peak MB."""
    from test_e2e import start_app
    env = {key: value for key, value in os.environ.items() if key not in ("HF_HUB_CACHE", "LEADERBOARD_STORE")}
    env.update(LEADERBOARD_REPO=REPO, HF_ENDPOINT=hub.url, HF_HOME=str(home), GRADIO_SERVER_PORT=str(port),
               GRADIO_ANALYTICS_ENABLED="False")
    requests = hub.requests
    t = time.perf_counter()
    app = start_app(env, workdir / "bench_hub_app.log", seconds=900)
    seconds = time.perf_counter() - t
    status = Path(f"/proc/{app.pid}/status").read_text()
    peak_kb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
    app.terminate()
    app.wait(timeout=30)
    return {"seconds_until_serving": seconds, "requests": hub.requests - requests, "peak_mb": peak_kb / 1024}


def medians(runs: list[dict]) -> dict:
    """Per step and measure, the median over the runs (all runs' seconds kept too)."""
    out = {}
    for step in runs[0]:
        out[step] = {key: statistics.median(run[step][key] for run in runs) for key in runs[0][step]}
        out[step]["all_seconds"] = [round(run[step]["seconds"], 2) for run in runs]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.05], help="seconds per request")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layout", choices=("index", "files"), default="index")
    parser.add_argument("--no-app", action="store_true", help="measure the replica processes only")
    parser.add_argument("--port", type=int, default=7860, help="the app's port")
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    args = parser.parse_args()

    from bench.bench_scale import run_phase, write_probe
    from conftest import hub_repo_files
    from fake_hub import FakeHub
    from leaderboard.config.tasks import load_benchmark
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    results = {"models": args.models, "layout": args.layout, "load_average_at_start": os.getloadavg()}
    store = work / f"hubstore{args.models}-rebuilt"
    if not store.exists():
        results["build"] = run_phase("build", store, args.models, 40, "rebuild", 1)
    new_file = work / "hub-new.json"
    if not new_file.exists():
        write_probe(new_file, store, "hub-probe")
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        tmp = Path(tmp)
        hub = FakeHub(tmp / "hub").start()
        files = hub_repo_files(store, load_benchmark(), index=args.layout == "index")
        hub.create_repo(REPO, files)
        index = {path: len(data) for path, data in files.items() if path.startswith("index/")}
        results.update(repo_files=len(files), repo_mb=sum(map(len, files.values())) / 2**20,
                       index_segments=index, index_mb=sum(index.values()) / 2**20)
        for latency in args.latency:
            hub.latency = latency
            new, restarts = [], []
            for k in range(args.repeats):
                cache = tmp / f"cache-{latency}-{k}"
                new.append(replica(hub, cache, new_file, presubmit=True))
                restarts.append(replica(hub, cache, new_file, presubmit=False))
            at = results[f"latency_{latency:g}s"] = {"new_replica": medians(new), "restart": medians(restarts)}
            for name in () if args.no_app else ("app_start_new_replica", "app_start_restart"):
                try:
                    at[name] = app_start(hub, tmp / f"home-{latency}", work, args.port)
                except RuntimeError as e:  # the app did not start: say so, keep what was measured
                    at[name] = {"failed": str(e)}
            print(json.dumps(at), file=sys.stderr, flush=True)  # what is measured so far
        hub.stop()
    results["load_average_at_end"] = os.getloadavg()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
