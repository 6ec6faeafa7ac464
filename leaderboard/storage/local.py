"""Where published results live, in the reference dataset's layout (plus two extras):

    data/<submission_id>.json            the full submission + "submission_metadata"
    duels/<submission_id>.parquet        the duels that model's publication added (duel_files.py)
    titles/<xx>.json                     {submission_id: "team/model"} of the ids whose sha256 begins
                                         with the two hex digits xx (`titles_files`): a publication
                                         rewrites one such part, not a file of every model
    submission_id_to_model_title.json    the reference layout's titles, every model's in one file:
                                         read under the parts (`stored_titles`), deleted by the next
                                         rewrite, written by `export`
    .cache/<submission_id>.npz           per-model arrays for the duel engine; rebuildable from data/
                                         (in a Hub repo: arrays/<submission_id>.npz)
    .cache/index/<seq>-<entries>.zip     the duel files' rows in a few files, kept by readers
                                         (hub_index.py; a Hub repo's: index/ at its root)
    leaderboard.parquet (+ README.md)    the public ranking snapshot, for `datasets.load_dataset`: written
                                         after a publication's commit, once its intervals are computed
    flags.json                           flagged models: reason, link, when (flags.py)
    presubmissions/<YYYY-MM-DD>.jsonl    the day's disclosed pre-submissions (presubmissions.py)
    uploads/<YYYY-MM-DD>.jsonl           the day's uploads, for the upload quota (upload_records.py)
    tournament.json                      the reference layout's duels, {A_id: {B_id: {task: {...}}}}:
                                         read as is when present; `migrate` converts it to duels/

`LocalStore` keeps it in a folder, `HubStore` (hub_store.py) in a Hugging Face dataset
repo; both have the same methods. A copy of the real dataset opens unchanged, and a
publication into it writes only its own files (it never rewrites tournament.json).
Publication is all-or-nothing and checked against the revision the duels were computed
on (`parent`): if the store moved since, `StoreConflict` is raised and nothing is written.
Locally every write goes through a journal (`LocalStore._commit`): files are staged,
then one rename of the journal commits them all, so a process killed at any moment
leaves the store without the change or, once the journal is replayed, with all of it.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import fcntl
import hashlib
import io
import json
import logging
import math
import mmap
import os
import struct
import tempfile
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from leaderboard.errors import StoreConflict, StoreFailure, UnfinishedWrite
from leaderboard.storage.strict_json import dump_json
from leaderboard.storage import duel_files, model_index
from leaderboard.storage.dataset_card import CARD_FILE, card_update
from leaderboard.storage.flags import FLAGS_FILE
from leaderboard.storage.day_files import day_path
from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR
from leaderboard.storage.upload_records import UPLOADS_DIR
from leaderboard.submission.alignment import TaskReference
from leaderboard.engine.tournament import ModelResults

log = logging.getLogger(__name__)

TOURNAMENT_FILE = "tournament.json"
CACHE_DIR = ".cache"  # per-model arrays, rebuildable from data/
DUELS_DIR = "duels"
TITLES_FILE = "submission_id_to_model_title.json"  # the reference layout's
TITLES_DIR = "titles"
TITLES_PART_DIGITS = 2  # titles/<xx>.json: the first hex digits of the id's sha256, 256 parts
SNAPSHOT_FILE = "leaderboard.parquet"
JOURNAL_FILE = ".journal.json"
CACHE_VERSION = 3  # 2: arrays concatenated over tasks; 3: word counts of perplexity tasks
READABLE_CACHE_VERSIONS = (1, 2, 3)  # 1 and 2 have no word counts (Leaderboard.references reads them from the file)
READ_THREADS = 4  # duel files read at once
INDEX_DIR = "index"  # the index segments (hub_index.py): a Hub repo's at its root, a local store's in its cache folder
INDEX_LOCK = ".lock"  # in the index's folder: held by the reader adding to it
INDEX_MIN_FILES = 64  # duel files a load reads on their own (~2 ms each) before it indexes them
LAZY_MODELS = 128  # models whose summaries stay in memory once read (a pre-submission reads 50)


@dataclass
class Publication:
    """Everything one publication writes, in one commit."""

    submission_id: str
    document: dict | bytes  # with "submission_metadata"; bytes: already as JSON (a batch holds many)
    duels: bytes  # duels/<submission_id>.parquet
    titles: dict  # every published model's; the commit writes the part of this one's (`titles_files`)
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


def titles_files(titles: dict, ids) -> dict[str, bytes]:
    """The titles parts (path -> bytes) holding the ids `ids`, each with every title of
    `titles` that belongs to it (empty when none does: the part of a removed model)."""
    parts = {titles_part(sid): {} for sid in ids}
    for sid in sorted(titles):
        part = parts.get(titles_part(sid))
        if part is not None:
            part[sid] = titles[sid]
    return {path: dump_json(part) for path, part in parts.items()}


def stored_titles(read) -> dict:
    """Every stored title: the reference layout's single file, if any, under the parts
    (newer); `read(path)` returns a file's bytes or None."""
    titles = json.loads(read(TITLES_FILE) or b"{}")
    for k in range(16 ** TITLES_PART_DIGITS):
        titles.update(json.loads(read(f"{TITLES_DIR}/{k:0{TITLES_PART_DIGITS}x}.json") or b"{}"))
    return titles


