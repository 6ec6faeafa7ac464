"""Cold start of the app on a 100-model Hugging Face dataset repo served by the local Hub
server of the tests (tests/fake_hub.py), through the real huggingface_hub client.

    python bench/bench_hub.py [--models 100] [--workdir bench/out]

The repo is laid out as the app writes it (submissions, tournament, snapshot and the
per-model arrays under arrays/). Measured in fresh processes: loading the board with
empty local caches (a new replica) and with warm ones (a restart), and `python app.py`
from launch until it serves, with its peak memory. Prints a JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
REPO = "bench/leaderboard"

LOAD = """
import json, resource, sys, time
t = time.perf_counter()
from leaderboard.board.state import Leaderboard
from leaderboard.storage.hub import HubStore
from leaderboard.config.tasks import load_benchmark
benchmark = load_benchmark()
board = Leaderboard(HubStore(sys.argv[1], benchmark.name, endpoint=sys.argv[2], cache_dir=sys.argv[3]), benchmark)
board.ranked()
print(json.dumps({"seconds": time.perf_counter() - t, "models": len(board.models),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def repo_files(store: Path) -> dict[str, bytes]:
    """The local store's files as the Hub store commits them."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.hub import ARRAYS_DIR, git_blob_id
    from leaderboard.storage.snapshot import dataset_card, snapshot_parquet
    from leaderboard.storage.local import SNAPSHOT_FILE, TITLES_FILE, TOURNAMENT_FILE, LocalStore, encode_cached
    board = Leaderboard(LocalStore(store))
    files = {TOURNAMENT_FILE: (store / TOURNAMENT_FILE).read_bytes(), TITLES_FILE: (store / TITLES_FILE).read_bytes(),
             SNAPSHOT_FILE: snapshot_parquet(board.models, board.ranked(), board.benchmark, board.flags),
             "README.md": dataset_card(board.benchmark.name)}
    for sid, model in board.models.items():
        document = (store / "data" / f"{sid}.json").read_bytes()
        files[f"data/{sid}.json"] = document
        files[f"{ARRAYS_DIR}/{sid}.npz"] = encode_cached(model, git_blob_id(document))
    return files


def load_board(hub_url: str, cache_dir: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", LOAD, REPO, hub_url, str(cache_dir)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def app_start(hub_url: str, home: Path, workdir: Path) -> dict:
    from test_e2e import free_port, start_app
    env = {**os.environ, "LEADERBOARD_REPO": REPO, "HF_ENDPOINT": hub_url, "HF_HOME": str(home),
           "GRADIO_SERVER_PORT": str(free_port()), "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("LEADERBOARD_STORE", None)
    t = time.perf_counter()
    app = start_app(env, workdir / "bench_hub_app.log")
    seconds = time.perf_counter() - t
    status = Path(f"/proc/{app.pid}/status").read_text()
    peak_kb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
    app.terminate()
    app.wait(timeout=30)
    return {"seconds_until_serving": seconds, "peak_mb": peak_kb / 1024}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    args = parser.parse_args()

    from fake_hub import FakeHub
    from leaderboard.submission.demo import build_demo_store
    work = Path(args.workdir)
    store = work / f"store{args.models}"
    if not store.exists():
        build_demo_store(store, args.models, seed=1)
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        tmp = Path(tmp)
        hub = FakeHub(tmp / "hub").start()
        files = repo_files(store)
        hub.create_repo(REPO, files)
        results = {"models": args.models, "repo_mb": sum(map(len, files.values())) / 2**20,
                   "new_replica": load_board(hub.url, tmp / "cache-a"),
                   "restart_warm_cache": load_board(hub.url, tmp / "cache-a"),
                   "app_start_new_replica": app_start(hub.url, tmp / "home-b", work),
                   "app_start_restart": app_start(hub.url, tmp / "home-b", work)}
        hub.stop()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
