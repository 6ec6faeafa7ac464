"""The web app's entry point: opens the configured board, builds the page
(`leaderboard.app`) and serves it.

    python app.py      # serves on GRADIO_SERVER_PORT (default 7860)
"""
from __future__ import annotations

import gc

from leaderboard.app.gradio_compat import skip_stub_writing

if __name__ == "__main__":
    # No garbage collection while the app starts: the imports and the page's build make some
    # 350,000 objects that live as long as the app, and the passes over them took 0.75 s of
    # a 3.3 s start's CPU. main() collects once and freezes them when it serves.
    gc.disable()
    skip_stub_writing()  # before Gradio's import, below

import logging
import threading

from leaderboard.app.serving import serve
from leaderboard.app.settings import AppSettings
from leaderboard.board.configured import open_configured_board
from leaderboard.config.settings import Settings
from leaderboard.errors import StoreFailure
from leaderboard.config.tasks import TasksFileError

log = logging.getLogger("leaderboard.app")


def main():
    settings = Settings.from_environment()  # read as the app starts: app.serving's and the page's
    logging.basicConfig(level=settings.log_level)
    try:
        board = open_configured_board(progress=lambda f, m: log.info("%3.0f%% %s", 100 * f, m))
    except (StoreFailure, TasksFileError) as e:
        raise SystemExit(f"cannot open the leaderboard: {e}")
    serving = threading.Event()
    app = serve(board, AppSettings(settings), serving)
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
