"""The tabs built when a page session first opens them (lazy_tab, issue 35): the page's first
load takes in a config without them, and each session's tab, once built, stays as its visitor
left it; in a real Chromium, on a served app, in two sessions at once."""
from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from support.pages import DESKTOP, PHONE, choose, close, open_filters, open_page

from leaderboard.app.page import LAZY_TABS
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore

# A component of each tab built when opened, by the tab's id.
MADE_WHEN_OPENED = {"details": "model-pick", "head-to-head": "pair-summary", "submission": "presubmit",
                    "about": "card-summary"}


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


def test_back_to_a_model_shows_it_each_time(browser, app_url):
    """Details, opened by a link on one model: another picked, then Back, twice over: each Back
    shows the link's model (the second Back restores the same view as the first: the tab built
    when opened follows it all the same)."""
    board = Leaderboard(LocalStore(app_url[1]))
    first, second = board.ranked().index[:2]
    titles = {model: board.models[model].title for model in (first, second)}
    page = open_page(browser, f"{app_url[0]}?tab=details&model={first}", DESKTOP, own_context=True)
    expect(page.locator("#card h3")).to_have_text(titles[first])
    for _ in range(2):
        choose(page, "model-pick", titles[second])
        expect(page.locator("#card h3")).to_have_text(titles[second])
        expect(page).to_have_url(re.compile(f"model={second}"))
        page.go_back()
        expect(page.locator("#card h3")).to_have_text(titles[first])
        expect(page.locator("#model-pick input")).to_have_value(titles[first])
    close(page)


def test_the_p_value_setting_changed_after_the_tabs_were_built_leaves_the_page_on_its_tab(browser, app_url):
    """Details and Head-to-head built, then the p-value setting changed on the Leaderboard tab:
    the address stays on the Leaderboard tab (the built tabs' renders write no view of theirs),
    and Head-to-head shows the adjusted comparison when opened again."""
    page = open_page(browser, app_url[0], DESKTOP, own_context=True)
    page.get_by_role("tab", name="Details").click()
    expect(page.locator("#duels")).to_be_visible()
    page.get_by_role("tab", name="Head-to-head").click()
    expect(page.locator("#pair-summary")).to_contain_text("A wins")
    page.get_by_role("tab", name="Leaderboard").click()
    open_filters(page)
    page.locator("#p-values").get_by_text("BH-adjusted", exact=True).click()
    page.wait_for_url(re.compile("p=bh"))
    page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
    assert "tab=" not in page.url, page.url
    page.get_by_role("tab", name="Head-to-head").click()
    expect(page.locator("#pair-summary")).to_contain_text("Benjamini-Hochberg adjusted")
    close(page)
