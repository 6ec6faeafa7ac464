"""The store in a Hugging Face dataset repo (same layout and methods as `LocalStore`).

Every read happens at one commit (`revision`), so a reader never mixes two
publications. Every write is one commit made with `parent_commit` = the revision the
caller computed on: the Hub refuses it (HTTP 412) if another replica committed first,
which becomes `StoreConflict`, and the caller refreshes and tries again.

A replica reads each model's small part (metadata, aggregates, array layout) and the
duel rows from the index (store_index.py: a few consolidated files, each entry checked
against the id of the file it summarizes: `store_index.file_stamp`), and what the index lacks file by file.
Per-model arrays are downloaded from `arrays/<id>.npz` (committed with each publication)
when a duel first needs them, in parallel when several do (`tournament.SummaryRows`),
and kept in a local cache folder; a submission without one (a copy of the reference
dataset) is parsed once and its arrays kept there. Either way they are checked against
the id of the submission file they came from. The token is given to
`huggingface_hub` only; it is never logged and never part of an error message.
"""
from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
import datetime
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
from leaderboard.storage.day_files import day_path
from leaderboard.storage.dataset_card import CARD_FILE, card_update
from leaderboard.storage import duel_files, store_index, model_index
from leaderboard.storage.local import write_atomically, write_cached
from leaderboard.storage.model_arrays import decode_cached, encoded_with_info, model_from_info
from leaderboard.storage.store import (DUELS_DIR, SNAPSHOT_FILE, TOURNAMENT_FILE, BoardRewrite, Publication, PublishedModel,
                                       publication_files, stored_titles)
from leaderboard.errors import StoreConflict, StoreFailure, StoreNotFound

