"""A flagged model in a real Chromium, on a desktop and a phone screen: the marker and the
reason on the board and in the model's details, the switch that ranks without flagged
models, and the link that keeps it. Screenshots in test-artifacts/."""
from __future__ import annotations

import os
import re
import shutil

import pytest
from playwright.sync_api import expect

from leaderboard.board import Leaderboard
from leaderboard.flags import MARKER
from leaderboard.store import LocalStore
from test_e2e import DESKTOP, PHONE, browser, column, free_port, open_page, rows, shot, start_app  # noqa: F401

REASON = "test set found in the training data"


@pytest.fixture(scope="module")
def flagged_app(tmp_path_factory, full_store_template):
    """The app on a 5-model store whose second model is flagged: (url, flagged id, its title)."""
    store = tmp_path_factory.mktemp("flags") / "store"
    shutil.copytree(full_store_template, store)
    board = Leaderboard(LocalStore(store))
    flagged = board.ranked().index[1]
    board.flag(flagged, REASON, "https://example.com/report")
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    process = start_app(env, tmp_path_factory.mktemp("log") / "app.log")
    try:
        yield f"http://127.0.0.1:{port}/", flagged, board.models[flagged].title
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_flag_is_marked_and_the_switch_ranks_without_it(browser, flagged_app, viewport):  # noqa: F811
    url, flagged, title = flagged_app
    page = open_page(browser, url, viewport)
    expect(rows(page)).to_have_count(5, timeout=30000)
    models = column(page, 1)
    assert [m.startswith(MARKER) for m in models] == [False, True, False, False, False], models
    assert title in models[1]
    expect(page.locator(f'#board a[title="Flagged: {REASON}"]').first).to_be_attached()  # the reason on hover
    note = page.locator("#board-note")
    expect(note).to_contain_text("Flagged by the maintainers")
    expect(note).to_contain_text(f"{title}: {REASON}")
    expect(note.get_by_role("link", name="evidence")).to_have_attribute("href", "https://example.com/report")
    shot(page, "20_flagged_marked")
    page.locator("#exclude-flagged input").check()
    expect(rows(page)).to_have_count(4, timeout=15000)
    assert not any(MARKER in m for m in column(page, 1)) and title not in " ".join(column(page, 1))
    assert [int(r) for r in column(page, 0)] == [1, 2, 3, 4]
    expect(note).to_contain_text(f"Left out as flagged: {title}. The scores are recomputed")
    page.wait_for_url(re.compile("exclude_flagged=true"))
    shot(page, "21_flagged_excluded")
    link = page.url
    page.context.close()
    other = open_page(browser, link, viewport)  # the shared link keeps the switch
    expect(rows(other)).to_have_count(4, timeout=30000)
    expect(other.locator("#exclude-flagged input")).to_be_checked()
    other.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_flagged_models_details_say_why(browser, flagged_app, viewport):  # noqa: F811
    url, flagged, title = flagged_app
    page = open_page(browser, f"{url}?tab=details&model={flagged}", viewport)
    card = page.locator("#card")
    expect(card).to_contain_text(f"{MARKER} {title}", timeout=30000)
    expect(card).to_contain_text(f"Flagged by the maintainers on")
    expect(card).to_contain_text(REASON)
    expect(page.locator("#model-pick input")).to_have_value(f"{MARKER} {title}")
    shot(page, "22_flagged_details")
    page.context.close()
