"""What the tests read of a TempDiskBudget from the outside: the bytes it holds."""
from __future__ import annotations

import bisect

from leaderboard.temp_disk import LimitReached, TempDiskBudget


def bytes_held(budget: TempDiskBudget) -> int:
    """The bytes `budget` holds, as the largest reservation that still fits shows them
    (each probe released at once)."""
    def refused(size: int) -> bool:
        try:
            budget.release(budget.reserve(size, "the probe"))
        except LimitReached:
            return True
        return False
    largest_fitting = bisect.bisect_left(range(budget.limit + 1), True, key=refused) - 1
    return budget.limit - largest_fitting
