"""Cost of one task's models x items matrix download (issue 34, `leaderboard.views.item_matrix`)
at 10,000 models: the file built on the first request (formatted, hashed and written block
by block) and the kept file's second request, with the peak of Python's allocations while
building (tracemalloc) beside the matrix's own size in memory.

    python bench/bench_item_matrix.py [--models 10000] [--items 1000] [--repeats 3]

The per-model arrays are in memory (a board whose summaries were read): what is measured is
the file's making, not reading arrays from the store. Two kinds of values: a binary task
(0/1) and an AUROC task (influence values, 9 significant digits). Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import matrix_board
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.views import item_matrix, table
    benchmark = load_benchmark()
    tasks = {"binary": next(t.id for t in benchmark.tasks if t.metric.sample_kind == "binary"),
             "auroc": next(t.id for t in benchmark.tasks if t.metric.name == "avg_mcauroc")}
    rng = np.random.default_rng(1)
    board = matrix_board.board_of(benchmark, {
        tasks["binary"]: (rng.random((args.models, args.items)) < 0.6).astype(float),
        tasks["auroc"]: rng.normal(0, 1e-3, (args.models, args.items))})
    out = {"models": args.models, "items": args.items, "repeats": args.repeats,
           "matrix_in_memory_mb": round(args.models * args.items * 8 / 1e6, 1)}
    for kind, task_id in tasks.items():
        walls, cpus = [], []
        for _ in range(args.repeats):
            table._EXPORTS.clear()  # a first request: nothing kept
            wall, cpu = time.perf_counter(), time.process_time()
            matrix = item_matrix.item_matrix(board, task_id)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        tracemalloc.start()
        table._EXPORTS.clear()
        item_matrix.item_matrix(board, task_id)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        wall = time.perf_counter()
        item_matrix.item_matrix(board, task_id)  # kept: the file is served again
        out[kind] = {"first_request_wall_s": round(statistics.median(walls), 2),
                     "first_request_cpu_s": round(statistics.median(cpus), 2),
                     "kept_request_wall_ms": round(1000 * (time.perf_counter() - wall), 2),
                     "build_peak_allocations_mb": round(peak / 1e6, 1),
                     "file_mb": round(os.path.getsize(matrix.path) / 1e6, 1)}
    out["load_average_1min"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
