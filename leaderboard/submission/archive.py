"""Safe extraction of an uploaded .zip of harness output.

Every entry is checked before anything is written: the archive's size, the number of
entries, each entry's declared size and their total, and each entry's name (no absolute
path, no `..`, no drive letter, no name that the file system cannot hold, no path twice,
no path both a file and a folder) and type (files and folders only: no symlinks, devices
or encrypted entries). Sizes are counted again while unpacking, so a header that
under-declares cannot write more than the limit. The folder is always removed afterwards.
"""
from __future__ import annotations

import contextlib
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from leaderboard.temp_disk import TempDiskBudget
from leaderboard.errors import BadInput

MAX_ARCHIVE_BYTES = 256 * 2**20
MAX_UNPACKED_BYTES = 2 * 2**30
MAX_MEMBERS = 10_000
MAX_NAME_PART_BYTES = 255  # a file name on Linux file systems
MAX_NAME_BYTES = 1024  # a whole path, well within PATH_MAX with the unpacking folder in front
CHUNK = 2**20


def shown_name(name: str, keep: int = 80) -> str:
    """An entry's name for a message: quoted, and shortened when very long."""
    return repr(name) if len(name) <= keep else repr(name[:keep]) + f"... ({len(name):,} characters)"


def _parts(info: zipfile.ZipInfo) -> tuple[str, ...]:
    """The entry's path inside the archive as its parts (`a//b`, `a/./b` and `a/b` alike)."""
    return PurePosixPath(info.filename.replace("\\", "/")).parts


def _entry_problem(info: zipfile.ZipInfo, max_member: int) -> str | None:
    name = info.filename.replace("\\", "/")
    parts = _parts(info)
    if name.startswith("/") or (parts and len(parts[0]) == 2 and parts[0][1] == ":"):
        return "is an absolute path"
    if ".." in parts:
        return "points outside the archive's folder (..)"
    if len(name.encode()) > MAX_NAME_BYTES:
        return f"has a name longer than {MAX_NAME_BYTES:,} bytes"
    if any(len(part.encode()) > MAX_NAME_PART_BYTES for part in parts):
        return f"has a name part longer than {MAX_NAME_PART_BYTES} bytes"
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return "is a symbolic link"
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "is not a regular file or folder"
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.file_size > max_member:
        return f"unpacks to {info.file_size / 2**20:.0f} MB, more than the limit of {max_member / 2**20:.0f} MB"
    return None


def _clashes(entries: list[zipfile.ZipInfo]) -> list[str]:
    """Entries that would unpack onto one another: one path twice, or a path that is a file
    in one entry and a folder (of another entry, or a folder entry) elsewhere."""
    problems, files, folders = [], {}, {}
    for info in entries:
        parts = _parts(info)
        if not info.is_dir():
            if parts in files:
                problems.append(f"the archive's entry {shown_name(info.filename)} is in the archive twice")
            files.setdefault(parts, info.filename)
        for k in range(1, len(parts) + info.is_dir()):
            folders.setdefault(parts[:k], info.filename)
    for parts, name in files.items():
        if parts in folders:
            problems.append(f"the archive's entry {shown_name('/'.join(parts))} is both a file and a folder "
                            f"({shown_name(folders[parts])})")
    return problems


def _check(archive: zipfile.ZipFile, max_members: int, max_unpacked: int) -> list[zipfile.ZipInfo]:
    entries = archive.infolist()
    if len(entries) > max_members:
        raise BadInput(f"the archive has {len(entries):,} entries, more than the limit of {max_members:,}")
    problems = [f"the archive's entry {shown_name(info.filename)} {problem}" for info in entries
                if (problem := _entry_problem(info, max_unpacked))]
    problems += _clashes(entries)
    total = sum(info.file_size for info in entries)
    if total > max_unpacked:
        problems.append(f"the archive unpacks to {total / 2**20:.0f} MB, more than the limit of "
                        f"{max_unpacked / 2**20:.0f} MB")
    if problems:
        raise BadInput(problems)
    return entries


def _unpack(archive: zipfile.ZipFile, entries: list[zipfile.ZipInfo], root: Path) -> None:
    """Writes at most the sizes the entries declare (the space reserved for them): an entry
    that inflates to more is refused."""
    for info in entries:
        target = root / PurePosixPath(info.filename.replace("\\", "/"))
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with archive.open(info) as source, open(target, "xb") as out:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > info.file_size:
                    raise BadInput(f"the archive's entry {shown_name(info.filename)} unpacks to more than "
                                          f"the {info.file_size:,} bytes its header declares")
                out.write(chunk)


@contextlib.contextmanager
def extracted(path: str | Path, parent: str | Path | None = None, max_archive: int = MAX_ARCHIVE_BYTES,
              max_unpacked: int = MAX_UNPACKED_BYTES, max_members: int = MAX_MEMBERS,
              budget: TempDiskBudget | None = None):
    """The archive unpacked into a new folder under `parent` (default: the system's
    temporary folder), removed when the block ends, whatever happens. Raises
    BadInput, before writing anything, for an archive that breaks a rule, or
    LimitReached when `budget` (the process's temporary disk) cannot hold the sizes its
    entries declare."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_archive:
        raise BadInput(f"the archive is {size / 2**20:.0f} MB, more than the limit of "
                              f"{max_archive / 2**20:.0f} MB")
    with contextlib.ExitStack() as held:  # left in reverse: the folder removed, then its space released
        try:
            with zipfile.ZipFile(path) as archive:
                entries = _check(archive, max_members, max_unpacked)
                if budget:
                    held.enter_context(budget.held(sum(info.file_size for info in entries), "Unpacking the archive"))
                root = held.enter_context(_folder(parent))
                try:
                    _unpack(archive, entries, root)
                except OSError as e:  # e.g. a full disk: not the archive's fault, but it cannot be unpacked
                    raise BadInput(f"the archive cannot be unpacked here ({e.strerror})") from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as e:
            raise BadInput(f"{path.name} is not a readable .zip archive ({e})") from None
        yield root


@contextlib.contextmanager
def _folder(parent: str | Path | None):
    root = Path(tempfile.mkdtemp(prefix="harness-", dir=parent))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
