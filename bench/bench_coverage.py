"""Coverage study of the 95% rank intervals (issue 20), larger than the unit tests.

    python bench/bench_coverage.py [--boards-scale 3] [--demo-boards 1]

Part 1: the designs of tests/test_coverage.py (simulated Bernoulli and token-F1 items,
duels through stats.duel) with `--boards-scale` times as many boards. Part 2: the demo
designs of both shipped benchmarks: demo models (leaderboard.submission.demo, 40 per board) summarized,
dueled through the engine (`play`, each new model against the top_opponents best of its
day) and given intervals by `ranking.certainty_table`; the truth from `demo_skills`.
Prints per design the coverage of the overall 95% score and rank intervals, their mean
widths, the count of one-point intervals (one rank, one score), and the coverage of the
rank intervals wider than one rank (those the data does not pin).
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

from test_coverage import demo_board  # noqa: E402 (the tests folder is on the path just above)


def summary(covered, width, score_covered, score_width) -> dict:
    """Coverage and widths of one design from per-model lists (rank covered, rank width,
    score covered, score width)."""
    covered, width = np.asarray(covered, dtype=bool), np.asarray(width)
    score_covered, score_width = np.asarray(score_covered, dtype=bool), np.asarray(score_width)
    wide = width > 0
    return {"models": len(covered), "score_coverage": round(float(score_covered.mean()), 3),
            "score_mean_width_pp": round(100 * float(score_width.mean()), 1),
            "one_score": int((score_width == 0).sum()),
            "rank_coverage": round(float(covered.mean()), 3), "rank_mean_width": round(float(width.mean()), 2),
            "one_rank": int((~wide).sum()),
            "rank_coverage_wider_than_one": round(float(covered[wide].mean()), 3) if wide.any() else None}


def simulated_designs(scale: int) -> dict:
    import test_coverage as designs
    out = {}
    for name, design in designs.DESIGNS.items():
        start = time.perf_counter()
        measured = designs.coverage(name, design[-1] * scale)
        out[name] = {**summary(*(measured[f] for f in ("covered", "width", "score_covered", "score_width"))),
                     "seconds": round(time.perf_counter() - start, 1)}
        print(name, out[name], flush=True)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards-scale", type=int, default=3)
    parser.add_argument("--demo-boards", type=int, default=1)
    args = parser.parse_args()
    out = {"simulated": simulated_designs(args.boards_scale)}
    for tasks_file in ("czechsuite_tasks.json", "tasks_metadata.json"):
        start, lists = time.perf_counter(), {"covered": [], "width": [], "score_covered": [], "score_width": []}
        for seed in range(args.demo_boards):
            for field, values in demo_board(tasks_file, seed).items():
                lists[field] += values
        out[f"demo {tasks_file}"] = {**summary(*lists.values()), "seconds": round(time.perf_counter() - start, 1)}
        print(tasks_file, out[f"demo {tasks_file}"], flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
