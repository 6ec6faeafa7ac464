"""The Hub store's index: a few consolidated files from which a new replica reads every
model's small part and every duel row, instead of one download per model (hub.py).

    index/<sequence>-<entries>.zip    a segment, holding
        models.json        per model: its arrays file's info (`local.encoded_with_info`:
                           metadata, aggregates, array layout), stamped with the git blob id
                           of its submission file
        duel_files.json    per duel file it holds (by owner, the model the file is named
                           after): that file's git blob id
        duels-<k>.parquet  those files' rows, with an `owner` column; one member per list
                           of tasks (duel_files.py's columns and metadata)

A reader uses an entry only when the file it summarizes has that blob id at the revision
it reads (`current`): a file rewritten or deleted since (a rebuild, a removal, a commit
made by hand) is read on its own instead, so the index may be incomplete but never wrong,
and a repo written before it existed is read file by file as before.

Every write adds a segment with what it wrote; then, as a binary counter carries, while
the newest segment has at least as many entries as the one before, the two are merged
into one, keeping only current entries. Each segment thus holds more entries than all
newer ones together: E entries (two per model: its info and its duel file) lie in at
most log2(E + 1) segments, about log2(N) + 1 for N models, and an entry is written again
only into a segment at least twice as large as its own, so at most log2(E) times.
"""
from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from typing import Callable

from leaderboard.storage import duel_files
from leaderboard.storage.local import DUELS_DIR

INDEX_DIR = "index"
_SEGMENT = re.compile(rf"{INDEX_DIR}/(\d+)-(\d+)\.zip")
OWNER = "owner"


@dataclass
class Segment:
    """What one index file holds (or what a write adds)."""

    models: dict[str, dict] = field(default_factory=dict)  # submission id -> arrays info (with "stamp")
    duel_files: dict[str, str] = field(default_factory=dict)  # owner -> the duel file's blob id
    tables: list = field(default_factory=list)  # pyarrow tables of those files' rows, with OWNER

    def entries(self) -> int:
        return len(self.models) + len(self.duel_files)


def duel_path(owner: str) -> str:
    return f"{DUELS_DIR}/{owner}.parquet"


def is_duel_path(path: str) -> bool:
    return path.startswith(f"{DUELS_DIR}/") and path.endswith(".parquet") and path.count("/") == 1


def segment_paths(files) -> list[str]:
    """The index's segments among a repo's file paths, oldest first."""
    return sorted((p for p in files if _SEGMENT.fullmatch(p)), key=lambda p: int(_SEGMENT.fullmatch(p)[1]))


def _entries_of(path: str) -> int:
    return int(_SEGMENT.fullmatch(path)[2])


def written_segment(files: dict[str, bytes], models: dict[str, dict], blob_id: Callable[[bytes], str]) -> Segment:
    """The segment of a write: the duel files among `files` (path -> bytes) and the
    `models`' infos."""
    import pyarrow as pa
    segment = Segment(dict(models))
    for path, data in files.items():
        if not is_duel_path(path):
            continue
        owner = path[len(DUELS_DIR) + 1:-len(".parquet")]
        table = duel_files.read_table(data)
        segment.duel_files[owner] = blob_id(data)
        segment.tables.append(table.append_column(OWNER, pa.array([owner] * table.num_rows, type=pa.string())))
    return segment


