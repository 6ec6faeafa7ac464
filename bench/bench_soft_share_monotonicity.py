"""Does a candidate magnitude-aware field score keep the rule's monotonicity (issue 33)?

    python bench/bench_soft_share_monotonicity.py [--trials 20000]

The candidate `bench_ranking.soft_share` with its scale k x each task's standard
deviation of the models' scores (the scale the z-score mean uses; it moves when any
model's score moves). On random boards (3-6 models, 1-3 tasks, scores uniform, squared or
fifth-rooted, each task its own category) one model's score on one task is raised (by
0.01, 0.3 or 3 x a uniform draw; half of the trials the task's best model): counted, the
trials where that model's overall score fell, and those where another model went from
not above it to above it (its rank fell). Seeded.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ranking import soft_share  # noqa: E402 (the path just above)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20000)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    for k in (0.5, 1, 2):
        score_fell = rank_fell = 0
        for _ in range(args.trials):
            n, t = rng.integers(3, 7), rng.integers(1, 4)
            scores = rng.random((n, t)) ** rng.choice([0.2, 1, 5])
            task = rng.integers(t)
            model = int(np.argmax(scores[:, task])) if rng.random() < 0.5 else rng.integers(n)
            raised = scores.copy()
            raised[model, task] += rng.random() * rng.choice([0.01, 0.3, 3])

            def overall(s):
                return soft_share(s, k * s.std(axis=0), np.arange(t))
            before, after = overall(scores), overall(raised)
            score_fell += after[model] < before[model] - 1e-12
            rank_fell += bool(((before <= before[model] + 1e-12) & (after > after[model] + 1e-12)).any())
        print(f"k = {k}: {args.trials} trials, own score fell in {score_fell}, rank fell in {rank_fell}", flush=True)


if __name__ == "__main__":
    main()
