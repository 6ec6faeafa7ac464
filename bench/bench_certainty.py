"""Cost of the score and rank intervals (issue 20: at most 3 s for a 1,000-model board).

    python bench/bench_certainty.py [--models 1000] [--repeats 5]

BenCzechMark's 50 tasks (accuracy, exact match, AUROC, perplexity) with 1,000 items each;
every model's per-task summaries made up at random in the shapes the engine stores (0/1
answers, AUROC influence values, 1,000 bootstrap perplexities); win scores at random.
Times `ranking.certainty_table` (replicates of every model and task, panel scores of 200
resamples, percentiles, tie groups), a fresh table each time: cold (every model's
replicates computed: new ModelResults each time) and after a publication (the models'
replicates kept from the board version before, `ModelResults.replicates`; one new
model's computed). Prints one JSON summary with the median wall time and the median CPU
time of the process (on a shared, loaded machine the wall time is mostly waiting for a core).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import ranking
    from leaderboard.engine.tournament import ModelResults

    benchmark = load_benchmark(ROOT / "data" / "tasks_metadata.json")
    rng = np.random.default_rng(0)
    n_items, ids = 1000, [f"m{i}" for i in range(args.models)]
    skill = rng.normal(0, 1, args.models)
    results = {m: ModelResults({}, {}) for m in ids}
    for task in benchmark.tasks:
        kind = task.metric.sample_kind
        if kind == "binary":
            summaries = (rng.random((args.models, n_items)) < 1 / (1 + np.exp(-skill[:, None]))).astype(float)
            aggregates = summaries.mean(axis=1)
        elif kind == "loglik_words":
            aggregates = 20 - skill + rng.normal(0, 0.1, args.models)
            summaries = -(aggregates[:, None] + rng.normal(0, 0.3, (args.models, 1000)))
        else:
            aggregates = 0.7 + 0.05 * skill
            summaries = rng.normal(0, 0.01 / np.sqrt(n_items), (args.models, n_items))
        for k, m in enumerate(ids):
            results[m].aggregates[task.id], results[m].summaries[task.id] = float(aggregates[k]), summaries[k]
    win = pd.DataFrame(rng.random((args.models, len(benchmark.tasks))), index=pd.Index(ids, name="submission_id"),
                       columns=benchmark.task_ids)
    kept = {m: ModelResults(r.aggregates, r.summaries) for m, r in results.items()}
    ranking.certainty_table(ranking.ranked(ranking.scores_from_win_scores(win.to_numpy(), ids, benchmark),
                                           pd.Series(np.arange(args.models), index=ids)), benchmark, kept)
    times = {"cold": [], "after_publication": []}
    cpu = {"cold": [], "after_publication": []}
    for k in range(args.repeats):
        for case in times:
            if case == "cold":
                given = {m: ModelResults(r.aggregates, r.summaries) for m, r in results.items()}
            else:  # the board before kept its replicates; one model (the "new" one) has none yet
                given = {**kept, ids[k]: ModelResults(results[ids[k]].aggregates, results[ids[k]].summaries)}
            ranked = ranking.ranked(ranking.scores_from_win_scores(win.to_numpy(), ids, benchmark),
                                    pd.Series(np.arange(args.models), index=ids))
            start, start_cpu = time.perf_counter(), time.process_time()
            ranking.certainty_table(ranked, benchmark, given)
            times[case].append(time.perf_counter() - start)
            cpu[case].append(time.process_time() - start_cpu)
    print(json.dumps({"models": args.models, "tasks": len(benchmark.tasks), "items_per_task": n_items,
                      "panel": benchmark.top_opponents, "resamples": ranking.evidence.CERTAINTY_RESAMPLES,
                      "repeats": args.repeats, **{f"{case}_median_s": statistics.median(v) for case, v in times.items()},
                      **{f"{case}_cpu_median_s": statistics.median(v) for case, v in cpu.items()},
                      "load_average_1min": os.getloadavg()[0]}, indent=1))


if __name__ == "__main__":
    main()
