"""Duels between models: the stored tournament and the engine that fills it.

The tournament is held as dense arrays (task, A, B) so that scores are array sums; it
reads and writes the reference's `tournament.json` layout
`{A_id: {B_id: {task: {"significant", "p_value", "delta"}}}}` (very old entries hold a
bare bool).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

import stats
from leaderboard.submission import ParsedSubmission, SubmissionError
from leaderboard.tasks import Benchmark

Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    pass


@dataclass
class ModelResults:
    """What the duel engine needs of one model: per task its aggregate and summary (d,)."""

    aggregates: dict[str, float]
    summaries: dict[str, np.ndarray]


def task_seed(task_id: str) -> int:
    """The seed of a task's random draws: the same for every model, run and machine."""
    return zlib.crc32(task_id.encode("utf-8"))


def summarize(parsed: ParsedSubmission, benchmark: Benchmark) -> ModelResults:
    """Each task's score and test summary; a task whose score or summary is not finite
    (say, an AUROC task whose gold labels hold one class) is refused, naming the task."""
    aggregates, summaries, problems = {}, {}, []
    for task in benchmark.tasks:
        samples = parsed.tasks[task.id].samples
        with np.errstate(all="ignore"):
            aggregates[task.id] = task.metric.aggregate(samples)
            summaries[task.id] = np.asarray(task.metric.summarize(samples, task_seed(task.id)), dtype=float)
        if not (np.isfinite(aggregates[task.id]) and np.isfinite(summaries[task.id]).all()):
            problems.append(f"task {task.id}: the {task.metric_name} of these samples is not a finite number "
                            f"({aggregates[task.id]}); for a classification task, gold labels must hold "
                            f"at least two classes")
    if problems:
        raise SubmissionError(problems)
    return ModelResults(aggregates, summaries)


