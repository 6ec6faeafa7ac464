"""The public read API: what the app's named endpoints answer, as JSON values.

Each public method is one endpoint (app.py exposes them with `gr.api`, named by the
method). Parameters and returns are typed, as `gr.api` derives the endpoint's schema from
the hints, so this module keeps real annotations (no `from __future__ import annotations`).
Bad arguments (wrong type, over-long text, out of range, unknown) raise ValueError with a
message naming the parameter. Nothing here writes.
`adjusted=True` everywhere means duels judged by Benjamini-Hochberg adjusted p-values, as
the page's "BH-adjusted" setting.
"""
import functools
import inspect
import json
import math
import os

from gradio.data_classes import FileData

from leaderboard.board.state import Leaderboard
from leaderboard.views import compare, details, item_matrix, report_card
from leaderboard.views.table import (METRIC_VALUE, OVERALL, VALUE_NAMES, WIN_SCORE, check_category, is_overall,
                                     leaderboard_table)

# The public methods, in the order the About tab lists them.
ENDPOINTS = ("leaderboard_table", "model_details", "head_to_head", "duel_map", "report_card", "item_matrix")
MAX_MAP_MODELS = 200  # a duel map's models: 200² cells is already 40,000 records
MAX_TEXT_CHARS = 500  # a text argument: ids, categories and task ids are far shorter
_EXPECTED = {str: "text", bool: "true or false", int: "a whole number"}


