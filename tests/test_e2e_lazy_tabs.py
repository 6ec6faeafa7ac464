"""The tabs built when a page session first opens them (lazy_tab, issue 35): the page's first
load takes in a config without them, and each session's tab, once built, stays as its visitor
left it; in a real Chromium, on a served app, in two sessions at once."""
from __future__ import annotations

import httpx
from playwright.sync_api import expect

from support.pages import DESKTOP, PHONE, close, open_page

from leaderboard.app.page import LAZY_TABS

# A component of each tab built when opened, by the tab's id.
MADE_WHEN_OPENED = {"submission": "presubmit", "about": "card-summary"}


def elem_ids(config: dict) -> set:
    return {c["props"].get("elem_id") for c in config["components"]}


def test_the_page_s_config_holds_no_tab_built_when_opened(app_url):
    """The config the page loads has the flag that builds each such tab and none of its
    components; a session's first open builds them for that session alone."""
    assert set(MADE_WHEN_OPENED) == set(LAZY_TABS)
    config = httpx.get(f"{app_url[0]}config", timeout=60).json()
    shown = elem_ids(config)
    for tab, component in MADE_WHEN_OPENED.items():
        assert f"{tab}-opened" in shown
        assert component not in shown, f"{tab}'s {component} is in the first load's config"
    assert "board" in shown  # the first tab's, as ever


def test_a_tab_is_built_once_per_session_and_keeps_what_its_visitor_did(browser, app_url):
    """Desktop and phone, two sessions at once: one types in the form and picks a task of the
    report card, leaves both tabs and comes back: both as left; the other session's form,
    built for it, is empty."""
    typist, other = open_page(browser, app_url[0], DESKTOP), open_page(browser, app_url[0], PHONE, own_context=True)
    typist.get_by_role("tab", name="Submit").click()
    typist.locator("#model input, #model textarea").first.fill("Kept-1")
    other.get_by_role("tab", name="Submit").click()
    expect(other.locator("#presubmit")).to_be_visible()
    typist.get_by_role("tab", name="About").click()
    expect(typist.locator("#card-summary")).to_contain_text("could be first")
    task = typist.locator("#card-task input")
    task.click()
    typist.get_by_role("option").first.click()
    picked = task.input_value()
    expect(typist.locator("#card-items-note")).to_contain_text("SHA-256")
    typist.get_by_role("tab", name="Leaderboard").click()
    typist.get_by_role("tab", name="Submit").click()
    expect(typist.locator("#model input, #model textarea").first).to_have_value("Kept-1")
    expect(typist.locator("#presubmit")).to_have_count(1)
    typist.get_by_role("tab", name="About").click()
    expect(typist.locator("#card-task input")).to_have_value(picked)
    expect(typist.locator("#card-summary")).to_have_count(1)
    expect(other.locator("#model input, #model textarea").first).to_have_value("")
    for page in (typist, other):
        close(page)


def test_a_link_to_a_tab_built_when_opened_opens_it_built(browser, app_url):
    """?tab=submission and ?tab=about open on their tab, built; Back from About to the
    Submit tab's URL shows the form."""
    page = open_page(browser, f"{app_url[0]}?tab=submission", PHONE, own_context=True)
    expect(page.locator("#presubmit")).to_be_visible()
    page.get_by_role("tab", name="About").click()
    expect(page.locator("#card-summary")).to_be_visible()
    expect(page).to_have_url(f"{app_url[0]}?tab=about")
    page.go_back()
    expect(page.locator("#presubmit")).to_be_visible()
    close(page)
    linked = open_page(browser, f"{app_url[0]}?tab=about", DESKTOP, own_context=True)
    expect(linked.locator("#card-summary")).to_contain_text("could be first")
    close(linked)
