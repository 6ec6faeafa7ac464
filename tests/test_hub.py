"""The Hub store end to end: the real huggingface_hub client against a local Hub server
(tests/fake_hub.py) over real git repositories (and `datasets.load_dataset` on a local
store beside a Hub repo's). Nothing here reaches the internet."""
from __future__ import annotations

from support.hub_replicas import REPO, preview, replica
from support.hub_repos import hub_repo_files
from support.reference_layout import reference_layout_store
from support.stores import SMALL_TASKS, duel_frame, publish_all

import base64
import io
import json
import math
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard, HfApi
from huggingface_hub.errors import HfHubHTTPError

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.config.tasks import load_benchmark
from leaderboard.storage import store_index
from leaderboard.storage.dataset_card import RANKING_CONFIG, card_update
from leaderboard.storage.hub import HubStore
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import SNAPSHOT_FILE, TOURNAMENT_FILE
from leaderboard.strict_json import dump_json
from leaderboard.submission.metadata import validate_metadata
from leaderboard.submission.parsing import parse_submission
from leaderboard.errors import StoreFailure

ROOT = Path(__file__).resolve().parent.parent


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
    assert Publishing(board).refresh_intervals() and SNAPSHOT_FILE in hub.files(REPO)  # written after, with intervals
    # A new replica starts from the committed arrays, without parsing a submission file.
    monkeypatch.setattr("leaderboard.board.state.parse_submission", lambda *a, **k: pytest.fail("parsed a file"))
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    pd.testing.assert_frame_equal(fresh.ranked(), board.ranked())


