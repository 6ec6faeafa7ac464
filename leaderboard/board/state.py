"""The reading role: the published models and their duels, from one revision of the store.

This is what the command line and the web app read. State is replaced, never mutated in
place, so readers (browsing, pre-submissions) need no lock; the writing roles
(`board.publishing.Publishing`, `board.administration.Administration`) are built beside the
board and take it as a read-only `BoardReader`: they take `write_lock` and hand the state
their write made to `install`, the one call that changes it.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from leaderboard import freed_memory
from leaderboard.board.reader import BoardState, titles_of
from leaderboard.config.tasks import PANEL, Benchmark, load_benchmark
from leaderboard.submission.demo import sample_document
from leaderboard.engine import ranking, replay
from leaderboard.engine.replay import submitted_times
from leaderboard.engine.panel import Candidates, Panel, near_copy_candidates
from leaderboard.engine.tournament import (DuelRows, Tournament, duel_rows, rows_from_json, rules_description,
                                           rules_id, task_seed)
from leaderboard.errors import BadInput, NotFound
from leaderboard.engine.progress import Progress, no_progress
from leaderboard.storage import duel_files
from leaderboard.storage.flags import Flag, parse_flags
from leaderboard.storage.kept_counts import CountsFolder
from leaderboard.storage.store import PublishedModel
from leaderboard.storage.presubmissions import WINDOW_DAYS, DAY, Disclosure, PresubmissionLog, disclosure
from leaderboard.storage.store import Store
from leaderboard.submission.alignment import TaskReference
from leaderboard.submission.parsing import ParsedSubmission, canonical_sha256, parse_submission, predictions_sha256, summarize
from stats import duel_tests, evidence

log = logging.getLogger(__name__)


class EvidenceEntry(TypedDict):
    """The board under one view setting (`Leaderboard._evidence`), made from one state."""

    of: Tournament  # the state's tournament it was made from
    flags: dict[str, Flag]  # and its flags
    duels: Tournament
    ranked: pd.DataFrame
    certainty: pd.DataFrame | None  # None until asked for
    computing: threading.Lock  # held while the certainty is computed


EMPTY_STATE = BoardState({}, Tournament([], []), None, pd.DataFrame(), {})


class Leaderboard:
    """The board of `store` under `benchmark`, loaded on creation; read-only to its
    writing roles (`BoardReader`), which are its neighbours, not its members."""

    def __init__(self, store: Store, benchmark: Benchmark | None = None, progress: Progress = no_progress,
                 counts_kept: CountsFolder | None = None):
        """`counts_kept`: where a load keeps the duels' won and fought counts for the next
        process (the command line's), and reads them when they are of the same rows."""
        self.store = store
        self.counts_kept = counts_kept
        self.benchmark = benchmark or load_benchmark()
        self.load_problems: list[str] = []
        self.orphan_duels: set[str] = set()  # unpublished models that stored duels mention
        self._state = EMPTY_STATE
        self.rules_description = rules_description(self.benchmark)
        self.rules = rules_id(self.rules_description)
        self.write_lock = threading.RLock()
        self._evidence_cache: dict[tuple[bool, bool], EvidenceEntry] = {}  # (adjusted, exclude_flagged) -> state
        self._evidence_lock = threading.Lock()
        self._file_references: dict[str, Mapping[str, TaskReference]] = {}  # read from files: caches lacked fields
        self._sample: tuple[str | None, dict[str, Any]] | None = None  # (reference model, sample file)
        self._sample_hash: tuple[dict[str, Any], str] | None = None  # (sample file, the hash of its predictions)
        self._sample_first_task: tuple[str | None, str] | None = None  # (reference model, hash of its first task)
        self._earliest: tuple[dict[str, PublishedModel], PublishedModel | None] | None = None  # (models, the earliest)
        self.presubmissions = PresubmissionLog(store)  # disclosed pre-submissions
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
        ranked, derived = self._ranked(models, tournament, flags)
        self._state = BoardState(models, tournament, revision, ranked, flags, derived)
        self.load_problems, self.orphan_duels = problems + duel_problems + flag_problems, orphans

    def _read_flags(self, models: dict[str, PublishedModel]) -> tuple[dict[str, Flag], list[str]]:
        """The stored flags of published models, and problems (entries of unpublished ones)."""
        data = self.store.read_flags()
        flags, problems = parse_flags(data) if data is not None else ({}, [])
        problems += [f"flags.json names {sid}, which is not published (ignored)" for sid in flags if sid not in models]
        return {sid: flag for sid, flag in flags.items() if sid in models}, problems

    def _read_duels(self, model_ids: list[str]) -> tuple[Tournament, set[str], list[str]]:
        """The stored duels among `model_ids`: the reference layout's tournament.json, if
        any, and the duel files. Also the unpublished models they mention, and problems."""
        task_ids, index = self.benchmark.task_ids, {m: i for i, m in enumerate(model_ids)}
        version = self.store.duels_version() if self.counts_kept is not None else None
        legacy = self.store.read_tournament()
        tables, problems = self.store.read_duel_tables()
        rows, orphans = duel_files.rows_from_tables(tables, task_ids, index)
        orphans |= ({a for a in legacy if a not in index} | {b for row in legacy.values() if isinstance(row, dict)
                                                             for b in row if b not in index})
        if legacy:  # a concatenation copies every row (at 10,000 models, 1 GB and seconds)
            rows = DuelRows.concat([rows_from_json(legacy, task_ids, index), rows], len(task_ids))
        rows = rows.unique()
        if self.counts_kept is None or version is None:
            return Tournament(task_ids, model_ids, rows), orphans, problems
        counts = self.counts_kept.read(version, task_ids, model_ids)
        tournament = Tournament(task_ids, model_ids, rows, counts)
        if counts is None:
            self.counts_kept.keep(version, task_ids, model_ids, *tournament.counts())
        return tournament, orphans, problems

    def rank(self, models: dict[str, PublishedModel], tournament: Tournament,
             flags: dict[str, Flag] | None = None) -> pd.DataFrame:
        """`models` ranked by their stored duels in `tournament` under the benchmark's rule;
        `flags` (default: the board's) are never on the reference panel."""
        return self._ranked(models, tournament, self.flags if flags is None else flags)[0]

    def _ranked(self, models: dict[str, PublishedModel], tournament: Tournament, flags: dict[str, Flag]
                ) -> tuple[pd.DataFrame, dict[str, Any]]:
        """`rank`'s table, and what a state of exactly these models, duels and flags keeps of
        its making (`BoardState.derived`): under the panel rule the settled panel it ranks
        by, which `settled_panel` then need not settle again (at 10,000 models 0.3-0.7 s of
        a cold pre-submission)."""
        if self.benchmark.opponents != PANEL:
            scores = replay.scores(tournament, models, flags, self.benchmark)
            return ranking.ranked(scores, submitted_times(models)), {}
        panel = replay.board_panel(tournament, models, flags, self.benchmark)  # as `settled_panel` settles it
        return ranking.ranked(panel.scores(self.benchmark), submitted_times(models)), {"panel": panel}

    def panel(self) -> tuple[str, ...]:
        """The reference panel's members, best first (empty under top-of-its-day)."""
        settled = self.settled_panel()
        return settled.members if settled else ()

    def settled_panel(self) -> Panel | None:
        """The board's settled reference panel (None under top-of-its-day), settled once per
        state: a pre-submission counts its model in from it."""
        state = self.state
        if self.benchmark.opponents != PANEL:
            return None
        return state.derive("panel", lambda: replay.board_panel(state.tournament, state.models, state.flags,
                                                                self.benchmark))

    def near_copy_candidates(self) -> Candidates:
        """The published models a pre-submission's model may nearly copy, made once per board
        content (`panel.near_copy_candidates`)."""
        state = self.state
        return state.derive("near_copy_candidates", lambda: near_copy_candidates(self.benchmark, state.models))

    def install(self, state: BoardState, orphan_duels: set[str] | None = None) -> None:
        """Make `state` the board's: the one call by which a writer, holding `write_lock`,
        changes the board, with the state of the store its write left (`orphan_duels`: the
        unpublished models its duel files still mention, when it rewrote them; None keeps
        them). One assignment, so a reader sees the old state or the new, never a mix."""
        self._state = state
        if orphan_duels is not None:
            self.orphan_duels = orphan_duels

    @property
    def state(self) -> BoardState:
        """What the board shows now (read-only: writers `install` a new one)."""
        return self._state

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
        with self.write_lock:
            self.load()
        return True

    def disclosure(self, sid: str) -> Disclosure:
        """The pre-submissions disclosed for a published model (storage/presubmissions.py)."""
        published = self.models[sid].submitted
        return disclosure(self.presubmissions.records(published - WINDOW_DAYS * DAY, published),
                          self.models[sid].metadata)

    def disclosures(self) -> dict[str, Disclosure]:
        """Every published model's `disclosure`."""
        return self.presubmissions.disclosures(self.models)

    def model_of(self, sid: str, metadata: dict[str, Any], parsed: ParsedSubmission) -> PublishedModel:
        """The model a parsed submission makes: its per-task summaries and references."""
        return PublishedModel(sid, metadata, summarize(parsed, self.benchmark),
                              {t: TaskReference.of(s) for t, s in parsed.tasks.items()})

    def _model_from_file(self, sid: str) -> PublishedModel:
        document = self.store.read_document(sid)
        parsed = parse_submission(document, self.benchmark, require_doc_ids=False)
        metadata = parsed.document.get("submission_metadata") or {}
        model = self.model_of(sid, metadata, parsed)
        self.store.save_cached(model)
        return model

    @property
    def submitted(self) -> pd.Series:
        return submitted_times(self.models)

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

    def certainty(self, adjusted: bool = False, exclude_flagged: bool = False, wait: bool = True
                  ) -> pd.DataFrame | None:
        """Score and rank intervals and tie groups of `ranked(adjusted, exclude_flagged)`,
        same rows (`ranking.certainty_table`); computed on first use (seconds for thousands
        of models), so loading and ranking do not pay for it, once per state: a caller
        finding another thread computing them waits for its result, or with `wait`
        False gets None (the page then says the intervals are being refreshed)."""
        state = self.state
        entry = self._evidence(adjusted, exclude_flagged, state)
        if entry["certainty"] is None:
            if not entry["computing"].acquire(blocking=wait):
                return None
            self._fill_certainty(entry, state)
        return entry["certainty"]

    def _fill_certainty(self, entry: EvidenceEntry, state: BoardState) -> None:
        """Compute an evidence entry's certainty; called holding its `computing` lock, which
        it releases."""
        try:
            if entry["certainty"] is None:
                entry["certainty"] = ranking.certainty_of(entry["ranked"], self.benchmark, state.models, state.flags)
        finally:
            entry["computing"].release()

    def certainty_in_background(self, then: Callable[[], object] | None = None, after: threading.Event | None = None) -> threading.Thread:
        """The current state's default certainty computed in a thread (once `after` is set,
        when given), then `then()` called (there). From this call on until it is done,
        `certainty(wait=False)` is None and `intervals_pending()` true. The state's settled
        panel first: the next pre-submission's need (0.2 s at 10,000 models) before the
        intervals' minute, after a publication as at the start."""
        state = self.state
        entry = self._evidence(False, False, state)
        claimed = entry["certainty"] is None and entry["computing"].acquire(blocking=False)

        def run() -> None:
            try:
                if after is not None:
                    after.wait()
                if self.state is state:
                    self.settled_panel()
                if claimed:
                    self._fill_certainty(entry, state)
                if then is not None:
                    then()
            except Exception as e:  # noqa: BLE001 - a reader computes them when it asks
                log.warning("computing the intervals failed: %s", e)
            freed_memory.give_back()
        thread = threading.Thread(target=run, name="leaderboard-intervals", daemon=True)
        thread.start()
        return thread

    def warm_in_background(self, after: threading.Event | None = None,
                           before_batch: Callable[[], object] | None = None) -> threading.Thread:
        """What a start that took its intervals from the snapshot has not computed, in a
        thread (once `after` is set, when given): what a first pre-submission would otherwise
        pay (`warm_presubmission`), then every model's replicates, kept on its results, so
        that the first publication's intervals (`Publishing.refresh_intervals`) compute the
        new model's alone (cold, every model's: 77 s at 10,000 full-size models,
        bench/RESULTS.md). `before_batch` is called before each batch of replicates (the app
        waits there while it serves visitors: 6 s of a core at 10,000 models)."""
        state = self.state

        def run() -> None:
            try:
                if after is not None:
                    after.wait()
                self.warm_presubmission()
                for _ in ranking.task_replicates(self.benchmark, {m: state.models[m].results for m in state.models},
                                                 list(state.models), before_batch=before_batch):
                    pass  # kept on the models' results
            except Exception as e:  # noqa: BLE001 - whoever needs them computes them
                log.warning("warming the board failed: %s", e)
        thread = threading.Thread(target=run, name="leaderboard-warming", daemon=True)
        thread.start()
        return thread

    def warm_presubmission(self) -> None:
        """What every pre-submission of this state reads and the first would compute: the
        panel (its members' duel columns), the near-copy candidates, the references a file
        is aligned to, each task's bootstrap resample counts, the published names the
        duplicate check looks up, the sample file's first task, and scipy.special, which
        the duels import on first use (2 s on a loaded machine)."""
        duel_tests.scipy_special()
        self.panel()
        self.near_copy_candidates()
        references = self.references()
        for task in self.benchmark.tasks:  # a new file's summaries and replicates draw them (10-50 ms a task)
            if task.id in references:
                for resamples in (duel_tests.N_RESAMPLES, evidence.CERTAINTY_RESAMPLES):
                    duel_tests.resample_counts(references[task.id].n_samples, task_seed(task.id), resamples)
        self.state.names  # noqa: B018 - made on first use
        if self.models:
            self._sample_first_task_hash()

    def certainty_from_snapshot(self) -> bool:
        """Take the default view's intervals from the store's snapshot when it is current
        (`snapshot.current_snapshot`: a local store's last write computed them with the
        ranking it holds), so that a start need not compute them again; whether it did."""
        from leaderboard.storage.snapshot import certainty_columns, current_snapshot
        state = self.state
        table = current_snapshot(self.store, self.benchmark)
        if table is None or set(table.index) != set(state.ranked.index):
            return False
        try:
            certainty = certainty_columns(table, self.benchmark).loc[state.ranked.index]
        except KeyError:  # of another version's columns
            return False
        entry = self._evidence(False, False, state)
        with entry["computing"]:
            if entry["certainty"] is None:
                entry["certainty"] = certainty
        return True

    def intervals_pending(self) -> bool:
        """Whether the default view's intervals are being computed now (after a
        publication, `Publishing.refresh_intervals_in_background`)."""
        entry = self._evidence(False, False)
        return entry["certainty"] is None and entry["computing"].locked()

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
        forward, backward = tournament.pair(a, b), tournament.pair(b, a)
        if forward is not None and backward is not None and tournament.has_dueled(a, b):
            return forward, backward, False
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

    def _evidence(self, adjusted: bool, exclude_flagged: bool, state: BoardState | None = None) -> EvidenceEntry:
        """{"duels", "ranked", "certainty" (None until asked for)} under a view setting,
        made once per state: the entry names the tournament and flags it was made from, so
        a reader racing a reload never gets another state's."""
        state = state or self.state
        tournament, models, flags, ranked = state.tournament, state.models, state.flags, state.ranked
        key = (adjusted, exclude_flagged)
        with self._evidence_lock:  # one entry per state and setting, whichever thread asks first
            return self._evidence_entry(key, tournament, models, flags, ranked, adjusted, exclude_flagged)

    def _evidence_entry(self, key: tuple[bool, bool], tournament: Tournament, models: dict[str, PublishedModel],
                        flags: dict[str, Flag], ranked: pd.DataFrame, adjusted: bool, exclude_flagged: bool
                        ) -> EvidenceEntry:
        entry = self._evidence_cache.get(key)
        if entry is None or entry["of"] is not tournament or entry["flags"] is not flags:
            duels = tournament
            if exclude_flagged:
                models = {sid: model for sid, model in models.items() if sid not in flags}
                duels = duels.subset(list(models))
            if adjusted:
                duels = duels.bh_adjusted(self.benchmark.alpha, ranked.attrs.get("panel"))
            if adjusted or exclude_flagged:
                ranked = self.rank(models, duels, flags)
            entry = {"of": tournament, "flags": flags, "duels": duels, "ranked": ranked, "certainty": None,
                     "computing": threading.Lock()}
            self._evidence_cache[key] = entry
        return entry

    def titles(self) -> dict[str, str]:
        return titles_of(self.models)

    def _reference_model(self) -> PublishedModel | None:
        """The earliest published model, whose documents every new submission must match;
        found once per board state (a pass over 10,000 models: 0.04 s, three times per
        pre-submission)."""
        models = self.models
        if self._earliest is None or self._earliest[0] is not models:
            self._earliest = (models, min(models.values(), key=lambda m: (m.submitted, m.submission_id))
                              if models else None)
        return self._earliest[1]

    def references(self) -> Mapping[str, TaskReference]:
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

    def sample_document(self) -> dict[str, Any]:
        """The board's sample file (`demo.sample_document` on its references), made once
        per reference model, so the file offered and the one recognized are the same."""
        reference_model = self._reference_model()
        owner = reference_model.submission_id if reference_model else None
        if self._sample is None or self._sample[0] != owner:
            self._sample = (owner, sample_document(self.benchmark, self.references()))
        return self._sample[1]

    def _sample_first_task_hash(self) -> str:
        """The hash of the sample file's first task's predictions, made once per reference model."""
        reference_model = self._reference_model()
        owner = reference_model.submission_id if reference_model else None
        if self._sample_first_task is None or self._sample_first_task[0] != owner:
            first_task = self.benchmark.tasks[0].id
            sample = sample_document(self.benchmark, self.references(), n_tasks=1)
            self._sample_first_task = (owner, predictions_sha256({"predictions": sample["predictions"][first_task]}))
        return self._sample_first_task[1]

    def is_sample_file(self, parsed: ParsedSubmission) -> bool:
        """Whether a parsed file is the board's sample file (by its predictions). Its first
        task is compared first: any other file differs there, which is found without
        making the whole sample (a second per process)."""
        first_task = self.benchmark.tasks[0].id
        if canonical_sha256(parsed.document["predictions"][first_task]) != self._sample_first_task_hash():
            return False
        # The whole file's hash (a third of a second) when a file first matches it there, not
        # when the app offers the file at its start.
        document = self.sample_document()
        if self._sample_hash is None or self._sample_hash[0] is not document:
            self._sample_hash = (document, predictions_sha256(document))
        return parsed.predictions_sha256 == self._sample_hash[1]

    def watch(self, seconds: float, on_reload: Callable[[], object] | None = None) -> threading.Thread:
        """Poll the store every `seconds` and reload when another replica published;
        `on_reload()` is called after each reload."""
        def loop() -> None:
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
