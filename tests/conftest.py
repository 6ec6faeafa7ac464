"""Shared fixtures: small and full benchmarks, demo files and demo stores on disk; and the
test tiers (`make check` runs the unit tier, `make test` all three)."""
from __future__ import annotations

import gc
import json
import os
import shutil
import tempfile
from pathlib import Path

# One BLAS thread in each test process and in the apps and commands it starts (they inherit
# the environment), set before numpy is first imported: pytest-xdist already runs one process
# per core, and OpenBLAS's threads spin while they wait for work, which costs CPU on the small
# products the tests make without making them faster (bench/RESULTS.md, the suite's time).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from playwright.sync_api import expect, sync_playwright

from leaderboard import blas
from leaderboard.board.administration import Administration
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import dump_json
from leaderboard.config.tasks import load_benchmark
from bad_files import CASE_NAMES, bad_files
from fake_hub import FakeHub
from support.browser import ChromiumMissing, launch_chromium
from support.built_once import built_once
from support.pages import PHONE, SHARED, WAIT_MS, close, open_page
from support.benchmarks import BENCHMARKS
from support.servers import EVIDENCE, PAGED_MODELS, PAGED_ROWS, REASON, serve
from support.stores import SMALL_TASKS, publish_all, tree_digest

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
    blas.one_thread()  # as the app and the command line run, and for the servers and commands started here
    # what the command line keeps between runs goes to a folder of this run's, not the user's home
    os.environ.setdefault("LEADERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="leaderboard-cache-"))
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
SHARED_APPS = ("shared_app", "flagged_server", "paged_app")


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


# An assertion on the page waits as long as a page's actions (Playwright's default, 5 s, failed
# a card's render on a loaded machine: 2026-11-23, load average 17).
expect.set_options(timeout=WAIT_MS)


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


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory, full_store_template):
    """The app on a copy of the 5-model store, started once for the browser modules that
    only read it (those that take conftest's `app_url`): (url, store folder)."""
    from support.servers import serve
    with serve(tmp_path_factory, full_store_template) as (url, store, _, _):
        yield url, store


@pytest.fixture(scope="module")
def app_url(shared_app):
    """`shared_app` for a module that does not make its own app (`support.own_app.app_url` does):
    its tests must leave the store as they found it, as the next module expects it."""
    before = tree_digest(shared_app[1])
    yield shared_app
    assert tree_digest(shared_app[1]) == before, "a test changed the shared app's store"


@pytest.fixture(scope="session")
def paged_app(tmp_path_factory):
    """The app on a 13-model BenCzechMark demo store (test_e2e_first_screen's) at 4 rows a
    page, started once for test_e2e_paging.py (which reads it) and test_e2e_preview.py (whose
    pre-submissions are recorded and publish nothing, so no ranking moves): its url."""
    template = built_once(tmp_path_factory, "first_screen_BenCzechMark",
                          lambda root: build_demo_store(root, PAGED_MODELS, seed=0,
                                                        benchmark=load_benchmark(BENCHMARKS["BenCzechMark"])))
    with serve(tmp_path_factory, template, LEADERBOARD_PAGE_ROWS=str(PAGED_ROWS)) as (url, _, _, _):
        yield url


@pytest.fixture(scope="session")
def flagged_server(tmp_path_factory, full_store_template):
    """The app on a 5-model store whose second model is flagged while it runs (as the
    command line does it), started once for the tests that read it (test_api.py,
    test_e2e_flags.py): (url, store, flagged id, its title)."""
    from support.servers import serve
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


@pytest.fixture(scope="module")
def browser(chromium):
    """The process's Chromium (`chromium`), under the name the browser modules' tests take."""
    return chromium


@pytest.fixture
def page(browser, app_url):
    page = open_page(browser, app_url[0])
    yield page
    assert not page.dialogs, page.dialogs
    close(page)


@pytest.fixture
def phone(browser, app_url):
    page = open_page(browser, app_url[0], PHONE)
    yield page
    assert not page.dialogs, page.dialogs
    close(page)
