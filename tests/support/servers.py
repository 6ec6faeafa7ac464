"""The app served on a port of its own, for the tests and benchmarks that need a running
server: by app.py in a process of its own (`serve`: configured by its environment, as
deployed), or built with given settings in the test's process (`serve_in_process`)."""
from __future__ import annotations

from pathlib import Path
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from support.paths import ROOT


REASON, EVIDENCE = "test set in the training data", "https://example.com/report"
# Every test's uploads, pre-submissions and API requests come from this machine's address:
# their quotas out of the way unless a test sets them (test_app_limits.py,
# test_presubmissions.py and test_api.py test them). The upload count is kept in the store
# (issue 32 item 5), so a shared app's many tests would otherwise meet the hourly 20.
QUOTAS_OUT_OF_THE_WAY = dict(presubmissions_per_hour=100000, presubmissions_per_day=100000, api_per_minute=100000,
                             uploads_per_hour=100000, upload_mb_per_hour=1000000)
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
    store = store or copy_of(tmp_path_factory, full_store_template)
    port = free_port()
    quotas = {f"LEADERBOARD_{name.upper()}": str(value) for name, value in QUOTAS_OUT_OF_THE_WAY.items()}
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "GRADIO_TEMP_DIR": str(tmp_path_factory.mktemp("gradio")),
           **quotas, **env}
    process = start_app(env, tmp_path_factory.mktemp("log") / "app.log")
    try:
        yield f"http://127.0.0.1:{port}/", store, process.pid, Path(env["GRADIO_TEMP_DIR"])
    finally:
        process.terminate()
        process.wait(timeout=30)


def copy_of(tmp_path_factory, template: Path) -> Path:
    store = tmp_path_factory.mktemp("served") / "store"
    shutil.copytree(template, store)
    return store


@contextlib.contextmanager
def serve_in_process(tmp_path_factory, full_store_template, store: Path | None = None, **settings):
    """The app built with `settings` (Settings' fields, over QUOTAS_OUT_OF_THE_WAY) and served
    by Gradio in a thread of this process, as app.py serves it, on a copy of the template
    store (or on `store`, as it is): (url, store folder, this process's id, Gradio's cache
    folder). No interpreter to start: an app for a setting costs its page's build."""
    from leaderboard.app.serving import serve as serve_page
    from leaderboard.app.settings import AppSettings
    from leaderboard.board.state import Leaderboard
    from leaderboard.config.settings import Settings
    from leaderboard.storage.local import LocalStore

    store = store or copy_of(tmp_path_factory, full_store_template)
    # Gradio reads its cache folder (GRADIO_TEMP_DIR) as the app is built and launched (where
    # it keeps the app's uploads and serves files from), and again at each event (what it
    # accepts as uploaded, and where a tab built at its first open keeps its files): each app's
    # is a folder of the process's, and the process's variable names it while the app serves.
    gradio_root = Path(os.environ.setdefault("GRADIO_TEMP_DIR", str(tmp_path_factory.getbasetemp() / "gradio")))
    gradio_root.mkdir(parents=True, exist_ok=True)
    cache, port, serving = Path(tempfile.mkdtemp(prefix="app-", dir=gradio_root)), free_port(), threading.Event()
    app_settings = AppSettings(Settings(store=str(store), **{**QUOTAS_OUT_OF_THE_WAY, **settings}))
    with gradio_environment(GRADIO_TEMP_DIR=str(cache), GRADIO_ANALYTICS_ENABLED="False"):
        app = serve_page(Leaderboard(LocalStore(store)), app_settings, serving, server_port=port, quiet=True)
        serving.set()
        try:
            yield f"http://127.0.0.1:{port}/", store, os.getpid(), cache
        finally:
            app.close(verbose=False)


@contextlib.contextmanager
def gradio_environment(**variables: str):
    """Gradio's variables for the app built and launched meanwhile, which Gradio reads then."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
