"""The scale benchmark's settled stores (`bench/bench_scale.py --settled`): duels computed once
per pair of contents and copied are the duels `rebuild` runs (the engine's own backfill
from an empty store), the panel settles at its start and a fresh load finds nothing missing."""
from __future__ import annotations

import json

import numpy as np

from bench import bench_scale
from bench.bench_scale import phase_build
from leaderboard.board.state import Leaderboard
from leaderboard.config.tasks import DEFAULT_TASKS_FILE
from leaderboard.storage.local import LocalStore

PANEL = 8  # the shipped benchmark with a panel of 8 (its 50 at scale: bench/bench_scale.py --settled)
N_MODELS = 14  # more than the panel
POOL = range(200_000, 202_000)  # holds the panel and the others below it; the bench's 60,000 cost ~1 s per 5,000


def pairs(board: Leaderboard) -> dict[tuple[str, str], int]:
    rows, ids = board.tournament.rows(), board.tournament.model_ids
    return {(ids[a], ids[b]): k for k, (a, b) in enumerate(zip(rows.first, rows.second))}


def test_settled_store_holds_the_duels_rebuild_runs(tmp_path, monkeypatch):
    tasks = json.loads(DEFAULT_TASKS_FILE.read_text()) | {"top_opponents": PANEL}
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    monkeypatch.setenv("LEADERBOARD_TASKS", str(tmp_path / "tasks.json"))
    monkeypatch.setattr(bench_scale, "PANEL_POOL", POOL)
    settled = phase_build(str(tmp_path / "settled"), N_MODELS, 40, "settled", 20)
    rebuilt = phase_build(str(tmp_path / "rebuilt"), N_MODELS, 40, "rebuild", 20)
    assert settled["panel_is_the_members"]
    assert settled["backfilled_pairs"] == 0 and settled["missing_duels_after_load"] == 0
    assert rebuilt["dueled"] == settled["duel_rows"] // 2  # rebuild counts each pair once
    mine, theirs = (Leaderboard(LocalStore(tmp_path / name)) for name in ("settled", "rebuilt"))
    assert mine.benchmark.top_opponents == PANEL and len(mine.models) == N_MODELS
    assert list(mine.models) == list(theirs.models)
    mine_pairs, their_pairs = pairs(mine), pairs(theirs)
    assert set(mine_pairs) == set(their_pairs) and len(mine_pairs) == settled["duel_rows"]
    order_mine, order_theirs = list(mine_pairs.values()), [their_pairs[p] for p in mine_pairs]
    a, b = mine.tournament.rows().take(order_mine), theirs.tournament.rows().take(order_theirs)
    assert (a.fought == b.fought).all() and (a.significant == b.significant).all()
    np.testing.assert_allclose(a.p_value, b.p_value, rtol=1e-12, atol=0)
    np.testing.assert_allclose(a.delta, b.delta, rtol=1e-12, atol=1e-15)
    assert a.significant.any() and not a.significant.all()
    assert mine.ranked()["rank"].equals(theirs.ranked()["rank"])


def test_a_linked_copy_s_writer_never_waits_for_the_original_s(small_store, tmp_path):
    """Benchmarks run side by side on hard-linked copies of one store: a lock file linked
    into a copy is the original's (flock locks the file, whatever its name), so a copy's
    writer would wait for every other copy's."""
    import threading

    original = small_store.store.root
    copy = tmp_path / "copy"
    with LocalStore(original).lock():
        bench_scale.linked_copy(original, copy)
        locked = threading.Event()

        def write_to_the_copy():
            with LocalStore(copy).lock():
                locked.set()

        threading.Thread(target=write_to_the_copy, daemon=True).start()
        assert locked.wait(timeout=10), "the copy's writer waited for the original's lock"
    assert (copy / "data").is_dir() and sorted(p.name for p in (copy / "data").iterdir()) == \
        sorted(p.name for p in (original / "data").iterdir())
