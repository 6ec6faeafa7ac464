"""Coverage study of the 95% rank intervals (issue 20), larger than the unit tests.

    python bench/bench_coverage.py [--boards-scale 3] [--demo-boards 1]

Part 1: the designs of tests/test_coverage.py (simulated Bernoulli and token-F1 items,
duels through stats.duel) with `--boards-scale` times as many boards. Part 2: the demo
designs of both shipped benchmarks: demo models (leaderboard.submission.demo, 40 per board) summarized,
dueled through the engine (`play`, each new model against the top_opponents best of its
day) and given intervals by `ranking.certainty_table`; the truth from `demo_skills`.
Prints per design the coverage of the overall 95% rank interval, its mean width, and the
count of zero-width intervals.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def simulated_designs(scale: int) -> dict:
    import test_coverage as designs
    out = {}
    for name, design in list(designs.DESIGNS.items()):
        designs.DESIGNS[name] = (*design[:-1], design[-1] * scale)
        start = time.perf_counter()
        measured = designs.coverage(name)
        zero = sum(int((r.rank_low[:, 0] == r.rank_high[:, 0]).sum()) for r in measured["results"])
        out[name] = {"models": sum(len(r.rank_low) for r in measured["results"]),
                     "coverage": round(float(measured["coverage"]), 3), "mean_width": round(float(measured["width"]), 2),
                     "zero_width": zero, "seconds": round(time.perf_counter() - start, 1)}
        print(name, out[name], flush=True)
    return out


def demo_design(tasks_file: str, seed: int, n_models: int = 40) -> dict:
    from leaderboard.submission import demo
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import ranking
    from leaderboard.engine.replay import opponents_of_the_day
    from leaderboard.engine.tournament import Tournament, play, summarize
    from leaderboard.submission.parsing import ParsedSubmission
    from test_coverage import truth_rank_range

    benchmark = load_benchmark(ROOT / "data" / tasks_file)
    designs = {t.id: demo.task_design(t, seed) for t in benchmark.tasks}
    ids, results, tournament = [f"m{i}" for i in range(n_models)], {}, Tournament(benchmark.task_ids)
    submitted = pd.Series(np.arange(n_models), index=ids)
    for i, sid in enumerate(ids):
        _, document, _, tasks = demo.demo_submission(benchmark, i, seed, designs)
        results[sid] = summarize(ParsedSubmission(tasks, document, "", ""), benchmark)
        if i:
            table = ranking.ranked(ranking.scores_table(tournament, benchmark), submitted[ids[:i]])
            play(benchmark, tournament, sid, results, opponents_of_the_day(table, benchmark), rules="study")
        else:
            tournament.add_models([sid])
    ranked = ranking.ranked(ranking.scores_table(tournament, benchmark), submitted)
    certainty = ranking.certainty_table(ranked, benchmark, results)[ranking.OVERALL]
    panel = np.array([ids.index(m) for m in ranked.index[:benchmark.top_opponents]])
    categories = list(benchmark.categories)
    skill = np.array([[demo.demo_skills(benchmark, i, seed)[t.category] for t in benchmark.tasks]
                      for i in range(n_models)])
    best, worst = truth_rank_range(skill, np.array([categories.index(t.category) for t in benchmark.tasks]), panel)
    low, high = certainty["rank_low"].reindex(ids).to_numpy(), certainty["rank_high"].reindex(ids).to_numpy()
    return {"covered": ((low <= worst) & (best <= high)).tolist(), "width": (high - low).tolist(),
            "zero_width": int((low == high).sum())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards-scale", type=int, default=3)
    parser.add_argument("--demo-boards", type=int, default=1)
    args = parser.parse_args()
    out = {"simulated": simulated_designs(args.boards_scale)}
    for tasks_file in ("czechsuite_tasks.json", "tasks_metadata.json"):
        start, runs = time.perf_counter(), [demo_design(tasks_file, seed) for seed in range(args.demo_boards)]
        covered, width = sum((r["covered"] for r in runs), []), sum((r["width"] for r in runs), [])
        out[f"demo {tasks_file}"] = {"models": len(covered), "coverage": round(float(np.mean(covered)), 3),
                                     "mean_width": round(float(np.mean(width)), 2),
                                     "zero_width": sum(r["zero_width"] for r in runs),
                                     "seconds": round(time.perf_counter() - start, 1)}
        print(tasks_file, out[f"demo {tasks_file}"], flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
