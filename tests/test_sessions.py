"""The sessions the app keeps (leaderboard/app/sessions.py): a session is let go once no page
holds its heartbeat and it has run no event for the idle time; an open page's session is kept
however long it idles; a page that comes back after its session was let go is asked to reload
for the tabs built for it (Gradio's page shows that message for a queued event only), and
its page's own events still work. The rule on a clock of the
test's own; then a real Gradio page with a tab built by `gr.render`, in Chromium, two
visitors at once; then the app itself."""
from __future__ import annotations

import re
import time

import gradio as gr
import httpx
import pytest
from playwright.sync_api import expect
from starlette.middleware import Middleware

from support.pages import DESKTOP, PHONE, choose, close, open_page
from support.servers import free_port, serve_in_process

from leaderboard.app import gradio_compat
from leaderboard.app.sessions import LET_GO, Heartbeats, KeepSessions
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore

IDLE = 600.0


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SkippingClock:
    """The wall clock (as Gradio's record of a session's last event reads it), plus the
    seconds skipped: a served page idles past the idle time without the test waiting."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.time() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


def keep_sessions(page, heartbeats: Heartbeats) -> Middleware:
    return Middleware(KeepSessions, page=page, idle_seconds=IDLE, heartbeats=heartbeats)


def test_a_session_no_page_holds_is_gone_once_idle_for_longer_than_the_idle_time():
    clock = Clock()
    beats = Heartbeats(clock)
    beats.opened("left")
    clock.now += 5
    beats.closed("left")  # its page closed at 1005; its last event ran at 1002
    assert beats.gone({"left": 1002.0}, IDLE) == []
    clock.now = 1005 + IDLE
    assert beats.gone({"left": 1002.0}, IDLE) == []  # exactly the idle time: kept
    clock.now += 0.5
    assert beats.gone({"left": 1002.0}, IDLE) == ["left"]
    assert beats.gone({"left": clock.now - 1}, IDLE) == []  # an event ran since: kept


def test_a_session_whose_page_stays_open_is_never_gone_however_long_it_idles():
    clock = Clock()
    beats = Heartbeats(clock)
    beats.opened("open")
    beats.opened("open")  # a second stream for it (a reconnection before the old one ended)
    beats.closed("open")
    clock.now += 100 * IDLE
    assert beats.gone({"open": 0.0}, IDLE) == []
    beats.closed("open")
    clock.now += IDLE + 1
    assert beats.gone({"open": 0.0}, IDLE) == ["open"]


def test_a_session_that_never_held_a_heartbeat_is_gone_once_its_last_event_is_old():
    """An API client's session: no page, no heartbeat."""
    clock = Clock()
    beats = Heartbeats(clock)
    assert beats.gone({"client": clock.now - IDLE - 1, "recent": clock.now - 1}, IDLE) == ["client"]


def test_the_heartbeats_of_sessions_no_longer_kept_are_forgotten():
    clock = Clock()
    beats = Heartbeats(clock)
    for session in ("a", "b"):
        beats.opened(session)
        beats.closed(session)
    beats.gone({"a": clock.now}, IDLE)  # b is no longer kept (let go, or evicted by Gradio)
    assert set(beats.ended) == {"a"}


def test_heartbeat_paths_are_told_apart_from_other_routes():
    assert gradio_compat.heartbeat_session("/gradio_api/heartbeat/ab12cd") == "ab12cd"
    assert gradio_compat.heartbeat_session("/prefix/gradio_api/heartbeat/ab12cd") == "ab12cd"
    for path in ("/gradio_api/heartbeat/", "/gradio_api/heartbeat/a/b", "/gradio_api/queue/join", "/"):
        assert gradio_compat.heartbeat_session(path) is None


