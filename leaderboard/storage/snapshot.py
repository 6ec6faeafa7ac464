"""The public snapshot: the ranking as one Parquet table, written after every publication (once
its intervals are computed) so that `datasets.load_dataset("<repo>")` returns it (the dataset
card points at it), and read by `table` instead of loading the board while it is current."""
from __future__ import annotations

import hashlib
import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from leaderboard.engine import ranking
from leaderboard.config.tasks import Benchmark
from leaderboard.engine.tournament import ModelResults
from leaderboard.storage.flags import Flag, parse_flags
from leaderboard.storage.store import PublishedModel
from leaderboard.storage.presubmissions import PresubmissionLog

METADATA_FIELDS = ["team_name", "model_name", "model_type", "parameters", "precision", "input_length",
                   "link_to_model", "description", "submission_timestamp", "publisher"]
FLAG_FIELDS = ["flagged", "flag_reason", "flag_link"]  # a flagged model stays in the ranking, marked
DUEL_WINS_PREFIX = "duel_wins_"  # `duel_wins_<scope>`: the share of the reference panel beaten in duels


def snapshot_table(models: dict, ranked: pd.DataFrame, benchmark: Benchmark, flags: dict) -> pd.DataFrame:
    """One row per model, best first: ids, metadata, whether it is flagged (and why), rank,
    overall, category and task scores (fractions in [0, 1]), under the default rule the
    duel wins per scope (`duel_wins_<scope>`), then per scope
    (`overall` and each category) the 95% intervals of score and rank and the tie group:
    `<scope>_score_low`, ..., `<scope>_group`."""
    meta = pd.DataFrame([{**{field: models[sid].metadata.get(field) for field in METADATA_FIELDS},
                          "flagged": sid in flags, "flag_reason": flags[sid].reason if sid in flags else None,
                          "flag_link": flags[sid].link if sid in flags else None}
                         for sid in ranked.index], columns=[*METADATA_FIELDS, *FLAG_FIELDS])
    scores = ranked.reset_index(drop=True)
    duel_wins = ranked.attrs.get("duel_wins")
    if duel_wins is not None:  # under the default rule: the share of the panel beaten in duels, per scope
        scopes = [ranking.OVERALL, *benchmark.categories]
        scores = pd.concat([scores, duel_wins.loc[ranked.index, scopes].reset_index(drop=True).add_prefix(
            DUEL_WINS_PREFIX)], axis=1)
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
                   "publisher", "flag_reason", "flag_link"):
        table[column] = table[column].astype("string")
    return table


SNAPSHOT_OF = b"leaderboard.snapshot_of"  # the Parquet metadata key of `board_fingerprint`
# Present when the snapshot's intervals are empty because they were not computed yet: an
# earlier version's publication committed such a snapshot, this one none (only a snapshot
# with its intervals is written, after the commit: `Publishing.refresh_intervals`).
INTERVALS_PENDING = b"leaderboard.intervals_pending"


def board_fingerprint(submission_ids, flags: dict, benchmark: Benchmark) -> str:
    """What a snapshot is computed from: the published models, their flags and the
    benchmark's tasks and categories. Every write that changes one of them writes the
    snapshot in the same commit; a reader compares the store's (a listing and flags.json,
    no model read) with the snapshot's to know whether it is current."""
    described = [sorted(submission_ids), {sid: [flags[sid].reason, flags[sid].link] for sid in sorted(flags)},
                 list(benchmark.task_ids), list(benchmark.categories)]
    return hashlib.sha256(json.dumps(described, ensure_ascii=False).encode()).hexdigest()


def snapshot_parquet(models: dict, ranked: pd.DataFrame, benchmark: Benchmark, flags: dict) -> bytes:
    """`snapshot_table` as Parquet, marked with its `board_fingerprint`."""
    buffer = io.BytesIO()
    arrow = pa.Table.from_pandas(snapshot_table(models, ranked, benchmark, flags), preserve_index=False)
    marks = {SNAPSHOT_OF: board_fingerprint(models, flags, benchmark).encode()}
    arrow = arrow.replace_schema_metadata({**arrow.schema.metadata, **marks})
    pq.write_table(arrow, buffer)
    return buffer.getvalue()


def _describes(file: pq.ParquetFile, submission_ids, flags: dict, benchmark: Benchmark) -> bool:
    """Whether a snapshot file is of these models and flags (`board_fingerprint`), with its intervals."""
    marks = file.schema_arrow.metadata or {}
    made_of = marks.get(SNAPSHOT_OF)
    return (made_of is not None and made_of.decode() == board_fingerprint(submission_ids, flags, benchmark)
            and INTERVALS_PENDING not in marks)


