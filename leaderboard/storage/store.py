"""What the board needs of a store, and the types both stores share; `LocalStore` (a folder) and `HubStore` (a Hugging Face
dataset repo) implement it. What both write for a change is assembled once, by
`BoardRewrite.files`; each store only turns those paths into its own kind of commit."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ContextManager, Protocol

from leaderboard.json_types import JSONObject

from leaderboard.engine.tournament import ModelResults
from leaderboard.storage.flags import FLAGS_FILE
from leaderboard.strict_json import dump_json
from leaderboard.submission.alignment import TaskReference

TOURNAMENT_FILE = "tournament.json"
DUELS_DIR = "duels"
TITLES_FILE = "submission_id_to_model_title.json"  # the reference layout's
TITLES_DIR = "titles"
TITLES_PART_DIGITS = 2  # titles/<xx>.json: the first hex digits of the id's sha256, 256 parts
SNAPSHOT_FILE = "leaderboard.parquet"
INDEX_DIR = "index"  # the index segments (store_index.py): a Hub repo's at its root, a local store's in its cache folder


@dataclass
class Publication:
    """Everything one publication writes, in one commit."""

    submission_id: str
    document: JSONObject | bytes  # with "submission_metadata"; bytes: already as JSON (a batch holds many)
    duels: bytes  # duels/<submission_id>.parquet
    titles: dict[str, str]  # every published model's; the commit writes the part of this one's (`titles_files`)
    # leaderboard.parquet, or None: the commit leaves the snapshot, which its fingerprint then
    # marks as not current, and it is written after the commit with the intervals
    # (`Publishing.refresh_intervals`): a publication writes a bounded amount, not a row per model
    snapshot: bytes | None
    model: "PublishedModel"
    # Earlier publications' duel files written again with the rows this publication's
    # panel change added to them (a row lives in the later published model's file):
    # submission id -> the whole file.
    rewritten_duels: dict[str, bytes] = field(default_factory=dict)

    def document_bytes(self) -> bytes:
        return self.document if isinstance(self.document, bytes) else dump_json(self.document)


def publication_files(publications: list[Publication]) -> dict[str, bytes]:
    """The paths (with their bytes) that publications, in time order, write in one commit,
    in any store: their submission and duel files, the titles parts as the last has them,
    and its snapshot, if any (the board after all of them)."""
    documents = {p.submission_id: p.document_bytes() for p in publications}
    writes = titles_files(publications[-1].titles, documents)
    for p in publications:  # a later publication's rewritten files hold the earlier ones' rows too
        writes[f"{DUELS_DIR}/{p.submission_id}.parquet"] = p.duels
        writes.update({f"{DUELS_DIR}/{sid}.parquet": data for sid, data in p.rewritten_duels.items()})
        writes[f"data/{p.submission_id}.json"] = documents[p.submission_id]
    if publications[-1].snapshot is not None:
        writes[SNAPSHOT_FILE] = publications[-1].snapshot  # staged last: see LocalStore.read_snapshot
    return writes


def titles_part(submission_id: str) -> str:
    """The path of the titles part that holds `submission_id`'s title."""
    return f"{TITLES_DIR}/{hashlib.sha256(submission_id.encode()).hexdigest()[:TITLES_PART_DIGITS]}.json"


def titles_files(titles: dict[str, str], ids: Iterable[str]) -> dict[str, bytes]:
    """The titles parts (path -> bytes) holding the ids `ids`, each with every title of
    `titles` that belongs to it (empty when none does: the part of a removed model)."""
    parts: dict[str, dict[str, str]] = {titles_part(sid): {} for sid in ids}
    for sid in sorted(titles):
        part = parts.get(titles_part(sid))
        if part is not None:
            part[sid] = titles[sid]
    return {path: dump_json(part) for path, part in parts.items()}


def stored_titles(read: Callable[[str], bytes | None]) -> dict[str, str]:
    """Every stored title: the reference layout's single file, if any, under the parts
    (newer); `read(path)` returns a file's bytes or None."""
    titles: dict[str, str] = json.loads(read(TITLES_FILE) or b"{}")
    for k in range(16 ** TITLES_PART_DIGITS):
        titles.update(json.loads(read(f"{TITLES_DIR}/{k:0{TITLES_PART_DIGITS}x}.json") or b"{}"))
    return titles


@dataclass
class BoardRewrite:
    """A rebuild, migration, removal or flag change: duel files written and deleted, the
    board files, and what happens to the reference layout's tournament.json."""

    titles: dict[str, str]
    snapshot: bytes
    message: str
    duel_files: dict[str, bytes] = field(default_factory=dict)  # submission id -> Parquet bytes
    deleted_duel_files: tuple[str, ...] = ()
    legacy_tournament: JSONObject | None = None  # written as tournament.json when not None
    drop_legacy_tournament: bool = False
    removed: str | None = None  # a submission taken off the board with its arrays
    flags: dict[str, dict[str, object]] | None = None  # written as flags.json when not None (flags.flags_json)

    def files(self, arrays_dir: str) -> tuple[dict[str, bytes], list[str]]:
        """The paths it writes (with their bytes) and deletes, in any store; `arrays_dir`:
        the store's folder of per-model arrays."""
        # every titles part, the removed model's too; the reference layout's file goes
        titled = [*self.titles, *([self.removed] if self.removed is not None else [])]
        writes = {**titles_files(self.titles, titled),
                  **{f"{DUELS_DIR}/{sid}.parquet": data for sid, data in self.duel_files.items()}}
        deletes = [TITLES_FILE, *(f"{DUELS_DIR}/{sid}.parquet" for sid in self.deleted_duel_files)]
        if self.legacy_tournament is not None:
            writes[TOURNAMENT_FILE] = dump_json(self.legacy_tournament)
        elif self.drop_legacy_tournament:
            deletes.append(TOURNAMENT_FILE)
        if self.removed is not None:
            deletes += [f"data/{self.removed}.json", f"{arrays_dir}/{self.removed}.npz"]
        if self.flags is not None:
            writes[FLAGS_FILE] = dump_json(self.flags)
        writes[SNAPSHOT_FILE] = self.snapshot  # staged last: see LocalStore.read_snapshot
        return writes, deletes


@dataclass
class PublishedModel:
    submission_id: str
    metadata: JSONObject  # the file's "submission_metadata"
    results: ModelResults
    references: Mapping[str, TaskReference]  # a cache file's read on access (model_arrays._References)

    @property
    def title(self) -> str:
        return f"{self.metadata.get('team_name', '?')}/{self.metadata.get('model_name', '?')}"

    @property
    def submitted(self) -> float:
        return float(self.metadata.get("submission_timestamp") or 0)

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

    def duels_version(self) -> str | None:
        """What `read_duel_tables` and `read_tournament` read now, as one string, equal
        only while they would give the same rows; None when the store cannot tell."""

    def load_cached(self, submission_id: str) -> PublishedModel | None: ...

    # stamp: each store's own (LocalStore a list, HubStore a str), passed by the store itself;
    # through the protocol none is (the store makes its own)
    def save_cached(self, model: PublishedModel, stamp: None = None) -> None: ...

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
