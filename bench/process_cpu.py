"""A process's CPU time, as the kernel counts it (Linux's /proc), and a wait until it is idle."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int | str = "self") -> float:
    """The CPU time the process (all its threads) has used so far, user and system."""
    # The fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


@dataclass(frozen=True)
class Settling:
    waited_seconds: float  # from the call until the process was idle, or until the wait gave up
    settled: bool  # False: still busy when `max_seconds` ran out


def wait_until_idle(pid: int, busy_share: float = 0.1, window_seconds: float = 1.0, quiet_windows: int = 3,
                    max_seconds: float = 300.0) -> Settling:
    """Wait until the process has used less than `busy_share` of one core in each of
    `quiet_windows` windows of `window_seconds` in a row, at most `max_seconds`. E.g. a served
    app once its start's background work, or a visitor's left-over work, is done: at 10,000
    models the start's takes ~30 s with gaps of a second, and the idle app 1-4% of a core."""
    start = time.perf_counter()
    used, quiet = cpu_seconds(pid), 0
    while True:
        time.sleep(window_seconds)
        now, waited = cpu_seconds(pid), time.perf_counter() - start
        quiet = quiet + 1 if now - used < busy_share * window_seconds else 0
        if quiet == quiet_windows:
            return Settling(round(waited, 2), True)
        if waited >= max_seconds:
            return Settling(round(waited, 2), False)
        used = now
