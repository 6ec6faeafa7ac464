"""The reference's own layout in the tests: its tournament.json read as a Tournament."""
from __future__ import annotations

from collections.abc import Mapping

from leaderboard.engine.tournament import Tournament, rows_from_json


def tournament_from_json(data: Mapping[str, object] | None, task_ids: list[str], model_ids: list[str]) -> Tournament:
    """Duels among `model_ids` only: entries of unknown models or tasks are dropped.
    Their rules are not recorded (UNRECORDED_RULES)."""
    return Tournament(task_ids, model_ids, rows_from_json(data, task_ids, {m: i for i, m in enumerate(model_ids)}))
