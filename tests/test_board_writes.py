"""Writes that must leave a store `check` finds clean and that report truthfully, through
the command line as a user runs it (its `main` on real files; real processes against the
Hub), the web app and the Hub store (tests/fake_hub.py): removals on a board with more
models than top_opponents + 1, a flag's reason changed, store paths relative to the
working directory, a Hub commit that lands but whose answer is an error."""
from __future__ import annotations

from support.cli import cli
from support.hub_replicas import REPO, preview, replica
from support.page_sessions import PageSession, presubmit, shown
from support.pages import DESKTOP, PHONE, close, fill_form, open_page, shot
from support.servers import serve
from support.stores import SMALL_TASKS, publish_all, tree_digest

from support.page_sessions import publish as publish_in_page

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import expect

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.cli import main
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.storage.flags import FLAGS_FILE
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import SNAPSHOT_FILE, titles_part
from leaderboard.storage.snapshot import SnapshotBoard, stale_rows
from leaderboard.strict_json import dump_json
from leaderboard.errors import StoreFailure
from leaderboard.config.tasks import load_benchmark

ROOT = Path(__file__).resolve().parent.parent
TOP_OPPONENTS = 2
FORM = ["--type", "chat", "--params", "7", "--input-length", "4096", "--precision", "bfloat16",
        "--link", "https://example.com/cli"]


@pytest.fixture(scope="module")
def few_opponents_tasks(tmp_path_factory) -> Path:
    """The small benchmark with top_opponents 2: with 6 models, later models duel only some."""
    path = tmp_path_factory.mktemp("few") / "tasks.json"
    path.write_text(json.dumps({**SMALL_TASKS, "top_opponents": TOP_OPPONENTS}))
    return path


@pytest.fixture(scope="module")
def few_opponents_documents(few_opponents_tasks):
    benchmark = load_benchmark(few_opponents_tasks)
    designs = {t.id: task_design(t, 0) for t in benchmark.tasks}
    return [demo_model(benchmark, i, 0, designs) for i in range(8)]


@pytest.fixture(scope="module")
def few_opponents_template(tmp_path_factory, few_opponents_tasks, few_opponents_documents) -> Path:
    """6 models published in time order on the top_opponents=2 benchmark (copy it before use)."""
    board = Leaderboard(LocalStore(tmp_path_factory.mktemp("few_store") / "store"), load_benchmark(few_opponents_tasks))
    publish_all(board, few_opponents_documents[:6])
    return board.store.root


@pytest.fixture
def few_opponents_store(tmp_path, few_opponents_template) -> Path:
    """A copy of the template's store for one test."""
    return Path(shutil.copytree(few_opponents_template, tmp_path / "store"))


def test_rebuild_recompute_moves_a_store_to_the_panel_and_lists_the_ranks_that_moved(
        tmp_path, few_opponents_tasks, few_opponents_documents):
    """A store published under the original rule, then the tasks file switched to the
    panel: `check` names the missing panel duels (exit 2), `rebuild --recompute` runs them
    and prints the models whose rank moved, and `check` is clean after."""
    original = tmp_path / "original.json"
    original.write_text(json.dumps({**json.loads(few_opponents_tasks.read_text()), "opponents": "top-of-its-day"}))
    board = Leaderboard(LocalStore(tmp_path / "store"), load_benchmark(original))
    publish_all(board, few_opponents_documents)
    old_ranks = board.ranked()["rank"]
    checked = run(few_opponents_tasks, "check", "--store", tmp_path / "store")
    assert checked.returncode == 2 and "missing duels" in checked.stderr + checked.stdout
    rebuilt = run(few_opponents_tasks, "rebuild", "--recompute", "--store", tmp_path / "store")
    assert rebuilt.returncode == 0, rebuilt.stderr
    new_ranks = Leaderboard(LocalStore(tmp_path / "store"), load_benchmark(few_opponents_tasks)).ranked()["rank"]
    moved = [sid for sid in new_ranks.index if new_ranks[sid] != old_ranks[sid]]
    assert moved and f"{len(moved)} models changed rank" in rebuilt.stdout
    for sid in moved:
        assert f"({sid}): rank {old_ranks[sid]} -> {new_ranks[sid]}" in rebuilt.stdout + rebuilt.stderr
    assert run(few_opponents_tasks, "check", "--store", tmp_path / "store").returncode == 0


