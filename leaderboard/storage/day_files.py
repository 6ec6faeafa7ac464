"""Records kept in a folder of the store by UTC day, one JSON object per line, apart from the
board's data: the disclosed pre-submissions (presubmissions.py) and the upload quota's
records (upload_records.py).

    <folder>/<YYYY-MM-DD>.jsonl

A store lists a folder's days with a version of each file (`record_days`), reads a day
(`read_records`) and appends lines to a day in one commit (`append_records`), so a write
only rewrites its day's file.
"""
from __future__ import annotations

import datetime as dt
import json
import threading
from typing import TYPE_CHECKING, Generic, Protocol, Self, TypeVar

from leaderboard.json_types import JSONObject

if TYPE_CHECKING:
    from leaderboard.storage.store import Store


def day_of(at: float) -> str:
    """The UTC day of epoch seconds `at`, as the records' file names it."""
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).strftime("%Y-%m-%d")


def day_path(folder: str, day: str) -> str:
    return f"{folder}/{day}.jsonl"


def days_between(start: float, end: float) -> list[str]:
    """The UTC days from the one of `start` to the one of `end`, both included."""
    first = dt.datetime.fromtimestamp(start, dt.timezone.utc).date()
    last = dt.datetime.fromtimestamp(end, dt.timezone.utc).date()
    return [(first + dt.timedelta(days=k)).isoformat() for k in range((last - first).days + 1)]


def utc_text(at: float) -> str:
    """Epoch seconds as the records write them: ISO 8601 in UTC, to the millisecond."""
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class DayRecord(Protocol):
    """A record of a day file: its time, and how a parsed line makes one."""

    @property
    def at(self) -> float: ...  # epoch seconds

    @classmethod
    def from_json(cls, item: JSONObject) -> Self: ...


Record = TypeVar("Record", bound=DayRecord)


class DayLog(Generic[Record]):
    """The records of one of the store's day folders, read by day and kept until the day's
    file changes (its version: size and time of a local file, the blob id in a Hub repo).
    `kind` makes a record of a parsed line (`from_json`: KeyError, TypeError or ValueError
    when the line is not one) and has an `at` (epoch seconds); `what` names it in problems."""

    def __init__(self, store: Store, folder: str, kind: type[Record], what: str):
        self.store, self.folder, self.kind, self.what = store, folder, kind, what
        self.problems: list[str] = []  # lines skipped, from the last read
        self._days: dict[str, tuple[object, list[Record]]] = {}
        self._lock = threading.Lock()

    def records(self, start: float, end: float) -> list[Record]:
        """The records made from `start` to `end` (epoch seconds)."""
        versions = self.store.record_days(self.folder)
        wanted = [d for d in days_between(start, end) if d in versions]
        found: list[Record] = []
        problems: list[str] = []
        for day in wanted:
            with self._lock:
                cached = self._days.get(day)
            if cached is None or cached[0] != versions[day]:
                records, day_problems = self._parse(self.store.read_records(self.folder, day),
                                                    day_path(self.folder, day))
                problems += day_problems
                cached = (versions[day], records)
                with self._lock:
                    self._days[day] = cached
            found += [r for r in cached[1] if start <= r.at <= end]
        self.problems = problems
        return found

    def _parse(self, data: bytes, name: str) -> tuple[list[Record], list[str]]:
        """A day file's records, and a problem line per line that is not one (skipped)."""
        records: list[Record] = []
        problems: list[str] = []
        for number, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(self.kind.from_json(json.loads(line)))
            except (KeyError, TypeError, ValueError, AttributeError):
                problems.append(f"{name} line {number} is not {self.what} (skipped)")
        return records, problems
