"""The leaderboard: published models and their duels, pre-submission and publication.

This is the API the command line and the web app use. State is replaced, never
mutated in place, so readers (browsing, pre-submissions) need no lock; only
publication and rebuilds take the lock.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from dataclasses import dataclass, field

import pandas as pd

from leaderboard import ranking
from leaderboard.store import LocalStore, PublishedModel
from leaderboard.submission import (ParsedSubmission, SubmissionError, SubmissionMetadata, TaskReference,
                                    parse_submission, submission_id, validate_metadata)
from leaderboard.tasks import Benchmark, load_benchmark
from leaderboard.tournament import Progress, Tournament, no_progress, play, summarize


@dataclass
class Preview:
    """A pre-submission: where the model would rank, computed but not stored."""

    submission_id: str
    metadata: SubmissionMetadata
    model: PublishedModel
    parsed: ParsedSubmission
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
        self._lock = threading.RLock()
        self.load(progress)

    # --- state ---------------------------------------------------------------------------

    def load(self, progress: Progress = no_progress) -> None:
        """Read the store; per-model arrays come from the cache or, on a miss, the file."""
        ids = self.store.submission_ids()
        models, problems = {}, []
        for k, sid in enumerate(ids):
            progress(k / max(len(ids), 1), f"loading {sid}")
            try:
                models[sid] = self.store.load_cached(sid) or self._model_from_file(sid)
            except SubmissionError as e:
                problems.append(f"data/{sid}.json is skipped: {e.problems[0]}")
        tournament = Tournament.from_json(self.store.read_tournament(), self.benchmark.task_ids, list(models))
        self._set_state(models, tournament, self.store.revision())
        self.load_problems = problems

    def _set_state(self, models: dict[str, PublishedModel], tournament: Tournament, revision) -> None:
        self.models, self.tournament, self.revision = models, tournament, revision
        self._ranked = ranking.ranked(ranking.scores_table(tournament, self.benchmark), self.submitted)

    def refresh(self) -> bool:
        """Reload when the store changed under us (another process published)."""
        if self.store.revision() == self.revision:
            return False
        self.load()
        return True

    def _model_from_file(self, sid: str) -> PublishedModel:
        document = self.store.read_document(sid)
        parsed = parse_submission(document, self.benchmark)
        metadata = parsed.document.get("submission_metadata") or {}
        model = PublishedModel(sid, metadata, summarize(parsed, self.benchmark),
                               {t: TaskReference.of(s) for t, s in parsed.tasks.items()})
        self.store.save_cached(model)
        return model

    @property
    def submitted(self) -> pd.Series:
        return pd.Series({sid: m.submitted for sid, m in self.models.items()}, dtype=float)

    def ranked(self) -> pd.DataFrame:
        """Scores of every published model, best first, with `rank` (ties share a rank)."""
        return self._ranked

    def titles(self) -> dict[str, str]:
        return {sid: m.title for sid, m in self.models.items()}

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
        for other in models.values():
            if other.submission_id == sid or other.metadata.get("model_predictions_sha256") == parsed.predictions_sha256:
                raise SubmissionError(f"these predictions are already published as {other.title} "
                                      f"({other.submission_id})")
        progress(0.3, "summarizing the samples")
        model = PublishedModel(sid, {}, summarize(parsed, self.benchmark),
                               {t: TaskReference.of(s) for t, s in parsed.tasks.items()})
        model.metadata = self._stored_metadata(metadata, parsed, sid, time.time())
        progress(0.5, "running the duels")
        opponents = list(ranked_now.index[:ranking.TOP_OPPONENTS])
        preview_tournament = tournament.copy()
        results = {sid: model.results, **{o: models[o].results for o in opponents}}
        play(self.benchmark, preview_tournament, sid, results, opponents)
        progress(0.9, "ranking")
        submitted = pd.concat([self.submitted, pd.Series({sid: model.submitted})])
        table = ranking.ranked(ranking.scores_table(preview_tournament, self.benchmark), submitted)
        table.insert(1, "previous_rank", ranked_now["rank"].reindex(table.index))
        table.insert(2, "rank_change", table["previous_rank"] - table["rank"])
        return Preview(sid, metadata, model, parsed, preview_tournament, table, opponents, parsed.warnings)

    @staticmethod
    def _stored_metadata(metadata: SubmissionMetadata, parsed: ParsedSubmission, sid: str, now: float) -> dict:
        return {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": now,
                "model_predictions_sha256": parsed.predictions_sha256,
                "model_results_sha256": parsed.results_sha256}

    def publish(self, preview: Preview, progress: Progress = no_progress, submitted_at: float | None = None) -> str:
        """Store the previewed model; duels against models published since the preview
        are run first. Returns the submission id."""
        with self._lock, self.store.lock():
            self.refresh()
            sid = preview.submission_id
            if sid in self.models:
                raise SubmissionError(f"{preview.model.title} is already published ({sid})")
            progress(0.2, "running missing duels")
            opponents = list(self._ranked.index[:ranking.TOP_OPPONENTS])
            tournament = self.tournament.copy()
            results = {sid: preview.model.results, **{o: self.models[o].results for o in opponents}}
            play(self.benchmark, tournament, sid, results, opponents, reuse=preview.tournament)
            metadata = self._stored_metadata(preview.metadata, preview.parsed, sid,
                                             time.time() if submitted_at is None else submitted_at)
            model = PublishedModel(sid, metadata, preview.model.results, preview.model.references)
            models = {**self.models, sid: model}
            progress(0.6, "writing")
            document = {**preview.parsed.document, "submission_metadata": metadata}
            self.store.publish(sid, document, tournament.to_json(), {s: m.title for s, m in models.items()})
            self.store.save_cached(model)
            self._set_state(models, tournament, self.store.revision())
            progress(1.0, "published")
            return sid

    def rebuild(self, progress: Progress = no_progress) -> int:
        """Replay the submissions in time order, each dueling the top models of its
        day; run only the duels that are missing. Returns how many opponents were dueled."""
        with self._lock, self.store.lock():
            self.refresh()
            order = sorted(self.models.values(), key=lambda m: (m.submitted, m.submission_id))
            ids = [m.submission_id for m in order]
            tournament = self.tournament.copy()
            results = {sid: m.results for sid, m in self.models.items()}
            submitted = self.submitted
            dueled = 0
            for k in range(1, len(ids)):
                progress(k / len(ids), f"duels of {ids[k]}")
                earlier = ids[:k]
                table = ranking.scores_table(tournament.subset(earlier), self.benchmark)
                opponents = ranking.top_ids(table, submitted[earlier])
                dueled += play(self.benchmark, tournament, ids[k], results, opponents)
            self.store.write_tournament(tournament.to_json(), self.titles())
            self._set_state(self.models, tournament, self.store.revision())
            return dueled


DEMO_STORE = Path(__file__).resolve().parent.parent / "demo_store"
DEMO_MODELS = 40


def open_configured_board(progress: Progress = no_progress) -> Leaderboard:
    """The store named by LEADERBOARD_STORE, or the local demo store (built on first use)."""
    configured = os.environ.get("LEADERBOARD_STORE")
    store = LocalStore(configured or DEMO_STORE)
    if not configured and not store.submission_ids():
        from leaderboard.demo import build_demo_store
        return build_demo_store(store.root, DEMO_MODELS, progress=progress)
    return Leaderboard(store, progress=progress)
