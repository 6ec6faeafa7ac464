"""What the writing roles (`publishing.py`, `administration.py`, `writing.py`) may use of
the reading role (`state.Leaderboard`): its state, read-only, and the few calls that
replace it. They take a `BoardReader` instead of importing `Leaderboard`, so the board's
modules import in one direction (state -> writers -> reader), and a writer cannot assign
the board's attributes (only properties here)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine.tournament import Tournament
from leaderboard.storage.flags import Flag
from leaderboard.storage.presubmissions import PresubmissionLog
from leaderboard.storage.store import PublishedModel, Store
from leaderboard.submission.alignment import TaskReference


@dataclass(frozen=True)
class BoardState:
    """What the board shows, from one revision of the store. Replaced whole, in one
    assignment, so a reader in another thread never mixes two states."""

    models: dict[str, PublishedModel]
    tournament: Tournament
    revision: str | None
    ranked: pd.DataFrame
    flags: dict[str, Flag]  # flagged published models


class BoardReader(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def benchmark(self) -> Benchmark: ...

    @property
    def state(self) -> BoardState: ...

    @property
    def models(self) -> dict[str, PublishedModel]: ...

    @property
    def tournament(self) -> Tournament: ...

    @property
    def revision(self) -> str | None: ...

    @property
    def flags(self) -> dict[str, Flag]: ...

    @property
    def rules(self) -> str: ...

    @property
    def rules_description(self) -> dict: ...

    @property
    def write_lock(self) -> AbstractContextManager: ...

    @property
    def presubmissions(self) -> PresubmissionLog: ...

    @property
    def load_problems(self) -> list[str]: ...

    @property
    def orphan_duels(self) -> set[str]: ...

    def replace_state(self, models: dict[str, PublishedModel], tournament: Tournament, revision,
                      ranked: pd.DataFrame | None = None, flags: dict[str, Flag] | None = None) -> None: ...

    def forget_orphan_duels(self) -> None: ...

    def refresh(self, fresh: bool = False) -> bool: ...

    def follow(self, parent: str, revision: str) -> None: ...

    def rank(self, models: dict[str, PublishedModel], tournament: Tournament,
             flags: dict[str, Flag] | None = None) -> pd.DataFrame: ...

    def panel(self) -> tuple[str, ...]: ...

    def model_of(self, sid: str, metadata: dict, parsed) -> PublishedModel: ...

    def references(self) -> dict[str, TaskReference]: ...

    def is_sample_file(self, parsed) -> bool: ...

    def titles(self) -> dict[str, str]: ...

    def certainty(self, adjusted: bool = False, exclude_flagged: bool = False, wait: bool = True
                  ) -> pd.DataFrame | None: ...

    def certainty_in_background(self, then: Callable[[], object] | None = None,
                                after: threading.Event | None = None) -> threading.Thread: ...
