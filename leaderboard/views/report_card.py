"""The report card (issue 34): what the board can and cannot tell apart, per scope, with each
figure's one-line definition, in the fields of the Leaderboard Reporting Standard (draft 0.2)
that apply to a board of models x items; and the models x tasks matrix it is computed from,
for download.

Everything is read from the board's certainty table (`ranking.certainty_table`: computed
after a publication and cached), so the card costs nothing on the publication's path.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import math
import threading
from importlib import metadata
from typing import Callable

import numpy as np
import pandas as pd

from leaderboard.engine import ranking
from stats import rank_sets
from stats.discordance import binary_discordance
from stats.evidence import CERTAINTY_RESAMPLES
from leaderboard.views.table import (INTERVAL, OVERALL, as_of, export_file, export_name, filter_table, merged_intervals,
                                     spreadsheet_safe)

log = logging.getLogger(__name__)

# Each figure of a scope's row and what it means, in one line.
DEFINITIONS = {
    "models": "models ranked in the scope",
    "could_be_first": "models whose simultaneous 95% rank set holds rank 1",
    "could_be_last": "models whose simultaneous 95% rank set holds the last rank",
    "tiers": "levels the data separates: the longest chain of models each established above the next",
    "largest_unseparated": "the most models of which no two are established apart",
    "established_percent": "ordered pairs of models whose order is established, in percent of all N (N - 1) "
                           "(every share on the card and the page is in percent)",
    "median_set_width": "the median number of ranks in a model's simultaneous 95% rank set",
    "top_k": "the best k models by score whose order top_k_bits measures (k = 10, or every model when fewer)",
    "top_k_bits": "top-k resolution: bits of the top k's order the data leaves undetermined, log2 of the orders of "
                  "them that keep every established pair (0: one order; log2(k!) = 21.8 for k = 10: none established)",
}
# The page's headings of those figures: words for a reader, where the card's JSON keeps its keys.
SCOPE_HEADINGS = {"scope": "Scope", "models": "Models", "could_be_first": "Could be first",
                  "could_be_last": "Could be last", "tiers": "Tiers", "largest_unseparated": "Largest unseparated set",
                  "established_percent": "Established pairs %", "median_set_width": "Median rank-set width",
                  "top_k": "Top k", "top_k_bits": "Top-k bits undetermined"}
# Per task with 0/1 values (`task_rows`).
TASK_DEFINITIONS = {
    "discordance": "items on which two models' answers differ, on average over every pair of models (the draft's "
                   "R8: the mean over pairs of the sum over items of |x_j - x_k|)",
    "discordance_top": "the same among the top decile of the task's models by its score (at least 2, rounded)",
}
TASK_HEADINGS = {"task": "Task", "items": "Items", "discordance": "Discordance",
                 "discordance_top": "Discordance, top decile"}
# The draft's fields this card does not carry, and why.
NOT_APPLICABLE = (
    "Fields of the Leaderboard Reporting Standard (draft 0.2) not on this card: R3, the bits of the whole board's "
    "order left undetermined (its top-k resolution, R4, is here: the whole board's count is an estimate over "
    "thousands of models, which the draft makes by sampling, and the rank sets and tiers already say how far the "
    "order is resolved); R7, invariance under a split of the items by difficulty, which needs one item matrix whose "
    "items share a scale (this board averages tasks of different metrics, and the field score gives every task's "
    "column the same mean, where the reference's own card stops); R10, the first pair's resolution, which the "
    "Head-to-head tab gives for any pair, task by task.")

# The per-model table's columns (`model_rows`).
MODEL_DEFINITIONS = {
    "these tasks": "a 95% interval over fresh draws of test items on this benchmark's tasks (the Leaderboard tab's)",
    "tasks drawn too": "a 95% interval over fresh draws of tasks within each category as well as of items",
    "rank set (all at once)": "a simultaneous 95% rank set: all models' sets hold their true ranks at once",
    "tier": "a model's level: 1 + the longest chain of models established above it",
}
PROVENANCE = {
    "software": "the duel-leaderboard version that computed the card",
    "seed": "each task's resamples are seeded by the CRC-32 of its task id, the same for every model",
    "resamples": "resamples of each task's items behind the intervals and the rank sets",
    "date": "when the board last changed (UTC)",
    "command": "recomputes the ranking from the store",
    "matrix_sha256": "SHA-256 of the bytes of the file matrix_file (the models x tasks matrix, 'Download the "
                     "models x tasks matrix'); recompute it with `sha256sum <file>`",
    "item_matrices": "per task with a value per item, what a value of its models x items matrix is (the API's "
                     "item_matrix, or pick the task on the card); each file's SHA-256 names its folder and is shown "
                     "when it is built",
}
COMMAND = "duel-leaderboard table"


def scores_matrix(board) -> pd.DataFrame:
    """Models x tasks: each model's field score per task (the share of the field whose task
    score it beats, in [0, 1]), rows in rank order, the submission id first."""
    ranked = board.ranked()
    return ranked[board.benchmark.task_ids].rename_axis("submission_id").reset_index()


def matrix_csv(board) -> bytes:
    return spreadsheet_safe(scores_matrix(board)).to_csv(index=False).encode("utf-8")


def _software() -> str:
    try:
        return metadata.version("duel-leaderboard")
    except metadata.PackageNotFoundError:  # run from a checkout without installing it
        return "a checkout (not installed)"


def scope_rows(board) -> pd.DataFrame | None:
    """One row per scope (Overall, then each category) with the DEFINITIONS' figures; None
    while the certainty is being computed after a publication."""
    certainty = board.certainty(wait=False)
    if certainty is None:
        return None
    rows = []
    for scope in [ranking.OVERALL, *board.benchmark.categories]:
        sets = certainty[scope]
        ranked = sets[sets["tier"] > 0]  # models with results
        n = len(ranked)
        pairs = n * (n - 1)
        rows.append({
            "scope": OVERALL if scope == ranking.OVERALL else scope, "models": n,
            "could_be_first": int((ranked["set_low"] == 1).sum()),
            "could_be_last": int((ranked["set_high"] == n).sum()),
            "tiers": int(ranked["tier"].max()) if n else 0,
            "largest_unseparated": int(ranked["largest_unseparated"].max()) if n else 0,
            "established_percent": round(100 * float(ranked["established_below"].sum()) / pairs, 2) if pairs else 0.0,
            "median_set_width": float((ranked["set_high"] - ranked["set_low"] + 1).median()) if n else 0.0,
            "top_k": min(rank_sets.TOP_K, n),
            "top_k_bits": round(float(ranked["top_k_bits"].max()), 2) if n else 0.0,
        })
    return pd.DataFrame(rows)


def scope_table(board) -> pd.DataFrame | None:
    """`scope_rows` under the page's headings (SCOPE_HEADINGS)."""
    rows = scope_rows(board)
    return None if rows is None else rows.rename(columns=SCOPE_HEADINGS)


