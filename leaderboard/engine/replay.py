"""The opponent rule, in one place: each new model duels the top models of its day.

`opponents_of_the_day` is who a model published now duels (pre-submission, publication);
`expected_opponents` replays the published models in time order under the same rule, which
is what `check` and `rebuild` compare the stored duels with; `run_missing_duels` plays the
duels that replay expects and a tournament lacks. `duel_file_owners` says which model's
duel file holds a duel: the later published of the two.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine import ranking
from leaderboard.engine.tournament import DuelRows, Tournament, play
from leaderboard.progress import Progress, no_progress


def opponents_of_the_day(ranked_table: pd.DataFrame, benchmark: Benchmark, flagged=()) -> list[str]:
    """A new model's opponents: the benchmark's top_opponents best models of a `ranked`
    table that are not in `flagged`."""
    return [m for m in ranked_table.index if m not in flagged][:benchmark.top_opponents]


def submitted_times(models: dict) -> pd.Series:
    """Each model's publication time (seconds since the epoch), by submission id."""
    return pd.Series({s: m.submitted for s, m in models.items()}, dtype=float)


def expected_opponents(tournament: Tournament, models: dict, flags: dict, benchmark: Benchmark
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


def run_missing_duels(tournament: Tournament, models: dict, flags: dict, benchmark: Benchmark, rules: str,
                      progress: Progress = no_progress) -> dict[str, int]:
    """Play into `tournament` every duel the replay of `models` expects and it lacks.
    Returns, per model that got new duels (it owns their rows), the opponents it dueled."""
    dueled = {}
    for k, (sid, opponents) in enumerate(expected_opponents(tournament, models, flags, benchmark)):
        progress(k / len(models), f"duels of {sid}")
        results = {s: models[s].results for s in (sid, *opponents)}
        count = play(benchmark, tournament, sid, results, opponents, rules=rules)
        if count:
            dueled[sid] = count
    return dueled


def duel_file_owners(tournament: Tournament, rows: DuelRows, models: dict) -> np.ndarray:
    """Per row, the model whose duel file holds it: the later published of the two."""
    order = sorted(tournament.model_ids, key=lambda m: (models[m].submitted, m))
    position = np.empty(len(tournament.model_ids), dtype=np.int64)
    position[[tournament.index(m) for m in order]] = np.arange(len(order))
    return np.where(position[rows.first] > position[rows.second], rows.first, rows.second)
