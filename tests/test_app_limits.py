"""The web app against hostile uploads and many anonymous users, through the HTTP requests
its page makes (pre-submission and publication are not public API endpoints, so this
speaks the page's protocol: upload, join the queue, read the event stream): every bad
file of the corpus refused with its message and the store untouched; pre-submissions from
20 sessions keep the server's memory bounded; unit tests of the pre-submission shelf."""
from __future__ import annotations

from support.archives import UnpackingPeak, unpacked_bytes, zip_bomb
from support.page_sessions import FORM, PageSession, UploadRefused, presubmit, publish, shown
from support.paths import ROOT
from support.servers import serve, serve_in_process
from support.stores import tree_digest

import json
import os
import re
import shutil
import threading
import time
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gradio as gr
import pytest

from bad_files import CASE_NAMES
from harness_logs import DATE_A, write_run
from leaderboard.submission.demo import demo_model
from leaderboard.app.limits import UploadWindow
from leaderboard.temp_disk import MB, LimitReached, TempDiskBudget
from leaderboard.app.previews import PreviewShelf
from leaderboard.app.settings import AppSettings
from leaderboard.config.settings import Settings
from content import lifetime_text
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import dump_json
from leaderboard.storage.upload_records import UploadLog
from leaderboard.views.submission import with_abbreviations
from support.disk_budget import bytes_held

EMPTY_FORM_FROM_LOGS = ["", "", "pretrained", None, None, "bfloat16"]  # team, model, type, length, params, precision
MEMORY_BOUND_MB = 300  # growth of the server RSS over 19 more sessions; unbounded previews took ~33 MB each


@pytest.fixture(scope="module")
def server(tmp_path_factory, full_store_template):
    # The whole corpus and twenty sessions come from one address: the upload bounds out of the way
    # (they have tests of their own below).
    with serve(tmp_path_factory, full_store_template, LEADERBOARD_UPLOADS_PER_HOUR="100000",
               LEADERBOARD_UPLOAD_MB_PER_HOUR="100000", LEADERBOARD_TEMP_DISK_MB="100000") as running:
        yield running


def test_every_bad_file_is_refused_by_the_web_upload(server, bad_file_corpus, full_benchmark):
    url, store, _, _ = server
    session = PageSession(url)
    before = tree_digest(store)
    refused = 0
    for case in CASE_NAMES:
        path, expected = bad_file_corpus[case]
        try:
            status = shown(presubmit(session, path))
        except RuntimeError as e:  # Gradio itself refuses uploads over max_file_size
            assert case == "larger than the limit" and "maximum" in str(e).lower(), (case, e)
            refused += 1
            continue
        expected = with_abbreviations(full_benchmark, expected)  # the page names tasks as the table does
        assert "The submission was not accepted" in status and expected in status, (case, status)
        assert "Traceback" not in status
        refused += 1
    assert refused == len(CASE_NAMES) >= 100
    assert tree_digest(store) == before


def test_twenty_sessions_presubmitting_keep_memory_bounded(server, full_benchmark, tmp_path):
    """Each anonymous session pre-submits a different valid file; the server keeps at
    most 8 previews (the oldest dropped), so its memory stops growing."""
    url, store, pid, _ = server
    paths = []
    for k in range(20):
        _, document, _ = demo_model(full_benchmark, 30 + k, seed=0)
        paths.append(tmp_path / f"m{k}.json")
        paths[-1].write_bytes(dump_json(document))
    first = PageSession(url)
    assert "would rank" in presubmit(first, paths[0])
    before = rss_mb(pid)
    for path in paths[1:]:
        assert "would rank" in presubmit(PageSession(url), path)
    growth = rss_mb(pid) - before
    print(f"server RSS {before:.0f} MB after one pre-submission, +{growth:.0f} MB after 19 more sessions")
    assert growth < MEMORY_BOUND_MB
    assert "expired" in publish(first)  # the first session's preview was evicted


