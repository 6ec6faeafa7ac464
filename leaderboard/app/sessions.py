"""The visitors' sessions the app keeps, and when it lets one go.

Gradio keeps every session (its State values, and the tabs `gr.render` built for it: 0.5 MB
for a page load at 10,000 models, 2-3 MB once every tab is opened) until it holds 10,000,
whether its visitor has gone or not (bench/RESULTS.md, session 23). An open page holds its
session's heartbeat, a streamed request, for as long as it is open. So the app lets a session
go once no page has held its heartbeat, nor sent it an event, for `idle_seconds`.

A page that comes back after that still works, with a fresh session, for every event of the
page itself; an event of a tab built for its old session is refused with `LET_GO` (to reload
the page), where Gradio's own answer is an internal error that the page shows as "Could not
parse server response". Gradio's page shows that message for a queued event only (for one
outside the queue it marks the event's outputs "Error"), so the page's script static/let_go.js
shows it for any, with a button to reload. Which page comes back: one whose heartbeat broke
(Gradio 6.31's client, as its code reads, opens a page's heartbeat once and not again after a
failure) and which then idled for `idle_seconds`: 15 minutes by default, as long as a
pre-submission waits for its confirmation. Longer costs memory: the app at 10,000 models
settles at 2.8 GB, so an hour's window fills the 1.2 GB left under 4 GB with 400-600 visitors
who open every tab.
"""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Callable

from starlette.responses import JSONResponse

from leaderboard.app import gradio_compat

LET_GO = ("This page was away so long that the server let go of the tabs opened on it: "
          "reload the page to go on.")
LET_GO_HEADER = "x-leaderboard-session-let-go"  # on the refusal: static/let_go.js shows LET_GO


class Heartbeats:
    """Per session: how many of its heartbeats are open, and when its last one ended."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self.lock = threading.Lock()
        self.open: Counter[str] = Counter()
        self.ended: dict[str, float] = {}

    def opened(self, session: str) -> None:
        with self.lock:
            self.open[session] += 1

    def closed(self, session: str) -> None:
        with self.lock:
            self.open[session] -= 1
            if self.open[session] <= 0:
                del self.open[session]
                self.ended[session] = self.clock()

    def gone(self, last_used: dict[str, float], idle_seconds: float) -> list[str]:
        """The sessions of `last_used` (session -> when it last ran an event) that no page
        holds and that neither ran an event nor held a heartbeat for over `idle_seconds`;
        forgets the heartbeats of sessions no longer kept."""
        now = self.clock()
        with self.lock:
            for session in [s for s in self.ended if s not in last_used]:
                del self.ended[session]
            return [s for s, used in last_used.items()
                    if s not in self.open and now - max(used, self.ended.get(s, used)) > idle_seconds]


class KeepSessions:
    """ASGI middleware: watches each session's heartbeat, lets go of gone sessions (see
    `Heartbeats.gone`; looked for at most every `sweep_seconds`, on a request), and answers an
    event its session does not know with `LET_GO`. `page`: the served gr.Blocks."""

    def __init__(self, app, page, idle_seconds: float, heartbeats: Heartbeats | None = None):
        self.app, self.page, self.idle_seconds = app, page, idle_seconds
        self.heartbeats = heartbeats or Heartbeats()
        self.sweep_seconds = min(30.0, idle_seconds)
        self.last_sweep = self.heartbeats.clock()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.sweep()
        session = gradio_compat.heartbeat_session(scope["path"])
        if session is not None:
            self.heartbeats.opened(session)
            try:
                return await self.app(scope, receive, send)
            finally:  # the page closed the stream, or the server stopped
                self.heartbeats.closed(session)
        if gradio_compat.is_event_request(scope):
            messages = await _whole_body(receive)
            if not self._known_event(b"".join(m.get("body", b"") for m in messages)):
                refusal = JSONResponse(gradio_compat.event_refused(LET_GO), status_code=410, headers={LET_GO_HEADER: "1"})
                return await refusal(scope, receive, send)
            receive = _replay(messages, receive)
        return await self.app(scope, receive, send)

    def sweep(self) -> None:
        now = self.heartbeats.clock()
        if now - self.last_sweep < self.sweep_seconds:
            return
        self.last_sweep = now
        gone = self.heartbeats.gone(gradio_compat.sessions_last_used(self.page), self.idle_seconds)
        gradio_compat.let_go_of_sessions(self.page, gone)

    def _known_event(self, body: bytes) -> bool:
        try:
            event = json.loads(body)
            session, event_id = event["session_hash"], event["fn_index"]
        except (ValueError, KeyError, TypeError):
            return True  # not for this check: Gradio answers what it cannot read
        return event_id is None or gradio_compat.session_knows_event(self.page, session, event_id)


async def _whole_body(receive) -> list[dict]:
    messages = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body"):
            return messages


def _replay(messages: list[dict], receive):
    """`receive` giving `messages` first (a body already read), then what `receive` gives."""
    waiting = list(messages)

    async def replayed():
        return waiting.pop(0) if waiting else await receive()
    return replayed
