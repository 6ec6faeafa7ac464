"""The app served by app.py on a port of its own, for the tests and benchmarks that need a running server."""
from __future__ import annotations

from pathlib import Path
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from support.paths import ROOT


REASON, EVIDENCE = "test set in the training data", "https://example.com/report"
# conftest's `paged_app`: 4 pages of the table; with a pre-submitted model 14 rows, still 4
PAGED_MODELS, PAGED_ROWS = 13, 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(env: dict, log_path: Path, seconds: float = 180.0, code: Path = ROOT) -> subprocess.Popen:
    """Start the app.py of the code tree `code` and return once it says it is serving (no
    polling): its output is copied to log_path by a thread, which signals the "Running on" line."""
    process = subprocess.Popen([sys.executable, "app.py"], cwd=code, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    serving = threading.Event()

    def copy_output():
        with open(log_path, "w") as log:
            for line in process.stdout:
                log.write(line)
                log.flush()
                if "Running on local URL" in line:
                    serving.set()
        serving.set()  # the app exited: stop waiting

    threading.Thread(target=copy_output, daemon=True).start()
    if not serving.wait(seconds) or process.poll() is not None:
        process.kill()
        raise RuntimeError(f"the app did not start; see {log_path}")
    return process


@contextlib.contextmanager
def serve(tmp_path_factory, full_store_template, store: Path | None = None, **env):
    """The app on a copy of the template store (or on `store`, as it is), with `env` added to
    its environment: (url, store folder, process id, Gradio's cache folder)."""
    if store is None:
        store = tmp_path_factory.mktemp("served") / "store"
        shutil.copytree(full_store_template, store)
    port = free_port()
    # Every test's uploads, pre-submissions and API requests come from this machine's address:
    # their quotas out of the way unless a test sets them (test_app_limits.py,
    # test_presubmissions.py and test_api.py test them). The upload count is kept in the store
    # (issue 32 item 5), so a shared app's many tests would otherwise meet the hourly 20.
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "GRADIO_TEMP_DIR": str(tmp_path_factory.mktemp("gradio")),
           "LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "100000", "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "100000",
           "LEADERBOARD_API_PER_MINUTE": "100000", "LEADERBOARD_UPLOADS_PER_HOUR": "100000",
           "LEADERBOARD_UPLOAD_MB_PER_HOUR": "1000000", **env}
    process = start_app(env, tmp_path_factory.mktemp("log") / "app.log")
    try:
        yield f"http://127.0.0.1:{port}/", store, process.pid, Path(env["GRADIO_TEMP_DIR"])
    finally:
        process.terminate()
        process.wait(timeout=30)