def test_the_fake_hub_is_as_strict_as_the_hub(hub, tmp_path, small_benchmark, small_documents):
    """fake_hub.py keeps the Hub's rules the tests rely on: binary files only through LFS
    (a regular upload of one refused), LFS files stored as pointers and listed with their
    sha256, and the repo calls huggingface_hub makes (create_repo, create_branch, refs, the
    commit listing, whoami with the API token) answered."""
    api = HfApi(endpoint=hub.url, token=hub.token)
    assert api.create_repo(REPO, repo_type="dataset").repo_id == REPO
    lines = [{"key": "header", "value": {"summary": "x"}},  # a binary file sent as a regular one
             {"key": "file", "value": {"path": "arrays/x.npz", "content": base64.b64encode(b"PK\0\0").decode(),
                                       "encoding": "base64"}}]
    request = urllib.request.Request(f"{hub.url}/api/datasets/{REPO}/commit/main", method="POST",
                                     data="\n".join(map(json.dumps, lines)).encode(),
                                     headers={"Authorization": f"Bearer {hub.token}",
                                              "Content-Type": "application/x-ndjson"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 400 and b"binary files" in refused.value.read()
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    listed = {e.path: e for e in api.list_repo_tree(REPO, repo_type="dataset", recursive=True) if hasattr(e, "lfs")}
    binary = [p for p in listed if p.endswith((".npz", ".parquet", ".zip"))]
    assert binary and all(listed[p].lfs is not None for p in binary)
    assert all(listed[p].lfs is None for p in listed if p.startswith("data/"))  # text files stay regular
    assert hub.read(REPO, binary[0])[:4] == b"PK\x03\x04" or hub.read(REPO, binary[0])[:4] == b"PAR1"
    commits = api.list_repo_commits(REPO, repo_type="dataset")
    assert len(commits) == 2 + hub.commits and commits[0].commit_id == hub.head(REPO)
    api.create_branch(REPO, repo_type="dataset", branch="before")
    with pytest.raises(HfHubHTTPError):
        api.create_branch(REPO, repo_type="dataset", branch="before")
    refs = api.list_repo_refs(REPO, repo_type="dataset")
    assert {(b.name, b.target_commit) for b in refs.branches} == {("main", hub.head(REPO)), ("before", hub.head(REPO))}
    assert api.whoami()["name"] == hub.token_account
    with pytest.raises(HfHubHTTPError):
        api.create_repo(REPO, repo_type="dataset")  # it exists


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
            published.append(Publishing(a).publish(racing))
        return commit(publication, parent=parent)

    b.store.publish = a_commits_first
    second = Publishing(b).publish(waiting)
    first = published[0]
    assert hub.rejected == 1  # b's first attempt was refused (HTTP 412), then retried
    fresh = replica(hub, tmp_path, small_benchmark, "c")
    assert {first, second} <= set(fresh.models)
    assert fresh.tournament.has_dueled(second, first) and fresh.tournament.has_dueled(first, second)
    assert Administration(fresh).check() == []


def test_two_replicas_publishing_at_once_both_land(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    seed = replica(hub, tmp_path, small_benchmark, "seed")
    publish_all(seed, small_documents[:3])
    boards = [replica(hub, tmp_path, small_benchmark, name) for name in ("a", "b")]
    previews = [preview(board, small_documents[3 + k]) for k, board in enumerate(boards)]
    start, results = threading.Barrier(2), {}

    def publish(k):
        start.wait()
        results[k] = Publishing(boards[k]).publish(previews[k])

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
    assert Administration(fresh).check() == []


def test_a_failed_commit_changes_nothing(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:2])
    head, files, ranked = hub.head(REPO), hub.files(REPO), board.ranked().copy()
    waiting = preview(board, small_documents[2])
    hub.fail_next_commits = 1
    with pytest.raises(StoreFailure, match="nothing was published"):
        Publishing(board).publish(waiting)
    assert hub.head(REPO) == head and hub.files(REPO) == files
    pd.testing.assert_frame_equal(board.ranked(), ranked)
    assert Publishing(board).publish(waiting) in replica(hub, tmp_path, small_benchmark, "b").models  # and it can be retried


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
    sid = Publishing(a).publish(preview(a, small_documents[2]))
    assert reloaded.wait(timeout=60)  # a limit for a hung poller, not a speed expectation
    assert sid in b.models
    pd.testing.assert_frame_equal(b.ranked(), a.ranked())


def test_remove_is_one_commit_and_check_reports_problems(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:4])
    gone = board.ranked().index[1]
    commits = hub.commits
    Administration(board).remove(gone, reason="results were leaked")
    assert hub.commits == commits + 1
    assert not any(gone in f for f in hub.files(REPO))
    for name in (f for f in hub.files(REPO) if f.startswith("duels/")):
        table = pq.read_table(io.BytesIO(hub.read(REPO, name)))
        assert gone not in set(table["first"].to_pylist()) | set(table["second"].to_pylist())
    assert "results were leaked" in subprocess.run(
        ["git", "--git-dir", str(hub.root / f"{REPO}.git"), "log", "-1", "--format=%s"],
        capture_output=True, text=True).stdout
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    assert gone not in fresh.models and Administration(fresh).check() == []
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
    problems = Administration(replica(hub, tmp_path, small_benchmark, "c")).check()
    assert any("missing duels" in p for p in problems) and any("ghost_model" in p for p in problems)
    fixed = replica(hub, tmp_path, small_benchmark, "d")
    assert Administration(fixed).rebuild().dueled >= 1 and Administration(fixed).check() == []


def loaded_ranking(path: str, env: dict) -> dict:
    """`datasets.load_dataset(path)`'s rows as a user loads them (a fresh process: the Hub's
    address is read at import): {column: values} of submission_id, rank and overall."""
    script = ("import datasets, json; d = datasets.load_dataset(%r, split='train'); "
              "print(json.dumps(d.to_pandas()[['submission_id', 'rank', 'overall']].to_dict('list')))" % path)
    out = subprocess.run([sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_is_the_ranking(rows: dict, board) -> None:
    ranked = board.ranked()
    assert rows["submission_id"] == list(ranked.index)  # one row per published model, best first
    assert rows["rank"] == ranked["rank"].tolist()
    assert rows["overall"] == pytest.approx(ranked["overall"].tolist())


def hub_env(hub, tmp_path) -> dict:
    return {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0"}


def test_load_dataset_returns_the_ranking(hub, tmp_path, small_benchmark, small_documents):
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:4])
    assert Publishing(board).refresh_intervals()  # as the app does after a publication
    assert_is_the_ranking(loaded_ranking(REPO, hub_env(hub, tmp_path)), board)


MAINTAINERS_CARD = b"""---
license: cc-by-4.0
---
# Our board

The maintainers' own words about the benchmark.
"""


def test_load_dataset_returns_the_ranking_of_a_repo_that_had_a_card(hub, tmp_path, small_benchmark,
                                                                     small_documents):
    """A repo made with its own README.md (the Hub's form offers one): the card keeps the
    maintainers' text and front matter and gains the `configs` that point at the ranking."""
    hub.create_repo(REPO, {"README.md": MAINTAINERS_CARD})
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:3])
    assert Publishing(board).refresh_intervals()
    assert_is_the_ranking(loaded_ranking(REPO, hub_env(hub, tmp_path)), board)
    card = hub.read(REPO, "README.md").decode()
    assert "license: cc-by-4.0" in card and card.endswith(MAINTAINERS_CARD.decode().split("---\n", 2)[2])


