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
from pathlib import Path

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

    header_line, data = kept_bytes.split(b"\n", 1)
    header = json.loads(header_line)
    changed = bytes([data[0] + 1]) + data[1:]  # a count changed under its checksum

    def kept_as(header_changes: dict, counts: bytes = data) -> bytes:
        return json.dumps({**header, **header_changes}).encode() + b"\n" + counts
    damaged = {"a count changed": kept_as({}, changed),
               "drawn by another numpy": kept_as({"drawn_by": [duel_tests.DRAW_VERSION, "0.0.1"]}),
               "drawn by another version of the draw": kept_as({"drawn_by": [duel_tests.DRAW_VERSION + 1,
                                                                             np.__version__]}),
               "another draw's counts": kept_as({"crc32": zlib.crc32(data[:-N])}, data[:-N]),
               "counts of another type": kept_as({"dtype": "object"}),
               "more bytes than counts": kept_as({}, data + data[:N]),
               "cut short": kept_bytes[:len(kept_bytes) // 2], "empty": b"", "not ours": b"[1, 2]\n" + data}
    for what, damage in damaged.items():
        kept.write_bytes(damage)
        assert np.array_equal(cold_counts(folder), fresh), what
        assert kept.read_bytes() == kept_bytes, what  # drawn again and kept again


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
    assert len(kept) >= 50 and all(name.endswith(".counts") for name in kept)  # each task's, at least

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


def test_a_user_without_a_home_folder_pre_submits_all_the_same(new_model_file, full_store, monkeypatch):
    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(Path, "home", no_home)
    environment = {k: v for k, v in os.environ.items() if k != "LEADERBOARD_CACHE_DIR"}
    result = cli("presubmit", new_model_file, "--store", full_store, "--team", "CLI Team", "--model", "cli-model",
                 "--json", env=environment)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["of"] == 6