def segment_bytes(segment: Segment) -> bytes:
    """The segment as a zip: the JSON members deflated, the Parquet ones (compressed
    already) stored."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    by_tasks: dict[bytes, list] = {}
    for table in segment.tables:
        by_tasks.setdefault(table.schema.metadata[duel_files.TASKS_KEY], []).append(table)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        def add(name: str, data: bytes, compression: int = zipfile.ZIP_STORED) -> None:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=compression)  # dated 1980: same bytes each time
        add("models.json", json.dumps(segment.models).encode(), zipfile.ZIP_DEFLATED)
        add("duel_files.json", json.dumps(segment.duel_files).encode(), zipfile.ZIP_DEFLATED)
        for k, (tasks, group) in enumerate(by_tasks.items()):
            rules = {}
            for table in group:
                rules.update(json.loads(table.schema.metadata.get(duel_files.RULES_KEY, b"{}")))
            joined = pa.concat_tables([t.replace_schema_metadata(None) for t in group], promote_options="permissive")
            joined = joined.replace_schema_metadata({duel_files.TASKS_KEY: tasks,
                                                     duel_files.RULES_KEY: json.dumps(rules).encode()})
            member = io.BytesIO()
            pq.write_table(joined, member, compression="zstd")
            add(f"duels-{k}.parquet", member.getvalue())
    return buffer.getvalue()


def read_segment(data: bytes, with_rows: bool = True) -> Segment:
    """A segment from its bytes (`with_rows` False: without its duel rows); ValueError
    when they are not one."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            segment = Segment(json.loads(archive.read("models.json")), json.loads(archive.read("duel_files.json")))
            for name in archive.namelist():
                if with_rows and name.startswith("duels-"):
                    segment.tables.append(duel_files.read_table(archive.read(name)))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as e:
        raise ValueError(f"not an index segment ({type(e).__name__})") from None
    return segment


def current(segments: list[Segment], files: dict[str, str]) -> Segment:
    """One segment of the entries of `segments` (oldest first) that describe the files
    (path -> blob id) as they are: per model and per duel file, the newest such entry."""
    import pyarrow as pa
    import pyarrow.compute as pc
    out = Segment()
    for segment in reversed(segments):
        for sid, info in segment.models.items():
            if sid not in out.models and files.get(f"data/{sid}.json") == info.get("stamp"):
                out.models[sid] = info
        taken = [owner for owner, blob in segment.duel_files.items()
                 if owner not in out.duel_files and files.get(duel_path(owner)) == blob]
        for owner in taken:
            out.duel_files[owner] = segment.duel_files[owner]
        if len(taken) == len(segment.duel_files):  # every file as the segment has it: no copy
            out.tables += segment.tables
        elif taken:
            wanted = pa.array(taken, type=pa.string())
            out.tables += [t.filter(pc.is_in(t[OWNER], value_set=wanted)) for t in segment.tables]
    out.tables = [t for t in out.tables if t.num_rows]
    return out


def duel_tables(segment: Segment) -> list:
    """The segment's rows as duel_files.read_table gives a file's (without the owner)."""
    return [t.drop_columns([OWNER]) for t in segment.tables]


def index_changes(existing: list[str], written: Segment, files_after: dict[str, str],
                  read: Callable[[str], bytes]) -> tuple[dict[str, bytes], list[str]]:
    """What a write adds to the index (path -> bytes) and deletes: its segment, merged
    with the newest existing ones (`existing`, oldest first; `read(path)` gives their
    bytes) while they hold no more entries than what is being merged; `files_after`:
    the repo's files (path -> blob id) as the write leaves them."""
    if not written.entries():
        return {}, []
    merged, total, deletes = [written], written.entries(), []
    while existing and _entries_of(existing[-1]) <= total:
        path = existing.pop()
        merged.insert(0, read_segment(read(path)))
        total += _entries_of(path)
        deletes.append(path)
    segment = current(merged, files_after)
    sequence = max((int(_SEGMENT.fullmatch(p)[1]) for p in [*existing, *deletes]), default=0) + 1
    return {f"{INDEX_DIR}/{sequence:08d}-{segment.entries()}.zip": segment_bytes(segment)}, deletes


def index_of_history(history: list[tuple[dict[str, bytes], dict[str, dict]]],
                     blob_id: Callable[[bytes], str]) -> dict[str, bytes]:
    """The index a history of writes leaves (each: the files it wrote, path -> bytes, and
    the infos of the models it published), as `index_changes` builds it write by write."""
    index: dict[str, bytes] = {}
    files: dict[str, str] = {}
    for written, models in history:
        files.update({path: blob_id(data) for path, data in written.items()})
        adds, deletes = index_changes(segment_paths(index), written_segment(written, models, blob_id), files,
                                      index.__getitem__)
        for path in deletes:
            del index[path]
        index.update(adds)
    return index
