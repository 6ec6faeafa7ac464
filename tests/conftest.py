"""Shared fixtures: small and full benchmarks, demo files and demo stores on disk; and the
test tiers (`make check` runs the unit tier, `make test` all three)."""
from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

# One BLAS thread in each test process and in the apps and commands it starts (they inherit
# the environment), set before numpy is first imported: pytest-xdist already runs one process
# per core, and OpenBLAS's threads spin while they wait for work, which costs CPU on the small
# products the tests make without making them faster (bench/RESULTS.md, the suite's time).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pandas as pd
import pytest
from filelock import FileLock
from playwright.sync_api import expect, sync_playwright

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.cli import main as cli_main
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import TOURNAMENT_FILE
from leaderboard.strict_json import dump_json
from leaderboard.storage.upload_records import UPLOADS_DIR
from leaderboard.config.tasks import load_benchmark
from bad_files import CASE_NAMES, bad_files
from fake_hub import FakeHub
from support.browser import ChromiumMissing, launch_chromium

ROOT = Path(__file__).resolve().parent.parent

# Tiers, assigned here so that a new test in an existing file gets one without a marker
# (a test may still carry one itself).
TIERS = {"unit": "in-process tests of functions and views (make check)",
         "integration": "tests that start servers or processes, or run whole command or board scenarios",
         "browser": "tests that drive the app in Chromium"}
# Files whose tests run whole command scenarios (the bad-file corpus through every command,
# harness output through compile) or start processes and servers throughout.
INTEGRATION_FILES = {"test_api.py", "test_app_limits.py", "test_benchmarks.py", "test_board_writes.py", "test_cli.py",
                     "test_compile.py", "test_hardening.py", "test_hub.py", "test_real_harness.py", "test_validation.py"}
BROWSER_FIXTURES = {"chromium", "browser", "page", "phone"}
SERVER_FIXTURES = {"hub", "app_url", "server", "served", "flagged_server"}


def pytest_configure(config):
    for tier, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{tier}: {meaning}")


def tier_of(item) -> str:
    fixtures = set(getattr(item, "fixturenames", ()))
    code = getattr(getattr(item, "function", None), "__code__", None)
    names = set(code.co_names) if code else set()  # the globals the test's own body uses
    if item.path.name.startswith("test_e2e") or fixtures & BROWSER_FIXTURES or "sync_playwright" in names:
        return "browser"
    if (item.path.name in INTEGRATION_FILES or fixtures & SERVER_FIXTURES or any(f.endswith("_server") for f in fixtures)
            or "subprocess" in names):
        return "integration"
    return "unit"


def uses_a_module_fixture(item) -> bool:
    fixtures = getattr(item, "_fixtureinfo", None)
    return fixtures is not None and any(definitions[-1].scope == "module"
                                        for definitions in fixtures.name2fixturedefs.values())


# Served apps that the tests of several files share (session-scoped, below): such files' tests
# form one xdist group named after the app, so that one worker starts it once.
SHARED_APPS = ("shared_app", "flagged_server")


def xdist_groups(items) -> dict:
    """{test: its xdist group} for the tests that must run on one worker: a file's tests that
    share a module-scoped fixture, in the group of a shared app when the file uses one."""
    shared = {}
    for item in items:
        for app in SHARED_APPS:
            if app in getattr(item, "fixturenames", ()):
                shared.setdefault(item.path, app)
    return {item: shared.get(item.path, item.path.name) for item in items
            if uses_a_module_fixture(item) or item.path in shared}


def pytest_collection_finish(session):
    """The objects made by the imports and the collection (millions: Gradio, pandas, scipy,
    Playwright, the tests) live as long as the test process: moved out of the garbage
    collector's sight (`gc.freeze`), so that its full passes, which the millions of objects of
    each submission file parsed in this process set off, no longer walk them all (a third
    of the CPU of the command-line bad-file tests; bench/RESULTS.md). Objects made later
    are collected as before."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Each test's tier; the tests of a file that share a module-scoped fixture (a served
    app, a built store) in one xdist group, so that `--dist loadgroup` makes it once, not
    once per worker (and the files sharing a served app in that app's group); the files
    with browser tests first, then those with integration tests, so that the quick unit
    tests fill the workers' ends (a file's tests stay together: its module fixtures are
    made once). pytest-xdist hands out its units of work (a group, or a test in none)
    those of the most tests first (its --loadscope-reorder): this order holds among
    units of as many tests."""
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in TIERS):  # a test may name its tier itself
            item.add_marker(tier_of(item))
    for item, group in xdist_groups(items).items():
        item.add_marker(pytest.mark.xdist_group(group))
    order = list(TIERS)[::-1]  # browser, integration, unit
    rank: dict[Path, int] = {}
    for item in items:
        tier = next(t for t in TIERS if item.get_closest_marker(t))
        rank[item.path] = min(rank.get(item.path, len(order)), order.index(tier))
    items.sort(key=lambda item: rank[item.path])  # stable: each file's own order kept


