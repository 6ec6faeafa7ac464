"""The opponent rule, in one place: whose duels count, by the tasks file's `opponents`.

Under "panel" (the default) every model is scored by its field score and duels the board's
reference panel (`leaderboard/engine/panel.py`): `board_panel` settles both, running the
duels the panel lacks when asked. Under "top-of-its-day" (BenCzechMark's original rule) each new
model duels the top models of its day: `opponents_of_the_day` is who a model published
now duels; `expected_opponents` replays the published models in time order under that
rule. For either rule, `scores` gives the board's scores, `missing_duels` what `check`
compares the stored duels with and `run_missing_duels` what `rebuild`, `remove` and a
flag change run. `duel_file_owners` says which model's duel file holds a duel: the later
published of the two.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import TypeVar

import numpy as np
import pandas as pd

from leaderboard.config.tasks import PANEL, Benchmark
from leaderboard.engine import panel as reference_panel, ranking
from leaderboard.engine.board_model import BoardModel, FlagTime
from leaderboard.engine.tournament import DuelRows, ModelResults, Tournament, play
from leaderboard.engine.progress import Progress, no_progress

V = TypeVar("V")


def opponents_of_the_day(ranked_table: pd.DataFrame, benchmark: Benchmark, flagged: Collection[str] = ()
                         ) -> list[str]:
    """A new model's opponents: the benchmark's top_opponents best models of a `ranked`
    table that are not in `flagged`."""
    return [m for m in ranked_table.index if m not in flagged][:benchmark.top_opponents]


def submitted_times(models: Mapping[str, BoardModel]) -> pd.Series:
    """Each model's publication time (seconds since the epoch), by submission id."""
    return pd.Series({s: m.submitted for s, m in models.items()}, dtype=float)


def expected_opponents(tournament: Tournament, models: Mapping[str, BoardModel], flags: Mapping[str, FlagTime],
                       benchmark: Benchmark
                       ) -> Iterator[tuple[str, list[str]]]:
    """(model, the top models of its day) in time order, as the replay of `models` defines
    them (models flagged by then, per `flags`, are passed over). Scores of the earlier
    models come from their duels among themselves in `tournament`, counted as the replay
    goes (the caller may add the duels it runs for a model before the next is yielded):
    O(stored duels), not a ranking of every prefix from scratch."""
    order = sorted(models.values(), key=lambda m: (m.submitted, m.submission_id))
    ids = [m.submission_id for m in order]
    flagged_at = {sid: flag.flagged_at for sid, flag in flags.items()}
    position = np.full(len(tournament.model_ids), -1, dtype=np.int64)
    position[[tournament.index(s) for s in ids if s in tournament]] = np.arange(len(ids))[
        [s in tournament for s in ids]]
    won, fought = np.zeros((len(ids), len(tournament.task_ids))), np.zeros((len(ids), len(tournament.task_ids)))
    submitted = submitted_times(models)[ids]
    for k, sid in enumerate(ids):
        if k:
            with np.errstate(invalid="ignore", divide="ignore"):
                table = ranking.scores_from_win_scores(won[:k] / fought[:k], ids[:k], benchmark)
            flagged = {s for s in ids[:k] if flagged_at.get(s, np.inf) <= models[sid].submitted}
            yield sid, opponents_of_the_day(ranking.ranked(table, submitted.iloc[:k]), benchmark, flagged)
        if sid not in tournament:
            continue
        rows = tournament.rows_involving(sid)  # its duels with earlier models now count
        a, b = position[rows.first], position[rows.second]
        among = (a >= 0) & (b >= 0) & (a <= k) & (b <= k)
        np.add.at(won, a[among], (rows.significant & rows.fought)[among])
        np.add.at(fought, a[among], rows.fought[among])


def board_panel(tournament: Tournament, models: Mapping[str, BoardModel], flags: Collection[str], benchmark: Benchmark, rules: str | None = None,
                backfill: bool = False, backfill_only: Collection[str] | None = None,
                base: reference_panel.Panel | None = None) -> reference_panel.Panel:
    """The reference panel of the models of `tournament` (all in `models`), never one in
    `flags`; `backfill`: run the duels it lacks into `tournament`, `backfill_only` those of
    these models; `base`: the board's settled panel when the last model of `tournament`
    is a pre-submission's (see `panel.settle`)."""
    # every model's results when the backfill may duel them all (a dict: 50 reads a model), else read when asked
    results: Mapping[str, ModelResults] = ({sid: models[sid].results for sid in tournament.model_ids}
                                           if backfill and backfill_only is None else _Kept(models, lambda m: m.results))
    return reference_panel.settle(benchmark, tournament, results, frozenset(flags), rules, backfill,
                                  _Kept(models, lambda m: m.metadata.get(reference_panel.NEAR_COPIES, {})),
                                  backfill_only, base)


