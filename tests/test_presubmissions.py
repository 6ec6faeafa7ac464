"""Disclosed pre-submissions and the quotas (issue 23, items 2 and 3): a web pre-submission is
recorded in the store (local journal, one Hub commit on its parent), each model's card and
the table disclose the 30 days before its publication (against a hand count), the records
survive a restart, and pre-submissions and uploads past a quota are refused with when to
retry and nothing stored; through the board, and through a served app's page protocol
and its public API."""
from __future__ import annotations

from support.page_sessions import FORM, PageSession, shown
from support.servers import serve_in_process
from support.stores import tree_digest

from support.page_sessions import presubmit as page_presubmit, publish as page_publish

import functools
import json
import random
import time

import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.reader import follow
from leaderboard.app.limits import PresubmissionQuota, UploadWindow, upload_requester
from leaderboard.temp_disk import LimitReached
from leaderboard.app.signin import SignOuts
from leaderboard.board.state import Leaderboard
from leaderboard.errors import StoreFailure
from leaderboard.storage.hub import HubStore
from leaderboard.storage.local import LocalStore
from leaderboard.storage.presubmissions import (DAY, PRESUBMISSIONS_DIR, PUBLISHER_KEY, PresubmissionRecord,
                                                 client_hash, day_of, disclosure, requester_key)
from leaderboard.strict_json import dump_json
from leaderboard.storage.upload_records import UPLOADS_DIR, UploadLog
from leaderboard.submission.demo import demo_model
from leaderboard.views import details, submission, table as views

NOW = 1_795_000_000.0  # 2026-11-18, a fixed "now" for records made by hand


def preview_of(board, entry, team: str | None = None):
    form, document, _ = entry
    return Publishing(board).presubmit(dump_json(document), {**form, **({"team_name": team} if team else {})})


def record(at: float, team: str, rank: int, of: int, account: str | None = None,
           address: str = "10.0.0.1") -> PresubmissionRecord:
    return PresubmissionRecord(at, account, None if account else client_hash(address), team, "0" * 64, rank, of)


def test_a_pre_submission_is_recorded_and_disclosed_on_the_card_and_in_the_table(small_store, small_documents):
    board, root = small_store, small_store.store.root
    before = {p: p.read_bytes() for p in (root / "data").iterdir()}
    preview = preview_of(board, small_documents[5])
    written = Publishing(board).disclose(preview, "ab" * 32, None, "192.0.2.7")
    lines = (root / PRESUBMISSIONS_DIR / f"{day_of(written.at)}.jsonl").read_bytes().splitlines()
    stored = json.loads(lines[-1])
    assert stored == {"at": stored["at"], "requester": "anonymous", "client": client_hash("192.0.2.7"),
                      "team": preview.metadata.team_name, "file_sha256": "ab" * 32, "rank": preview.rank,
                      "of": len(preview.table)}
    assert "192.0.2.7" not in lines[-1].decode()  # the address only hashed
    assert not any(k in stored for k in ("predictions", "results", "scores"))
    assert {p: p.read_bytes() for p in (root / "data").iterdir()} == before  # nothing published
    assert not list(root.rglob("*.tmp")) and not (root / ".journal.json").exists()
    sid = Publishing(board).publish(preview)
    expected = f"**1** by team {preview.metadata.team_name}, would-be ranks {preview.rank} of {len(preview.table)}"
    assert expected in details.model_card(board, sid)
    table = views.leaderboard_table(board)
    assert table.loc[sid, views.PRESUBMISSIONS] == f"1 (ranks {preview.rank} of {len(preview.table)})"
    assert (table.drop(index=sid)[views.PRESUBMISSIONS] == "0").all()
    # An optional column: hidden by default, shown when chosen.
    assert views.PRESUBMISSIONS not in views.with_model_links(table, board.models, views.DEFAULT_META).columns
    assert views.PRESUBMISSIONS in views.with_model_links(table, board.models, views.SHOWN_META).columns
    # A restart reads the same records.
    reopened = Leaderboard(LocalStore(root), board.benchmark)
    assert reopened.disclosure(sid) == board.disclosure(sid)
    assert expected in details.model_card(reopened, sid)


