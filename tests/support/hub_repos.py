"""Hub repos as the Hub store leaves them, built for the tests from a history of writes."""
from __future__ import annotations

from pathlib import Path
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore

from collections.abc import Callable

from leaderboard.storage.store_index import index_changes, segment_paths, written_segment
from leaderboard.json_types import JSONObject


def index_of_history(history: list[tuple[dict[str, bytes], dict[str, JSONObject]]],
                     blob_id: Callable[[bytes], str]) -> dict[str, bytes]:
    """The index a history of writes leaves (each: the files it wrote, path -> bytes, and
    the infos of the models it published), as `index_changes` builds it write by write."""
    index: dict[str, bytes] = {}
    files: dict[str, str] = {}
    for written, models in history:
        files.update({path: blob_id(data) for path, data in written.items()})
        adds, deletes = index_changes(segment_paths(index), written_segment(written, models, blob_id), files,
                                      index.__getitem__)
        for path in deletes:
            del index[path]
        index.update(adds)
    return index


def hub_repo_files(store: Path, benchmark, index: bool = True) -> dict[str, bytes]:
    """A local store's board as the Hub store commits it, one publication per model in
    time order: submissions, arrays, duel files, titles, snapshot, card
    and (`index`) the index files that history leaves (store_index.py); without `index`, the
    repo as versions before the index wrote it."""
    from leaderboard.storage import store_index
    from leaderboard.storage.dataset_card import CARD_FILE, dataset_card
    from leaderboard.storage.hub import ARRAYS_DIR
    from leaderboard.storage.model_arrays import encoded_with_info
    from leaderboard.storage.store import DUELS_DIR, SNAPSHOT_FILE, titles_files
    from leaderboard.storage.snapshot import snapshot_parquet
    board = Leaderboard(LocalStore(store), benchmark)
    files = {**titles_files(board.titles(), board.models), CARD_FILE: dataset_card(benchmark.name),
             SNAPSHOT_FILE: snapshot_parquet(board.models, board.ranked(), benchmark, board.flags)}
    history = []  # per publication: the files it wrote and its model's info
    for sid in board.submitted.sort_values(kind="stable").index:
        document = (store / "data" / f"{sid}.json").read_bytes()
        info, arrays = encoded_with_info(board.models[sid], store_index.file_stamp(document))
        written = {f"data/{sid}.json": document, f"{ARRAYS_DIR}/{sid}.npz": arrays}
        duels = store / DUELS_DIR / f"{sid}.parquet"
        if duels.exists():
            written[f"{DUELS_DIR}/{sid}.parquet"] = duels.read_bytes()
        files.update(written)
        history.append((written, {sid: info}))
    if index:
        files.update(index_of_history(history, store_index.file_stamp))
    return files