def test_a_card_gains_the_ranking_config_keeping_the_maintainers_own_and_a_broken_one_is_left(caplog):
    """`card_update` on the cards a maintainer may have written: their other configs and text
    kept, a card already right or not readable as one (logged) not rewritten."""
    theirs = b"---\nconfigs:\n- config_name: raw\n  data_files: data/*.json\n---\nText.\n"
    updated = card_update(theirs, "Bench")
    assert DatasetCard(updated.decode()).data["configs"] == [RANKING_CONFIG, {"config_name": "raw",
                                                                              "data_files": "data/*.json"}]
    assert updated.endswith(b"Text.\n") and card_update(updated, "Bench") is None
    assert card_update(card_update(None, "Bench"), "Bench") is None
    assert b"# Bench duel leaderboard" in card_update(None, "Bench")
    assert card_update(b"---\nkey: [unclosed\n---\nText.\n", "Bench") is None
    assert "not a dataset card that can be read" in caplog.text


def test_load_dataset_returns_the_ranking_of_a_local_store(small_store, tmp_path):
    """The local store's folder, as `python app.py` or the CLI leave it."""
    board = small_store
    assert Publishing(board).refresh_intervals()
    assert_is_the_ranking(loaded_ranking(str(board.store.root), {"HF_HOME": str(tmp_path / "hf")}), board)


def test_the_app_on_a_hub_repo_never_shows_or_logs_the_token(hub, tmp_path, full_store_template):
    from support.servers import free_port, start_app
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


# --- a new replica starts from the index (store_index.py) ----------------------------------

INDEXED_MODELS = 20


@pytest.fixture(scope="module")
def panel_benchmark(tmp_path_factory):
    """The small benchmark with a panel of 6: a pre-submission duels a few of 20 models."""
    path = tmp_path_factory.mktemp("panel6") / "tasks.json"
    path.write_text(json.dumps({**SMALL_TASKS, "top_opponents": 6}))
    return load_benchmark(path)


@pytest.fixture(scope="module")
def board_of_20(tmp_path_factory, panel_benchmark) -> tuple[Path, dict[str, bytes]]:
    """A local store of 20 demo models, and its repo files as 20 publications leave them."""
    root = tmp_path_factory.mktemp("board20") / "store"
    build_demo_store(root, INDEXED_MODELS, seed=0, benchmark=panel_benchmark)
    return root, hub_repo_files(root, panel_benchmark)


def new_document(benchmark):
    designs = {t.id: task_design(t, 0) for t in benchmark.tasks}
    form, document, _ = demo_model(benchmark, INDEXED_MODELS, 0, designs)
    return dump_json(document), form


def test_a_new_replica_starts_from_the_index_without_any_arrays(hub, tmp_path, panel_benchmark, board_of_20):
    root, files = board_of_20
    segments = store_index.segment_paths(files)
    sizes = [int(p.rsplit("-", 1)[1].removesuffix(".zip")) for p in segments]
    # Merged as a binary counter: each segment holds more entries than all newer ones.
    assert 1 < len(segments) <= math.log2(sum(sizes) + 1)
    assert all(size > sum(sizes[k + 1:]) for k, size in enumerate(sizes))
    assert sum(sizes) == sum(p.startswith(("data/", "duels/")) for p in files)  # every model and duel file once
    hub.create_repo(REPO, files)
    board = replica(hub, tmp_path, panel_benchmark, "a")
    ranked = board.ranked()
    # The repo's info and file list, then each segment (the client's HEAD and GET).
    assert hub.requests <= 2 + 2 * len(segments)
    assert set(hub.downloaded) == set(segments)
    local = Leaderboard(LocalStore(root), panel_benchmark)
    pd.testing.assert_frame_equal(ranked, local.ranked())
    pd.testing.assert_frame_equal(duel_frame(board), duel_frame(local))
    assert {sid: m.metadata for sid, m in board.models.items()} == {sid: m.metadata for sid, m in local.models.items()}


def test_a_presubmission_downloads_only_the_arrays_its_duels_need(hub, tmp_path, panel_benchmark, board_of_20):
    """...in parallel, and previews as a replica holding every model's arrays does."""
    _, files = board_of_20
    hub.create_repo(REPO, files)
    hub.create_repo("czech/without-index", {p: d for p, d in files.items() if not p.startswith("index/")})
    lazy = replica(hub, tmp_path, panel_benchmark, "lazy")
    document, form = new_document(panel_benchmark)
    hub.downloaded.clear()
    preview = Publishing(lazy).presubmit(document, form)
    fetched = {p for p in hub.downloaded if p.startswith("arrays/")}
    assert {f"arrays/{sid}.npz" for sid in preview.opponents} <= fetched and len(fetched) < INDEXED_MODELS / 2
    assert set(hub.downloaded) == fetched
    every = Leaderboard(HubStore("czech/without-index", panel_benchmark.name, endpoint=hub.url,
                                 cache_dir=tmp_path / "cache-every"), panel_benchmark)
    assert sum(p.startswith("arrays/") for p in hub.downloaded) == len(fetched) + INDEXED_MODELS
    expected = Publishing(every).presubmit(document, form)
    pd.testing.assert_frame_equal(preview.table, expected.table)
    assert preview.opponents == expected.opponents and preview.panel == expected.panel


