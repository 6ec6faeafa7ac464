"""The public snapshot: the ranking as one Parquet table, written with every publication so
that `datasets.load_dataset("<repo>")` returns it (the dataset card points at it)."""
from __future__ import annotations

import io

import pandas as pd

from leaderboard.engine import ranking
from leaderboard.config.tasks import Benchmark

METADATA_FIELDS = ["team_name", "model_name", "model_type", "parameters", "precision", "input_length",
                   "link_to_model", "description", "submission_timestamp"]
FLAG_FIELDS = ["flagged", "flag_reason", "flag_link"]  # a flagged model stays in the ranking, marked


def snapshot_table(models: dict, ranked: pd.DataFrame, benchmark: Benchmark, flags: dict) -> pd.DataFrame:
    """One row per model, best first: ids, metadata, whether it is flagged (and why), rank,
    overall, category and task win scores (fractions in [0, 1]), then per scope
    (`overall` and each category) the 95% intervals of score and rank and the tie group:
    `<scope>_score_low`, ..., `<scope>_group`."""
    meta = pd.DataFrame([{**{field: models[sid].metadata.get(field) for field in METADATA_FIELDS},
                          "flagged": sid in flags, "flag_reason": flags[sid].reason if sid in flags else None,
                          "flag_link": flags[sid].link if sid in flags else None}
                         for sid in ranked.index], columns=[*METADATA_FIELDS, *FLAG_FIELDS])
    scores = ranked.reset_index(drop=True)
    certainty = ranking.certainty_of(ranked, benchmark, models, flags).reset_index(drop=True)
    certainty.columns = [f"{scope}_{field}" for scope, field in certainty.columns]
    table = pd.concat([pd.DataFrame({"submission_id": list(ranked.index),
                                     "title": [models[sid].title for sid in ranked.index]}),
                       meta, scores, certainty], axis=1)
    table["parameters"] = pd.to_numeric(table["parameters"], errors="coerce")
    table["input_length"] = pd.to_numeric(table["input_length"], errors="coerce").astype("Int64")
    table["submission_timestamp"] = pd.to_numeric(table["submission_timestamp"], errors="coerce")
    table["flagged"] = table["flagged"].astype(bool)
    for column in ("team_name", "model_name", "model_type", "precision", "link_to_model", "description",
                   "flag_reason", "flag_link"):
        table[column] = table[column].astype("string")
    return table


def snapshot_parquet(models: dict, ranked: pd.DataFrame, benchmark: Benchmark, flags: dict) -> bytes:
    buffer = io.BytesIO()
    snapshot_table(models, ranked, benchmark, flags).to_parquet(buffer, index=False)
    return buffer.getvalue()


def dataset_card(benchmark_name: str) -> bytes:
    """README.md whose `configs` make load_dataset read only the snapshot (the repo also
    holds the raw submissions as JSON)."""
    return f"""---
configs:
- config_name: default
  data_files: leaderboard.parquet
---
# {benchmark_name} duel leaderboard

`leaderboard.parquet` is the current ranking, one row per published model: ids, metadata,
whether the maintainers flagged it (`flagged`, `flag_reason`, `flag_link`; flagged models
are ranked like the others and are not opponents of new submissions), rank, overall win
score, one column per category and per task (win scores as fractions), and per scope
(`overall` and each category) how certain the score and rank are:
`<scope>_score_low`/`_score_high` (95% interval of the win score), `<scope>_rank_low`/`_rank_high`
(95% interval of the rank) and `<scope>_group` (tie group, "A" = the top group; see the app's
About tab for the method).
It is rewritten by every publication. Raw per-sample submissions are in `data/`, all
duels (p-values, deltas, and the rules that computed them) in `duels/<submission_id>.parquet`,
one file per publication.
""".encode()