def task_table(board) -> pd.DataFrame:
    """`task_rows` under the page's headings (TASK_HEADINGS)."""
    return task_rows(board).rename(columns=TASK_HEADINGS)


_last_task_rows: tuple = (None, None)  # (the ranked table they describe, the rows)
_computing_task_rows = threading.Lock()  # one computation at a time: a second caller waits, then finds the rows


def task_rows(board) -> pd.DataFrame:
    """Per task with 0/1 values (accuracy, exact match): its items and TASK_DEFINITIONS'
    discordance, from the models' per-item arrays; computed once per board version. Each
    model's arrays are read once (a file per model: reading them task by task opened every
    model's file once per task, 118 s at 10,000 models against 8-13 s; bench/RESULTS.md),
    its answers kept as bits until each task's top decile is known."""
    with _computing_task_rows:
        ranked = board.ranked()
        if _last_task_rows[0] is not ranked:
            _compute_task_rows(board, ranked)
        return _last_task_rows[1]


def warm_task_rows(board, before: Callable[[], object] = lambda: None) -> threading.Thread:
    """`task_rows` of the board as it is computed in a thread, after `before()`: what About's
    first open after a start or a publication would wait for (8-13 s at 10,000 models)."""
    def run() -> None:
        before()
        try:
            task_rows(board)
        except Exception as e:  # noqa: BLE001 - the next About visitor computes them
            log.warning("computing the report card's discordance failed: %s", e)
    thread = threading.Thread(target=run, name="leaderboard-report-card", daemon=True)
    thread.start()
    return thread