def _kind(value) -> str:
    """What a JSON value is, in the words of the API's messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"true or false ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"text ({value[:40]!r}{'…' * (len(value) > 40)})"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _check_argument(name: str, expected: type, value) -> None:
    """Raise ValueError naming the parameter unless `value` is of the `expected` JSON type
    (bool is not a whole number here) and, as text, at most MAX_TEXT_CHARS long."""
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise ValueError(f"{name} must be {_EXPECTED[expected]}, not {_kind(value)}")
    if expected is str and len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"{name} is {len(value):,} characters long; at most {MAX_TEXT_CHARS}")


def _checked(method):
    """An endpoint whose arguments are checked against its type hints first: the caller
    gets which parameter is wrong and why, never a TypeError from deep inside."""
    signature = inspect.signature(method)

    @functools.wraps(method)  # gr.api reads the signature and hints through the wrapper
    def endpoint(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            _check_argument(name, signature.parameters[name].annotation, value)
        return method(*bound.args, **bound.kwargs)
    return endpoint


def _records(table) -> list[dict]:
    """A table as JSON records, its index (submission ids) as `submission_id`; NaN as null."""
    return json.loads(table.reset_index().to_json(orient="records", force_ascii=False))


def _percent(fraction: float) -> float | None:
    return None if math.isnan(fraction) else round(100 * float(fraction), 4)


class ReadApi:
    def __init__(self, board: Leaderboard):
        self.board = board

    def _category(self, category: str) -> str:
        check_category(self.board, category)
        return category

    def _model(self, parameter: str, submission_id: str) -> str:
        if submission_id not in self.board.models:
            raise ValueError(f"{parameter}: no published model {submission_id!r}; the ids are in leaderboard_table's "
                             f"submission_id")
        return submission_id

    @_checked
    def leaderboard_table(self, category: str = OVERALL, values: str = WIN_SCORE,
                          exclude_flagged: bool = False, adjusted: bool = False) -> list[dict]:
        """The ranked table of a category, as on the Leaderboard tab: one record per model, best
        first, with submission_id, rank, model, the ranking score's 95% intervals and tie group,
        scores in percent (values="metric": each task's own metric in a category), metadata and
        the flag (Flagged, Flag reason, Flag link). exclude_flagged=True ranks without the
        flagged models and their duels."""
        self.board.refresh()
        if values not in VALUE_NAMES:
            raise ValueError(f"unknown values {values!r}; choose {WIN_SCORE!r} or {METRIC_VALUE!r}")
        category = self._category(category)
        return _records(leaderboard_table(self.board, None if is_overall(category) else category,
                                          values, adjusted=adjusted, exclude_flagged=exclude_flagged))

    @_checked
    def model_details(self, submission_id: str, category: str = OVERALL, adjusted: bool = False) -> dict:
        """One published model: title, metadata, rank, overall, category and task win scores in
        percent, each task's metric value, its flag (or null), its pre-submissions disclosed from
        the 30 days before publication (by account or team: count, best and worst would-be
        rank, the fewest and most models they were ranked among), and its duels in the category
        (every task for Overall): per competitor and task the verdict, both p-values and the
        delta in the task's unit."""
        self.board.refresh()
        board = self.board
        submission_id, category = self._model("submission_id", submission_id), self._category(category)
        ranked = board.ranked(adjusted)
        model, row, flag = board.models[submission_id], ranked.loc[submission_id], board.flags.get(submission_id)
        disclosed = board.disclosure(submission_id)
        return {
            "submission_id": submission_id, "title": model.title, "metadata": model.metadata,
            "rank": int(row["rank"]), "models": len(board.models), "overall": _percent(row["overall"]),
            "categories": {c: _percent(row[c]) for c in board.benchmark.categories},
            "tasks": {t: _percent(row[t]) for t in board.benchmark.task_ids},
            "metric_values": {t: model.results.aggregates[t] for t in board.benchmark.task_ids},
            "flag": None if flag is None else {"reason": flag.reason, "link": flag.link, "flagged_at": flag.flagged_at},
            "presubmissions": disclosed.as_dict(),
            "duels": _records(details.duel_table(board, submission_id, None if is_overall(category) else category,
                                                 tournament=board.duels(adjusted), rank_order=ranked.index)
                              .set_index("competitor_id")),
        }

    @_checked
    def head_to_head(self, model_a: str, model_b: str, category: str = OVERALL, adjusted: bool = False) -> dict:
        """Two published models on the tasks of a category (every task for Overall), as on the
        Head-to-head tab: per task both metric values, A − B in the task's unit (Δ unit) and
        the better side (Better, Better when: higher or lower), both one-sided p-values, the
        two-sided p and the verdict (A wins, B wins, not separable); the record per
        category; the sign test over the tasks (ahead, behind, sign_p_two_sided, the one-sided
        sign_p_a_ahead and sign_p_b_ahead, sign_leader: "A", "B" or ""); on_demand is true
        when the two never dueled and the duels were run for this answer (not stored)."""
        self.board.refresh()
        model_a, model_b = self._model("model_a", model_a), self._model("model_b", model_b)
        category = self._category(category)
        if model_a == model_b:
            raise ValueError("model_a and model_b are the same model; pick two different models")
        result = compare.head_to_head(self.board, model_a, model_b, category, adjusted)
        sign = result.sign
        return {"model_a": model_a, "model_b": model_b, "title_a": result.title_a, "title_b": result.title_b,
                "category": result.category, "adjusted": adjusted, "on_demand": result.on_demand,
                "tasks": _records(result.tasks.set_index("task_id")), "record": _records(result.record.set_index("Category")),
                "ahead": int(sign.ahead), "behind": int(sign.behind), "sign_p_two_sided": float(sign.p_two_sided),
                "sign_p_a_ahead": float(sign.p_a_ahead), "sign_p_b_ahead": float(sign.p_b_ahead),
                "sign_leader": str(sign.leader(result.alpha))}

    @_checked
    def duel_map(self, scope: str = OVERALL, top: int = 50, adjusted: bool = False) -> dict:
        """The heatmap's data: every ordered pair among the `top` best models (at most 200) on a
        scope (Overall, a category or a task id), in the scope's rank order; per cell the
        verdict (won, lost, not separable, not dueled), the tasks won, lost and not separable,
        and on a task the p-values and delta."""
        self.board.refresh()
        benchmark = self.board.benchmark
        if scope != OVERALL and scope not in benchmark.categories and scope not in benchmark.task_ids:
            raise ValueError(f"unknown scope {scope!r}; choose {OVERALL}, a category ({', '.join(benchmark.categories)}) "
                             f"or a task id (the keys of model_details' tasks)")
        if not 1 <= top <= MAX_MAP_MODELS:
            raise ValueError(f"top must be between 1 and {MAX_MAP_MODELS}, not {top}")
        result = compare.duel_map(self.board, scope, adjusted, top)
        return {"scope": result.scope, "scope_name": result.scope_name, "model_ids": result.model_ids,
                "cells": _records(result.cells.set_index("model_id"))}

    def report_card(self) -> dict:
        """The report card, as in the About tab: benchmark, shape, the models x tasks matrix's
        file name and SHA-256, what each task's models x items matrix holds, per scope
        (Overall, then each category) the models that could be first and last by their
        simultaneous 95% rank sets, the tiers resolved, the largest unseparated set, the
        percent of ordered pairs established, the median set width and the top-10 resolution
        (scopes is null while they are computed after a publication), per 0/1 task the
        discordance, each figure's definition, the draft's fields not on the card, and
        provenance."""
        self.board.refresh()
        return report_card.report_card(self.board)

    @_checked
    def item_matrix(self, task_id: str) -> FileData:
        """One task's models x items matrix as a CSV file (built when first asked for, then
        kept while the board is the same): a row per model in rank order (`submission_id`
        first), a column per item named by its document id, each value what the task's
        figures are computed from (report_card's item_matrices say what, per task); its
        SHA-256 is the name of the file's folder. Tasks whose metric keeps bootstrap
        statistics instead of a value per item (perplexity, token F1, macro-F1, ...) have none."""
        self.board.refresh()
        matrix = item_matrix.item_matrix(self.board, task_id)
        return FileData(path=matrix.path, orig_name=os.path.basename(matrix.path), mime_type="text/csv")
