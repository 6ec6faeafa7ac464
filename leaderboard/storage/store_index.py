"""The stores' index: a few consolidated files from which a reader reads every duel row
(and a new Hub replica every model's small part) instead of one file per model. A Hub
repo keeps it at its root, written with each commit (hub.py); a local store in its cache
folder, `.cache/index/`, written by the readers that had to read files on their own
(`LocalStore.read_duel_tables`).

    index/<sequence>-<entries>.zip    a segment, holding
        models.json        per model: its arrays file's info (`model_arrays.encoded_with_info`:
                           metadata, aggregates, array layout), stamped with the `file_stamp`
                           of its submission file (a Hub repo's only)
        duel_files.json    per duel file it holds (by owner, the model the file is named
                           after): that file's version (a Hub repo's: its git blob id; a
                           local store's: its size, time and inode)
        duels-<k>.parquet  those files' rows, with an `owner` column; one member per list
        (or .arrow)        of tasks (duel_files.py's columns and metadata): Parquet in a Hub
                           repo (small to download), uncompressed Arrow IPC in a local store
                           (its arrays used as read, nothing decoded)

A reader uses an entry only when the file it summarizes has that version at the
revision it reads (`current`): a file rewritten or deleted since (a rebuild, a removal,
a change made by hand) is read on its own instead, so the index may be incomplete but
never wrong, and a store written before it existed is read file by file as before.

Every write of the index adds a segment with what it adds; then, as a binary counter
carries, while the newest segment has at least as many entries as the one before, the
two are merged into one, keeping only current entries. Each segment thus holds more
entries than all newer ones together: E entries (two per model in a Hub repo: its info
and its duel file) lie in at most log2(E + 1) segments, about log2(N) + 1 for N models,
and an entry is written again only into a segment at least twice as large as its own,
so at most log2(E) times.
"""
from __future__ import annotations

import io
import hashlib
import json
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING

from leaderboard.json_types import JSONObject

from leaderboard.storage import duel_files
from leaderboard.storage.store import DUELS_DIR, INDEX_DIR

if TYPE_CHECKING:
    import pyarrow as pa

_SEGMENT = re.compile(rf"{INDEX_DIR}/(\d+)-(\d+)\.zip")
OWNER = "owner"


@dataclass
class Segment:
    """What one index file holds (or what a write adds)."""

    models: dict[str, JSONObject] = field(default_factory=dict)  # submission id -> arrays info (with "stamp")
    duel_files: dict[str, str] = field(default_factory=dict)  # owner -> the duel file's blob id
    tables: list[pa.Table] = field(default_factory=list)  # pyarrow tables of those files' rows, with OWNER

    def entries(self) -> int:
        return len(self.models) + len(self.duel_files)


def duel_path(owner: str) -> str:
    return f"{DUELS_DIR}/{owner}.parquet"


def is_duel_path(path: str) -> bool:
    return path.startswith(f"{DUELS_DIR}/") and path.endswith(".parquet") and path.count("/") == 1


def segment_paths(files: Iterable[str]) -> list[str]:
    """The index's segments among a repo's file paths, oldest first."""
    return sorted((p for p in files if _SEGMENT.fullmatch(p)), key=_sequence_of)


def _numbers_of(path: str) -> tuple[int, int]:
    """A segment path's (sequence, entries)."""
    match = _SEGMENT.fullmatch(path)
    if match is None:
        raise ValueError(f"not an index segment's path: {path}")
    return int(match[1]), int(match[2])


def _sequence_of(path: str) -> int:
    return _numbers_of(path)[0]


def _entries_of(path: str) -> int:
    return _numbers_of(path)[1]


def written_segment(files: dict[str, bytes], models: dict[str, JSONObject], blob_id: Callable[[bytes], str]) -> Segment:
    """The segment of a write: the duel files among `files` (path -> bytes) and the
    `models`' infos."""
    segment = Segment(dict(models))
    for path, data in files.items():
        if not is_duel_path(path):
            continue
        owner = path[len(DUELS_DIR) + 1:-len(".parquet")]
        segment.duel_files[owner] = blob_id(data)
        segment.tables.append(owned_rows(owner, duel_files.read_table(data)))
    return segment