@dataclass
class BoardRewrite:
    """A rebuild, migration, removal or flag change: duel files written and deleted, the
    board files, and what happens to the reference layout's tournament.json."""

    titles: dict
    snapshot: bytes
    message: str
    duel_files: dict[str, bytes] = field(default_factory=dict)  # submission id -> Parquet bytes
    deleted_duel_files: tuple[str, ...] = ()
    legacy_tournament: dict | None = None  # written as tournament.json when not None
    drop_legacy_tournament: bool = False
    removed: str | None = None  # a submission taken off the board with its arrays
    flags: dict | None = None  # written as flags.json when not None (flags.flags_json)

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
    metadata: dict  # the file's "submission_metadata"
    results: ModelResults
    references: dict[str, TaskReference]

    @property
    def title(self) -> str:
        return f"{self.metadata.get('team_name', '?')}/{self.metadata.get('model_name', '?')}"

    @property
    def submitted(self) -> float:
        return float(self.metadata.get("submission_timestamp") or 0)


_UMASK = os.umask(0)
os.umask(_UMASK)


def _stage(path: Path, write) -> Path:
    """Write a durable temporary file beside `path` (named `.<name>.<random>.tmp`) and
    return its path. `write` takes the open binary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def write_atomically(path: Path, write) -> None:
    """Write to a temporary file beside `path` and rename it over `path`: readers see
    the old file or the new one, never a part. `write` takes the open binary file."""
    tmp = _stage(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# What to do about a write the file system refused, by its errno.
REMEDIES = {errno.ENOSPC: "the disk is full: free space on it, then try again",
            errno.EDQUOT: "the disk quota is used up: free space, then try again",
            errno.EROFS: "the store's folder is on a read-only file system: make it writable, or name a writable "
                         "copy of the store (--store, LEADERBOARD_STORE)",
            errno.EACCES: "this user may not write there: give it write permission, or run as the store's owner",
            errno.EPERM: "this user may not write there: give it write permission, or run as the store's owner"}


@contextlib.contextmanager
def refused_writes(root: Path, committed: bool = False):
    """An OSError of a write to the store at `root` as a StoreFailure that says what failed,
    what to do and that nothing was written, or (`committed`: after the commit point) an
    UnfinishedWrite that says who finishes it."""
    try:
        yield
    except OSError as e:
        # the path within the store only: the message reaches the web page's visitors
        where = Path(e.filename).relative_to(root) if e.filename and Path(e.filename).is_relative_to(root) else None
        cause = (f"writing the store{f' ({where})' if where else ''} failed: {e.strerror or e}; "
                 f"{REMEDIES.get(e.errno, 'fix that, then try again')}")
        if committed:
            raise UnfinishedWrite(f"{cause}; the change is committed, and the next command or app start that "
                                  f"opens the store finishes it: do not make it again") from None
        raise StoreFailure(f"{cause}; nothing was written") from None


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_cached(path: Path, model: PublishedModel, stamp) -> None:
    """Write the model's `encoded_with_info` file and index it: no load needs to open it."""
    info, data = encoded_with_info(model, stamp)
    write_atomically(path, lambda f: f.write(data))
    model_index.remember_info(path, model_index.file_stat(path), info)


def encoded_with_info(model: PublishedModel, stamp) -> tuple[dict, bytes]:
    """The model's arrays as .npz bytes, with their info (the file's small part: metadata,
    aggregates, array layout; `model_from_info` makes the model of it). `stamp`
    identifies the data file they came from. Each kind of array is stored concatenated
    over the tasks (the info says where each task's part ends): a zip with 4 members
    opens far faster than one with 3 per task."""
    summaries = {t: np.asarray(s, dtype=float) for t, s in model.results.summaries.items()}
    refs, parts = {}, {"doc_ids": [], "gold": [], "words": []}
    for t, r in model.references.items():
        refs[t] = {"n": r.n_samples, "doc_ids": r.doc_ids is not None, "n_classes": r.n_classes,
                   "words": r.words is not None}
        for kind in parts:
            if getattr(r, kind) is not None:
                parts[kind].append(np.asarray(getattr(r, kind)).ravel())
    info = {"version": CACHE_VERSION, "stamp": stamp, "metadata": model.metadata,
            "aggregates": model.results.aggregates, "references": refs,
            "summary_shapes": {t: list(s.shape) for t, s in summaries.items()}}
    buffer = io.BytesIO()
    np.savez(buffer, info=np.array(json.dumps(info)), summaries=_joined([s.ravel() for s in summaries.values()]),
             **{kind: _joined(arrays) for kind, arrays in parts.items()})
    return info, buffer.getvalue()


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.empty(0)


