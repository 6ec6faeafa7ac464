"""The models x items matrix of a task, as a reader downloads it (issue 34, item 5): the
per-model arrays of every model in rank order, written block by block, its SHA-256 the
file's, the same file while the board is the same; tasks without a value per item refused
with the reason."""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from leaderboard.views import item_matrix


def per_item_task(board):
    return next(t for t in board.benchmark.tasks if t.metric.item_values)


def test_a_task_s_matrix_holds_every_model_s_values_in_rank_order(small_store, monkeypatch):
    """Read back with pandas: one row per model in rank order, the values of its stored
    per-item array (to 9 digits), columns named by the document ids; the SHA-256 given is
    the file's. Blocks of 3 models write the same bytes as one block."""
    task = per_item_task(small_store)
    matrix = item_matrix.item_matrix(small_store, task.id)
    data = open(matrix.path, "rb").read()
    assert matrix.sha256 == hashlib.sha256(data).hexdigest()
    read = pd.read_csv(matrix.path, index_col=0)
    ids = list(small_store.ranked().index)
    assert list(read.index) == ids and read.index.name == "submission_id"
    expected = np.array([small_store.models[m].results.summaries[task.id] for m in ids], dtype=float)
    np.testing.assert_allclose(read.to_numpy(), expected, rtol=1e-8)
    assert (matrix.models, matrix.items) == expected.shape
    doc_ids = small_store.references()[task.id].doc_ids
    assert list(read.columns) == [str(d) for d in doc_ids]
    assert item_matrix.item_matrix(small_store, task.id).path == matrix.path  # kept while the board is the same
    monkeypatch.setattr(item_matrix, "ROWS_AT_ONCE", 3)
    assert open(item_matrix._write(small_store, task.id, ids), "rb").read() == data


def test_tasks_without_a_value_per_item_are_refused_with_the_reason(small_store):
    kept = [t for t in small_store.benchmark.tasks if not t.metric.item_values]
    with pytest.raises(ValueError, match="unknown task 'no-such-task'; tasks with a models x items matrix: "):
        item_matrix.item_matrix(small_store, "no-such-task")
    for task in kept:
        with pytest.raises(ValueError, match=f"task '{task.id}' .* has no models x items matrix: the board keeps"):
            item_matrix.item_matrix(small_store, task.id)
