"""Where published results live, in the reference dataset's layout (plus two extras):

    data/<submission_id>.json            the full submission + "submission_metadata"
    duels/<submission_id>.parquet        the duels that model's publication added (duel_files.py)
    titles/<xx>.json                     {submission_id: "team/model"} of the ids whose sha256 begins
                                         with the two hex digits xx (`titles_files`): a publication
                                         rewrites one such part, not a file of every model
    submission_id_to_model_title.json    the reference layout's titles, every model's in one file:
                                         read under the parts (`stored_titles`), deleted by the next
                                         rewrite, written by `export`
    .cache/<submission_id>.npz           per-model arrays for the duel engine; rebuildable from data/
                                         (in a Hub repo: arrays/<submission_id>.npz)
    .cache/index/<seq>-<entries>.zip     the duel files' rows in a few files, kept by readers
                                         (store_index.py; a Hub repo's: index/ at its root)
    leaderboard.parquet (+ README.md)    the public ranking snapshot, for `datasets.load_dataset`: written
                                         after a publication's commit, once its intervals are computed
    flags.json                           flagged models: reason, link, when (flags.py)
    presubmissions/<YYYY-MM-DD>.jsonl    the day's disclosed pre-submissions (presubmissions.py)
    uploads/<YYYY-MM-DD>.jsonl           the day's uploads, for the upload quota (upload_records.py)
    tournament.json                      the reference layout's duels, {A_id: {B_id: {task: {...}}}}:
                                         read as is when present; `migrate` converts it to duels/

`LocalStore` keeps it in a folder, `HubStore` (hub_store.py) in a Hugging Face dataset
repo; both have the same methods. A copy of the real dataset opens unchanged, and a
publication into it writes only its own files (it never rewrites tournament.json).
Publication is all-or-nothing and checked against the revision the duels were computed
on (`parent`): if the store moved since, `StoreConflict` is raised and nothing is written.
Locally every write goes through a journal (`LocalStore._commit`): files are staged,
then one rename of the journal commits them all, so a process killed at any moment
leaves the store without the change or, once the journal is replayed, with all of it.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar


from leaderboard.errors import StoreConflict, StoreFailure, UnfinishedWrite
from leaderboard.strict_json import dump_json
from leaderboard.storage import duel_files, model_index
from leaderboard.storage.model_arrays import decode_cached, encoded_with_info
from leaderboard.storage.dataset_card import CARD_FILE, card_update
from leaderboard.storage.flags import FLAGS_FILE
from leaderboard.storage.day_files import day_path
from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR
from leaderboard.storage.store import (DUELS_DIR, INDEX_DIR, SNAPSHOT_FILE, TITLES_DIR, TOURNAMENT_FILE, BoardRewrite,
                                       Publication, PublishedModel, publication_files, stored_titles)
from leaderboard.storage.upload_records import UPLOADS_DIR

log = logging.getLogger(__name__)
T = TypeVar("T")

CACHE_DIR = ".cache"  # per-model arrays, rebuildable from data/
JOURNAL_FILE = ".journal.json"
READ_THREADS = 4  # duel files read at once
INDEX_LOCK = ".lock"  # in the index's folder: held by the reader adding to it
INDEX_MIN_FILES = 16  # duel files a load reads on their own (~2 ms each) before it indexes them

_UMASK = os.umask(0)
os.umask(_UMASK)


def _stage(path: Path, write) -> Path:
    """Write a durable temporary file beside `path` (named `.<name>.<random>.tmp`) and
    return its path. `write` takes the open binary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def write_atomically(path: Path, write) -> None:
    """Write to a temporary file beside `path` and rename it over `path`: readers see
    the old file or the new one, never a part. `write` takes the open binary file."""
    tmp = _stage(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# What to do about a write the file system refused, by its errno.
REMEDIES = {errno.ENOSPC: "the disk is full: free space on it, then try again",
            errno.EDQUOT: "the disk quota is used up: free space, then try again",
            errno.EROFS: "the store's folder is on a read-only file system: make it writable, or name a writable "
                         "copy of the store (--store, LEADERBOARD_STORE)",
            errno.EACCES: "this user may not write there: give it write permission, or run as the store's owner",
            errno.EPERM: "this user may not write there: give it write permission, or run as the store's owner"}


@contextlib.contextmanager
def refused_writes(root: Path, committed: bool = False):
    """An OSError of a write to the store at `root` as a StoreFailure that says what failed,
    what to do and that nothing was written, or (`committed`: after the commit point) an
    UnfinishedWrite that says who finishes it."""
    try:
        yield
    except OSError as e:
        # the path within the store only: the message reaches the web page's visitors
        where = Path(e.filename).relative_to(root) if e.filename and Path(e.filename).is_relative_to(root) else None
        cause = (f"writing the store{f' ({where})' if where else ''} failed: {e.strerror or e}; "
                 f"{REMEDIES.get(e.errno, 'fix that, then try again')}")
        if committed:
            raise UnfinishedWrite(f"{cause}; the change is committed, and the next command or app start that "
                                  f"opens the store finishes it: do not make it again") from None
        raise StoreFailure(f"{cause}; nothing was written") from None


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_cached(path: Path, model: PublishedModel, stamp) -> None:
    """Write the model's `encoded_with_info` file and index it: no load needs to open it."""
    info, data = encoded_with_info(model, stamp)
    write_atomically(path, lambda f: f.write(data))
    model_index.remember_info(path, model_index.file_stat(path), info)


class LocalStore:
    def __init__(self, root: str | Path, benchmark_name: str | None = None):
        """`benchmark_name`: the dataset card's title (dataset_card.py), as a HubStore's."""
        # Absolute from the start: staged files are named by absolute paths (mkstemp), and
        # the journal records them relative to the root.
        self.root = Path(root).resolve()
        self.benchmark_name = benchmark_name
        self.data_dir = self.root / "data"
        self.cache_dir = self.root / CACHE_DIR
        self._held = threading.local()  # this thread's lock on the store, if any
        self.recovered: list[str] = []  # what recovery found of interrupted writes, and did with it

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r})"

    def exists(self) -> bool:
        return self.data_dir.is_dir()

    # --- reading -----------------------------------------------------------------------

    def submission_ids(self) -> list[str]:
        return list(self._scanned("submission_ids", self._scan_submission_ids))

    def _scan_submission_ids(self) -> list[str]:
        if not self.data_dir.is_dir():
            return []
        with os.scandir(self.data_dir) as entries:  # not Path.glob: a Path per file was 0.2 s at 10,000 models
            return sorted(e.name.removesuffix(".json") for e in entries
                          if e.name.endswith(".json") and not e.name.startswith("."))

    def _scanned(self, what: str, scan: Callable[[], T]) -> T:
        """`scan()`, made once while this thread holds the shared lock, when no writer
        changes the store's files: a load asks for the submission ids (its revision, its
        models) and the duel files' versions (`duels_version`, `read_duel_tables`) twice
        (the duel files' scan: 0.05 s of CPU at 10,000 files). Callers must not change it."""
        if getattr(self._held, "mode", None) != "shared":
            return scan()
        scans = self._held.scans
        if what not in scans:
            scans[what] = scan()
        return scans[what]

    def read_document(self, submission_id: str) -> bytes:
        return (self.data_dir / f"{submission_id}.json").read_bytes()

    def read_tournament(self) -> dict:
        """The reference layout's duels (tournament.json), {} when there is none."""
        path = self.root / TOURNAMENT_FILE
        return json.loads(path.read_bytes()) if path.exists() else {}

    def duel_file_ids(self) -> list[str]:
        folder = self.root / DUELS_DIR
        return sorted(p.stem for p in folder.glob("*.parquet") if not p.name.startswith(".")) if folder.is_dir() else []

    def read_duel_tables(self) -> tuple[list, list[str]]:
        """Every duel file's rows as pyarrow tables, and a problem line per unreadable file.

        The rows come from the index in the cache folder (`.cache/index/<seq>-<entries>.zip`,
        the segments of `store_index`, rows as Arrow IPC: read without decoding), whose entries
        are used only while their file has the version (size, time, inode) they were made
        from, and from the files it lacks, read on their own and then, once they are at least
        INDEX_MIN_FILES, added to it: like the model index, it is kept by readers, so a store
        written before it, or copied, is read file by file once. Call under
        lock(shared=True): no writer changes a file meanwhile."""
        from leaderboard.storage import store_index
        versions = self._duel_file_versions()
        segments, broken = [], []
        for path in store_index.segment_paths(self._index_files()):
            try:
                segments.append(store_index.read_segment(self.cache_dir / path))
            except OSError:  # merged away by another reader meanwhile: its files are read
                continue
            except ValueError:  # not a segment (written by hand?): its files are read, and it is deleted
                broken.append(path)
        index = store_index.current(segments, versions)
        del segments

        def read(sid: str):
            try:
                return sid, duel_files.read_table(self.root / store_index.duel_path(sid))
            except ValueError as e:
                return sid, f"{DUELS_DIR}/{sid}.parquet is skipped: {e}"
        owners = sorted(path[len(DUELS_DIR) + 1:-len(".parquet")] for path in versions)
        unindexed = [sid for sid in owners if sid not in index.duel_files]
        with ThreadPoolExecutor(READ_THREADS) as pool:  # Parquet decoding releases the GIL
            results = list(pool.map(read, unindexed))
        tables = {sid: r for sid, r in results if not isinstance(r, str)}
        if len(tables) >= INDEX_MIN_FILES:
            self._add_to_index({sid: versions[store_index.duel_path(sid)] for sid in tables}, tables, versions, broken)
        return store_index.duel_tables(index) + list(tables.values()), [r for _, r in results if isinstance(r, str)]

    def _duel_file_versions(self) -> dict[str, str]:
        """Each duel file's path with its version, "<size>-<mtime_ns>-<inode>": a file is
        replaced by renaming a new one over it, which changes all three."""
        return self._scanned("duel_file_versions", self._scan_duel_file_versions)

    def _scan_duel_file_versions(self) -> dict[str, str]:
        folder = self.root / DUELS_DIR
        if not folder.is_dir():
            return {}
        versions = {}
        for entry in os.scandir(folder):
            if entry.name.endswith(".parquet") and not entry.name.startswith("."):
                st = entry.stat()
                versions[f"{DUELS_DIR}/{entry.name}"] = f"{st.st_size}-{st.st_mtime_ns}-{st.st_ino}"
        return versions

    def duels_version(self) -> str:
        """The store's folder with each duel file's version (`_duel_file_versions`) and
        tournament.json's size, time and inode (or none)."""
        try:
            st = (self.root / TOURNAMENT_FILE).stat()
            legacy: list[int] | None = [st.st_size, st.st_mtime_ns, st.st_ino]
        except FileNotFoundError:
            legacy = None
        described = [str(self.root), sorted(self._duel_file_versions().items()), legacy]
        return hashlib.sha256(json.dumps(described, ensure_ascii=False).encode()).hexdigest()

    def _index_files(self) -> list[str]:
        """The files of the cache folder's index, as paths relative to the cache folder."""
        folder = self.cache_dir / INDEX_DIR
        return [f"{INDEX_DIR}/{name}" for name in os.listdir(folder)] if folder.is_dir() else []

    def _add_to_index(self, versions_read: dict[str, str], tables: dict, versions: dict, broken: list[str]) -> None:
        """Add the duel files read on their own (owner -> version read, owner -> table) to
        the index, merged as `store_index.merged_segment` says, and delete the `broken`
        segments; skipped while another reader is at it, and when the store cannot be
        written (only speed is lost)."""
        from leaderboard.storage import store_index
        folder = self.cache_dir / INDEX_DIR
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / INDEX_LOCK, "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return
                for path in broken:
                    (self.cache_dir / path).unlink(missing_ok=True)
                written = store_index.Segment(duel_files=versions_read,
                                            tables=[store_index.owned_rows(sid, t) for sid, t in tables.items()])
                merged = store_index.merged_segment(store_index.segment_paths(self._index_files()), written, versions,
                                                  lambda path: self.cache_dir / path)
                if merged is None:
                    return
                path, segment, replaced = merged
                write_atomically(self.cache_dir / path,
                                 lambda f: store_index.write_segment(segment, f, store_index.ROWS_ARROW))
                for old in replaced:
                    (self.cache_dir / old).unlink(missing_ok=True)
        except (OSError, ValueError) as e:
            log.warning("the duel files' index in %s was not updated: %s", self.cache_dir, e)

    def read_flags(self) -> bytes | None:
        """flags.json, None when there is none."""
        path = self.root / FLAGS_FILE
        return path.read_bytes() if path.exists() else None

    def read_snapshot(self) -> bytes | None:
        """leaderboard.parquet, None when there is none or a submission, duel or flags file
        is newer than it: changed since (by hand, or by an older version). Every write of the
        board stages the snapshot last in its commit, and a rename keeps a file's time."""
        try:
            written = (self.root / SNAPSHOT_FILE).stat().st_mtime_ns
            files = [*os.scandir(self.data_dir), *os.scandir(self.root / DUELS_DIR)]
            flags = self.root / FLAGS_FILE
            newest = max([f.stat().st_mtime_ns for f in files] + ([flags.stat().st_mtime_ns] if flags.exists() else []),
                         default=0)
            if newest > written:
                return None
            return (self.root / SNAPSHOT_FILE).read_bytes()
        except OSError:
            return None

    def read_snapshot_file(self) -> bytes | None:
        path = self.root / SNAPSHOT_FILE
        return path.read_bytes() if path.exists() else None

    def record_days(self, folder: str) -> dict[str, tuple[int, int]]:
        """The days with records in `folder` (day_files.py), each with its file's version (size, time)."""
        if not (self.root / folder).is_dir():
            return {}
        return {e.name.removesuffix(".jsonl"): (e.stat().st_size, e.stat().st_mtime_ns)
                for e in os.scandir(self.root / folder) if e.name.endswith(".jsonl") and not e.name.startswith(".")}

    def read_records(self, folder: str, day: str) -> bytes:
        return (self.root / day_path(folder, day)).read_bytes()

    def read_titles(self) -> dict:
        """{submission_id: title} as stored (`stored_titles`)."""
        return stored_titles(lambda path: (self.root / path).read_bytes() if (self.root / path).exists() else None)

    def _changed_paths(self) -> list[Path]:
        return [self.root / TOURNAMENT_FILE, self.root / DUELS_DIR, self.data_dir, self.root / FLAGS_FILE]

    def revision(self, fresh: bool = False) -> str:
        """An opaque string that changes whenever a publication, removal or rebuild lands
        (always read afresh): a hash of the submission ids and of the times of the folders
        whose files change, and of tournament.json."""
        state = (tuple(self.submission_ids()), tuple(p.stat().st_mtime_ns if p.exists() else 0
                                                      for p in self._changed_paths()))
        return hashlib.sha256(repr(state).encode()).hexdigest()

    def updated_at(self) -> float:
        """When the board last changed (epoch seconds)."""
        return max((p.stat().st_mtime for p in self._changed_paths() if p.exists()), default=0.0)

    def _stamp(self, submission_id: str, data: bytes | None = None) -> list:
        """[size, mtime_ns, sha256] of the submission file (its bytes `data`, when the
        caller has them) that a cache entry comes from."""
        path = self.data_dir / f"{submission_id}.json"
        st = path.stat()
        return [st.st_size, st.st_mtime_ns, hashlib.sha256(path.read_bytes() if data is None else data).hexdigest()]

    # --- writing -----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, shared: bool = False):
        """Exclusive across processes (the app and the command line) while writing;
        shared while reading, so a reader never sees half of a write being applied.
        Re-entrant within a thread (a writer reloads under its own exclusive lock)."""
        held = getattr(self._held, "mode", None)
        if held == "exclusive" or (held == "shared" and shared) or (shared and not self.root.is_dir()):
            yield
            return
        if shared and self._needs_recovery():
            with self.lock():  # taking the exclusive lock recovers
                pass
        with self._lock_file(shared) as f:
            if f is not None:
                fcntl.flock(f, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            self._held.mode = "shared" if shared else "exclusive"
            self._held.scans = {}  # see _scanned
            try:
                if not shared:
                    with refused_writes(self.root):
                        self._recover()
                yield
            finally:
                self._held.mode = None
                if f is not None:
                    fcntl.flock(f, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def _lock_file(self, shared: bool):
        """The open lock file. A reader of a folder it cannot write (read-only, another
        user's) opens it for reading (flock needs no more), or, when it has none, reads
        without it: no writer has ever written the store. A writer's failure is a
        StoreFailure (nothing written)."""
        try:
            with refused_writes(self.root):
                self.root.mkdir(parents=True, exist_ok=True)
                f = open(self.root / ".lock", "a")
        except StoreFailure:
            if not shared:
                raise
            if not (self.root / ".lock").exists():
                yield None
                return
            f = open(self.root / ".lock")
        with f:
            yield f

    def _needs_recovery(self) -> bool:
        """Whether a killed write left a journal to replay or temporaries to delete."""
        return (self.root / JOURNAL_FILE).exists() or any(self._leftovers())

    def _leftovers(self):
        for folder in (self.root, self.data_dir, self.cache_dir, self.cache_dir / INDEX_DIR, self.root / DUELS_DIR,
                       self.root / TITLES_DIR, self.root / PRESUBMISSIONS_DIR, self.root / UPLOADS_DIR):
            if folder.is_dir():
                yield from folder.glob(".*.tmp")

    def _recover(self) -> None:
        """Under the exclusive lock: replay a committed journal, then delete temporaries
        (no writer is staging any while we hold the lock)."""
        if (self.root / JOURNAL_FILE).exists():
            self._apply_journal()
            self.recovered.append(f"{JOURNAL_FILE}: a write interrupted after its commit point was finished")
        for leftover in self._leftovers():
            leftover.unlink(missing_ok=True)
            self.recovered.append(f"{leftover.relative_to(self.root)}: a temporary file of an interrupted write "
                                  f"was deleted")

    def _commit(self, writes: dict[str, bytes], deletes: tuple[str, ...] = ()) -> None:
        """Write files (path relative to the root -> bytes) and delete files, all or none,
        whenever the process dies. Each file is staged as a temporary; then the journal
        naming them is renamed into place: the commit point. Applying the journal is
        idempotent, so a write killed after the commit point is finished by `_recover`,
        and one killed before it leaves only temporaries, which `_recover` deletes.
        A write of the snapshot brings the dataset card it needs (`_card`). Call under lock()."""
        staged = {}
        if SNAPSHOT_FILE in writes:
            writes = {**{path: data for path, data in writes.items() if path != SNAPSHOT_FILE}, **self._card(),
                      SNAPSHOT_FILE: writes[SNAPSHOT_FILE]}  # the snapshot still staged last: see read_snapshot
        try:
            with refused_writes(self.root):
                for relative, data in writes.items():
                    staged[relative] = str(_stage(self.root / relative,
                                                  lambda f, d=data: f.write(d)).relative_to(self.root))
                journal = dump_json({"writes": staged, "deletes": list(deletes)})
                write_atomically(self.root / JOURNAL_FILE, lambda f: f.write(journal))
        except BaseException:
            for tmp in staged.values():
                (self.root / tmp).unlink(missing_ok=True)
            raise
        # committed: what fails now is finished by the next process that locks the store
        with refused_writes(self.root, committed=True):
            _fsync_folder(self.root)
            self._apply_journal()

    def _apply_journal(self) -> None:
        journal = json.loads((self.root / JOURNAL_FILE).read_bytes())
        for relative, tmp in journal["writes"].items():
            if (self.root / tmp).exists():
                os.replace(self.root / tmp, self.root / relative)
        for relative in journal["deletes"]:
            (self.root / relative).unlink(missing_ok=True)
        for folder in {(self.root / p).parent for p in [*journal["writes"], *journal["deletes"]]}:
            if folder.is_dir():
                _fsync_folder(folder)
        (self.root / JOURNAL_FILE).unlink()

    def _check_parent(self, parent) -> None:
        if parent is not None and self.revision() != parent:
            raise StoreConflict(f"{self.root} changed since revision {parent}")

    def publish(self, publication: Publication, parent: str | None = None) -> str:
        """The submission file, its duels, titles and snapshot in one commit. Call under
        lock(). Returns the new revision."""
        return self.publish_all([publication], parent)

    def publish_all(self, publications: list[Publication], parent: str | None = None) -> str:
        """Several publications in one commit, in time order (`publication_files`). Call
        under lock(). Returns the new revision."""
        self._check_parent(parent)
        writes = publication_files(publications)
        self._commit(writes)
        for p in publications:
            self.save_cached(p.model, self._stamp(p.submission_id, writes[f"data/{p.submission_id}.json"]))
        return self.revision()

    def rewrite(self, change: "BoardRewrite", parent: str | None = None) -> str:
        """A rebuild, migration, removal or flag change, in one commit. Call under lock().
        Returns the new revision."""
        self._check_parent(parent)
        writes, deletes = change.files(CACHE_DIR)
        self._commit(writes, deletes=tuple(deletes))
        return self.revision()

    def write_snapshot(self, snapshot: bytes, parent: str | None = None) -> str:
        """One file replaced by a rename (after the dataset card it needs, if any): no
        journal needed, and the revision (which follows the submissions, duels and flags) stays."""
        with self.lock(), refused_writes(self.root):
            self._check_parent(parent)
            for path, card in self._card().items():
                write_atomically(self.root / path, lambda f, data=card: f.write(data))
            write_atomically(self.root / SNAPSHOT_FILE, lambda f: f.write(snapshot))
        return self.revision()

    def _card(self) -> dict[str, bytes]:
        """{README.md: its bytes} when the folder's card does not yet make `load_dataset` read
        the snapshot (none, or the maintainers' own without the `configs`), else {}."""
        path = self.root / CARD_FILE
        card = card_update(path.read_bytes() if path.exists() else None, self.benchmark_name)
        return {} if card is None else {CARD_FILE: card}

    def append_records(self, folder: str, day: str, lines: bytes, what: str) -> None:
        """Append `lines` to the day's file in `folder`, in one journaled commit (the board's
        files and its revision do not change)."""
        with self.lock(), refused_writes(self.root):
            path = self.root / day_path(folder, day)
            self._commit({day_path(folder, day): (path.read_bytes() if path.exists() else b"") + lines})

    # --- the per-model cache -------------------------------------------------------------

    def load_cached(self, submission_id: str) -> PublishedModel | None:
        """The cached arrays when they came from the current file: by size and time, or,
        when only the time differs (a store copied with `cp -r`), by content; such an
        entry is stamped again, so the file is hashed once, not at every start. Entries
        stamped before content stamps existed ([size, time]) get one on their next hit."""
        # paths as strings: a load asks for every model, and making Paths took 0.3 s at 10,000
        path = os.path.join(self.cache_dir, f"{submission_id}.npz")
        try:
            st = os.stat(os.path.join(self.data_dir, f"{submission_id}.json"))
        except OSError:
            return None
        new_stamp = []  # the file's stamp, computed (hashing the file) only when the entry needs a new one

        def is_current(stamp) -> bool:
            if not isinstance(stamp, list) or len(stamp) < 2 or stamp[0] != st.st_size:
                return False
            if stamp[1] == st.st_mtime_ns and len(stamp) == 3:
                return True
            new_stamp.append(self._stamp(submission_id))
            # same time: an entry from before content stamps; another time: the content decides
            return stamp[1] == st.st_mtime_ns or (len(stamp) == 3 and stamp[2] == new_stamp[0][2])
        model = decode_cached(path, submission_id, is_current)  # None when there is no such file
        if model is not None and new_stamp:
            self.save_cached(model, new_stamp[0])  # hashed once, not at every start
        return model

    def save_cached(self, model: PublishedModel, stamp: list | None = None) -> None:
        """Keep the model's arrays in the cache folder; one that cannot be written (full,
        read-only) costs only speed: the next start parses the submission file again."""
        try:
            write_cached(self.cache_dir / f"{model.submission_id}.npz", model, stamp or self._stamp(model.submission_id))
        except OSError as e:
            log.warning("keeping the arrays of %s in %s failed (%s)", model.submission_id, self.cache_dir, e)