def decode_cached(path: Path, submission_id: str, is_current: Callable[[object], bool]) -> PublishedModel | None:
    """The model from an `encoded_with_info` file, or None when its stamp is not current
    (`is_current(stamp)` is false), it is of another version or unreadable. Only the
    small part is read now, from the folder's index when it has the file
    (`model_index`); summaries and reference arrays are mapped from the file when first
    used (a pre-submission needs those of 50 models, not of every published one)."""
    try:
        stat = model_index.file_stat(path)
        info = model_index.cached_info(path, stat)
        if info is None:
            with np.load(path) as z:
                info = json.loads(str(z["info"]))
            model_index.remember_info(path, stat, info)
        if info["version"] not in READABLE_CACHE_VERSIONS or not is_current(info["stamp"]):
            return None
        file = (str(path), *stat)
        return model_from_info(submission_id, info, lambda: file)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def model_from_info(submission_id: str, info: dict, file: Callable[[], tuple[str, int, int]]) -> PublishedModel:
    """The model an `encoded_with_info` file's info describes; its arrays are mapped from
    the file `file()` names (path, size, mtime_ns) when a duel first needs them: a Hub
    replica downloads the file then (hub.py)."""
    stored_layout = ([(t, math.prod(shape)) for t, shape in info["summary_shapes"].items()] if info["version"] >= 2
                     else None)  # version 1: a member per task
    results = ModelResults(info["aggregates"], _Summaries(file, info["aggregates"], stored_layout))
    return PublishedModel(submission_id, info["metadata"], results, _References(file, info["references"]))


@functools.lru_cache(maxsize=LAZY_MODELS)
def _mapped_arrays(path: str, size: int, mtime_ns: int) -> dict[str, np.ndarray]:
    """Each task's arrays of an `encoded_with_info` file, by name ("summary/<task>", ...),
    mapped from the file (`_mapped_members`): pages are read when an array is used and
    belong to the page cache, not to the process. `size` and `mtime_ns` are the file's
    when its model was read: the store replaces a cache file by renaming a new one over
    it, and a mapping made before stays the old file's. Callers hand out copies of what
    they use: a file rewritten in place (never by this program) under a mapping would
    kill the process (SIGBUS) when a mapped page is read; a copy made earlier is safe."""
    members = _mapped_members(path)
    info = json.loads(str(members.pop("info")))
    if info["version"] == 1:  # one member per task and kind (Hub repos keep such files)
        return members
    joined = {kind: members[kind] for kind in ("summaries", "doc_ids", "gold", "words") if kind in members}
    arrays, start = {}, dict.fromkeys(joined, 0)

    def take(kind: str, name: str, shape) -> None:
        size = math.prod(shape)  # np.prod costs ~10 us a call: 130 calls a file, 1,000 files
        arrays[name] = joined[kind][start[kind]:start[kind] + size].reshape(shape)
        start[kind] += size
    for t, shape in info["summary_shapes"].items():
        take("summaries", f"summary/{t}", shape)
    for t, r in info["references"].items():
        if r["doc_ids"]:
            take("doc_ids", f"doc_ids/{t}", (r["n"],))
        if r["n_classes"]:
            take("gold", f"gold/{t}", (r["n"],))
        if r.get("words"):
            take("words", f"words/{t}", (r["n"],))
    return arrays


def _mapped_members(path: str) -> dict[str, np.ndarray]:
    """The .npy members of an .npz file, each as a read-only memory map (np.load maps
    only a plain .npy file). np.savez stores members uncompressed, so each is an .npy
    file inside the zip at a known offset; `info` (a string) and any member that cannot
    be mapped are read."""
    members = {}
    with open(path, "rb") as f, zipfile.ZipFile(f) as archive:
        whole = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # one mapping for every member
        for entry in archive.infolist():
            name = entry.filename.removesuffix(".npy")
            if name != "info" and entry.compress_type == zipfile.ZIP_STORED:
                f.seek(entry.header_offset + 26)  # the local header: name and extra field lengths at 26
                name_length, extra_length = struct.unpack("<HH", f.read(4))
                f.seek(entry.header_offset + 30 + name_length + extra_length)
                read_header = _NPY_HEADERS.get(np.lib.format.read_magic(f))
                shape, fortran_order, dtype = read_header(f) if read_header else ((), False, np.dtype(object))
                if not dtype.hasobject and 0 not in shape:  # read-only, as the mapping is
                    members[name] = np.frombuffer(whole, dtype=dtype, count=math.prod(shape), offset=f.tell()).reshape(
                        shape, order="F" if fortran_order else "C")
                    continue
            with archive.open(entry) as member:
                members[name] = np.lib.format.read_array(member)
    return members


