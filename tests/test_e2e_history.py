"""The browser's history (issue 36), in Chromium on a desktop and a phone: each view change
pushes a history entry and Back returns to the view before it, Forward to the one after; a
model's link opens its Details in the page (no new tab, no reload) at a URL of its own.

The app is conftest.py's `shared_app` (these tests only read it).
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_e2e import DESKTOP, PHONE, browser, choose, close, open_page, rows, settled, shot  # noqa: F401

VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def first_header(page):
    return page.locator("#board thead th .header").first


def check_back_and_model_link(page, url: str, category: str) -> None:
    """On `page`, settled at `url`'s Overall view: a switch to `category` pushes one history
    entry, Back and Forward move between the two views in the page, and the first model's
    link opens its Details in the page (no new tab, no reload) at a URL of its own."""
    start = page.evaluate("history.length")
    choose(page, "category", category)
    expect(first_header(page)).to_have_text(f"{category} rank")
    page.wait_for_url(re.compile(r"category="))
    assert page.evaluate("history.length") == start + 1  # one entry for one view change
    page.go_back()
    expect(first_header(page)).to_have_text("Rank")  # the view before, in the page
    expect(page.locator("#category input")).to_have_value("Overall")
    assert page.url == url
    page.go_forward()
    expect(first_header(page)).to_have_text(f"{category} rank")
    expect(page.locator("#category input")).to_have_value(category)
    page.go_back()
    expect(first_header(page)).to_have_text("Rank")

    link = rows(page).first.locator("[role=gridcell]").nth(1).locator("a")
    name = link.get_attribute("title")
    page.evaluate("window.sameDocument = true")  # gone if the page were loaded again
    pages = len(page.context.pages)
    link.click()
    expect(page.get_by_role("tab", name="Details")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#card")).to_contain_text(name)
    assert re.search(r"\?tab=details&model=\w+", page.url), page.url
    assert len(page.context.pages) == pages and page.evaluate("window.sameDocument") is True
    shot(page, "36_model_link_details", full_page=False)
    page.go_back()
    expect(page.get_by_role("tab", name="Leaderboard")).to_have_attribute("aria-selected", "true")
    expect(first_header(page)).to_have_text("Rank")


@VIEWPORTS
def test_back_returns_to_the_view_before_and_a_model_link_opens_details_in_the_page(browser, app_url, viewport):
    page = open_page(browser, app_url[0], viewport)
    settled(page)
    check_back_and_model_link(page, app_url[0], "NER")
    close(page)
