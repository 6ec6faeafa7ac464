"""Building the demo store: one-by-one publication (the build before issue 18) against
`build_demo_store` (one commit, no files parsed back), in one run, alternating.

    python bench/bench_demo.py [--models 40] [--rounds 3] [--workdir /tmp/bench-demo]

Each build runs in a fresh process. Prints each time, the medians and the load average
(the machine may be shared: say so beside the numbers in bench/RESULTS.md).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_by_one(store: Path, n_models: int) -> None:
    """The build before issue 18: each demo model pre-submitted and published in turn."""
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.submission.demo import demo_model, task_design
    from leaderboard.storage.local import LocalStore
    from leaderboard.strict_json import dump_json
    board = Leaderboard(LocalStore(store))
    designs = {t.id: task_design(t, 0) for t in board.benchmark.tasks}
    for i in range(n_models):
        form, document, submitted_at = demo_model(board.benchmark, i, 0, designs)
        Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=submitted_at)


def in_one_commit(store: Path, n_models: int) -> None:
    from leaderboard.board.configured import build_demo_store
    build_demo_store(store, n_models, seed=0)


BUILDS = {"one_by_one": one_by_one, "in_one_commit": in_one_commit}


def timed_build(name: str, store: Path, n_models: int) -> float:
    """Seconds of one build in a fresh process."""
    code = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); from pathlib import Path; "
            f"from bench.bench_demo import BUILDS; t = time.perf_counter(); "
            f"BUILDS[{name!r}](Path({str(store)!r}), {n_models}); print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/bench-demo")
    args = parser.parse_args()
    times = {name: [] for name in BUILDS}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        order = list(BUILDS) if r % 2 == 0 else list(reversed(BUILDS))  # alternate: load drifts
        for name in order:
            store = Path(args.workdir) / f"{name}-{r}"
            shutil.rmtree(store, ignore_errors=True)
            times[name].append(timed_build(name, store, args.models))
            loads.append(os.getloadavg()[0])
            print(f"round {r + 1}: {name} {times[name][-1]:.1f} s (load {loads[-1]:.1f})", flush=True)
            shutil.rmtree(store)
    print(json.dumps({"models": args.models, "rounds": args.rounds, "cores": os.cpu_count(),
                      "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "seconds": times, "median": {n: statistics.median(t) for n, t in times.items()},
                      "load_1min": {"min": min(loads), "max": max(loads), "median": statistics.median(loads)}},
                     indent=1))


if __name__ == "__main__":
    main()