_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
# A zip member's local header (PKWARE's APPNOTE 4.3.7): signature, version needed, flags,
# method, time, date, crc-32, compressed size, size, name length, extra field length.
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_ZIP64_EXTRA = 0x0001


def read_member(path: str, size: int, mtime_ns: int, name: str, out: np.ndarray) -> bool:
    """Fill `out` with the array `name` of an .npz file (np.savez's, members stored
    uncompressed), read straight into it: no zip directory parsed, no mapping (at 10,000
    models, parsing each file's zip directory took longer than reading the arrays). False,
    `out` untouched, when the file is not the one of `size` and `mtime_ns` (replaced since),
    holds no such member stored so, or its size differs from `out`'s."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        same_file = (st.st_size, st.st_mtime_ns) == (size, mtime_ns)
        located = _stored_member(f.fileno(), f"{name}.npy") if same_file else None
        if located is None or math.prod(located[1]) != out.size or len(located[1]) > 1:
            return False
        offset, _, dtype = located
        f.seek(offset)
        if dtype == out.dtype and out.flags.c_contiguous:
            return f.readinto(out.reshape(-1).view(np.uint8)) == out.nbytes
        out[:] = np.fromfile(f, dtype=dtype, count=out.size)
        return True


def _stored_member(fd: int, name: str) -> tuple[int, tuple, np.dtype] | None:
    """(where its data begins, shape, dtype) of the .npy member `name` of a zip file,
    found by walking the members' local headers from the start; None when the walk meets
    anything it does not expect (a compressed member, sizes written after the data)."""
    at = 0
    while True:
        header = os.pread(fd, _LOCAL_HEADER.size, at)
        if len(header) < _LOCAL_HEADER.size:
            return None
        signature, _, flags, method, _, _, _, stored_size, _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != b"PK\x03\x04" or flags & 0x08:
            return None
        tail = os.pread(fd, name_length + extra_length, at + _LOCAL_HEADER.size)
        data = at + _LOCAL_HEADER.size + name_length + extra_length
        if tail[:name_length] == name.encode():
            if method != zipfile.ZIP_STORED:
                return None
            npy = _npy_header(os.pread(fd, _NPY_PREFIX, data))
            if npy is None:
                return None
            header_length, shape, dtype = npy
            return data + header_length, shape, dtype
        if stored_size == 0xFFFFFFFF:
            stored_size = _zip64_stored_size(tail[name_length:], header)
            if stored_size is None:
                return None
        at = data + stored_size


def _zip64_stored_size(extra: bytes, header: bytes) -> int | None:
    """The compressed size from a local header's zip64 extra field (APPNOTE 4.5.3: the
    size, then the compressed size, each present only when the header's is 0xFFFFFFFF)."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        if kind == _ZIP64_EXTRA:
            size_in_extra = _LOCAL_HEADER.unpack(header)[8] == 0xFFFFFFFF
            field = at + 4 + (8 if size_in_extra else 0)
            return struct.unpack_from("<Q", extra, field)[0] if field + 8 <= at + 4 + length else None
        at += 4 + length
    return None


_NPY_PREFIX = 4096  # bytes read to find an .npy header (np.savez's are 128)


def _npy_header(prefix: bytes) -> tuple[int, tuple, np.dtype] | None:
    """(the header's length, shape, dtype) of the .npy data beginning with `prefix`, or
    None (not .npy, Fortran order, a header longer than the prefix)."""
    if not prefix.startswith(np.lib.format.MAGIC_PREFIX) or len(prefix) < 12:
        return None
    length_bytes = 2 if prefix[6] == 1 else 4
    end = 8 + length_bytes + int.from_bytes(prefix[8:8 + length_bytes], "little")
    return _parsed_npy_header(prefix[:end]) if end <= len(prefix) else None


@functools.lru_cache(maxsize=256)
def _parsed_npy_header(header: bytes) -> tuple[int, tuple, np.dtype] | None:
    """numpy's parse of an .npy header (a Python literal: ~100 us), kept: every model's
    summaries member has the same header."""
    f = io.BytesIO(header)
    read_header = _NPY_HEADERS.get(np.lib.format.read_magic(f))
    if read_header is None:
        return None
    shape, fortran_order, dtype = read_header(f)
    return None if fortran_order or dtype.hasobject else (len(header), shape, dtype)


