"""Bounds on what anonymous uploads may cost the server: its temporary disk in all, and
each client's uploads and pre-submissions per hour (per account when signed in).

`TempDiskBudget` is one process-wide count of temporary bytes: an upload holds its size
until the app has read it (at most as long as Gradio keeps it, the cache time) within its
client's share, an archive being unpacked holds its declared unpacked size until its
folder is removed. Both are reserved before anything is written. `UploadWindow` counts
each client's uploads and bytes over the last hour, from the store's upload records (so a
restart or another replica does not reset it), `RequestRate` its read-API requests over
the last minute.
`UploadGate` is the ASGI middleware that applies both to Gradio's upload route, from the
request's Content-Length, before the body is read: a refused upload stores nothing.
`PresubmissionQuota` counts each requester's pre-submissions from the store's disclosed
records (so a restart or another replica does not reset it) plus those under way.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import threading
import time
from collections import deque
from collections.abc import Container
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from leaderboard.app.gradio_compat import UPLOAD_PATH, oauth_info
from leaderboard.errors import BadInput
from leaderboard.storage.presubmissions import DAY, PresubmissionLog, requester_key
from leaderboard.storage.upload_records import UploadLog, UploadRecord

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

    def in_use(self) -> int:
        with self._lock:
            return self._expire()

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
            earlier = {self._paths.get(path) for path in paths} - {None, token}
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


class UploadWindow:
    """At most `max_uploads` uploads and `max_bytes` bytes per client in any `window` seconds,
    counted from `uploads` (storage/upload_records.py: the store's records, so a restart or
    another replica does not reset them, and those not yet written)."""

    def __init__(self, max_uploads: int, max_bytes: int, uploads: UploadLog, window: float = 3600,
                 clock=time.time):
        self.max_uploads, self.max_bytes, self.window, self.clock = max_uploads, max_bytes, window, clock
        self.uploads = uploads
        self._lock = threading.Lock()  # one admission at a time: counted and recorded together

    def admit(self, client: str, size: int, who: str = "your address") -> None:
        """Count an upload of `size` bytes by `client` (requester_key; `who` names it in
        messages: "your address", "your account"); LimitReached (nothing counted) past a bound.
        Reads the store: not on the event loop."""
        with self._lock:
            now = self.clock()
            recent = [(r.at, r.size) for r in self.uploads.recent(client, self.window, now)]
            if len(recent) + 1 > self.max_uploads:
                wait = recent[len(recent) - self.max_uploads][0] + self.window - now
                raise LimitReached(f"Too many uploads from {who}: {len(recent)} in the last hour; "
                                   f"try again in {minutes(wait)}", wait)
            total = sum(b for _, b in recent)
            if size > self.max_bytes:
                raise LimitReached(f"The upload is {megabytes(size)}, more than the {megabytes(self.max_bytes)} "
                                   f"{who.replace('your ', 'an ', 1)} may upload per hour", None)
            if total + size > self.max_bytes:
                freed, wait = 0, self.window
                for at, b in recent:
                    freed += b
                    if total - freed + size <= self.max_bytes:
                        wait = at + self.window - now
                        break
                raise LimitReached(f"Too much uploaded from {who}: {megabytes(total)} in the last hour, "
                                   f"{megabytes(size)} more would pass the limit of {megabytes(self.max_bytes)}; "
                                   f"try again in {minutes(wait)}", wait)
            self.uploads.add(UploadRecord.made(now, client, size))


class RequestRate:
    """At most `per_minute` requests per client in any minute."""

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._seen: dict[str, deque[float]] = {}  # client -> when its recent requests came
        self._lock = threading.Lock()

    def admit(self, client: str, what: str, who: str = "your address") -> None:
        """Count a request of `client`; LimitReached (nothing counted) past the rate. `what`
        names the requests in the message ("read-API requests")."""
        with self._lock:
            now = self.clock()
            for known in list(self._seen):  # forget what left the minute, and clients gone quiet
                recent = self._seen[known]
                while recent and recent[0] <= now - 60:
                    recent.popleft()
                if not recent:
                    del self._seen[known]
            recent = self._seen.setdefault(client, deque())
            if len(recent) >= self.per_minute:
                wait = recent[len(recent) - self.per_minute] + 60 - now
                raise LimitReached(f"Too many {what} from {who}: {len(recent)} in the last minute (at most "
                                   f"{self.per_minute}); try again in {math.ceil(wait)} seconds", wait)
            recent.append(now)


class PresubmissionQuota:
    """At most `per_hour` pre-submissions per requester (account, or client address without
    sign-in) in any hour, and `per_day` per signed-in account in any 24 hours: counted from
    the disclosed records in the store and those admitted in this process but not yet
    recorded (a failed pre-submission records nothing and counts nothing)."""

    def __init__(self, per_hour: int, per_day: int, clock=time.time):
        self.per_hour, self.per_day, self.clock = per_hour, per_day, clock
        self._under_way: dict[str, list[float]] = {}  # requester -> when its admitted pre-submissions began
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def admitted(self, log: PresubmissionLog, requester: str, signed_in: bool):
        """The block runs one pre-submission of `requester` (requester_key); LimitReached,
        saying when to retry, when a quota is used up."""
        with self._lock:
            now = self.clock()
            times = sorted(log.recent(requester, DAY, now) + self._under_way.get(requester, []))
            who = "your account" if signed_in else "your address"
            bounds = [(3600, self.per_hour, "hour")] + ([(DAY, self.per_day, "24 hours")] if signed_in else [])
            for seconds, limit, span in bounds:
                recent = [t for t in times if t > now - seconds]
                if len(recent) >= limit:
                    wait = recent[len(recent) - limit] + seconds - now
                    raise LimitReached(f"Too many pre-submissions from {who}: {len(recent)} in the last {span} "
                                       f"(at most {limit}); try again in {minutes(wait)}", wait)
            self._under_way.setdefault(requester, []).append(now)
        try:
            yield
        finally:
            with self._lock:
                mine = self._under_way[requester]
                mine.remove(now)
                if not mine:
                    del self._under_way[requester]


def upload_requester(scope, signed_out: Container[str] = ()) -> tuple[str, str]:
    """(whom the upload bounds count, how messages name it) for an ASGI request: the
    signed-in account (Gradio's OAuth session, when sign-in is on, not expired and its token
    not `signed_out`), else the client address (hashed, as requester_key keys both)."""
    info = oauth_info(scope)
    account = (info.get("userinfo") or {}).get("preferred_username")
    if account and (info.get("expires_at") or math.inf) > time.time() and \
            str(info.get("access_token")) not in signed_out:
        return requester_key(account, ""), "your account"
    return requester_key(None, (scope.get("client") or ("unknown",))[0]), "your address"


class UploadGate:
    """ASGI middleware: a POST to Gradio's upload route is admitted by `uploads` (per client
    address) and `disk` (its size held for `keep_seconds`, as long as Gradio keeps uploads)
    before its body is read; refused with 429 and the reason as text, or 411 without a
    Content-Length. A signed-in client is counted by its account (`upload_requester`; a
    session in `signed_out` is not signed in), any other by its address, the connection's (uvicorn puts the X-Forwarded-For address there
    when the proxy is trusted: FORWARDED_ALLOW_IPS)."""

    def __init__(self, app, uploads: UploadWindow, disk: TempDiskBudget, keep_seconds: float,
                 signed_out: Container[str] = ()):
        self.app, self.uploads, self.disk, self.keep_seconds = app, uploads, disk, keep_seconds
        self.signed_out = signed_out

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].endswith(UPLOAD_PATH):
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"")
        if not length.isdigit():
            return await self._refuse(receive, send, 411, "An upload needs a Content-Length header.", None)
        try:  # in a worker thread: the upload count reads the store's records
            token = await run_in_threadpool(self._admit, int(length), upload_requester(scope, self.signed_out))
        except LimitReached as e:
            return await self._refuse(receive, send, 429, str(e), e.retry_after)
        status, answer = None, b""

        async def watch(message):
            nonlocal status, answer
            if message["type"] == "http.response.start":
                status = message["status"]
            elif status == 200:
                answer += message.get("body", b"")
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if status == 200:  # Gradio's answer lists where it stored the files
                self.disk.stored(token, json.loads(answer))
            else:  # refused by Gradio (too large, not a form): nothing stays on disk
                self.disk.release(token)

    def _admit(self, size: int, client: tuple[str, str]) -> int:
        """The disk budget's token for an upload of `size` bytes by `client` (upload_requester),
        counted by the upload window; LimitReached (nothing held or counted) past a bound."""
        token = self.disk.reserve(size, "The upload", self.keep_seconds, client)
        try:
            self.uploads.admit(client[0], size, client[1])
        except LimitReached:
            self.disk.release(token)
            raise
        return token

    @staticmethod
    async def _refuse(receive, send, status: int, message: str, retry_after: float | None) -> None:
        """The refusal, after the body is read and dropped (a client still sending would see
        a reset connection instead of the message)."""
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        if retry_after is not None:
            headers.append((b"retry-after", str(math.ceil(retry_after)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": message.encode()})