# An assertion on the page waits up to 30 s for what the user would see, as most of the
# tests' explicit waits do (Playwright's default, 5 s, failed a card's render on a loaded
# machine: 2026-11-23, load average 17); it still fails when the text never comes.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per test process (a launch per module cost seconds), shared by
    the browser tests, which open their pages in its `shared_context` unless a page must be
    another person's browser."""
    with sync_playwright() as p:
        try:
            browser = launch_chromium(p)
        except ChromiumMissing as e:
            pytest.fail(str(e), pytrace=False)
        yield browser
        browser.close()


DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}  # the browser tests' viewports
APPS_SITE = "http://127.0.0.1/"  # the site of every app the tests serve, whatever its port
SHARED = {}  # this process's shared browser context ("context") and its page of the apps' site ("keeper")


def shared_context(browser):
    """The browser context the browser tests of this process open their pages in, holding a
    blank page of the apps' site (answered by Playwright, no server) for as long as it lives:
    Chromium then keeps the site's renderer process, with the scripts it has compiled, from
    one test's pages to the next's, and a page of the app loads for about 1.1 s of Chromium's
    CPU instead of 1.7 s in a context of its own (bench/RESULTS.md). The app keeps nothing in
    the browser (no cookie, no storage; Gradio's session is per page load), so pages in this
    context are as separate as pages in contexts of their own; cookies are cleared after
    each test (`close_pages_left_open`). Its pages take the desktop's size unless set (the
    tabs that links open)."""
    if "context" not in SHARED:
        context = browser.new_context(viewport=DESKTOP)
        keeper = context.new_page()
        keeper.route(APPS_SITE, lambda route: route.fulfill(body="", content_type="text/html"))
        keeper.goto(APPS_SITE)
        SHARED.update(context=context, keeper=keeper)
    return SHARED["context"]


@pytest.fixture(autouse=True)
def close_pages_left_open(request):
    """After each browser test, the pages it left open in the shared browser context (a test
    that failed before closing them) closed, and the context's cookies cleared."""
    yield
    if "chromium" in request.fixturenames and "context" in SHARED:
        for page in SHARED["context"].pages:
            if page is not SHARED["keeper"]:
                page.close()
        SHARED["context"].clear_cookies()


SMALL_TASKS = {
    "benchmark": "Mini",
    "categories": ["Knowledge", "Language", "Summaries"],
    "tasks": [
        {"id": "t_acc", "abbreviation": "ACC", "short_name": "Acc", "name": "Accuracy task",
         "category": "Knowledge", "metric": "acc", "dataset_url": "https://example.com/acc"},
        {"id": "t_em", "abbreviation": "EM", "short_name": "EM", "name": "Exact match task",
         "category": "Knowledge", "metric": "exact_match", "dataset_url": "https://example.com/em"},
        {"id": "t_auc", "abbreviation": "AUC", "short_name": "AUC", "name": "Classification task",
         "category": "Language", "metric": "avg_mcauroc", "dataset_url": "https://example.com/auc"},
        {"id": "t_ppl", "abbreviation": "PPL", "short_name": "PPL", "name": "Perplexity task",
         "category": "Language", "metric": "word_perplexity", "dataset_url": "https://example.com/ppl"},
        {"id": "t_rouge", "abbreviation": "RG", "short_name": "Rouge", "name": "Summary task",
         "category": "Summaries", "metric": "rouge_raw_r2_mid_f", "dataset_url": "https://example.com/rg"},
    ],
}


@pytest.fixture(scope="session")
def small_tasks_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tasks") / "mini_tasks.json"
    path.write_text(json.dumps(SMALL_TASKS))
    return path


@pytest.fixture(scope="session")
def small_benchmark(small_tasks_file):
    return load_benchmark(small_tasks_file)


@pytest.fixture(scope="session")
def full_benchmark():
    return load_benchmark()


@pytest.fixture(scope="session")
def small_documents(small_benchmark):
    """(form, document, timestamp) of 8 demo models on the small benchmark."""
    designs = {t.id: task_design(t, 0) for t in small_benchmark.tasks}
    return [demo_model(small_benchmark, i, 0, designs) for i in range(8)]


