"""Checks of the page that several browser test modules run (on the shared app, and on each
shipped board's app in test_e2e_first_screen.py)."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from support.pages import choose, cells, rows, shot


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

    link = cells(rows(page).first).nth(1).locator("a")
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


def check_ranking_chart(page, viewport: dict, categories: list[str], models: int) -> None:
    """On `page`, settled at the Overall view: the charts open with one click under the table,
    in Overall and after a switch to each of `categories`: a point and an interval bar per
    model, labelled by rank, best at the top, inside the window."""
    page.locator("#charts").get_by_text("the ranking with its 95% intervals").click()
    for category in ("Overall", *categories):
        if category != "Overall":
            choose(page, "category", category)
        chart = page.locator("#ranking-chart")
        expect(chart.locator(".gtitle")).to_contain_text(f"{category} score %, 95% intervals")
        expect(chart.locator(".point")).to_have_count(models)
        expect(chart.locator(".errorbar")).to_have_count(models)
        ticks = chart.locator(".ytick text").evaluate_all(  # top to bottom
            "ts => ts.map(t => [t.getBoundingClientRect().y, t.textContent]).sort((a, b) => a[0] - b[0]).map(t => t[1])")
        ranks = [int(t.split(".")[0]) for t in ticks]
        assert ranks[0] == 1 and ranks == sorted(ranks), ticks  # best at the top
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5, box
        shot(page, f"37_ranking_chart_{category}", full_page=False)
