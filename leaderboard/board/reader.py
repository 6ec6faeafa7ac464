"""What the writing roles (`publishing.py`, `administration.py`, `writing.py`) may use of
the reading role (`state.Leaderboard`): its state, read-only, `refresh` (a reload from the
store) and `install`, the one call that makes a new state the board's. They are built
beside the board and take a `BoardReader` instead of importing `Leaderboard`, so the
board's modules import in one direction (writers -> reader <- state), and a writer cannot
assign the board's attributes (only properties here)."""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine.panel import Panel
from leaderboard.engine.tournament import Tournament
from leaderboard.storage.flags import Flag
from leaderboard.storage.presubmissions import PresubmissionLog
from leaderboard.storage.store import PublishedModel, Store
from leaderboard.submission.alignment import TaskReference
from leaderboard.submission.parsing import ParsedSubmission


def titles_of(models: Mapping[str, PublishedModel]) -> dict[str, str]:
    return {s: m.title for s, m in models.items()}


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
    def rules_description(self) -> dict[str, object]: ...

    @property
    def write_lock(self) -> AbstractContextManager[bool]: ...

    @property
    def presubmissions(self) -> PresubmissionLog: ...

    @property
    def load_problems(self) -> list[str]: ...

    @property
    def orphan_duels(self) -> set[str]: ...

    def install(self, state: BoardState, orphan_duels: set[str] | None = None) -> None: ...

    def refresh(self, fresh: bool = False) -> bool: ...

    def rank(self, models: dict[str, PublishedModel], tournament: Tournament,
             flags: dict[str, Flag] | None = None) -> pd.DataFrame: ...

    def panel(self) -> tuple[str, ...]: ...

    def settled_panel(self) -> Panel | None: ...

    def model_of(self, sid: str, metadata: dict[str, Any], parsed: ParsedSubmission) -> PublishedModel: ...

    def references(self) -> Mapping[str, TaskReference]: ...

    def is_sample_file(self, parsed: ParsedSubmission) -> bool: ...

    def titles(self) -> dict[str, str]: ...

    def certainty(self, adjusted: bool = False, exclude_flagged: bool = False, wait: bool = True
                  ) -> pd.DataFrame | None: ...

    def certainty_in_background(self, then: Callable[[], object] | None = None,
                                after: threading.Event | None = None) -> threading.Thread: ...


def follow(board: BoardReader, parent: str, revision: str) -> None:
    """The store moved from `parent` to `revision` by a commit that changed none of the
    board's files (a pre-submission's or an upload's record): if the board's state was
    `parent`'s, it is `revision`'s, without a reload."""
    with board.write_lock:
        state = board.state
        if state.revision == parent:
            board.install(dataclasses.replace(state, revision=revision))
