"""The publishing role: pre-submission (where a model would rank, nothing stored) and
publication (retried when another publication lands first)."""
from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.board.reader import BoardReader, BoardState, PublishedNames, follow, titles_of
from leaderboard.board.writing import NOTHING_PUBLISHED, locked, owned_duel_files, stale_snapshot
from leaderboard.config.tasks import PANEL, Benchmark
from leaderboard.engine import ranking
from leaderboard.engine.panel import Candidates, near_copy_metadata
from leaderboard.engine.replay import board_panel, opponents_of_the_day, owners_of_pairs, submitted_times
from leaderboard.engine.tournament import DuelRows, Tournament, duel_rows, play
from leaderboard.errors import BadInput, StoreConflict, StoreFailure, UnfinishedWrite
from leaderboard.engine.progress import Progress, no_progress
from leaderboard.storage.store import Publication, PublishedModel
from leaderboard.storage.presubmissions import PresubmissionRecord, client_hash
from leaderboard.storage.snapshot import snapshot_parquet
from leaderboard.strict_json import dump_json
from leaderboard.submission.metadata import (LOOKALIKES_UNCHECKED, PUBLISHING_NEEDS_ICU, SubmissionMetadata,
                                             lookalikes_checked, submission_id, validate_metadata)
from leaderboard.submission.parsing import ParsedSubmission, parse_submission
from leaderboard.submission.reading import read_document
from leaderboard.storage.flags import Flag
from leaderboard.submission.alignment import TaskReference

if TYPE_CHECKING:
    import threading
    from concurrent.futures import Executor, Future

log = logging.getLogger(__name__)

PUBLISH_ATTEMPTS = 5
SAMPLE_PRESUBMITTED = "this is the leaderboard's sample file: it can be pre-submitted, never published"
SAMPLE_REFUSED = ("this is the leaderboard's sample file, which cannot be published: published, it would make every "
                  "visitor's copy a duplicate. Publish your own model's results.")


def unchecked_counts(benchmark: Benchmark, parsed: ParsedSubmission, references: Mapping[str, TaskReference]
                     ) -> list[str]:
    """The document counts of tasks nothing checks (no published model to match, no
    `samples` in the tasks file), as a warning: a run made with --limit shows there."""
    counts = [f"{t.id} {len(parsed.document['predictions'][t.id]):,}" for t in benchmark.tasks
              if t.samples is None and t.id not in references]
    if not counts:
        return []
    return [f"the first submission: documents per task {', '.join(counts)}; nothing published to compare them "
            f"with and the tasks file states no 'samples', so check these are full runs (not made with --limit)"]


@dataclass
class Preview:
    """A pre-submission: where the model would rank, computed but not stored."""

    submission_id: str
    metadata: SubmissionMetadata
    model: PublishedModel
    document: bytes  # the submitted file's JSON (a few MB; its parsed form is ~10x that)
    predictions_sha256: str
    results_sha256: str
    tournament: Tournament  # the current duels plus those the publication would run
    table: pd.DataFrame  # ranked, with `previous_rank` and `rank_change` (positive = moved up)
    opponents: list[str]  # whom its Win Score counts: the panel's other members, or the top models of its day
    warnings: list[str] = field(default_factory=list)
    is_sample: bool = False  # the board's sample file: pre-submitted to try the form, never published
    panel: tuple[str, ...] = ()  # the reference panel after publication (empty under top-of-its-day)
    panel_before: tuple[str, ...] = ()  # the board's panel now
    duels_ahead: Future[DuelRows] | None = None  # `duels_at_publication` run while it is read (`Publishing.duel_ahead`)

    @property
    def duels_at_publication(self) -> int:
        """The models whose duels with the new model its publication runs and the preview
        did not: every model off the panel when it enters the panel (`duel_new_model`)."""
        return len(self.table) - len(self.panel) if self.submission_id in self.panel else 0

    @property
    def panel_change(self) -> tuple[list[str], list[str]]:
        """(the models publication brings onto the panel, those it takes off), best first."""
        return ([m for m in self.panel if m not in self.panel_before],
                [m for m in self.panel_before if m not in self.panel])

    @property
    def rank(self) -> int:
        return int(self.table.loc[self.submission_id, "rank"])