def current_snapshot(store, benchmark: Benchmark) -> pd.DataFrame | None:
    """The store's snapshot (`snapshot_table`) when it is current (`board_fingerprint`)
    and holds its intervals, else None."""
    data = store.read_snapshot()
    if data is None:
        return None
    try:
        with pq.ParquetFile(io.BytesIO(data)) as file:
            ids = store.submission_ids()
            flags_file = store.read_flags()
            flags = parse_flags(flags_file)[0] if flags_file is not None else {}
            flags = {sid: flag for sid, flag in flags.items() if sid in set(ids)}
            if not _describes(file, ids, flags, benchmark):
                return None
            return file.read().to_pandas().set_index("submission_id")
    except (OSError, ValueError, KeyError):  # unreadable, or of another version's columns
        return None


def stale_rows(data: bytes | None, models: dict, flags: dict, benchmark: Benchmark) -> int | None:
    """For a stored snapshot file (`data`; None: there is none) that does not describe the
    board of `models` and `flags` (another board version, or its intervals never written):
    how many models it ranks. None when it describes them, or there is no snapshot (a store
    in the reference layout has none)."""
    if data is None:
        return None
    try:
        with pq.ParquetFile(io.BytesIO(data)) as file:
            return None if _describes(file, models, flags, benchmark) else file.metadata.num_rows
    except (OSError, ValueError):  # not a Parquet file: stale as well, ranking nobody
        return 0


def certainty_columns(table: pd.DataFrame, benchmark: Benchmark) -> pd.DataFrame:
    """The intervals and tie groups of a snapshot's rows (indexed by submission id), as
    `ranking.certainty_of` gives them; KeyError when it lacks a scope's."""
    scopes = [ranking.OVERALL, *benchmark.categories]
    return pd.DataFrame({(scope, field): table[f"{scope}_{field}"] for scope in scopes
                         for field in ranking.CERTAINTY_FIELDS}, index=table.index)


class SnapshotBoard:
    """The ranking as a current snapshot holds it, with what `views.table.leaderboard_table`
    reads of a Leaderboard (models' metadata, the ranked scores, their certainty, flags)
    for its default view: `table` prints it without loading the models or duels and
    without computing the certainty (seconds at thousands of models)."""

    def __init__(self, table: pd.DataFrame, benchmark: Benchmark, store):
        """`table`: a snapshot indexed by submission id (`current_snapshot`)."""
        self.benchmark, self.presubmissions = benchmark, PresubmissionLog(store)
        rows = table[[*METADATA_FIELDS, *FLAG_FIELDS]].astype(object).where(table.notna(), None).to_dict("index")
        self.models = {sid: PublishedModel(sid, {field: row[field] for field in METADATA_FIELDS}, ModelResults({}, {}),
                                           {}) for sid, row in rows.items()}
        self.flags = {sid: Flag(row["flag_reason"], row["flag_link"], 0.0) for sid, row in rows.items() if row["flagged"]}
        scores = ["rank", *benchmark.task_ids, *benchmark.categories, ranking.OVERALL]
        self._ranked = table[scores]
        scopes = [ranking.OVERALL, *benchmark.categories]
        if all(DUEL_WINS_PREFIX + scope in table for scope in scopes):
            self._ranked.attrs["duel_wins"] = table[[DUEL_WINS_PREFIX + s for s in scopes]].set_axis(scopes, axis=1)
        self._certainty = certainty_columns(table, benchmark)

    @classmethod
    def of_store(cls, store, benchmark: Benchmark) -> "SnapshotBoard | None":
        """The store's snapshot when it is current (`board_fingerprint`) and holds its
        intervals, else None."""
        table = current_snapshot(store, benchmark)
        try:
            return None if table is None else cls(table, benchmark, store)
        except KeyError:  # of another version's columns
            return None

    def ranked(self, adjusted: bool = False, exclude_flagged: bool = False) -> pd.DataFrame:
        if adjusted or exclude_flagged:
            raise ValueError("a snapshot holds the default ranking only")
        return self._ranked

    def certainty(self, adjusted: bool = False, exclude_flagged: bool = False, wait: bool = True) -> pd.DataFrame:
        self.ranked(adjusted, exclude_flagged)
        return self._certainty

    def disclosures(self) -> dict:
        """Each model's disclosed pre-submissions (the store's records, not the snapshot's)."""
        return self.presubmissions.disclosures(self.models)

    def intervals_pending(self) -> bool:
        return False  # a snapshot without its intervals is not read (`of_store`)
