"""bench's wait for an idle process, on real processes whose CPU use is known: one that
computes with a pause between (as the app's start does), one that sleeps from the start,
one that never stops."""
import subprocess
import sys

import pytest

from bench.process_cpu import cpu_seconds, wait_until_idle

pytestmark = pytest.mark.integration  # each test starts a process

COMPUTES_THEN_SLEEPS = """import time
def compute(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
compute({first})
time.sleep({pause})
compute({second})
time.sleep(120)"""


def started(first: float, pause: float = 0.0, second: float = 0.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", COMPUTES_THEN_SLEEPS.format(first=first, pause=pause, second=second)])


def test_the_wait_ends_once_the_process_stops_computing_not_at_a_pause():
    process = started(first=1.0, pause=0.7, second=1.0)
    try:
        settling = wait_until_idle(process.pid, window_seconds=0.5, max_seconds=120)
        assert settling.settled
        assert cpu_seconds(process.pid) >= 2.0  # all its computing was done when the wait ended
    finally:
        process.kill()


def test_an_idle_process_is_waited_for_its_quiet_windows_only():
    process = started(first=0.0)
    try:
        wait_until_idle(process.pid, window_seconds=0.5, max_seconds=120)  # past its start
        settling = wait_until_idle(process.pid, window_seconds=0.5, max_seconds=120)
        assert settling.settled and settling.waited_seconds < 5  # three windows of 0.5 s
    finally:
        process.kill()


def test_a_process_that_never_settles_is_reported_so_after_the_longest_wait():
    process = started(first=60.0)
    try:
        settling = wait_until_idle(process.pid, window_seconds=0.5, max_seconds=2)
        assert not settling.settled and settling.waited_seconds >= 2
    finally:
        process.kill()
