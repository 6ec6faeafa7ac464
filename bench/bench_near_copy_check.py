"""The near-copy check a pre-submission and a publication now run (issue 33,
`engine.panel.near_copy_metadata`), in process, on synthetic boards of 1,000 and 10,000
models on BenCzechMark's 50 tasks whose kept standard errors make no model a candidate (the
usual case: no arrays read). Prints the median of 5 calls and the first.

    python bench/bench_near_copy_check.py
"""
import sys
import time
import statistics
import numpy as np
sys.path[:0] = [str(__import__("pathlib").Path(__file__).resolve().parent.parent)]
from types import SimpleNamespace
from leaderboard.config.tasks import load_benchmark
from leaderboard.engine.panel import near_copy_metadata, TASK_NOISE
from leaderboard.engine.tournament import ModelResults
b = load_benchmark()
rng = np.random.default_rng(0)
for n in (1000, 10000):
    models = {}
    for i in range(n):
        ab = rng.normal(0.6, 0.1)
        agg = {t: float(np.clip(ab + rng.normal(0, 0.05), 0.01, 0.99)) for t in b.task_ids}
        models[f"m{i}"] = SimpleNamespace(results=ModelResults(agg, {}), metadata={TASK_NOISE: {t: 0.001 for t in b.task_ids}})
    new = "new"
    agg = {t: 0.5 for t in b.task_ids}
    res = ModelResults(agg, {})
    res.replicates.update({(t, 200): rng.normal(0.5, 0.001, 200) for t in b.task_ids})
    models[new] = SimpleNamespace(results=res, metadata={})
    times = []
    for _ in range(5):
        t = time.perf_counter(); out = near_copy_metadata(b, models, new); times.append(time.perf_counter() - t)
    print(n, "median s", round(statistics.median(times), 3), "first", round(times[0], 3), "links", len(out["near_copies"]))