@dataclass(frozen=True)
class ReadFile:
    """A submission file read and checked against the board's references
    (`Publishing.read`) ahead of its pre-submission: the app reads an upload as it
    arrives, so that the click to preview does not wait for the parse. `parsed` when the
    file was accepted, else its `problems`."""

    source: str | Path | bytes
    references: Mapping[str, TaskReference]  # the board's when it was read: another board's reads it again
    parsed: ParsedSubmission | None
    problems: list[str]


def duel_new_model(board: BoardReader, tournament: Tournament, models: dict[str, PublishedModel],
                   flags: dict[str, Flag], sid: str,
                   ranked_now: pd.DataFrame, reuse: Tournament | None = None, preview: bool = False,
                   candidates: Candidates | None = None) -> tuple[list[str], tuple[str, ...], set[str], pd.DataFrame]:
    """Run into `tournament` (the board's duels; `models` holds the new model `sid`) the
    duels its publication needs under the benchmark's rule: its duels with the reference
    panel and every duel the panel's change brings (a model entering it is dueled by all
    that have not), or its duels with the top models of the day (`ranked_now`). Duels of
    `sid` in `reuse` (its pre-submission's) are copied, not run again. `preview`: of the
    panel's duels only those of `sid` with its members (the scores and ranks depend on no
    duel; the duels of every other model with an entering `sid` are the publication's).
    `candidates`: the board's near-copy candidates, when `models` are the board's and `sid`.
    Returns (whom its Win Score counts, the panel after (empty under top-of-its-day), the
    models whose duel files got rows, the ranked table after)."""
    benchmark = board.benchmark
    tournament.add_models([sid])
    if benchmark.opponents != PANEL:
        opponents = opponents_of_the_day(ranked_now, benchmark, flags)
        results = {sid: models[sid].results, **{o: models[o].results for o in opponents}}
        play(benchmark, tournament, sid, results, opponents, reuse=reuse, rules=board.rules)
        return opponents, (), {sid}, board.rank(models, tournament, flags)
    # what the publication keeps about near-copies, found against the models published before it
    models[sid].metadata.update(near_copy_metadata(benchmark, models, sid, candidates))
    if reuse is not None and sid in reuse:
        mapping = np.array([tournament.index(m) if m in tournament else -1 for m in reuse.model_ids], dtype=np.int64)
        tournament.add_rows(reuse.rows_involving(sid).renumbered(mapping))
    settled = board.settled_panel()  # the board's, when `tournament` is its duels and `sid`'s
    panel = board_panel(tournament, models, flags, benchmark, board.rules, backfill=True,
                        backfill_only=[sid] if preview else None, base=settled)
    owners = {sid, *owners_of_pairs(panel.backfilled, models)}
    return ([m for m in panel.members if m != sid], panel.members, owners,
            ranking.ranked(panel.scores(benchmark), submitted_times(models)))


def stored_metadata(metadata: SubmissionMetadata, predictions_sha256: str, results_sha256: str, sid: str,
                    now: float) -> dict[str, object]:
    return {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": now,
            "model_predictions_sha256": predictions_sha256, "model_results_sha256": results_sha256}