def _compute_task_rows(board, ranked: pd.DataFrame) -> None:
    global _last_task_rows
    ids = list(ranked.index)
    tasks = [task.id for task in board.benchmark.tasks if task.metric.sample_kind == "binary"] if len(ids) > 1 else []
    answers: dict[str, list[np.ndarray]] = {task: [] for task in tasks}  # per task, each model's packed 0/1 answers
    items: dict[str, int] = {}  # per task, as the models' arrays hold them (packing rounds up to bytes)
    scores = np.empty((len(tasks), len(ids)))
    for k, model in enumerate(ids):
        summaries = board.models[model].results.summaries
        for j, task in enumerate(tasks):
            right = np.asarray(summaries[task]).ravel().astype(bool)  # 0 or 1 (checked on reading)
            scores[j, k] = right.mean()  # the task's accuracy
            answers[task].append(np.packbits(right))
            items.setdefault(task, right.size)
    rows = []
    for j, task in enumerate(tasks):
        packed = np.stack(answers.pop(task))
        top = np.argsort(-scores[j], kind="stable")[:max(2, round(len(ids) / 10))]
        right = np.unpackbits(packed, axis=1, count=items[task]).sum(axis=0, dtype=np.int64)
        right_top = np.unpackbits(packed[top], axis=1, count=items[task]).sum(axis=0, dtype=np.int64)
        rows.append({"task": task, "items": items[task], "discordance": round(binary_discordance(right, len(ids)), 2),
                     "discordance_top": round(binary_discordance(right_top, len(top)), 2)})
    _last_task_rows = (ranked, pd.DataFrame(rows, columns=["task", "items", *TASK_DEFINITIONS]))


# The per-model table's interval columns: which draw each is about.
ITEMS_ONLY = "these tasks"
TASKS_TOO = "tasks drawn too"


def model_rows(board) -> pd.DataFrame | None:
    """Overall, one row per model in rank order: the score (percent) with its 95% interval
    over draws of items on these tasks and over draws of tasks within categories too, the
    rank's two intervals, the simultaneous 95% rank set and the tier; None while being
    computed."""
    table = _model_table(board)
    return None if table is None else merged_intervals(table).reset_index(drop=True)


# The page's per-model table shows at most this many rows: Gradio keeps each visitor's table
# on the server as long as it keeps the session, and every model's rows were 10 MB a visit at
# 10,000 models (bench/RESULTS.md, session 23). Every model's row is in the card's JSON.
SHOWN_MODEL_ROWS = 50


def shown_model_rows(board, search: str = "", limit: int = SHOWN_MODEL_ROWS) -> pd.DataFrame | None:
    """`model_rows` of the first `limit` models in rank order whose title contains `search`
    (as the Leaderboard's search matches: literal, case-insensitive; empty: the best)."""
    table = _model_table(board)
    if table is None:
        return None
    return merged_intervals(filter_table(table, search).head(limit)).reset_index(drop=True)


def _model_table(board) -> pd.DataFrame | None:
    """`model_rows` with each interval as its two ends."""
    certainty = board.certainty(wait=False)
    if certainty is None:
        return None
    ranked, sets = board.ranked(), certainty[ranking.OVERALL]
    return pd.DataFrame({
        "Rank": ranked["rank"], "Model": [board.models[m].title for m in ranked.index],
        "Score %": (100 * ranked[ranking.OVERALL]).round(2),
        f"Score % ({ITEMS_ONLY}) {INTERVAL} low": (100 * sets["score_low"]).round(2),
        f"Score % ({ITEMS_ONLY}) {INTERVAL} high": (100 * sets["score_high"]).round(2),
        f"Score % ({TASKS_TOO}) {INTERVAL} low": (100 * sets["task_set_score_low"]).round(2),
        f"Score % ({TASKS_TOO}) {INTERVAL} high": (100 * sets["task_set_score_high"]).round(2),
        f"Rank ({ITEMS_ONLY}) {INTERVAL} low": sets["rank_low"].astype("Int64"),
        f"Rank ({ITEMS_ONLY}) {INTERVAL} high": sets["rank_high"].astype("Int64"),
        f"Rank ({TASKS_TOO}) {INTERVAL} low": sets["task_set_rank_low"].astype("Int64"),
        f"Rank ({TASKS_TOO}) {INTERVAL} high": sets["task_set_rank_high"].astype("Int64"),
        f"Rank set (all at once) {INTERVAL} low": sets["set_low"].astype("Int64"),
        f"Rank set (all at once) {INTERVAL} high": sets["set_high"].astype("Int64"),
        "Tier": sets["tier"].astype("Int64"),
    }, index=ranked.index)


