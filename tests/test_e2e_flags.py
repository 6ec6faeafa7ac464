"""A flagged model in a real Chromium, on a desktop and a phone screen: the marker and the
reason on the board and in the model's details, the switch that ranks without flagged
models, and the link that keeps it. Screenshots in test-artifacts/."""
from __future__ import annotations

from support.pages import DESKTOP, PHONE, close, column, open_filters, open_page, rows, shot
from support.servers import EVIDENCE, REASON

import re

import pytest
from playwright.sync_api import expect

from leaderboard.storage.flags import MARKER


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_flag_is_marked_and_the_switch_ranks_without_it(browser, flagged_server, viewport):
    url, _, flagged, title = flagged_server
    page = open_page(browser, url, viewport)
    note = page.locator("#board-note")
    expect(note).to_contain_text("Flagged by the maintainers")  # flagged after the app started
    expect(rows(page)).to_have_count(5)
    models = column(page, 1)
    assert [m.startswith(MARKER) for m in models] == [False, True, False, False, False], models
    assert title in models[1]
    expect(page.locator(f'#board a[title="Flagged: {REASON}"]').first).to_be_attached()  # the reason on hover
    expect(note).to_contain_text(f"{title}: {REASON}")
    expect(note.get_by_role("link", name="evidence")).to_have_attribute("href", EVIDENCE)
    shot(page, "20_flagged_marked")
    open_filters(page)
    page.locator("#exclude-flagged input").check()
    expect(rows(page)).to_have_count(4, timeout=15000)
    assert not any(MARKER in m for m in column(page, 1)) and title not in " ".join(column(page, 1))
    assert [int(r) for r in column(page, 0)] == [1, 2, 3, 4]
    expect(note).to_contain_text(f"Left out as flagged: {title}. The scores are recomputed")
    page.wait_for_url(re.compile("exclude_flagged=true"))
    shot(page, "21_flagged_excluded")
    link = page.url
    close(page)
    other = open_page(browser, link, viewport, own_context=True)  # the shared link keeps the switch
    expect(rows(other)).to_have_count(4)
    open_filters(other)
    expect(other.locator("#exclude-flagged input")).to_be_checked()
    close(other)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_flagged_models_details_say_why(browser, flagged_server, viewport):
    url, _, flagged, title = flagged_server
    page = open_page(browser, f"{url}?tab=details&model={flagged}", viewport)
    card = page.locator("#card")
    expect(card).to_contain_text(f"{MARKER} {title}")
    expect(card).to_contain_text("Flagged by the maintainers on")
    expect(card).to_contain_text(REASON)
    expect(page.locator("#model-pick input")).to_have_value(f"{MARKER} {title}")
    shot(page, "22_flagged_details")
    close(page)
