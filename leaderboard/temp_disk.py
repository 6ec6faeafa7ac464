"""The process's temporary disk as one budget: reservations made before anything is written.

`TempDiskBudget` counts temporary bytes process-wide: an upload holds its size until the app
has read it (at most as long as Gradio keeps it, the cache time) within its client's share,
an archive being unpacked holds its declared unpacked size until its folder is removed. Plain
threading code below the archive reader and the views that use it; the web app makes the one
instance (app/settings.py).
"""
from __future__ import annotations

import contextlib
import itertools
import math
import threading
import time
from dataclasses import dataclass

from leaderboard.errors import BadInput

MB = 2**20
ACCOUNT = "account:"  # how a signed-in requester's key begins (an address's never does)


class LimitReached(BadInput):
    """A bound is reached; `retry_after` says in how many seconds to try again (None: never,
    the request is larger than the bound itself)."""

    def __init__(self, message: str, retry_after: float | None):
        super().__init__(message)
        self.retry_after = retry_after


def minutes(seconds: float) -> str:
    n = max(1, math.ceil(seconds / 60))
    return f"{n} minute" if n == 1 else f"{n} minutes"


def megabytes(size: int) -> str:
    return f"{size / MB:,.0f} MB" if size >= MB else f"{size / MB:.1f} MB"


@dataclass
class Reservation:
    size: int
    until: float  # expiry time, or inf: until released
    client: str | None  # whose share it counts against (upload_requester's key); None: not an upload
    paths: tuple[str, ...] = ()  # where Gradio stored the upload


class TempDiskBudget:
    """At most `limit` bytes of temporary disk held at once, by reservations made before
    writing: until released, or for `seconds` (uploads, which Gradio deletes on its own).

    An upload also counts against its client's share (an eighth of the limit), and those
    of clients without sign-in together against ANONYMOUS_SHARES eighths: a few clients
    cannot take it all, and signed-in publishers always have the rest. An upload holds its
    space until the app has read it (`release_file`; from then on only the client's hourly
    volume bounds it), and bytes Gradio stored at a path already held are reserved once
    (`stored`)."""

    SHARES = 8  # a client may hold one of these parts of the limit
    ANONYMOUS_SHARES = 6  # the parts that clients without sign-in may hold together
    UNKNOWN_WAIT = 60.0  # the wait suggested when only unpacking archives, which end soon, hold the space

    def __init__(self, limit: int, clock=time.monotonic):
        self.limit, self.clock = limit, clock
        self.share = limit // self.SHARES
        self._held: dict[int, Reservation] = {}  # token -> reservation
        self._paths: dict[str, int] = {}  # a stored upload's path -> its token
        self._tokens = itertools.count()
        self._lock = threading.Lock()

    def _expire(self) -> int:
        now = self.clock()
        for token in [t for t, held in self._held.items() if held.until <= now]:
            self._drop(token)
        return sum(held.size for held in self._held.values())

    def reserve(self, size: int, what: str, seconds: float | None = None, client: tuple[str, str] | None = None) -> int:
        """A token for `size` bytes, held `seconds` or until released; LimitReached when they
        do not fit. `what` names the use in the message ("unpacking the archive"); `client`,
        upload_requester's (key, how messages name it), whose share an upload counts against."""
        if size > self.limit:
            raise LimitReached(f"{what} needs {megabytes(size)} of temporary space, more than this server's "
                               f"{megabytes(self.limit)} in all", None)
        if client and size > self.share:
            raise LimitReached(f"{what} is {megabytes(size)}, more than the {megabytes(self.share)} of temporary "
                               f"space one {client[1].removeprefix('your ')} may hold", None)
        with self._lock:
            used = self._expire()
            if client:
                self._check_part(size, what, lambda held: held.client == client[0], self.share,
                                 f"{client[1]}'s share of it")
                if not client[0].startswith(ACCOUNT):
                    self._check_part(size, what, lambda held: held.client and not held.client.startswith(ACCOUNT),
                                     self.share * self.ANONYMOUS_SHARES, "the share of visitors without sign-in")
            if used + size > self.limit:
                wait = self._wait(used + size - self.limit, list(self._held.values()))
                raise LimitReached(f"{what} needs {megabytes(size)} of temporary space and the server's is in use by "
                                   f"other uploads ({megabytes(used)} of {megabytes(self.limit)}); try again in "
                                   f"{minutes(wait)}", wait)
            token = next(self._tokens)
            self._held[token] = Reservation(size, math.inf if seconds is None else self.clock() + seconds,
                                            client[0] if client else None)
            return token

    def _check_part(self, size: int, what: str, counts, part: int, whose: str) -> None:
        """LimitReached unless `size` more fits in `part` with the reservations `counts` selects."""
        mine = [held for held in self._held.values() if counts(held)]
        used = sum(held.size for held in mine)
        if used + size > part:
            wait = self._wait(used + size - part, mine)
            raise LimitReached(f"{what} needs {megabytes(size)} of temporary space and {whose} is in use "
                               f"({megabytes(used)} of {megabytes(part)}); try again in {minutes(wait)}", wait)

    def _wait(self, excess: int, reservations: list[Reservation]) -> float:
        """Seconds until those of `reservations` that expire free `excess` bytes."""
        freed, now = 0, self.clock()
        for held in sorted(reservations, key=lambda held: held.until):
            if held.until == math.inf:
                break
            freed += held.size
            if freed >= excess:
                return held.until - now
        return self.UNKNOWN_WAIT

    def stored(self, token: int, paths: list[str]) -> None:
        """The upload of `token` is stored at `paths` (Gradio's answer): when each is held by
        another upload already (identical bytes, one file), the space is reserved once, for
        the later of the two times."""
        with self._lock:
            self._expire()
            reservation = self._held.get(token)
            if reservation is None:
                return
            earlier = {held for path in paths if (held := self._paths.get(path)) is not None} - {token}
            if paths and len(earlier) == 1 and all(path in self._paths for path in paths):
                kept = self._held[earlier.pop()]
                kept.until = max(kept.until, reservation.until)
                self._drop(token)
                return
            for path in paths:
                self._paths[path] = token
            reservation.paths = tuple(paths)

    def release_file(self, path: str) -> None:
        """The app has read the upload stored at `path`: its space is free for its client's next one."""
        with self._lock:
            token = self._paths.get(str(path))
            if token is not None:
                self._drop(token)

    def release(self, token: int) -> None:
        with self._lock:
            self._drop(token)

    def _drop(self, token: int) -> None:
        reservation = self._held.pop(token, None)
        for path in reservation.paths if reservation else ():
            self._paths.pop(path, None)

    @contextlib.contextmanager
    def held(self, size: int, what: str):
        """`size` bytes reserved for the block."""
        token = self.reserve(size, what)
        try:
            yield
        finally:
            self.release(token)
