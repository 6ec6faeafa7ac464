"""The leaderboard: published models and their duels, pre-submission and publication.

This is the API the command line and the web app use. State is replaced, never
mutated in place, so readers (browsing, pre-submissions) need no lock; only
publication and rebuilds take the lock.
"""
from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import stats
from leaderboard.engine import ranking
from leaderboard.storage.snapshot import snapshot_parquet
from leaderboard.storage import duel_files
from leaderboard.storage.flags import Flag, flags_json, parse_flags, validate_flag
from leaderboard.storage.local import BoardRewrite, LocalStore, Publication, PublishedModel
from leaderboard.storage.store import Store
from leaderboard.strict_json import dump_json
from leaderboard.errors import BadInput, NotFound, StoreConflict, StoreFailure
from leaderboard.demo import sample_document
from leaderboard.submission.parsing import (SubmissionMetadata, TaskReference, canonical_sha256, normalize_name,
                                            parse_submission, predictions_sha256, submission_id, title_keys,
                                            validate_metadata)
from leaderboard.config.tasks import Benchmark, load_benchmark
from stats import evidence
from leaderboard.engine.tournament import (UNRECORDED_RULES, DuelRows, Tournament, duel_rows, play, rows_from_json,
                                           rules_description, rules_id, summarize)
from leaderboard.progress import Progress, no_progress

log = logging.getLogger(__name__)


@dataclass
class Preview:
    """A pre-submission: where the model would rank, computed but not stored."""

    submission_id: str
    metadata: SubmissionMetadata
    model: PublishedModel
    document: bytes  # the submitted file as compact JSON (a few MB; its parsed form is ~10x that)
    predictions_sha256: str
    results_sha256: str
    tournament: Tournament  # the current duels plus the new model's
    table: pd.DataFrame  # ranked, with `previous_rank` and `rank_change` (positive = moved up)
    opponents: list[str]
    warnings: list[str] = field(default_factory=list)
    is_sample: bool = False  # the board's sample file: pre-submitted to try the form, never published

    @property
    def rank(self) -> int:
        return int(self.table.loc[self.submission_id, "rank"])


@dataclass(frozen=True)
class BoardState:
    """What the board shows, from one revision of the store. Replaced whole, in one
    assignment, so a reader in another thread never mixes two states."""

    models: dict[str, PublishedModel]
    tournament: Tournament
    revision: str | None
    ranked: pd.DataFrame
    flags: dict[str, Flag]  # flagged published models


EMPTY_STATE = BoardState({}, Tournament([], []), None, pd.DataFrame(), {})


