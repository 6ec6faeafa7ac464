"""The write path the publishing and administration roles share: a model's duel file, and
one-commit rewrites of the board's files after which the written state is the board's."""
from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from leaderboard.board.reader import BoardReader, BoardState, titles_of
from leaderboard.engine.replay import duel_file_owners
from leaderboard.engine.tournament import UNRECORDED_RULES, DuelRows, ReferenceDuels, Tournament
from leaderboard.errors import StoreConflict, StoreFailure, UnfinishedWrite
from leaderboard.storage import duel_files
from leaderboard.storage.flags import Flag, flags_json
from leaderboard.storage.store import BoardRewrite, PublishedModel
from leaderboard.storage.snapshot import snapshot_parquet, stale_rows

UNRECORDED_DESCRIPTION = {"version": None, "note": "imported from a reference-layout tournament.json; the rules "
                                                  "that computed these duels were not recorded"}


NOTHING_CHANGED = "writing the store failed, nothing was changed"
NOTHING_PUBLISHED = "publishing failed, nothing was published"


@contextlib.contextmanager
def locked(board: BoardReader, failed: str) -> Iterator[None]:
    """The board's and its store's write locks; a store that cannot be locked for writing
    (a read-only folder) is a StoreFailure starting with `failed` (`NOTHING_CHANGED`, ...)."""
    with board.write_lock, contextlib.ExitStack() as held:
        try:
            held.enter_context(board.store.lock())
        except StoreFailure as e:
            raise StoreFailure(f"{failed}: {e}") from None
        yield


def duel_file(board: BoardReader, tournament: Tournament, rows: DuelRows) -> bytes:
    return duel_files.duel_file(rows, tournament.model_ids, tournament.task_ids,
                                {board.rules: board.rules_description, UNRECORDED_RULES: UNRECORDED_DESCRIPTION})


def owned_duel_files(board: BoardReader, tournament: Tournament, models: Mapping[str, PublishedModel],
                     owners: Iterable[str]) -> dict[str, bytes]:
    """The duel files of `owners` (submission ids), each with every row of `tournament`
    whose later published model it is. Reads each owner's rows without merging the
    tournament's parts (a publication at 10,000 models writes a few files of ~1M rows)."""
    files = {}
    for sid in owners:
        rows = tournament.rows_involving(sid)
        files[sid] = duel_file(board, tournament,
                               rows.take(duel_file_owners(tournament, rows, models) == tournament.index(sid)))
    return files


def write(board: BoardReader, change: BoardRewrite, models: dict[str, PublishedModel], tournament: Tournament, ranked: pd.DataFrame,
          flags: dict[str, Flag] | None, orphan_duels: set[str] | None = None) -> None:
    """Commit `change` on top of the board's loaded revision, then install its result as
    the board's state (`flags` None: the board's; `orphan_duels` as `install` takes it)."""
    try:
        revision = board.store.rewrite(change, parent=board.revision)
    except StoreConflict as e:
        raise StoreFailure(f"{NOTHING_CHANGED} (another write came first), please try again: {e}") from None
    except UnfinishedWrite:  # committed: its message says so, and who finishes it
        raise
    except StoreFailure as e:
        try:
            moved = board.refresh(fresh=True)
        except StoreFailure:
            moved = None
        if moved is False:
            raise StoreFailure(f"{NOTHING_CHANGED}: {e}") from None
        seen = "changed meanwhile" if moved else "could not be read back"
        raise StoreFailure(f"writing the store failed ({e}), but the store {seen}: the change may have landed; "
                           f"look (`table`, `check`) before writing again") from None
    board.install(BoardState(models, tournament, revision, ranked, board.flags if flags is None else flags),
                  orphan_duels)


def rewrite(board: BoardReader, tournament: Tournament, models: dict[str, PublishedModel], message: str,
            deleted: Collection[str] = (), removed: str | None = None, drop_legacy: bool = False,
            legacy: ReferenceDuels | None = None,
            only: set[str] | None = None, flags: dict[str, Flag] | None = None) -> int:
    """Write the duel files of `tournament` (grouped by owner; all, or those of the
    owners in `only`), delete the files in `deleted` that are not written, and write
    the board files (and `flags`, when given), in one commit; then make it the state.
    Returns the files written."""
    rows = tournament.rows()
    owners = duel_file_owners(tournament, rows, board.models)
    order = np.argsort(owners, kind="stable")
    bounds = np.flatnonzero(np.diff(owners[order])) + 1
    files = {tournament.model_ids[owners[chunk[0]]]: duel_file(board, tournament, rows.take(chunk))
             for chunk in np.split(order, bounds)
             if len(chunk) and (only is None or tournament.model_ids[owners[chunk[0]]] in only)}
    ranked = board.rank(models, tournament, flags)
    change = BoardRewrite(titles_of(models), snapshot_parquet(models, ranked, board.benchmark,
                                                              board.flags if flags is None else flags),
                          message, files, tuple(sid for sid in deleted if sid not in files), legacy, drop_legacy,
                          removed, None if flags is None else flags_json(flags))
    write(board, change, models, tournament, ranked, flags, orphan_duels=set())  # every duel file written
    return len(files)


def stale_snapshot(board: BoardReader) -> int | None:
    """How many models the store's ranking snapshot ranks when it is not the loaded
    board's (a publication whose snapshot could not be written after its commit); None
    when it is, or the store has none."""
    return stale_rows(board.store.read_snapshot_file(), board.models, board.flags, board.benchmark)
