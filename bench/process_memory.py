"""A process's resident memory, as the kernel counts it (Linux's /proc)."""
from __future__ import annotations

from pathlib import Path


def memory_gb(pid: int | str = "self") -> tuple[float, float]:
    """The process's peak resident memory so far (VmHWM) and its resident memory now
    (VmRSS), in GB."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return tuple(round(next(int(line.split()[1]) for line in status if line.startswith(key)) / 1e6, 3)
                 for key in ("VmHWM:", "VmRSS:"))