class _Summaries(Mapping):
    """A cache file's per-task summaries, read when a duel needs them."""

    def __init__(self, file: Callable[[], tuple[str, int, int]], task_ids, stored_layout: list[tuple[str, int]] | None):
        self._file, self._task_ids = file, list(task_ids)  # file(): (path, size, mtime_ns)
        self._stored_layout = stored_layout  # (task, summary length) as the file stores them end to end

    def __getitem__(self, task_id: str) -> np.ndarray:
        if task_id not in self._task_ids:
            raise KeyError(task_id)
        return np.array(_mapped_arrays(*self._file())[f"summary/{task_id}"])  # a copy: see `_mapped_arrays`

    def read_joined(self, layout: list[tuple[str, int]], out: np.ndarray) -> bool:
        """Fill `out` (1-D) with the summaries of the tasks of `layout` ((task, summary
        length) pairs) end to end, in one read of the file when it stores them so (version 2
        on, those tasks in that order and of those lengths: `read_member`); False when it
        does not, or the file changed since the model was read (the caller then reads them
        task by task)."""
        return self._stored_layout == list(layout) and read_member(*self._file(), "summaries", out)

    def __iter__(self):
        return iter(self._task_ids)

    def __len__(self) -> int:
        return len(self._task_ids)


class _References(Mapping):
    """A cache file's per-task references; their arrays are read on access."""

    def __init__(self, file: Callable[[], tuple[str, int, int]], references: dict):
        self._file, self._references = file, references  # file(): (path, size, mtime_ns)

    def __getitem__(self, task_id: str) -> TaskReference:
        r = self._references[task_id]

        def array(kind: str, present) -> np.ndarray | None:
            return np.array(_mapped_arrays(*self._file())[f"{kind}/{task_id}"]) if present else None  # a copy
        return TaskReference(r["n"], array("doc_ids", r["doc_ids"]), array("gold", r["n_classes"]), r["n_classes"],
                             array("words", r.get("words")))

    def __iter__(self):
        return iter(self._references)

    def __len__(self) -> int:
        return len(self._references)


