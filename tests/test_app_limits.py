"""The web app against hostile uploads and many anonymous users, through the HTTP requests
its page makes (pre-submission and publication are not public API endpoints, so this
speaks the page's protocol: upload, join the queue, read the event stream): every bad
file of the corpus refused with its message and the store untouched; pre-submissions from
20 sessions keep the server's memory bounded; unit tests of the pre-submission shelf."""
from __future__ import annotations

import html
import json
import os
import re
import time
import uuid
import warnings
import zipfile
from pathlib import Path

import httpx
import pytest

from bad_files import CASE_NAMES, bad_files
from conftest import tree_digest
from leaderboard.demo import demo_model
from leaderboard.previews import PreviewShelf
from leaderboard.store import dump_json
from leaderboard.views.submission import with_abbreviations
from test_e2e import serve

FORM = ["Tester", "Web-1", "chat", 7, 4096, "bfloat16", "", "https://example.com/m"]
MEMORY_BOUND_MB = 300  # growth of the server RSS over 19 more sessions; unbounded previews took ~33 MB each


@pytest.fixture(scope="module")
def server(tmp_path_factory, full_store_template):
    with serve(tmp_path_factory, full_store_template) as running:
        yield running


def shown(markdown: str) -> str:
    """What a reader sees of the app's markdown: escapes removed."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


class PageSession:
    """One browser tab's session with the app, as its page talks to the server: files go
    to /upload, an event joins the queue by its function's index, the result comes on the
    session's event stream. Gradio keeps the page's state (the pre-submission's token)
    per session."""

    def __init__(self, url: str):
        self.url, self.session_hash = url, uuid.uuid4().hex[:11]
        self.http = httpx.Client(base_url=url, timeout=300)
        config = self.http.get("config").json()
        self.functions = {d["api_name"]: d["id"] for d in config["dependencies"] if d.get("api_name")}

    def upload(self, path: Path) -> dict:
        with open(path, "rb") as f:
            response = self.http.post("gradio_api/upload", files={"files": (path.name, f)})
        if response.status_code != 200:
            raise RuntimeError(response.text)
        return {"path": response.json()[0], "orig_name": path.name, "meta": {"_type": "gradio.FileData"}}

    def call(self, function: str, data: list) -> list:
        """The outputs of the event whose function is `function`; RuntimeError on an error."""
        joined = self.http.post("gradio_api/queue/join", json={
            "data": data, "fn_index": self.functions[function], "session_hash": self.session_hash,
            "event_data": None, "trigger_id": None})
        joined.raise_for_status()
        with self.http.stream("GET", "gradio_api/queue/data", params={"session_hash": self.session_hash}) as events:
            for line in events.iter_lines():
                message = json.loads(line[len("data:"):]) if line.startswith("data:") else {}
                if message.get("msg") == "process_completed":
                    if not message.get("success"):
                        raise RuntimeError(message.get("output"))
                    return message["output"]["data"]
        raise RuntimeError("the event stream ended without a result")


def presubmit(session: PageSession, path: Path) -> str:
    """The status and the messages by the form and the file, as one text."""
    status, form_errors, file_errors, *_ = session.call("presubmit", [*FORM, session.upload(path)])
    return "\n".join((status, form_errors, file_errors))


def publish(session: PageSession) -> str:
    """The status after confirming the session's pre-submission."""
    return session.call("publish", [None])[0]


def test_every_bad_file_is_refused_by_the_web_upload(server, new_model_file, full_benchmark, tmp_path):
    url, store, _, _ = server
    session = PageSession(url)
    corpus = bad_files(json.loads(new_model_file.read_text()))
    before = tree_digest(store)
    refused = 0
    for case in CASE_NAMES:
        content, expected = corpus[case]
        path = tmp_path / "upload.json"
        path.write_bytes(content)
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


def test_uploads_and_previews_are_deleted_when_old(tmp_path_factory, full_store_template, new_model_file):
    """With LEADERBOARD_CACHE_SECONDS=3: an upload and its preview are gone a few seconds later."""
    with serve(tmp_path_factory, full_store_template, LEADERBOARD_CACHE_SECONDS="3") as (url, _, _, cache):
        session = PageSession(url)
        assert "would rank" in presubmit(session, new_model_file)  # the preview's token stays in the session
        uploads = lambda: list(cache.rglob(new_model_file.name))  # noqa: E731
        assert uploads()
        deadline = time.monotonic() + 30  # deletion runs every second for files over 3 s old
        while uploads() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert uploads() == []
        assert "expired" in publish(session)


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


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
    file_errors = shown(PageSession(url).call("uploaded", [upload, "", "", None, None, "bfloat16"])[0])
    assert "The archive was not accepted" in file_errors and message in file_errors, file_errors
    assert "/tmp" not in file_errors and str(cache) not in file_errors, file_errors
    assert tree_digest(store) == before
