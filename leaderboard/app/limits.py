"""Bounds on what anonymous uploads may cost the server: its temporary disk in all, and
each client's uploads per hour.

`TempDiskBudget` is one process-wide count of temporary bytes: an upload holds its size
for as long as Gradio keeps it (the cache time), an archive being unpacked holds its
declared unpacked size until its folder is removed. Both are reserved before anything is
written. `UploadWindow` counts each client's uploads and bytes over the last hour.
`UploadGate` is the ASGI middleware that applies both to Gradio's upload route, from the
request's Content-Length, before the body is read: a refused upload stores nothing.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import threading
import time
from collections import deque

from leaderboard.errors import BadInput

MB = 2**20


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


class TempDiskBudget:
    """At most `limit` bytes of temporary disk held at once, by reservations made before
    writing: until released, or for `seconds` (uploads, which Gradio deletes on its own)."""

    UNKNOWN_WAIT = 60.0  # the wait suggested when only unpacking archives, which end soon, hold the space

    def __init__(self, limit: int, clock=time.monotonic):
        self.limit, self.clock = limit, clock
        self._held: dict[int, tuple[int, float]] = {}  # token -> (bytes, expiry time or inf)
        self._tokens = itertools.count()
        self._lock = threading.Lock()

    def in_use(self) -> int:
        with self._lock:
            return self._expire()

    def _expire(self) -> int:
        now = self.clock()
        for token in [t for t, (_, until) in self._held.items() if until <= now]:
            del self._held[token]
        return sum(size for size, _ in self._held.values())

    def reserve(self, size: int, what: str, seconds: float | None = None) -> int:
        """A token for `size` bytes, held `seconds` or until released; LimitReached when they
        do not fit. `what` names the use in the message ("unpacking the archive")."""
        if size > self.limit:
            raise LimitReached(f"{what} needs {megabytes(size)} of temporary space, more than this server's "
                               f"{megabytes(self.limit)} in all", None)
        with self._lock:
            used = self._expire()
            if used + size > self.limit:
                raise LimitReached(f"{what} needs {megabytes(size)} of temporary space and the server's is in "
                                   f"use by other uploads ({megabytes(used)} of {megabytes(self.limit)}); try "
                                   f"again in {minutes(self._wait(used + size - self.limit))}",
                                   self._wait(used + size - self.limit))
            token = next(self._tokens)
            self._held[token] = (size, math.inf if seconds is None else self.clock() + seconds)
            return token

    def _wait(self, excess: int) -> float:
        """Seconds until reservations that expire free `excess` bytes."""
        freed, now = 0, self.clock()
        for size, until in sorted(self._held.values(), key=lambda held: held[1]):
            if until == math.inf:
                break
            freed += size
            if freed >= excess:
                return until - now
        return self.UNKNOWN_WAIT

    def release(self, token: int) -> None:
        with self._lock:
            self._held.pop(token, None)

    @contextlib.contextmanager
    def held(self, size: int, what: str):
        """`size` bytes reserved for the block."""
        token = self.reserve(size, what)
        try:
            yield
        finally:
            self.release(token)


class UploadWindow:
    """At most `max_uploads` uploads and `max_bytes` bytes per client in any `window` seconds."""

    def __init__(self, max_uploads: int, max_bytes: int, window: float = 3600, clock=time.monotonic):
        self.max_uploads, self.max_bytes, self.window, self.clock = max_uploads, max_bytes, window, clock
        self._seen: dict[str, deque[tuple[float, int]]] = {}  # client -> (time, bytes) of its recent uploads
        self._lock = threading.Lock()

    def admit(self, client: str, size: int) -> None:
        """Count an upload of `size` bytes by `client`; LimitReached (nothing counted) past a bound."""
        with self._lock:
            now = self.clock()
            for known in list(self._seen):  # forget what left the window, and clients gone quiet
                recent = self._seen[known]
                while recent and recent[0][0] <= now - self.window:
                    recent.popleft()
                if not recent:
                    del self._seen[known]
            recent = self._seen.get(client, deque())
            if len(recent) + 1 > self.max_uploads:
                wait = recent[len(recent) - self.max_uploads][0] + self.window - now
                raise LimitReached(f"Too many uploads from your address: {len(recent)} in the last hour; "
                                   f"try again in {minutes(wait)}", wait)
            total = sum(b for _, b in recent)
            if size > self.max_bytes:
                raise LimitReached(f"The upload is {megabytes(size)}, more than the {megabytes(self.max_bytes)} "
                                   f"an address may upload per hour", None)
            if total + size > self.max_bytes:
                freed, wait = 0, self.window
                for at, b in recent:
                    freed += b
                    if total - freed + size <= self.max_bytes:
                        wait = at + self.window - now
                        break
                raise LimitReached(f"Too much uploaded from your address: {megabytes(total)} in the last hour, "
                                   f"{megabytes(size)} more would pass the limit of {megabytes(self.max_bytes)}; "
                                   f"try again in {minutes(wait)}", wait)
            self._seen[client] = recent
            recent.append((now, size))


class UploadGate:
    """ASGI middleware: a POST to Gradio's upload route is admitted by `uploads` (per client
    address) and `disk` (its size held for `keep_seconds`, as long as Gradio keeps uploads)
    before its body is read; refused with 429 and the reason as text, or 411 without a
    Content-Length. The client address is the connection's (uvicorn puts the
    X-Forwarded-For address there when the proxy is trusted: FORWARDED_ALLOW_IPS)."""

    def __init__(self, app, uploads: UploadWindow, disk: TempDiskBudget, keep_seconds: float):
        self.app, self.uploads, self.disk, self.keep_seconds = app, uploads, disk, keep_seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].endswith("/gradio_api/upload"):
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"")
        if not length.isdigit():
            return await self._refuse(receive, send, 411, "An upload needs a Content-Length header.", None)
        size = int(length)
        try:
            token = self.disk.reserve(size, "The upload", self.keep_seconds)
        except LimitReached as e:
            return await self._refuse(receive, send, 429, str(e), e.retry_after)
        try:
            self.uploads.admit((scope.get("client") or ("unknown",))[0], size)
        except LimitReached as e:
            self.disk.release(token)
            return await self._refuse(receive, send, 429, str(e), e.retry_after)
        stored = False

        async def watch(message):
            nonlocal stored
            if message["type"] == "http.response.start":
                stored = message["status"] == 200
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if not stored:  # refused by Gradio (too large, not a form): nothing stays on disk
                self.disk.release(token)

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
