"""The web app's entry point: opens the configured board, builds the page
(`leaderboard.app`) and serves it.

    python app.py      # serves on GRADIO_SERVER_PORT (default 7860)
"""
from __future__ import annotations

import gc

from leaderboard.app.gradio_compat import queued, skip_stub_writing

if __name__ == "__main__":
    # No garbage collection while the app starts: the imports and the page's build make some
    # 350,000 objects that live as long as the app, and the passes over them took 0.75 s of
    # a 3.3 s start's CPU. main() collects once and freezes them when it serves.
    gc.disable()
    skip_stub_writing()  # before Gradio's import, below

import functools
import logging
import threading

from starlette.middleware import Middleware

from leaderboard.app.page import build_app, page_style
from leaderboard.app.settings import (CACHE_SECONDS, CACHE_SWEEP_SECONDS, HUB_UPLOAD_RECORD_SECONDS, SETTINGS,
                                      SIGNED_OUT, TEMP_DISK)
from leaderboard.app.signin import SignOutGate
from leaderboard.submission.archive import MAX_ARCHIVE_BYTES
from leaderboard.board.configured import open_configured_board
from leaderboard.board.publishing import Publishing
from leaderboard.board.reader import follow
from leaderboard.storage.hub import HubStore
from leaderboard.app.limits import UploadGate, UploadWindow
from leaderboard.temp_disk import MB
from leaderboard.storage.upload_records import UploadLog
from leaderboard.errors import StoreFailure
from leaderboard.config.tasks import TasksFileError

log = logging.getLogger("leaderboard.app")


def main():
    logging.basicConfig(level=SETTINGS.log_level)
    try:
        board = open_configured_board(progress=lambda f, m: log.info("%3.0f%% %s", 100 * f, m))
    except (StoreFailure, TasksFileError) as e:
        raise SystemExit(f"cannot open the leaderboard: {e}")
    serving = threading.Event()
    if isinstance(board.store, HubStore):  # other replicas may publish: notice their commits
        board.watch(SETTINGS.poll_seconds)
    # The first page's intervals: a local store's current snapshot holds them; else they
    # are computed once the page is served (they need every model's arrays: a minute at
    # 10,000 models, which a new Hub replica has not even downloaded), and the page says
    # meanwhile that they are being refreshed. Not during the page's build: a thread
    # computing them then failed with CPython 3.11's "AST constructor recursion depth
    # mismatch" (its ast module is not safe for two threads parsing at once). A stale
    # snapshot (a publication's, whose writing after its commit failed) is then written again.
    if board.certainty_from_snapshot():  # the replicates the next publication's intervals need, meanwhile
        board.warm_in_background(after=serving)
    else:
        board.certainty_in_background(after=serving, then=lambda: (board.warm_presubmission(),
                                                                   Publishing(board).refresh_stale_snapshot()))
    app = build_app(board)
    # Uploads are admitted by address and by temporary disk before Gradio stores them,
    # counted from the store's upload records: written at once locally, batched on the Hub.
    upload_log = UploadLog(board.store, HUB_UPLOAD_RECORD_SECONDS if isinstance(board.store, HubStore) else 0,
                           on_commit=functools.partial(follow, board))
    upload_log.write_in_background()
    uploads = UploadWindow(SETTINGS.uploads_per_hour, SETTINGS.upload_mb_per_hour * MB, upload_log)
    gate = Middleware(UploadGate, uploads=uploads, disk=TEMP_DISK, keep_seconds=CACHE_SECONDS + CACHE_SWEEP_SECONDS,
                      signed_out=SIGNED_OUT)
    # A sign-out is recorded before Gradio empties the session, so a saved copy of its cookie is refused.
    sign_outs = Middleware(SignOutGate, signed_out=SIGNED_OUT)
    queued(app).launch(max_file_size=MAX_ARCHIVE_BYTES, app_kwargs={"middleware": [gate, sign_outs]},
                       prevent_thread_lock=True, **page_style(board))
    # The start's objects (Gradio, pandas, the board, the page) stay until the app stops:
    # frozen, the collections a request sets off skip them (a 3.5 MB upload refused at a bad
    # sample took half the CPU to parse: bench/RESULTS.md, session 7). One collection first,
    # so no garbage of the start is kept.
    gc.collect()
    gc.freeze()
    gc.enable()
    serving.set()
    app.block_thread()


if __name__ == "__main__":
    main()
