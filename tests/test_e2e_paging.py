"""The leaderboard table one page at a time, in a real headless Chromium on a desktop and a
phone: the 13-model demo board at 4 rows a page (conftest's `paged_app`, shared with
test_e2e_preview.py); paging forward and back (the page in the
URL, restored from it), a search narrowing the count and cleared with Backspace, a category
switch starting at page 1 (one request for a pick with the mouse), and the Details picker finding a model outside the first page.

Screenshots are saved in test-artifacts/.
"""
from __future__ import annotations

from support.pages import DESKTOP, PHONE, cells, choose, close, open_page, rows, shot
from support.servers import PAGED_MODELS as MODELS

import json
import re

import pytest
from playwright.sync_api import expect

from leaderboard.views import share

FIRST = f"Page 1 of 4 · rows 1–4 of {MODELS}"  # 4 rows a page
SECOND = f"Page 2 of 4 · rows 5–8 of {MODELS}"
THIRD = f"Page 3 of 4 · rows 9–12 of {MODELS}"
LAST = f"Page 4 of 4 · row 13 of {MODELS}"
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def pager(page):
    return page.locator("#page-of")


def first_rank(page) -> str:
    return cells(rows(page).first).first.inner_text().strip()


@VIEWPORTS
def test_paging_search_category_and_picker_on_a_board_larger_than_a_page(browser, paged_app, viewport):
    page = open_page(browser, paged_app, viewport)
    expect(pager(page)).to_have_text(FIRST)
    expect(page.locator("#page-previous")).to_be_disabled()
    assert first_rank(page) == "1"
    shot(page, "paging_first")

    page.locator("#page-next").click()
    expect(pager(page)).to_have_text(SECOND)
    expect(cells(rows(page).first).first).to_have_text("5")
    expect(page).to_have_url(re.compile(r"[?&]table_page=2\b"))
    page.locator("#page-last").click()
    expect(pager(page)).to_have_text(LAST)
    expect(page.locator("#page-next")).to_be_disabled()
    expect(page.locator("#page-last")).to_be_disabled()
    outside = cells(rows(page).first).nth(1).inner_text().strip()  # rank 13's title
    shot(page, "paging_last")
    page.locator("#page-previous").click()
    expect(pager(page)).to_have_text(THIRD)
    page.locator("#page-first").click()
    expect(pager(page)).to_have_text(FIRST)
    expect(page).not_to_have_url(re.compile(r"table_page="))  # page 1 is the default

    page.goto(f"{paged_app}?table_page=7")  # a shared link opens its page
    expect(pager(page)).to_have_text(LAST)
    expect(cells(rows(page).first).first).to_have_text("13")

    # A search runs over the whole board and starts at its first page; Backspace clears it.
    team = outside.split("/")[0]
    search = page.locator("#search textarea, #search input").first
    search.click()
    search.press_sequentially(team, delay=30)
    expect(pager(page)).to_have_text(re.compile(rf"Page 1 of \d+ · rows? 1(–\d+)? of \d+ matching \(of {MODELS}\)"))
    matching = int(re.search(r"of (\d+) matching", pager(page).inner_text())[1])
    assert 0 < matching < MODELS
    assert all(team in t for t in page.locator("#board tbody td:nth-child(2)")
               .all_inner_texts())
    shot(page, "paging_search")
    for _ in team:
        search.press("Backspace")
    assert search.input_value() == "", search.input_value()
    expect(pager(page)).to_have_text(FIRST)
    expect(page).not_to_have_url(re.compile(r"search="))

    # Another category is another ranking: it starts at its first page, and pages as well.
    page.locator("#page-next").click()
    expect(pager(page)).to_have_text(SECOND)
    sent = []  # each request's inputs
    page.on("request", lambda r: sent.append(json.loads(r.post_data)["data"])
            if r.method == "POST" and "/run/predict" in r.url else None)
    choose(page, "category", "NER")
    expect(page.locator("#board thead th .header").first).to_have_text("NER rank")
    expect(pager(page)).to_have_text(FIRST)
    page.locator("#page-last").click()
    expect(pager(page)).to_have_text(LAST)
    if viewport is DESKTOP:
        # Gradio's Dropdown sends `input` twice for a pick with the mouse (on the pick and on
        # the blur after it); the board listens to the blur, so one pick is one request. The
        # later request (the last page), answered: a second request of the pick has been sent by then.
        views = [data for data in sent if len(data) == len(share.BOARD_KEYS) + 1]  # the view's inputs and plot_open
        assert [view[0] for view in views] == ["NER"], views

    # The Details picker lists the best models; the search box finds one from the last page.
    page.get_by_role("tab", name="Details").click()
    pick = page.locator("#model-pick input")
    pick.click()
    expect(page.get_by_role("option").first).to_be_visible()
    assert outside in page.get_by_role("option").all_inner_texts()[-1]  # the best first
    pick.press("Escape")
    find = page.locator("#model-find textarea, #model-find input").first
    find.click()
    find.press_sequentially(outside.split("/")[1], delay=30)
    expect(page.locator("#model-pick")).to_contain_text("match")
    pick.click()
    expect(page.get_by_role("option", name=outside, exact=True)).to_be_visible()
    assert page.get_by_role("option").count() <= 2  # what the search found, and the model picked before
    page.get_by_role("option", name=outside, exact=True).click()
    expect(page.locator("#card")).to_contain_text(outside)
    expect(page).to_have_url(re.compile(r"[?&]model="))
    shot(page, "paging_picker")
    close(page)