class Leaderboard:
    def __init__(self, store: Store, benchmark: Benchmark | None = None, progress: Progress = no_progress):
        self.store = store
        self.benchmark = benchmark or load_benchmark()
        self.load_problems: list[str] = []
        self.orphan_duels: set[str] = set()  # unpublished models that stored duels mention
        self.state = EMPTY_STATE
        self.rules_description = rules_description(self.benchmark)
        self.rules = rules_id(self.rules_description)
        self._lock = threading.RLock()
        self._evidence_cache: dict[tuple[bool, bool], dict] = {}  # (adjusted, exclude_flagged) -> state
        self._file_references: dict[str, dict[str, TaskReference]] = {}  # read from files: caches lacked fields
        self._sample: tuple[str | None, dict, str] | None = None  # (reference model, sample file, its hash)
        self._sample_first_task: tuple[str | None, str] | None = None  # (reference model, hash of its first task)
        self.load(progress)

    # --- state ---------------------------------------------------------------------------

    def load(self, progress: Progress = no_progress) -> None:
        """Read the store; per-model arrays come from the cache or, on a miss, the file."""
        with self.store.lock(shared=True):  # a local writer's files are applied all at once, never seen half-way
            self._load(progress)

    def _load(self, progress: Progress) -> None:
        revision = self.store.revision(fresh=True)
        ids = self.store.submission_ids()
        known = self.models  # a submission's file never changes: reuse what is loaded
        models, problems = {}, []
        for k, sid in enumerate(ids):
            progress(k / max(len(ids), 1), f"loading {sid}")
            try:
                models[sid] = known.get(sid) or self.store.load_cached(sid) or self._model_from_file(sid)
            except BadInput as e:
                problems.append(f"data/{sid}.json is skipped: {e.problems[0]}")
        tournament, orphans, duel_problems = self._read_duels(list(models))
        flags, flag_problems = self._read_flags(models)
        self._set_state(models, tournament, revision, flags=flags)
        self.load_problems, self.orphan_duels = problems + duel_problems + flag_problems, orphans

    def _read_flags(self, models: dict) -> tuple[dict[str, Flag], list[str]]:
        """The stored flags of published models, and problems (entries of unpublished ones)."""
        data = self.store.read_flags()
        flags, problems = parse_flags(data) if data is not None else ({}, [])
        problems += [f"flags.json names {sid}, which is not published (ignored)" for sid in flags if sid not in models]
        return {sid: flag for sid, flag in flags.items() if sid in models}, problems

    def _read_duels(self, model_ids: list[str]) -> tuple[Tournament, set[str], list[str]]:
        """The stored duels among `model_ids`: the reference layout's tournament.json, if
        any, and the duel files. Also the unpublished models they mention, and problems."""
        task_ids, index = self.benchmark.task_ids, {m: i for i, m in enumerate(model_ids)}
        legacy = self.store.read_tournament()
        tables, problems = self.store.read_duel_tables()
        rows, orphans = duel_files.rows_from_tables(tables, task_ids, index)
        orphans |= ({a for a in legacy if a not in index} | {b for row in legacy.values() if isinstance(row, dict)
                                                             for b in row if b not in index})
        rows = DuelRows.concat([rows_from_json(legacy, task_ids, index), rows], len(task_ids)).unique()
        return Tournament(task_ids, model_ids, rows), orphans, problems

    def _rank(self, models: dict[str, PublishedModel], tournament: Tournament) -> pd.DataFrame:
        return ranking.ranked(ranking.scores_table(tournament, self.benchmark), _submitted(models))

    def _set_state(self, models: dict[str, PublishedModel], tournament: Tournament, revision,
                   ranked: pd.DataFrame | None = None, flags: dict[str, Flag] | None = None) -> None:
        """The new state; `flags` None keeps the current flags."""
        ranked = self._rank(models, tournament) if ranked is None else ranked
        flags = self.state.flags if flags is None else flags
        self.state = BoardState(models, tournament, revision, ranked, flags)

    # One state's parts; a reader needing several reads `state` once instead.
    @property
    def models(self) -> dict[str, PublishedModel]:
        return self.state.models

    @property
    def tournament(self) -> Tournament:
        return self.state.tournament

    @property
    def revision(self) -> str | None:
        return self.state.revision

    @property
    def flags(self) -> dict[str, Flag]:
        return self.state.flags

    def refresh(self, fresh: bool = False) -> bool:
        """Reload when the store changed under us (another process or replica published).
        fresh=True asks a remote store now instead of using its last polled revision."""
        if self.store.revision(fresh=fresh) == self.revision:
            return False
        with self._lock:
            self.load()
        return True

    def _model_of(self, sid: str, metadata: dict, parsed) -> PublishedModel:
        """The model a parsed submission makes: its per-task summaries and references."""
        return PublishedModel(sid, metadata, summarize(parsed, self.benchmark),
                              {t: TaskReference.of(s) for t, s in parsed.tasks.items()})

    def _model_from_file(self, sid: str) -> PublishedModel:
        document = self.store.read_document(sid)
        parsed = parse_submission(document, self.benchmark, require_doc_ids=False)
        metadata = parsed.document.get("submission_metadata") or {}
        model = self._model_of(sid, metadata, parsed)
        self.store.save_cached(model)
        return model

    @property
    def submitted(self) -> pd.Series:
        return _submitted(self.models)

    def ranked(self, adjusted: bool = False, exclude_flagged: bool = False) -> pd.DataFrame:
        """Scores of every published model, best first, with `rank` (ties share a rank).
        `adjusted`: from duels judged by Benjamini-Hochberg adjusted p-values (`duels`).
        `exclude_flagged`: the models that are not flagged, scored on their stored duels
        among themselves (duels against flagged models dropped)."""
        return self._evidence(adjusted, exclude_flagged)["ranked"]

    def duels(self, adjusted: bool = False, exclude_flagged: bool = False) -> Tournament:
        """The stored duels; `exclude_flagged`: only those between models not flagged;
        `adjusted`: then with Benjamini-Hochberg adjusted p-values and the verdicts they
        give, one family per model (`Tournament.bh_adjusted`)."""
        return self._evidence(adjusted, exclude_flagged)["duels"]

    def certainty(self, adjusted: bool = False, exclude_flagged: bool = False) -> pd.DataFrame:
        """Score and rank intervals and tie groups of `ranked(adjusted, exclude_flagged)`,
        same rows (`ranking.certainty_table`); computed on first use (seconds for thousands
        of models), so loading and ranking do not pay for it."""
        entry = self._evidence(adjusted, exclude_flagged)
        if entry.get("certainty") is None:
            entry["certainty"] = ranking.certainty_table(entry["ranked"], self.benchmark)
        return entry["certainty"]

    def pair_duels(self, a: str, b: str, adjusted: bool = False) -> tuple[DuelRows, DuelRows, bool]:
        """The duels a-vs-b and b-vs-a (one row each, the board's model indices) and whether
        they were run now: a pair that never met (neither was among the other's top
        opponents) is dueled on demand from the stored per-model arrays, nothing stored.
        `adjusted`: Benjamini-Hochberg p-values and verdicts as in `duels(True)`; a pair
        run now is adjusted within each model's stored duels plus this one."""
        state = self.state
        for sid in (a, b):
            if sid not in state.models:
                raise NotFound(f"no published model {sid!r}")
        if a == b:
            raise BadInput("pick two different models")
        tournament = self._evidence(adjusted, False, state)["duels"]
        if tournament.has_dueled(a, b):
            return tournament.pair(a, b), tournament.pair(b, a), False
        raw = state.tournament
        index = np.array([raw.index(a), raw.index(b)], dtype=np.int32)
        rows = duel_rows(self.benchmark, Tournament(raw.task_ids, [a, b]), a, [b],
                         {a: state.models[a].results, b: state.models[b].results}, self.rules)
        rows = DuelRows(index, index[::-1], rows.fought, rows.significant, rows.p_value, rows.delta, rows.rules)
        if adjusted:
            family = DuelRows.concat([raw.rows_between([a, b], raw.model_ids), rows], len(raw.task_ids))
            p_value = evidence.bh_adjusted(family.p_value, family.first, family.fought)[-2:]
            rows = DuelRows(rows.first, rows.second, rows.fought, p_value <= self.benchmark.alpha, p_value, rows.delta,
                            rows.rules)
        return rows.take([0]), rows.take([1]), True

    def _evidence(self, adjusted: bool, exclude_flagged: bool, state: BoardState | None = None) -> dict:
        """{"duels", "ranked", "certainty" (None until asked for)} under a view setting,
        made once per state: the entry names the tournament and flags it was made from, so
        a reader racing a reload never gets another state's."""
        state = state or self.state
        tournament, models, flags, ranked = state.tournament, state.models, state.flags, state.ranked
        key = (adjusted, exclude_flagged)
        entry = self._evidence_cache.get(key)
        if entry is None or entry["of"] is not tournament or entry["flags"] is not flags:
            duels = tournament
            if exclude_flagged:
                models = {sid: model for sid, model in models.items() if sid not in flags}
                duels = duels.subset(list(models))
            if adjusted:
                duels = duels.bh_adjusted(self.benchmark.alpha)
            if adjusted or exclude_flagged:
                ranked = self._rank(models, duels)
            entry = {"of": tournament, "flags": flags, "duels": duels, "ranked": ranked, "certainty": None}
            self._evidence_cache[key] = entry
        return entry

    def titles(self) -> dict[str, str]:
        return _titles(self.models)

    def _reference_model(self) -> PublishedModel | None:
        """The earliest published model, whose documents every new submission must match."""
        return min(self.models.values(), key=lambda m: (m.submitted, m.submission_id)) if self.models else None

    def references(self) -> dict[str, TaskReference]:
        """Per task, what a new submission must match: taken from the earliest model."""
        first = self._reference_model()
        if first is None:
            return {}
        references = first.references
        perplexity_tasks = [t.id for t in self.benchmark.tasks if t.metric.sample_kind == "loglik_words"]
        if any(t in references and references[t].words is None for t in perplexity_tasks):
            # arrays cached before word counts were kept: read them from the file once
            if first.submission_id not in self._file_references:
                self._file_references[first.submission_id] = self._model_from_file(first.submission_id).references
            references = self._file_references[first.submission_id]
        return references

    def sample_document(self) -> dict:
        """The board's sample file (`demo.sample_document` on its references), made once
        per reference model, so the file offered and the one recognized are the same."""
        reference_model = self._reference_model()
        owner = reference_model and reference_model.submission_id
        if self._sample is None or self._sample[0] != owner:
            document = sample_document(self.benchmark, self.references())
            self._sample = (owner, document, predictions_sha256(document))
        return self._sample[1]

    def _is_sample(self, parsed) -> bool:
        """Whether a parsed file is the board's sample file (by its predictions). Its first
        task is compared first: any other file differs there, which is found without
        making the whole sample (a second per process)."""
        owner = (reference_model := self._reference_model()) and reference_model.submission_id
        first_task = self.benchmark.tasks[0].id
        if self._sample_first_task is None or self._sample_first_task[0] != owner:
            sample = sample_document(self.benchmark, self.references(), n_tasks=1)
            self._sample_first_task = (owner, predictions_sha256({"predictions": sample["predictions"][first_task]}))
        if canonical_sha256(parsed.document["predictions"][first_task]) != self._sample_first_task[1]:
            return False
        self.sample_document()
        return parsed.predictions_sha256 == self._sample[2]

    # --- pre-submission and publication ---------------------------------------------------

    def presubmit(self, source, form: dict, progress: Progress = no_progress) -> Preview:
        """Validate the form and the file, duel the top models; stores nothing."""
        problems, metadata, parsed = [], None, None
        try:
            metadata = validate_metadata(**form)
        except BadInput as e:
            problems += e.problems
        progress(0.05, "reading the file")
        try:
            parsed = parse_submission(source, self.benchmark, self.references())
        except BadInput as e:
            problems += e.problems
        if problems:
            raise BadInput(problems)
        sid = submission_id(metadata, parsed)
        state = self.state
        models, tournament, ranked_now, flags = state.models, state.tournament, state.ranked, state.flags
        _refuse_duplicate(models, sid, metadata.title, parsed.predictions_sha256)
        progress(0.3, "summarizing the samples")
        shas = parsed.predictions_sha256, parsed.results_sha256
        model = self._model_of(sid, self._stored_metadata(metadata, *shas, sid, time.time()), parsed)
        progress(0.5, "running the duels")
        opponents = ranking.opponents(ranked_now, self.benchmark.top_opponents, flags)
        preview_tournament = tournament.copy()
        results = {sid: model.results, **{o: models[o].results for o in opponents}}
        play(self.benchmark, preview_tournament, sid, results, opponents, rules=self.rules)
        progress(0.9, "ranking")
        table = self._rank({**models, sid: model}, preview_tournament)
        table.insert(1, "previous_rank", ranked_now["rank"].reindex(table.index))
        table.insert(2, "rank_change", table["previous_rank"] - table["rank"])
        is_sample = self._is_sample(parsed)
        warnings = parsed.warnings + ([SAMPLE_PRESUBMITTED] if is_sample else [])
        return Preview(sid, metadata, model, dump_json(parsed.document), *shas, preview_tournament, table, opponents,
                       warnings, is_sample)

    @staticmethod
    def _stored_metadata(metadata: SubmissionMetadata, predictions_sha256: str, results_sha256: str, sid: str,
                         now: float) -> dict:
        return {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": now,
                "model_predictions_sha256": predictions_sha256, "model_results_sha256": results_sha256}

    def publish(self, preview: Preview, progress: Progress = no_progress, submitted_at: float | None = None) -> str:
        """Store the previewed model; duels against models published since the preview
        are run first. The write is checked against the revision the duels were computed
        on; if another publication landed meanwhile, refresh, duel it, and try again.
        Returns the submission id."""
        sid = preview.submission_id
        if preview.is_sample:
            raise BadInput(SAMPLE_REFUSED)
        reuse = preview.tournament
        for attempt in range(PUBLISH_ATTEMPTS):
            with self._lock, self.store.lock():
                self.refresh(fresh=True)  # under the lock, so the duplicate check sees every publication
                _refuse_duplicate(self.models, sid, preview.metadata.title, preview.predictions_sha256)
                progress(0.2, "running missing duels")
                opponents = ranking.opponents(self.state.ranked, self.benchmark.top_opponents, self.flags)
                tournament = self.tournament.copy()
                results = {sid: preview.model.results, **{o: self.models[o].results for o in opponents}}
                play(self.benchmark, tournament, sid, results, opponents, reuse=reuse, rules=self.rules)
                metadata = self._stored_metadata(preview.metadata, preview.predictions_sha256, preview.results_sha256,
                                                 sid, time.time() if submitted_at is None else submitted_at)
                model = PublishedModel(sid, metadata, preview.model.results, preview.model.references)
                models = {**self.models, sid: model}
                progress(0.6, "writing")
                document = {**json.loads(preview.document), "submission_metadata": metadata}
                ranked = self._rank(models, tournament)
                duels = self._duel_file(tournament, tournament.rows_involving(sid))
                publication = Publication(sid, document, duels, _titles(models),
                                          snapshot_parquet(models, ranked, self.benchmark, self.flags), model)
                try:
                    revision = self.store.publish(publication, parent=self.revision)
                except StoreConflict:
                    log.info("publishing %s: the store moved on (attempt %d), refreshing", sid, attempt + 1)
                    reuse = tournament
                    continue
                except StoreFailure as e:
                    if not self._landed_all_the_same(sid, e):
                        raise StoreFailure(f"publishing failed, nothing was published: {e}") from None
                    log.warning("publishing %s: %s; the commit landed all the same", sid, e)
                else:
                    self._set_state(models, tournament, revision, ranked)
                progress(1.0, "published")
                return sid
        raise StoreFailure(f"the leaderboard changed {PUBLISH_ATTEMPTS} times while publishing; "
                         f"nothing was published, please try again")

    def _landed_all_the_same(self, sid: str, error: StoreFailure) -> bool:
        """After a publication's write failed: whether it landed all the same (a commit
        whose answer was lost, or a failure after the commit), from the store read afresh,
        which the board then shows. Raises StoreFailure when the store cannot be read."""
        try:
            self.refresh(fresh=True)
        except StoreFailure as unreadable:
            raise StoreFailure(f"publishing failed ({error}) and the store could not be read back ({unreadable}): "
                             f"the commit may have landed; see whether {sid} is in the `table` before "
                             f"publishing again") from None
        return sid in self.models

    def publish_all(self, submissions, progress: Progress = no_progress, count: int | None = None) -> list[str]:
        """Publish validated submissions, an iterable of (SubmissionMetadata,
        ParsedSubmission, submitted_at) in time order, in one commit: the same files,
        duels and ranking as publishing them one by one (each duels the top models of its
        day), without a snapshot and a file write per model. For building a store (the
        demo); `count`, when known, is how many there are, for the progress messages.
        Returns the submission ids."""
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            models, tournament, ranked = dict(self.models), self.tournament.copy(), self.state.ranked
            staged = []  # (model, document bytes, duel file bytes); bytes: a parsed document is ~10x larger
            for k, (metadata, parsed, submitted_at) in enumerate(submissions):
                progress(k / count if count else 0.0, f"model {k + 1}{f' of {count}' if count else ''}")
                sid = submission_id(metadata, parsed)
                _refuse_duplicate(models, sid, metadata.title, parsed.predictions_sha256)
                model = self._model_of(sid, self._stored_metadata(metadata, parsed.predictions_sha256,
                                                                  parsed.results_sha256, sid, submitted_at), parsed)
                opponents = ranking.opponents(ranked, self.benchmark.top_opponents, self.flags)
                results = {sid: model.results, **{o: models[o].results for o in opponents}}
                play(self.benchmark, tournament, sid, results, opponents, rules=self.rules)
                models[sid] = model
                ranked = self._rank(models, tournament)
                staged.append((model, dump_json({**parsed.document, "submission_metadata": model.metadata}),
                               self._duel_file(tournament, tournament.rows_involving(sid))))
            if not staged:
                return []
            progress(1.0, "writing the files")
            titles, snapshot = _titles(models), snapshot_parquet(models, ranked, self.benchmark, self.flags)
            publications = [Publication(m.submission_id, document, duels, titles, snapshot, m)
                            for m, document, duels in staged]
            try:
                revision = self.store.publish_all(publications, parent=self.revision)
            except (StoreConflict, StoreFailure) as e:  # a store failure, not bad input (exit 1)
                raise StoreFailure(f"publishing failed, nothing was published: {e}") from None
            self._set_state(models, tournament, revision, ranked)
            return [m.submission_id for m, _, _ in staged]


    def rebuild(self, progress: Progress = no_progress, recompute: bool = False) -> "RebuildReport":
        """Replay the submissions in time order, each dueling the top models of its
        day, and run only the duels that are missing. With `recompute`, first re-duel
        every pair whose stored duels were computed under other rules than the current
        ones, and report the verdicts that changed. Duels of unpublished models are
        dropped. Writes every duel file again, in one commit."""
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            tournament, report = self.tournament.copy(), RebuildReport()
            if recompute:
                tournament = self._recompute(tournament, report, progress)
            report.dueled = sum(self._run_missing_duels(tournament, self.models, progress).values())
            self._rewrite(tournament, self.models, "Rebuild the duels", drop_legacy=True,
                          deleted=self.store.duel_file_ids())
            return report

    def _recompute(self, tournament: Tournament, report: "RebuildReport", progress: Progress) -> Tournament:
        """`tournament` with every pair that has a duel under other rules dueled again
        (both directions, all tasks); `report` gets the verdicts that changed."""
        rows = tournament.rows()
        stale = rows.rules != self.rules
        owners = self._owners(tournament, rows)
        pairs = {}  # owner -> opponents whose pair is recomputed
        for first, second, owner in zip(rows.first[stale], rows.second[stale], owners[stale]):
            pairs.setdefault(int(owner), set()).add(int(second if owner == first else first))
        fresh = Tournament(tournament.task_ids, tournament.model_ids, rows.take(~_in_pairs(rows, pairs)))
        for k, (owner, opponents) in enumerate(sorted(pairs.items())):
            progress(k / max(len(pairs), 1), "recomputing duels under the current rules")
            ids = [tournament.model_ids[o] for o in sorted(opponents)]
            sid = tournament.model_ids[owner]
            results = {s: self.models[s].results for s in (sid, *ids)}
            fresh.add_rows(duel_rows(self.benchmark, fresh, sid, ids, results, self.rules))
        report.recomputed_pairs = sum(len(o) for o in pairs.values())
        report.changed = _changed_verdicts(tournament, fresh, rows.take(stale))
        return fresh

    def migrate(self) -> int:
        """Convert a reference-layout store (tournament.json) to per-publication duel
        files, keeping every duel as it is (its rules stay "unrecorded" until a
        `rebuild --recompute`). Returns the number of duel files written."""
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            if not self.store.read_tournament() and not self.orphan_duels:
                raise BadInput("nothing to migrate: the store has no tournament.json")
            return self._rewrite(self.tournament, self.models, "Migrate tournament.json to duels/", drop_legacy=True,
                                 deleted=self.store.duel_file_ids())

    def export_reference_layout(self, folder: str | Path) -> Path:
        """Write the board in the reference dataset's layout (data/, tournament.json, the
        titles file) into `folder`, for tools that read that layout."""
        from leaderboard.storage.local import TITLES_FILE, TOURNAMENT_FILE
        folder = Path(folder)
        if folder.exists() and any(folder.iterdir()):
            raise BadInput(f"{folder} is not empty; export into a new folder")
        (folder / "data").mkdir(parents=True)
        for sid in self.models:
            (folder / "data" / f"{sid}.json").write_bytes(self.store.read_document(sid))
        (folder / TOURNAMENT_FILE).write_bytes(dump_json(self.tournament.to_json()))
        (folder / TITLES_FILE).write_bytes(dump_json(self.titles()))
        return folder

    def _owners(self, tournament: Tournament, rows: DuelRows) -> np.ndarray:
        """Per row, the model whose duel file holds it: the later published of the two."""
        order = sorted(tournament.model_ids, key=lambda m: (self.models[m].submitted, m))
        position = np.empty(len(tournament.model_ids), dtype=np.int64)
        position[[tournament.index(m) for m in order]] = np.arange(len(order))
        return np.where(position[rows.first] > position[rows.second], rows.first, rows.second)

    def _duel_file(self, tournament: Tournament, rows: DuelRows) -> bytes:
        return duel_files.duel_file(rows, tournament.model_ids, tournament.task_ids,
                                    {self.rules: self.rules_description, UNRECORDED_RULES: UNRECORDED_DESCRIPTION})

    def _rewrite(self, tournament: Tournament, models: dict, message: str, deleted=(), removed: str | None = None,
                 drop_legacy: bool = False, legacy: dict | None = None, only: set[str] | None = None,
                 flags: dict[str, Flag] | None = None) -> int:
        """Write the duel files of `tournament` (grouped by owner; all, or those of the
        owners in `only`), delete the files in `deleted` that are not written, and write
        the board files (and `flags`, when given), in one commit; then make it the state.
        Returns the files written."""
        rows = tournament.rows()
        owners = self._owners(tournament, rows)
        order = np.argsort(owners, kind="stable")
        bounds = np.flatnonzero(np.diff(owners[order])) + 1
        files = {tournament.model_ids[owners[chunk[0]]]: self._duel_file(tournament, rows.take(chunk))
                 for chunk in np.split(order, bounds)
                 if len(chunk) and (only is None or tournament.model_ids[owners[chunk[0]]] in only)}
        ranked = self._rank(models, tournament)
        change = BoardRewrite(_titles(models), snapshot_parquet(models, ranked, self.benchmark,
                                                                self.flags if flags is None else flags),
                              message, files, tuple(sid for sid in deleted if sid not in files), legacy, drop_legacy,
                              removed, None if flags is None else flags_json(flags))
        self._write(change, models, tournament, ranked, flags)
        self.orphan_duels = set()
        return len(files)

    def _write(self, change: BoardRewrite, models: dict, tournament: Tournament, ranked: pd.DataFrame,
               flags: dict[str, Flag] | None) -> None:
        """Commit `change` on top of the loaded revision, then make its result the state."""
        try:
            revision = self.store.rewrite(change, parent=self.revision)
        except StoreConflict as e:
            raise StoreFailure(f"writing the store failed, nothing was changed (another write came first), "
                             f"please try again: {e}") from None
        except StoreFailure as e:
            try:
                moved = self.refresh(fresh=True)
            except StoreFailure:
                moved = None
            if moved is False:
                raise StoreFailure(f"writing the store failed, nothing was changed: {e}") from None
            seen = "changed meanwhile" if moved else "could not be read back"
            raise StoreFailure(f"writing the store failed ({e}), but the store {seen}: the change may have landed; "
                             f"look (`table`, `check`) before writing again") from None
        self._set_state(models, tournament, revision, ranked, flags)

    def _run_missing_duels(self, tournament: Tournament, models: dict[str, PublishedModel],
                           progress: Progress = no_progress) -> dict[str, int]:
        """Play into `tournament` every duel the replay of `models` expects and it lacks.
        Returns, per model that got new duels (it owns their rows), the opponents it dueled."""
        dueled = {}
        for k, (sid, opponents) in enumerate(self._expected_opponents(tournament, models)):
            progress(k / len(models), f"duels of {sid}")
            results = {s: models[s].results for s in (sid, *opponents)}
            count = play(self.benchmark, tournament, sid, results, opponents, rules=self.rules)
            if count:
                dueled[sid] = count
        return dueled

    def _expected_opponents(self, tournament: Tournament, models: dict[str, PublishedModel] | None = None):
        """(model, the top models of its day) in time order, as the replay of `models`
        (default: the published ones) defines them (models flagged by then are passed over).
        Scores of the earlier models come from their duels among themselves in
        `tournament`, counted as the replay goes (the caller may add the duels it runs
        for a model before the next is yielded): O(stored duels), not a ranking of every
        prefix from scratch."""
        models = self.models if models is None else models
        order = sorted(models.values(), key=lambda m: (m.submitted, m.submission_id))
        ids = [m.submission_id for m in order]
        flagged_at = {sid: flag.flagged_at for sid, flag in self.flags.items()}
        position = np.full(len(tournament.model_ids), -1, dtype=np.int64)
        position[[tournament.index(s) for s in ids if s in tournament]] = np.arange(len(ids))[
            [s in tournament for s in ids]]
        won, fought = np.zeros((len(ids), len(tournament.task_ids))), np.zeros((len(ids), len(tournament.task_ids)))
        submitted = _submitted(models)[ids]
        for k, sid in enumerate(ids):
            if k:
                with np.errstate(invalid="ignore", divide="ignore"):
                    table = ranking.scores_from_win_scores(won[:k] / fought[:k], ids[:k], self.benchmark)
                flagged = {s for s in ids[:k] if flagged_at.get(s, np.inf) <= models[sid].submitted}
                yield sid, ranking.opponents(ranking.ranked(table, submitted.iloc[:k]), self.benchmark.top_opponents,
                                                   flagged)
            if sid not in tournament:
                continue
            rows = tournament.rows_involving(sid)  # its duels with earlier models now count
            a, b = position[rows.first], position[rows.second]
            among = (a >= 0) & (b >= 0) & (a <= k) & (b <= k)
            np.add.at(won, a[among], (rows.significant & rows.fought)[among])
            np.add.at(fought, a[among], rows.fought[among])

    def remove(self, submission_id: str, reason: str) -> None:
        """Take a model and its duels off the board, in one write. Models published after
        it dueled it instead of another of the top models of their day: those duels,
        which the replay now expects, are run and written in the same commit."""
        if not reason.strip():
            raise BadInput("give a reason for the removal")
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            self._require_published(submission_id)
            models = {s: m for s, m in self.models.items() if s != submission_id}
            affected = {self.tournament.model_ids[i] for part in [self.tournament.rows_involving(submission_id)]
                        for i in np.r_[part.first, part.second]} - {submission_id}
            tournament = self.tournament.subset(list(models))
            affected |= set(self._run_missing_duels(tournament, models))
            legacy = self.store.read_tournament()
            if legacy:
                legacy = {a: {b: d for b, d in row.items() if b != submission_id}
                          for a, row in legacy.items() if a != submission_id}
            flags = ({s: f for s, f in self.flags.items() if s != submission_id} if submission_id in self.flags
                     else None)
            self._rewrite(tournament, models, f"Remove {submission_id}: {reason}", deleted=[submission_id, *affected],
                          only=affected, removed=submission_id, legacy=legacy or None, flags=flags)

    def flag(self, submission_id: str, reason: str, link: str | None = None) -> Flag:
        """Mark a published model (or change its flag's reason and link), in one write.
        The model stays on the board; new submissions no longer duel it. A changed flag
        keeps its time: the replay passes the model over from then on, as publication did."""
        reason, link = validate_flag(reason, link)
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            self._require_published(submission_id)
            earlier = self.flags.get(submission_id)
            flag = Flag(reason, link, time.time() if earlier is None else earlier.flagged_at)
            self._write_flags({**self.flags, submission_id: flag}, f"Flag {submission_id}: {reason}")
            return flag

    def unflag(self, submission_id: str, reason: str = "") -> None:
        """Take a model's flag off, in one write."""
        reason = validate_flag(reason)[0] if normalize_name(reason) else ""
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            self._require_published(submission_id)
            if submission_id not in self.flags:
                raise BadInput(f"{submission_id} is not flagged")
            self._write_flags({s: f for s, f in self.flags.items() if s != submission_id},
                              f"Unflag {submission_id}" + (f": {reason}" if reason else ""))

    def _require_published(self, submission_id: str) -> None:
        if submission_id not in self.models:
            raise NotFound(f"no published model {submission_id!r}")

    def _write_flags(self, flags: dict[str, Flag], message: str) -> None:
        snapshot = snapshot_parquet(self.models, self.state.ranked, self.benchmark, flags)
        self._write(BoardRewrite(self.titles(), snapshot, message, flags=flags_json(flags)), self.models,
                    self.tournament, self.state.ranked, flags)

    def check(self) -> list[str]:
        """Integrity report: files that fail validation, duels that are missing (by the
        replay rule) and duels of models that are not published. Empty when all is well."""
        self.refresh(fresh=True)
        problems = list(self.load_problems)
        for sid, opponents in self._expected_opponents(self.tournament):
            missing = [o for o in opponents if not self.tournament.has_dueled(sid, o)]
            if missing:
                problems.append(f"{sid}: {len(missing)} missing duels (with {', '.join(missing[:3])}"
                                f"{', ...' if len(missing) > 3 else ''}); run rebuild")
        orphans = sorted(self.orphan_duels)
        if orphans:
            problems.append(f"duels of {len(orphans)} unpublished models ({', '.join(orphans[:3])}"
                            f"{', ...' if len(orphans) > 3 else ''}); run rebuild to drop them")
        return problems

    def watch(self, seconds: float, on_reload=None) -> threading.Thread:
        """Poll the store every `seconds` and reload when another replica published;
        `on_reload()` is called after each reload."""
        def loop():
            while True:
                time.sleep(seconds)
                try:
                    if self.refresh(fresh=True):
                        log.info("the store changed: reloaded, %d models", len(self.models))
                        if on_reload is not None:
                            on_reload()
                except Exception as e:  # noqa: BLE001 - a failed poll must not stop polling
                    log.warning("polling the store failed: %s", e)

        thread = threading.Thread(target=loop, name="leaderboard-poll", daemon=True)
        thread.start()
        return thread


