"""The demo store: built in one commit, and the same store as publishing its models one by one."""
from __future__ import annotations

from support.cli import cli
from support.stores import SMALL_TASKS, publish_all

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.storage.local import LocalStore
from leaderboard.config.tasks import load_benchmark
from leaderboard.views.table import leaderboard_table

ROOT = Path(__file__).resolve().parent.parent


def _benchmark(tmp_path, tasks: dict, top_opponents: int):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({**tasks, "top_opponents": top_opponents}))
    return load_benchmark(path)


def _czechsuite() -> dict:
    return json.loads((ROOT / "data" / "czechsuite_tasks.json").read_text())


@pytest.mark.parametrize("tasks, top_opponents, n_models", [
    (SMALL_TASKS, 50, 8),  # every model duels every earlier one
    (SMALL_TASKS, 3, 8),  # each duels the 3 best of its day: the replay picks the opponents
    (None, 2, 5),  # CzechSuite: judge, label-pair and token-F1 samples
], ids=["small-all-opponents", "small-top-3", "czechsuite-top-2"])
def test_the_demo_store_equals_publishing_its_models_one_by_one(tmp_path, tasks, top_opponents, n_models):
    benchmark = _benchmark(tmp_path, tasks or _czechsuite(), top_opponents)
    steps = []
    build_demo_store(tmp_path / "demo", n_models, seed=3, benchmark=benchmark,
                     progress=lambda fraction, message: steps.append((fraction, message)))
    sequential = Leaderboard(LocalStore(tmp_path / "sequential"), benchmark)
    designs = {t.id: task_design(t, 3) for t in benchmark.tasks}
    publish_all(sequential, [demo_model(benchmark, i, 3, designs) for i in range(n_models)])
    assert Publishing(sequential).refresh_intervals()  # after the last commit, as `publish` and the app do

    demo = Leaderboard(LocalStore(tmp_path / "demo"), benchmark)  # as read back from disk
    sequential = Leaderboard(LocalStore(tmp_path / "sequential"), benchmark)
    assert Administration(demo).check() == [] and len(demo.models) == n_models
    pd.testing.assert_frame_equal(leaderboard_table(demo, None), leaderboard_table(sequential, None), check_exact=True)
    for category in benchmark.categories:
        pd.testing.assert_frame_equal(leaderboard_table(demo, category), leaderboard_table(sequential, category),
                                      check_exact=True)
    for sid in sequential.models:  # the same files, metadata (times, hashes) included
        assert demo.store.read_document(sid) == sequential.store.read_document(sid)
    assert demo.tournament.to_json() == sequential.tournament.to_json()
    for name in ["leaderboard.parquet", *(f"titles/{p.name}" for p in (tmp_path / "demo" / "titles").iterdir())]:
        assert (tmp_path / "demo" / name).read_bytes() == (tmp_path / "sequential" / name).read_bytes()
    assert sorted(os.listdir(tmp_path / "demo" / "titles")) == sorted(os.listdir(tmp_path / "sequential" / "titles"))
    fractions = [f for f, _ in steps]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] <= 1
    assert any(f"model {n_models} of {n_models}" in message for _, message in steps)


def test_the_demo_store_is_written_in_one_commit(tmp_path, small_benchmark, monkeypatch):
    """One commit: a build killed part-way leaves no half store (which the app, seeing
    submissions, would never finish)."""
    commits = []
    original = LocalStore._commit
    monkeypatch.setattr(LocalStore, "_commit", lambda store, writes, deletes=(): (commits.append(sorted(writes)),
                                                                                  original(store, writes, deletes)))
    build_demo_store(tmp_path / "demo", 6, seed=0, benchmark=small_benchmark)
    assert len(commits) == 1
    assert sum(name.startswith("data/") for name in commits[0]) == 6
    assert sum(name.startswith("duels/") for name in commits[0]) == 6


def test_a_demo_of_no_models_is_refused(tmp_path):
    result = cli("demo", "--store", tmp_path / "demo", "--models", "0")
    assert result.returncode == 2 and "--models must be at least 1, got 0" in result.stderr, result.stderr
    assert not (tmp_path / "demo" / "data").exists()
