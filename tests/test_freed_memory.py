"""Freed memory given back to the system (leaderboard/freed_memory.py), in a fresh process:
memory freed in holes between blocks still in use, on a thread of its own as a server's
handler frees it, stays resident until `give_back`, which returns it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# On a thread: 300 MB in 100 kB blocks (under glibc's mapping threshold: they come from the
# thread's arena), then every block freed but one in ten, which keeps the holes mapped.
HOLES = """
import threading
from leaderboard import freed_memory
freed_memory.fewer_arenas()
def resident_mb():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) / 1e3
kept = []
def allocate():
    blocks = [bytearray(100_000) for _ in range(3_000)]
    kept.extend(blocks[::10])
thread = threading.Thread(target=allocate)
thread.start()
thread.join()
before = resident_mb()
freed_memory.give_back()
print(before - resident_mb())
"""


def test_memory_freed_in_holes_goes_back_to_the_system():
    done = subprocess.run([sys.executable, "-c", HOLES], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    assert float(done.stdout) > 200  # of the 270 MB freed