@dataclass
class RebuildReport:
    """What a rebuild did: opponents dueled for missing duels; with --recompute, pairs
    dueled again under the current rules and the verdicts that changed."""

    dueled: int = 0
    recomputed_pairs: int = 0
    changed: list[tuple[str, str, str, bool, bool]] = field(default_factory=list)  # task, A, B, before, after


UNRECORDED_DESCRIPTION = {"version": None, "note": "imported from a reference-layout tournament.json; the rules "
                                                  "that computed these duels were not recorded"}


def _in_pairs(rows: DuelRows, pairs: dict[int, set[int]]) -> np.ndarray:
    """Which rows belong to an unordered pair {owner, opponent} listed in `pairs`: (P,) bool."""
    keys = {(min(o, x), max(o, x)) for o, xs in pairs.items() for x in xs}
    if not keys:
        return np.zeros(len(rows), dtype=bool)
    wanted = np.array(sorted(a << 32 | b for a, b in keys), dtype=np.int64)
    low, high = np.minimum(rows.first, rows.second).astype(np.int64), np.maximum(rows.first, rows.second)
    return np.isin(low << 32 | high.astype(np.int64), wanted)


def _changed_verdicts(before: Tournament, after: Tournament, stale: DuelRows) -> list:
    """(task, A, B, significant before, after) for every stale duel whose verdict changed."""
    changed = []
    for k in range(len(stale)):
        a, b = before.model_ids[stale.first[k]], before.model_ids[stale.second[k]]
        new = after.pair(a, b)
        if new is None:
            continue
        differs = (stale.significant[k] != new.significant[0]) & stale.fought[k]
        changed += [(before.task_ids[t], a, b, bool(stale.significant[k, t]), bool(new.significant[0, t]))
                    for t in np.flatnonzero(differs)]
    return changed


