"""Pre-submissions waiting for the submitter's confirmation, held by the server with bounds.

A preview holds the submitted file and the would-be duels (several MB), and anyone can
make one, so they cannot live as long as a browser session: each expires after `ttl`
seconds, a session keeps only its newest `per_session`, and all sessions together at
most `total`, the oldest anywhere dropped first. The browser keeps only a token.
"""
from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

from leaderboard.config.settings import DEFAULT_CACHE_SECONDS

Item = TypeVar("Item")


class PreviewShelf(Generic[Item]):
    def __init__(self, ttl: float = DEFAULT_CACHE_SECONDS, per_session: int = 1, total: int = 8,
                 clock: Callable[[], float] = time.monotonic):
        self.ttl, self.per_session, self.total, self.clock = ttl, per_session, total, clock
        self._items: OrderedDict[str, tuple[str, float, Item]] = OrderedDict()  # token -> (session, put at, item), oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def put(self, session: str, item: Item) -> str:
        """Keep `item` for `session`; returns the token that `get` needs."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._expire()
            self._items[token] = (session, self.clock(), item)
            mine = [t for t, (s, _, _) in self._items.items() if s == session]
            for old in mine[:-self.per_session]:
                del self._items[old]
            while len(self._items) > self.total:
                self._items.popitem(last=False)
        return token

    def get(self, session: str, token: str | None) -> Item | None:
        """The item, if it is still kept and belongs to `session`; else None."""
        with self._lock:
            self._expire()
            entry = self._items.get(token or "")
            return entry[2] if entry is not None and entry[0] == session else None

    def newest(self, session: str) -> Item | None:
        """The newest item still kept for `session`, if any (no token: one item per session)."""
        with self._lock:
            self._expire()
            return next((item for s, _, item in reversed(self._items.values()) if s == session), None)

    def discard(self, session: str, token: str | None) -> None:
        with self._lock:
            entry = self._items.get(token or "")
            if entry is not None and entry[0] == session:
                del self._items[token]

    def _expire(self) -> None:
        deadline = self.clock() - self.ttl
        while self._items and next(iter(self._items.values()))[1] < deadline:
            self._items.popitem(last=False)
