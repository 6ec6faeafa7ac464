"""The store in a Hugging Face dataset repo (same layout and methods as `LocalStore`).

Every read happens at one commit (`revision`), so a reader never mixes two
publications. Every write is one commit made with `parent_commit` = the revision the
caller computed on: the Hub refuses it (HTTP 412) if another replica committed first,
which becomes `StoreConflict`, and the caller refreshes and tries again.

Per-model arrays are read from `arrays/<id>.npz` (committed with each publication) or,
for submissions without one (a copy of the reference dataset), built once from the JSON
and kept in a local cache folder; either way they are checked against the git blob id
of the submission file they came from. The token is given to `huggingface_hub` only; it
is never logged and never part of an error message.
"""
from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
import datetime
import hashlib
import json
import logging
import threading
import time
from pathlib import Path

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError, HTTPError, RepositoryNotFoundError  # HTTPError: the client's transport
from huggingface_hub.hf_api import RepoFile

from leaderboard.config.settings import Settings
from leaderboard.storage.flags import FLAGS_FILE
from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR, day_path
from leaderboard.storage.snapshot import dataset_card
from leaderboard.storage import duel_files
from leaderboard.storage.local import (DUELS_DIR, SNAPSHOT_FILE, TOURNAMENT_FILE, BoardRewrite, Publication,
                                       PublishedModel, stored_titles, titles_files, write_atomically, write_cached,
                                       decode_cached, encode_cached)
from leaderboard.errors import StoreConflict, StoreFailure, StoreNotFound

log = logging.getLogger(__name__)
CARD_FILE = "README.md"
ARRAYS_DIR = "arrays"  # the Hub refuses paths under .cache/, the local folder's name
DOWNLOAD_THREADS = 8
APPEND_ATTEMPTS = 5  # a pre-submission record's commit, retried when another commit came first


