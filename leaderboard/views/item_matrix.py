"""The models x items matrix of a task, for download (issue 34): one row per model in rank
order, one column per item, each value what the board computes the task's figures from (the
metric's `item_values`: a sample's 0/1 value, judge score or AUROC influence).

At 10,000 models a task of 1,000 items is 10 million values, so a file is made for one task
when asked for, from the per-model arrays (`ModelResults.summaries`) ROWS_AT_ONCE models at
a time, each block written and hashed as it is formatted (memory bounded by a block, not by
the board), and kept while the board is the same (`table.kept_exports`). The file's folder
is named by its SHA-256, which the page and the API give with it.

Layout: CSV, the first column `submission_id`, the others named by the items' document ids
(`item_<i>` where the submissions gave none), values with 9 significant digits (the
replicates are summed in float32): the `--matrix` layout of the Leaderboard Reporting
Standard's reference implementation, so its figures can be recomputed on the file as is.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.views.table import EXPORTS, as_of, export_name, kept_exports, prune_exports, spreadsheet_safe

ROWS_AT_ONCE = 500  # models formatted at once: 500 x 1,000 items is 4 MB of values
DIGITS = "%.9g"


@dataclass(frozen=True)
class ItemMatrix:
    path: str
    sha256: str  # of the file's bytes as downloaded
    models: int
    items: int
    values: str  # what a value is (the metric's `item_values`)


def exportable_tasks(benchmark) -> list[str]:
    """The task ids whose per-model arrays hold one value per item."""
    return [task.id for task in benchmark.tasks if task.metric.item_values]


def checked_task(benchmark, task_id: str):
    """The task `task_id`, or ValueError saying which tasks have a matrix and why this one has none."""
    tasks = {task.id: task for task in benchmark.tasks}
    if task_id not in tasks:
        raise ValueError(f"unknown task {task_id!r}; tasks with a models x items matrix: "
                         f"{', '.join(exportable_tasks(benchmark))}")
    task = tasks[task_id]
    if not task.metric.item_values:
        raise ValueError(f"task {task_id!r} ({task.metric_name}) has no models x items matrix: the board keeps its "
                         f"score's bootstrap statistics per model, not a value per item")
    return task


def item_matrix(board, task_id: str) -> ItemMatrix:
    """The task's matrix file for the board as it is (made on first request, then kept)."""
    task = checked_task(board.benchmark, task_id)
    ranked = board.ranked()
    ids = list(ranked.index)
    path = kept_exports(("item_matrix", task_id), ranked, lambda: {"csv": _write(board, task_id, ids)})["csv"]
    items = int(np.size(board.models[ids[0]].results.summaries[task_id])) if ids else 0
    return ItemMatrix(path, Path(path).parent.name, len(ids), items, task.metric.item_values)


def _item_names(board, task_id: str, items: int) -> list[str]:
    reference = board.references().get(task_id)
    doc_ids = None if reference is None else reference.doc_ids
    if doc_ids is None or len(doc_ids) != items:
        return [f"item_{i + 1}" for i in range(items)]
    return [str(d) for d in doc_ids]


def _write(board, task_id: str, ids: list[str]) -> str:
    """Write the matrix block by block into EXPORTS/<sha256>/<name>.csv; returns its path."""
    items = int(np.size(board.models[ids[0]].results.summaries[task_id])) if ids else 0
    header = spreadsheet_safe(pd.DataFrame([["submission_id", *_item_names(board, task_id, items)]]))
    digest = hashlib.sha256()
    EXPORTS.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=EXPORTS, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        def put(text: str) -> None:
            data = text.encode("utf-8")
            digest.update(data)
            out.write(data)
        put(header.to_csv(header=False, index=False))
        for start in range(0, len(ids), ROWS_AT_ONCE):
            block = ids[start:start + ROWS_AT_ONCE]
            values = np.stack([np.asarray(board.models[m].results.summaries[task_id], dtype=float).ravel()
                               for m in block])
            # whole numbers (0/1 answers) as integers: the same text, formatted in C, not value by value
            whole = (values == np.round(values)).all() and (np.abs(values) < 1e9).all()
            rows = pd.DataFrame(values.astype(np.int64) if whole else values)
            rows.insert(0, "submission_id", pd.Series(block, dtype=object))
            put(spreadsheet_safe(rows).to_csv(header=False, index=False, float_format=DIGITS))
    day = as_of(board).strftime("%Y-%m-%d") if ids else "empty"
    folder = EXPORTS / digest.hexdigest()
    folder.mkdir(exist_ok=True)
    path = folder / (export_name(board.benchmark.name, task_id, "items-matrix", day) + ".csv")
    os.replace(temporary, path)
    prune_exports()
    return str(path)