class _Kept(Mapping[str, V]):
    """What each model keeps (`what(model)`), by submission id, read when asked: a panel
    settled from a base reads the newcomer's and the members' alone."""

    def __init__(self, models: Mapping[str, BoardModel], what: Callable[[BoardModel], V]):
        self._models, self._what = models, what

    def __getitem__(self, sid: str) -> V:
        return self._what(self._models[sid])

    def __iter__(self) -> Iterator[str]:
        return iter(self._models)

    def __len__(self) -> int:
        return len(self._models)


def scores(tournament: Tournament, models: Mapping[str, BoardModel], flags: Collection[str], benchmark: Benchmark) -> pd.DataFrame:
    """The scores table (`ranking.scores_table`'s shape) under the benchmark's rule, from
    the stored duels: against the reference panel, or over every stored duel of a model."""
    if benchmark.opponents == PANEL:
        return board_panel(tournament, models, flags, benchmark).scores(benchmark)
    return ranking.scores_table(tournament, benchmark)


def missing_duels(tournament: Tournament, models: Mapping[str, BoardModel], flags: Mapping[str, FlagTime],
                  benchmark: Benchmark
                  ) -> Iterator[tuple[str, list[str]]]:
    """(model, the opponents the rule expects it to have dueled and it has not), for
    each model that lacks some: the panel's members, or the top models of its day."""
    if benchmark.opponents == PANEL:
        members = list(board_panel(tournament, models, flags, benchmark).members)
        yield from reference_panel.missing_duels(tournament, members).items()
        return
    for sid, opponents in expected_opponents(tournament, models, flags, benchmark):
        missing = [o for o in opponents if not tournament.has_dueled(sid, o)]
        if missing:
            yield sid, missing


def publication_order(models: Mapping[str, BoardModel]) -> dict[str, int]:
    """Each model's place in the order of publication (time, then submission id): of two
    models, the later published has the greater place."""
    ids = list(models)
    times = np.fromiter((models[m].submitted for m in ids), dtype=float, count=len(ids))
    order = np.lexsort((np.array(ids, dtype=str), times))  # by time, then id: a key function per model was 0.2 s at 10,000
    return {ids[k]: place for place, k in enumerate(order.tolist())}


def owners_of_pairs(pairs: Mapping[str, tuple[str, ...]], models: Mapping[str, BoardModel]) -> dict[str, int]:
    """Per model, how many of the pairs (a -> each b) it owns: the later published of each."""
    involved = {*pairs, *(b for others in pairs.values() for b in others)}  # often none: not the whole board
    place = publication_order({m: models[m] for m in involved})
    owned: dict[str, int] = {}
    for a, others in pairs.items():
        for b in others:
            owner = a if place[a] > place[b] else b
            owned[owner] = owned.get(owner, 0) + 1
    return owned


def run_missing_duels(tournament: Tournament, models: Mapping[str, BoardModel], flags: Mapping[str, FlagTime],
                      benchmark: Benchmark, rules: str,
                      progress: Progress = no_progress) -> dict[str, int]:
    """Play into `tournament` every duel the rule expects and it lacks: the panel's
    backfill, or the replay of `models` in time order. Returns, per model that owns new
    rows (the later published of each pair), the number of pairs."""
    if benchmark.opponents == PANEL:
        progress(0.0, "settling the reference panel")
        return owners_of_pairs(board_panel(tournament, models, flags, benchmark, rules, backfill=True).backfilled,
                               models)
    dueled: dict[str, int] = {}
    for k, (sid, opponents) in enumerate(expected_opponents(tournament, models, flags, benchmark)):
        progress(k / len(models), f"duels of {sid}")
        results = {s: models[s].results for s in (sid, *opponents)}
        count = play(benchmark, tournament, sid, results, opponents, rules=rules)
        if count:
            dueled[sid] = count
    return dueled


def duel_file_owners(tournament: Tournament, rows: DuelRows, models: Mapping[str, BoardModel]) -> np.ndarray:
    """Per row, the model whose duel file holds it: the later published of the two."""
    place = publication_order(models)
    position = np.array([place[m] for m in tournament.model_ids], dtype=np.int64)
    return np.where(position[rows.first] > position[rows.second], rows.first, rows.second)