class Tournament:
    """Stored duels; arrays have shape (n_tasks, n_models, n_models), [t, a, b] = a vs b."""

    def __init__(self, task_ids: list[str], model_ids: Iterable[str] = ()):
        self.task_ids = list(task_ids)
        self.model_ids: list[str] = []
        self._index: dict[str, int] = {}
        t = len(self.task_ids)
        self.fought = np.zeros((t, 0, 0), dtype=bool)
        self.significant = np.zeros((t, 0, 0), dtype=bool)
        self.p_value = np.full((t, 0, 0), np.nan)
        self.delta = np.full((t, 0, 0), np.nan)
        self.add_models(model_ids)

    def copy(self) -> "Tournament":
        other = Tournament(self.task_ids)
        other.model_ids, other._index = list(self.model_ids), dict(self._index)
        for name in ("fought", "significant", "p_value", "delta"):
            setattr(other, name, getattr(self, name).copy())
        return other

    def index(self, model_id: str) -> int:
        return self._index[model_id]

    def __contains__(self, model_id: str) -> bool:
        return model_id in self._index

    def add_models(self, model_ids: Iterable[str]) -> None:
        new = [m for m in model_ids if m not in self._index]
        if not new:
            return
        for m in new:
            self._index[m] = len(self.model_ids)
            self.model_ids.append(m)
        grow = ((0, 0), (0, len(new)), (0, len(new)))
        self.fought = np.pad(self.fought, grow)
        self.significant = np.pad(self.significant, grow)
        self.p_value = np.pad(self.p_value, grow, constant_values=np.nan)
        self.delta = np.pad(self.delta, grow, constant_values=np.nan)

    def subset(self, model_ids: list[str]) -> "Tournament":
        """The duels among `model_ids` only, in that order."""
        other = Tournament(self.task_ids)
        other.model_ids, other._index = list(model_ids), {m: i for i, m in enumerate(model_ids)}
        idx = np.array([self._index[m] for m in model_ids], dtype=int)
        for name in ("fought", "significant", "p_value", "delta"):
            setattr(other, name, getattr(self, name)[:, idx[:, None], idx[None, :]])
        return other

    def record(self, task_index: int, a, b, result: stats.DuelResult) -> None:
        """Store duels a-vs-b; a and b are model indices or index arrays that broadcast
        to the result's shape (m,)."""
        self.fought[task_index, a, b] = True
        self.significant[task_index, a, b] = result.significant
        self.p_value[task_index, a, b] = result.p_value
        self.delta[task_index, a, b] = result.delta

    def has_dueled(self, a: str, b: str) -> bool:
        i, j = self._index[a], self._index[b]
        return bool(self.fought[:, i, j].all() and self.fought[:, j, i].all())

    def opponents(self, model_id: str) -> list[str]:
        i = self._index[model_id]
        return [m for j, m in enumerate(self.model_ids) if self.fought[:, i, j].any()]

    def win_scores(self) -> np.ndarray:
        """Share of duels won per model and task: shape (n_models, n_tasks), NaN without duels."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return ((self.significant & self.fought).sum(axis=2) / self.fought.sum(axis=2)).T

    # --- the reference's JSON layout -------------------------------------------------------

    def to_json(self) -> dict:
        out = {}
        for i, a in enumerate(self.model_ids):
            row = {}
            for j in np.flatnonzero(self.fought[:, i, :].any(axis=0)):
                row[self.model_ids[j]] = {
                    task: {"significant": bool(self.significant[t, i, j]),
                           "p_value": None if np.isnan(self.p_value[t, i, j]) else float(self.p_value[t, i, j]),
                           "delta": None if np.isnan(self.delta[t, i, j]) else float(self.delta[t, i, j])}
                    for t, task in enumerate(self.task_ids) if self.fought[t, i, j]}
            out[a] = row
        return out

    @classmethod
    def from_json(cls, data: dict, task_ids: list[str], model_ids: list[str]) -> "Tournament":
        """Duels among `model_ids` only: entries of unknown models or tasks are dropped."""
        tour = cls(task_ids, model_ids)
        task_index = {t: k for k, t in enumerate(task_ids)}
        for a, row in (data or {}).items():
            if a not in tour._index or not isinstance(row, dict):
                continue
            i = tour._index[a]
            for b, per_task in row.items():
                if b not in tour._index or not isinstance(per_task, dict):
                    continue
                j = tour._index[b]
                for task, entry in per_task.items():
                    t = task_index.get(task)
                    if t is None:
                        continue
                    if isinstance(entry, dict):
                        significant, p, d = entry.get("significant"), entry.get("p_value"), entry.get("delta")
                    else:
                        significant, p, d = entry, None, None
                    tour.fought[t, i, j] = True
                    tour.significant[t, i, j] = bool(significant)
                    tour.p_value[t, i, j] = np.nan if p is None else float(p)
                    tour.delta[t, i, j] = np.nan if d is None else float(d)
        return tour


def play(benchmark: Benchmark, tournament: Tournament, new_id: str, results: dict[str, ModelResults],
         opponent_ids: list[str], reuse: Tournament | None = None) -> int:
    """Run the duels new_id vs each opponent, both directions, that `tournament` lacks.

    Each task is one vectorized call per direction against all opponents at once.
    Duels already in `reuse` (a preview's tournament) are copied instead of recomputed.
    Returns the number of opponents dueled.
    """
    tournament.add_models([new_id, *opponent_ids])
    a = tournament.index(new_id)
    todo = []
    for opponent in opponent_ids:
        if opponent == new_id or tournament.has_dueled(new_id, opponent):
            continue
        if reuse is not None and new_id in reuse and opponent in reuse and reuse.has_dueled(new_id, opponent):
            _copy_duels(reuse, tournament, new_id, opponent)
        else:
            todo.append(opponent)
    if not todo:
        return 0
    b = np.array([tournament.index(o) for o in todo])
    new = results[new_id]
    for t, task in enumerate(tournament.task_ids):
        metric = benchmark.task(task).metric
        own_agg, own_summary = new.aggregates[task], new.summaries[task][None, :]
        agg = np.array([results[o].aggregates[task] for o in todo])
        summary = np.stack([results[o].summaries[task] for o in todo])
        tournament.record(t, a, b, stats.duel(metric, own_agg, own_summary, agg, summary, benchmark.alpha))
        tournament.record(t, b, a, stats.duel(metric, agg, summary, own_agg, own_summary, benchmark.alpha))
    return len(todo)


def _copy_duels(source: Tournament, target: Tournament, a: str, b: str) -> None:
    for x, y in ((a, b), (b, a)):
        si, sj, ti, tj = source.index(x), source.index(y), target.index(x), target.index(y)
        for name in ("fought", "significant", "p_value", "delta"):
            getattr(target, name)[:, ti, tj] = getattr(source, name)[:, si, sj]