def _refuse_duplicate(models: dict[str, PublishedModel], sid: str, title: str, predictions_sha256: str) -> None:
    """A submission is new when its id, its predictions and its title (after Unicode
    normalization, ignoring case and look-alike letters) all differ from every published
    model's."""
    keys = title_keys(title)
    for other in models.values():
        if other.submission_id == sid or other.metadata.get("model_predictions_sha256") == predictions_sha256:
            raise BadInput(f"these predictions are already published as {other.title} ({other.submission_id})")
        if any(mine == theirs for mine, theirs in zip(keys, title_keys(other.title))):
            raise BadInput(f"Model name: {other.title} is already published ({other.submission_id}); "
                                  f"choose another team or model name")


def _titles(models: dict) -> dict:
    return {s: m.title for s, m in models.items()}


def _submitted(models: dict) -> pd.Series:
    return pd.Series({s: m.submitted for s, m in models.items()}, dtype=float)


PUBLISH_ATTEMPTS = 5
SAMPLE_PRESUBMITTED = "this is the leaderboard's sample file: it can be pre-submitted, never published"
SAMPLE_REFUSED = ("this is the leaderboard's sample file, which cannot be published: published, it would make every "
                  "visitor's copy a duplicate. Publish your own model's results.")
DEMO_STORE = Path(__file__).resolve().parent.parent / "demo_store"
DEMO_MODELS = 40


def open_configured_store(benchmark_name: str):
    """A HubStore for LEADERBOARD_REPO (with HF_TOKEN), else a LocalStore for
    LEADERBOARD_STORE, else None (the demo store)."""
    repo = os.environ.get("LEADERBOARD_REPO")
    if repo:
        from leaderboard.storage.hub import HubStore
        return HubStore(repo, token=os.environ.get("HF_TOKEN") or None, benchmark_name=benchmark_name)
    folder = os.environ.get("LEADERBOARD_STORE")
    return LocalStore(folder) if folder else None


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
    store = LocalStore(demo_store_folder(benchmark))
    if not store.submission_ids():
        from leaderboard.demo import build_demo_store
        return build_demo_store(store.root, DEMO_MODELS, benchmark=benchmark, progress=progress)
    return Leaderboard(store, benchmark, progress=progress)