def publish_all(board, documents):
    for form, document, ts in documents:
        Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=ts)


@pytest.fixture(scope="session")
def small_store_template(tmp_path_factory, small_benchmark, small_documents) -> Path:
    """A local store of the first 5 small demo models, published once (copy it before use)."""
    root = tmp_path_factory.mktemp("small") / "store"
    publish_all(Leaderboard(LocalStore(root), small_benchmark), small_documents[:5])
    return root


@pytest.fixture
def small_store(tmp_path, small_benchmark, small_store_template):
    """A Leaderboard of the first 5 small demo models in a fresh local store: a copy of
    the session's, 30 times cheaper than publishing them again."""
    shutil.copytree(small_store_template, tmp_path / "store")
    return Leaderboard(LocalStore(tmp_path / "store"), small_benchmark)


def built_once(tmp_path_factory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder `build(folder)` makes, made once per test run: pytest-xdist's workers share
    it (the first builds it under a file lock, the others wait and reuse it; pytest-xdist's
    "making session-scoped fixtures execute only once"). Read-only: copy it before changing it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: its own temporary folder
        folder = tmp_path_factory.mktemp(name) / name
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, the workers' parent
    folder = shared / name
    with FileLock(shared / f"{name}.lock"):
        if not folder.exists():
            partial = shared / f"{name}.partial"  # renamed when whole: a failed build is not reused
            shutil.rmtree(partial, ignore_errors=True)
            build(partial)
            partial.rename(folder)
    return folder


@pytest.fixture(scope="session")
def full_store_template(tmp_path_factory, full_benchmark):
    """A demo store of 5 models on the full 50-task benchmark (copy it before changing it)."""
    return built_once(tmp_path_factory, "full_store",
                      lambda root: build_demo_store(root, 5, seed=0, benchmark=full_benchmark))


@pytest.fixture
def full_store(tmp_path, full_store_template) -> Path:
    root = tmp_path / "store"
    shutil.copytree(full_store_template, root)
    return root


@pytest.fixture(scope="session")
def new_model_file(tmp_path_factory, full_benchmark) -> Path:
    """A valid 50-task submission file of a model not in the full store."""
    form, document, _ = demo_model(full_benchmark, 7, seed=0)
    path = tmp_path_factory.mktemp("files") / "new_model.json"
    path.write_bytes(dump_json(document))
    return path


@pytest.fixture(scope="session")
def bad_file_corpus(tmp_path_factory, new_model_file) -> dict[str, tuple[Path, str]]:
    """{case: (a bad file, part of the expected message)}: `bad_files.py`'s corpus made from
    the new model's file, written once per test run (half a gigabyte)."""

    def write(folder: Path):
        folder.mkdir()
        corpus = bad_files(json.loads(new_model_file.read_text()))
        for index, case in enumerate(CASE_NAMES):
            (folder / f"{index}.json").write_bytes(corpus[case][0])
        (folder / "expected.json").write_text(json.dumps({case: expected for case, (_, expected) in corpus.items()}))

    folder = built_once(tmp_path_factory, "bad_files", write)
    expected = json.loads((folder / "expected.json").read_text())
    return {case: (folder / f"{index}.json", expected[case]) for index, case in enumerate(CASE_NAMES)}


def tree_digest(root: Path, exclude: str | tuple[str, ...] = ()) -> str:
    """A hash of every file's path and bytes under root (the lock file, the upload quota's
    records and the files or folders at the root named in `exclude`, excepted). The upload records (uploads/)
    are the quota's operational metadata, not the board's data: the web app writes one for
    every upload it admits, a file refused afterwards included; the checks are that a
    refused file changes none of the board's data."""
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*")):
        excluded = (UPLOADS_DIR, *([exclude] if isinstance(exclude, str) else exclude))
        if p.is_file() and p.name != ".lock" and p.relative_to(root).parts[0] not in excluded:
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def reference_layout_store(tmp_path, benchmark, documents) -> tuple[Leaderboard, Path]:
    """A board in our layout, and a copy of it as the reference writes it: tournament.json
    with bare-bool duels on one task, the old rouge spelling, no cache."""
    board = Leaderboard(LocalStore(tmp_path / "ours"), benchmark)
    publish_all(board, documents)
    root = Administration(board).export_reference_layout(tmp_path / "ref")
    for path in (root / "data").glob("*.json"):
        doc = json.loads(path.read_text())
        for sample in doc["predictions"]["t_rouge"]:
            sample["rouge_raw_r2_mid_f_without_bootstrap"] = sample.pop("rouge_raw_r2_mid_f")
        path.write_text(json.dumps(doc))
    tour = json.loads((root / TOURNAMENT_FILE).read_text())
    for row in tour.values():
        for entry in row.values():
            entry["t_acc"] = entry["t_acc"]["significant"]
    (root / TOURNAMENT_FILE).write_text(json.dumps(tour))
    return board, root


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
        files.update(store_index.index_of_history(history, store_index.file_stamp))
    return files


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory, full_store_template):
    """The app on a copy of the 5-model store, started once for the browser modules that
    only read it (those that take conftest's `app_url`): (url, store folder)."""
    from test_e2e import serve
    with serve(tmp_path_factory, full_store_template) as (url, store, _, _):
        yield url, store


