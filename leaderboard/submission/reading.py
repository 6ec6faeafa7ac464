"""Reading a submission file as strict JSON, within the size bounds, before any parsing.

Python's json module accepts what JSON does not (NaN, Infinity, repeated keys, lone
surrogates, integers beyond 64 bits); each is refused here with where it is in the file.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

from leaderboard.errors import BadInput

# Bounds checked before any parsing work is spent. Real files are about 5 MB with
# ~100,000 samples; a file at these bounds parses in under 1 GB (bench/RESULTS.md).
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_JSON_OBJECTS = 1_000_000  # counted as "{" bytes: an upper bound on samples
MAX_JSON_VALUES = 8_000_000  # counted as "," bytes: an upper bound on numbers and strings


def _read_bytes(path: Path) -> bytes:
    """A regular file's bytes, refused before reading when it is too large; special files
    (FIFOs, devices such as /dev/zero) are refused without reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise BadInput(f"cannot read the file {path}: {e.strerror or e}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)  # before fdopen, which refuses a directory
        raise BadInput(f"{path} is not a regular file (a JSON file is expected)")
    with os.fdopen(fd, "rb") as f:
        if st.st_size > MAX_FILE_BYTES:
            raise BadInput(f"the file is {st.st_size / 2**20:.0f} MB, larger than the limit of "
                                  f"{MAX_FILE_BYTES // 2**20} MB")
        try:
            return f.read(MAX_FILE_BYTES + 1)  # one byte over: a file that grew is refused by the caller
        except OSError as e:  # e.g. /proc/self/mem: a regular file that cannot be read
            raise BadInput(f"cannot read the file {path}: {e.strerror or e}") from None


class _FlaggedDict(dict):
    """A JSON object that repeated a key (the later value would silently win)."""

    repeated: list[str]


class _HugeInteger:
    """Stands for an integer literal too long to convert (located later, then refused)."""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in text (half of a UTF-16 pair: no character, and not
    writable as UTF-8), as its escape."""
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found.group()):04x}"


class _JsonReader:
    """json.loads with the JSON rules Python relaxes: NaN/Infinity, numbers overflowing to
    infinity, integers beyond 64 bits and repeated keys are remembered while parsing, then
    located by one walk of the document (only when one was seen)."""

    def __init__(self):
        self.suspicious = False

    def _object(self, pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self.suspicious = True
            flagged = _FlaggedDict(obj)
            seen = set()
            flagged.repeated = [k for k, _ in pairs if k in seen or seen.add(k)]
            return flagged
        return obj

    def _float(self, text):
        value = float(text)
        if not math.isfinite(value):
            self.suspicious = True
        return value

    def _int(self, text):
        if len(text) > 18:  # could exceed 64 bits; converting a huge digit string is also slow
            self.suspicious = True
            if len(text) > 40:
                return _HugeInteger()  # never int() a 10^6-digit string
        return int(text)

    def _constant(self, name):
        self.suspicious = True
        return float(name.replace("Infinity", "inf"))

    def loads(self, text: str):
        if _SURROGATE_ESCAPE.search(text):  # a pair is one character, a lone half is located later
            self.suspicious = True
        return json.loads(text, object_pairs_hook=self._object, parse_float=self._float,
                          parse_int=self._int, parse_constant=self._constant)


def _describe_path(path: tuple) -> str:
    """('predictions', task, 3, 'acc') -> "task <task>, sample 3 → 'acc'"."""
    names = [f"item {p}" if isinstance(p, int) else repr(p) for p in path]
    if len(path) >= 3 and path[0] == "predictions":
        names = [f"task {path[1]}, sample {path[2]}", *names[3:]]
    return " → ".join(names) or "the top level"


def _first_invalid_value(document) -> str | None:
    """Where the document breaks strict JSON rules, walking without recursion."""
    stack = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _FlaggedDict):
            return f"{_describe_path(path)} repeats the key {value.repeated[0]!r} (keys must be unique)"
        if isinstance(value, float) and not math.isfinite(value):
            return (f"{_describe_path(path)} is NaN or Infinity, or a number too large for a float "
                    f"(JSON has no NaN or Infinity: write null or a finite number)")
        if isinstance(value, _HugeInteger) or (isinstance(value, int) and not -2**63 <= value < 2**63):
            return f"{_describe_path(path)} is an integer beyond 64 bits"
        if isinstance(value, str) and _lone_surrogate(value):
            return (f"{_describe_path(path)} holds a lone surrogate {_lone_surrogate(value)} (half of a UTF-16 pair, "
                    f"not a character: write the character itself)")
        if isinstance(value, dict):
            bad_key = next((k for k in value if _lone_surrogate(k)), None)
            if bad_key is not None:
                return (f"{_describe_path(path)} has a key with a lone surrogate {_lone_surrogate(bad_key)} (half of a "
                        f"UTF-16 pair, not a character: write the character itself)")
            stack.extend(((*path, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(value))))
    return None


def _decode(data: bytes) -> str:
    encoding = json.detect_encoding(data)
    if encoding not in ("utf-8", "utf-8-sig"):
        raise BadInput(f"the file is {encoding.upper()} encoded; save it as UTF-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise BadInput(f"the file is not UTF-8 text (byte {e.start} is not valid UTF-8); "
                              f"save it as UTF-8") from None


def read_source(source: str | Path | bytes) -> bytes:
    """The bytes of a submission file (a path) or of an upload (bytes), within the size bound."""
    data = _read_bytes(Path(source)) if isinstance(source, (str, Path)) else bytes(source)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"the file is larger than the limit of {MAX_FILE_BYTES // 2**20} MB")
    return data


def read_document(source: str | Path | bytes) -> dict:
    """The file (`read_source`) as strict JSON: an object with `predictions` (and `results`)."""
    data = read_source(source)
    # Bounds on what parsing would build, counted before any object is made.
    if data.count(b"{") > MAX_JSON_OBJECTS:
        raise BadInput(f"the file holds more than {MAX_JSON_OBJECTS:,} JSON objects (samples); "
                              f"the benchmark's tasks have far fewer")
    if data.count(b",") > MAX_JSON_VALUES:
        raise BadInput(f"the file holds more than {MAX_JSON_VALUES:,} JSON values; "
                              f"the benchmark's tasks need far fewer")
    reader = _JsonReader()
    try:
        document = reader.loads(_decode(data))
    except json.JSONDecodeError as e:
        raise BadInput(f"the file is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise BadInput("the file nests arrays or objects too deeply (a submission needs 4 levels)") from None
    if reader.suspicious:
        problem = _first_invalid_value(document)
        if problem:
            raise BadInput(f"the file is not strict JSON: {problem}")
    if not isinstance(document, dict):
        raise BadInput("the file must hold a JSON object with 'predictions' and 'results'")
    if not isinstance(document.get("predictions"), dict):
        raise BadInput("the file has no 'predictions' object (task -> list of per-sample results)")
    if "results" in document and not isinstance(document["results"], dict):
        raise BadInput("'results' must be an object (task -> aggregate metrics)")
    return document

