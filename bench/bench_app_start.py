"""What one served app costs the test suite: the CPU of an `app.py` process from its launch
until it says it is serving (imports, the board's load, the page's build), on a demo store
of the default benchmark, and the wall time of that start. The suite starts some 35 of them
(bench/RESULTS.md, "The test suite's time", session 12).

    python bench/bench_app_start.py [--models 5] [--runs 3] [--port 7995]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """user + system CPU of a running process so far (/proc/<pid>/stat's utime and stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_start(store: Path, port: int) -> tuple[float, float]:
    """(CPU, wall) seconds of app.py on `store` until its "Running on" line; then stopped."""
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        for line in process.stdout:
            if "Running on local URL" in line:
                return cpu_seconds(process.pid), time.perf_counter() - began
        raise RuntimeError("the app exited before serving")
    finally:
        process.terminate()
        process.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=7995)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store"
        subprocess.run([sys.executable, "-m", "leaderboard", "demo", "--store", str(store),
                        "--models", str(args.models)], cwd=ROOT, check=True, capture_output=True)
        starts = [one_start(store, args.port) for _ in range(args.runs)]
    cpu, wall = zip(*starts)
    print(f"app.py on a {args.models}-model demo store, {args.runs} starts: CPU median {statistics.median(cpu):.1f} s "
          f"({', '.join(f'{c:.1f}' for c in cpu)}), wall median {statistics.median(wall):.1f} s "
          f"({', '.join(f'{w:.1f}' for w in wall)})")


if __name__ == "__main__":
    main()