@pytest.fixture(scope="module")
def app_url(shared_app):
    """`shared_app` for a module that does not make its own app (test_e2e's `app_url` does):
    its tests must leave the store as they found it, as the next module expects it."""
    before = tree_digest(shared_app[1])
    yield shared_app
    assert tree_digest(shared_app[1]) == before, "a test changed the shared app's store"


REASON, EVIDENCE = "test set in the training data", "https://example.com/report"


@pytest.fixture(scope="session")
def flagged_server(tmp_path_factory, full_store_template):
    """The app on a 5-model store whose second model is flagged while it runs (as the
    command line does it), started once for the tests that read it (test_api.py,
    test_e2e_flags.py): (url, store, flagged id, its title)."""
    from test_e2e import serve
    with serve(tmp_path_factory, full_store_template) as (url, store, _, _):
        board = Leaderboard(LocalStore(store))
        flagged = board.ranked().index[1]
        Administration(board).flag(flagged, REASON, EVIDENCE)
        yield url, store, flagged, board.models[flagged].title


@pytest.fixture
def hub(tmp_path):
    """A local Hub server (fake_hub.py) for one test."""
    hub = FakeHub(tmp_path / "hub").start()
    yield hub
    hub.stop()


def _pipe(stream) -> io.TextIOWrapper:
    """An in-memory stand-in for a child's stdout or stderr on a pipe: bytes, with the
    encoding and error handler this interpreter gave its own stream (so what a real pipe
    cannot take fails alike), and not a terminal."""
    return io.TextIOWrapper(io.BytesIO(), encoding=stream.encoding, errors=stream.errors)


def _as_subprocess_reads(pipe: io.TextIOWrapper) -> str:
    """The pipe's bytes decoded as subprocess.run(text=True) decodes them: strict, with
    universal newlines."""
    pipe.flush()
    return io.TextIOWrapper(io.BytesIO(pipe.buffer.getvalue()), encoding=sys.__stdout__.encoding).read()


def cli(*args, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m leaderboard *args` run as `__main__` runs it (its `main`, SystemExit's
    code), in this process: the exit code and the output as
    `subprocess.run(capture_output=True, text=True)` gives them, without a fresh
    interpreter's start and imports (0.7-1 s of CPU per command). `env`, when given, is
    the whole environment during the call; `cwd` the working directory. For tests of what
    a command does; the tests of the process itself (a cold start's imports, a terminal,
    arguments that are not UTF-8, SIGKILL, huggingface_hub's settings read at its import,
    several processes at once) start real ones."""
    argv = [str(a) for a in args]
    stdout, stderr = _pipe(sys.__stdout__), _pipe(sys.__stderr__)
    saved_environment, saved_cwd = dict(os.environ), os.getcwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = cli_main(argv)
            except SystemExit as e:  # argparse's errors and --help
                code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
                if not isinstance(e.code, (int, type(None))):
                    print(e.code, file=sys.stderr)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environment)
    return subprocess.CompletedProcess(["python", "-m", "leaderboard", *argv], code,
                                       _as_subprocess_reads(stdout), _as_subprocess_reads(stderr))


def duel_frame(board) -> pd.DataFrame:
    """Every stored duel row by model ids, in a fixed order: boards that index their models
    differently compare equal when they hold the same duels."""
    rows, ids = board.tournament.rows(), np.asarray(board.tournament.model_ids, dtype=object)
    frame = pd.DataFrame({"first": ids[rows.first], "second": ids[rows.second], "rules": rows.rules})
    for name in ("fought", "significant", "p_value", "delta"):
        for k, task in enumerate(board.tournament.task_ids):
            frame[f"{name}/{task}"] = getattr(rows, name)[:, k]
    return frame.sort_values(["first", "second"], ignore_index=True)
