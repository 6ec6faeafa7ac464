"""The near-copy check a pre-submission and a publication now run (issue 33,
`engine.panel.near_copy_metadata`), in process, on synthetic boards of 1,000 and 10,000
models on BenCzechMark's 50 tasks whose kept standard errors make no model a candidate (the
usual case: no arrays read). Prints the median of 5 calls and the first.

    python bench/bench_near_copy_check.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from leaderboard.config.tasks import load_benchmark  # noqa: E402 (the project root is on the path just above)
from leaderboard.engine.panel import TASK_NOISE, near_copy_metadata  # noqa: E402
from leaderboard.engine.tournament import ModelResults  # noqa: E402


def board(benchmark, n: int, rng) -> dict:
    """n published models (abilities 0.6 +- 0.1, task noise 0.05) whose kept standard errors
    (0.001) pair them with nobody, and a new model "new" with its replicates."""
    models = {}
    for i in range(n):
        ability = rng.normal(0.6, 0.1)
        scores = {t: float(np.clip(ability + rng.normal(0, 0.05), 0.01, 0.99)) for t in benchmark.task_ids}
        models[f"m{i}"] = SimpleNamespace(results=ModelResults(scores, {}),
                                          metadata={TASK_NOISE: {t: 0.001 for t in benchmark.task_ids}})
    new = ModelResults({t: 0.5 for t in benchmark.task_ids}, {})
    new.replicates.update({(t, 200): rng.normal(0.5, 0.001, 200) for t in benchmark.task_ids})
    models["new"] = SimpleNamespace(results=new, metadata={})
    return models


def main():
    benchmark, rng = load_benchmark(), np.random.default_rng(0)
    for n in (1000, 10000):
        models, times = board(benchmark, n, rng), []
        for _ in range(5):
            start = time.perf_counter()
            near_copy_metadata(benchmark, models, "new")
            times.append(time.perf_counter() - start)
        print(n, "models: median", round(statistics.median(times), 3), "s, first", round(times[0], 3), "s")


if __name__ == "__main__":
    main()
