"""Duels between models: the stored tournament and the engine that fills it.

Each model duels only the top models of its day, so duels are sparse: memory and time
grow with the duels stored, not with models squared. A duel record is one row per
ordered pair (A, B) that met, holding A-vs-B on every task (`DuelRows`); B-vs-A is its
own row. Scores need only per-model counts of duels won and fought, which the
`Tournament` keeps up to date as rows are added.

Each row records the rules (test names and parameters) that computed it, so duels
computed under other rules can be found and recomputed (`rebuild --recompute`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypedDict, TypeVar

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

import stats
from stats import evidence
from leaderboard.config.tasks import Benchmark

RULES_VERSION = 2
UNRECORDED_RULES = "unrecorded"
MAX_PARTS = 16  # duels read from a reference-layout tournament.json


def rules_description(benchmark: Benchmark) -> dict[str, object]:
    """What computes this benchmark's duels: per metric its test, and the shared parameters."""
    from stats import duel_tests
    metrics = sorted({t.metric_name for t in benchmark.tasks})
    return {"version": RULES_VERSION, "alpha": benchmark.alpha, "bootstrap_resamples": duel_tests.N_RESAMPLES,
            "seed": "crc32 of the task id", "not tested when worse, identical never significant": True,
            "tests": {m: stats.METRICS[m].test_name for m in metrics}}


def rules_id(description: Mapping[str, object]) -> str:
    """A short name for a rules description: its version and a hash of its content."""
    digest = hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()[:10]
    return f"v{description['version']}-{digest}"


class DuelEntry(TypedDict):
    """One task of one duel in the reference's JSON layout (`Tournament.to_json`)."""

    significant: bool
    p_value: float | None
    delta: float | None


ReferenceDuels = dict[str, dict[str, dict[str, DuelEntry]]]  # A id -> B id -> task id -> the duel there


