"""The small part of the per-model cache files, in one index per cache folder.

Each model's cache file (`.cache/<id>.npz`, a Hub store's local copy of `arrays/<id>.npz`)
opens with its `info` (metadata, aggregates, the layout of its arrays). Loading a board
used to open every one of them: about 6 ms a model, a minute at 10,000 models. The
index, `index.jsonl` in the same folder, holds the info of each file by name, size and
time, so a load reads one file and opens none. It is append-only and kept by readers: a
reader that finds a file the index lacks or describes at another size or time (a new
publication's, one rewritten, one written before the index existed) reads the file and
appends a line; a publication writes nothing more. The layout part (per task: sample
count, which arrays, shapes) is the same for nearly every model of a benchmark, so it
is kept once by its hash. A line cut short by a crash, and lines of files that changed
since, are never matched; an index that cannot be written only costs speed.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import orjson

from leaderboard.json_types import JSONObject
from leaderboard.strict_json import dump_json, orjson_may_misread

INDEX_FILE = "index.jsonl"
HEAD_BYTES = 256  # compared on each catch-up to tell a recreated index from the one read
LAYOUT_KEYS = ("references", "summary_shapes")


def _parsed(line: bytes) -> Any:
    """A line as json reads it (the index writes strict JSON: no NaN), by orjson (a load at
    10,000 models reads 32 MB of lines: 1 s by json, a fourth by orjson), but for a line
    that may hold an integer beyond 64 bits, which orjson reads as a float."""
    return json.loads(line) if orjson_may_misread(line) else orjson.loads(line)


class _FolderIndex:
    def __init__(self, folder: Path):
        self.path = folder / INDEX_FILE
        self.lock = threading.Lock()
        self._describe(None)

    def _describe(self, identity: tuple[int, int] | None) -> None:
        """Begin describing the index file `identity` (device, inode): nothing read yet."""
        self.identity = identity
        self.read_upto = 0  # bytes of that file read so far (it only grows)
        self.head = b""  # its first bytes, which an append-only file never changes
        self.entries: dict[str, JSONObject] = {}  # file name -> {"stat", "layout", "info"}
        self.layouts: dict[str, JSONObject] = {}  # hash -> layout part of an info, as the file holds them

    def _follow(self, st: os.stat_result, head: bytes) -> None:
        """Forget what was read of another file (the folder deleted and begun again): one
        at another inode, or at the same inode reused, whose first bytes `head` (as many as
        were kept of the file read) differ."""
        if (st.st_dev, st.st_ino) != self.identity or head != self.head:
            self._describe((st.st_dev, st.st_ino))

    def _catch_up(self) -> None:
        """Read the lines appended since the last read (by any process)."""
        try:
            f = open(self.path, "rb")
        except OSError:
            return
        with f:
            st = os.fstat(f.fileno())
            self._follow(st, f.read(len(self.head)))
            size = st.st_size
            if size <= self.read_upto:
                return
            f.seek(self.read_upto)
            data = f.read(size - self.read_upto)
            if not self.head:
                self.head = data[:HEAD_BYTES]
        complete = data.rfind(b"\n") + 1  # a line still being written is read next time
        for line in data[:complete].splitlines():
            try:
                entry = _parsed(line)
                if "body" in entry:
                    self.layouts[entry["layout"]] = entry["body"]
                else:
                    self.entries[entry["file"]] = entry
            except (ValueError, KeyError, TypeError):
                continue  # cut short by a crash: its file is read again and appended
        self.read_upto += complete

    def info(self, name: str, stat: list[int]) -> JSONObject | None:
        with self.lock:
            entry = self.entries.get(name)
            if entry is None or entry["stat"] != stat:
                self._catch_up()
                entry = self.entries.get(name)
            if entry is None or entry["stat"] != stat or entry["layout"] not in self.layouts:
                return None
            return {**entry["info"], **self.layouts[entry["layout"]]}

    def add(self, name: str, stat: list[int], info: JSONObject) -> None:
        layout = {k: info[k] for k in LAYOUT_KEYS if k in info}
        key = hashlib.sha256(dump_json(layout)).hexdigest()[:16]
        entry = {"file": name, "stat": stat, "layout": key,
                 "info": {k: v for k, v in info.items() if k not in LAYOUT_KEYS}}
        with self.lock:
            try:  # one write in append mode: lines of processes appending at once do not interleave
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    self._follow(os.fstat(fd), os.pread(fd, len(self.head), 0))
                    lines = [] if key in self.layouts else [{"layout": key, "body": layout}]
                    os.write(fd, b"".join(dump_json(line) + b"\n" for line in [*lines, entry]))
                finally:
                    os.close(fd)
            except OSError:
                return  # a read-only store: the next load opens the file again
            self.layouts[key] = layout
            self.entries[name] = entry


# By folder, as a string: a load asks once per model, and a Path's making and hashing cost
# more than the index's lookup (0.3 s at 10,000 models).
_indexes: dict[str, _FolderIndex] = {}
_indexes_lock = threading.Lock()


def _index_of(path: str | os.PathLike[str]) -> tuple[_FolderIndex, str]:
    """The index of the folder of the file at `path`, and the file's name."""
    folder, name = os.path.split(os.fspath(path))
    with _indexes_lock:  # made once per folder
        index = _indexes.get(folder)
        if index is None:
            index = _indexes[folder] = _FolderIndex(Path(folder))
        return index, name


def file_stat(path: str | os.PathLike[str]) -> list[int]:
    """[size, mtime_ns]: what an index entry must match (raises OSError when missing)."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


def cached_info(path: str | os.PathLike[str], stat: list[int]) -> JSONObject | None:
    """The info of the cache file at `path` (of `file_stat` `stat`), when indexed."""
    index, name = _index_of(path)
    return index.info(name, stat)


def remember_info(path: str | os.PathLike[str], stat: list[int], info: JSONObject) -> None:
    """Append the info read from the cache file at `path` (of `file_stat` `stat`)."""
    index, name = _index_of(path)
    index.add(name, stat, info)
