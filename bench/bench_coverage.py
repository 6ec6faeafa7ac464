"""Coverage study of the 95% score and rank intervals (issue 20), larger than the unit tests.

    python bench/bench_coverage.py [--demo-boards 1] [--demo-first-seed 0]

The simulated designs (the field score's intervals, issue 33) are in bench_ranking.py.
Here the demo
designs of both shipped benchmarks: demo models (leaderboard.submission.demo, 40 per board) summarized,
dueled through the engine (`play`, each new model against the top_opponents best of its
day) and given intervals by `ranking.certainty_table`; the truth from `demo_skills`;
boards of seeds `--demo-first-seed` on (a long study can be split into runs).
Prints per design the coverage of the overall 95% score and rank intervals with the
binomial standard error of each share (sqrt(p (1 - p) / models): models of one board are
not independent, so it is a lower bound), their mean widths, the count of one-point
intervals (one rank, one score), the coverage of the rank intervals wider than one rank
(those the data does not pin), and the rank coverage counted as before issue 20's fix
(a tied truth covered when the interval meets any rank of the tie).
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


FIELDS = ("covered", "covered_tie_range", "width", "score_covered", "score_width")  # test_coverage.covered_by's


def summary(covered, covered_tie_range, width, score_covered, score_width) -> dict:
    """Coverage and widths of one design from per-model lists (`FIELDS`)."""
    covered, covered_tie_range = np.asarray(covered, dtype=bool), np.asarray(covered_tie_range, dtype=bool)
    score_covered, score_width, width = np.asarray(score_covered, dtype=bool), np.asarray(score_width), np.asarray(width)
    wide = width > 0

    def share(values) -> dict:
        p = float(values.mean())
        return {"share": round(p, 4), "se": round(float(np.sqrt(p * (1 - p) / len(values))), 4)}
    return {"models": len(covered), "score_coverage": share(score_covered),
            "score_mean_width_pp": round(100 * float(score_width.mean()), 2),
            "one_score": int((score_width == 0).sum()),
            "rank_coverage": share(covered), "rank_mean_width": round(float(width.mean()), 2),
            "one_rank": int((~wide).sum()),
            "rank_coverage_wider_than_one": round(float(covered[wide].mean()), 4) if wide.any() else None,
            "rank_coverage_tie_range": round(float(covered_tie_range.mean()), 4)}


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