class Publishing:
    """Pre-submission and publication on `board`, built beside it (`configured.py`,
    the command line, the app)."""

    def __init__(self, board: BoardReader):
        self.board = board

    def read(self, source: str | Path | bytes) -> ReadFile:
        """The file read and checked against the board's references, for `presubmit`."""
        references = self.board.references()
        try:
            return ReadFile(source, references, parse_submission(source, self.board.benchmark, references), [])
        except BadInput as e:
            return ReadFile(source, references, None, e.problems)

    def presubmit(self, source: str | Path | bytes | ReadFile, form: Mapping[str, object],
                  progress: Progress = no_progress) -> Preview:
        """Validate the form and the file (or the file `read` before, unless the board's
        references changed since), run the duels its publication would run (under the
        panel: its own and those the panel's change brings); stores nothing."""
        board = self.board
        problems: list[str] = []
        metadata: SubmissionMetadata | None = None
        try:
            metadata = validate_metadata(**form)
        except BadInput as e:
            problems += e.problems
        progress(0.05, "reading the file")
        references = board.references()
        read = source if isinstance(source, ReadFile) and source.references is references else self.read(
            source.source if isinstance(source, ReadFile) else source)
        parsed, problems = read.parsed, problems + read.problems
        if problems:
            raise BadInput(problems)
        # no problem: both were made, the file from bytes read (parse_submission keeps them)
        assert metadata is not None and parsed is not None and parsed.source is not None
        sid = submission_id(metadata, parsed)
        state = board.state
        models, tournament, ranked_now, flags = state.models, state.tournament, state.ranked, state.flags
        state.names.refuse_duplicate(sid, metadata.title, parsed.predictions_sha256)
        progress(0.3, "summarizing the samples")
        shas = parsed.predictions_sha256, parsed.results_sha256
        model = board.model_of(sid, stored_metadata(metadata, *shas, sid, time.time()), parsed)
        progress(0.5, "running the duels")
        preview_tournament = tournament.copy()
        opponents, panel, _, table = duel_new_model(board, preview_tournament, {**models, sid: model}, flags, sid,
                                                    ranked_now, preview=True, candidates=board.near_copy_candidates())
        progress(0.9, "ranking")
        table.insert(1, "previous_rank", ranked_now["rank"].reindex(table.index))
        table.insert(2, "rank_change", table["previous_rank"] - table["rank"])
        is_sample = board.is_sample_file(parsed)
        warnings = parsed.warnings + unchecked_counts(board.benchmark, parsed, references) + (
            [SAMPLE_PRESUBMITTED] if is_sample else []) + ([] if lookalikes_checked() else [LOOKALIKES_UNCHECKED])
        return Preview(sid, metadata, model, parsed.source, *shas, preview_tournament, table, opponents,
                       warnings, is_sample, panel, board.panel() if panel else ())

    def duel_ahead(self, preview: Preview, pool: Executor) -> None:
        """Run in `pool` the duels the preview left to its publication (an entering model's
        with every model off the panel, `Preview.duels_at_publication`: seconds at 10,000
        models) while its submitter confirms it (the app: from the click to publish to the
        click to confirm), so that publishing finds them run (`publish` waits for them when
        they are running, runs them itself when they have not started). The board's sample
        file, which is never published, needs none."""
        if preview.is_sample or not preview.duels_at_publication:
            return
        tournament, sid, models = preview.tournament.copy(), preview.submission_id, self.board.models
        members = set(preview.panel)
        others = [m for m in tournament.model_ids if m not in members and m in models]
        results = {sid: preview.model.results, **{m: models[m].results for m in others}}
        preview.duels_ahead = pool.submit(duel_rows, self.board.benchmark, tournament, sid, others, results,
                                          self.board.rules)

    def disclose(self, preview: Preview, file_sha256: str, account: str | None, client_address: str,
                 now: float | None = None) -> PresubmissionRecord | None:
        """Record a web pre-submission in the store (storage/presubmissions.py): who (the
        signed-in `account`, else a hash of `client_address`), when, the file's sha256 and
        the rank it would have had. The sample file, which cannot be published, is not
        recorded (None). StoreFailure when the record could not be written."""
        if preview.is_sample:
            return None
        board = self.board
        at = time.time() if now is None else now
        record = PresubmissionRecord(at, account, None if account else client_hash(client_address),
                                     preview.metadata.team_name, file_sha256,
                                     preview.rank, len(preview.table))
        moved = board.presubmissions.record(record)
        if moved is not None:
            follow(board, *moved)
        return record

    def publish(self, preview: Preview, progress: Progress = no_progress, submitted_at: float | None = None,
                publisher: str | None = None) -> str:
        """Store the previewed model; duels against models published since the preview
        are run first. `publisher`: the signed-in account that publishes it, stored in its
        metadata (None: published without sign-in, the local board or the command line). The write is checked against the revision the duels were computed
        on; if another publication landed meanwhile, refresh, duel it, and try again.
        Returns the submission id."""
        board = self.board
        sid = preview.submission_id
        if preview.is_sample:
            raise BadInput(SAMPLE_REFUSED)
        if not lookalikes_checked():
            raise BadInput(PUBLISHING_NEEDS_ICU)
        reuse = self._with_duels_ahead(preview)
        for attempt in range(PUBLISH_ATTEMPTS):
            with locked(board, NOTHING_PUBLISHED):
                board.refresh(fresh=True)  # under the lock, so the duplicate check sees every publication
                board.state.names.refuse_duplicate(sid, preview.metadata.title, preview.predictions_sha256)
                metadata = stored_metadata(preview.metadata, preview.predictions_sha256, preview.results_sha256,
                                           sid, time.time() if submitted_at is None else submitted_at)
                if publisher is not None:
                    metadata["publisher"] = publisher
                model = PublishedModel(sid, metadata, preview.model.results, preview.model.references)
                models = {**board.models, sid: model}
                progress(0.2, "running missing duels")
                tournament = board.tournament.copy()
                _, _, owners, ranked = duel_new_model(board, tournament, models, board.flags, sid, board.state.ranked,
                                                      reuse, candidates=board.near_copy_candidates())
                progress(0.6, "writing")
                document = {**read_document(preview.document), "submission_metadata": metadata}
                files = owned_duel_files(board, tournament, models, owners)
                # no snapshot (a row per model): it is written after the commit, with the
                # intervals (seconds at thousands of models), by `refresh_intervals`
                publication = Publication(sid, document, files.pop(sid), titles_of(models), None, model, files)
                try:
                    revision = board.store.publish(publication, parent=board.revision)
                except StoreConflict:
                    log.info("publishing %s: the store moved on (attempt %d), refreshing", sid, attempt + 1)
                    reuse = tournament
                    continue
                except UnfinishedWrite:  # committed: its message says so, and who finishes it
                    raise
                except StoreFailure as e:
                    if not self._landed_all_the_same(sid, e):
                        raise StoreFailure(f"{NOTHING_PUBLISHED}: {e}") from None
                    log.warning("publishing %s: %s; the commit landed all the same", sid, e)
                else:
                    board.install(BoardState(models, tournament, revision, ranked, board.flags))
                progress(1.0, "published")
                return sid
        raise StoreFailure(f"the leaderboard changed {PUBLISH_ATTEMPTS} times while publishing; "
                           f"nothing was published, please try again")

    @staticmethod
    def _with_duels_ahead(preview: Preview) -> Tournament:
        """The preview's duels, with those run ahead (`duel_ahead`) when they ran: waited
        for when running, cancelled when still queued (the publication runs them then)."""
        ahead = preview.duels_ahead
        if ahead is None or ahead.cancel():
            return preview.tournament
        try:
            rows = ahead.result()
        except Exception as e:  # noqa: BLE001 - the publication runs them itself
            log.warning("the duels run ahead of publishing %s failed: %s", preview.submission_id, e)
            return preview.tournament
        tournament = preview.tournament.copy()
        tournament.add_rows(rows)
        return tournament

    def refresh_intervals(self, state: BoardState | None = None) -> bool:
        """After a publication (whose commit leaves the snapshot, not current any more), or
        by a reader that found no current snapshot: compute the rank and score intervals of
        `state` (default: the board's) and write the snapshot with them, unless the board
        moved on meanwhile (the next write brings its own snapshot). Returns whether the
        snapshot was written."""
        board = self.board
        state = state or board.state
        if board.state is not state:
            return False
        board.certainty()
        snapshot = snapshot_parquet(state.models, state.ranked, board.benchmark, state.flags)
        with board.write_lock:
            if board.state is not state:
                return False
            try:
                revision = board.store.write_snapshot(snapshot, parent=state.revision)
            except StoreConflict:
                return False
            if revision != state.revision:  # a Hub commit: the same board at the new revision
                board.install(dataclasses.replace(state, revision=revision))
        return True

    def refresh_stale_snapshot(self) -> bool:
        """At an app's start: `refresh_intervals` when the store's snapshot is another board
        version's (`Administration.stale_snapshot`: a publication whose snapshot could not
        be written after its commit), not when it has none (the reference layout has none).
        A store that refuses the write (read-only) keeps the stale one. Whether it wrote it."""
        if stale_snapshot(self.board) is None:
            return False
        try:
            return self.refresh_intervals()
        except StoreFailure as e:
            log.warning("the stale ranking snapshot was not written again: %s", e)
            return False

    def refresh_intervals_in_background(self) -> threading.Thread:
        """`refresh_intervals` in a thread (the app's, after a publication); from this call
        on until the intervals are computed, the board's `intervals_pending()` is true."""
        state = self.board.state
        return self.board.certainty_in_background(then=lambda: self.refresh_intervals(state))

    def _landed_all_the_same(self, sid: str, error: StoreFailure) -> bool:
        """After a publication's write failed: whether it landed all the same (a commit
        whose answer was lost, or a failure after the commit), from the store read afresh,
        which the board then shows. Raises StoreFailure when the store cannot be read."""
        board = self.board
        try:
            board.refresh(fresh=True)
        except StoreFailure as unreadable:
            raise StoreFailure(f"publishing failed ({error}) and the store could not be read back ({unreadable}): "
                               f"the commit may have landed; see whether {sid} is in the `table` before "
                               f"publishing again") from None
        return sid in board.models

    def publish_all(self, submissions: Iterable[tuple[SubmissionMetadata, ParsedSubmission, float]],
                    progress: Progress = no_progress, count: int | None = None) -> list[str]:
        """Publish validated submissions, an iterable of (SubmissionMetadata,
        ParsedSubmission, submitted_at) in time order, in one commit: the same files,
        duels and ranking as publishing them one by one, without a snapshot and a file
        write per model. For building a store (the
        demo); `count`, when known, is how many there are, for the progress messages.
        Returns the submission ids."""
        board = self.board
        with locked(board, NOTHING_PUBLISHED):
            board.refresh(fresh=True)
            models, tournament, ranked = dict(board.models), board.tournament.copy(), board.state.ranked
            names = PublishedNames(models.values())
            staged, owners = [], set()  # (model, document bytes): bytes, a parsed document is ~10x larger
            for k, (metadata, parsed, submitted_at) in enumerate(submissions):
                progress(k / count if count else 0.0, f"model {k + 1}{f' of {count}' if count else ''}")
                sid = submission_id(metadata, parsed)
                names.refuse_duplicate(sid, metadata.title, parsed.predictions_sha256)
                model = board.model_of(sid, stored_metadata(metadata, parsed.predictions_sha256,
                                                            parsed.results_sha256, sid, submitted_at), parsed)
                models[sid] = model
                names.add(model)
                _, _, touched, ranked = duel_new_model(board, tournament, models, board.flags, sid, ranked)
                owners |= touched
                staged.append((model, dump_json({**parsed.document, "submission_metadata": model.metadata})))
            if not staged:
                return []
            progress(1.0, "writing the files")
            titles, snapshot = titles_of(models), snapshot_parquet(models, ranked, board.benchmark, board.flags)
            files = owned_duel_files(board, tournament, models, owners)
            publications = [Publication(m.submission_id, document, files.pop(m.submission_id), titles, snapshot, m)
                            for m, document in staged]
            publications[-1].rewritten_duels = files  # earlier models' files that the panel's changes added to
            try:
                revision = board.store.publish_all(publications, parent=board.revision)
            except UnfinishedWrite:  # committed: its message says so, and who finishes it
                raise
            except (StoreConflict, StoreFailure) as e:  # a store failure, not bad input (exit 1)
                raise StoreFailure(f"{NOTHING_PUBLISHED}: {e}") from None
            board.install(BoardState(models, tournament, revision, ranked, board.flags))
            return [m.submission_id for m, _ in staged]