def test_the_window_and_the_rank_range_match_a_hand_count(small_store, small_documents):
    """Records at random times around a publication, by its team and by others (case
    differing too): the card counts those of its team from 30 days before to the moment
    of publication, as a plain loop over the records does."""
    board = small_store
    rng = random.Random(7)
    published = NOW
    made = []
    for _ in range(60):
        at = published + rng.uniform(-45, 5) * DAY
        team = rng.choice(["Window Team", "window team", "Other Team"])
        made.append(record(at, team, rng.randint(1, 9), rng.randint(6, 8)))
    for r in made:
        board.presubmissions.record(r)
    preview = preview_of(board, small_documents[5], team="Window Team")
    sid = Publishing(board).publish(preview, submitted_at=published)
    mine = [r for r in made if r.team.lower() == "window team" and published - 30 * 86400 <= r.at <= published]
    assert 5 < len(mine) < 50  # the design has records inside and outside the window
    shown_ = board.disclosure(sid)
    assert (shown_.count, shown_.best, shown_.worst, shown_.fewest, shown_.most) == (
        len(mine), min(r.rank for r in mine), max(r.rank for r in mine), min(r.of for r in mine),
        max(r.of for r in mine))
    assert f"**{len(mine)}** by team Window Team" in details.model_card(board, sid)


def test_a_published_account_is_disclosed_by_its_account_not_its_team():
    records = [record(NOW - DAY, "Shared Team", 3, 10, account="alice"),
               record(NOW - 2 * DAY, "Shared Team", 7, 11, account="alice"),
               record(NOW - DAY, "Shared Team", 1, 10, account="mallory"),  # another account, same team name
               record(NOW - DAY, "Shared Team", 2, 10)]  # anonymous
    by_alice = disclosure(records, {"submission_timestamp": NOW, "team_name": "Shared Team", PUBLISHER_KEY: "alice"})
    assert (by_alice.by_account, by_alice.count, by_alice.best, by_alice.worst, by_alice.fewest, by_alice.most) == (
        True, 2, 3, 7, 10, 11)
    assert details.disclosure_text(by_alice) == "**2** by account alice, would-be ranks 3–7 of 10–11"
    by_team = disclosure(records, {"submission_timestamp": NOW, "team_name": "shared team"})
    assert (by_team.by_account, by_team.count) == (False, 4)
    nobody = disclosure(records, {"submission_timestamp": NOW, "team_name": "Shared Team", PUBLISHER_KEY: "bob"})
    assert details.disclosure_text(nobody) == "none recorded by account bob"


def test_the_sample_file_is_not_recorded(small_store):
    board = small_store
    before = tree_digest(board.store.root)
    preview = Publishing(board).presubmit(dump_json(board.sample_document()),
                                         {**demo_model(board.benchmark, 6, 0)[0], "team_name": "Sample"})
    assert preview.is_sample and Publishing(board).disclose(preview, "c" * 64, None, "192.0.2.8") is None
    assert tree_digest(board.store.root) == before


def test_a_record_that_cannot_be_written_says_so_and_keeps_the_preview(small_store, small_documents):
    board, root = small_store, small_store.store.root
    (root / PRESUBMISSIONS_DIR).write_text("a file where the records' folder should be")
    preview = preview_of(board, small_documents[5])
    with pytest.raises(StoreFailure, match=r"\(presubmissions\) failed: File exists; .*nothing was written"):
        Publishing(board).disclose(preview, "d" * 64, None, "192.0.2.9")
    note = submission.disclosure_note(preview, "writing presubmissions/2026-11-23.jsonl failed (Not a directory)")
    assert "could not be recorded" in note and "Not a directory" in note and "preview is shown" in note
    assert Publishing(board).publish(preview) in board.models  # the preview still publishes
    assert not list(root.rglob("*.tmp"))


