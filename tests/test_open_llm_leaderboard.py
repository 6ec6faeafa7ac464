"""The shipped Open LLM Leaderboard v2 tasks file (`data/open_llm_leaderboard_v2_tasks.json`):
its demo store has the harness's document counts, and a run of the harness's `leaderboard`
group, written in the harness's layout, compiles with the tasks file alone to the
harness's own numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.board import Leaderboard
from leaderboard.config.tasks import load_benchmark
from leaderboard.demo import build_demo_store
from leaderboard.storage.local import LocalStore
from leaderboard.views.table import METRIC_VALUE, WIN_SCORE, leaderboard_table

ROOT = Path(__file__).resolve().parent.parent
TASKS_FILE = ROOT / "data" / "open_llm_leaderboard_v2_tasks.json"
RAW = json.loads(TASKS_FILE.read_text())
N_MODELS = 3


@pytest.fixture(scope="module")
def suite():
    return load_benchmark(TASKS_FILE)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, suite) -> Path:
    root = tmp_path_factory.mktemp("open_llm") / "store"
    build_demo_store(root, N_MODELS, seed=0, benchmark=suite)
    return root


def test_the_demo_store_has_the_harness_document_counts(demo_store, suite):
    references = Leaderboard(LocalStore(demo_store), suite).references()
    assert {t["id"]: references[t["id"]].n_samples for t in RAW["tasks"]} == {t["id"]: t["samples"] for t in RAW["tasks"]}


@pytest.mark.parametrize("values", [WIN_SCORE, METRIC_VALUE])
def test_every_view_has_distinct_column_headers(demo_store, suite, values):
    """Each benchmark is a category holding one task of the same name (BBH in BBH): the
    category's column and its task's must not share a header (the page refused a table
    with repeated columns and showed "Error")."""
    board = Leaderboard(LocalStore(demo_store), suite)
    for category in suite.categories:
        columns = leaderboard_table(board, category, values).columns
        assert columns.is_unique, (category, [c for c in columns if list(columns).count(c) > 1])
