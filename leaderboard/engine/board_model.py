"""What the engine reads of a published model and of a flag: protocols, since the stores
that define them (`storage/`) sit above the engine and import it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from leaderboard.engine.tournament import ModelResults


class BoardModel(Protocol):
    """A published model (`storage.store.PublishedModel`)."""

    @property
    def submission_id(self) -> str: ...

    @property
    def submitted(self) -> float: ...

    @property
    def results(self) -> ModelResults: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...  # the submission file's JSON metadata


class FlagTime(Protocol):
    """A flag on a model (`storage.flags.Flag`): when it was set."""

    @property
    def flagged_at(self) -> float: ...