def test_a_pre_submission_that_fails_is_neither_recorded_nor_counted(small_store, small_documents, tmp_path,
                                                                    monkeypatch):
    """The Submit tab's handler records a pre-submission only once its whole answer is made:
    one that fails on the way (here the would-be ranking's view; the duels' view, which
    failed so on an empty board, issue 32, now follows the answer in an event of its own)
    says so on the page, and leaves no record to count against the quota."""
    import gradio as gr
    from leaderboard.app.signin import SignIn
    from leaderboard.config.settings import Settings
    from support.signin_pages import signin_tab
    board, root = small_store, small_store.store.root
    submit = signin_tab(board, SignIn(Settings.from_environment(), hub_backed=False))
    path = tmp_path / "model.json"
    form, document, _ = small_documents[5]
    path.write_bytes(dump_json(document))

    def broken_view(*args, **kwargs):
        raise RuntimeError("a view failed")
    monkeypatch.setattr(submission, "preview_table", broken_view)
    before = tree_digest(root)
    out = submit.presubmit(form["team_name"], form["model_name"], form["model_type"], form["parameters"],
                           form["input_length"], form["precision"], "", form["link_to_model"], str(path),
                           gr.Request(client={"host": "192.0.2.10"}, session_hash="s"), None)
    assert "could not be pre-submitted" in out[submit.status] and "Nothing was recorded" in out[submit.status]
    assert "RuntimeError" not in out[submit.status]
    assert out[submit.preview_state] is None
    assert tree_digest(root) == before
    assert board.presubmissions.recent(requester_key(None, "192.0.2.10"), DAY, time.time()) == []


def test_the_quota_refuses_with_when_to_retry_and_stores_nothing(small_store):
    """Per requester per hour, per account per 24 hours, counted from the store's records:
    a fresh quota object (a restart) still counts them; a refusal writes nothing."""
    board = small_store
    clock = [NOW]
    quota = PresubmissionQuota(per_hour=3, per_day=5, clock=lambda: clock[0])
    anonymous = requester_key(None, "192.0.2.10")
    for minutes_ago in (50, 20, 10):
        board.presubmissions.record(record(NOW - minutes_ago * 60, "T", 1, 6, address="192.0.2.10"))
    before = tree_digest(board.store.root)
    with pytest.raises(LimitReached) as refused:
        with quota.admitted(board.presubmissions, anonymous, signed_in=False):
            pytest.fail("admitted past the hourly quota")
    assert refused.value.retry_after == pytest.approx(10 * 60)  # the oldest of the hour leaves it in 10 minutes
    assert str(refused.value) == ("Too many pre-submissions from your address: 3 in the last hour (at most 3); "
                                  "try again in 10 minutes")
    assert tree_digest(board.store.root) == before
    with quota.admitted(board.presubmissions, requester_key(None, "192.0.2.11"), signed_in=False):
        pass  # another address is not counted with it
    clock[0] = NOW + 10 * 60 + 1
    with quota.admitted(board.presubmissions, anonymous, signed_in=False):
        pass
    # The daily cap, per account: 5 in 24 hours, spread so that the hour is free.
    alice = requester_key("alice", "192.0.2.12")
    for hours_ago in (23, 20, 12, 6, 3):
        board.presubmissions.record(record(NOW - hours_ago * 3600, "T", 1, 6, account="alice"))
    restarted = PresubmissionQuota(per_hour=3, per_day=5, clock=lambda: NOW)
    with pytest.raises(LimitReached, match=r"^Too many pre-submissions from your account: 5 in the last 24 hours "
                                           r"\(at most 5\); try again in 60 minutes$") as refused:
        with restarted.admitted(Leaderboard(LocalStore(board.store.root), board.benchmark).presubmissions, alice,
                                signed_in=True):
            pass
    assert refused.value.retry_after == pytest.approx(3600)
    # Those under way count too: two at once with one left in the hour, the second refused.
    one_left = PresubmissionQuota(per_hour=1, per_day=5, clock=lambda: NOW)
    with one_left.admitted(board.presubmissions, requester_key(None, "192.0.2.13"), signed_in=False):
        with pytest.raises(LimitReached):
            with one_left.admitted(board.presubmissions, requester_key(None, "192.0.2.13"), signed_in=False):
                pass


