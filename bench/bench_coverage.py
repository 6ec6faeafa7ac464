"""Coverage study of the 95% score and rank intervals (issue 20), larger than the unit tests.

    python bench/bench_coverage.py [--demo-boards 1] [--demo-first-seed 0]

The simulated designs (the field score's intervals, issue 33) are in bench_ranking.py.
Here the demo
boards of both shipped benchmarks: demo models (leaderboard.submission.demo, 40 per board)
scored, paneled and dueled by the engine and given intervals by `ranking.certainty_table`
(`test_coverage.demo_board`); boards of seeds `--demo-first-seed` on. Prints per
benchmark, over every scope, the share of displayed scores inside their own 95% interval
and of displayed ranks inside their own rank interval, and the mean widths.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.coverage_boards import demo_board  # noqa: E402 (the tests folder is on the path just above)


FIELDS = ("score_inside", "rank_inside", "score_width", "rank_width")  # test_coverage.demo_board's


def summary(score_inside, rank_inside, score_width, rank_width) -> dict:
    """Shares inside and mean widths of one benchmark's boards from per-model lists (`FIELDS`)."""
    return {"values": len(score_inside), "score_inside": round(float(np.mean(score_inside)), 4),
            "rank_inside": round(float(np.mean(rank_inside)), 4),
            "score_mean_width_pp": round(100 * float(np.nanmean(score_width)), 2),
            "rank_mean_width": round(float(np.nanmean(rank_width)), 2)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo-boards", type=int, default=1)
    parser.add_argument("--demo-first-seed", type=int, default=0)
    args = parser.parse_args()
    out = {}
    for tasks_file in ("czechsuite_tasks.json", "tasks_metadata.json") if args.demo_boards else ():
        start, lists = time.perf_counter(), {field: [] for field in FIELDS}
        for seed in range(args.demo_first_seed, args.demo_first_seed + args.demo_boards):
            for field, values in demo_board(tasks_file, seed).items():
                lists[field] += values
        out[f"demo {tasks_file}"] = {**summary(*lists.values()), "seconds": round(time.perf_counter() - start, 1)}
        print(tasks_file, out[f"demo {tasks_file}"], flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