def built_tab_page():
    """A page with a tab built for its session by gr.render (as the app's Details and others are),
    and an event of the page itself; a State, as the app's page has, makes the page hold its
    session's heartbeat."""
    with gr.Blocks() as page:
        gr.State()
        opened = gr.Checkbox(False, visible=False)
        gr.Button("open", elem_id="open").click(lambda: True, None, opened)

        def build(is_open):
            if is_open:
                answer = gr.Textbox(elem_id="built-answer")
                gr.Button("ask", elem_id="built-ask").click(lambda: f"built {time.monotonic()}", None, answer)
                # an event outside Gradio's queue, which the page runs by another route
                gr.Button("ask at once", elem_id="built-ask-at-once").click(lambda: f"built {time.monotonic()}", None,
                                                                             answer, queue=False)
        gradio_compat.private_render(build, [opened], [opened.change])
        answer = gr.Textbox(elem_id="page-answer")
        gr.Button("ask the page", elem_id="page-ask").click(lambda: f"page {time.monotonic()}", None, answer)
    return page


def ask(page, button: str, answer: str, expected: str) -> None:
    """Clicks `button` and waits for a new answer starting with `expected` in `answer`."""
    shown = page.locator(answer).locator("textarea")
    before = shown.input_value()
    page.locator(button).click()
    expect(shown).not_to_have_value(before)
    expect(shown).to_have_value(re.compile(f"^{expected} "))


def test_a_left_page_s_session_is_let_go_and_an_open_one_kept_in_a_real_page(browser):
    """Two visitors: one leaves, the other stays open and idle past the idle time. The one who
    left is let go; the one who stayed keeps its built tab. Then the stayer's session is let
    go as a page away too long would be: its built tab's event is answered with the request
    to reload, and the page's own events still work, with a fresh session."""
    page, clock, port = built_tab_page(), SkippingClock(), free_port()
    heartbeats = Heartbeats(clock)
    page.queue().launch(prevent_thread_lock=True, server_port=port, quiet=True,
                        app_kwargs={"middleware": [keep_sessions(page, heartbeats)]})
    url = f"http://127.0.0.1:{port}/"
    sessions = page.state_holder.session_data
    try:
        stayer, leaver = open_page(browser, url, DESKTOP, own_context=True), open_page(browser, url, PHONE,
                                                                                        own_context=True)
        for visitor in (stayer, leaver):
            visitor.locator("#open").click()
            ask(visitor, "#built-ask", "#built-answer", "built")
            ask(visitor, "#built-ask-at-once", "#built-answer", "built")
        assert len(sessions) == 2
        kept = set(sessions)
        assert len(heartbeats.open) == 2
        close(leaver)
        until = time.monotonic() + 30  # the server sees the leaver's heartbeat end
        while len(heartbeats.open) > 1 and time.monotonic() < until:
            time.sleep(0.05)
        assert len(heartbeats.open) == 1
        clock.skip(3 * IDLE)
        ask(stayer, "#page-ask", "#page-answer", "page")  # a request: the app looks for gone sessions
        assert len(sessions) == 1 and set(sessions) < kept
        ask(stayer, "#built-ask", "#built-answer", "built")

        gradio_compat.let_go_of_sessions(page, list(sessions))
        stayer.locator("#built-ask").click()
        expect(stayer.get_by_text(LET_GO)).to_be_visible()
        ask(stayer, "#page-ask", "#page-answer", "page")
        # An event outside the queue is refused alike; Gradio's page shows such a refusal as
        # "Error" on the event's outputs, without its message.
        gradio_compat.let_go_of_sessions(page, list(sessions))
        with stayer.expect_response(lambda r: "/run/" in r.url) as refused:
            stayer.locator("#built-ask-at-once").click()
        assert (refused.value.status, refused.value.json()["error"]) == (410, LET_GO)
        ask(stayer, "#page-ask", "#page-answer", "page")
        close(stayer)
    finally:
        page.close()


