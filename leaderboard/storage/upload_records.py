"""The upload quota's records: every upload the web app admits is recorded in the store, so
the quota (app/limits.py's UploadWindow) survives a restart and is shared by the replicas of
one board, as the pre-submission quota is.

    uploads/<YYYY-MM-DD>.jsonl    one JSON object per line, the UTC day's uploads (day_files.py)

A record is operational metadata, apart from the board's data: who (the signed-in account,
or a hash of the client address: presubmissions.requester_key), when (UTC) and how many
bytes. It is made when the upload is admitted, before the file is read, so a file refused
afterwards has one too; the file, its name and its content are never recorded.

Records are written by a background thread (`UploadLog.write_in_background`), never on
the request's path: at once into a local store, batched into one commit at most every
`flush_seconds` into a Hub repo. Until written they are counted from memory.
"""
from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from leaderboard.errors import StoreFailure
from leaderboard.storage.day_files import DayLog, day_of, utc_text
from leaderboard.strict_json import dump_json

log = logging.getLogger(__name__)

UPLOADS_DIR = "uploads"


@dataclass(frozen=True)
class UploadRecord:
    at_ms: int  # epoch milliseconds, as written: a record read back equals the one made
    requester: str  # presubmissions.requester_key: "account:<name>" or "anonymous:<address hash>"
    size: int  # bytes, the request's Content-Length

    @classmethod
    def made(cls, at: float, requester: str, size: int) -> "UploadRecord":
        return cls(int(at * 1000), requester, size)

    @property
    def at(self) -> float:
        return self.at_ms / 1000

    def line(self) -> bytes:
        return dump_json({"at": utc_text(self.at), "requester": self.requester, "bytes": self.size}) + b"\n"

    @classmethod
    def from_json(cls, item: dict) -> "UploadRecord":
        """KeyError, TypeError or ValueError when `item` is not a record."""
        at = dt.datetime.fromisoformat(item["at"]).timestamp()
        return cls(round(at * 1000), str(item["requester"]), int(item["bytes"]))


class UploadLog(DayLog):
    """The upload records of one store (uploads/) and those admitted here and not yet written.
    `on_commit(parent, revision)` is called after each write that moved the store's revision
    (a Hub commit), so the board follows it without a reload."""

    def __init__(self, store, flush_seconds: float, on_commit=None):
        super().__init__(store, UPLOADS_DIR, UploadRecord, "an upload record")
        self.flush_seconds, self.on_commit = flush_seconds, on_commit
        self._unwritten: list[UploadRecord] = []
        self._waiting = threading.Event()  # set when there are records to write

    def recent(self, requester: str, seconds: float, now: float) -> list[UploadRecord]:
        """`requester`'s uploads in the last `seconds` before `now`, oldest first: those stored
        (by any replica) and those not yet written, each once."""
        with self._lock:
            unwritten = list(self._unwritten)
        mine = {r for r in self.records(now - seconds, now) + unwritten
                if r.requester == requester and r.at > now - seconds}
        return sorted(mine, key=lambda r: r.at_ms)

    def add(self, record: UploadRecord) -> None:
        """Count `record` from now on; the background writer stores it."""
        with self._lock:
            self._unwritten.append(record)
        self._waiting.set()

    def write(self) -> None:
        """Store the records not yet written, one commit per day they fall on; those that
        could not be written stay counted and are tried again next time."""
        with self._lock:
            batch = list(self._unwritten)
        by_day = defaultdict(list)
        for record in batch:
            by_day[day_of(record.at)].append(record)
        for day, records in by_day.items():
            try:
                moved = self.store.append_records(UPLOADS_DIR, day, b"".join(r.line() for r in records), "uploads")
            except (StoreFailure, OSError) as e:
                log.warning("the upload quota's records of %s were not written (kept in memory): %s", day, e)
                continue
            with self._lock:
                self._unwritten = [r for r in self._unwritten if r not in records]
            if moved is not None and self.on_commit is not None:
                self.on_commit(*moved)

    def write_in_background(self) -> threading.Thread:
        """A thread writing the records as they come, at most once every `flush_seconds`."""
        def loop():
            while True:
                self._waiting.wait()
                self._waiting.clear()
                try:
                    self.write()
                except Exception as e:  # noqa: BLE001 - the records stay counted; writing must go on
                    log.warning("writing the upload quota's records failed: %s", e)
                time.sleep(self.flush_seconds)

        thread = threading.Thread(target=loop, name="leaderboard-upload-records", daemon=True)
        thread.start()
        return thread
