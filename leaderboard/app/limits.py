"""Bounds on what anonymous uploads may cost the server: its temporary disk in all
(`TempDiskBudget`, leaderboard/temp_disk.py), and each client's uploads and pre-submissions
per hour (per account when signed in).

`UploadWindow` counts
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
import json
import math
import threading
import time
from collections import deque
from collections.abc import Container

from starlette.concurrency import run_in_threadpool

from leaderboard.app.gradio_compat import UPLOAD_PATH, oauth_info
from leaderboard.storage.presubmissions import DAY, PresubmissionLog, requester_key
from leaderboard.storage.upload_records import UploadLog, UploadRecord
from leaderboard.temp_disk import LimitReached, TempDiskBudget, megabytes, minutes


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
