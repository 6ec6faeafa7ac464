"""The duels on disk: one Parquet file per publication, `duels/<submission_id>.parquet`.

A file holds the rows its publication added (the new model against each opponent and
back): columns `first` and `second` (submission ids), `rules` (the rules id that
computed the row) and, per task in the order the file's metadata lists them,
`fought`, `significant`, `p_value` and `delta` as fixed-size lists. The schema metadata
records the task ids and a description of each rules id used. A publication therefore
writes an amount of data that does not depend on how many models are published.
"""
from __future__ import annotations

import io
import json

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import DTypeLike

from leaderboard.engine.tournament import DuelRows
from leaderboard.json_types import JSONObject

if TYPE_CHECKING:
    import pyarrow as pa

TASKS_KEY, RULES_KEY = b"leaderboard.tasks", b"leaderboard.rules"


def duel_file(rows: DuelRows, model_ids: list[str], task_ids: list[str], rules: dict[str, JSONObject]) -> bytes:
    """Parquet bytes of `rows` (model indices into `model_ids`); `rules` describes the
    rules ids (id -> description) the rows name, where known."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    t = len(task_ids)
    ids = np.asarray(model_ids, dtype=object)

    def lists(values: np.ndarray, kind: pa.DataType) -> pa.FixedSizeListArray:
        return pa.FixedSizeListArray.from_arrays(pa.array(np.ascontiguousarray(values).ravel(), type=kind), t)
    table = pa.table({"first": pa.array(ids[rows.first], type=pa.string()),
                      "second": pa.array(ids[rows.second], type=pa.string()),
                      "rules": pa.array(rows.rules, type=pa.string()).dictionary_encode(),
                      "fought": lists(rows.fought, pa.bool_()), "significant": lists(rows.significant, pa.bool_()),
                      "p_value": lists(rows.p_value, pa.float64()), "delta": lists(rows.delta, pa.float64())})
    used = {r: rules[r] for r in dict.fromkeys(rows.rules.tolist()) if r in rules}
    table = table.replace_schema_metadata({TASKS_KEY: json.dumps(task_ids).encode(),
                                           RULES_KEY: json.dumps(used).encode()})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


def read_table(source: str | Path | bytes) -> pa.Table:
    """One duel file (a path or bytes) as a pyarrow table; raises ValueError when it is
    not one."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        # ParquetFile, not read_table: read_table imports pyarrow.dataset (~0.3 s for a cold CLI)
        with pq.ParquetFile(io.BytesIO(source) if isinstance(source, bytes) else source) as file:
            table = file.read()
        json.loads(table.schema.metadata[TASKS_KEY])
    except (pa.ArrowException, OSError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a duel file ({type(e).__name__})") from None
    return table


def rows_from_tables(tables: list[pa.Table], task_ids: list[str], index: dict[str, int]) -> tuple[DuelRows, set[str]]:
    """The rows of the tables among the models of `index` (id -> model index), with task
    columns in the order of `task_ids` (a task missing from a file is not fought); and
    the ids of unknown models the files mention (their rows are dropped)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    parts: list[DuelRows] = []
    unknown: set[str] = set()
    ids = pa.array(list(index), type=pa.string())
    positions = np.array(list(index.values()), dtype=np.int64)
    by_tasks: dict[str, list[pa.Table]] = {}
    for table in tables:  # files with the same task list are converted together
        by_tasks.setdefault(table.schema.metadata[TASKS_KEY], []).append(table.replace_schema_metadata(None))
    for tasks_json, group in by_tasks.items():
        table = pa.concat_tables(group, promote_options="permissive")
        file_tasks = json.loads(tasks_json)
        n = table.num_rows
        where = {}
        for side in ("first", "second"):
            found = pc.index_in(table[side], value_set=ids).to_numpy(zero_copy_only=False)
            missing = np.isnan(found) if found.dtype.kind == "f" else np.zeros(n, dtype=bool)
            if missing.any():
                unknown |= set(np.asarray(table[side].to_pylist(), dtype=object)[missing])
            where[side] = np.where(missing, -1, positions[np.nan_to_num(found, nan=0).astype(np.int64)])
        keep = (where["first"] >= 0) & (where["second"] >= 0)
        keep_all = keep.all()
        columns = {}
        for name, kind, fill in (("fought", bool, False), ("significant", bool, False),
                                 ("p_value", float, np.nan), ("delta", float, np.nan)):
            values = _matrix(table[name], len(file_tasks), kind)
            if file_tasks == task_ids:  # the usual case: no further copy of these (rows x tasks) arrays
                out = values
            else:
                out = np.full((n, len(task_ids)), fill, dtype=kind)
                shared = [(k, file_tasks.index(t)) for k, t in enumerate(task_ids) if t in file_tasks]
                if shared:
                    to, frm = zip(*shared)
                    out[:, list(to)] = values[:, list(frm)]
            columns[name] = out if keep_all else out[keep]
        names, codes = _codes(table["rules"])
        rules = names[codes[keep]]
        parts.append(DuelRows(where["first"][keep], where["second"][keep], columns["fought"], columns["significant"],
                              columns["p_value"], columns["delta"], rules))
    return DuelRows.concat(parts, len(task_ids)), unknown


def _matrix(column: pa.ChunkedArray, n_tasks: int, kind: DTypeLike) -> np.ndarray:
    """A column of fixed-size lists as one (rows x n_tasks) array of `kind`: Arrow's own
    buffer when the column is one chunk of that type without nulls (a local index
    segment's p-values and deltas, mapped from its file: at 10,000 models 800 MB neither
    copied nor held by the process), else one new array filled chunk by chunk (no second
    copy of the whole column). Duel rows are never written to."""
    import pyarrow as pa
    if np.dtype(kind).kind == "f" and column.num_chunks == 1 and not column.null_count:
        values = column.chunks[0].flatten()
        if values.type == pa.from_numpy_dtype(np.dtype(kind)) and not values.null_count:
            mapped: np.ndarray = values.to_numpy(zero_copy_only=True).reshape(len(column), n_tasks)
            return mapped
    out = np.empty((len(column), n_tasks), dtype=kind)
    start = 0
    for chunk in column.chunks:
        out[start:start + len(chunk)] = _values(chunk.flatten()).reshape(len(chunk), n_tasks)
        start += len(chunk)
    return out


def _values(array: pa.Array) -> np.ndarray:
    """An Arrow array's values; booleans without nulls unpacked from their bits by numpy,
    four times faster than Arrow's conversion (at 10,000 models 0.5 s of a load)."""
    import pyarrow as pa
    if not pa.types.is_boolean(array.type) or array.null_count:
        values: np.ndarray = array.to_numpy(zero_copy_only=False)
        return values
    bits = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    return np.unpackbits(bits, count=array.offset + len(array), bitorder="little")[array.offset:].view(bool)


def _codes(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """A column of strings as (its distinct values, an object array; each row's index
    into them), from one dictionary shared by its chunks: no string per row is made."""
    import pyarrow as pa
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    column = column.unify_dictionaries()
    if not column.num_chunks:
        return np.empty(0, dtype=object), np.empty(0, dtype=np.int64)
    names = np.asarray(column.chunks[0].dictionary.to_pylist(), dtype=object)
    codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in column.chunks])
    return names, codes.astype(np.int64)