def test_uploads_are_counted_per_account_when_signed_in(tmp_path):
    session = {"oauth_info": {"userinfo": {"preferred_username": "alice"}, "expires_at": time.time() + 600}}
    assert upload_requester({"client": ("192.0.2.1", 5), "session": session}) == ("account:alice", "your account")
    expired = {"oauth_info": {"userinfo": {"preferred_username": "alice"}, "expires_at": time.time() - 1}}
    address = (requester_key(None, "192.0.2.1"), "your address")
    assert upload_requester({"client": ("192.0.2.1", 5), "session": expired}) == address
    assert upload_requester({"client": ("192.0.2.1", 5)}) == address
    window = UploadWindow(max_uploads=1, max_bytes=10**9, uploads=UploadLog(LocalStore(tmp_path), 0))
    window.admit("account:alice", 10, "your account")
    with pytest.raises(LimitReached, match="^Too many uploads from your account: 1 in the last hour"):
        window.admit("account:alice", 10, "your account")
    window.admit("account:bob", 10, "your account")  # one address, another account


# --- the Hub store ------------------------------------------------------------------------------

REPO = "czech/leaderboard"


def hub_board(hub, tmp_path, benchmark, name: str) -> Leaderboard:
    return Leaderboard(HubStore(REPO, token=hub.token, endpoint=hub.url, cache_dir=tmp_path / f"cache-{name}",
                                benchmark_name=benchmark.name), benchmark)


def test_hub_records_are_one_commit_each_on_their_parent(hub, tmp_path, small_benchmark, small_documents,
                                                         monkeypatch):
    hub.create_repo(REPO)
    a = hub_board(hub, tmp_path, small_benchmark, "a")
    Publishing(a).publish(preview_of(a, small_documents[0]))
    b = hub_board(hub, tmp_path, small_benchmark, "b")  # another replica
    preview = preview_of(a, small_documents[1])
    commits, head = hub.commits, hub.head(REPO)
    first = Publishing(a).disclose(preview, "e" * 64, "alice", "192.0.2.20", now=NOW)
    assert hub.commits == commits + 1
    changed = hub.repo(REPO).git("diff", "--name-only", head, hub.head(REPO)).decode().split()
    assert changed == [f"{PRESUBMISSIONS_DIR}/{day_of(NOW)}.jsonl"]
    assert a.revision == hub.head(REPO)  # the board follows its own record without a reload
    # Replica b appends while a commits first between b's read and b's commit: the Hub refuses
    # b's commit (its parent is old), b reads the file again and commits on the new head.
    read = b.store._read
    raced = []

    def read_then_race(path):
        data = read(path)
        if path.startswith(PRESUBMISSIONS_DIR) and not raced:
            raced.append(Publishing(a).disclose(preview, "f" * 64, "carol", "192.0.2.21", now=NOW + 1))
        return data
    monkeypatch.setattr(b.store, "_read", read_then_race)
    rejected = hub.rejected
    last = Publishing(b).disclose(preview, "9" * 64, None, "192.0.2.22", now=NOW + 2)
    assert hub.rejected == rejected + 1 and raced
    lines = hub.read(REPO, f"{PRESUBMISSIONS_DIR}/{day_of(NOW)}.jsonl").decode().splitlines()
    assert [json.loads(line)["file_sha256"] for line in lines] == ["e" * 64, "f" * 64, "9" * 64]
    fresh = hub_board(hub, tmp_path, small_benchmark, "c")  # a restart reads them all
    assert [r.file_sha256 for r in fresh.presubmissions.records(NOW - 1, NOW + 3)] == [
        first.file_sha256, raced[0].file_sha256, last.file_sha256]
    # Publishing after the records lands on top of them.
    sid = Publishing(a).publish(preview, submitted_at=NOW + 10)
    assert fresh.refresh(fresh=True) and fresh.disclosure(sid).count == 3  # by team: none signed in published it