@pytest.fixture(scope="module")
def short_lived_server(tmp_path_factory, full_store_template):
    """The app keeping uploads and pre-submissions 3 seconds (LEADERBOARD_CACHE_SECONDS=3)."""
    with serve_in_process(tmp_path_factory, full_store_template, cache_seconds=3) as running:
        yield running


def test_an_upload_is_deleted_once_old(short_lived_server, new_model_file):
    """With LEADERBOARD_CACHE_SECONDS=3: an upload is kept, then deleted by Gradio's sweep
    (every 3 s, files over 3 s old). The wait is on the cache folder: load delays the
    sweep, and a deadline of minutes only stops a sweep that never comes."""
    url, _, _, cache = short_lived_server
    asked = time.monotonic()
    stored = Path(PageSession(url).upload(new_model_file)["path"])
    if time.monotonic() - asked < 3:  # answered within the 3 s: not yet old enough to go
        assert stored.exists() and stored.is_relative_to(cache)
    deadline = time.monotonic() + 180
    while stored.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not stored.exists()


def test_a_preview_expires(short_lived_server, new_model_file):
    """With LEADERBOARD_CACHE_SECONDS=3: a preview cannot be published once 3 s old. Under
    load a pre-submission can outlive its 3 s upload (swept before the pre-submission
    read it): it is tried again with a new upload, never on another failure."""
    session = PageSession(short_lived_server[0])
    for _ in range(5):
        upload = session.upload(new_model_file)
        try:
            status, *_ = session.call("presubmit", [*FORM, upload])
            break
        except RuntimeError:
            if Path(upload["path"]).exists():  # not the upload's expiry: a real failure
                raise
    assert "would rank" in status
    previewed = time.monotonic()  # the preview's 3 s count from here, or later
    time.sleep(max(0.0, previewed + 3.5 - time.monotonic()))
    assert "expired" in publish(session)


