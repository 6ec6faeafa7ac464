"""The per-pre-submission work that grows with the board, at 10,000 models, in process:
the panel's task-score matrix (`panel.signed_task_scores`, twice per pre-submission: the
near-copy check and the settle) and the scores table (`ranking.scores_from_win_scores`,
twice: the field scores and the duel wins), on BenCzechMark's 50 tasks with synthetic
aggregates (seeded; what these functions read of a model is its aggregates alone).

    python bench/bench_board_vectors.py [--models 10000] [--repeats 5] [--before DIR]

Each tree runs in a fresh process (`--phase`): a first call, reported apart (the after
tree's first call makes the kept vectors), then the median of `--repeats` more. The trees
run in turn, the after tree first. Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.trees import in_each_tree, parse_or_run_phase  # noqa: E402 - this checkout's, whatever the tree
sys.path.insert(0, str(Path(os.environ.get("BENCH_CODE", ROOT))))  # the tree a phase measures


def timed(call, repeats: int) -> dict:
    t = time.perf_counter()
    call()
    first = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return {"first_s": first, "median_s": statistics.median(times)}


def phase(n_models: str, repeats: str) -> dict:
    import numpy as np

    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import panel, ranking
    from leaderboard.engine.tournament import ModelResults
    benchmark = load_benchmark()
    n, task_ids = int(n_models), benchmark.task_ids
    values = np.random.default_rng(0).random((n, len(task_ids)))
    ids = [f"m{i:05d}" for i in range(n)]
    results = {m: ModelResults(dict(zip(task_ids, map(float, row))), {}) for m, row in zip(ids, values)}
    return {"signed_task_scores": timed(lambda: panel.signed_task_scores(benchmark, task_ids, results, ids),
                                        int(repeats)),
            "scores_from_win_scores": timed(lambda: ranking.scores_from_win_scores(values, ids, benchmark),
                                            int(repeats))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parse_or_run_phase(parser, phase)
    if args is None:
        return
    result = {"models": args.models, "load_average_at_start": os.getloadavg(),
              **in_each_tree(__file__, args.before, args.models, args.repeats)}
    result["load_average_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
