"""A board made of models x items matrices, for the item matrix's export
(`leaderboard.views.item_matrix`) without a store: what the export reads of a board
(ranked(), the models' per-item arrays, references(), benchmark, the store's time), for
tests/test_rank_sets.py and bench/bench_item_matrix.py."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pandas as pd


def board_of(benchmark, values: dict[str, np.ndarray]) -> SimpleNamespace:
    """values: task id -> (N, n) per-item values of N models (row i: submission id
    `model-<i>`), ranked in row order; the benchmark cut to these tasks."""
    tasks = tuple(t for t in benchmark.tasks if t.id in values)
    benchmark = dataclasses.replace(benchmark, tasks=tasks,
                                    categories=tuple(dict.fromkeys(t.category for t in tasks)))
    n = len(next(iter(values.values())))
    ids = [f"model-{i:05d}" for i in range(n)]
    ranked = pd.DataFrame(index=pd.Index(ids))
    models = {m: SimpleNamespace(results=SimpleNamespace(summaries={t: v[i] for t, v in values.items()}))
              for i, m in enumerate(ids)}
    return SimpleNamespace(benchmark=benchmark, ranked=lambda: ranked, references=lambda: {}, models=models,
                           store=SimpleNamespace(updated_at=lambda: 1.7e9))
