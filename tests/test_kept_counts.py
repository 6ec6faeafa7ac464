"""The duels' won and fought counts kept between command-line processes
(`leaderboard.storage.kept_counts`): a load of the same rows takes them instead of
counting every row (0.5 s of CPU at 10,000 models), and gets the board a full count
gives; every write (a publication, a removal, a rebuild, a duel file changed by hand)
makes the next load count again, and a damaged or foreign file is not used."""
from __future__ import annotations

from support.stores import publish_all

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.engine import tournament
from leaderboard.storage.kept_counts import CountsFolder
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import DUELS_DIR


def loaded(root: Path, benchmark, kept: CountsFolder | None) -> tuple[Leaderboard, int]:
    """The board of the store at `root`, and how many row batches its load counted."""
    counted = []
    real = tournament.true_counts
    tournament.true_counts = lambda *args: counted.append(1) or real(*args)
    try:
        return Leaderboard(LocalStore(root), benchmark, counts_kept=kept), len(counted)
    finally:
        tournament.true_counts = real


def assert_same_board(board: Leaderboard, counted: Leaderboard) -> None:
    for mine, full in zip(board.tournament.counts(), counted.tournament.counts()):
        np.testing.assert_array_equal(mine, full)
    pd.testing.assert_frame_equal(board.ranked(), counted.ranked())


def test_a_load_of_the_same_rows_takes_the_kept_counts_and_ranks_as_a_full_count(small_store, small_benchmark,
                                                                                   tmp_path):
    root, kept = small_store.store.root, CountsFolder(tmp_path / "counts")
    first, counted = loaded(root, small_benchmark, kept)
    assert counted and len(list((tmp_path / "counts").glob("*.counts"))) == 1
    again, counted = loaded(root, small_benchmark, kept)
    assert counted == 0
    assert_same_board(again, loaded(root, small_benchmark, None)[0])


def rewrite_a_duel_file_by_hand(board: Leaderboard, documents) -> None:
    owner = max((board.store.root / DUELS_DIR).glob("*.parquet"), key=lambda p: p.stat().st_size)
    table = pq.read_table(owner)
    pq.write_table(table.slice(0, table.num_rows - 2), owner)


WRITES = {"a publication": lambda board, documents: publish_all(board, documents[5:6]),
          "a removal": lambda board, documents: Administration(board).remove(next(iter(board.models)), "test"),
          "a rebuild": lambda board, documents: Administration(board).rebuild(recompute=True),
          "a duel file changed by hand": rewrite_a_duel_file_by_hand}


@pytest.mark.parametrize("write", WRITES)
def test_after_each_write_the_next_load_counts_again(write, small_store, small_benchmark, small_documents, tmp_path):
    root, kept = small_store.store.root, CountsFolder(tmp_path / "counts")
    loaded(root, small_benchmark, kept)
    WRITES[write](small_store, small_documents)
    board, counted = loaded(root, small_benchmark, kept)
    assert counted, write
    assert_same_board(board, loaded(root, small_benchmark, None)[0])
    assert loaded(root, small_benchmark, kept)[1] == 0  # kept again, for the rows as they are now


def test_a_damaged_or_foreign_counts_file_is_not_used(small_store, small_benchmark, small_documents, tmp_path):
    root, kept = small_store.store.root, CountsFolder(tmp_path / "counts")
    other = tmp_path / "other"
    shutil.copytree(root, other)
    elsewhere = Leaderboard(LocalStore(other), small_benchmark)
    Administration(elsewhere).remove(next(iter(elsewhere.models)), "test")
    publish_all(elsewhere, small_documents[5:6])  # another board of as many models
    loaded(other, small_benchmark, CountsFolder(tmp_path / "foreign"))
    [foreign] = (tmp_path / "foreign").glob("*.counts")
    loaded(root, small_benchmark, kept)
    [file] = (tmp_path / "counts").glob("*.counts")
    good = file.read_bytes()
    damaged = bytearray(good)
    damaged[-3] ^= 0x01
    for what, data in {"a count changed": bytes(damaged), "cut short": good[:len(good) // 2],
                       "another board's, of as many models": foreign.read_bytes()}.items():
        file.write_bytes(data)
        board, counted = loaded(root, small_benchmark, kept)
        assert counted, what
        assert_same_board(board, loaded(root, small_benchmark, None)[0])
        assert file.read_bytes() == good, what  # counted again and kept again
