"""The bootstrap's resample counts kept on disk (`<LEADERBOARD_CACHE_DIR>/resamples/`), so
that a fresh command-line process reads each task's counts instead of drawing them again:
drawing BenCzechMark's 50 tasks takes about 1 s of CPU, reading them a few hundredths.

The counts depend only on (samples, seed, resamples), the draw's code (`DRAW_VERSION`) and
numpy's generator, never on a store's contents: no write to any store makes them stale, and
every store of a benchmark shares them. A file is used only when its draw version, numpy
version, shape and checksum match; any other is drawn again and rewritten. Writes replace
the file whole (a reader sees the old file or the new one) and failing to keep them fails
nothing but the keeping.
"""
from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np

from leaderboard.config.settings import Settings
from stats.duel_tests import DRAW_VERSION

log = logging.getLogger(__name__)
FOLDER = "resamples"


class DrawsFolder:
    """A `stats.duel_tests.DrawKeeper` in a folder: a file `<n>-<seed>-<resamples>.npz` a draw."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    @classmethod
    def configured(cls) -> "DrawsFolder":
        cache = Settings.from_environment().cache_dir
        return cls((Path(cache) if cache else Path.home() / ".cache" / "leaderboard") / FOLDER)

    def _path(self, n: int, seed: int, n_resamples: int) -> Path:
        return self.folder / f"{n}-{seed}-{n_resamples}.npz"

    def read(self, n: int, seed: int, n_resamples: int) -> np.ndarray | None:
        try:
            with np.load(self._path(n, seed, n_resamples)) as kept:
                counts: np.ndarray = kept["counts"]
                crc = int(kept["crc32"])
                drawn_by = (int(kept["draw"]), str(kept["numpy"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # none kept, or not whole
            return None
        if (drawn_by != (DRAW_VERSION, np.__version__) or counts.shape != (n_resamples, n)
                or zlib.crc32(counts.tobytes()) != crc):
            return None
        return counts

    def keep(self, n: int, seed: int, n_resamples: int, counts: np.ndarray) -> None:
        path = self._path(n, seed, n_resamples)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, staged = tempfile.mkstemp(dir=self.folder, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:  # not synced: a file cut short by a crash fails its checksum
                    np.savez(f, counts=counts, crc32=np.uint32(zlib.crc32(counts.tobytes())),
                             draw=np.int64(DRAW_VERSION), numpy=np.str_(np.__version__))
                os.replace(staged, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(staged)
        except OSError as e:
            log.warning("keeping the bootstrap's resample counts in %s failed (%s): the next run draws them again",
                        self.folder, e)