def git_blob_id(data: bytes) -> str:
    """The id git (and the Hub) gives a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def default_cache_dir(repo_id: str) -> Path:
    home = Path(Settings.from_environment().hf_home or Path.home() / ".cache" / "huggingface")
    return home / "leaderboard" / repo_id.replace("/", "__")


class HubStore:
    recovered: tuple[str, ...] = ()  # nothing to recover: a commit lands whole or not at all (LocalStore.recovered)

    def __init__(self, repo_id: str, benchmark_name: str, token: str | None = None, endpoint: str | None = None,
                 cache_dir: str | Path | None = None):
        self.repo_id, self.benchmark_name = repo_id, benchmark_name
        self.api = HfApi(endpoint=endpoint, token=token)
        self.cache_dir = Path(cache_dir or default_cache_dir(repo_id))
        self._write_lock = threading.Lock()
        self._sha: str | None = None
        self._files: dict[str, str] = {}  # path -> git blob id at self._sha
        self._updated_at = 0.0  # the commit's time at self._sha

    def __repr__(self) -> str:  # no token here: reprs end up in logs
        return f"HubStore({self.repo_id!r} at {self.api.endpoint})"

    # --- reading, all at self._sha -------------------------------------------------------

    @contextlib.contextmanager
    def _hub_errors(self, doing: str):
        try:
            yield
        except RepositoryNotFoundError:
            raise StoreNotFound(f"{doing}: dataset repo {self.repo_id} not found at {self.api.endpoint} "
                             f"(create it on the Hub first, or check LEADERBOARD_REPO and HF_TOKEN)") from None
        except HfHubHTTPError as e:
            status = e.response.status_code if e.response is not None else "?"
            if status in (409, 412):
                raise StoreConflict(f"{doing}: {self.repo_id} has a newer commit than {self._sha}") from None
            hint = " (HF_TOKEN must be a token with write access)" if status in (401, 403) else ""
            raise StoreFailure(f"{doing}: the Hub answered HTTP {status}{hint}") from None
        except (OSError, HTTPError) as e:  # the network: refused, timed out, reset
            raise StoreFailure(f"{doing}: cannot reach {self.api.endpoint} ({type(e).__name__})") from None

    def _sync(self, sha: str | None = None) -> None:
        with self._hub_errors("reading the leaderboard repo"):
            if sha is None:
                info = self.api.repo_info(self.repo_id, repo_type="dataset")
                sha, changed = info.sha, info.last_modified
            else:  # our own commit, just made
                changed = datetime.datetime.now(datetime.timezone.utc)
            if sha != self._sha:
                tree = self.api.list_repo_tree(self.repo_id, repo_type="dataset", revision=sha, recursive=True)
                self._files = {e.path: e.blob_id for e in tree if isinstance(e, RepoFile)}
                self._sha = sha
                self._updated_at = changed.timestamp() if changed else time.time()

    def exists(self) -> bool:
        """False when the repo does not exist; an unreachable Hub raises StoreFailure."""
        try:
            self._sync()
        except StoreNotFound:
            return False
        return True

    def revision(self, fresh: bool = False) -> str:
        """The commit every read refers to; fresh=True asks the Hub for the newest one."""
        if fresh or self._sha is None:
            self._sync()
        return self._sha

    def updated_at(self) -> float:
        """When the commit every read refers to was made (epoch seconds)."""
        self.revision()
        return self._updated_at

    def _read(self, path: str) -> bytes:
        self.revision()
        with self._hub_errors(f"downloading {path}"):
            local = hf_hub_download(self.repo_id, path, repo_type="dataset", revision=self._sha,
                                    endpoint=self.api.endpoint, token=self.api.token)
        return Path(local).read_bytes()

    def submission_ids(self) -> list[str]:
        self.revision()
        return sorted(p[len("data/"):-len(".json")] for p in self._files
                      if p.startswith("data/") and p.endswith(".json") and p.count("/") == 1)

    def read_document(self, submission_id: str) -> bytes:
        return self._read(f"data/{submission_id}.json")

    def read_tournament(self) -> dict:
        self.revision()
        return json.loads(self._read(TOURNAMENT_FILE)) if TOURNAMENT_FILE in self._files else {}

    def read_flags(self) -> bytes | None:
        self.revision()
        return self._read(FLAGS_FILE) if FLAGS_FILE in self._files else None

    def read_titles(self) -> dict:
        """{submission_id: title} as stored (`stored_titles`)."""
        self.revision()
        return stored_titles(lambda path: self._read(path) if path in self._files else None)

    def read_snapshot(self) -> bytes | None:
        """None: a commit made by hand may change a submission file without the snapshot,
        which a repo's files do not show without reading them (the board is loaded)."""
        return None

    def duel_file_ids(self) -> list[str]:
        self.revision()
        return sorted(p[len(DUELS_DIR) + 1:-len(".parquet")] for p in self._files
                      if p.startswith(f"{DUELS_DIR}/") and p.endswith(".parquet") and p.count("/") == 1)

    def read_duel_tables(self) -> tuple[list, list[str]]:
        """Every duel file as a pyarrow table (downloaded in parallel; the Hub client's
        cache keeps them for the next start), and a problem line per unreadable file."""
        def read(sid):
            try:
                return duel_files.read_table(self._read(f"{DUELS_DIR}/{sid}.parquet")), None
            except ValueError as e:
                return None, f"{DUELS_DIR}/{sid}.parquet is skipped: {e}"
        with ThreadPoolExecutor(DOWNLOAD_THREADS) as pool:
            results = list(pool.map(read, self.duel_file_ids()))
        return [t for t, _ in results if t is not None], [p for _, p in results if p is not None]

    def presubmission_days(self) -> dict[str, str]:
        """The days with recorded pre-submissions, each with its file's blob id."""
        self.revision()
        return {p[len(PRESUBMISSIONS_DIR) + 1:-len(".jsonl")]: blob for p, blob in self._files.items()
                if p.startswith(f"{PRESUBMISSIONS_DIR}/") and p.endswith(".jsonl") and p.count("/") == 1}

    def read_presubmissions(self, day: str) -> bytes:
        return self._read(day_path(day))

    # --- the per-model cache ---------------------------------------------------------------

    def load_cached(self, submission_id: str) -> PublishedModel | None:
        stamp = self._files.get(f"data/{submission_id}.json")
        local = self.cache_dir / f"{submission_id}.npz"
        model = decode_cached(local, submission_id, lambda stored: stored == stamp) if local.exists() else None
        if model is None and f"{ARRAYS_DIR}/{submission_id}.npz" in self._files:
            data = self._read(f"{ARRAYS_DIR}/{submission_id}.npz")
            write_atomically(local, lambda f: f.write(data))
            model = decode_cached(local, submission_id, lambda stored: stored == stamp)
        return model

    def save_cached(self, model: PublishedModel, stamp: str | None = None) -> None:
        """Keep the arrays locally (publications also commit them to the repo)."""
        stamp = stamp or self._files[f"data/{model.submission_id}.json"]
        write_cached(self.cache_dir / f"{model.submission_id}.npz", model, stamp)

    # --- writing: one commit each, on top of `parent` ----------------------------------------

    @contextlib.contextmanager
    def lock(self, shared: bool = False):
        """Writers within this process; between replicas `parent_commit` keeps writes
        consistent. Readers need no lock: every read is at one commit."""
        if shared:
            yield
            return
        with self._write_lock:
            yield

    def _commit(self, operations: list, message: str, parent: str | None) -> str:
        self.revision()
        if CARD_FILE not in self._files:
            operations.append(CommitOperationAdd(CARD_FILE, dataset_card(self.benchmark_name)))
        with self._hub_errors("committing to the leaderboard repo"):
            info = self.api.create_commit(self.repo_id, operations, commit_message=message, repo_type="dataset",
                                          parent_commit=parent or self._sha)
        self._sync(info.oid)
        return info.oid

    def publish(self, publication: Publication, parent: str | None = None) -> str:
        sid = publication.submission_id
        document = publication.document_bytes()
        stamp = git_blob_id(document)
        cached = encode_cached(publication.model, stamp)
        operations = [CommitOperationAdd(f"data/{sid}.json", document),
                      CommitOperationAdd(f"{ARRAYS_DIR}/{sid}.npz", cached),
                      CommitOperationAdd(f"{DUELS_DIR}/{sid}.parquet", publication.duels)]
        operations += [CommitOperationAdd(path, data) for path, data in titles_files(publication.titles, [sid]).items()]
        if publication.snapshot is not None:
            operations.append(CommitOperationAdd(SNAPSHOT_FILE, publication.snapshot))
        operations += [CommitOperationAdd(f"{DUELS_DIR}/{owner}.parquet", data)
                       for owner, data in publication.rewritten_duels.items()]
        revision = self._commit(operations, f"Publish {publication.model.title} ({sid})", parent)
        try:
            self.save_cached(publication.model, stamp)
        except OSError as e:  # the commit holds the arrays: a later start reads them from there
            log.warning("publishing %s: keeping its arrays in %s failed (%s)", sid, self.cache_dir, e)
        return revision

    def write_snapshot(self, snapshot: bytes, parent: str) -> str:
        return self._commit([CommitOperationAdd(SNAPSHOT_FILE, snapshot)], "Ranking intervals", parent)

    def append_presubmission(self, day: str, line: bytes) -> tuple[str, str]:
        """Append a record to the day's file in one commit on top of the newest revision
        (another replica's record committed first: read the file again and retry).
        Returns (the revision it was made on, the new one)."""
        path = day_path(day)
        with self._write_lock:
            for _ in range(APPEND_ATTEMPTS):
                parent = self.revision(fresh=True)
                data = (self._read(path) if path in self._files else b"") + line
                try:
                    return parent, self._commit([CommitOperationAdd(path, data)], "Record a pre-submission", parent)
                except StoreConflict:
                    continue
        raise StoreFailure(f"recording the pre-submission: {self.repo_id} changed {APPEND_ATTEMPTS} times meanwhile")

    def rewrite(self, change: BoardRewrite, parent: str | None = None) -> str:
        self.revision()
        writes, deletes = change.files(ARRAYS_DIR)
        operations = [CommitOperationAdd(path, data) for path, data in writes.items()]
        operations += [CommitOperationDelete(path) for path in deletes if path in self._files]
        return self._commit(operations, change.message, parent)