def owned_rows(owner: str, table: pa.Table) -> pa.Table:
    """A duel file's table as a segment holds it: with the `OWNER` column."""
    import pyarrow as pa
    return table.append_column(OWNER, pa.array([owner] * table.num_rows, type=pa.string()))


ROWS_PARQUET, ROWS_ARROW = "parquet", "arrow"  # how a segment holds its duel rows (`segment_bytes`)


def segment_bytes(segment: Segment, rows_format: str = ROWS_PARQUET) -> bytes:
    """The segment as a zip (`write_segment`)."""
    buffer = io.BytesIO()
    write_segment(segment, buffer, rows_format)
    return buffer.getvalue()


def write_segment(segment: Segment, file: IO[bytes], rows_format: str = ROWS_PARQUET) -> None:
    """Write the segment as a zip into the binary `file`: the JSON members deflated, the
    rows' members (compressed already, or to be read as they are) stored, each streamed
    into it (at 10,000 models the rows are about a gigabyte). `rows_format`: ROWS_PARQUET
    (a Hub repo's: small to download) or ROWS_ARROW (a local store's: Arrow IPC,
    uncompressed, whose arrays are read without decoding)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    by_tasks: dict[bytes, list[pa.Table]] = {}
    for table in segment.tables:
        by_tasks.setdefault(table.schema.metadata[duel_files.TASKS_KEY], []).append(table)

    def member(name: str, compression: int = zipfile.ZIP_STORED) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name)  # dated 1980: the same bytes each time
        info.compress_type = compression
        return info
    with zipfile.ZipFile(file, "w") as archive:
        archive.writestr(member("models.json", zipfile.ZIP_DEFLATED), json.dumps(segment.models).encode())
        archive.writestr(member("duel_files.json", zipfile.ZIP_DEFLATED), json.dumps(segment.duel_files).encode())
        for k, (tasks, group) in enumerate(by_tasks.items()):
            rules: JSONObject = {}
            for table in group:
                rules.update(json.loads(table.schema.metadata.get(duel_files.RULES_KEY, b"{}")))
            joined = pa.concat_tables([t.replace_schema_metadata(None) for t in group], promote_options="permissive")
            joined = joined.replace_schema_metadata({duel_files.TASKS_KEY: tasks,
                                                     duel_files.RULES_KEY: json.dumps(rules).encode()})
            with archive.open(member(f"duels-{k}.{rows_format}"), "w", force_zip64=True) as stream:
                if rows_format == ROWS_ARROW:  # one record batch, whose float columns a reader maps as they are
                    with pa.ipc.new_file(stream, joined.schema) as writer:
                        writer.write_table(joined.combine_chunks())
                else:
                    pq.write_table(joined, stream, compression="zstd")


def read_segment(source: bytes | Path, with_rows: bool = True) -> Segment:
    """A segment from its bytes or its file (read member by member: no copy of the whole)
    (`with_rows` False: without its duel rows); ValueError when it is not one."""
    import pyarrow as pa
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as archive:
            segment = Segment(json.loads(archive.read("models.json")), json.loads(archive.read("duel_files.json")))
            for info in archive.infolist():
                if with_rows and info.filename.startswith("duels-"):
                    if info.filename.endswith(f".{ROWS_ARROW}"):  # its arrays are views of the rows: nothing decoded
                        rows = (_mapped_member(source, info) if isinstance(source, Path)
                                and info.compress_type == zipfile.ZIP_STORED else pa.py_buffer(archive.read(info)))
                        table = pa.ipc.open_file(rows).read_all()
                        json.loads(table.schema.metadata[duel_files.TASKS_KEY])
                    else:
                        table = duel_files.read_table(archive.read(info))
                    segment.tables.append(table)
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, TypeError, pa.ArrowException) as e:
        raise ValueError(f"not an index segment ({type(e).__name__})") from None
    return segment


_LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip member's local header: signature, ..., name and extra lengths


def _mapped_member(path: Path, info: zipfile.ZipInfo) -> pa.Buffer:
    """A stored (uncompressed) member of the zip at `path`, mapped from the file, not read:
    a local store's rows at 10,000 models are 0.9 GB, whose read and copy cost a cold
    command 1.3 s of CPU, their checksum 0.5 s; the pages belong to the page cache.
    The store writes a segment once, under a new name, and never rewrites it in place
    (a mapped file changed in place would kill the process when a page is read)."""
    import pyarrow as pa
    with pa.memory_map(str(path)) as file:
        file.seek(info.header_offset)
        signature, name_length, extra_length = _LOCAL_HEADER.unpack(file.read(_LOCAL_HEADER.size))
        if signature != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"no member header at {info.header_offset}")
        file.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        rows = file.read_buffer(info.file_size)
    if zlib.crc32(memoryview(rows)) != info.CRC:  # as a read checks it
        raise zipfile.BadZipFile(f"{info.filename} is damaged")
    return rows


def file_stamp(data: bytes) -> str:
    """What a Hub repo's index records for a file's content: its git blob id, by which the
    Hub lists a regular file, and its sha256, by which it lists an LFS file (a binary or a
    large one: which, the Hub decides)."""
    git_blob_id = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return f"{git_blob_id} {hashlib.sha256(data).hexdigest()}"


def stamp_matches(listed: object, stamp: object) -> bool:
    """Whether a file listed with version `listed` (a Hub tree's id, a `file_stamp`, a local
    file's size and time) is the one recorded with `stamp`."""
    return listed == stamp or (isinstance(listed, str) and isinstance(stamp, str) and listed in stamp.split())


def current(segments: list[Segment], files: dict[str, str]) -> Segment:
    """One segment of the entries of `segments` (oldest first) that describe the files
    (path -> blob id) as they are: per model and per duel file, the newest such entry."""
    import pyarrow as pa
    import pyarrow.compute as pc
    out = Segment()
    for segment in reversed(segments):
        for sid, info in segment.models.items():
            if sid not in out.models and stamp_matches(files.get(f"data/{sid}.json"), info.get("stamp")):
                out.models[sid] = info
        taken = [owner for owner, blob in segment.duel_files.items()
                 if owner not in out.duel_files and stamp_matches(files.get(duel_path(owner)), blob)]
        for owner in taken:
            out.duel_files[owner] = segment.duel_files[owner]
        if len(taken) == len(segment.duel_files):  # every file as the segment has it: no copy
            out.tables += segment.tables
        elif taken:
            wanted = pa.array(taken, type=pa.string())
            out.tables += [t.filter(pc.is_in(t[OWNER], value_set=wanted)) for t in segment.tables]
    out.tables = [t for t in out.tables if t.num_rows]
    return out


def duel_tables(segment: Segment) -> list[pa.Table]:
    """The segment's rows as duel_files.read_table gives a file's (without the owner)."""
    return [t.drop_columns([OWNER]) for t in segment.tables]


def merged_segment(existing: list[str], written: Segment, files_after: dict[str, str],
                   read: Callable[[str], bytes | Path]) -> tuple[str, Segment, list[str]] | None:
    """What a write adds to the index: (the path of a new segment, the segment, the paths
    of segments it replaces), None when it adds nothing. The new segment is the written
    one merged with the newest existing ones (`existing`, oldest first; `read(path)`
    gives their bytes or their file) while they hold no more entries than what is being
    merged, keeping the entries that describe `files_after` (the files, path -> version,
    as the write leaves them)."""
    if not written.entries():
        return None
    existing, merged, total, deletes = list(existing), [written], written.entries(), []
    while existing and _entries_of(existing[-1]) <= total:
        path = existing.pop()
        merged.insert(0, read_segment(read(path)))
        total += _entries_of(path)
        deletes.append(path)
    segment = current(merged, files_after)
    sequence = max((_sequence_of(p) for p in [*existing, *deletes]), default=0) + 1
    return f"{INDEX_DIR}/{sequence:08d}-{segment.entries()}.zip", segment, deletes


def index_changes(existing: list[str], written: Segment, files_after: dict[str, str],
                  read: Callable[[str], bytes]) -> tuple[dict[str, bytes], list[str]]:
    """What a write adds to a Hub repo's index (path -> bytes) and deletes (`merged_segment`)."""
    merged = merged_segment(existing, written, files_after, read)
    if merged is None:
        return {}, []
    path, segment, deletes = merged
    return {path: segment_bytes(segment)}, deletes
