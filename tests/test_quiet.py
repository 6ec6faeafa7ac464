"""The app's quiet watch (leaderboard/app/quiet.py): background work waits while requests
keep beginning, goes on once none has for QUIET_SECONDS, and waits LONGEST_WAIT at most;
the middleware notes HTTP requests only. On a clock of the test's own."""
from __future__ import annotations

from leaderboard.app.quiet import LONGEST_WAIT, QUIET_SECONDS, NoteRequests, QuietWatch


class Clock:
    """Time that passes only when slept; requests begin at the given times."""

    def __init__(self, requests: list[float]):
        self.now, self.requests, self.watch = 0.0, sorted(requests), None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        end = self.now + seconds
        while self.requests and self.requests[0] <= end:  # a request begins during the sleep
            self.now = self.requests.pop(0)
            self.watch.noted()
        self.now = end


def waited(requests: list[float]) -> float:
    clock = Clock(requests)
    clock.watch = QuietWatch(clock, clock.sleep)
    clock.watch.wait_quiet()
    return clock.now


def test_background_work_waits_until_no_request_began_for_the_quiet_time():
    assert waited([]) == QUIET_SECONDS  # the watch began as a request would: the start is not quiet yet
    assert waited([0.5, 1.2]) == 1.2 + QUIET_SECONDS
    assert waited([5.0]) == QUIET_SECONDS  # quiet before it began


def test_a_busy_app_delays_background_work_by_the_longest_wait_at_most():
    assert waited([k * 0.5 for k in range(1, 200)]) == LONGEST_WAIT


def finished(coroutine) -> None:
    """Run a coroutine that awaits nothing pending (here, not in an event loop: a browser test
    of the same worker may have one running)."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    raise AssertionError("the coroutine waited on something")


def test_the_middleware_notes_http_requests_only():
    clock = Clock([])
    watch = QuietWatch(clock, clock.sleep)
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    middleware = NoteRequests(app, watch)
    clock.now = 7.0
    finished(middleware({"type": "lifespan"}, None, None))
    assert watch.last_request == 0.0
    finished(middleware({"type": "http"}, None, None))
    assert watch.last_request == 7.0 and seen == ["lifespan", "http"]
