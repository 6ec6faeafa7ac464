"""Writes an aggregated-task harness run for timing `compile` (issue 22):

    python bench/bench_compile.py OUT
    farm-bench -n 5 -- python -m leaderboard --tasks OUT/tasks.json compile -i OUT/logs -o OUT/s.json

A benchmark of two aggregated tasks in the harness's layout (`tests/harness_logs.py`, the
harness's own writer): an MMLU-like task of 57 subtasks and 14,042 documents read from
`acc`, and a BBH-like task of 24 subtasks and 5,761 documents read from `acc_norm`, run as
groups whose reported value is the mean of subtask means. Seeded: the same files every time.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from harness_logs import DATE_A, write_run  # noqa: E402 (the tests' writer of harness output)
from leaderboard.config.tasks import load_benchmark  # noqa: E402

TASKS = [("mmlu", 57, 14_042, "acc"), ("bbh", 24, 5_761, "acc_norm")]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tasks = {"benchmark": "Aggregated", "categories": ["Knowledge"], "tasks": [
        {"id": name, "abbreviation": name.upper(), "short_name": name, "name": name, "category": "Knowledge",
         "metric": "acc", "dataset_url": "", "harness_metric": metric, "samples": n,
         "harness_subtasks": [f"{name}_{k:02d}" for k in range(subtasks)]}
        for name, subtasks, n, metric in TASKS]}
    (out / "tasks.json").write_text(json.dumps(tasks, indent=1))
    benchmark = load_benchmark(out / "tasks.json")
    rng = np.random.default_rng(22)
    document = {"predictions": {name: [{"acc": int(v), "doc_id": i} for i, v in enumerate(rng.random(n) < 0.6)]
                                for name, _, n, _ in TASKS}}
    write_run(out / "logs", benchmark, benchmark.task_ids, document, DATE_A)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
