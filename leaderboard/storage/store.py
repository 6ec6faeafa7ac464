"""What the board needs of a store; `LocalStore` (a folder) and `HubStore` (a Hugging Face
dataset repo) implement it. What both write for a change is assembled once, by
`BoardRewrite.files`; each store only turns those paths into its own kind of commit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ContextManager, Protocol

from leaderboard.json_types import JSONObject

from leaderboard.storage.local import BoardRewrite, Publication, PublishedModel

if TYPE_CHECKING:
    import pyarrow as pa


class Store(Protocol):
    def exists(self) -> bool: ...

    def revision(self, fresh: bool = False) -> str:
        """An opaque string that changes whenever the store changes; fresh=True asks now
        instead of using the last one polled."""

    def updated_at(self) -> float: ...

    def submission_ids(self) -> list[str]: ...

    def read_document(self, submission_id: str) -> bytes: ...

    def read_tournament(self) -> JSONObject: ...

    def read_flags(self) -> bytes | None: ...

    def read_snapshot(self) -> bytes | None:
        """The snapshot when nothing shows it older than the store's files, else None."""

    def read_snapshot_file(self) -> bytes | None:
        """leaderboard.parquet as stored, current or not; None when there is none."""

    def duel_file_ids(self) -> list[str]: ...

    def record_days(self, folder: str) -> Mapping[str, object]:
        """The UTC days with records in `folder` (day_files.py), each with a version of its file."""

    def read_records(self, folder: str, day: str) -> bytes: ...

    def append_records(self, folder: str, day: str, lines: bytes, what: str) -> tuple[str, str] | None:
        """Records appended to the day's file in one commit (`what` they are names it);
        (the revision it was made on, the new one) when the store's revision moves with it
        (a Hub repo), else None."""

    def read_duel_tables(self) -> tuple[list[pa.Table], list[str]]: ...

    def load_cached(self, submission_id: str) -> PublishedModel | None: ...

    def save_cached(self, model: PublishedModel) -> None: ...

    def lock(self, shared: bool = False) -> ContextManager[None]: ...

    def publish(self, publication: Publication, parent: str | None = None) -> str:
        """The publication in one commit on top of `parent` (StoreConflict when the store
        moved since); returns the new revision."""

    def publish_all(self, publications: list[Publication], parent: str | None = None) -> str:
        """Several publications, in time order, in one commit (`publication_files`); returns
        the new revision."""

    def rewrite(self, change: BoardRewrite, parent: str | None = None) -> str:
        """A rebuild, migration, removal or flag change in one commit; returns the new revision."""

    def write_snapshot(self, snapshot: bytes, parent: str | None = None) -> str:
        """Replace leaderboard.parquet alone (the same ranking, its intervals now
        computed) when the store is still at `parent` (StoreConflict otherwise); returns
        the revision after."""