def test_an_upload_that_expired_before_its_pre_submission_says_so(short_lived_server, new_model_file, tmp_path):
    """An upload kept 3 s (LEADERBOARD_CACHE_SECONDS=3) and deleted before Pre-submit ran
    (under load a pre-submission can start late, or run long): the page says the upload
    expired and to upload it again, for a JSON file and for an archive; no bare "Error",
    no server path, nothing stored (issue 32, item 9)."""
    url, store, _, cache = short_lived_server
    archive = zip_of(tmp_path / "logs.zip", [("out/notes.txt", b"no results here")])
    before = tree_digest(store)
    for path in (new_model_file, archive):
        session = PageSession(url)
        upload = session.upload(path)
        deadline = time.monotonic() + 30  # deletion runs every 3 s for files over 3 s old
        while list(cache.rglob(path.name)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not list(cache.rglob(path.name))
        status, form_errors, file_errors, *_ = session.call("presubmit", [*FORM, upload])
        assert "The upload expired after 3 seconds (uploads are kept that long); upload the file again" in \
            shown(file_errors), (status, file_errors)
        assert str(cache) not in file_errors and "cannot read" not in file_errors
    assert tree_digest(store) == before


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def test_the_shelf_keeps_a_preview_as_long_as_the_readme_says():
    now = [0.0]
    shelf = PreviewShelf(clock=lambda: now[0])
    token = shelf.put("a", "preview")
    default = int(re.search(r"`LEADERBOARD_CACHE_SECONDS` \| [^|]+ \| (\d+) \|", (ROOT / "README.md").read_text())[1])
    now[0] = default - 1
    assert shelf.get("a", token) == "preview"
    now[0] = default + 1
    assert shelf.get("a", token) is None


def test_the_page_states_the_configured_lifetime_of_a_pre_submission(short_lived_server):
    """The Submit tab, as a session's first open builds it."""
    page = json.dumps(PageSession(short_lived_server[0]).components)
    assert "kept for 3 seconds" in page and "15 minutes" not in page


def test_apps_built_in_one_process_follow_their_own_settings(small_store, monkeypatch):
    """Each app reads the settings it is built with (the environment's when none are given, read
    then, not at import): two apps of one process keep their own lifetimes and limits."""
    from leaderboard.app.page import build_app
    from support.signin_pages import built_submit_form
    short, default = AppSettings(Settings(cache_seconds=3, temp_disk_mb=8)), AppSettings(Settings())
    pages = {lifetime: build_app(small_store, settings) for lifetime, settings in ((3, short), (900, default))}
    monkeypatch.setenv("LEADERBOARD_CACHE_SECONDS", "7200")
    pages[7200] = build_app(small_store)
    for lifetime, page in pages.items():
        assert page.delete_cache == (min(60, lifetime), lifetime)
        _, form = built_submit_form(page)
        assert any(f"kept for {lifetime_text(lifetime)}" in str(block.value) for block in form.blocks.values()
                   if isinstance(block, gr.Markdown))
    assert short.temp_disk is not default.temp_disk and short.presubmissions is not default.presubmissions


def test_the_first_views_made_in_the_background_join_no_page_being_built(small_store, monkeypatch):
    """Gradio adds a component made anywhere in the process to the page being built then (its
    build context is global). A served page's first views (Details', the pre-submission's, made
    in a background thread) make components: they wait while another page of the process is
    being built, as the tests build several (session 20's whole suite: a stray table in a
    second app's tabs, in the test of replicas' upload counts, which failed that once)."""
    import content
    from leaderboard.app.details_tab import DetailsTab
    from leaderboard.app.head_to_head_tab import HeadToHeadTab
    from leaderboard.app.page import build_app
    from leaderboard.app.submit_tab import SubmitTab
    tabs = (DetailsTab, HeadToHeadTab, SubmitTab)
    started, made, finished = threading.Event(), threading.Event(), []
    for tab in tabs:
        def warm(self, warm_as_built=tab.warm):
            started.set()
            warm_as_built(self)
            finished.append(self)
            if len(finished) == len(tabs):
                made.set()
        monkeypatch.setattr(tab, "warm", warm)
    alone = len(build_app(small_store).blocks)
    served = threading.Event()
    build_app(small_store, warm_after=served)
    intro = content.intro

    def intro_while_the_first_page_is_served(benchmark):  # early in the second page's build
        served.set()
        # a warming thread let through starts within milliseconds: then all its views are made now
        if started.wait(0.5):
            made.wait(60)
        return intro(benchmark)

    monkeypatch.setattr(content, "intro", intro_while_the_first_page_is_served)
    second = build_app(small_store)
    strays = [type(block).__name__ for block in second.blocks.values() if block.elem_id is None
              and isinstance(block, (gr.Dataframe, gr.Button, gr.Dropdown, gr.File))][:5]
    assert len(second.blocks) == alone, f"{len(second.blocks) - alone} blocks made elsewhere, e.g. {strays}"


def test_a_lifetime_is_said_in_seconds_minutes_or_hours():
    assert [lifetime_text(s) for s in (1, 3, 119, 120, 900, 7199, 7200)] == [
        "1 second", "3 seconds", "119 seconds", "2 minutes", "15 minutes", "120 minutes", "2 hours"]


def test_the_shelf_bounds_time_sessions_and_total():
    now = [0.0]
    shelf = PreviewShelf(ttl=10, per_session=1, total=3, clock=lambda: now[0])
    a1 = shelf.put("a", "a1")
    a2 = shelf.put("a", "a2")
    assert shelf.get("a", a1) is None and shelf.get("a", a2) == "a2"  # a session keeps its newest
    assert shelf.get("b", a2) is None  # another session cannot take it
    b, c = shelf.put("b", "b"), shelf.put("c", "c")
    d = shelf.put("d", "d")
    assert len(shelf) == 3 and shelf.get("a", a2) is None  # the oldest anywhere evicted
    now[0] = 11
    assert shelf.get("b", b) is None and len(shelf) == 0  # expired
    shelf.discard("d", d)
    e = shelf.put("e", "e")
    shelf.discard("x", e)
    assert shelf.get("e", e) == "e"
    shelf.discard("e", e)
    assert shelf.get("e", e) is None and c


def zip_of(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name these tests are about
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                z.writestr(name, data)
    return path


@pytest.mark.parametrize("entries, message", [
    ([("run/a.json", b"{}"), ("run/a.json", b"[]")], "'run/a.json' is in the archive twice"),
    ([("run/a", b"x"), ("run/a/b.json", b"{}")], "'run/a' is both a file and a folder"),
    ([("run/" + "x" * 300 + ".json", b"{}")], "has a name part longer than 255 bytes"),
    ([("out/notes.txt", b"none")], "the archive: no harness results"),
], ids=["twice", "file-and-folder", "overlong", "no-results"])
def test_a_bad_archive_is_refused_by_the_upload_handler_without_server_paths(server, tmp_path, entries, message):
    url, store, _, cache = server
    before = tree_digest(store)
    upload = PageSession(url).upload(zip_of(tmp_path / "logs.zip", entries))
    file_errors = shown(PageSession(url).call("uploaded", [upload, *EMPTY_FORM_FROM_LOGS])[0])
    assert "The archive was not accepted" in file_errors and message in file_errors, file_errors
    assert "/tmp" not in file_errors and str(cache) not in file_errors, file_errors
    assert tree_digest(store) == before


def test_an_upload_is_compiled_once_and_pre_submitted_from_that_compile(server, full_benchmark, tmp_path):
    """A .zip of harness output is compiled by the upload's handler (to fill the form in);
    the pre-submission of that upload in the same session uses that compile, not a second
    one. The evidence, without timing or patching: the upload's file on the server's disk is
    replaced by bytes that are no archive once the handler has compiled it, and the
    pre-submission still previews the compiled model."""
    url, _, _, _ = server
    results = write_run(tmp_path / "out", full_benchmark, full_benchmark.task_ids,
                        demo_model(full_benchmark, 77, seed=0)[1], DATE_A)
    archive = zip_of(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                             for p in results.parent.iterdir()])
    session = PageSession(url)
    upload = session.upload(archive)
    assert "Compiled from the harness output" in shown(session.call("uploaded", [upload, *EMPTY_FORM_FROM_LOGS])[0])
    Path(upload["path"]).write_bytes(b"no archive any more")
    status, form_errors, file_errors, *_ = session.call("presubmit", [*FORM, upload])
    assert "would rank" in shown(status), shown(status + form_errors + file_errors)


# --- bounds on uploads: per address and the server's temporary disk ---------------------------

# An address's share of the temporary disk is an eighth of it (18.75 MB): two uploads of
# 8 MB fit in it, and pass the hourly volume.
UPLOADS_PER_HOUR, UPLOAD_MB_PER_HOUR, TEMP_DISK_MB = 3, 16, 150


@pytest.fixture(scope="module")
def bounded_server(tmp_path_factory, full_store_template):
    with serve_in_process(tmp_path_factory, full_store_template, uploads_per_hour=UPLOADS_PER_HOUR,
                          upload_mb_per_hour=UPLOAD_MB_PER_HOUR, temp_disk_mb=TEMP_DISK_MB) as running:
        yield running


def stored(cache: Path, name: str) -> list[Path]:
    return list(cache.rglob(name))


def file_of(path: Path, megabytes: float) -> Path:
    path.write_bytes(os.urandom(int(megabytes * 2**20)))
    return path


def test_uploads_past_the_hourly_count_are_refused_with_when_to_retry(bounded_server, tmp_path):
    url, _, _, cache = bounded_server
    session = PageSession(url, "10.0.0.1")
    for k in range(UPLOADS_PER_HOUR):
        session.upload(file_of(tmp_path / f"count-{k}.json", 0.01))
    with pytest.raises(UploadRefused) as refused:
        session.upload(file_of(tmp_path / "count-over.json", 0.01))
    assert refused.value.status == 429 and refused.value.retry_after, refused.value
    assert str(refused.value) == "Too many uploads from your address: 3 in the last hour; try again in 60 minutes"
    assert stored(cache, "count-over.json") == [] and len(stored(cache, "count-0.json")) == 1
    PageSession(url, "10.0.0.99").upload(file_of(tmp_path / "other.json", 0.01))  # another address is not held up


def test_uploads_past_the_hourly_volume_are_refused_with_when_to_retry(bounded_server, tmp_path):
    url, _, _, cache = bounded_server
    session = PageSession(url, "10.0.0.2")
    session.upload(file_of(tmp_path / "volume-1.json", 8))
    with pytest.raises(UploadRefused) as refused:
        session.upload(file_of(tmp_path / "volume-2.json", 8))
    assert refused.value.status == 429, refused.value
    assert re.fullmatch(r"Too much uploaded from your address: 8 MB in the last hour, 8 MB more would pass the "
                        r"limit of 16 MB; try again in 60 minutes", str(refused.value)), refused.value
    assert stored(cache, "volume-2.json") == []


def test_uploads_past_the_temporary_disk_are_refused_with_when_to_retry(bounded_server, tmp_path):
    """Each from its own address, within its share (an eighth of 150 MB): only the part of the
    temporary disk that visitors without sign-in share (three quarters) bounds them together."""
    url, _, _, cache = bounded_server
    accepted = 0
    for k in range(TEMP_DISK_MB // 15 + 1):
        try:
            PageSession(url, f"10.0.1.{k}").upload(file_of(tmp_path / f"disk-{k}.json", 15))
            accepted += 1
        except UploadRefused as refused:
            assert refused.status == 429, refused
            assert re.fullmatch(r"The upload needs 15 MB of temporary space and the share of visitors without sign-in "
                                r"is in use \(\d+ MB of 112 MB\); try again in 1[56] minutes", str(refused)), refused
            assert stored(cache, f"disk-{k}.json") == []
            break
    else:
        pytest.fail("every upload was taken")
    assert 1 <= accepted <= TEMP_DISK_MB * 3 // 4 // 15


BOMB_MB, BOMBS = 100, 6


def test_zip_bombs_unpacked_at_once_stay_within_the_temporary_disk(tmp_path_factory, full_store_template, tmp_path):
    """Six sessions upload a 100 MB zip bomb each and the server compiles them at the same
    time, with 150 MB of temporary disk: the unpacking folders' measured peak stays within
    it, and what did not fit is told when to retry."""
    unpacking = tmp_path_factory.mktemp("unpacking")
    with serve(tmp_path_factory, full_store_template, LEADERBOARD_TEMP_DISK_MB=str(TEMP_DISK_MB),
               TMPDIR=str(unpacking)) as (url, store, _, _):
        bomb = zip_bomb(tmp_path / "bomb.zip", BOMB_MB)
        sessions = [PageSession(url, f"10.0.2.{k}") for k in range(BOMBS)]
        uploads = [s.upload(bomb) for s in sessions]
        with UnpackingPeak(unpacking) as sampled, ThreadPoolExecutor(BOMBS) as pool:
            answers = list(pool.map(lambda s, u: shown(s.call("uploaded", [u, *EMPTY_FORM_FROM_LOGS])[0]),
                                    sessions, uploads))
    peak = sampled.bytes
    print(f"{BOMBS} zip bombs of {BOMB_MB} MB compiled at once: temporary folder peak {peak / 2**20:.0f} MB "
          f"(bound {TEMP_DISK_MB} MB); {sum('try again' in a for a in answers)} told to retry")
    assert peak <= TEMP_DISK_MB * 2**20, peak
    unpacked = [a for a in answers if "the archive: no harness results" in a]
    busy = [a for a in answers if re.search(r"Unpacking the archive needs 100 MB of temporary space and the server's "
                                            r"is in use by other uploads \(\d+ MB of 150 MB\); try again in 1 minute", a)]
    assert unpacked and len(unpacked) + len(busy) == BOMBS, answers
    assert unpacked_bytes(unpacking) == 0


def test_the_upload_window_and_the_disk_budget_say_when_to_retry(tmp_path):
    now = [0.0]
    window = UploadWindow(max_uploads=2, max_bytes=100 * MB, uploads=UploadLog(LocalStore(tmp_path), 0),
                          clock=lambda: now[0])
    window.admit("a", 10 * MB)
    now[0] = 600
    window.admit("a", 10 * MB)
    with pytest.raises(LimitReached, match="2 in the last hour; try again in 50 minutes"):
        window.admit("a", MB)
    window.admit("b", 90 * MB)
    with pytest.raises(LimitReached, match="90 MB in the last hour, 20 MB more would pass the limit of 100 MB"):
        window.admit("b", 20 * MB)
    with pytest.raises(LimitReached, match="The upload is 101 MB, more than the 100 MB an address may upload"):
        window.admit("c", 101 * MB)
    now[0] = 3601
    window.admit("a", MB)  # the first upload left the window
    disk = TempDiskBudget(100 * MB, clock=lambda: now[0])
    disk.reserve(60 * MB, "An upload", seconds=300)
    unpacking = disk.reserve(30 * MB, "Unpacking the archive")
    with pytest.raises(LimitReached, match=r"\(90 MB of 100 MB\); try again in 5 minutes") as e:
        disk.reserve(20 * MB, "The upload", seconds=300)
    assert e.value.retry_after == 300
    disk.release(unpacking)
    now[0] += 100
    disk.reserve(20 * MB, "The upload", seconds=300)
    now[0] += 200
    assert bytes_held(disk) == 20 * MB  # the first upload's time is over; the last holds until its own


# --- the temporary disk shared fairly: a share per client, the anonymous visitors' part, reads release ---

SHARED_DISK_MB, CHUNK_MB = 80, 4  # an eighth of 80 MB: a client's share is 10 MB, two 4 MB uploads


# what the app derives from the board's data in the background after its start (the
# snapshot, the dataset card, the per-model arrays cache of storage/local.py)
DERIVED = ("leaderboard.parquet", "README.md", ".cache")


@pytest.fixture(scope="module")
def shared_disk_server(tmp_path_factory, full_store_template):
    """Only the temporary disk bounds these uploads: the hourly bounds out of the way."""
    with serve_in_process(tmp_path_factory, full_store_template, temp_disk_mb=SHARED_DISK_MB, uploads_per_hour=1000,
                          upload_mb_per_hour=100000) as running:
        yield running


def take_all_allowed(session: PageSession, folder: Path, name: str) -> tuple[list[dict], UploadRefused]:
    """Different files of CHUNK_MB uploaded by `session` until one is refused: (the uploads, the refusal)."""
    uploads = []
    for k in range(SHARED_DISK_MB // CHUNK_MB + 1):
        try:
            uploads.append(session.upload(file_of(folder / f"{name}-{k}.json", CHUNK_MB)))
        except UploadRefused as refused:
            return uploads, refused
    pytest.fail(f"{name}: every upload was taken")


def test_five_clients_taking_all_they_may_leave_room_for_a_sixth(shared_disk_server, tmp_path):
    url, _, _, cache = shared_disk_server
    for k in range(5):
        uploads, refused = take_all_allowed(PageSession(url, f"10.0.3.{k}"), tmp_path, f"greedy-{k}")
        assert len(uploads) == 2 and refused.status == 429, (k, len(uploads), refused)
        assert re.fullmatch(r"The upload needs 4 MB of temporary space and your address's share of it is in use "
                            r"\(8 MB of 10 MB\); try again in 1[56] minutes", str(refused)), refused
        assert stored(cache, f"greedy-{k}-2.json") == []
    PageSession(url, "10.0.3.99").upload(file_of(tmp_path / "sixth.json", 0.01))


def test_an_upload_read_by_a_pre_submission_no_longer_holds_the_share(shared_disk_server, tmp_path):
    """Refused as bad input or pre-submitted, the file has been read: its space is the client's again."""
    url, store, _, _ = shared_disk_server
    # the board's data, not what the app derives in the background after its start (with
    # the intervals: seconds under the suite's load), which this test does not cause
    before = tree_digest(store, exclude=DERIVED)
    session = PageSession(url, "10.0.4.1")
    uploads, _ = take_all_allowed(session, tmp_path, "read")
    status = "\n".join(session.call("presubmit", [*FORM, uploads[0]])[:3])
    assert "The submission was not accepted" in status, status
    session.upload(file_of(tmp_path / "after-read.json", CHUNK_MB))
    assert tree_digest(store, exclude=DERIVED) == before


def test_the_disk_shares_of_clients_and_of_visitors_without_sign_in():
    now = [0.0]
    disk = TempDiskBudget(80 * MB, clock=lambda: now[0])
    for k in range(6):  # six anonymous addresses take their whole share: 60 MB, the anonymous visitors' part
        disk.reserve(10 * MB, "The upload", seconds=600, client=(f"10.0.0.{k}", "your address"))
    with pytest.raises(LimitReached, match=r"^The upload needs 1 MB of temporary space and the share of visitors "
                                           r"without sign-in is in use \(60 MB of 60 MB\); try again in 10 minutes$"):
        disk.reserve(MB, "The upload", seconds=600, client=("10.0.0.99", "your address"))
    disk.reserve(10 * MB, "The upload", seconds=600, client=("account:alice", "your account"))  # not starved
    with pytest.raises(LimitReached, match=r"^The upload needs 1 MB of temporary space and your account's share of "
                                           r"it is in use \(10 MB of 10 MB\); try again in 10 minutes$"):
        disk.reserve(MB, "The upload", seconds=600, client=("account:alice", "your account"))
    with pytest.raises(LimitReached, match=r"^The upload is 11 MB, more than the 10 MB of temporary space one "
                                           r"address may hold"):
        disk.reserve(11 * MB, "The upload", seconds=600, client=("10.0.9.9", "your address"))


def test_identical_bytes_are_reserved_once_and_a_read_upload_is_released():
    disk = TempDiskBudget(80 * MB)
    first = disk.reserve(8 * MB, "The upload", seconds=600, client=("10.0.0.1", "your address"))
    disk.stored(first, ["/cache/abc/sample.json"])
    again = disk.reserve(8 * MB, "The upload", seconds=600, client=("10.0.0.2", "your address"))
    assert bytes_held(disk) == 16 * MB  # before its bytes are read, an upload may be anything
    disk.stored(again, ["/cache/abc/sample.json"])  # Gradio stored the same bytes at the same path
    assert bytes_held(disk) == 8 * MB
    disk.release_file("/cache/abc/sample.json")
    assert bytes_held(disk) == 0
    disk.release_file("/cache/abc/sample.json")  # read twice: nothing more to release
    assert bytes_held(disk) == 0


def test_the_upload_count_is_shared_by_replicas_and_survives_a_restart(tmp_path_factory, full_store_template,
                                                                      tmp_path):
    """Two apps on one store (replicas of one board) count one address's uploads together;
    an app started again on the store still counts them. The store keeps only hashes of
    addresses."""
    store = tmp_path_factory.mktemp("replicas") / "store"
    shutil.copytree(full_store_template, store)
    bounds = dict(uploads_per_hour=2, store=store)
    with serve_in_process(tmp_path_factory, full_store_template, **bounds) as (first, *_), \
            serve_in_process(tmp_path_factory, full_store_template, **bounds) as (second, *_):
        PageSession(first, "10.0.6.1").upload(file_of(tmp_path / "replica-1.json", 0.01))
        PageSession(second, "10.0.6.1").upload(file_of(tmp_path / "replica-2.json", 0.01))
        for url in (first, second):
            with pytest.raises(UploadRefused, match="^Too many uploads from your address: 2 in the last hour; "
                                                    "try again in 60 minutes$"):
                PageSession(url, "10.0.6.1").upload(file_of(tmp_path / "replica-3.json", 0.01))
    with serve_in_process(tmp_path_factory, full_store_template, **bounds) as (restarted, *_):
        with pytest.raises(UploadRefused, match="^Too many uploads from your address: 2 in the last hour"):
            PageSession(restarted, "10.0.6.1").upload(file_of(tmp_path / "restarted.json", 0.01))
        PageSession(restarted, "10.0.6.2").upload(file_of(tmp_path / "another.json", 0.01))
    assert "10.0.6.1" not in "".join(p.read_text() for p in store.rglob("*.jsonl"))