class LocalStore:
    def __init__(self, root: str | Path, benchmark_name: str | None = None):
        """`benchmark_name`: the dataset card's title (dataset_card.py), as a HubStore's."""
        # Absolute from the start: staged files are named by absolute paths (mkstemp), and
        # the journal records them relative to the root.
        self.root = Path(root).resolve()
        self.benchmark_name = benchmark_name
        self.data_dir = self.root / "data"
        self.cache_dir = self.root / CACHE_DIR
        self._held = threading.local()  # this thread's lock on the store, if any
        self.recovered: list[str] = []  # what recovery found of interrupted writes, and did with it

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r})"

    def exists(self) -> bool:
        return self.data_dir.is_dir()

    # --- reading -----------------------------------------------------------------------

    def submission_ids(self) -> list[str]:
        if not self.data_dir.is_dir():
            return []
        return sorted(p.stem for p in self.data_dir.glob("*.json") if not p.name.startswith("."))

    def read_document(self, submission_id: str) -> bytes:
        return (self.data_dir / f"{submission_id}.json").read_bytes()

    def read_tournament(self) -> dict:
        """The reference layout's duels (tournament.json), {} when there is none."""
        path = self.root / TOURNAMENT_FILE
        return json.loads(path.read_bytes()) if path.exists() else {}

    def duel_file_ids(self) -> list[str]:
        folder = self.root / DUELS_DIR
        return sorted(p.stem for p in folder.glob("*.parquet") if not p.name.startswith(".")) if folder.is_dir() else []

    def read_duel_tables(self) -> tuple[list, list[str]]:
        """Every duel file's rows as pyarrow tables, and a problem line per unreadable file.

        The rows come from the index in the cache folder (`.cache/index/<seq>-<entries>.zip`,
        the segments of `hub_index`, rows as Arrow IPC: read without decoding), whose entries
        are used only while their file has the version (size, time, inode) they were made
        from, and from the files it lacks, read on their own and then, once they are at least
        INDEX_MIN_FILES, added to it: like the model index, it is kept by readers, so a store
        written before it, or copied, is read file by file once. Call under
        lock(shared=True): no writer changes a file meanwhile."""
        from leaderboard.storage import hub_index
        versions = self._duel_file_versions()
        segments, broken = [], []
        for path in hub_index.segment_paths(self._index_files()):
            try:
                segments.append(hub_index.read_segment(self.cache_dir / path))
            except OSError:  # merged away by another reader meanwhile: its files are read
                continue
            except ValueError:  # not a segment (written by hand?): its files are read, and it is deleted
                broken.append(path)
        index = hub_index.current(segments, versions)
        del segments

        def read(sid: str):
            try:
                return sid, duel_files.read_table(self.root / hub_index.duel_path(sid))
            except ValueError as e:
                return sid, f"{DUELS_DIR}/{sid}.parquet is skipped: {e}"
        owners = sorted(path[len(DUELS_DIR) + 1:-len(".parquet")] for path in versions)
        unindexed = [sid for sid in owners if sid not in index.duel_files]
        with ThreadPoolExecutor(READ_THREADS) as pool:  # Parquet decoding releases the GIL
            results = list(pool.map(read, unindexed))
        tables = {sid: r for sid, r in results if not isinstance(r, str)}
        if len(tables) >= INDEX_MIN_FILES:
            self._add_to_index({sid: versions[hub_index.duel_path(sid)] for sid in tables}, tables, versions, broken)
        return hub_index.duel_tables(index) + list(tables.values()), [r for _, r in results if isinstance(r, str)]

    def _duel_file_versions(self) -> dict[str, str]:
        """Each duel file's path with its version, "<size>-<mtime_ns>-<inode>": a file is
        replaced by renaming a new one over it, which changes all three."""
        folder = self.root / DUELS_DIR
        if not folder.is_dir():
            return {}
        versions = {}
        for entry in os.scandir(folder):
            if entry.name.endswith(".parquet") and not entry.name.startswith("."):
                st = entry.stat()
                versions[f"{DUELS_DIR}/{entry.name}"] = f"{st.st_size}-{st.st_mtime_ns}-{st.st_ino}"
        return versions

    def _index_files(self) -> list[str]:
        """The files of the cache folder's index, as paths relative to the cache folder."""
        folder = self.cache_dir / INDEX_DIR
        return [f"{INDEX_DIR}/{name}" for name in os.listdir(folder)] if folder.is_dir() else []

    def _add_to_index(self, versions_read: dict[str, str], tables: dict, versions: dict, broken: list[str]) -> None:
        """Add the duel files read on their own (owner -> version read, owner -> table) to
        the index, merged as `hub_index.merged_segment` says, and delete the `broken`
        segments; skipped while another reader is at it, and when the store cannot be
        written (only speed is lost)."""
        from leaderboard.storage import hub_index
        folder = self.cache_dir / INDEX_DIR
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / INDEX_LOCK, "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return
                for path in broken:
                    (self.cache_dir / path).unlink(missing_ok=True)
                written = hub_index.Segment(duel_files=versions_read,
                                            tables=[hub_index.owned_rows(sid, t) for sid, t in tables.items()])
                merged = hub_index.merged_segment(hub_index.segment_paths(self._index_files()), written, versions,
                                                  lambda path: self.cache_dir / path)
                if merged is None:
                    return
                path, segment, replaced = merged
                write_atomically(self.cache_dir / path,
                                 lambda f: hub_index.write_segment(segment, f, hub_index.ROWS_ARROW))
                for old in replaced:
                    (self.cache_dir / old).unlink(missing_ok=True)
        except (OSError, ValueError) as e:
            log.warning("the duel files' index in %s was not updated: %s", self.cache_dir, e)

    def read_flags(self) -> bytes | None:
        """flags.json, None when there is none."""
        path = self.root / FLAGS_FILE
        return path.read_bytes() if path.exists() else None

    def read_snapshot(self) -> bytes | None:
        """leaderboard.parquet, None when there is none or a submission, duel or flags file
        is newer than it: changed since (by hand, or by an older version). Every write of the
        board stages the snapshot last in its commit, and a rename keeps a file's time."""
        try:
            written = (self.root / SNAPSHOT_FILE).stat().st_mtime_ns
            files = [*os.scandir(self.data_dir), *os.scandir(self.root / DUELS_DIR)]
            flags = self.root / FLAGS_FILE
            newest = max([f.stat().st_mtime_ns for f in files] + ([flags.stat().st_mtime_ns] if flags.exists() else []),
                         default=0)
            if newest > written:
                return None
            return (self.root / SNAPSHOT_FILE).read_bytes()
        except OSError:
            return None

    def read_snapshot_file(self) -> bytes | None:
        path = self.root / SNAPSHOT_FILE
        return path.read_bytes() if path.exists() else None

    def record_days(self, folder: str) -> dict[str, tuple[int, int]]:
        """The days with records in `folder` (day_files.py), each with its file's version (size, time)."""
        if not (self.root / folder).is_dir():
            return {}
        return {e.name.removesuffix(".jsonl"): (e.stat().st_size, e.stat().st_mtime_ns)
                for e in os.scandir(self.root / folder) if e.name.endswith(".jsonl") and not e.name.startswith(".")}

    def read_records(self, folder: str, day: str) -> bytes:
        return (self.root / day_path(folder, day)).read_bytes()

    def read_titles(self) -> dict:
        """{submission_id: title} as stored (`stored_titles`)."""
        return stored_titles(lambda path: (self.root / path).read_bytes() if (self.root / path).exists() else None)

    def _changed_paths(self) -> list[Path]:
        return [self.root / TOURNAMENT_FILE, self.root / DUELS_DIR, self.data_dir, self.root / FLAGS_FILE]

    def revision(self, fresh: bool = False) -> str:
        """An opaque string that changes whenever a publication, removal or rebuild lands
        (always read afresh): a hash of the submission ids and of the times of the folders
        whose files change, and of tournament.json."""
        state = (tuple(self.submission_ids()), tuple(p.stat().st_mtime_ns if p.exists() else 0
                                                      for p in self._changed_paths()))
        return hashlib.sha256(repr(state).encode()).hexdigest()

    def updated_at(self) -> float:
        """When the board last changed (epoch seconds)."""
        return max((p.stat().st_mtime for p in self._changed_paths() if p.exists()), default=0.0)

    def _stamp(self, submission_id: str, data: bytes | None = None) -> list:
        """[size, mtime_ns, sha256] of the submission file (its bytes `data`, when the
        caller has them) that a cache entry comes from."""
        path = self.data_dir / f"{submission_id}.json"
        st = path.stat()
        return [st.st_size, st.st_mtime_ns, hashlib.sha256(path.read_bytes() if data is None else data).hexdigest()]

    # --- writing -----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, shared: bool = False):
        """Exclusive across processes (the app and the command line) while writing;
        shared while reading, so a reader never sees half of a write being applied.
        Re-entrant within a thread (a writer reloads under its own exclusive lock)."""
        held = getattr(self._held, "mode", None)
        if held == "exclusive" or (held == "shared" and shared) or (shared and not self.root.is_dir()):
            yield
            return
        if shared and self._needs_recovery():
            with self.lock():  # taking the exclusive lock recovers
                pass
        with self._lock_file(shared) as f:
            if f is not None:
                fcntl.flock(f, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            self._held.mode = "shared" if shared else "exclusive"
            try:
                if not shared:
                    with refused_writes(self.root):
                        self._recover()
                yield
            finally:
                self._held.mode = None
                if f is not None:
                    fcntl.flock(f, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def _lock_file(self, shared: bool):
        """The open lock file. A reader of a folder it cannot write (read-only, another
        user's) opens it for reading (flock needs no more), or, when it has none, reads
        without it: no writer has ever written the store. A writer's failure is a
        StoreFailure (nothing written)."""
        try:
            with refused_writes(self.root):
                self.root.mkdir(parents=True, exist_ok=True)
                f = open(self.root / ".lock", "a")
        except StoreFailure:
            if not shared:
                raise
            if not (self.root / ".lock").exists():
                yield None
                return
            f = open(self.root / ".lock")
        with f:
            yield f

    def _needs_recovery(self) -> bool:
        """Whether a killed write left a journal to replay or temporaries to delete."""
        return (self.root / JOURNAL_FILE).exists() or any(self._leftovers())

    def _leftovers(self):
        for folder in (self.root, self.data_dir, self.cache_dir, self.cache_dir / INDEX_DIR, self.root / DUELS_DIR,
                       self.root / TITLES_DIR, self.root / PRESUBMISSIONS_DIR, self.root / UPLOADS_DIR):
            if folder.is_dir():
                yield from folder.glob(".*.tmp")

    def _recover(self) -> None:
        """Under the exclusive lock: replay a committed journal, then delete temporaries
        (no writer is staging any while we hold the lock)."""
        if (self.root / JOURNAL_FILE).exists():
            self._apply_journal()
            self.recovered.append(f"{JOURNAL_FILE}: a write interrupted after its commit point was finished")
        for leftover in self._leftovers():
            leftover.unlink(missing_ok=True)
            self.recovered.append(f"{leftover.relative_to(self.root)}: a temporary file of an interrupted write "
                                  f"was deleted")

    def _commit(self, writes: dict[str, bytes], deletes: tuple[str, ...] = ()) -> None:
        """Write files (path relative to the root -> bytes) and delete files, all or none,
        whenever the process dies. Each file is staged as a temporary; then the journal
        naming them is renamed into place: the commit point. Applying the journal is
        idempotent, so a write killed after the commit point is finished by `_recover`,
        and one killed before it leaves only temporaries, which `_recover` deletes.
        A write of the snapshot brings the dataset card it needs (`_card`). Call under lock()."""
        staged = {}
        if SNAPSHOT_FILE in writes:
            writes = {**{path: data for path, data in writes.items() if path != SNAPSHOT_FILE}, **self._card(),
                      SNAPSHOT_FILE: writes[SNAPSHOT_FILE]}  # the snapshot still staged last: see read_snapshot
        try:
            with refused_writes(self.root):
                for relative, data in writes.items():
                    staged[relative] = str(_stage(self.root / relative,
                                                  lambda f, d=data: f.write(d)).relative_to(self.root))
                journal = dump_json({"writes": staged, "deletes": list(deletes)})
                write_atomically(self.root / JOURNAL_FILE, lambda f: f.write(journal))
        except BaseException:
            for tmp in staged.values():
                (self.root / tmp).unlink(missing_ok=True)
            raise
        # committed: what fails now is finished by the next process that locks the store
        with refused_writes(self.root, committed=True):
            _fsync_folder(self.root)
            self._apply_journal()

    def _apply_journal(self) -> None:
        journal = json.loads((self.root / JOURNAL_FILE).read_bytes())
        for relative, tmp in journal["writes"].items():
            if (self.root / tmp).exists():
                os.replace(self.root / tmp, self.root / relative)
        for relative in journal["deletes"]:
            (self.root / relative).unlink(missing_ok=True)
        for folder in {(self.root / p).parent for p in [*journal["writes"], *journal["deletes"]]}:
            if folder.is_dir():
                _fsync_folder(folder)
        (self.root / JOURNAL_FILE).unlink()

    def _check_parent(self, parent) -> None:
        if parent is not None and self.revision() != parent:
            raise StoreConflict(f"{self.root} changed since revision {parent}")

    def publish(self, publication: Publication, parent: str | None = None) -> str:
        """The submission file, its duels, titles and snapshot in one commit. Call under
        lock(). Returns the new revision."""
        return self.publish_all([publication], parent)

    def publish_all(self, publications: list[Publication], parent: str | None = None) -> str:
        """Several publications in one commit, in time order (`publication_files`). Call
        under lock(). Returns the new revision."""
        self._check_parent(parent)
        writes = publication_files(publications)
        self._commit(writes)
        for p in publications:
            self.save_cached(p.model, self._stamp(p.submission_id, writes[f"data/{p.submission_id}.json"]))
        return self.revision()

    def rewrite(self, change: "BoardRewrite", parent: str | None = None) -> str:
        """A rebuild, migration, removal or flag change, in one commit. Call under lock().
        Returns the new revision."""
        self._check_parent(parent)
        writes, deletes = change.files(CACHE_DIR)
        self._commit(writes, deletes=tuple(deletes))
        return self.revision()

    def write_snapshot(self, snapshot: bytes, parent: str | None = None) -> str:
        """One file replaced by a rename (after the dataset card it needs, if any): no
        journal needed, and the revision (which follows the submissions, duels and flags) stays."""
        with self.lock(), refused_writes(self.root):
            self._check_parent(parent)
            for path, card in self._card().items():
                write_atomically(self.root / path, lambda f, data=card: f.write(data))
            write_atomically(self.root / SNAPSHOT_FILE, lambda f: f.write(snapshot))
        return self.revision()

    def _card(self) -> dict[str, bytes]:
        """{README.md: its bytes} when the folder's card does not yet make `load_dataset` read
        the snapshot (none, or the maintainers' own without the `configs`), else {}."""
        path = self.root / CARD_FILE
        card = card_update(path.read_bytes() if path.exists() else None, self.benchmark_name)
        return {} if card is None else {CARD_FILE: card}

    def append_records(self, folder: str, day: str, lines: bytes, what: str) -> None:
        """Append `lines` to the day's file in `folder`, in one journaled commit (the board's
        files and its revision do not change)."""
        with self.lock(), refused_writes(self.root):
            path = self.root / day_path(folder, day)
            self._commit({day_path(folder, day): (path.read_bytes() if path.exists() else b"") + lines})

    # --- the per-model cache -------------------------------------------------------------

    def load_cached(self, submission_id: str) -> PublishedModel | None:
        """The cached arrays when they came from the current file: by size and time, or,
        when only the time differs (a store copied with `cp -r`), by content; such an
        entry is stamped again, so the file is hashed once, not at every start. Entries
        stamped before content stamps existed ([size, time]) get one on their next hit."""
        path = self.cache_dir / f"{submission_id}.npz"
        try:
            st = (self.data_dir / f"{submission_id}.json").stat()
        except OSError:
            return None
        new_stamp = []  # the file's stamp, computed (hashing the file) only when the entry needs a new one

        def is_current(stamp) -> bool:
            if not isinstance(stamp, list) or len(stamp) < 2 or stamp[0] != st.st_size:
                return False
            if stamp[1] == st.st_mtime_ns and len(stamp) == 3:
                return True
            new_stamp.append(self._stamp(submission_id))
            # same time: an entry from before content stamps; another time: the content decides
            return stamp[1] == st.st_mtime_ns or (len(stamp) == 3 and stamp[2] == new_stamp[0][2])
        model = decode_cached(path, submission_id, is_current)  # None when there is no such file
        if model is not None and new_stamp:
            self.save_cached(model, new_stamp[0])  # hashed once, not at every start
        return model

    def save_cached(self, model: PublishedModel, stamp: list | None = None) -> None:
        """Keep the model's arrays in the cache folder; one that cannot be written (full,
        read-only) costs only speed: the next start parses the submission file again."""
        try:
            write_cached(self.cache_dir / f"{model.submission_id}.npz", model, stamp or self._stamp(model.submission_id))
        except OSError as e:
            log.warning("keeping the arrays of %s in %s failed (%s)", model.submission_id, self.cache_dir, e)
