"""Freed memory given back to the system by a long-running app (glibc's allocator).

A pre-submission at 10,000 models allocates and frees some hundreds of MB of arrays, on
whichever of the server's threads runs it. glibc keeps what is freed in per-thread
arenas, and once large blocks were freed it serves later large ones from those arenas
instead of fresh mappings, so holes stay mapped: an app-like process grew to 3.55-3.79 GB
resident after 24 pre-submissions, where 2.9-3.0 GB were in use (bench/RESULTS.md,
session 19). Two arenas, and a trim after each heavy piece of work, keep it near what is
in use, for 6-10 ms per trim. Elsewhere than glibc both are no-ops.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
ARENAS = 2


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
    except (OSError, TypeError):
        return None
    # glibc's own functions: musl's and macOS's C libraries lack them
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def fewer_arenas() -> None:
    """At most ARENAS arenas from now on (the app calls it as it starts, before its threads)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, ARENAS)


def give_back() -> None:
    """Return the free pages of every arena to the system (after a pre-submission and a
    computation of the intervals). The next large allocations then fault their pages in
    again: ~10,000 more minor faults, ~40 ms, for a pre-submission at 10,000 models."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
