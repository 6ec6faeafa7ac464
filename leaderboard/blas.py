"""Linear algebra on one thread per process.

OpenBLAS starts a thread per core for every matrix product. The duels and the replicates
multiply hundreds of small matrices (a task's resample counts by a few models' values),
for which waking the threads cost 10-40 times the product itself on this busy 2-core
machine (bench/RESULTS.md, session 14). A product's last digits also depend on how many
threads summed it, so one thread gives the same bits whatever the machine's core count.
"""
from __future__ import annotations

import os
import sys

THREADS_SETTING = "OPENBLAS_NUM_THREADS"


def one_thread() -> None:
    """One BLAS thread from now on, unless THREADS_SETTING says otherwise (the app, the
    command line, the tests and the benches call it as they start). OpenBLAS reads the
    setting when numpy loads it, which the child processes inherit; a BLAS loaded
    already is limited now."""
    if THREADS_SETTING in os.environ:
        return
    os.environ[THREADS_SETTING] = "1"
    if "numpy" in sys.modules:
        from threadpoolctl import threadpool_limits  # 50 ms to import: only when numpy came first
        threadpool_limits(1, user_api="blas")
