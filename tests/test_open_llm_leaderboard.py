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
