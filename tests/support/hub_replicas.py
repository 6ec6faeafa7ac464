"""Replicas of a Hub-backed board on the fake hub (fake_hub.py)."""
from __future__ import annotations

from leaderboard.board.publishing import Publishing
from leaderboard.board.state import Leaderboard
from leaderboard.storage.hub import HubStore
from leaderboard.strict_json import dump_json


REPO = "czech/leaderboard"


def replica(hub, tmp_path, benchmark, name: str, token: str | None = "default") -> Leaderboard:
    """One app instance: its own store object and its own local caches."""
    token = hub.token if token == "default" else token
    store = HubStore(REPO, token=token, endpoint=hub.url, cache_dir=tmp_path / f"cache-{name}",
                     benchmark_name=benchmark.name)
    return Leaderboard(store, benchmark)


def preview(board, document_entry):
    form, document, _ = document_entry
    return Publishing(board).presubmit(dump_json(document), form)
