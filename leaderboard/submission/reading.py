"""Reading a submission file as strict JSON, within the size bounds, before any parsing.

Python's json module accepts what JSON does not (NaN, Infinity, repeated keys, lone
surrogates, integers beyond 64 bits); each is refused here with where it is in the file.
"""
from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import re
import stat
from pathlib import Path

import orjson

from leaderboard.errors import BadInput
from leaderboard.strict_json import may_hold_long_numbers

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


class _RepeatedKeys:
    """Stands for a JSON object that repeated a key (the later value would silently win):
    located later, then refused."""

    def __init__(self, key: str):
        self.key = key


class _HugeInteger:
    """Stands for an integer beyond 64 bits (located later, then refused); a digit string too
    long to convert quickly is never converted."""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in text (half of a UTF-16 pair: no character, and not
    writable as UTF-8), as its escape."""
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found.group()):04x}"


@contextlib.contextmanager
def _collector_paused():
    """The garbage collector held off while a document is built: JSON makes no reference
    cycles, so its passes, which the parse's hundreds of thousands of new objects set off,
    would free nothing (they took half of a parse in a process holding many objects)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class _JsonReader:
    """json.loads with the JSON rules Python relaxes: NaN/Infinity and repeated keys are
    noticed while parsing (`found_problem`); integers beyond 64 bits become `_HugeInteger`
    when the file may hold one (`long_numbers`, the only case that needs the per-integer
    hook: other numbers are converted in C). A problem is then located by
    `_first_invalid_value`."""

    def __init__(self, long_numbers: bool):
        self.long_numbers = long_numbers
        self.found_problem = False

    def _object(self, pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self.found_problem = True
            seen = set()
            return _RepeatedKeys(next(k for k, _ in pairs if k in seen or seen.add(k)))
        return obj

    def _int(self, text):
        if len(text) > 18:  # could exceed 64 bits; converting a huge digit string is also slow
            if len(text) > 40 or not -2**63 <= int(text) < 2**63:
                return _HugeInteger()  # never int() a 10^6-digit string
        return int(text)

    def _constant(self, name):
        self.found_problem = True
        return float(name.replace("Infinity", "inf"))

    def loads(self, text: str):
        with _collector_paused():
            return json.loads(text, object_pairs_hook=self._object, parse_constant=self._constant,
                              parse_int=self._int if self.long_numbers else None)


def _strict_fast(data: bytes) -> object | None:
    """The document as orjson reads it (four times faster than the careful reading) when
    that is the strict reading, else None and the careful reading decides. orjson refuses
    what strict JSON refuses (NaN, infinities, lone surrogates, a byte order mark) but for
    two things: it takes the last of a repeated key, and reads an integer beyond 64 bits
    as a float (the caller sends a file that may hold one to the careful reading). A
    repeated key shows in the colons: every key is followed by one and the others are in
    strings, which orjson writes back with every colon as a colon, so a file holds more of
    them than its reading written back exactly when a key was dropped. (A colon escaped as
    \\u003a in the file is written back as a colon and could hide a dropped key: such a
    file is read carefully.)"""
    if b"\\u003" in data:
        return None
    try:
        document = orjson.loads(data)
        written_back = orjson.dumps(document)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # the latter: nested beyond what it writes
        return None
    return document if data.count(b":") == written_back.count(b":") else None


def _describe_path(path: tuple) -> str:
    """('predictions', task, 3, 'acc') -> "task <task>, sample 3 → 'acc'"."""
    names = [f"item {p}" if isinstance(p, int) else repr(p) for p in path]
    if len(path) >= 3 and path[0] == "predictions":
        names = [f"task {path[1]}, sample {path[2]}", *names[3:]]
    return " → ".join(names) or "the top level"


_STRICT_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)


def _is_strict(values: list) -> bool:
    """Whether the values hold nothing strict JSON refuses, checked in C: the encoder refuses
    NaN and infinities (allow_nan=False) and the markers (not serializable), and a lone
    surrogate in a string or a key shows in its text. False, too, for values nested too
    deeply to encode (the walk then looks inside them)."""
    try:
        return _SURROGATE.search(_STRICT_ENCODER.encode(values)) is None
    except (ValueError, TypeError, RecursionError):
        return False


