"""The reference panel: the same opponents for every model's Win Score.

Under the original rule a model's Win Score counts the duels against the top models of
the day it was published, so its rank depends on when it came. Here every model is
measured against one panel, the K best models of the board (K: the benchmark's
`top_opponents`; flagged models never), whatever the order of publication:

- A model's Win Score on a task is the share of the panel's members (other than itself)
  that it beats there (a significant duel); category and overall scores are means, as
  always (`ranking.scores_from_win_scores`).
- The panel is a fixed point: the K best models by the scores measured against it.
  It is found by iterating "panel -> scores -> the K best" from a start that depends
  only on the set of models (the K best by a Borda count of the models' own task
  scores, `canonical_scores`) until a panel repeats. Ties, wherever they decide who is
  in, go to the higher Borda count, then the smaller submission id, so the panel is a
  function of the set of models and their duels alone. If the iteration ends in a
  cycle instead of a fixed point (models at the border that beat each other in a
  circle), the cycle's panel nearest to a fixed point is taken: the one with most
  members among the K best by its own scores, then the one whose members sit highest
  in the Borda order (`_pick_in_cycle`).
- Every model duels every member, both directions: when a model enters a panel the
  iteration visits, the models that have not dueled it do so then (one vectorized pass
  per task, `tournament.duel_rows`). Duels with models outside the panel stay stored
  but do not count.

A duel's verdict depends only on the pair (the tests are seeded per task), so the panel,
every score and every rank are the same whatever order the models were published in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine import ranking
from leaderboard.engine.tournament import DuelRows, ModelResults, Tournament, duel_rows, rules_description, rules_id


@dataclass(frozen=True)
class Panel:
    """A settled panel and the scores against it.

    members: the panel's submission ids, best first; model_ids: every model, in the
    tournament's order; win_scores: (n_models, n_tasks), rows in `model_ids` order, NaN
    for a model without panel duels;
    rounds: panels the iteration visited; cycle: 1 for a fixed point, else the length of
    the cycle the iteration ended in; backfilled: per member that got new duels while
    settling, the models that dueled it then."""

    members: tuple[str, ...]
    model_ids: tuple[str, ...]
    win_scores: np.ndarray
    rounds: int
    cycle: int
    backfilled: Mapping[str, tuple[str, ...]]

    def scores(self, benchmark: Benchmark) -> pd.DataFrame:
        """Task, category and overall scores against the panel (`ranking.scores_table`'s
        shape); `attrs["panel"]` names the members (a `ranked` table keeps it, so its
        intervals are computed against this panel: `ranking.certainty_of`)."""
        table = ranking.scores_from_win_scores(self.win_scores, list(self.model_ids), benchmark)
        table.attrs["panel"] = self.members
        return table


def canonical_scores(benchmark: Benchmark, aggregates: np.ndarray) -> np.ndarray:
    """A Borda count of the models' own task scores: per task the share of the other
    models whose score this one's beats in the metric's direction (a tie counts half),
    then the mean per category and over categories, as Win Scores are combined.

    aggregates: (n_models, n_tasks), tasks in benchmark order, NaN where not known.
    Returns (n_models,)."""
    n = len(aggregates)
    if n < 2:
        return np.full(n, 0.5)
    signed = aggregates * np.array([t.metric.sign for t in benchmark.tasks])
    signed = np.where(np.isnan(signed), -np.inf, signed)  # a score not known (a model of another benchmark): last
    ordered = np.sort(signed, axis=0)
    below = np.stack([np.searchsorted(ordered[:, k], signed[:, k], side="left") for k in range(signed.shape[1])], 1)
    not_above = np.stack([np.searchsorted(ordered[:, k], signed[:, k], side="right")
                          for k in range(signed.shape[1])], 1)
    beaten = (below + (not_above - below - 1) / 2) / (n - 1)
    return beaten @ _task_weights(benchmark, benchmark.task_ids)


def win_scores_against(parts: Iterable[DuelRows], n_models: int, n_tasks: int, members: np.ndarray) -> np.ndarray:
    """Per model and task, the share of `members` (model indices) it beats among the
    members it dueled there: (n_models, n_tasks), NaN where it dueled none. `parts`: the
    duel rows (a tournament's `parts()`), each ordered pair once; a model never duels itself."""
    columns = _Columns(n_models, n_tasks)
    columns.read(parts, members)
    return columns.win_scores(members)


class _Columns:
    """Per member, every model's duels against it: won and fought, each (n_models,
    n_tasks), read from the rows once, so that each panel the iteration visits costs a
    sum over its members rather than a pass over every stored row."""

    def __init__(self, n_models: int, n_tasks: int):
        self.shape = (n_models, n_tasks)
        self.won: dict[int, np.ndarray] = {}
        self.fought: dict[int, np.ndarray] = {}

    def read(self, parts: Iterable[DuelRows], members) -> None:
        """Read the columns of the members not read yet, one pass over the rows."""
        new = [int(m) for m in members if int(m) not in self.won]
        if not new:
            return
        for m in new:
            self.won[m], self.fought[m] = np.zeros(self.shape, dtype=bool), np.zeros(self.shape, dtype=bool)
        for rows in parts:
            self.add(rows, new)

    def add(self, rows: DuelRows, members=None) -> None:
        """Enter `rows` into the columns of `members` (default: every column read)."""
        wanted = np.zeros(self.shape[0], dtype=bool)
        wanted[list(self.won) if members is None else members] = True
        selected = np.flatnonzero(wanted[rows.second])
        second = rows.second[selected]
        for member in np.unique(second):
            at = selected[second == member]
            self.fought[member][rows.first[at]] = rows.fought[at]
            self.won[member][rows.first[at]] = rows.fought[at] & rows.significant[at]

    def win_scores(self, members) -> np.ndarray:
        won, fought = np.zeros(self.shape), np.zeros(self.shape)
        for m in members:
            won += self.won[int(m)]
            fought += self.fought[int(m)]
        with np.errstate(invalid="ignore", divide="ignore"):
            return won / np.where(fought > 0, fought, np.nan)


def dueled(parts: Iterable[DuelRows], n_models: int, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which models have a stored duel against each member, and which members one against
    each model: (model vs member, member vs model), each (n_models, len(members)) bool;
    a member against itself counts as both."""
    position = np.full(n_models, -1, dtype=np.int64)
    position[members] = np.arange(len(members))
    forward = np.zeros((n_models, len(members)), dtype=bool)
    backward = np.zeros((n_models, len(members)), dtype=bool)
    for rows in parts:
        to_member = position[rows.second] >= 0
        forward[rows.first[to_member], position[rows.second[to_member]]] = True
        from_member = position[rows.first] >= 0
        backward[rows.second[from_member], position[rows.first[from_member]]] = True
    forward[members, np.arange(len(members))] = backward[members, np.arange(len(members))] = True
    return forward, backward


def missing_duels(tournament: Tournament, members: list[str]) -> dict[str, list[str]]:
    """Per model, the panel members it has no stored duel with (in either direction)."""
    index = np.array([tournament.index(m) for m in members], dtype=np.int64)
    forward, backward = dueled(tournament.parts(), len(tournament.model_ids), index)
    done = forward & backward
    out: dict[str, list[str]] = {}
    for i, k in zip(*np.nonzero(~done)):
        out.setdefault(tournament.model_ids[i], []).append(members[k])
    return out


def settle(benchmark: Benchmark, tournament: Tournament, results: Mapping[str, ModelResults],
           flagged=frozenset(), rules: str | None = None, backfill: bool = True) -> Panel:
    """The panel of the models of `tournament` (every one needs its `results`) and the
    scores against it (see the module's text for the definition).

    backfill: run, into `tournament`, the duels each panel the iteration visits lacks
    (under `rules`, default the benchmark's); without it the stored duels alone decide (a
    store whose duels are complete gives the same panel either way)."""
    ids, task_ids = tournament.model_ids, tournament.task_ids
    n = len(ids)
    aggregates = np.array([[results[m].aggregates.get(t, np.nan) for t in task_ids] for m in ids], dtype=float)
    borda = canonical_scores(benchmark, aggregates.reshape(n, len(task_ids)))
    id_rank = np.empty(n, dtype=np.int64)
    id_rank[np.argsort(np.array(ids, dtype=object), kind="stable")] = np.arange(n)
    borda_position = np.empty(n, dtype=np.int64)
    borda_position[np.lexsort((id_rank, -borda))] = np.arange(n)
    eligible = np.array([m not in flagged for m in ids], dtype=bool)

    def best_first(score: np.ndarray) -> np.ndarray:
        """Model indices by `score` (NaN last; rounded, so equal fractions summed in
        another order tie), then Borda, then id."""
        return np.lexsort((id_rank, -borda, -np.where(np.isnan(score), -np.inf, np.round(score, 9))))

    weights = _task_weights(benchmark, task_ids)
    rules = rules or rules_id(rules_description(benchmark))

    def overall(win_scores: np.ndarray) -> np.ndarray:
        return win_scores @ weights

    backfilled: dict[str, list[str]] = {}
    columns = _Columns(n, len(task_ids))
    order = best_first(borda)
    panel = tuple(int(i) for i in order[eligible[order]][:benchmark.top_opponents])
    history, seen = [], {}  # (panel, its win scores, the k best by them); panel -> its step
    while True:
        columns.read(tournament.parts(), panel)
        if backfill:
            columns.add(_backfill(benchmark, tournament, results, panel, rules, backfilled))
        win_scores = columns.win_scores(panel)
        order = best_first(overall(win_scores))
        following = tuple(int(i) for i in order[eligible[order]][:benchmark.top_opponents])
        seen[frozenset(panel)] = len(history)
        history.append((panel, win_scores, following))
        if frozenset(following) in seen:
            cycle = history[seen[frozenset(following)]:]
            panel, win_scores, _ = _pick_in_cycle(cycle, borda_position)
            break
        panel = following
    order = best_first(overall(win_scores))
    return Panel(tuple(ids[i] for i in order[np.isin(order, panel)]), tuple(ids), win_scores, len(history), len(cycle),
                 {m: tuple(v) for m, v in backfilled.items()})


def _task_weights(benchmark: Benchmark, task_ids: list[str]) -> np.ndarray:
    """`Benchmark.task_weights` as an array in the order of `task_ids`: (n_tasks,)."""
    weights = benchmark.task_weights
    return np.array([weights[t] for t in task_ids])


def _pick_in_cycle(states: list[tuple[tuple[int, ...], np.ndarray, tuple[int, ...]]], borda_position: np.ndarray):
    """The (panel, win scores, k best by them) of a cycle nearest to a fixed point: most
    members among the k best by its own scores; then the one whose members sit highest
    in the Borda order (the smallest sum of positions, then the smallest positions). A
    fixed point is a cycle of one."""
    def key(state):
        panel, _, following = state
        positions = sorted(borda_position[list(panel)])
        return -len(set(panel) & set(following)), int(sum(positions)), positions
    return min(states, key=key)


def _backfill(benchmark: Benchmark, tournament: Tournament, results: Mapping[str, ModelResults],
              panel: tuple[int, ...], rules: str, backfilled: dict[str, list[str]]) -> DuelRows:
    """Duel each member against every model that has no stored duel with it, into
    `tournament`, in one addition (a pair of two members lacking each other once).
    Returns the rows added."""
    members = np.array(panel, dtype=np.int64)
    ids = tournament.model_ids
    position = np.full(len(ids), -1, dtype=np.int64)  # a model's place in the panel, -1 outside it
    position[members] = np.arange(len(members))
    forward, backward = dueled(tournament.parts(), len(ids), members)
    todo = ~(forward & backward)  # (model, member) pairs to duel; a pair of two members has two cells
    new = []
    while todo.any():  # one duel pass per member that many models lack, or per model that lacks many members
        per_member, per_model = todo.sum(axis=0), todo.sum(axis=1)
        if per_member.max() >= per_model.max():
            column = int(np.argmax(per_member))
            one, lacking = members[column], np.flatnonzero(todo[:, column])
            todo[:, column] = False
            todo[one, position[lacking[position[lacking] >= 0]]] = False
            backfilled.setdefault(ids[one], []).extend(ids[i] for i in lacking)
        else:
            one = int(np.argmax(per_model))
            lacking = members[np.flatnonzero(todo[one])]
            todo[one] = False
            if position[one] >= 0:
                todo[lacking, position[one]] = False
            for member in lacking:
                backfilled.setdefault(ids[member], []).append(ids[one])
        new.append(duel_rows(benchmark, tournament, ids[one], [ids[i] for i in lacking], results, rules))
    if not new:
        return DuelRows.empty(len(tournament.task_ids))
    rows = DuelRows.concat(new, len(ids))
    to_member = position[rows.second] >= 0  # else the first is the member
    stored = np.where(to_member, forward[rows.first, np.maximum(position[rows.second], 0)],
                      backward[rows.second, np.maximum(position[rows.first], 0)])  # one direction may be stored
    rows = rows.take(~stored)
    tournament.add_rows(rows)
    return rows
