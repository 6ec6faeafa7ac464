"""Cost of the evidence of issue 34 at 1,000 models: the simultaneous rank sets
(`stats.rank_sets.field_rank_sets`, every scope) and the task-set intervals
(`stats.field.task_set_certainty`), beside the items-only intervals (`field_certainty`)
they are computed with after a publication (`ranking.certainty_table`).

    python bench/bench_rank_sets.py [--models 1000] [--items 200] [--repeats 3] [--before REV]

--before REV: the rank sets of `stats/rank_sets.py` as of git revision REV as well, in
the same run (each part's repeats in turn), computing their own draws as they did.

BenCzechMark's shape (50 tasks in 9 categories, 200 resamples); the models' abilities a
general level plus a task profile, items of shared difficulty, accuracy and token F1
alternating (`tests/field_coverage.py`). Prints one JSON summary: median wall and CPU
seconds of each part, the sets' figures, and the 1-minute load.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def timed(run, repeats: int) -> tuple[float, float, object]:
    """(median wall s, median CPU s of the process, the last result)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def module_at(revision: str, path: str):
    """The module `path` as of git `revision`, loaded under a name of its own."""
    source = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout
    module = sys.modules[f"{Path(path).stem}_at_{revision}"] = types.ModuleType(f"{Path(path).stem}_at_{revision}")
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", help="a git revision whose stats/rank_sets.py is timed as well")
    args = parser.parse_args()
    import field_coverage
    from stats import field, rank_sets

    design = field_coverage.Design(args.models, tuple(field_coverage.BENCZECHMARK_SIZES), 0.5, args.items, 1)
    rng = np.random.default_rng(1)
    scores, replicates = field_coverage.observe(rng, field_coverage.abilities(rng, design), args.items, 200)
    category = np.repeat(np.arange(len(design.sizes)), design.sizes)
    n = args.models
    displayed = field.category_means(field.field_shares(scores.T, np.ones(n)).T, category)
    ones, family = np.ones(n), np.arange(n)
    draws = field.field_certainty_and_draws(replicates, category, ones, family, displayed)[1]
    parts = {
        "items_only_intervals": lambda: field.field_certainty(replicates, category, ones, family, displayed),
        # as the board computes them: on the intervals' draws
        "rank_sets": lambda: rank_sets.field_rank_sets(lambda: replicates, scores, category, ones, family, displayed,
                                                       args.items, shares=draws),
        "task_set_intervals": lambda: field.task_set_certainty(replicates, category, ones, family, displayed),
    }
    if args.before:
        before = module_at(args.before, "stats/rank_sets.py")
        parts["rank_sets_before"] = lambda: before.field_rank_sets(lambda: replicates, scores, category, ones, family,
                                                                   displayed, args.items)
    out = {"models": n, "tasks": len(category), "scopes": displayed.shape[1], "items_per_task": args.items,
           "repeats": args.repeats}
    results = {}
    for name, run in parts.items():
        wall, cpu, result = results[name] = timed(run, args.repeats)
        out[f"{name}_wall_s"], out[f"{name}_cpu_s"] = round(wall, 2), round(cpu, 2)
        if name.startswith("rank_sets"):
            overall = result[0]
            out[f"{name}_overall"] = {"could_be_first": overall.could_be_first, "could_be_last": overall.could_be_last,
                              "tiers": overall.order.height, "largest_unseparated": overall.order.largest_unseparated,
                              "established_share": round(overall.order.established_share, 4),
                              "median_set_width": float(np.median(overall.high - overall.low + 1))}
    if args.before:  # the same sets, scope by scope
        out["same_sets_as_before"] = all(
            (a.low == b.low).all() and (a.high == b.high).all() and (a.above == b.above).all()
            for a, b in zip(results["rank_sets"][2], results["rank_sets_before"][2]))
    out["load_average_1min"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
