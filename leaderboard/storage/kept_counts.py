"""A board's won and fought counts (`Tournament.counts`) kept between command-line
processes (`<LEADERBOARD_CACHE_DIR>/duel_counts/`): counting every stored duel row takes
about 0.5 s of CPU at 10,000 models, reading the counts a few milliseconds.

The counts are a function of the rows alone. A file is named by the sha256 of exactly
what they were counted from: the store's `duels_version` (each duel file's version and
tournament.json's), the models in their order and the tasks. A publication, removal or
rebuild, or a duel file changed by hand, changes one of them, so the next load looks for
another name and counts again; a file that is damaged, of other models or cut short fails
`KeptArrays`' checks and is counted again and rewritten. The newest KEPT_FILES are kept.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

import numpy as np

from leaderboard.storage.kept_draws import CacheFolder

COUNTS_VERSION = 1  # of what `Tournament.counts` counts: change it with them
KEPT_FILES = 8  # a few boards' (stores, versions); older files are deleted


class CountsFolder(CacheFolder):
    FOLDER = "duel_counts"

    def read(self, duels_version: str, task_ids: list[str], model_ids: list[str]
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """(won, fought) counted from these rows for these models and tasks, or None."""
        of = _counted_from(duels_version, task_ids, model_ids)
        both = self.kept.read(f"{of}.counts", of, ("int32",), (2, len(model_ids), len(task_ids)))
        return None if both is None else (both[0], both[1])

    def keep(self, duels_version: str, task_ids: list[str], model_ids: list[str], won: np.ndarray,
             fought: np.ndarray) -> None:
        of = _counted_from(duels_version, task_ids, model_ids)  # also in the file: one renamed is not used
        self.kept.keep(f"{of}.counts", of, np.stack([won, fought]))
        kept = sorted(self.kept.folder.glob("*.counts"), key=_modified, reverse=True)
        for old in kept[KEPT_FILES:]:
            with contextlib.suppress(OSError):
                old.unlink()


def _counted_from(duels_version: str, task_ids: list[str], model_ids: list[str]) -> str:
    """The sha256 of what the counts are counted from."""
    described = json.dumps([COUNTS_VERSION, duels_version, task_ids, model_ids], ensure_ascii=False)
    return hashlib.sha256(described.encode()).hexdigest()


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # deleted meanwhile
        return 0.0
