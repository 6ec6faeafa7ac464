"""A model's arrays file (`.cache/<id>.npz` locally, `arrays/<id>.npz` in a Hub repo): its
per-task summaries and references with a JSON `info` (`encoded_with_info`), read back as a
memory map of the uncompressed zip members (`decode_cached`, `model_from_info`): a load
keeps only what a duel touches in memory (`LAZY_MODELS` models' summaries at most)."""
from __future__ import annotations

import functools
import io
import json
import math
import mmap
import os
import struct
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from leaderboard.engine.tournament import ModelResults
from leaderboard.json_types import JSONObject
from leaderboard.storage import model_index
from leaderboard.storage.store import PublishedModel
from leaderboard.submission.alignment import TaskReference

CACHE_VERSION = 3  # 2: arrays concatenated over tasks; 3: word counts of perplexity tasks
READABLE_CACHE_VERSIONS = (1, 2, 3)  # 1 and 2 have no word counts (Leaderboard.references reads them from the file)
LAZY_MODELS = 128  # models whose summaries stay in memory once read (a pre-submission reads 50)


def encoded_with_info(model: PublishedModel, stamp: object) -> tuple[JSONObject, bytes]:
    """The model's arrays as .npz bytes, with their info (the file's small part: metadata,
    aggregates, array layout; `model_from_info` makes the model of it). `stamp`
    identifies the data file they came from. Each kind of array is stored concatenated
    over the tasks (the info says where each task's part ends): a zip with 4 members
    opens far faster than one with 3 per task."""
    summaries = {t: np.asarray(s, dtype=float) for t, s in model.results.summaries.items()}
    refs: dict[str, JSONObject] = {}
    parts: dict[str, list[np.ndarray]] = {"doc_ids": [], "gold": [], "words": []}
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
             doc_ids=_joined(parts["doc_ids"]), gold=_joined(parts["gold"]), words=_joined(parts["words"]))
    return info, buffer.getvalue()


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.empty(0)


def decode_cached(path: str | Path, submission_id: str, is_current: Callable[[object], bool]) -> PublishedModel | None:
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
        file = (os.fspath(path), stat[0], stat[1])  # file_stat's [size, mtime_ns]
        return model_from_info(submission_id, info, lambda: file)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def model_from_info(submission_id: str, info: JSONObject, file: Callable[[], tuple[str, int, int]]) -> PublishedModel:
    """The model an `encoded_with_info` file's info describes; its arrays are mapped from
    the file `file()` names (path, size, mtime_ns) when a duel first needs them: a Hub
    replica downloads the file then (hub.py)."""
    shapes = info["summary_shapes"] if info["version"] >= 2 else None  # version 1: a member per task
    results = ModelResults(info["aggregates"], _Summaries(file, info["aggregates"], shapes))
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
    joined: dict[str, np.ndarray] = {kind: members[kind] for kind in ("summaries", "doc_ids", "gold", "words")
                                     if kind in members}
    arrays: dict[str, np.ndarray] = {}
    start = dict.fromkeys(joined, 0)

    def take(kind: str, name: str, shape: Sequence[int]) -> None:
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
            return f.readinto(out.reshape(-1).view(np.uint8).data) == out.nbytes
        out[:] = np.fromfile(f, dtype=dtype, count=out.size)
        return True


def _stored_member(fd: int, name: str) -> tuple[int, tuple[int, ...], np.dtype] | None:
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


def _npy_header(prefix: bytes) -> tuple[int, tuple[int, ...], np.dtype] | None:
    """(the header's length, shape, dtype) of the .npy data beginning with `prefix`, or
    None (not .npy, Fortran order, a header longer than the prefix)."""
    if not prefix.startswith(np.lib.format.MAGIC_PREFIX) or len(prefix) < 12:
        return None
    length_bytes = 2 if prefix[6] == 1 else 4
    end = 8 + length_bytes + int.from_bytes(prefix[8:8 + length_bytes], "little")
    return _parsed_npy_header(prefix[:end]) if end <= len(prefix) else None


@functools.lru_cache(maxsize=256)
def _parsed_npy_header(header: bytes) -> tuple[int, tuple[int, ...], np.dtype] | None:
    """numpy's parse of an .npy header (a Python literal: ~100 us), kept: every model's
    summaries member has the same header."""
    f = io.BytesIO(header)
    read_header = _NPY_HEADERS.get(np.lib.format.read_magic(f))
    if read_header is None:
        return None
    shape, fortran_order, dtype = read_header(f)
    return None if fortran_order or dtype.hasobject else (len(header), shape, dtype)


class _Summaries(Mapping[str, np.ndarray]):
    """A cache file's per-task summaries, read when a duel needs them."""

    def __init__(self, file: Callable[[], tuple[str, int, int]], task_ids: Iterable[str],
                 summary_shapes: Mapping[str, list[int]] | None):
        self._file, self._task_ids = file, list(task_ids)  # file(): (path, size, mtime_ns)
        self._summary_shapes = summary_shapes  # per task, as the file stores them end to end (None: a member each)

    def __getitem__(self, task_id: str) -> np.ndarray:
        if task_id not in self._task_ids:
            raise KeyError(task_id)
        return np.array(_mapped_arrays(*self._file())[f"summary/{task_id}"])  # a copy: see `_mapped_arrays`

    def fetch(self) -> None:
        """Make the file readable: a Hub replica downloads it on the first call (hub.py)."""
        self._file()

    def read_joined(self, layout: list[tuple[str, int]], out: np.ndarray) -> bool:
        """Fill `out` (1-D) with the summaries of the tasks of `layout` ((task, summary
        length) pairs) end to end, in one read of the file when it stores them so (version 2
        on, those tasks in that order and of those lengths: `read_member`); False when it
        does not, or the file changed since the model was read (the caller then reads them
        task by task)."""
        return self._stored_layout == list(layout) and read_member(*self._file(), "summaries", out)

    @functools.cached_property
    def _stored_layout(self) -> list[tuple[str, int]] | None:
        """(task, summary length) as the file stores them end to end, worked out when a duel
        first reads them, not when the model is loaded (every model's at 10,000: 0.8 s of a
        load, where a pre-submission staying off the panel reads 50 models' summaries)."""
        if self._summary_shapes is None:
            return None
        return [(t, math.prod(shape)) for t, shape in self._summary_shapes.items()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._task_ids)

    def __len__(self) -> int:
        return len(self._task_ids)


class _References(Mapping[str, TaskReference]):
    """A cache file's per-task references; their arrays are read on access."""

    def __init__(self, file: Callable[[], tuple[str, int, int]], references: dict[str, JSONObject]):
        self._file, self._references = file, references  # file(): (path, size, mtime_ns)

    def __getitem__(self, task_id: str) -> TaskReference:
        r = self._references[task_id]

        def array(kind: str, present: object) -> np.ndarray | None:
            return np.array(_mapped_arrays(*self._file())[f"{kind}/{task_id}"]) if present else None  # a copy
        return TaskReference(r["n"], array("doc_ids", r["doc_ids"]), array("gold", r["n_classes"]), r["n_classes"],
                             array("words", r.get("words")))

    def __iter__(self) -> Iterator[str]:
        return iter(self._references)

    def __len__(self) -> int:
        return len(self._references)