def test_hub_upload_records_are_batched_and_shared_by_replicas(hub, tmp_path, small_benchmark):
    """A Hub replica's upload records wait in memory (counted) and go in one commit at most
    every flush interval; another replica, or a restart, counts them once committed; the
    replica's board follows its own commits without a reload."""
    hub.create_repo(REPO)
    board = hub_board(hub, tmp_path, small_benchmark, "a")
    a = UploadLog(board.store, flush_seconds=3600, on_commit=functools.partial(follow, board))
    first = UploadWindow(max_uploads=3, max_bytes=10**9, uploads=a, clock=lambda: NOW)
    client = requester_key(None, "192.0.2.30")
    commits = hub.commits
    first.admit(client, 100)
    first.admit(client, 200)
    assert hub.commits == commits  # not written on the request's path
    a.write_in_background()
    deadline = time.monotonic() + 30
    while (hub.commits == commits or board.revision != hub.head(REPO)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.commits == commits + 1 and board.revision == hub.head(REPO)  # both in one commit, followed
    lines = hub.read(REPO, f"{UPLOADS_DIR}/{day_of(NOW)}.jsonl").decode().splitlines()
    assert [json.loads(line)["bytes"] for line in lines] == [100, 200] and "192.0.2.30" not in "".join(lines)
    first.admit(client, 300)  # within the interval: counted in memory, not committed
    time.sleep(1)
    assert hub.commits == commits + 1
    with pytest.raises(LimitReached, match="^Too many uploads from your address: 3 in the last hour"):
        first.admit(client, 1)
    # Another replica (or this one restarted) counts the committed two: one more is admitted.
    b = UploadLog(hub_board(hub, tmp_path, small_benchmark, "b").store, flush_seconds=3600)
    second = UploadWindow(max_uploads=3, max_bytes=10**9, uploads=b, clock=lambda: NOW + 1)
    second.admit(client, 400)
    with pytest.raises(LimitReached, match="^Too many uploads from your address: 3 in the last hour"):
        second.admit(client, 1)
    second.admit(requester_key(None, "192.0.2.31"), 1)  # another address


# --- a served app ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def quota_server(tmp_path_factory, full_store_template):
    with serve_in_process(tmp_path_factory, full_store_template, presubmissions_per_hour=2) as running:
        yield running


def test_a_served_app_records_refuses_past_the_quota_and_discloses_through_its_api(quota_server, full_benchmark,
                                                                                    tmp_path):
    from gradio_client import Client
    url, store, _, _ = quota_server
    paths = []
    for k in range(3):
        paths.append(tmp_path / f"q{k}.json")
        paths[-1].write_bytes(dump_json(demo_model(full_benchmark, 40 + k, seed=0)[1]))
    session = PageSession(url)
    first = shown(page_presubmit(session, paths[0]))
    assert "would rank" in first and "Recorded as a disclosed pre-submission" in first
    assert "would rank" in shown(page_presubmit(PageSession(url), paths[1]))
    records = [json.loads(line) for f in sorted((store / PRESUBMISSIONS_DIR).glob("*.jsonl"))
               for line in f.read_text().splitlines()]
    assert [r["team"] for r in records] == [FORM[0], FORM[0]] and {r["requester"] for r in records} == {"anonymous"}
    before = tree_digest(store)
    refused = shown(page_presubmit(PageSession(url), paths[2]))
    assert "Not pre-submitted." in refused and "would rank" not in refused
    assert "Too many pre-submissions from your address: 2 in the last hour (at most 2); try again in 60 minutes" in (
        refused)
    assert "Nothing was stored." in refused and tree_digest(store) == before
    assert "Published" in shown(page_publish(session))
    client = Client(url, verbose=False)
    rows = client.predict(api_name="/leaderboard_table")
    published = next(r for r in rows if r["Model"] == f"{FORM[0]}/{FORM[1]}")
    assert published[views.PRESUBMISSIONS].startswith("2 (ranks ")
    card = client.predict(submission_id=published["submission_id"], api_name="/model_details")
    ranks = sorted(r["rank"] for r in records)
    assert card["presubmissions"] == {"by": FORM[0], "by_account": False, "days": 30, "count": 2,
                                      "best_rank": ranks[0], "worst_rank": ranks[1],
                                      "fewest_models": min(r["of"] for r in records),
                                      "most_models": max(r["of"] for r in records)}


def test_a_signed_out_session_is_counted_by_its_address():
    """A saved copy of a signed-out session's cookie neither counts against the account nor
    takes the part of the temporary disk kept for signed-in publishers."""
    signed_out = SignOuts()
    session = {"oauth_info": {"userinfo": {"preferred_username": "alice"}, "access_token": "hf_oauth_alice",
                              "expires_at": time.time() + 600}}
    assert upload_requester({"client": ("192.0.2.1", 5), "session": session}, signed_out)[0] == "account:alice"
    signed_out.add("hf_oauth_alice", time.time() + 600)
    assert upload_requester({"client": ("192.0.2.1", 5), "session": session}, signed_out) == (
        requester_key(None, "192.0.2.1"),
                                                                                              "your address")
