"""Disclosed pre-submissions: every pre-submission made through the web app is recorded in
the store, so a model's card can show how many variants its account (or team) previewed
before publishing it and where they would have ranked (private testing and selective
disclosure, The Leaderboard Illusion, arXiv 2504.20879).

    presubmissions/<YYYY-MM-DD>.jsonl    one JSON object per line, the UTC day's records

A record holds who (the signed-in account, or "anonymous" with a hash of the client
address), when (UTC), the team the form named, the sha256 of the uploaded file and the
rank it would have had of how many models; no predictions and no scores. A record is
appended in one commit of the store (`append_records`, day_files.py: the local store's
journal, one Hub commit on top of the revision it read), so a write only rewrites its day's file.
"""
from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Iterable

from leaderboard.storage.day_files import DayLog, day_of, utc_text
from leaderboard.strict_json import dump_json

PRESUBMISSIONS_DIR = "presubmissions"
WINDOW_DAYS = 30  # a card discloses the pre-submissions of this many days before publication
DAY = 86400.0
ANONYMOUS = "anonymous"
PUBLISHER_KEY = "publisher"  # the signed-in account that published a model, in its stored metadata


def client_hash(address: str) -> str:
    """A short hash of a client address: it tells records of one address apart without
    showing the address (an IPv4 address can still be found by hashing all of them)."""
    return hashlib.sha256(f"leaderboard-client:{address}".encode()).hexdigest()[:16]


def requester_key(account: str | None, address: str) -> str:
    """Whom the quotas count: the signed-in account, else the client address (hashed)."""
    return f"account:{account}" if account else f"{ANONYMOUS}:{client_hash(address)}"


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def same_team(a: str, b: str) -> bool:
    """Team names as the board compares them (stored NFKC-normalized): ignoring case."""
    return a.casefold() == b.casefold()


@dataclass(frozen=True)
class PresubmissionRecord:
    at: float  # epoch seconds
    account: str | None  # signed in; None: anonymous
    client: str | None  # `client_hash` of the address, when anonymous
    team: str
    file_sha256: str
    rank: int  # the rank the model would have had
    of: int  # among this many models

    @property
    def requester(self) -> str:
        return f"account:{self.account}" if self.account else f"{ANONYMOUS}:{self.client}"

    def line(self) -> bytes:
        return dump_json({"at": utc_text(self.at), "requester": self.account or ANONYMOUS,
                          **({"client": self.client} if not self.account else {}), "team": self.team,
                          "file_sha256": self.file_sha256, "rank": self.rank, "of": self.of}) + b"\n"

    @classmethod
    def from_json(cls, item: dict) -> "PresubmissionRecord":
        """KeyError, TypeError or ValueError when `item` is not a record."""
        at = dt.datetime.fromisoformat(item["at"]).timestamp()
        account = None if item["requester"] == ANONYMOUS else str(item["requester"])
        return cls(at, account, None if account else str(item["client"]), str(item["team"]),
                   str(item["file_sha256"]), int(item["rank"]), int(item["of"]))


@dataclass(frozen=True)
class Disclosure:
    """A published model's pre-submissions in the WINDOW_DAYS before its publication: by
    its publisher's account, or (published without sign-in) by its team."""

    owner: str  # the account or the team
    by_account: bool
    count: int
    best: int | None = None  # the best and worst would-be ranks
    worst: int | None = None
    fewest: int | None = None  # the smallest and largest board they were ranked in
    most: int | None = None

    def ranks_text(self) -> str:
        if not self.count:
            return ""
        ranks = f"{self.best}" if self.best == self.worst else f"{self.best}–{self.worst}"
        of = f"{self.fewest}" if self.fewest == self.most else f"{self.fewest}–{self.most}"
        return f"would-be ranks {ranks} of {of}"

    def as_dict(self) -> dict:
        return {"by": self.owner, "by_account": self.by_account, "days": WINDOW_DAYS, "count": self.count,
                "best_rank": self.best, "worst_rank": self.worst, "fewest_models": self.fewest,
                "most_models": self.most}

    def cell(self) -> str:
        """The table's column: "3 (ranks 2–7)", or "0"."""
        return f"{self.count} ({self.ranks_text().removeprefix('would-be ')})" if self.count else "0"


def disclosure(records: Iterable[PresubmissionRecord], metadata: dict) -> Disclosure:
    """The Disclosure of the model with stored `metadata` among `records`."""
    published = float(metadata.get("submission_timestamp") or 0)
    account = metadata.get(PUBLISHER_KEY) or None
    team = str(metadata.get("team_name", ""))
    mine = [r for r in records if published - WINDOW_DAYS * DAY <= r.at <= published
            and (r.account == account if account else same_team(r.team, team))]
    if not mine:
        return Disclosure(account or team, bool(account), 0)
    return Disclosure(account or team, bool(account), len(mine), min(r.rank for r in mine),
                      max(r.rank for r in mine), min(r.of for r in mine), max(r.of for r in mine))


class PresubmissionLog(DayLog):
    """The pre-submission records of one store (presubmissions/)."""

    def __init__(self, store):
        super().__init__(store, PRESUBMISSIONS_DIR, PresubmissionRecord, "a pre-submission record")

    def record(self, record: PresubmissionRecord):
        """Append `record` to its day's file, in one commit; what the store's
        `append_records` returns (a StoreFailure when it could not)."""
        return self.store.append_records(PRESUBMISSIONS_DIR, day_of(record.at), record.line(), "a pre-submission")

    def disclosures(self, models: dict) -> dict[str, Disclosure]:
        """Each published model's Disclosure (submission id -> Disclosure)."""
        times = [float(m.metadata.get("submission_timestamp") or 0) for m in models.values()]
        records = self.records(min(times) - WINDOW_DAYS * DAY, max(times)) if times else []
        return {sid: disclosure(records, m.metadata) for sid, m in models.items()}

    def recent(self, requester: str, seconds: float, now: float) -> list[float]:
        """When `requester`'s records in the last `seconds` before `now` were made."""
        return [r.at for r in self.records(now - seconds, now) if r.requester == requester]