log = logging.getLogger(__name__)
ARRAYS_DIR = "arrays"  # the Hub refuses paths under .cache/, the local folder's name
DOWNLOAD_THREADS = 8
APPEND_ATTEMPTS = 5  # a commit of records (day_files.py), retried when another commit came first


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
        self._files: dict[str, str] = {}  # path -> its content's id at self._sha (an LFS file's: its sha256)
        self._updated_at = 0.0  # the commit's time at self._sha
        self._indexed: tuple[str | None, dict[str, dict]] = (None, {})  # (revision, the index's model infos)
        self._fetched: dict[str, tuple[str, tuple[str, int, int]]] = {}  # id -> (stamp, its arrays file)
        # What was read file by file, for lack of an index entry, until a write indexes it:
        self._unindexed_models: dict[str, dict] = {}  # submission id -> arrays info
        self._unindexed_duels: set[str] = set()  # owners of duel files
        self._card_checked: str | None = None  # the blob id of a README.md found to point at the ranking

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
                self._files = {e.path: e.lfs.sha256 if e.lfs else e.blob_id for e in tree if isinstance(e, RepoFile)}
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
                                    endpoint=self.api.endpoint, token=self.api.token, cache_dir=self.cache_dir / "hub")
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

    def read_snapshot_file(self) -> bytes | None:
        self.revision()
        return self._read(SNAPSHOT_FILE) if SNAPSHOT_FILE in self._files else None

    def duel_file_ids(self) -> list[str]:
        self.revision()
        return sorted(p[len(DUELS_DIR) + 1:-len(".parquet")] for p in self._files
                      if p.startswith(f"{DUELS_DIR}/") and p.endswith(".parquet") and p.count("/") == 1)

    def read_duel_tables(self) -> tuple[list, list[str]]:
        """The duel rows as pyarrow tables: the index's, and each duel file it lacks
        (downloaded in parallel; the Hub client's cache keeps them for the next start),
        and a problem line per unreadable file."""
        index = self._current_index(with_rows=True)

        def read(sid):
            try:
                return duel_files.read_table(self._read(f"{DUELS_DIR}/{sid}.parquet")), None
            except ValueError as e:
                return None, f"{DUELS_DIR}/{sid}.parquet is skipped: {e}"
        unindexed = [sid for sid in self.duel_file_ids() if sid not in index.duel_files]
        self._unindexed_duels.update(unindexed)
        with ThreadPoolExecutor(DOWNLOAD_THREADS) as pool:
            results = list(pool.map(read, unindexed))
        return (store_index.duel_tables(index) + [t for t, _ in results if t is not None],
                [p for _, p in results if p is not None])

    def duels_version(self) -> None:
        return None  # a replica's counts are not kept: it counts them once per start

    def _current_index(self, with_rows: bool) -> store_index.Segment:
        """The index's entries that describe the files at self._sha (store_index.current);
        its segments downloaded in parallel. `with_rows` False: without the duel rows."""
        self.revision()
        files = self._files

        def read(path):
            try:
                return store_index.read_segment(self._read(path), with_rows)
            except ValueError as e:
                log.warning("%s is skipped: %s", path, e)
                return None
        with ThreadPoolExecutor(DOWNLOAD_THREADS) as pool:
            segments = list(pool.map(read, store_index.segment_paths(files)))
        return store_index.current([s for s in segments if s is not None], files)

    def _indexed_models(self) -> dict[str, dict]:
        """The index's current model infos (submission id -> info), read once per revision."""
        sha = self.revision()
        if self._indexed[0] != sha:
            self._indexed = (sha, self._current_index(with_rows=False).models)
        return self._indexed[1]

    def record_days(self, folder: str) -> dict[str, str]:
        """The days with records in `folder` (day_files.py), each with its file's blob id."""
        self.revision()
        return {p[len(folder) + 1:-len(".jsonl")]: blob for p, blob in self._files.items()
                if p.startswith(f"{folder}/") and p.endswith(".jsonl") and p.count("/") == 1}

    def read_records(self, folder: str, day: str) -> bytes:
        return self._read(day_path(folder, day))

    # --- the per-model cache ---------------------------------------------------------------

    def load_cached(self, submission_id: str) -> PublishedModel | None:
        """The model from its local arrays file, else from the index (its arrays
        downloaded when first used), else from its downloaded arrays file; None when the
        repo has no arrays of its current submission file. A model whose arrays the repo
        holds but the index lacks goes into the index with the next write."""
        stamp = self._files.get(f"data/{submission_id}.json")
        local = self.cache_dir / f"{submission_id}.npz"
        model = decode_cached(local, submission_id, lambda stored: store_index.stamp_matches(stamp, stored)) if local.exists() else None
        if f"{ARRAYS_DIR}/{submission_id}.npz" not in self._files:
            return model
        indexed = self._indexed_models().get(submission_id)
        if model is None and indexed is not None:
            return model_from_info(submission_id, indexed, lambda: self._arrays_file(submission_id, stamp))
        if model is None:
            self._arrays_file(submission_id, stamp)
            model = decode_cached(local, submission_id, lambda stored: store_index.stamp_matches(stamp, stored))
        info = model_index.cached_info(local, model_index.file_stat(local)) if model and indexed is None else None
        if info is not None:
            self._unindexed_models[submission_id] = info
        return model

    def _arrays_file(self, submission_id: str, stamp: str) -> tuple[str, int, int]:
        """(path, size, mtime_ns) of the model's arrays file stamped `stamp`, downloaded
        into the cache folder unless it is there (once per process and stamp)."""
        fetched = self._fetched.get(submission_id)
        if fetched is None or fetched[0] != stamp:
            local = self.cache_dir / f"{submission_id}.npz"
            if not local.exists() or decode_cached(local, submission_id, lambda stored: store_index.stamp_matches(stamp, stored)) is None:
                data = self._read(f"{ARRAYS_DIR}/{submission_id}.npz")
                write_atomically(local, lambda f: f.write(data))
            fetched = (stamp, (str(local), *model_index.file_stat(local)))
            self._fetched[submission_id] = fetched
        return fetched[1]

    def save_cached(self, model: PublishedModel, stamp: str | None = None) -> None:
        """Keep the arrays locally (publications also commit them to the repo); a cache
        folder that cannot be written costs only speed: they are read from the repo again."""
        stamp = stamp or self._files[f"data/{model.submission_id}.json"]
        try:
            write_cached(self.cache_dir / f"{model.submission_id}.npz", model, stamp)
        except OSError as e:
            log.warning("keeping the arrays of %s in %s failed (%s)", model.submission_id, self.cache_dir, e)

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

    def _commit(self, operations: list, message: str, parent: str | None, models: dict[str, dict] | None = None) -> str:
        """One commit of `operations` with the index's changes (`models`: the infos of the
        models it publishes)."""
        self.revision()
        operations += self._card_operations(operations)
        index_operations = self._index_operations(operations, models or {})
        with self._hub_errors("committing to the leaderboard repo"):
            info = self.api.create_commit(self.repo_id, operations + index_operations, commit_message=message,
                                          repo_type="dataset", parent_commit=parent or self._sha)
        if index_operations:  # what was read file by file is in the index now
            self._unindexed_models, self._unindexed_duels = {}, set()
        self._sync(info.oid)
        return info.oid

    def _card_operations(self, operations: list) -> list:
        """The dataset card's addition or update that a commit of `operations` brings: ours into
        a repo without one; the `configs` that point at the ranking into one the maintainers
        wrote, when the commit writes the ranking (a card is read once per version)."""
        if CARD_FILE not in self._files:
            return [CommitOperationAdd(CARD_FILE, card_update(None, self.benchmark_name))]
        blob = self._files[CARD_FILE]
        writes_snapshot = any(isinstance(op, CommitOperationAdd) and op.path_in_repo == SNAPSHOT_FILE
                              for op in operations)
        if not writes_snapshot or blob == self._card_checked:
            return []
        card = card_update(self._read(CARD_FILE), self.benchmark_name)
        if card is None:
            self._card_checked = blob
        return [] if card is None else [CommitOperationAdd(CARD_FILE, card)]

    def _index_operations(self, operations: list, models: dict[str, dict]) -> list:
        """For a write of the board (`operations` write duel files, or publish `models`):
        the index's segment of what it writes and of what this replica read file by file
        for lack of an index entry, merged as store_index.index_changes says."""
        adds = {op.path_in_repo: op.path_or_fileobj for op in operations if isinstance(op, CommitOperationAdd)}
        if not models and not any(map(store_index.is_duel_path, adds)):
            return []
        unindexed = {path: self._read(path) for path in map(store_index.duel_path, sorted(self._unindexed_duels))
                     if path in self._files and path not in adds}
        written = store_index.written_segment({**unindexed, **adds}, {**self._unindexed_models, **models},
                                            store_index.file_stamp)
        deleted = {op.path_in_repo for op in operations if isinstance(op, CommitOperationDelete)}
        after = {path: blob for path, blob in self._files.items() if path not in deleted}
        after.update({path: store_index.file_stamp(data) for path, data in adds.items()})
        index_adds, index_deletes = store_index.index_changes(store_index.segment_paths(self._files), written, after,
                                                            self._read)
        return ([CommitOperationAdd(path, data) for path, data in index_adds.items()] +
                [CommitOperationDelete(path) for path in index_deletes])

    def publish(self, publication: Publication, parent: str | None = None) -> str:
        return self.publish_all([publication], parent)

    def publish_all(self, publications: list[Publication], parent: str | None = None) -> str:
        """Several publications in one commit, in time order (`publication_files`), with
        each model's arrays; returns the new revision."""
        files = publication_files(publications)
        stamps = {p.submission_id: store_index.file_stamp(files[f"data/{p.submission_id}.json"]) for p in publications}
        infos = {}
        for p in publications:
            infos[p.submission_id], files[f"{ARRAYS_DIR}/{p.submission_id}.npz"] = encoded_with_info(
                p.model, stamps[p.submission_id])
        last = publications[-1]
        message = (f"Publish {last.model.title} ({last.submission_id})" if len(publications) == 1
                   else f"Publish {len(publications)} models")
        revision = self._commit([CommitOperationAdd(path, data) for path, data in files.items()], message, parent,
                                infos)
        for p in publications:
            self.save_cached(p.model, stamps[p.submission_id])
        return revision

    def write_snapshot(self, snapshot: bytes, parent: str | None = None) -> str:
        return self._commit([CommitOperationAdd(SNAPSHOT_FILE, snapshot)], "Ranking intervals", parent)

    def append_records(self, folder: str, day: str, lines: bytes, what: str) -> tuple[str, str]:
        """Append `lines` to the day's file in `folder` in one commit ("Record <what>") on top
        of the newest revision (another replica committed first: read the file again and
        retry). Returns (the revision it was made on, the new one)."""
        path = day_path(folder, day)
        with self._write_lock:
            for _ in range(APPEND_ATTEMPTS):
                parent = self.revision(fresh=True)
                data = (self._read(path) if path in self._files else b"") + lines
                try:
                    return parent, self._commit([CommitOperationAdd(path, data)], f"Record {what}", parent)
                except StoreConflict:
                    continue
        raise StoreFailure(f"recording {what}: {self.repo_id} changed {APPEND_ATTEMPTS} times meanwhile")

    def rewrite(self, change: BoardRewrite, parent: str | None = None) -> str:
        self.revision()
        writes, deletes = change.files(ARRAYS_DIR)
        operations = [CommitOperationAdd(path, data) for path, data in writes.items()]
        operations += [CommitOperationDelete(path) for path in deletes if path in self._files]
        return self._commit(operations, change.message, parent)