def test_a_publication_extends_the_index_and_another_replica_reads_it(hub, tmp_path, panel_benchmark, board_of_20):
    _, files = board_of_20
    hub.create_repo(REPO, files)
    a, b = replica(hub, tmp_path, panel_benchmark, "a"), replica(hub, tmp_path, panel_benchmark, "b")
    commits = hub.commits
    sid = Publishing(a).publish(Publishing(a).presubmit(*new_document(panel_benchmark)))
    assert hub.commits == commits + 1
    segments = store_index.segment_paths(hub.files(REPO))
    assert len(segments) <= math.log2(2 * (INDEXED_MODELS + 1) + 1)
    assert b.refresh(fresh=True) and sid in b.models
    pd.testing.assert_frame_equal(b.ranked(), a.ranked())
    hub.downloaded.clear()
    c = replica(hub, tmp_path, panel_benchmark, "c")
    assert set(hub.downloaded) == set(segments)  # the new model and its duels came from the index
    pd.testing.assert_frame_equal(c.ranked(), a.ranked())
    pd.testing.assert_frame_equal(duel_frame(c), duel_frame(a))


def test_a_duel_file_changed_by_hand_is_read_instead_of_its_index_entry(hub, tmp_path, panel_benchmark, board_of_20):
    _, files = board_of_20
    hub.create_repo(REPO, files)
    owner = max((p for p in files if p.startswith("duels/")), key=lambda p: len(files[p]))
    table = pq.read_table(io.BytesIO(files[owner]))
    sink = io.BytesIO()
    pq.write_table(table.slice(0, 2), sink)
    hub.repo(REPO).commit(hub.head(REPO), {owner: sink.getvalue()}, [], "by hand")
    board = replica(hub, tmp_path, panel_benchmark, "a")
    assert owner in hub.downloaded
    local_rows = sum(pq.read_table(io.BytesIO(files[p])).num_rows for p in files if p.startswith("duels/"))
    assert len(duel_frame(board)) == local_rows - (table.num_rows - 2)


def test_the_first_write_to_a_repo_without_an_index_indexes_the_whole_board(hub, tmp_path, panel_benchmark,
                                                                              board_of_20):
    """A repo written before the index existed: read file by file once, indexed by the next write."""
    _, files = board_of_20
    hub.create_repo(REPO, {p: d for p, d in files.items() if not p.startswith("index/")})
    a = replica(hub, tmp_path, panel_benchmark, "a")
    assert sum(p.startswith("arrays/") for p in hub.downloaded) == INDEXED_MODELS
    Publishing(a).publish(Publishing(a).presubmit(*new_document(panel_benchmark)))
    segments = store_index.segment_paths(hub.files(REPO))
    assert len(segments) == 1
    hub.downloaded.clear()
    b = replica(hub, tmp_path, panel_benchmark, "b")
    assert hub.downloaded == segments
    pd.testing.assert_frame_equal(b.ranked(), a.ranked())
    pd.testing.assert_frame_equal(duel_frame(b), duel_frame(a))


def test_publish_all_into_a_hub_repo_is_one_commit_of_a_local_stores_files(hub, tmp_path, small_benchmark,
                                                                            small_documents):
    """`publish_all` (how a demo or a bulk import is written) into a Hub repo: one commit,
    the files a local store gets, and a new replica ranks as the local board does."""
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    local = Leaderboard(LocalStore(tmp_path / "local"), small_benchmark)

    def submissions():
        for form, document, submitted_at in small_documents[:4]:
            yield validate_metadata(**form), parse_submission(dump_json(document), small_benchmark), submitted_at
    commits = hub.commits
    ids = Publishing(board).publish_all(submissions(), count=4)
    assert hub.commits == commits + 1
    assert Publishing(local).publish_all(submissions(), count=4) == ids
    root = local.store.root
    local_files = sorted(str(p.relative_to(root)) for folder in ("data", "duels", "titles") for p in (root / folder).iterdir())
    assert [path for path in local_files + [SNAPSHOT_FILE] if hub.read(REPO, path) != (root / path).read_bytes()] == []
    assert {f"arrays/{sid}.npz" for sid in ids} <= set(hub.files(REPO))
    fresh = replica(hub, tmp_path, small_benchmark, "b")
    pd.testing.assert_frame_equal(fresh.ranked(), local.ranked())
    assert Administration(fresh).check() == [] and Administration(fresh).stale_snapshot() is None
