"""Archives: harness output zipped as a visitor zips it, and for the upload limits, zip bombs
and the peak bytes their unpacking held."""
from __future__ import annotations

from pathlib import Path
import contextlib
import os
import threading
import zipfile


def zip_folder(folder: Path, path: Path) -> Path:
    """A .zip of `folder`, its entries under the folder's name."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted(folder.rglob("*")):
            z.write(file, file.relative_to(folder.parent))
    return path


def zip_bomb(path: Path, megabytes: int) -> Path:
    """`megabytes` of zeros in one entry: about 0.1% of that on disk."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("run/samples_bomb.jsonl", "w") as entry:
            for _ in range(megabytes):
                entry.write(bytes(2**20))
    return path


def unpacked_bytes(folder: Path) -> int:
    """Bytes in the archives' unpacking folders (harness-*) under `folder`; files removed
    while counting count nothing (os.walk skips folders it cannot read)."""
    total = 0
    for unpacking in folder.glob("harness-*"):
        for parent, _, names in os.walk(unpacking):
            for name in names:
                with contextlib.suppress(FileNotFoundError):
                    total += os.stat(os.path.join(parent, name)).st_size
    return total


class UnpackingPeak:
    """The most bytes the unpacking folders under `folder` held while the block ran,
    sampled every 2 ms by a thread."""

    def __init__(self, folder: Path):
        self.folder, self.bytes, self._done = folder, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample)

    def _sample(self):
        while not self._done.is_set():
            self.bytes = max(self.bytes, unpacked_bytes(self.folder))
            self._done.wait(0.002)  # a sampling interval, not a wait for an outcome

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
