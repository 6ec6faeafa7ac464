"""What the writing roles (`publishing.py`, `administration.py`, `writing.py`) may use of
the reading role (`state.Leaderboard`): its state, read-only, `refresh` (a reload from the
store) and `install`, the one call that makes a new state the board's. They are built
beside the board and take a `BoardReader` instead of importing `Leaderboard`, so the
board's modules import in one direction (writers -> reader <- state), and a writer cannot
assign the board's attributes (only properties here)."""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine.panel import Candidates, Panel
from leaderboard.engine.tournament import Tournament
from leaderboard.storage.flags import Flag
from leaderboard.storage.presubmissions import PresubmissionLog
from leaderboard.storage.store import PublishedModel, Store
from leaderboard.submission.alignment import TaskReference
from leaderboard.errors import BadInput
from leaderboard.submission.metadata import title_keys
from leaderboard.submission.parsing import ParsedSubmission


T = TypeVar("T")


def titles_of(models: Mapping[str, PublishedModel]) -> dict[str, str]:
    return {s: m.title for s, m in models.items()}


class PublishedNames:
    """The published models by submission id, predictions hash and title keys
    (`title_keys`), so that a new submission's duplicate check looks its own up instead of
    comparing every published model's (10,000 models: 0.05 s a pre-submission)."""

    def __init__(self, models: Iterable[PublishedModel] = ()):
        self._order: dict[str, int] = {}
        self._by_id: dict[str, PublishedModel] = {}
        self._by_predictions: dict[object, PublishedModel] = {}
        self._by_key: tuple[dict[str, PublishedModel], ...] = ({}, {})
        for model in models:
            self.add(model)

    def add(self, model: PublishedModel) -> None:
        """Count in a model published after those already counted."""
        self._order.setdefault(model.submission_id, len(self._order))
        self._by_id.setdefault(model.submission_id, model)
        self._by_predictions.setdefault(model.metadata.get("model_predictions_sha256"), model)
        for index, key in zip(self._by_key, title_keys(model.title)):
            index.setdefault(key, model)

    def refuse_duplicate(self, sid: str, title: str, predictions_sha256: str) -> None:
        """A submission is new when its id, its predictions and its title (after Unicode
        normalization, ignoring case and look-alike letters) all differ from every
        published model's; else BadInput names the first published model it repeats."""
        same = [m for m in (self._by_id.get(sid), self._by_predictions.get(predictions_sha256)) if m is not None]
        alike = [m for index, key in zip(self._by_key, title_keys(title)) if (m := index.get(key)) is not None]
        if not same and not alike:
            return
        other = min(same + alike, key=lambda m: self._order[m.submission_id])
        if other in same:
            raise BadInput(f"these predictions are already published as {other.title} ({other.submission_id})")
        raise BadInput(f"Model name: {other.title} is already published ({other.submission_id}); "
                       f"choose another team or model name")


@dataclass(frozen=True)
class BoardState:
    """What the board shows, from one revision of the store. Replaced whole, in one
    assignment, so a reader in another thread never mixes two states."""

    models: dict[str, PublishedModel]
    tournament: Tournament
    revision: str | None
    ranked: pd.DataFrame
    flags: dict[str, Flag]  # flagged published models
    # What is computed from the models, duels and flags alone (the settled panel, the names,
    # the page's tables), made on first use: one dict, which a state that differs only in
    # its revision shares (`follow`, after a pre-submission's record), so nothing is made again.
    derived: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def derive(self, name: str, make: Callable[[], T]) -> T:
        """`make()`, kept in `derived` under `name`: made on first use."""
        value = self.derived.get(name)
        if value is None:
            value = self.derived[name] = make()
        return value

    @property
    def names(self) -> PublishedNames:
        """Its models' names, for the duplicate check."""
        return self.derive("names", lambda: PublishedNames(self.models.values()))


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

    def near_copy_candidates(self) -> Candidates: ...

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