@pytest.mark.integration  # a served page, no browser
def test_an_api_client_s_session_is_let_go_once_idle():
    """A client without a page (no heartbeat): its session goes once its last event is older
    than the idle time."""
    page, clock, port = built_tab_page(), SkippingClock(), free_port()
    page.queue().launch(prevent_thread_lock=True, server_port=port, quiet=True,
                        app_kwargs={"middleware": [keep_sessions(page, Heartbeats(clock))]})
    url = f"http://127.0.0.1:{port}"
    try:
        event = next(i for i, fn in page.fns.items() if fn.name == "<lambda>")
        joined = httpx.post(f"{url}{gradio_compat.QUEUE_JOIN_PATH}",
                            json={"data": [], "fn_index": event, "session_hash": "client1", "event_data": None},
                            timeout=30)
        assert joined.status_code == 200, joined.text
        with httpx.stream("GET", f"{url}/gradio_api/queue/data", params={"session_hash": "client1"}, timeout=30) as s:
            assert any("process_completed" in line for line in s.iter_lines())
        assert "client1" in page.state_holder.session_data
        clock.skip(IDLE / 2)
        assert httpx.get(f"{url}/config", timeout=30).status_code == 200
        assert "client1" in page.state_holder.session_data  # idle for less than the idle time
        clock.skip(IDLE)
        assert httpx.get(f"{url}/config", timeout=30).status_code == 200
        assert "client1" not in page.state_holder.session_data
        unknown = httpx.post(f"{url}{gradio_compat.QUEUE_JOIN_PATH}",
                             json={"data": [], "fn_index": 10_000, "session_hash": "client1", "event_data": None},
                             timeout=30)
        assert (unknown.status_code, unknown.json()["detail"]) == (410, LET_GO)
    finally:
        page.close()


def test_the_app_keeps_an_open_page_s_built_tabs_however_long_it_idles(browser, tmp_path_factory,
                                                                        full_store_template, monkeypatch):
    """The app: a page opens Details and Head-to-head, idles many times the idle time (on the
    app's clock), and both still answer (its heartbeat, which the app watches, held it)."""
    from leaderboard.app import sessions

    clock = SkippingClock()
    monkeypatch.setattr(sessions, "Heartbeats", lambda: Heartbeats(clock))
    with serve_in_process(tmp_path_factory, full_store_template, idle_session_seconds=int(IDLE)) as (url, store, _, _):
        assert httpx.get(f"{url}config", timeout=60).json()["connect_heartbeat"]
        board = Leaderboard(LocalStore(store))
        second = board.models[board.ranked().index[1]].title
        page = open_page(browser, url, PHONE, own_context=True)
        page.get_by_role("tab", name="Details").click()
        expect(page.locator("#bars .bar-row").first).to_be_visible()
        clock.skip(3 * IDLE)
        page.get_by_role("tab", name="Head-to-head").click()  # a request: the app looks for gone sessions
        expect(page.locator("#pair-summary")).to_be_visible()
        clock.skip(3 * IDLE)
        page.get_by_role("tab", name="Details").click()
        choose(page, "model-pick", second)  # an event of the tab built for the session
        expect(page.locator("#card")).to_contain_text(second)
        expect(page.get_by_text(LET_GO)).to_have_count(0)
        close(page)


def test_the_app_s_page_whose_session_was_let_go_says_so_with_a_button_to_reload(browser, tmp_path_factory,
                                                                               full_store_template, monkeypatch):
    """Desktop and phone: a page whose session the app let go (as after an hour away) picks a
    model in Details, a tab built for the old session whose event runs outside Gradio's queue:
    the page says why nothing happened, above the page, and its button reloads the page, which
    works again."""
    from leaderboard.app import serving

    served = []
    serve = serving.serve
    monkeypatch.setattr(serving, "serve", lambda *a, **kw: served.append(serve(*a, **kw)) or served[-1])
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        app, = served
        board = Leaderboard(LocalStore(store))
        second = board.models[board.ranked().index[1]].title
        for viewport in (DESKTOP, PHONE):
            page = open_page(browser, url, viewport, own_context=True)
            page.get_by_role("tab", name="Details").click()
            expect(page.locator("#bars .bar-row").first).to_be_visible()
            gradio_compat.let_go_of_sessions(app, list(app.state_holder.session_data))
            choose(page, "model-pick", second)
            notice = page.locator("#session-let-go")
            expect(notice).to_contain_text(LET_GO)
            box = notice.bounding_box()
            assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"]  # whole on a phone too
            notice.get_by_role("button", name="Reload the page").click()
            expect(page.locator("#session-let-go")).to_have_count(0)
            page.get_by_role("tab", name="Details").click()
            choose(page, "model-pick", second)
            expect(page.locator("#card")).to_contain_text(second)
            close(page)
