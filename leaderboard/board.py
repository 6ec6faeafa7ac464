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

import pandas as pd

from leaderboard import ranking
from leaderboard.snapshot import snapshot_parquet
from leaderboard.store import LocalStore, Publication, PublishedModel, StoreConflict, StoreError, dump_json
from leaderboard.submission import (SubmissionError, SubmissionMetadata, TaskReference, parse_submission,
                                    submission_id, title_key, validate_metadata)
from leaderboard.tasks import Benchmark, load_benchmark
from leaderboard.tournament import Progress, Tournament, no_progress, play, summarize

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

    @property
    def rank(self) -> int:
        return int(self.table.loc[self.submission_id, "rank"])


class Leaderboard:
    def __init__(self, store: LocalStore, benchmark: Benchmark | None = None, progress: Progress = no_progress):
        self.store = store
        self.benchmark = benchmark or load_benchmark()
        self.load_problems: list[str] = []
        self.models: dict[str, PublishedModel] = {}
        self._lock = threading.RLock()
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
            except SubmissionError as e:
                problems.append(f"data/{sid}.json is skipped: {e.problems[0]}")
        tournament = Tournament.from_json(self.store.read_tournament(), self.benchmark.task_ids, list(models))
        self._set_state(models, tournament, revision)
        self.load_problems = problems

    def _rank(self, models: dict[str, PublishedModel], tournament: Tournament) -> pd.DataFrame:
        return ranking.ranked(ranking.scores_table(tournament, self.benchmark), _submitted(models))

    def _set_state(self, models: dict[str, PublishedModel], tournament: Tournament, revision,
                   ranked: pd.DataFrame | None = None) -> None:
        ranked = self._rank(models, tournament) if ranked is None else ranked
        # Readers run in other threads: the state changes in one assignment.
        self.models, self.tournament, self.revision, self._ranked = models, tournament, revision, ranked

    def refresh(self, fresh: bool = False) -> bool:
        """Reload when the store changed under us (another process or replica published).
        fresh=True asks a remote store now instead of using its last polled revision."""
        if self.store.revision(fresh=fresh) == self.revision:
            return False
        with self._lock:
            self.load()
        return True

    def _model_from_file(self, sid: str) -> PublishedModel:
        document = self.store.read_document(sid)
        parsed = parse_submission(document, self.benchmark, require_doc_ids=False)
        metadata = parsed.document.get("submission_metadata") or {}
        model = PublishedModel(sid, metadata, summarize(parsed, self.benchmark),
                               {t: TaskReference.of(s) for t, s in parsed.tasks.items()})
        self.store.save_cached(model)
        return model

    @property
    def submitted(self) -> pd.Series:
        return _submitted(self.models)

    def ranked(self) -> pd.DataFrame:
        """Scores of every published model, best first, with `rank` (ties share a rank)."""
        return self._ranked

    def titles(self) -> dict[str, str]:
        return _titles(self.models)

    def references(self) -> dict[str, TaskReference]:
        """Per task, what a new submission must match: taken from the earliest model."""
        if not self.models:
            return {}
        first = min(self.models.values(), key=lambda m: (m.submitted, m.submission_id))
        return first.references

    # --- pre-submission and publication ---------------------------------------------------

    def presubmit(self, source, form: dict, progress: Progress = no_progress) -> Preview:
        """Validate the form and the file, duel the top models; stores nothing."""
        problems, metadata, parsed = [], None, None
        try:
            metadata = validate_metadata(**form)
        except SubmissionError as e:
            problems += e.problems
        progress(0.05, "reading the file")
        try:
            parsed = parse_submission(source, self.benchmark, self.references())
        except SubmissionError as e:
            problems += e.problems
        if problems:
            raise SubmissionError(problems)
        sid = submission_id(metadata, parsed)
        models, tournament, ranked_now = self.models, self.tournament, self._ranked
        _refuse_duplicate(models, sid, metadata.title, parsed.predictions_sha256)
        progress(0.3, "summarizing the samples")
        model = PublishedModel(sid, {}, summarize(parsed, self.benchmark),
                               {t: TaskReference.of(s) for t, s in parsed.tasks.items()})
        shas = parsed.predictions_sha256, parsed.results_sha256
        model.metadata = self._stored_metadata(metadata, *shas, sid, time.time())
        progress(0.5, "running the duels")
        opponents = list(ranked_now.index[:self.benchmark.top_opponents])
        preview_tournament = tournament.copy()
        results = {sid: model.results, **{o: models[o].results for o in opponents}}
        play(self.benchmark, preview_tournament, sid, results, opponents)
        progress(0.9, "ranking")
        table = self._rank({**models, sid: model}, preview_tournament)
        table.insert(1, "previous_rank", ranked_now["rank"].reindex(table.index))
        table.insert(2, "rank_change", table["previous_rank"] - table["rank"])
        return Preview(sid, metadata, model, dump_json(parsed.document), *shas, preview_tournament, table, opponents,
                       parsed.warnings)

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
        reuse = preview.tournament
        for attempt in range(PUBLISH_ATTEMPTS):
            with self._lock, self.store.lock():
                self.refresh(fresh=True)  # under the lock, so the duplicate check sees every publication
                _refuse_duplicate(self.models, sid, preview.metadata.title, preview.predictions_sha256)
                progress(0.2, "running missing duels")
                opponents = list(self._ranked.index[:self.benchmark.top_opponents])
                tournament = self.tournament.copy()
                results = {sid: preview.model.results, **{o: self.models[o].results for o in opponents}}
                play(self.benchmark, tournament, sid, results, opponents, reuse=reuse)
                metadata = self._stored_metadata(preview.metadata, preview.predictions_sha256, preview.results_sha256,
                                                 sid, time.time() if submitted_at is None else submitted_at)
                model = PublishedModel(sid, metadata, preview.model.results, preview.model.references)
                models = {**self.models, sid: model}
                progress(0.6, "writing")
                document = {**json.loads(preview.document), "submission_metadata": metadata}
                ranked = self._rank(models, tournament)
                publication = Publication(sid, document, tournament.to_json(), _titles(models),
                                          snapshot_parquet(models, ranked, self.benchmark), model)
                try:
                    revision = self.store.publish(publication, parent=self.revision)
                except StoreConflict:
                    log.info("publishing %s: the store moved on (attempt %d), refreshing", sid, attempt + 1)
                    reuse = tournament
                    continue
                except StoreError as e:
                    raise SubmissionError(f"publishing failed, nothing was published: {e}") from None
                self._set_state(models, tournament, revision, ranked)
                progress(1.0, "published")
                return sid
        raise SubmissionError(f"the leaderboard changed {PUBLISH_ATTEMPTS} times while publishing; "
                              f"nothing was published, please try again")


    def rebuild(self, progress: Progress = no_progress) -> int:
        """Replay the submissions in time order, each dueling the top models of its
        day; run only the duels that are missing (duels of removed models are dropped
        on loading). Returns how many opponents were dueled."""
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            tournament = self.tournament.copy()
            dueled = 0
            for k, (sid, opponents) in enumerate(self._expected_opponents(tournament)):
                progress(k / len(self.models), f"duels of {sid}")
                results = {s: self.models[s].results for s in (sid, *opponents)}
                dueled += play(self.benchmark, tournament, sid, results, opponents)
            ranked = self._rank(self.models, tournament)
            try:
                revision = self.store.write_tournament(tournament.to_json(), self.titles(),
                                                       snapshot_parquet(self.models, ranked, self.benchmark),
                                                       parent=self.revision, message="Rebuild the duels")
            except (StoreConflict, StoreError) as e:
                raise SubmissionError(f"writing the duels failed, nothing was written: {e}") from None
            self._set_state(self.models, tournament, revision, ranked)
            return dueled

    def _expected_opponents(self, tournament: Tournament):
        """(model, the top models of its day) in time order, as the replay defines them.
        Scores of the earlier models come from `tournament`, which the caller may fill
        as it goes (rebuild) so that later days see the duels run for earlier ones."""
        order = sorted(self.models.values(), key=lambda m: (m.submitted, m.submission_id))
        ids = [m.submission_id for m in order]
        submitted = self.submitted
        for k in range(1, len(ids)):
            earlier = ids[:k]
            table = ranking.scores_table(tournament.subset(earlier), self.benchmark)
            yield ids[k], ranking.top_ids(table, submitted[earlier], self.benchmark.top_opponents)

    def remove(self, submission_id: str, reason: str) -> None:
        """Take a model and its duels off the board, in one write."""
        if not reason.strip():
            raise SubmissionError("give a reason for the removal")
        with self._lock, self.store.lock():
            self.refresh(fresh=True)
            if submission_id not in self.models:
                raise SubmissionError(f"no published model {submission_id!r}")
            models = {s: m for s, m in self.models.items() if s != submission_id}
            tournament = self.tournament.subset(list(models))
            ranked = self._rank(models, tournament)
            try:
                revision = self.store.remove(submission_id, tournament.to_json(), _titles(models),
                                             snapshot_parquet(models, ranked, self.benchmark), reason,
                                             parent=self.revision)
            except (StoreConflict, StoreError) as e:
                raise SubmissionError(f"removing failed, nothing was changed: {e}") from None
            self._set_state(models, tournament, revision, ranked)

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
        raw = self.store.read_tournament()
        orphans = sorted({a for a in raw if a not in self.models} |
                         {b for row in raw.values() for b in row if b not in self.models})
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


