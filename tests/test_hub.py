"""The Hub store end to end: the real huggingface_hub client against a local Hub server
(tests/fake_hub.py) over real git repositories. Nothing here reaches the internet."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import publish_all, reference_layout_store
from leaderboard.board.state import Leaderboard
from leaderboard.storage.hub import HubStore
from leaderboard.storage.local import SNAPSHOT_FILE, TOURNAMENT_FILE, LocalStore
from leaderboard.storage.strict_json import dump_json
from leaderboard.errors import StoreFailure

ROOT = Path(__file__).resolve().parent.parent
REPO = "czech/leaderboard"


def replica(hub, tmp_path, benchmark, name: str, token: str | None = "default") -> Leaderboard:
    """One app instance: its own store object and its own local caches."""
    token = hub.token if token == "default" else token
    store = HubStore(REPO, token=token, endpoint=hub.url, cache_dir=tmp_path / f"cache-{name}",
                     benchmark_name=benchmark.name)
    return Leaderboard(store, benchmark)


def preview(board, document_entry):
    form, document, _ = document_entry
    return board.publishing.presubmit(dump_json(document), form)


def test_first_publication_into_an_empty_repo(hub, tmp_path, small_benchmark, small_documents, monkeypatch):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    assert board.models == {}
    publish_all(board, small_documents[:3])
    assert hub.commits == 3  # one commit per publication
    files = hub.files(REPO)
    assert sum(f.startswith("data/") for f in files) == 3 and sum(f.startswith("arrays/") for f in files) == 3
    assert sum(f.startswith("duels/") for f in files) == 3 and TOURNAMENT_FILE not in files
    assert "README.md" in files and SNAPSHOT_FILE not in files  # a publication's commit leaves the snapshot
    assert set(board.store.read_titles()) == set(board.models)  # the titles parts
    assert board.publishing.refresh_intervals() and SNAPSHOT_FILE in hub.files(REPO)  # written after, with intervals
    # A new replica starts from the committed arrays, without parsing a submission file.
    monkeypatch.setattr("leaderboard.board.state.parse_submission", lambda *a, **k: pytest.fail("parsed a file"))
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    pd.testing.assert_frame_equal(fresh.ranked(), board.ranked())


def test_a_repo_in_the_reference_layout_opens_unchanged(hub, tmp_path, small_benchmark, small_documents):
    """Bare-bool duels, the old rouge spelling, no cache, no snapshot: as the reference writes it."""
    local, root = reference_layout_store(tmp_path, small_benchmark, small_documents[:3])
    files = {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    hub.create_repo(REPO, files)
    board = replica(hub, tmp_path, small_benchmark, "a")
    assert set(board.models) == set(local.models)
    pd.testing.assert_frame_equal(board.ranked(), local.ranked())
    again = replica(hub, tmp_path, small_benchmark, "a")  # second start: the local cache, same answer
    pd.testing.assert_frame_equal(again.ranked(), local.ranked())


def test_a_stale_publication_is_retried_with_the_missing_duels(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    a = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(a, small_documents[:3])
    b = replica(hub, tmp_path, small_benchmark, "b")
    waiting, racing = preview(b, small_documents[4]), preview(a, small_documents[3])
    commit, published = b.store.publish, []

    def a_commits_first(publication, parent):  # a lands between b's refresh and b's commit
        if not published:
            published.append(a.publishing.publish(racing))
        return commit(publication, parent=parent)

    b.store.publish = a_commits_first
    second = b.publishing.publish(waiting)
    first = published[0]
    assert hub.rejected == 1  # b's first attempt was refused (HTTP 412), then retried
    fresh = replica(hub, tmp_path, small_benchmark, "c")
    assert {first, second} <= set(fresh.models)
    assert fresh.tournament.has_dueled(second, first) and fresh.tournament.has_dueled(first, second)
    assert fresh.admin.check() == []


def test_two_replicas_publishing_at_once_both_land(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    seed = replica(hub, tmp_path, small_benchmark, "seed")
    publish_all(seed, small_documents[:3])
    boards = [replica(hub, tmp_path, small_benchmark, name) for name in ("a", "b")]
    previews = [preview(board, small_documents[3 + k]) for k, board in enumerate(boards)]
    start, results = threading.Barrier(2), {}

    def publish(k):
        start.wait()
        results[k] = boards[k].publishing.publish(previews[k])

    threads = [threading.Thread(target=publish, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 2
    fresh = replica(hub, tmp_path, small_benchmark, "fresh")
    assert len(fresh.models) == 5 and set(results.values()) <= set(fresh.models)
    assert sum(f.startswith("data/") for f in hub.files(REPO)) == 5  # nothing published twice
    assert fresh.tournament.has_dueled(results[0], results[1]) and fresh.tournament.has_dueled(results[1], results[0])
    assert fresh.admin.check() == []


def test_a_failed_commit_changes_nothing(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    head, files, ranked = hub.head(REPO), hub.files(REPO), board.ranked().copy()
    waiting = preview(board, small_documents[2])
    hub.fail_next_commits = 1
    with pytest.raises(StoreFailure, match="nothing was published"):
        board.publishing.publish(waiting)
    assert hub.head(REPO) == head and hub.files(REPO) == files
    pd.testing.assert_frame_equal(board.ranked(), ranked)
    assert board.publishing.publish(waiting) in replica(hub, tmp_path, small_benchmark, "b").models  # and it can be retried


def test_without_a_write_token_publishing_fails_clearly(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a", token=None)
    with pytest.raises(StoreFailure) as error:
        publish_all(board, small_documents[:1])
    assert "HTTP 401" in str(error.value) and "HF_TOKEN" in str(error.value)
    assert hub.files(REPO) == [".gitattributes"]


def test_a_replica_picks_up_another_replicas_publication(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    a = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(a, small_documents[:2])
    b = replica(hub, tmp_path, small_benchmark, "b")
    reloaded = threading.Event()
    b.watch(0.1, on_reload=reloaded.set)
    sid = a.publishing.publish(preview(a, small_documents[2]))
    assert reloaded.wait(timeout=60)  # a limit for a hung poller, not a speed expectation
    assert sid in b.models
    pd.testing.assert_frame_equal(b.ranked(), a.ranked())


def test_remove_is_one_commit_and_check_reports_problems(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:4])
    gone = board.ranked().index[1]
    commits = hub.commits
    board.admin.remove(gone, reason="results were leaked")
    assert hub.commits == commits + 1
    assert not any(gone in f for f in hub.files(REPO))
    for name in (f for f in hub.files(REPO) if f.startswith("duels/")):
        table = pq.read_table(io.BytesIO(hub.read(REPO, name)))
        assert gone not in set(table["first"].to_pylist()) | set(table["second"].to_pylist())
    assert "results were leaked" in subprocess.run(
        ["git", "--git-dir", str(hub.root / f"{REPO}.git"), "log", "-1", "--format=%s"],
        capture_output=True, text=True).stdout
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    assert gone not in fresh.models and fresh.admin.check() == []
    # Damage the repo by hand: an orphan duel and a missing one.
    duel_names = sorted(f for f in hub.files(REPO) if f.startswith("duels/"))
    lost = max(duel_names, key=lambda name: len(hub.read(REPO, name)))
    kept = next(name for name in duel_names if name != lost and pq.read_table(io.BytesIO(hub.read(REPO, name))).num_rows)
    table = pq.read_table(io.BytesIO(hub.read(REPO, kept)))
    first = table["first"].to_pylist()
    ghost = table.set_column(table.schema.get_field_index("first"), "first",
                             pa.array(["ghost_model"] + first[1:], type=table.schema.field("first").type))
    sink = io.BytesIO()
    pq.write_table(ghost, sink)
    hub.repo(REPO).commit(hub.head(REPO), {kept: sink.getvalue()}, [lost], "damage")
    problems = replica(hub, tmp_path, small_benchmark, "c").admin.check()
    assert any("missing duels" in p for p in problems) and any("ghost_model" in p for p in problems)
    fixed = replica(hub, tmp_path, small_benchmark, "d")
    assert fixed.admin.rebuild().dueled >= 1 and fixed.admin.check() == []


def test_load_dataset_returns_the_ranking(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:4])
    assert board.publishing.refresh_intervals()  # as the app does after a publication
    script = ("import datasets, json; d = datasets.load_dataset(%r, split='train'); "
              "print(json.dumps(d.to_pandas()[['submission_id', 'rank', 'overall']].to_dict('list')))" % REPO)
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0",
           "HF_DATASETS_OFFLINE": "0"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = json.loads(out.stdout.strip().splitlines()[-1])
    ranked = board.ranked()
    assert rows["submission_id"] == list(ranked.index)
    assert rows["rank"] == ranked["rank"].tolist()
    assert rows["overall"] == pytest.approx(ranked["overall"].tolist())


def test_the_app_on_a_hub_repo_never_shows_or_logs_the_token(hub, tmp_path, full_store_template):
    from test_e2e import free_port, start_app
    files = {str(p.relative_to(full_store_template)): p.read_bytes()
             for p in full_store_template.rglob("*") if p.is_file() and p.name != ".lock" and ".cache" not in p.parts}
    hub.create_repo(REPO, files)
    port, secret = free_port(), hub.token
    env = {**os.environ, "LEADERBOARD_REPO": REPO, "HF_TOKEN": secret, "HF_ENDPOINT": hub.url,
           "HF_HOME": str(tmp_path / "hf"), "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
           "LEADERBOARD_LOG_LEVEL": "DEBUG"}
    env.pop("LEADERBOARD_STORE", None)
    log = tmp_path / "app.log"
    app = start_app(env, log)
    try:
        pages = [urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=30).read().decode()
                 for path in ("", "config", "gradio_api/info")]
        assert "Sumava" in pages[1] or "Sumava" in pages[0]  # the board came from the repo
    finally:
        app.terminate()
        app.wait(timeout=30)
    assert all(secret not in page for page in pages)
    assert secret not in log.read_text()