def _first_not_strict(values: list, start: int, known: bool) -> int | None:
    """The first index from `start` whose value `_is_strict` does not clear (None: there is
    none), by halving: about as much is encoded as precedes that value. known: values[start:]
    are taken not to be strict (not encoded whole again; a wrong guess costs a look inside
    one value that is)."""
    lo, hi = start, len(values)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _is_strict(values[lo:mid]):
            lo = mid
        else:
            hi, known = mid, True
    return lo if lo < hi and (known or not _is_strict(values[lo:hi])) else None


def _problem_at(path: tuple, value) -> str | None:
    """What breaks strict JSON rules in `value` itself (not in the values it holds)."""
    if isinstance(value, _RepeatedKeys):
        return f"{_describe_path(path)} repeats the key {value.key!r} (keys must be unique)"
    if isinstance(value, float) and not math.isfinite(value):
        return (f"{_describe_path(path)} is NaN or Infinity, or a number too large for a float "
                f"(JSON has no NaN or Infinity: write null or a finite number)")
    if isinstance(value, _HugeInteger) or (isinstance(value, int) and not -2**63 <= value < 2**63):
        return f"{_describe_path(path)} is an integer beyond 64 bits"
    if isinstance(value, str) and _lone_surrogate(value):
        return (f"{_describe_path(path)} holds a lone surrogate {_lone_surrogate(value)} (half of a UTF-16 pair, "
                f"not a character: write the character itself)")
    if isinstance(value, dict) and _lone_surrogate("".join(value)):
        bad_key = next(k for k in value if _lone_surrogate(k))
        return (f"{_describe_path(path)} has a key with a lone surrogate {_lone_surrogate(bad_key)} (half of a "
                f"UTF-16 pair, not a character: write the character itself)")
    return None


def _first_invalid_value(document) -> str | None:
    """Where the document breaks strict JSON rules: the first such value in the file's order
    (an object's own problems before those of the values it holds), walking without
    recursion and passing over every run of values `_is_strict` clears, so that the walk
    goes straight down to the value (a document without one costs about one encoding)."""
    stack = [((), [None], [document], 0, True)]  # (path, keys, values, first index left, known)
    while stack:
        path, keys, values, start, known = stack.pop()
        i = _first_not_strict(values, start, known)
        if i is None:
            continue
        stack.append((path, keys, values, i + 1, False))
        value = values[i]
        if keys[i] is not None:
            path = (*path, keys[i])
        problem = _problem_at(path, value)
        if problem:
            return problem
        if isinstance(value, dict):
            stack.append((path, list(value), list(value.values()), 0, True))
        elif isinstance(value, list):
            stack.append((path, range(len(value)), value, 0, True))
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


def _read_carefully(reader: _JsonReader, text: str) -> object:
    """The document as Python's json reads it, every departure from strict JSON refused
    with where it is."""
    try:
        document = reader.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"the file is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise BadInput("the file nests arrays or objects too deeply (a submission needs 4 levels)") from None
    # a surrogate pair is one character, a lone half is located with the rest
    if reader.found_problem or reader.long_numbers or _SURROGATE_ESCAPE.search(text):
        problem = _first_invalid_value(document)
        if problem:
            raise BadInput(f"the file is not strict JSON: {problem}")
    return document


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
    reader = _JsonReader(long_numbers=may_hold_long_numbers(data))
    text = _decode(data)
    with _collector_paused():
        document = None if reader.long_numbers else _strict_fast(data)
    if document is None:
        document = _read_carefully(reader, text)
    if not isinstance(document, dict):
        raise BadInput("the file must hold a JSON object with 'predictions' and 'results'")
    if not isinstance(document.get("predictions"), dict):
        raise BadInput("the file has no 'predictions' object (task -> list of per-sample results)")
    if "results" in document and not isinstance(document["results"], dict):
        raise BadInput("'results' must be an object (task -> aggregate metrics)")
    return document

