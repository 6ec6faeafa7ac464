"""The page of a board served: its background work started, uploads admitted by the
settings' bounds before Gradio stores them, and Gradio serving in a thread of its own
(app.py serves one per process; the tests serve several in one, `close()` stops each)."""
from __future__ import annotations

import functools
import threading

import gradio as gr
from starlette.middleware import Middleware

from leaderboard import blas, freed_memory
from leaderboard.app.gradio_compat import WITHOUT_SELF_CHECK, queued
from leaderboard.app.limits import UploadGate, UploadWindow
from leaderboard.app.page import build_app, page_style
from leaderboard.app.quiet import NoteRequests, QuietWatch
from leaderboard.app.sessions import KeepSessions
from leaderboard.app.settings import HUB_UPLOAD_RECORD_SECONDS, AppSettings
from leaderboard.app.signin import SignOutGate
from leaderboard.board.publishing import Publishing
from leaderboard.board.reader import follow
from leaderboard.storage.hub import HubStore
from leaderboard.storage.upload_records import UploadLog
from leaderboard.submission.archive import MAX_ARCHIVE_BYTES
from leaderboard.temp_disk import MB
from leaderboard.views import report_card


def serve(board, settings: AppSettings, serving: threading.Event, **launch) -> gr.Blocks:
    """`board`'s page with `settings`, served (`launch`: more of Gradio's launch arguments);
    the board's work that would slow the start waits for `serving`, which the caller sets."""
    blas.one_thread()
    freed_memory.fewer_arenas()
    if isinstance(board.store, HubStore):  # other replicas may publish: notice their commits
        board.watch(settings.settings.poll_seconds, on_reload=lambda: report_card.warm_task_rows(board))
    # The first page's intervals: a local store's current snapshot holds them; else they
    # are computed once the page is served (they need every model's arrays: a minute at
    # 10,000 models, which a new Hub replica has not even downloaded), and the page says
    # meanwhile that they are being refreshed. Not during the page's build: a thread
    # computing them then failed with CPython 3.11's "AST constructor recursion depth
    # mismatch" (its ast module is not safe for two threads parsing at once). A stale
    # snapshot (a publication's, whose writing after its commit failed) is then written again.
    watch = QuietWatch()
    if board.certainty_from_snapshot():  # the replicates the next publication's intervals need, while nobody is served
        board.warm_in_background(after=serving, before_batch=watch.wait_quiet)
    else:
        board.certainty_in_background(after=serving, then=lambda: (board.warm_presubmission(),
                                                                   Publishing(board).refresh_stale_snapshot()))
    # About's per-task discordance (every model's arrays read: 8-13 s at 10,000 models), once
    # the app serves and nobody is being served; again after each of its publications (submit_tab)
    # and after another replica's commit (the poll above).
    def served_and_quiet() -> None:
        serving.wait()
        watch.wait_quiet()
    report_card.warm_task_rows(board, before=served_and_quiet)
    app = build_app(board, settings, warm_after=serving)
    # Uploads are admitted by address and by temporary disk before Gradio stores them,
    # counted from the store's upload records: written at once locally, batched on the Hub.
    upload_log = UploadLog(board.store, HUB_UPLOAD_RECORD_SECONDS if isinstance(board.store, HubStore) else 0,
                           on_commit=functools.partial(follow, board))
    upload_log.write_in_background()
    uploads = UploadWindow(settings.settings.uploads_per_hour, settings.settings.upload_mb_per_hour * MB, upload_log)
    gate = Middleware(UploadGate, uploads=uploads, disk=settings.temp_disk,
                      keep_seconds=settings.cache_seconds + settings.cache_sweep_seconds, signed_out=settings.signed_out)
    # A sign-out is recorded before Gradio empties the session, so a saved copy of its cookie is refused.
    sign_outs = Middleware(SignOutGate, signed_out=settings.signed_out)
    # Gradio would keep every visitor's session (up to 10,000 of them, 0.5-3 MB each).
    sessions = Middleware(KeepSessions, page=app, idle_seconds=settings.settings.idle_session_seconds)
    queued(app).launch(max_file_size=MAX_ARCHIVE_BYTES,
                       app_kwargs={"middleware": [gate, sign_outs, sessions, Middleware(NoteRequests, watch=watch)]},
                       prevent_thread_lock=True, **WITHOUT_SELF_CHECK, **page_style(board), **launch)
    return app
