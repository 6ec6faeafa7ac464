"""The bootstrap's resample counts kept on disk (`<LEADERBOARD_CACHE_DIR>/resamples/`), so
that a fresh command-line process reads each task's counts instead of drawing them again:
drawing BenCzechMark's 50 tasks takes about 1 s of CPU, reading them a few hundredths.

The counts depend only on (samples, seed, resamples), the draw's code (`DRAW_VERSION`) and
numpy's generator, never on a store's contents: no write to any store makes them stale, and
every store of a benchmark shares them. A file is used only when its draw version, numpy
version, length and checksum match; any other is drawn again and rewritten. Writes replace
the file whole (a reader sees the old file or the new one) and failing to keep them fails
nothing but the keeping.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import zlib
from pathlib import Path

import numpy as np

from leaderboard.config.settings import Settings
from stats.duel_tests import DRAW_VERSION

log = logging.getLogger(__name__)
FOLDER = "resamples"
COUNT_TYPES = ("uint8", "float32")  # what `stats.duel_tests._draw` returns


class DrawsFolder:
    """A `stats.duel_tests.DrawKeeper` in a folder: a file `<n>-<seed>-<resamples>.counts` a
    draw, a line of JSON (what drew it, the counts' type, their CRC-32) then the counts'
    bytes. Not .npz: reading 50 through zipfile takes three times as long."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    @classmethod
    def configured(cls) -> "DrawsFolder | None":
        """The folder LEADERBOARD_CACHE_DIR names, else ~/.cache/leaderboard's; None without
        either (no home folder): then nothing is kept."""
        cache = Settings.from_environment().cache_dir
        try:
            return cls((Path(cache) if cache else Path.home() / ".cache" / "leaderboard") / FOLDER)
        except RuntimeError:  # Path.home() of a user without one
            return None

    def _path(self, n: int, seed: int, n_resamples: int) -> Path:
        return self.folder / f"{n}-{seed}-{n_resamples}.counts"

    def read(self, n: int, seed: int, n_resamples: int) -> np.ndarray | None:
        try:
            with open(self._path(n, seed, n_resamples), "rb") as f:
                header = json.loads(f.readline())
                if header["drawn_by"] != _drawn_by() or header["dtype"] not in COUNT_TYPES:
                    return None
                counts = np.fromfile(f, dtype=header["dtype"], count=n_resamples * n)
                whole = counts.size == n_resamples * n and not f.read(1)
        except (OSError, ValueError, KeyError, TypeError):  # none kept, or not ours
            return None
        if not whole or zlib.crc32(counts.data) != header["crc32"]:
            return None
        return counts.reshape(n_resamples, n)

    def keep(self, n: int, seed: int, n_resamples: int, counts: np.ndarray) -> None:
        path = self._path(n, seed, n_resamples)
        data = np.ascontiguousarray(counts).tobytes()
        header = {"drawn_by": _drawn_by(), "dtype": counts.dtype.name, "crc32": zlib.crc32(data)}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, staged = tempfile.mkstemp(dir=self.folder, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:  # not synced: a file cut short by a crash fails its checks
                    f.write(json.dumps(header).encode() + b"\n" + data)
                os.replace(staged, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(staged)
        except OSError as e:
            log.warning("keeping the bootstrap's resample counts in %s failed (%s): the next run draws them again",
                        self.folder, e)


def _drawn_by() -> list[object]:
    """What makes two draws of the same key equal: the draw's code and numpy's generator."""
    return [DRAW_VERSION, np.__version__]
