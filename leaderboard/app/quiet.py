"""When the app is serving nobody. Its start's background work (every model's replicates,
6 s of a core at 10,000 models, needed by the first publication only) waits while visitors
are served, so that the first visitors after a start are answered as fast as later ones
(bench/RESULTS.md, session 19: a first pre-submission right after the start took 1.3-1.8 s,
at rest 0.66-0.74 s)."""
from __future__ import annotations

import time
from typing import Callable

QUIET_SECONDS = 1.0  # no request begun for this long: nobody is being served
LONGEST_WAIT = 30.0  # s: the waiting work goes on after this, however busy the app


class QuietWatch:
    """When the last HTTP request began (`NoteRequests` tells it); `wait_quiet` waits until
    none has for QUIET_SECONDS, at most LONGEST_WAIT."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], object] = time.sleep):
        self.clock, self.sleep = clock, sleep
        self.last_request = clock()  # one float, set whole by each request: no lock needed

    def noted(self) -> None:
        self.last_request = self.clock()

    def wait_quiet(self) -> None:
        began = self.clock()
        while True:
            now = self.clock()
            left = min(self.last_request + QUIET_SECONDS, began + LONGEST_WAIT) - now
            if left <= 0:
                return
            self.sleep(left)


class NoteRequests:
    """ASGI middleware: each HTTP request's beginning told to `watch`."""

    def __init__(self, app, watch: QuietWatch):
        self.app, self.watch = app, watch

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.watch.noted()
        return await self.app(scope, receive, send)
