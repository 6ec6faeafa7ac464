"""The benchmark's tasks and categories, read from `data/tasks_metadata.json`."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from stats import METRICS, Metric

DEFAULT_TASKS_FILE = Path(__file__).resolve().parent.parent / "data" / "tasks_metadata.json"


@dataclass(frozen=True)
class Task:
    id: str
    abbreviation: str
    short_name: str
    name: str
    category: str
    metric_name: str
    dataset_url: str
    # Which lm-evaluation-harness task produces it: a group whose subtasks are its prompt
    # variants (the best one is kept), or one task without variants. A tasks file without
    # these keys maps each benchmark task to a harness task of the same id.
    harness_task: str = ""
    prompt_variants: bool = False

    @property
    def metric(self) -> Metric:
        return METRICS[self.metric_name]

    @property
    def harness(self) -> str:
        return self.harness_task or self.id


@dataclass(frozen=True)
class Benchmark:
    name: str
    categories: tuple[str, ...]
    tasks: tuple[Task, ...]
    # Harness tasks (or groups) that older runs produce but the benchmark no longer scores:
    # `compile` skips them with a note instead of calling them unknown.
    harness_deprecated: tuple[str, ...] = ()

    @property
    def task_ids(self) -> list[str]:
        return [t.id for t in self.tasks]

    def task(self, task_id: str) -> Task:
        return self._by_id[task_id]

    def tasks_in(self, category: str) -> list[Task]:
        return [t for t in self.tasks if t.category == category]

    def __post_init__(self):
        object.__setattr__(self, "_by_id", {t.id: t for t in self.tasks})


def load_benchmark(path: str | Path = DEFAULT_TASKS_FILE) -> Benchmark:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    tasks = tuple(Task(t["id"], t["abbreviation"], t["short_name"], t["name"], t["category"],
                       t["metric"], t["dataset_url"], t.get("harness_task", t["id"]),
                       bool(t.get("harness_prompt_variants", False))) for t in raw["tasks"])
    categories = tuple(raw["categories"])
    for t in tasks:
        if t.metric_name not in METRICS:
            raise ValueError(f"{path}: task {t.id} uses unknown metric {t.metric_name!r}")
        if t.category not in categories:
            raise ValueError(f"{path}: task {t.id} has unknown category {t.category!r}")
    return Benchmark(raw["benchmark"], categories, tasks, tuple(raw.get("harness_deprecated", ())))