def report_card(board, matrix: bytes | None = None) -> dict:
    """The card as JSON values: shape, matrix hash, per-scope figures and Overall's
    per-model rows (None while being computed), definitions and provenance. `matrix`: the
    board's `matrix_csv` when already made (0.55 s at 10,000 models)."""
    rows = scope_rows(board)
    return {
        "benchmark": board.benchmark.name,
        "shape": {"models": len(board.models), "tasks": len(board.benchmark.task_ids),
                  "categories": len(board.benchmark.categories)},
        "matrix_file": matrix_name(board),
        "matrix_sha256": hashlib.sha256(matrix_csv(board) if matrix is None else matrix).hexdigest(),
        "item_matrices": {task.id: task.metric.item_values for task in board.benchmark.tasks
                          if task.metric.item_values},
        "scopes": None if rows is None else rows.to_dict("records"),
        "definitions": DEFINITIONS,
        "overall_models": None if rows is None else model_rows(board).to_dict("records"),
        "model_definitions": MODEL_DEFINITIONS,
        "tasks": task_rows(board).to_dict("records"),
        "task_definitions": TASK_DEFINITIONS,
        "not_on_this_card": NOT_APPLICABLE,
        "provenance": {"software": _software(), "seed": "crc32(task id)",
                       "resamples": CERTAINTY_RESAMPLES,
                       "date": as_of(board).isoformat() if board.models else None, "command": COMMAND},
        "provenance_definitions": PROVENANCE,
    }


def exports(board) -> dict[str, str]:
    """Download paths: the models x tasks matrix (CSV) and the card (JSON)."""
    matrix = matrix_csv(board)
    return {"matrix": export_file(matrix, matrix_name(board)),
            "card": export_file(json.dumps(report_card(board, matrix), indent=1, ensure_ascii=False).encode("utf-8"),
                                export_name(board.benchmark.name, "report-card", _day(board)) + ".json")}


def _day(board) -> str:
    return as_of(board).strftime("%Y-%m-%d") if board.models else dt.date.today().isoformat()


def matrix_name(board) -> str:
    """The models x tasks matrix's file name, as downloaded and as the card names it."""
    return export_name(board.benchmark.name, "tasks-matrix", _day(board)) + ".csv"


def summary(board) -> str:
    """The card's headline as Markdown: who could be first and last overall (the table of
    scopes gives every scope's)."""
    rows = scope_rows(board)
    if rows is None:
        return "The rank sets are being computed after the latest publication; they appear here in a few seconds."
    r = rows.iloc[0]
    return (f"**{r.scope}: could be first: {r.could_be_first} of {r.models} · could be last: {r.could_be_last}** · "
            f"tiers resolved: {r.tiers} · largest unseparated set: {r.largest_unseparated} · "
            f"established pairs: {r.established_percent:.1f}% · top-{r.top_k} resolution: {r.top_k_bits:.1f} of "
            f"{np.log2(math.factorial(r.top_k)):.1f} bits undetermined. Every scope below.")


def definitions_markdown() -> str:
    """Each figure under its page heading with its key in the card's JSON beside it (the
    per-model columns and the provenance fields go by one name)."""
    headings = {**SCOPE_HEADINGS, **TASK_HEADINGS}
    return "\n".join([*(f"- **{headings[name]}** (`{name}` in the card's JSON): {text}" if name in headings
                        else f"- **{name}**: {text}" for name, text in
                        {**DEFINITIONS, **TASK_DEFINITIONS, **MODEL_DEFINITIONS, **PROVENANCE}.items()),
                       "", NOT_APPLICABLE])