def run(tasks: Path, *args, cwd: Path = ROOT):
    """The command on the benchmark of `tasks`, through `main` in this process (`support.cli.cli`)."""
    return cli("--tasks", tasks, *args, cwd=cwd)


def process(tasks: Path, *args, env: dict):
    """The command in a fresh `python -m leaderboard` process, `env` added to its environment."""
    return subprocess.run([sys.executable, "-m", "leaderboard", "--tasks", str(tasks), *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **env})


def in_time_order(root: Path) -> list[str]:
    documents = [json.loads(p.read_text())["submission_metadata"] for p in (root / "data").glob("*.json")]
    return [m["submission_id"] for m in sorted(documents, key=lambda m: (m["submission_timestamp"],
                                                                         m["submission_id"]))]


def titles(root: Path) -> dict[str, str]:
    return LocalStore(root).read_titles()


def table(tasks: Path, root: Path) -> list[dict]:
    shown = run(tasks, "table", "--store", root, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


@pytest.mark.parametrize("position", [0, 1, 3])
def test_a_removal_runs_the_duels_the_replay_now_expects(few_opponents_tasks, few_opponents_store, tmp_path,
                                                         position):
    """Models published after the removed one dueled it instead of another model; the
    removal runs those duels in the same commit, so the board is what a rebuild makes."""
    root = few_opponents_store
    gone = in_time_order(root)[position]
    removed = run(few_opponents_tasks, "remove", gone, "--reason", "leaked", "--store", root)
    assert removed.returncode == 0, removed.stderr
    checked = run(few_opponents_tasks, "check", "--store", root)
    assert checked.returncode == 0 and "no problems" in checked.stdout, checked.stdout
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    assert run(few_opponents_tasks, "rebuild", "--store", copy).returncode == 0
    assert table(few_opponents_tasks, root) == table(few_opponents_tasks, copy)
    assert titles(root).get(gone) is None and len(table(few_opponents_tasks, root)) == 5


def test_changing_a_flags_reason_keeps_when_it_was_flagged(few_opponents_tasks, few_opponents_store,
                                                          few_opponents_documents, tmp_path):
    """Models published while a model was flagged did not duel it; a new reason must not
    move the flag's time past them (the replay would then expect those duels)."""
    root = few_opponents_store
    best = table(few_opponents_tasks, root)[0]["Model"]  # every new model's opponent
    flagged = next(sid for sid, title in titles(root).items() if title == best)
    assert run(few_opponents_tasks, "flag", flagged, "--reason", "leaked", "--store", root).returncode == 0
    flagged_at = json.loads((root / FLAGS_FILE).read_text())[flagged]["flagged_at"]
    form, document, _ = few_opponents_documents[6]
    path = tmp_path / "new.json"
    path.write_bytes(dump_json(document))
    published = run(few_opponents_tasks, "publish", path, "--store", root, "--team", form["team_name"], "--model",
                    form["model_name"], *FORM)
    assert published.returncode == 0, published.stderr
    changed = run(few_opponents_tasks, "flag", flagged, "--reason", "test set in the training data",
                  "--link", "https://example.com/report", "--store", root)
    assert changed.returncode == 0, changed.stderr
    stored = json.loads((root / FLAGS_FILE).read_text())[flagged]
    assert stored["reason"] == "test set in the training data" and stored["link"] == "https://example.com/report"
    assert stored["flagged_at"] == flagged_at
    checked = run(few_opponents_tasks, "check", "--store", root)
    assert checked.returncode == 0 and "no problems" in checked.stdout, checked.stdout


def test_writes_to_a_store_named_by_a_relative_path(few_opponents_tasks, few_opponents_store,
                                                    few_opponents_documents, tmp_path):
    """--store relative to the working directory, as `demo_store/BenCzechMark` or `../copy`."""
    root = few_opponents_store
    work = tmp_path / "work"
    work.mkdir()
    relative = os.path.relpath(root, work)
    assert relative.startswith("..")
    first = in_time_order(root)[0]
    flagged = run(few_opponents_tasks, "flag", first, "--reason", "leaked", "--store", relative, cwd=work)
    assert flagged.returncode == 0, flagged.stderr
    form, document, _ = few_opponents_documents[6]
    path = tmp_path / "new.json"
    path.write_bytes(dump_json(document))
    published = run(few_opponents_tasks, "publish", path, "--store", relative, "--team", form["team_name"],
                    "--model", form["model_name"], *FORM, "--json", cwd=work)
    assert published.returncode == 0, published.stderr
    assert (root / "data" / f"{json.loads(published.stdout)['submission_id']}.json").exists()
    removed = run(few_opponents_tasks, "remove", in_time_order(root)[1], "--reason", "leaked", "--store",
                  relative, cwd=work)
    assert removed.returncode == 0, removed.stderr
    checked = run(few_opponents_tasks, "check", "--store", relative, cwd=work)
    assert checked.returncode == 0 and "no problems" in checked.stdout, checked.stdout
    assert not list(root.rglob("*.tmp"))
    # The same store opened by the absolute path: the relative one wrote the same place.
    assert len(table(few_opponents_tasks, root)) == 6 and json.loads((root / FLAGS_FILE).read_text())


def test_check_reports_a_temporary_left_by_an_interrupted_write(few_opponents_tasks, few_opponents_store):
    root = few_opponents_store
    leftover = root / "duels" / ".model.parquet.k2j4x1.tmp"
    leftover.write_bytes(b"half a file")
    checked = run(few_opponents_tasks, "check", "--store", root)
    assert checked.returncode == 0 and "repaired: duels/.model.parquet.k2j4x1.tmp" in checked.stdout
    assert "interrupted write" in checked.stdout
    assert not leftover.exists()  # deleted by the recovery `check` runs, and said so
    again = run(few_opponents_tasks, "check", "--store", root)
    assert again.returncode == 0 and "repaired" not in again.stdout


def test_the_app_publishes_into_a_store_named_by_a_relative_path(tmp_path_factory, full_store_template,
                                                               new_model_file):
    store = tmp_path_factory.mktemp("relative") / "store"
    shutil.copytree(full_store_template, store)
    with serve(tmp_path_factory, full_store_template, LEADERBOARD_STORE=os.path.relpath(store, ROOT)) as (url, *_):
        session = PageSession(url)
        assert "would rank" in shown(presubmit(session, new_model_file)).lower()
        status = shown(publish_in_page(session))
    assert status.startswith("Published"), status
    assert len(list((store / "data").glob("*.json"))) == 6 and not list(store.rglob("*.tmp"))


# --- the Hub store: a commit that lands but whose answer is an error -------------------------

def test_a_commit_that_landed_with_an_error_answer_is_a_publication(hub, tmp_path, small_benchmark,
                                                                     small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    waiting = preview(board, small_documents[2])
    hub.fail_after_next_commits = 1
    sid = Publishing(board).publish(waiting)
    assert f"data/{sid}.json" in hub.files(REPO) and hub.commits == 3  # landed once, not twice
    assert sid in board.models and Administration(board).check() == []
    assert sid in replica(hub, tmp_path, small_benchmark, "b").models


def test_failures_after_a_commit_landed_are_not_reported_as_nothing_published(hub, tmp_path, small_benchmark,
                                                                               small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    # Reading the new commit's files fails once: read again, it is there.
    hub.fail_next_tree_listings = 1
    sid = Publishing(board).publish(preview(board, small_documents[2]))
    assert f"data/{sid}.json" in hub.files(REPO) and sid in board.models
    # Reading fails twice: the store cannot tell, and says the commit may have landed.
    hub.fail_next_tree_listings = 2
    with pytest.raises(StoreFailure, match="the commit may have landed") as unknown:
        Publishing(board).publish(preview(board, small_documents[3]))
    assert "nothing was published" not in str(unknown.value)
    assert sum(f.startswith("data/") for f in hub.files(REPO)) == 4
    # Keeping the arrays in the local cache fails (its place is taken by a folder): the
    # commit holds them, so the publication stands.
    waiting = preview(board, small_documents[4])
    (tmp_path / "cache-a" / f"{waiting.submission_id}.npz").mkdir()
    assert Publishing(board).publish(waiting) == waiting.submission_id
    assert f"data/{waiting.submission_id}.json" in hub.files(REPO)
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    assert len(fresh.models) == 5 and Administration(fresh).check() == []


def test_a_failed_commit_is_a_store_failure_saying_nothing_landed(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    files = hub.files(REPO)
    hub.fail_next_commits = 1
    with pytest.raises(StoreFailure, match="nothing was published"):
        Publishing(board).publish(preview(board, small_documents[2]))
    assert hub.files(REPO) == files


def test_a_flag_or_removal_whose_commit_failed_says_whether_it_may_have_landed(hub, tmp_path, small_benchmark,
                                                                               small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:3])
    top, second = board.ranked().index[:2]
    head = hub.head(REPO)
    hub.fail_next_commits = 1
    with pytest.raises(StoreFailure, match="nothing was changed"):
        Administration(board).flag(top, "leaked")
    assert hub.head(REPO) == head
    hub.fail_after_next_commits = 1
    with pytest.raises(StoreFailure, match="the change may have landed") as landed:
        Administration(board).remove(second, "leaked")
    assert "nothing was changed" not in str(landed.value)
    assert f"data/{second}.json" not in hub.files(REPO) and second not in board.models  # and the board shows it


def hub_cli(hub, tmp_path, tasks, *args):
    """In a fresh process: huggingface_hub reads the Hub's address (HF_ENDPOINT) when imported."""
    return process(tasks, *args, "--repo", REPO, env={"HF_ENDPOINT": hub.url, "HF_TOKEN": hub.token,
                                                       "HF_HOME": str(tmp_path / "hf")})


def test_the_command_line_reports_hub_failures_truthfully(hub, tmp_path, small_tasks_file, small_benchmark,
                                                         small_documents):
    hub.create_repo(REPO)
    publish_all(replica(hub, tmp_path, small_benchmark, "seed"), small_documents[:2])
    paths = []
    for k in (2, 3):
        form, document, _ = small_documents[k]
        paths.append((tmp_path / f"model{k}.json", ["--team", form["team_name"], "--model", form["model_name"]]))
        paths[-1][0].write_bytes(dump_json(document))
    hub.fail_after_next_commits = 1  # lands, then the answer is an error
    landed = hub_cli(hub, tmp_path, small_tasks_file, "publish", paths[0][0], *paths[0][1], *FORM, "--json")
    assert landed.returncode == 0, landed.stderr
    sid = json.loads(landed.stdout)["submission_id"]
    assert f"data/{sid}.json" in hub.files(REPO)
    hub.fail_next_commits = 1  # refused before anything is written: a store failure, not bad input
    failed = hub_cli(hub, tmp_path, small_tasks_file, "publish", paths[1][0], *paths[1][1], *FORM)
    assert failed.returncode == 1, failed.stderr
    assert "nothing was published" in failed.stderr and "HTTP 500" in failed.stderr
    assert "Traceback" not in failed.stderr and "internal error" not in failed.stderr
    assert sum(f.startswith("data/") for f in hub.files(REPO)) == 3



def snapshot_rows(hub) -> int:
    return pq.read_metadata(io.BytesIO(hub.read(REPO, SNAPSHOT_FILE))).num_rows


def test_a_publication_whose_snapshot_commit_finds_the_hub_gone_is_reported_published(
        hub, tmp_path, small_tasks_file, small_benchmark, small_documents):
    """The Hub is lost after the publication's commit, before the snapshot's: the model is
    published (exit 0, with a warning), `check` names the stale snapshot and the command
    that writes it, which brings it up to date."""
    hub.create_repo(REPO)
    seed = replica(hub, tmp_path, small_benchmark, "seed")
    publish_all(seed, small_documents[:2])
    assert Publishing(seed).refresh_intervals() and snapshot_rows(hub) == 2
    form, document, _ = small_documents[2]
    path = tmp_path / "model.json"
    path.write_bytes(dump_json(document))
    hub.unreachable_from_commit = 2  # the publication's commit lands, the snapshot's finds no Hub
    published = hub_cli(hub, tmp_path, small_tasks_file, "publish", path, "--team", form["team_name"],
                        "--model", form["model_name"], *FORM)
    assert published.returncode == 0, published.stderr
    assert f"{form['team_name']}/{form['model_name']}: published as" in published.stdout
    assert "the ranking snapshot will be refreshed on the next write" in published.stderr
    assert "Traceback" not in published.stderr
    hub.unreachable = False
    assert sum(f.startswith("data/") for f in hub.files(REPO)) == 3 and snapshot_rows(hub) == 2
    check = hub_cli(hub, tmp_path, small_tasks_file, "check")
    assert check.returncode == 2, check.stderr
    assert "leaderboard.parquet is stale: it ranks 2 models of 3" in check.stdout
    assert "refresh-snapshot --repo" in check.stdout
    repaired = hub_cli(hub, tmp_path, small_tasks_file, "refresh-snapshot")
    assert repaired.returncode == 0, repaired.stderr
    assert snapshot_rows(hub) == 3
    assert hub_cli(hub, tmp_path, small_tasks_file, "check").returncode == 0
    commits = hub.commits
    again = hub_cli(hub, tmp_path, small_tasks_file, "refresh-snapshot")
    assert "leaderboard.parquet is current (3 models); nothing written" in again.stdout and hub.commits == commits




def test_the_apps_start_writes_a_stale_snapshot_again(tmp_path_factory, full_store_template, full_benchmark,
                                                      new_model_file):
    """A publication whose snapshot was not written after its commit leaves a snapshot of
    the board before it; the app's start writes the current one once its intervals are computed."""
    root = tmp_path_factory.mktemp("stale") / "store"
    shutil.copytree(full_store_template, root)
    board = Leaderboard(LocalStore(root), full_benchmark)
    Publishing(board).publish(Publishing(board).presubmit(new_model_file, {
        "team_name": "Stale Lab", "model_name": "m", "model_type": "chat", "parameters": 7, "input_length": 4096,
        "precision": "bfloat16", "link_to_model": "https://example.com/stale"}))
    assert Administration(board).stale_snapshot() == 5
    with serve(tmp_path_factory, full_store_template, LEADERBOARD_STORE=str(root)):
        deadline = time.monotonic() + 120
        while stale_rows((root / SNAPSHOT_FILE).read_bytes(), board.models, board.flags, full_benchmark) is not None:
            assert time.monotonic() < deadline, "the app's start left the snapshot stale"
            time.sleep(0.5)
    assert SnapshotBoard.of_store(LocalStore(root), full_benchmark).models.keys() == board.models.keys()


# --- a local store that cannot be written: a full disk, a read-only folder ------------------

@contextlib.contextmanager
def store_on_small_filesystem(folder: Path, template: Path, kind: str):
    """A copy of `template` at `folder`, on a tmpfs of its own made `kind`: "full" (no byte
    left for a write) or "read-only". Mounting needs root (as the test machine runs)."""
    folder.mkdir(parents=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", str(folder)],
                      capture_output=True).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        shutil.copytree(template, folder, dirs_exist_ok=True)
        (folder / ".lock").touch()  # as a store that has been written has it
        if kind == "full":
            disk = os.statvfs(folder)
            remount = f"remount,size={(disk.f_blocks - disk.f_bfree) * disk.f_frsize}"
        else:
            remount = "remount,ro"
        subprocess.run(["mount", "-o", remount, str(folder)], check=True)
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)  # the test process may still map its files


REMEDY = {"full": "the disk is full", "read-only": "read-only"}


@pytest.mark.parametrize("kind", ["full", "read-only"])
def test_a_store_that_cannot_be_written_refuses_through_the_command_line(
        kind, tmp_path, small_tasks_file, small_store_template, small_documents):
    """Publishing, flagging and writing the snapshot into a full or read-only store: exit 1
    with what failed, what to do and that nothing was written; the store unchanged; reading
    it works."""
    form, document, _ = small_documents[5]
    path = tmp_path / "model.json"
    path.write_bytes(dump_json(document))
    with store_on_small_filesystem(tmp_path / "store", small_store_template, kind) as root:
        before = tree_digest(root)
        published = run(small_tasks_file, "publish", path, "--store", root, "--team", form["team_name"],
                        "--model", form["model_name"], *FORM)
        assert published.returncode == 1, published.stderr
        assert published.stderr.startswith("error: publishing failed, nothing was published")
        assert REMEDY[kind] in published.stderr and "internal error" not in published.stderr
        top = Leaderboard(LocalStore(root), load_benchmark(small_tasks_file)).ranked().index[0]
        flagged = run(small_tasks_file, "flag", top, "--reason", "leaked", "--store", root)
        assert flagged.returncode == 1 and "nothing was changed" in flagged.stderr, flagged.stderr
        assert REMEDY[kind] in flagged.stderr
        refreshed = run(small_tasks_file, "refresh-snapshot", "--store", root)
        assert refreshed.returncode == 1 and REMEDY[kind] in refreshed.stderr, refreshed.stderr
        assert "nothing was written" in refreshed.stderr
        for reading in (["table"], ["check"], ["presubmit", path, "--team", "T", "--model", "M"]):
            read = run(small_tasks_file, *reading, "--store", root)
            assert read.returncode == 0, read.stderr
        assert tree_digest(root) == before



@pytest.mark.parametrize("kind", ["full", "read-only"])
def test_a_store_that_cannot_be_written_refuses_a_publication_on_the_page(
        kind, chromium, tmp_path_factory, small_tasks_file, small_store_template, small_documents):
    """In Chromium, on a desktop and a phone: the pre-submission is shown (its record could not
    be kept, which it says) and the publication is refused with what to do and that nothing
    was published, not Gradio's bare "Error"; the store unchanged. The small store: the app
    starts and pre-submits on it as on the full one, in a fraction of the time."""
    folder = tmp_path_factory.mktemp("unwritable") / "store"
    path = tmp_path_factory.mktemp("model") / "model.json"
    path.write_bytes(dump_json(small_documents[5][1]))
    with (store_on_small_filesystem(folder, small_store_template, kind) as root,
          serve(tmp_path_factory, small_store_template, store=root, LEADERBOARD_TASKS=str(small_tasks_file))
          as (url, *_)):
        before = tree_digest(root)
        for viewport in (DESKTOP, PHONE):
            page = open_page(chromium, url, viewport)
            fill_form(page, path, "Full Disk Lab", f"{kind}-{viewport['width']}")
            page.locator("#presubmit").click()
            status = page.locator("#status")
            expect(status).to_contain_text("would rank")
            expect(status).to_contain_text("could not be recorded")
            page.locator("#publish").click()
            page.locator("#confirm").click()
            expect(status).to_contain_text("The store could not be written")
            expect(status).to_contain_text("nothing was published")
            expect(status).to_contain_text(REMEDY[kind])
            expect(status).not_to_contain_text(str(root))  # no server path for the page's visitors
            expect(page.get_by_text("Error", exact=True)).to_have_count(0)
            status.scroll_into_view_if_needed()
            shot(page, f"store_{kind}_publication_refused", full_page=False)
            assert not page.dialogs, page.dialogs
            close(page)
        assert tree_digest(root) == before


def bytes_written(root: Path, change) -> dict[str, int]:
    """Path -> bytes `change()` wrote into the store: a new or replaced file's size, what an
    appended one grew by (as bench/bench_scale.py measures a publication)."""
    before = {p: p.stat() for p in root.rglob("*") if p.is_file()}
    change()
    written = {}
    for p in root.rglob("*"):
        st, old = p.stat(), before.get(p)
        if not p.is_file() or p.name == ".lock" or (old and (old.st_ino, old.st_size, old.st_mtime_ns) == (
                st.st_ino, st.st_size, st.st_mtime_ns)):
            continue
        grown = old is not None and old.st_ino == st.st_ino and st.st_size >= old.st_size
        written[str(p.relative_to(root))] = st.st_size - old.st_size if grown else st.st_size
    return written


def test_a_publication_writes_what_it_adds_whatever_the_board_size(tmp_path, few_opponents_tasks):
    """The same model published into a board of 8 and one of 48: the same files (its own,
    and the one titles part that holds its title), of about the same size; no file with a
    row per model (the snapshot is written after the commit, with the intervals)."""
    benchmark = load_benchmark(few_opponents_tasks)
    designs = {t.id: task_design(t, 0) for t in benchmark.tasks}
    form, document, submitted = demo_model(benchmark, 100, 0, designs)
    written = {}
    for n in (8, 48):
        board = build_demo_store(tmp_path / f"store{n}", n, benchmark=benchmark)
        preview = Publishing(board).presubmit(dump_json(document), form)
        written[n] = bytes_written(board.store.root, lambda: Publishing(board).publish(preview, submitted_at=submitted))
        sid = preview.submission_id
        assert set(written[n]) == {f"data/{sid}.json", f".cache/{sid}.npz", ".cache/index.jsonl",
                                   f"duels/{sid}.parquet", titles_part(sid)}
        assert board.store.read_titles() == board.titles()
    assert sum(written[48].values()) <= 1.05 * sum(written[8].values())


def test_table_writes_the_snapshot_a_publication_left_and_then_reads_it(small_store, small_documents,
                                                                         small_tasks_file, capsys):
    """After a publication without its intervals refreshed, `table` loads the board, prints
    it and writes the snapshot; the next `table` prints the same from the snapshot."""
    board = small_store
    publish_all(board, small_documents[5:6])  # no intervals refreshed: the snapshot is the board before
    assert SnapshotBoard.of_store(board.store, board.benchmark) is None
    args = ["--tasks", str(small_tasks_file), "table", "--store", str(board.store.root), "--format", "json"]
    assert main(args) == 0
    loaded = capsys.readouterr().out
    assert SnapshotBoard.of_store(board.store, board.benchmark) is not None
    assert main(args) == 0
    assert capsys.readouterr().out == loaded and len(json.loads(loaded)) == 6