@dataclass
class ModelResults:
    """What the duel engine needs of one model: per task its aggregate and summary (d,).
    `summaries` may be a lazy mapping that reads the arrays on first use. `replicates`:
    per (task id, resamples R) the model's bootstrap replicates (R,), kept once computed
    (`ranking.task_replicates`): a model's results never change, so every board version
    that holds it reuses them (80 KB per model on 50 tasks)."""

    aggregates: dict[str, float]
    summaries: Mapping[str, np.ndarray]
    replicates: dict[tuple[str, int], np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    # per (what, task order) a vector of the model made once (`kept_vector`): the boards of
    # 10,000 models stack them per pre-submission instead of 500,000 lookups each time
    vectors: dict[tuple[str, tuple[str, ...]], np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def kept_vector(self, key: tuple[str, tuple[str, ...]], make: Callable[[], ArrayLike]) -> np.ndarray:
        """The vector `make()` gives, kept under `key` (which names what it is and in which
        task order): a model's results never change, nor what is derived from them."""
        vector = self.vectors.get(key)
        if vector is None:
            vector = self.vectors[key] = np.asarray(make(), dtype=float)
        return vector


def task_seed(task_id: str) -> int:
    """The seed of a task's random draws: the same for every model, run and machine."""
    return zlib.crc32(task_id.encode("utf-8"))


COLUMN_ROOM = 16  # models a kept duel column (`DuelRows.column`) has room for beyond its board's: a preview's


class DuelRows:
    """Duels as rows: row i is model first[i] against model second[i] on every task.

    first, second: (P,) int model indices into a Tournament's `model_ids`;
    fought, significant: (P, T) bool; p_value, delta: (P, T) float (NaN when unknown,
    e.g. a reference entry that kept only the verdict); rules: (P,) object, the rules id
    that computed each row. Rows are immutable once built.
    """

    FIELDS = ("first", "second", "fought", "significant", "p_value", "delta", "rules")

    def __init__(self, first: ArrayLike, second: ArrayLike, fought: ArrayLike, significant: ArrayLike,
                 p_value: ArrayLike, delta: ArrayLike, rules: ArrayLike):
        self.first, self.second = np.asarray(first, dtype=np.int32), np.asarray(second, dtype=np.int32)
        self.fought, self.significant = np.asarray(fought, dtype=bool), np.asarray(significant, dtype=bool)
        self.p_value, self.delta = np.asarray(p_value, dtype=float), np.asarray(delta, dtype=float)
        self.rules = np.asarray(rules, dtype=object)
        self._columns: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # `column`'s, kept

    @classmethod
    def empty(cls, n_tasks: int) -> "DuelRows":
        return cls(np.zeros(0), np.zeros(0), np.zeros((0, n_tasks)), np.zeros((0, n_tasks)),
                   np.zeros((0, n_tasks)), np.zeros((0, n_tasks)), np.zeros(0))

    def __len__(self) -> int:
        return len(self.first)

    def take(self, index: ArrayLike) -> "DuelRows":  # a mask or positions of rows
        return DuelRows(*(getattr(self, f)[index] for f in self.FIELDS))

    def renumbered(self, mapping: np.ndarray) -> "DuelRows":
        """Model indices mapped through `mapping` (old index -> new, -1 = dropped); rows
        of a dropped model are left out."""
        first, second = mapping[self.first], mapping[self.second]
        kept = (first >= 0) & (second >= 0)
        rows = self.take(kept)
        rows.first, rows.second = first[kept].astype(np.int32), second[kept].astype(np.int32)
        return rows

    @staticmethod
    def concat(parts: list["DuelRows"], n_tasks: int) -> "DuelRows":
        if not parts:
            return DuelRows.empty(n_tasks)
        if len(parts) == 1:
            return parts[0]
        return DuelRows(*(np.concatenate([getattr(p, f) for p in parts]) for f in DuelRows.FIELDS))

    @functools.cached_property
    def _by_pair(self) -> tuple[np.ndarray, np.ndarray]:
        """(order, keys): rows sorted by (first, second), for lookups by binary search."""
        keys = (self.first.astype(np.int64) << 32) | self.second.astype(np.int64)
        order = np.argsort(keys, kind="stable")
        return order, keys[order]

    def find(self, first: int, second: int) -> int | None:
        """The row of first-vs-second, or None."""
        order, keys = self._by_pair
        key = (first << 32) | second
        i = np.searchsorted(keys, key)
        return int(order[i]) if i < len(keys) and keys[i] == key else None

    def unique(self) -> "DuelRows":
        """One row per ordered pair, the last one where a pair repeats."""
        keys = (self.first.astype(np.int64) << 32) | self.second.astype(np.int64)
        _, last_reversed = np.unique(keys[::-1], return_index=True)
        keep = np.sort(len(keys) - 1 - last_reversed)
        return self if len(keep) == len(keys) else self.take(keep)

    def rows_of_first(self, first: int) -> np.ndarray:
        """Indices of the rows whose first model is `first`."""
        order, keys = self._by_pair
        lo, hi = np.searchsorted(keys, [first << 32, (first + 1) << 32])
        return order[lo:hi]

    @functools.cached_property
    def _by_second(self) -> tuple[np.ndarray, np.ndarray]:
        """(order, second models in that order): rows sorted by their second model."""
        # numpy sorts 16-bit integers by radix, in linear time: a million rows' indices
        # below 65,536 in a fourth of the time their int32 take (0.02 against 0.07 s)
        small = self.second.size > 0 and self.second.min() >= 0 and self.second.max() < 2 ** 16
        order = np.argsort(self.second.astype(np.uint16) if small else self.second, kind="stable")
        return order, self.second[order]

    def rows_of_second(self, second: int) -> np.ndarray:
        """Indices of the rows whose second model is `second` (a panel member's column:
        found in the board's million rows without a pass over them, `panel._Columns`)."""
        order, seconds = self._by_second
        # bounds of the rows' own type: Python ints would make numpy cast every row (a
        # million) to int64 at each call
        lo, hi = np.searchsorted(seconds, np.array([second, second + 1], dtype=seconds.dtype))
        return order[lo:hi]

    def against(self, second: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows against `second`: (their first models (k,), won (k, n_tasks), fought
        (k, n_tasks)), in row order (a repeated pair's later row last)."""
        at = self.rows_of_second(second)
        return self.first[at], self.fought[at] & self.significant[at], self.fought[at]

    def column(self, second: int, n_models: int) -> tuple[np.ndarray, np.ndarray]:
        """(won, fought) of the rows against `second`, by first model: each (n_models,
        n_tasks) bool, read-only; the later row where a pair repeats. Kept per model (the
        board's panel members' columns, read again by every pre-submission: 0.2 s at
        10,000 models); a larger `n_models` (a pre-submission's new model) pads them."""
        kept = self._columns.get(second)
        if kept is None:
            first, won_rows, fought_rows = self.against(second)
            won = np.zeros((n_models + COLUMN_ROOM, self.fought.shape[1]), dtype=bool)
            fought = np.zeros_like(won)
            won[first], fought[first] = won_rows, fought_rows
            kept = (won, fought)
        elif kept[0].shape[0] < n_models:  # no row names a model past those it was made for
            grow = ((0, n_models + COLUMN_ROOM - len(kept[0])), (0, 0))
            kept = (np.pad(kept[0], grow), np.pad(kept[1], grow))
        else:
            return kept[0][:n_models], kept[1][:n_models]
        for column in kept:
            column.flags.writeable = False
        self._columns[second] = kept
        return kept[0][:n_models], kept[1][:n_models]


COUNT_ROWS_AT_ONCE = 100_000  # rows counted at once: bounds the cell positions held (8 bytes a cell)


def true_counts(first: np.ndarray, flags: np.ndarray, n_models: int) -> np.ndarray:
    """Per model and task (n_models, n_tasks): how many rows whose first model it is have
    `flags` (rows x tasks) true. Counted by np.bincount of the positions of whichever of
    the true and the false cells are fewer (np.add.at was ~0.5 s at 10,000 models)."""
    n_tasks = flags.shape[1]
    mostly_true = 2 * np.count_nonzero(flags) > flags.size
    cells = np.flatnonzero(~flags if mostly_true else flags)
    counts = np.bincount(first[cells // n_tasks].astype(np.int64) * n_tasks + cells % n_tasks,
                         minlength=n_models * n_tasks).reshape(n_models, n_tasks)
    if mostly_true:  # the rows of each model, less its false cells
        counts = np.bincount(first, minlength=n_models)[:, None] - counts
    return counts.astype(np.int32)


class Tournament:
    """The stored duels among `model_ids` on `task_ids`, plus the per-model counts that
    scores need: won and fought, shape (n_models, n_tasks).

    Rows live in a few parts (everything loaded, then the rows added since), so adding a
    model's duels never copies the others'. A pair that dueled twice (a rebuild after a
    rules change) counts once: the later row wins.
    """

    def __init__(self, task_ids: list[str], model_ids: Iterable[str] = (), rows: DuelRows | None = None,
                 counts: tuple[np.ndarray, np.ndarray] | None = None):
        """`counts`: the rows' won and fought counts as `counts()` gave them for these
        models and rows (kept by a process before), instead of counting them again."""
        self.task_ids = list(task_ids)
        self.model_ids: list[str] = []
        self._index: dict[str, int] = {}
        self._parts: list[DuelRows] = []
        self._won = np.zeros((0, len(self.task_ids)), dtype=np.int32)
        self._fought = np.zeros((0, len(self.task_ids)), dtype=np.int32)
        self.add_models(model_ids)
        if rows is not None and len(rows):
            if counts is None:
                self.add_rows(rows)
            else:
                self._won, self._fought = (np.array(c, dtype=np.int32) for c in counts)  # own copies: add_rows adds to them
                self._parts.append(rows)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per model and task (n_models, n_tasks): the duels won (significant) and fought."""
        return self._won, self._fought

    def copy(self) -> "Tournament":
        """A tournament that can take more models and rows without changing this one
        (rows are shared, not copied: they are immutable)."""
        other = Tournament(self.task_ids)
        other.model_ids, other._index, other._parts = list(self.model_ids), dict(self._index), list(self._parts)
        other._won, other._fought = self._won.copy(), self._fought.copy()
        return other

    def index(self, model_id: str) -> int:
        return self._index[model_id]

    def __contains__(self, model_id: str) -> bool:
        return model_id in self._index

    def add_models(self, model_ids: Iterable[str]) -> None:
        new = [m for m in dict.fromkeys(model_ids) if m not in self._index]
        for m in new:
            self._index[m] = len(self.model_ids)
            self.model_ids.append(m)
        if new:
            grow = ((0, len(new)), (0, 0))
            self._won, self._fought = np.pad(self._won, grow), np.pad(self._fought, grow)

    def add_rows(self, rows: DuelRows) -> None:
        """Add duel rows (model indices of this tournament) of pairs not yet present."""
        self._count(rows)
        self._parts.append(rows)
        if len(self._parts) > MAX_PARTS:  # a long-running app: merge the small parts, keep the big first one
            self._parts = [self._parts[0], DuelRows.concat(self._parts[1:], len(self.task_ids))]

    def _count(self, rows: DuelRows) -> None:
        for start in range(0, len(rows), COUNT_ROWS_AT_ONCE):
            at = slice(start, start + COUNT_ROWS_AT_ONCE)
            first, fought = rows.first[at], rows.fought[at]
            self._won += true_counts(first, rows.significant[at] & fought, len(self.model_ids))
            self._fought += true_counts(first, fought, len(self.model_ids))

    # --- reading ------------------------------------------------------------------------

    def rows(self) -> DuelRows:
        """Every row, in one array set."""
        if len(self._parts) > 1:  # consolidate once: later reads and copies see one part
            self._parts = [DuelRows.concat(self._parts, len(self.task_ids))]
        return self._parts[0] if self._parts else DuelRows.empty(len(self.task_ids))

    def parts(self) -> list[DuelRows]:
        """The rows as stored, in a few parts: for reads that can go part by part without
        the copy `rows()` makes of everything once a part was added."""
        return list(self._parts)

    def __len__(self) -> int:
        return sum(len(p) for p in self._parts)

    def pair(self, a: str, b: str) -> DuelRows | None:
        """The row of a-vs-b (one row), or None when they never met."""
        i, j = self._index[a], self._index[b]
        for part in self._parts:
            row = part.find(i, j)
            if row is not None:
                return part.take([row])
        return None

    def rows_of(self, model_id: str) -> tuple[DuelRows, DuelRows]:
        """The model's duels: (model vs each opponent, each opponent vs model), row k of
        both about the same opponent, ordered by opponent index."""
        i = self._index[model_id]
        as_first = DuelRows.concat([p.take(p.rows_of_first(i)) for p in self._parts], len(self.task_ids))
        order = np.argsort(as_first.second, kind="stable")
        as_first = as_first.take(order)
        back = [self.pair(self.model_ids[j], model_id) for j in as_first.second]
        as_second = DuelRows.concat([r if r is not None else _unfought(j, i, len(self.task_ids))
                                     for r, j in zip(back, as_first.second)], len(self.task_ids))
        return as_first, as_second

    def has_dueled(self, a: str, b: str) -> bool:
        ab, ba = self.pair(a, b), self.pair(b, a)
        return ab is not None and ba is not None and bool(ab.fought.all() and ba.fought.all())

    def opponents(self, model_id: str) -> list[str]:
        i = self._index[model_id]
        met = np.unique(np.concatenate([p.second[p.rows_of_first(i)] for p in self._parts] or [np.zeros(0, int)]))
        return [self.model_ids[j] for j in met]

    def win_scores(self) -> np.ndarray:
        """Share of duels won per model and task: shape (n_models, n_tasks), NaN without duels."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self._won / np.where(self._fought > 0, self._fought, np.nan)

    def subset(self, model_ids: list[str]) -> "Tournament":
        """The duels among `model_ids` only, with the models in that order."""
        mapping = np.full(len(self.model_ids), -1, dtype=np.int64)
        mapping[[self._index[m] for m in model_ids]] = np.arange(len(model_ids))
        return Tournament(self.task_ids, model_ids, self.rows().renumbered(mapping))

    def bh_adjusted(self, alpha: float = stats.ALPHA, panel: Iterable[str] | None = None) -> "Tournament":
        """The same duels with Benjamini-Hochberg adjusted p-values, one family per model:
        every task of every duel the model claims to win (its rows as the first model),
        and significance recomputed from them. With `panel` (the reference panel's
        members), a model's duels against the panel are one family and its other stored
        duels another, so that which other duels happen to be stored (they depend on the
        order of publication) never changes a verdict against the panel. Cells whose
        p-value was not stored (some reference-layout entries) keep their verdict. A duel
        is won at adjusted p <= `alpha`."""
        rows = self.rows()
        family = rows.first.astype(np.int64) * 2
        if panel is not None:
            in_panel = np.zeros(len(self.model_ids), dtype=bool)
            in_panel[[self._index[m] for m in panel if m in self._index]] = True
            family += in_panel[rows.second]
        adjusted = evidence.bh_adjusted(rows.p_value, family, rows.fought)
        known = ~np.isnan(adjusted)
        return Tournament(self.task_ids, self.model_ids, DuelRows(
            rows.first, rows.second, rows.fought, np.where(known, adjusted <= alpha, rows.significant),
            np.where(known, adjusted, rows.p_value), rows.delta, rows.rules))

    def rows_between(self, first_ids: Iterable[str], second_ids: Iterable[str]) -> DuelRows:
        """Rows whose first model is in `first_ids` and second in `second_ids`."""
        rows = self.rows()
        firsts = np.zeros(len(self.model_ids), dtype=bool)
        seconds = np.zeros(len(self.model_ids), dtype=bool)
        firsts[[self._index[m] for m in first_ids if m in self._index]] = True
        seconds[[self._index[m] for m in second_ids if m in self._index]] = True
        return rows.take(firsts[rows.first] & seconds[rows.second])

    def rows_involving(self, model_id: str) -> DuelRows:
        """Every row with `model_id` on either side (the parts are scanned, not merged)."""
        i = self._index[model_id]
        return DuelRows.concat([p.take((p.first == i) | (p.second == i)) for p in self._parts], len(self.task_ids))

    # --- the reference's JSON layout -------------------------------------------------------

    def to_json(self) -> ReferenceDuels:
        """{A_id: {B_id: {task: {"significant", "p_value", "delta"}}}}, as the reference stores it."""
        out: ReferenceDuels = {m: {} for m in self.model_ids}
        rows = self.rows()
        for k in np.lexsort((rows.second, rows.first)):
            a, b = self.model_ids[rows.first[k]], self.model_ids[rows.second[k]]
            out[a][b] = {task: {"significant": bool(rows.significant[k, t]), "p_value": _none_if_nan(rows.p_value[k, t]),
                                "delta": _none_if_nan(rows.delta[k, t])}
                         for t, task in enumerate(self.task_ids) if rows.fought[k, t]}
        return out


def rows_from_json(data: Mapping[str, object] | None, task_ids: list[str], index: Mapping[str, int]) -> DuelRows:
    """Rows from the reference layout, for the models in `index` (id -> model index)."""
    task_index = {t: k for k, t in enumerate(task_ids)}
    pairs: list[tuple[int, int]] = []
    cells: list[tuple[int, int, bool, float, float]] = []
    for a, row in (data or {}).items():
        if a not in index or not isinstance(row, dict):
            continue
        for b, per_task in row.items():
            if b not in index or not isinstance(per_task, dict):
                continue
            for task, entry in per_task.items():
                if task in task_index:
                    if not isinstance(entry, dict):  # very old entries hold a bare bool
                        entry = {"significant": entry}
                    cells.append((len(pairs), task_index[task], bool(entry.get("significant")),
                                  _nan_if_none(entry.get("p_value")), _nan_if_none(entry.get("delta"))))
            pairs.append((index[a], index[b]))
    p, t = len(pairs), len(task_ids)
    fought, significant = np.zeros((p, t), dtype=bool), np.zeros((p, t), dtype=bool)
    p_value, delta = np.full((p, t), np.nan), np.full((p, t), np.nan)
    if cells:
        r, k, s, pv, d = (np.array(c) for c in zip(*cells))
        r, k = r.astype(int), k.astype(int)
        fought[r, k], significant[r, k], p_value[r, k], delta[r, k] = True, s.astype(bool), pv, d
    pair_indices = np.array(pairs, dtype=np.int32).reshape(-1, 2)
    used = fought.any(axis=1)
    return DuelRows(pair_indices[:, 0], pair_indices[:, 1], fought, significant, p_value, delta,
                    np.full(p, UNRECORDED_RULES, dtype=object)).take(used)


def _none_if_nan(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _nan_if_none(x: float | None) -> float:
    return np.nan if x is None else float(x)


def _unfought(first: int, second: int, t: int) -> DuelRows:
    """A placeholder row for a direction that was never stored: nothing fought."""
    return DuelRows([first], [second], np.zeros((1, t)), np.zeros((1, t)), np.full((1, t), np.nan),
                    np.full((1, t), np.nan), [UNRECORDED_RULES])


# --- the engine ----------------------------------------------------------------------------

def play(benchmark: Benchmark, tournament: Tournament, new_id: str, results: Mapping[str, ModelResults],
         opponent_ids: list[str], reuse: Tournament | None = None, rules: str | None = None) -> int:
    """Run the duels new_id vs each opponent, both directions, that `tournament` lacks.

    Each task is one vectorized call per direction against all opponents at once.
    Duels already in `reuse` (a preview's tournament) are copied instead of recomputed.
    Returns the number of opponents dueled.
    """
    tournament.add_models([new_id, *opponent_ids])
    todo, reused = [], []
    for opponent in dict.fromkeys(opponent_ids):
        if opponent == new_id or tournament.has_dueled(new_id, opponent):
            continue
        if reuse is not None and new_id in reuse and opponent in reuse and reuse.has_dueled(new_id, opponent):
            reused.append(opponent)
        else:
            todo.append(opponent)
    if reused and reuse is not None:  # reused is only filled from reuse
        mapping = np.full(len(reuse.model_ids), -1, dtype=np.int64)
        for m in (new_id, *reused):
            mapping[reuse.index(m)] = tournament.index(m)
        tournament.add_rows(reuse.rows_involving(new_id).renumbered(mapping))
    if todo:
        tournament.add_rows(duel_rows(benchmark, tournament, new_id, todo, results,
                                      rules or rules_id(rules_description(benchmark))))
    return len(todo)


T = TypeVar("T")
SUMMARY_BYTES_AT_ONCE = 64_000_000  # opponents' summaries held at once, in two matrices (~65 models each at full size, 480 KB a model)
READ_THREADS = 8  # models whose summaries are read at once


class SummaryRows:
    """Models' summaries of every task as rows of one matrix: row k is model k's summaries
    of `task_ids` end to end, task i in columns `columns[i]` (every model's summary of a
    task has the task's length). Filled a group of models at a time, each model's row in
    one read (a cache file stores them end to end: its summaries' `read_joined`), so a
    duel of one model against many costs one vectorized call per task and group rather
    than a copy per model and task. Several models are read at once (READ_THREADS): a Hub
    replica downloads a model's arrays when they are first read (storage/hub.py). The next
    group is read into a second matrix while the caller works on the current one: at
    10,000 models the reading (copies out of the page cache) and the duels each take
    about 3 s of CPU, which two cores do side by side."""

    def __init__(self, task_ids: list[str], lengths: list[int], n_models: int, dtype: DTypeLike = float,
                 bytes_at_once: int | None = None):
        self.task_ids = list(task_ids)
        bounds = np.cumsum([0, *lengths])
        self.columns = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self.layout = [(task, int(length)) for task, length in zip(self.task_ids, lengths)]
        row_bytes = max(1, int(bounds[-1]) * np.dtype(dtype).itemsize)
        at_once = SUMMARY_BYTES_AT_ONCE if bytes_at_once is None else bytes_at_once
        self.group_size = max(1, min(n_models, at_once // 2 // row_bytes))  # two matrices in the budget
        self._matrices = [np.empty((self.group_size, int(bounds[-1])), dtype=dtype) for _ in range(2)]

    def groups(self, results: Mapping[str, ModelResults], model_ids: list[str]) -> Iterator[tuple[int, np.ndarray]]:
        """(start, the rows of model_ids[start:start + group_size]), group after group; a
        group's rows are valid until the group after the next is asked for (the next one
        is being read meanwhile, into the other matrix)."""
        for start, rows, _ in self.checked_groups(results, model_ids, lambda rows: None):
            yield start, rows

    def checked_groups(self, results: Mapping[str, ModelResults], model_ids: list[str],
                       check: Callable[[np.ndarray], T]) -> Iterator[tuple[int, np.ndarray, T]]:
        """As `groups`, with check(rows) of each group, computed by the reader as it reads
        the group: off the caller's thread (a duel's finiteness check of its opponents'
        summaries is a pass over them, ~1 s of CPU at 10,000 models)."""
        starts = range(0, len(model_ids), self.group_size)
        with ThreadPoolExecutor(1) as reader, ThreadPoolExecutor(READ_THREADS) as fetchers:
            def read(k: int) -> tuple[np.ndarray, T]:
                group = [results[m].summaries for m in model_ids[starts[k]:starts[k] + self.group_size]]
                for _ in fetchers.map(_fetch, group):
                    pass
                rows = self._matrices[k % 2][:len(group)]
                for row, summaries in zip(rows, group):  # one reader: more would take turns with the duels for the GIL
                    self._fill(row, summaries)
                return rows, check(rows)

            reading = reader.submit(read, 0) if starts else None
            for k, start in enumerate(starts):
                assert reading is not None
                rows, checked = reading.result()
                reading = reader.submit(read, k + 1) if k + 1 < len(starts) else None
                yield start, rows, checked

    def _fill(self, row: np.ndarray, summaries: Mapping[str, np.ndarray]) -> None:
        read_joined = getattr(summaries, "read_joined", None)  # a cache file's (storage/local.py)
        if read_joined is not None and read_joined(self.layout, row):
            return
        for task, columns in zip(self.task_ids, self.columns):
            row[columns] = np.ravel(summaries[task])


def _fetch(summaries: Mapping[str, np.ndarray]) -> None:
    """Make a model's summaries readable where that takes a download (a Hub replica's
    arrays file, storage/hub.py): several models at once."""
    fetch = getattr(summaries, "fetch", None)
    if fetch is not None:
        fetch()


def _refuse_non_finite(models: list[str], summaries: np.ndarray, aggregates: np.ndarray, task_ids: list[str],
                       columns: list[slice], summaries_finite: np.ndarray | None = None) -> None:
    """ValueError naming the first model and task whose summary or aggregate is not
    finite, as `stats.duel` refuses it, checked for a group of models at once.
    summaries: (m, total length) each model's summaries end to end (task i in
    columns[i]); aggregates: (m, n_tasks); summaries_finite: (m,) stats.all_finite of
    summaries, when already computed."""
    for what, values, finite in (("summary", summaries, summaries_finite), ("aggregate", aggregates, None)):
        if finite is None:
            finite = stats.all_finite(values)
        if not finite.all():
            row = int(np.argmin(finite))
            at = int(np.argmin(np.isfinite(values[row])))
            task = task_ids[at] if what == "aggregate" else next(t for t, c in zip(task_ids, columns) if c.start <= at < c.stop)
            raise ValueError(f"{models[row]}: its {what} of {task} is not finite; duels need finite inputs")


def duel_rows(benchmark: Benchmark, tournament: Tournament, new_id: str, opponent_ids: list[str],
              results: Mapping[str, ModelResults], rules: str) -> DuelRows:
    """new_id against each opponent and back, every task: 2m rows (new vs all, then all vs new).

    The opponents' summaries are read in groups (`SummaryRows`: each model's file read
    once for every task, not once per task: a backfill duels a panel member against the
    whole board); each task is then one vectorized call against the group, both
    directions at once (`stats.duel_both_ways`)."""
    a, b = tournament.index(new_id), np.array([tournament.index(o) for o in opponent_ids], dtype=np.int32)
    m, task_ids = len(opponent_ids), tournament.task_ids
    p_value, delta = np.empty((2 * m, len(task_ids))), np.empty((2 * m, len(task_ids)))
    own = [np.ravel(results[new_id].summaries[task])[None, :] for task in task_ids]
    own_aggregates = [results[new_id].aggregates[task] for task in task_ids]
    metrics = [benchmark.task(task).metric for task in task_ids]
    matrix = SummaryRows(task_ids, [s.shape[1] for s in own], m)
    _refuse_non_finite([new_id], np.concatenate(own, axis=1), np.array([own_aggregates], dtype=float), task_ids,
                       matrix.columns)
    for start, rows, finite in matrix.checked_groups(results, opponent_ids, stats.all_finite):
        at, back = slice(start, start + len(rows)), slice(m + start, m + start + len(rows))
        group = opponent_ids[at]
        aggregates = np.array([[results[o].aggregates[task] for task in task_ids] for o in group], dtype=float)
        _refuse_non_finite(group, rows, aggregates, task_ids, matrix.columns, finite)
        for k, columns in enumerate(matrix.columns):
            forward, backward = stats.duel_both_ways(metrics[k], own_aggregates[k], own[k], aggregates[:, k],
                                                     rows[:, columns], benchmark.alpha, checked=True)
            p_value[at, k], delta[at, k] = forward.p_value, forward.delta
            p_value[back, k], delta[back, k] = backward.p_value, backward.delta
    significant = stats.DuelResult(p_value, delta, benchmark.alpha).significant
    return DuelRows(np.r_[np.full(m, a), b], np.r_[b, np.full(m, a)], np.ones((2 * m, len(task_ids))), significant,
                    p_value, delta, np.full(2 * m, rules, dtype=object))
