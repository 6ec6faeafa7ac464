"""The reference's own layout in the tests: its tournament.json read as a Tournament."""
from __future__ import annotations

from pathlib import Path
import json
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import TOURNAMENT_FILE
from support.stores import publish_all

from collections.abc import Mapping

from leaderboard.engine.tournament import Tournament, rows_from_json


def tournament_from_json(data: Mapping[str, object] | None, task_ids: list[str], model_ids: list[str]) -> Tournament:
    """Duels among `model_ids` only: entries of unknown models or tasks are dropped.
    Their rules are not recorded (UNRECORDED_RULES)."""
    return Tournament(task_ids, model_ids, rows_from_json(data, task_ids, {m: i for i, m in enumerate(model_ids)}))


def reference_layout_store(tmp_path, benchmark, documents) -> tuple[Leaderboard, Path]:
    """A board in our layout, and a copy of it as the reference writes it: tournament.json
    with bare-bool duels on one task, the old rouge spelling, no cache."""
    board = Leaderboard(LocalStore(tmp_path / "ours"), benchmark)
    publish_all(board, documents)
    root = Administration(board).export_reference_layout(tmp_path / "ref")
    for path in (root / "data").glob("*.json"):
        doc = json.loads(path.read_text())
        for sample in doc["predictions"]["t_rouge"]:
            sample["rouge_raw_r2_mid_f_without_bootstrap"] = sample.pop("rouge_raw_r2_mid_f")
        path.write_text(json.dumps(doc))
    tour = json.loads((root / TOURNAMENT_FILE).read_text())
    for row in tour.values():
        for entry in row.values():
            entry["t_acc"] = entry["t_acc"]["significant"]
    (root / TOURNAMENT_FILE).write_text(json.dumps(tour))
    return board, root
