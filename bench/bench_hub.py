"""A new replica of a Hugging Face dataset repo board: how long, how many HTTP requests and
how many bytes until it serves the board, and what a pre-submission then fetches. The repo
is served by the local Hub server of the tests (tests/fake_hub.py, which counts requests and
can delay each answer), read through the real huggingface_hub client.

    python bench/bench_hub.py --models 100 [--latency 0 0.05] [--repeats 5] [--workdir DIR] [--port 7972]
    python bench/bench_hub.py --models 1000 --layout files   # the repo as older versions wrote it
    python bench/bench_hub.py --models 100 --samples 40      # reduced arrays (40 samples per task)

The store is bench_scale.py's settled one (`--settled`: the panel settled at its start,
every model's duels with it stored, so a pre-submission duels the panel, not the whole
board), full size by default (`--samples 0`: the real task sizes, so the arrays a replica
downloads are the real ones), laid out in the repo as the app writes it: submissions,
per-model arrays under arrays/, duel files, titles, snapshot, and (`--layout index`, the
default) the index files a history of one publication per model leaves (store_index.py);
`--layout files` leaves them out (the repo as versions before the index wrote it). Each
replica runs in a fresh process with an empty cache (a new replica: load, then a
pre-submission), once with a new model that enters the panel and once with one that stays
off it (`bench_publication.new_files`, checked: `entered_panel`), then once more on the
same cache (a restart); then the app itself from launch until the hub has answered its
last request (no request for QUIET_SECONDS after it: the downloads the app starts in the
background count), new and restarted, with the seconds until it serves beside. Prints a
JSON summary (medians of the repeats, every run's seconds); requests and bytes are those
the hub answered, peak memory is each process's own. The fake Hub listens on `--port` + 1.
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
QUIET_SECONDS = 10  # no hub request for this long after the app serves: its background downloads ended

# A replica in a fresh process: load the board and rank it ("loaded"), then pre-submit the
# file named by argv[4] when the bench answers on stdin ("presubmitted").
REPLICA = """
import json, resource, sys, time
t = time.perf_counter()
from pathlib import Path
from leaderboard.board.publishing import Publishing
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
    preview = Publishing(board).presubmit(new, json.loads(new.with_suffix(".form.json").read_text()))
    print(json.dumps({"seconds": time.perf_counter() - t, "rank": int(preview.table.loc[preview.submission_id, "rank"]),
                      "entered_panel": preview.submission_id in preview.panel, "peak_mb": peak()}), flush=True)
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
    """`python app.py` on the repo from launch until it serves, and until the hub answered
    its last request (its background downloads ended: QUIET_SECONDS without one after it):
    seconds, requests, MB downloaded, peak MB."""
    from support.servers import start_app
    env = {key: value for key, value in os.environ.items() if key not in ("HF_HUB_CACHE", "LEADERBOARD_STORE")}
    env.update(LEADERBOARD_REPO=REPO, HF_ENDPOINT=hub.url, HF_HOME=str(home), GRADIO_SERVER_PORT=str(port),
               GRADIO_ANALYTICS_ENABLED="False")
    requests, sent = hub.requests, hub.bytes_sent
    t = time.perf_counter()
    app = start_app(env, workdir / "bench_hub_app.log", seconds=900)
    serving = time.perf_counter() - t
    last, seen = time.perf_counter(), hub.requests
    while time.perf_counter() - last < QUIET_SECONDS:
        time.sleep(0.05)
        if hub.requests != seen:
            last, seen = time.perf_counter(), hub.requests
    status = Path(f"/proc/{app.pid}/status").read_text()
    peak_kb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
    app.terminate()
    app.wait(timeout=30)
    return {"seconds_until_serving": serving, "seconds_until_downloads_ended": last - t,
            "requests": hub.requests - requests, "mb_downloaded": (hub.bytes_sent - sent) / 2**20,
            "peak_mb": peak_kb / 1024}


def medians(runs: list[dict]) -> dict:
    """Per step and measure, the median over the runs (all runs' seconds kept too)."""
    out = {}
    for step in runs[0]:
        out[step] = {key: (statistics.median(run[step][key] for run in runs) if not isinstance(value, bool)
                           else [run[step][key] for run in runs]) for key, value in runs[0][step].items()}
        out[step]["all_seconds"] = [round(run[step]["seconds"], 2) for run in runs]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.05], help="seconds per request")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--samples", type=int, default=0, help="samples per task; 0: the real task sizes")
    parser.add_argument("--layout", choices=("index", "files"), default="index")
    parser.add_argument("--no-app", action="store_true", help="measure the replica processes only")
    parser.add_argument("--port", type=int, default=7860, help="the app's port; the fake Hub's the next")
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    args = parser.parse_args()

    from bench.bench_publication import new_files
    from bench.bench_scale import built_store
    from support.hub_repos import hub_repo_files
    from fake_hub import FakeHub
    from leaderboard.config.tasks import load_benchmark
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    results = {"models": args.models, "samples": args.samples, "layout": args.layout,
               "load_average_at_start": os.getloadavg()}
    store, results["build"] = built_store(work, args.models, args.samples, True, 20)
    probes = new_files(work, args.samples)  # a new model that enters the panel, one that stays off it
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        tmp = Path(tmp)
        hub = FakeHub(tmp / "hub").start(args.port + 1)
        files = hub_repo_files(store, load_benchmark(), index=args.layout == "index")
        hub.create_repo(REPO, files)
        index = {path: len(data) for path, data in files.items() if path.startswith("index/")}
        results.update(repo_files=len(files), repo_mb=sum(map(len, files.values())) / 2**20,
                       index_segments=index, index_mb=sum(index.values()) / 2**20)
        for latency in args.latency:
            hub.latency = latency
            at = results[f"latency_{latency:g}s"] = {}
            for probe, new_file in probes.items():
                new, restarts = [], []
                for k in range(args.repeats):
                    cache = tmp / f"cache-{latency}-{probe}-{k}"
                    new.append(replica(hub, cache, new_file, presubmit=True))
                    restarts.append(replica(hub, cache, new_file, presubmit=False))
                at[f"new_replica_probe_{probe}"], at[f"restart_{probe}"] = medians(new), medians(restarts)
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
