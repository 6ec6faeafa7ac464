"""The bootstrap's resample counts kept on disk (`<LEADERBOARD_CACHE_DIR>/resamples/`), so
that a fresh command-line process reads each task's counts instead of drawing them again:
drawing BenCzechMark's 50 tasks takes about 1 s of CPU, reading them a few hundredths.

The counts depend only on (samples, seed, resamples), the draw's code (`DRAW_VERSION`) and
numpy's generator, never on a store's contents: no write to any store makes them stale, and
every store of a benchmark shares them. A file is used only when its draw version, numpy
version, length and checksum match; any other is drawn again and rewritten. Writes replace
the file whole (a reader sees the old file or the new one) and failing to keep them fails
nothing but the keeping. `KeptArrays` and `CacheFolder` also keep other arrays a fresh
process would compute again (`kept_counts.py`).
"""
from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import tempfile
import zlib
from pathlib import Path
from typing import Self

import numpy as np

from leaderboard.config.settings import Settings
from stats.duel_tests import DRAW_VERSION

log = logging.getLogger(__name__)
COUNT_TYPES = ("uint8", "float32")  # what `stats.duel_tests._draw` returns


class KeptArrays:
    """Arrays kept in a folder, a file each: a line of JSON (what made it, its type, its
    CRC-32) then its bytes. Not .npz: reading 50 through zipfile takes three times as
    long. An array is read back only when what made it, its type, its size and its
    checksum match; writes replace the file whole, and failing to keep one fails nothing
    but the keeping."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def read(self, name: str, made_by: object, dtypes: tuple[str, ...], shape: tuple[int, ...]) -> np.ndarray | None:
        """The array kept as `name` by `made_by`, of one of `dtypes` and of `shape` (read-only), or None."""
        size = math.prod(shape)
        try:
            with open(self.folder / name, "rb") as f:
                header = json.loads(f.readline())
                if header["drawn_by"] != made_by or header["dtype"] not in dtypes:
                    return None
                array = np.fromfile(f, dtype=header["dtype"], count=size)
                whole = array.size == size and not f.read(1)
        except (OSError, ValueError, KeyError, TypeError):  # none kept, or not ours
            return None
        if not whole or zlib.crc32(array.data) != header["crc32"]:
            return None
        array.flags.writeable = False
        return array.reshape(shape)

    def keep(self, name: str, made_by: object, array: np.ndarray) -> None:
        path = self.folder / name
        data = np.ascontiguousarray(array).tobytes()
        # "drawn_by": named for the draws, the first arrays kept, whose files it keeps readable
        header = {"drawn_by": made_by, "dtype": array.dtype.name, "crc32": zlib.crc32(data)}
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
            log.warning("keeping %s in %s failed (%s): the next run computes it again", name, self.folder, e)


class CacheFolder:
    """Arrays kept in a folder of its own (`FOLDER`) of the command line's cache folder."""

    FOLDER: str

    def __init__(self, folder: Path):
        self.kept = KeptArrays(folder)

    @classmethod
    def configured(cls) -> Self | None:
        """In the folder LEADERBOARD_CACHE_DIR names, else in ~/.cache/leaderboard; None
        without either (no home folder): then nothing is kept."""
        cache = Settings.from_environment().cache_dir
        try:
            return cls((Path(cache) if cache else Path.home() / ".cache" / "leaderboard") / cls.FOLDER)
        except RuntimeError:  # Path.home() of a user without one
            return None


class DrawsFolder(CacheFolder):
    """A `stats.duel_tests.DrawKeeper` (`KeptArrays`): a file `<n>-<seed>-<resamples>.counts` a draw."""

    FOLDER = "resamples"

    def read(self, n: int, seed: int, n_resamples: int) -> np.ndarray | None:
        return self.kept.read(f"{n}-{seed}-{n_resamples}.counts", _drawn_by(), COUNT_TYPES, (n_resamples, n))

    def keep(self, n: int, seed: int, n_resamples: int, counts: np.ndarray) -> None:
        self.kept.keep(f"{n}-{seed}-{n_resamples}.counts", _drawn_by(), counts)


def _drawn_by() -> list[object]:
    """What makes two draws of the same key equal: the draw's code and numpy's generator."""
    return [DRAW_VERSION, np.__version__]
