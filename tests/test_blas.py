"""One BLAS thread per process (leaderboard/blas.py), in fresh processes: numpy loaded
before or after, and a setting the user made kept."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPORT = ("import threadpoolctl, numpy; "
          "print([i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'])")


def _threads(code: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | env
    done = subprocess.run([sys.executable, "-c", f"{code}; {REPORT}"], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize("order", ["before numpy", "after numpy"])
def test_a_process_that_asks_for_one_blas_thread_gets_one(order):
    if order == "before numpy":
        assert _threads("from leaderboard import blas; blas.one_thread(); import numpy") == "[1]"
    else:
        assert _threads("import numpy; from leaderboard import blas; blas.one_thread()") == "[1]"


def test_the_user_s_thread_setting_is_kept():
    assert _threads("from leaderboard import blas; blas.one_thread()", OPENBLAS_NUM_THREADS="2") == "[2]"
