"""The reference panel (issue 20, part 1): order invariance and cost.

    python bench/bench_panel.py invariance            # both of issue 20's designs, both rules
    python bench/bench_panel.py cost --models 1000 10000 [--repeats 3]

invariance: simulated models with set abilities (tests/panel_simulation.py) published in
two random orders, under the panel and under the original rule (each model duels the top
models of its day); the share of models whose ranks are at most 2 places apart.

cost: a board of n settled models (kept in --cache for the next run) (every model has dueled every panel member) on 50
accuracy tasks in 9 categories, 40 items each, 50 opponents; then one more model is
added and the panel settled again (its duels with the panel, the backfill when it enters
it): once a weak model (it stays out) and once the strongest (it enters). This is the
engine's part of a pre-submission and of a publication (a publication also writes files).
Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from leaderboard.engine import ranking  # noqa: E402
from leaderboard.engine.panel import settle  # noqa: E402
from leaderboard.engine.tournament import Tournament  # noqa: E402
from panel_simulation import (accuracy_benchmark, publish_top_of_its_day, publish_under_panel, ranks,  # noqa: E402
                              share_within, simulated_results, two_orders)

DESIGNS = ((45, 12, 4, 20), (80, 50, 9, 50))  # models, tasks, categories, top_opponents


def invariance(seeds: int) -> list[dict]:
    out = []
    for n, tasks, categories, top in DESIGNS:
        benchmark = accuracy_benchmark(tasks, categories, top)
        for seed in range(seeds):
            results = simulated_results(benchmark, n, seed=seed)
            orders = two_orders(list(results), seed=seed + 100)
            submitted = pd.Series(0.0, index=list(results))
            row = {"models": n, "tasks": tasks, "top_opponents": top, "seed": seed}
            t = time.perf_counter()
            boards = [publish_under_panel(benchmark, results, order) for order in orders]
            row["panel_seconds_per_order"] = (time.perf_counter() - t) / 2
            panel = [ranks(p.scores(benchmark), submitted) for tour, p in boards]
            t = time.perf_counter()
            frozen = [ranks(ranking.scores_table(publish_top_of_its_day(benchmark, results, order), benchmark),
                            submitted) for order in orders]
            row["original_seconds_per_order"] = (time.perf_counter() - t) / 2
            for name, (first, second) in (("panel", panel), ("original", frozen)):
                moved = (first - second.reindex(first.index)).abs()
                row[name] = {"within_2_places": share_within(first, second), "max_places": int(moved.max()),
                             "mean_places": float(moved.mean())}
            row["panel_cycle"] = [p.cycle for _, p in boards]
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def cost(n: int, repeats: int, cache: Path | None) -> dict:
    benchmark = accuracy_benchmark(50, 9, 50)
    results = simulated_results(benchmark, n + 2, seed=0, items=40)
    mean_score = {m: np.mean(list(r.aggregates.values())) for m, r in results.items()}
    weak, strong = min(mean_score, key=mean_score.get), max(mean_score, key=mean_score.get)
    ids = [m for m in results if m not in (weak, strong)]
    out = {"models": n}
    stored = cache / f"settled_{n}.pkl" if cache else None
    if stored and stored.exists():  # the settled board of an earlier run: its duels are the same
        base = Tournament(benchmark.task_ids, ids, pickle.loads(stored.read_bytes()))
    else:
        base = Tournament(benchmark.task_ids, ids)
        t = time.perf_counter()
        settle(benchmark, base, results, links={})
        out.update(settle_from_no_duels_seconds=time.perf_counter() - t)
        if stored:
            stored.write_bytes(pickle.dumps(base.rows()))
    out["stored_rows"] = len(base)
    base.rows()  # one part, as a loaded board holds them
    for name, new in (("stays_out", weak), ("enters", strong)):
        times, cpu, panel = [], [], None
        for _ in range(repeats):
            tournament = base.copy()
            t, c = time.perf_counter(), time.process_time()
            tournament.add_models([new])
            panel = settle(benchmark, tournament, results, links={})  # as a board settles: links kept, no arrays read
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        out[name] = {"median_seconds": statistics.median(times), "median_cpu_seconds": statistics.median(cpu),
                     "runs": times, "in_panel": new in panel.members, "new_rows": len(tournament) - len(base)}
    out["load_average"] = os.getloadavg()
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("invariance", "cost"))
    parser.add_argument("--models", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--cache", type=Path, help="a folder to keep settled boards in between runs")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    if args.what == "invariance":
        invariance(args.seeds)
    else:
        for n in args.models:
            cost(n, args.repeats, args.cache)


if __name__ == "__main__":
    main()
