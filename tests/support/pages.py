"""The app's page in the tests' Chromium: the viewports, the shared browser context,
opening and closing pages, reading the table and filling the Submit form."""
from __future__ import annotations

from pathlib import Path
from playwright.sync_api import expect
from support.paths import ARTIFACTS


DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}  # the browser tests' viewports


# How long the tests wait for what a user would see (an assertion, a click, a page load): long
# enough for a 2-core machine under load (30 s ran out at load 20, session 20), and a wait
# still fails when the thing never comes.
WAIT_MS = 60_000

APPS_SITE = "http://127.0.0.1/"  # the site of every app the tests serve, whatever its port


SHARED = {}  # this process's shared browser context ("context") and its page of the apps' site ("keeper")


def new_context(browser, viewport: dict):
    """A browser context whose pages (those a link opens too) wait WAIT_MS by default."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(WAIT_MS)
    return context


def shared_context(browser):
    """The browser context the browser tests of this process open their pages in, holding a
    blank page of the apps' site (answered by Playwright, no server) for as long as it lives:
    Chromium then keeps the site's renderer process, with the scripts it has compiled, from
    one test's pages to the next's, and a page of the app loads for about 1.1 s of Chromium's
    CPU instead of 1.7 s in a context of its own (bench/RESULTS.md). The app keeps nothing in
    the browser (no cookie, no storage; Gradio's session is per page load), so pages in this
    context are as separate as pages in contexts of their own; cookies are cleared after
    each test (`close_pages_left_open`). Its pages take the desktop's size unless set (the
    tabs that links open)."""
    if "context" not in SHARED:
        context = new_context(browser, DESKTOP)
        keeper = context.new_page()
        keeper.route(APPS_SITE, lambda route: route.fulfill(body="", content_type="text/html"))
        keeper.goto(APPS_SITE)
        SHARED.update(context=context, keeper=keeper)
    return SHARED["context"]


def blank_page(browser, viewport: dict = DESKTOP, address: str | None = None, own_context: bool = False):
    """A page of `viewport`'s size, not yet at a URL; `page.dialogs` collects alert()s (a user
    string run as HTML). In the process's shared browser context (this module's
    `shared_context`), or in a context of its own when the page is another person's browser
    (`own_context`). `address`: the client's address as a trusted local proxy reports it
    (X-Forwarded-For, on every request of the page). Close it with `close`."""
    if own_context:
        page = new_context(browser, viewport).new_page()
    else:
        page = shared_context(browser).new_page()
        page.set_viewport_size(viewport)
    if address is not None:
        page.set_extra_http_headers({"X-Forwarded-For": address})
    page.own_context = own_context
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    return page


def open_page(browser, url: str, viewport: dict = DESKTOP, address: str | None = None, own_context: bool = False):
    """`blank_page` at `url`."""
    page = blank_page(browser, viewport, address, own_context)
    page.goto(url)
    return page


def close(page) -> None:
    """Close a page of `blank_page`, with its browser context when it has one of its own."""
    (page.context if page.own_context else page).close()


def shot(page, name: str, full_page: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}_{page.viewport_size['width']}.png"), full_page=full_page)


def choose(page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def open_filters(page) -> None:
    """Open the Leaderboard tab's filters, columns and p-value setting (one click from the table)."""
    page.locator("#filters").get_by_text("Filters, columns, significance").click()


def settled(page) -> None:
    """The table shown and the page's load events answered (no component waiting on one), painted."""
    expect(rows(page).first).to_be_visible()
    answered(page)


def answered(page) -> None:
    """The page's events answered (no component waiting on one), painted."""
    page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
    page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")


# A table's body rows and their cells: the Leaderboard's HTML table's (views/board_html.py)
# and Gradio's Dataframe's, which renders its rows virtually, as div[role=row] (an older
# tree's board too, for bench_web.py --code).
ROW, CELL = ":is(.board-scroll tbody > tr, div[role=row])", ":is(td, [role=gridcell])"


def rows(page, elem_id: str = "board"):
    return page.locator(f"#{elem_id} {ROW}")


def cells(row):
    """A row's (`rows`) cells."""
    return row.locator(CELL)


def column(page, index: int, elem_id: str = "board") -> list[str]:
    """The rendered cells' texts of one column."""
    return [t.strip() for t in page.locator(f"#{elem_id} {ROW} {CELL}:nth-child({index + 1})").all_inner_texts()]


def headers(page, elem_id: str = "board") -> list[str]:
    return [" ".join(t.split()) for t in page.locator(f"#{elem_id} thead th .header").all_inner_texts()]


def fill_form(page, file: Path, team: str, model: str, input_length: str = "4096"):
    page.get_by_role("tab", name="Submit").click()
    page.locator("#team textarea, #team input").first.fill(team)
    page.locator("#model textarea, #model input").first.fill(model)
    page.locator("#params input").fill("7")
    page.locator("#input-length input").fill(input_length)
    page.locator("#link textarea, #link input").first.fill("https://example.com/e2e")
    page.locator("#file input[type=file]").set_input_files(str(file))
    # Pre-submit before the upload has finished would send no file (under load it did)
    expect(page.locator("#file").get_by_role("cell", name=file.name)).to_be_visible()
