"""Stores for the tests: the small benchmark's tasks, publishing documents into a board,
and the digests and frames that compare stores and boards."""
from __future__ import annotations

from pathlib import Path
import contextlib
import fcntl
import hashlib
import numpy as np
import pandas as pd
from leaderboard.board.publishing import Publishing
from leaderboard.storage.upload_records import UPLOADS_DIR
from leaderboard.strict_json import dump_json


SMALL_TASKS = {
    "benchmark": "Mini",
    "categories": ["Knowledge", "Language", "Summaries"],
    "tasks": [
        {"id": "t_acc", "abbreviation": "ACC", "short_name": "Acc", "name": "Accuracy task",
         "category": "Knowledge", "metric": "acc", "dataset_url": "https://example.com/acc"},
        {"id": "t_em", "abbreviation": "EM", "short_name": "EM", "name": "Exact match task",
         "category": "Knowledge", "metric": "exact_match", "dataset_url": "https://example.com/em"},
        {"id": "t_auc", "abbreviation": "AUC", "short_name": "AUC", "name": "Classification task",
         "category": "Language", "metric": "avg_mcauroc", "dataset_url": "https://example.com/auc"},
        {"id": "t_ppl", "abbreviation": "PPL", "short_name": "PPL", "name": "Perplexity task",
         "category": "Language", "metric": "word_perplexity", "dataset_url": "https://example.com/ppl"},
        {"id": "t_rouge", "abbreviation": "RG", "short_name": "Rouge", "name": "Summary task",
         "category": "Summaries", "metric": "rouge_raw_r2_mid_f", "dataset_url": "https://example.com/rg"},
    ],
}


def publish_all(board, documents):
    for form, document, ts in documents:
        Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=ts)


def tree_digest(root: Path, exclude: str | tuple[str, ...] = ()) -> str:
    """A hash of every file's path and bytes under root (the lock file, the upload quota's
    records and the files or folders at the root named in `exclude`, excepted). The upload records (uploads/)
    are the quota's operational metadata, not the board's data: the web app writes one for
    every upload it admits, a file refused afterwards included; the checks are that a
    refused file changes none of the board's data. A store is read under its shared lock, so
    a commit in flight (its journal and staged files, which a served app's upload record may
    be writing) has ended before the files are read."""
    lock_path = Path(root) / ".lock"
    with open(lock_path) if lock_path.exists() else contextlib.nullcontext() as lock:
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_SH)  # released when the file closes
        h = hashlib.sha256()
        for p in sorted(Path(root).rglob("*")):
            excluded = (UPLOADS_DIR, *([exclude] if isinstance(exclude, str) else exclude))
            if p.is_file() and p.name != ".lock" and p.relative_to(root).parts[0] not in excluded:
                h.update(str(p.relative_to(root)).encode())
                h.update(p.read_bytes())
        return h.hexdigest()


def duel_frame(board) -> pd.DataFrame:
    """Every stored duel row by model ids, in a fixed order: boards that index their models
    differently compare equal when they hold the same duels."""
    rows, ids = board.tournament.rows(), np.asarray(board.tournament.model_ids, dtype=object)
    frame = pd.DataFrame({"first": ids[rows.first], "second": ids[rows.second], "rules": rows.rules})
    for name in ("fought", "significant", "p_value", "delta"):
        for k, task in enumerate(board.tournament.task_ids):
            frame[f"{name}/{task}"] = getattr(rows, name)[:, k]
    return frame.sort_values(["first", "second"], ignore_index=True)
