"""Hub repos as the Hub store leaves them, built for the tests from a history of writes."""
from __future__ import annotations

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
