"""Costly read-only things the tests build once per run, shared by pytest-xdist's workers."""
from __future__ import annotations

from pathlib import Path
from typing import Callable
import os
import shutil

from filelock import FileLock


def built_once(tmp_path_factory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder `build(folder)` makes, made once per test run: pytest-xdist's workers share
    it (the first builds it under a file lock, the others wait and reuse it; pytest-xdist's
    "making session-scoped fixtures execute only once"). Read-only: copy it before changing it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: its own temporary folder
        folder = tmp_path_factory.mktemp(name) / name
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, the workers' parent
    folder = shared / name
    with FileLock(shared / f"{name}.lock"):
        if not folder.exists():
            partial = shared / f"{name}.partial"  # renamed when whole: a failed build is not reused
            shutil.rmtree(partial, ignore_errors=True)
            build(partial)
            partial.rename(folder)
    return folder
