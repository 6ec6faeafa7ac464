"""The bootstrap's resample counts kept on disk between command-line processes
(`leaderboard.storage.kept_draws`): a kept draw is the fresh draw; a damaged or stale
file is drawn again and rewritten; a folder that cannot be written costs nothing but the
keeping. A cold `presubmit` process otherwise draws every task's counts again (about 1 s
of CPU for BenCzechMark's 50 tasks)."""
from __future__ import annotations

from support.cli import cli

import contextlib
import json
import os
import zlib

import numpy as np

from leaderboard.storage.kept_draws import DrawsFolder
from stats import duel_tests

N, SEED, RESAMPLES = 300, 11, 200


def cold_counts(folder: DrawsFolder | None = None) -> np.ndarray:
    """`resample_counts(N, SEED, RESAMPLES)` as a fresh process gets it: nothing drawn in memory."""
    duel_tests.resample_counts.cache_clear()
    duel_tests._drawn_counts.cache_clear()
    with duel_tests.draws_kept_in(folder) if folder else contextlib.nullcontext():
        return duel_tests.resample_counts(N, SEED, RESAMPLES)


def refuse_to_draw(monkeypatch) -> None:
    def draw(*args):
        raise AssertionError(f"drawn again: {args}")
    monkeypatch.setattr(duel_tests, "_draw", draw)


def test_a_kept_draw_is_the_fresh_draw_and_a_damaged_or_stale_one_is_drawn_again(tmp_path, monkeypatch):
    fresh = cold_counts()
    folder = DrawsFolder(tmp_path / "draws")
    assert np.array_equal(cold_counts(folder), fresh)
    [kept] = (tmp_path / "draws").iterdir()
    kept_bytes = kept.read_bytes()
    with monkeypatch.context() as patched:
        refuse_to_draw(patched)
        read = cold_counts(folder)
    assert np.array_equal(read, fresh) and read.dtype == fresh.dtype and not read.flags.writeable

    stored = dict(np.load(kept))
    changed = stored["counts"].copy()
    changed[0, 0] += 1  # a count changed under its checksum
    damaged = {"a count changed": {**stored, "counts": changed},
               "drawn by another numpy": {**stored, "numpy": np.str_("0.0.1")},
               "drawn by another version of the draw": {**stored, "draw": np.int64(duel_tests.DRAW_VERSION + 1)},
               "another draw's counts": {**stored, "counts": stored["counts"][:, :-1],
                                         "crc32": np.uint32(zlib.crc32(stored["counts"][:, :-1].tobytes()))}}
    for what, arrays in damaged.items():
        with kept.open("wb") as f:
            np.savez(f, **arrays)
        assert np.array_equal(cold_counts(folder), fresh), what
        assert kept.read_bytes() == kept_bytes, what  # drawn again and kept again
    for broken in (kept_bytes[:len(kept_bytes) // 2], b"", b"not a zip file"):
        kept.write_bytes(broken)
        assert np.array_equal(cold_counts(folder), fresh)
        assert kept.read_bytes() == kept_bytes


def test_a_pre_submission_keeps_each_task_s_draw_and_the_next_process_reads_them(new_model_file, full_store,
                                                                                 tmp_path, monkeypatch):
    environment = {**os.environ, "LEADERBOARD_CACHE_DIR": str(tmp_path / "cache")}
    command = ("presubmit", new_model_file, "--store", full_store, "--team", "CLI Team", "--model", "cli-model",
               "--json")
    duel_tests.resample_counts.cache_clear()
    duel_tests._drawn_counts.cache_clear()
    first = cli(*command, env=environment)
    assert first.returncode == 0, first.stderr
    kept = sorted(p.name for p in (tmp_path / "cache" / "resamples").iterdir())
    assert len(kept) >= 50 and all(name.endswith(".npz") for name in kept)  # each task's, at least

    duel_tests.resample_counts.cache_clear()  # a fresh process: nothing drawn in memory
    duel_tests._drawn_counts.cache_clear()
    refuse_to_draw(monkeypatch)
    again = cli(*command, env=environment)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)


def test_a_folder_that_cannot_keep_the_draws_changes_nothing_but_the_keeping(tmp_path):
    fresh = cold_counts()
    in_the_way = tmp_path / "draws"
    in_the_way.write_text("a file where the folder would be")
    assert np.array_equal(cold_counts(DrawsFolder(in_the_way)), fresh)
    assert in_the_way.read_text() == "a file where the folder would be"