def _refuse_duplicate(models: dict[str, PublishedModel], sid: str, title: str, predictions_sha256: str) -> None:
    """A submission is new when its id, its predictions and its title (after Unicode
    normalization, ignoring case) all differ from every published model's."""
    key = title_key(title)
    for other in models.values():
        if other.submission_id == sid or other.metadata.get("model_predictions_sha256") == predictions_sha256:
            raise SubmissionError(f"these predictions are already published as {other.title} ({other.submission_id})")
        if title_key(other.title) == key:
            raise SubmissionError(f"Model name: {other.title} is already published ({other.submission_id}); "
                                  f"choose another team or model name")


def _titles(models: dict) -> dict:
    return {s: m.title for s, m in models.items()}


def _submitted(models: dict) -> pd.Series:
    return pd.Series({s: m.submitted for s, m in models.items()}, dtype=float)


PUBLISH_ATTEMPTS = 5
DEMO_STORE = Path(__file__).resolve().parent.parent / "demo_store"
DEMO_MODELS = 40


def open_configured_store(benchmark_name: str):
    """A HubStore for LEADERBOARD_REPO (with HF_TOKEN), else a LocalStore for
    LEADERBOARD_STORE, else None (the demo store)."""
    repo = os.environ.get("LEADERBOARD_REPO")
    if repo:
        from leaderboard.hub_store import HubStore
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
