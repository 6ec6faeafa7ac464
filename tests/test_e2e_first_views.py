"""What a served app has made before its first visitor opens Details and Head-to-head (issue
35: at 10,000 models the best model's duels took 1-1.3 s, its duels CSV 7-19 s of one core
that held up every other answer of the app meanwhile, and the first comparison 1.1-4 s, most
of it scipy.stats' first import), in a real Chromium on an app served in this process (so
the test sees what the handlers compute)."""
from __future__ import annotations

import threading

from playwright.sync_api import expect

from support.pages import DESKTOP, PHONE, close, open_page, rows
from support.servers import serve_in_process

from leaderboard.views import compare, details, table as board_views


def recorded(monkeypatch, module, name: str, calls: list, counts=lambda *args: True,
             done: threading.Event | None = None) -> None:
    """`module.name` still does its work, and `calls` gets its name at each call that `counts`
    (and `done` is set once such a call has returned)."""
    work = getattr(module, name)

    def call(*args, **kwargs):
        counted = counts(*args)
        if counted:
            calls.append(name)
        answer = work(*args, **kwargs)
        if counted and done is not None:
            done.set()
        return answer
    monkeypatch.setattr(module, name, call)


def test_details_and_head_to_head_open_on_answers_made_before_the_visitor_asks(browser, tmp_path_factory,
                                                                                full_store_template, monkeypatch):
    made: list[str] = []
    recorded(monkeypatch, details, "model_duels", made)
    recorded(monkeypatch, compare, "head_to_head", made)
    csv_made = threading.Event()
    recorded(monkeypatch, board_views, "export_table", made, counts=lambda *args: "duels" in args[2],  # not the board's
             done=csv_made)
    with serve_in_process(tmp_path_factory, full_store_template):
        assert csv_made.wait(timeout=60), "the app's start made no duels CSV"
    csv_made.clear()
    # a second app in this process, on its own copy of the store (same revision, same best
    # model): its start makes its own CSV (the first app's, kept for the process, was taken
    # for it before, and this test failed in CI after any other served app's test)
    with serve_in_process(tmp_path_factory, full_store_template) as (url, *_):
        # the app's start made them, the CSV last (before issue 35's change, none)
        assert csv_made.wait(timeout=60), "the second app's start made no duels CSV"
        made.clear()
        for viewport in (DESKTOP, PHONE):
            page = open_page(browser, url, own_context=True, viewport=viewport)
            expect(rows(page).first).to_be_visible(timeout=30000)
            page.get_by_role("tab", name="Details").click()
            expect(rows(page, "duels").first).to_be_visible(timeout=30000)
            expect(page.locator("#duel-csv")).to_be_enabled(timeout=30000)
            page.get_by_role("tab", name="Head-to-head").click()
            expect(page.locator("#pair-summary")).to_contain_text("A wins", timeout=30000)
            expect(page.locator("#pair-chart .pair-bar").first).to_be_attached(timeout=30000)
            close(page)
        assert made == [], made  # the best model's duels and CSV, and the best two's comparison: made at start
