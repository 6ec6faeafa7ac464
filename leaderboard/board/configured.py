"""The store and board the environment configures (LEADERBOARD_REPO with HF_TOKEN, or
LEADERBOARD_STORE, and LEADERBOARD_TASKS), else each benchmark's local demo store."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from leaderboard.board.publishing import Publishing
from leaderboard.board.state import Leaderboard
from leaderboard.config.settings import Settings
from leaderboard.config.tasks import Benchmark, load_benchmark
from leaderboard.engine.progress import Progress, no_progress
from leaderboard.storage.local import LocalStore
from leaderboard.submission.demo import demo_submission, task_design
from leaderboard.submission.metadata import SubmissionMetadata, validate_metadata
from leaderboard.submission.parsing import ParsedSubmission, canonical_sha256
from leaderboard.storage.store import Store

DEMO_STORE = Path(__file__).resolve().parent.parent.parent / "demo_store"
DEMO_MODELS = 40


def open_configured_store(benchmark_name: str) -> Store | None:
    """A HubStore for LEADERBOARD_REPO (with HF_TOKEN), else a LocalStore for
    LEADERBOARD_STORE, else None (the demo store)."""
    settings = Settings.from_environment()
    if settings.repo:
        from leaderboard.storage.hub import HubStore
        return HubStore(settings.repo, token=settings.hf_token, benchmark_name=benchmark_name)
    return LocalStore(settings.store, benchmark_name) if settings.store else None


def demo_store_folder(benchmark: Benchmark) -> Path:
    """Each benchmark's demo store in its own folder: demo_store/<benchmark name>."""
    return DEMO_STORE / (re.sub(r"[^A-Za-z0-9.-]+", "-", benchmark.name).strip("-.") or "benchmark")


def open_configured_board(progress: Progress = no_progress) -> Leaderboard:
    """The configured benchmark (LEADERBOARD_TASKS) on the configured store (see
    open_configured_store), or on its local demo store (built on first use)."""
    benchmark = load_benchmark()
    configured = open_configured_store(benchmark.name)
    if configured is not None:
        return Leaderboard(configured, benchmark, progress=progress)
    store = LocalStore(demo_store_folder(benchmark), benchmark.name)
    if not store.submission_ids():
        return build_demo_store(store.root, DEMO_MODELS, benchmark=benchmark, progress=progress)
    return Leaderboard(store, benchmark, progress=progress)


def build_demo_store(root: str | Path, n_models: int = 40, seed: int = 0, benchmark: Benchmark | None = None,
                     progress: Progress = no_progress) -> Leaderboard:
    """A store at `root` of `n_models` demo models, written in one commit; the same store
    as publishing them one by one (tests/test_demo.py checks), in a fraction of the time:
    the files are not parsed back and the snapshot is made once. Returns the Leaderboard."""
    benchmark = benchmark or load_benchmark()
    board = Leaderboard(LocalStore(root, benchmark.name), benchmark)
    designs = {t.id: task_design(t, seed) for t in board.benchmark.tasks}

    def submissions() -> Iterator[tuple[SubmissionMetadata, ParsedSubmission, float]]:
        for i in range(n_models):
            form, document, submitted_at, tasks = demo_submission(board.benchmark, i, seed, designs)
            parsed = ParsedSubmission(tasks, document, canonical_sha256(document["predictions"]),
                                      canonical_sha256(document["results"]))
            yield validate_metadata(**form), parsed, submitted_at
    Publishing(board).publish_all(submissions(), lambda f, message: progress(f, f"building the demo store: {message}"), n_models)
    return board
