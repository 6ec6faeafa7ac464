"""The first screen is the ranking (issue 36), measured in Chromium on a desktop (1440x900)
and a phone (390x844) on each shipped board with 13 models: the rows fully in view before any
scroll, the header cells' lines, the model names on one line with the whole name on hover, the
phone's rank, model, score and interval side by side, the expert controls and the scoring's
explanation a click away.

Screenshots are saved in test-artifacts/.
"""
from __future__ import annotations

from support.built_once import built_once

from support.benchmarks import BENCHMARKS
from support.pages import DESKTOP, PHONE, close, open_filters, open_page, settled, shot
from support.page_checks import check_back_and_model_link, check_ranking_chart
from support.servers import serve

import re

import pytest
from playwright.sync_api import expect

from leaderboard.config.tasks import load_benchmark
from leaderboard.board.configured import build_demo_store

MODELS = 13  # more than the rows a first screen must hold
WANTED_ROWS = {"desktop": 12, "phone": 6}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module", params=list(BENCHMARKS))
def board_url(request, tmp_path_factory):
    """The app on a demo store of MODELS models of one shipped benchmark: (its name, url, tasks file)."""
    tasks = BENCHMARKS[request.param]
    template = built_once(tmp_path_factory, f"first_screen_{request.param}",
                          lambda root: build_demo_store(root, MODELS, seed=0, benchmark=load_benchmark(tasks)))
    with serve(tmp_path_factory, template, LEADERBOARD_TASKS=str(tasks)) as (url, _, _, _):
        yield request.param, url, tasks


def rows_in_view(page) -> list[list[str]]:
    """The texts of the table rows wholly inside the window, each row's cells that are too."""
    return page.evaluate("""() => [...document.querySelectorAll('#board tbody tr')]
        .filter(r => { const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight; })
        .map(r => [...r.querySelectorAll('td')]
             .filter(c => { const b = c.getBoundingClientRect(); return b.left >= 0 && b.right <= innerWidth; })
             .map(c => c.innerText.trim()))""")


@VIEWPORTS
def test_the_first_screen_holds_the_ranking_and_the_chart_back_and_a_model_link_work(browser, board_url, viewport):
    """One visit of each board's app (a load of its page costs some 2.5 s of Chromium's CPU
    and 1 s of the app's: bench/RESULTS.md): the first screen as it comes, before any scroll
    or click; then issue 36's chart (Overall and each category), Back and the in-page model link."""
    name, url, tasks = board_url
    page = open_page(browser, url, viewport)
    settled(page)
    check_first_screen(page, name, "desktop" if viewport is DESKTOP else "phone")
    categories = load_benchmark(tasks).categories
    check_back_and_model_link(page, url, categories[0])
    check_ranking_chart(page, viewport, categories, MODELS)
    shot(page, f"43_chart_{name}", full_page=False)
    close(page)


def check_first_screen(page, name: str, size: str) -> None:
    """The first screen of a settled page: the ranking's rows, the header cells' lines, the
    model names on one line, the expert controls and the scoring's explanation a click away."""
    shot(page, f"40_first_screen_{name}", full_page=False)
    shown = rows_in_view(page)
    assert len(shown) >= WANTED_ROWS[size], (name, size, len(shown))
    for cells in shown[:WANTED_ROWS[size]]:  # rank, model, score and its interval in view, on a phone too
        assert len(cells) >= 4 and cells[0].isdigit() and re.fullmatch(r"[\d.]+(–[\d.]+)?", cells[3]), cells
    # header cells on at most two lines
    lines = page.locator("#board thead th .header").evaluate_all("""headers => headers.map(h => [h.textContent.trim(),
        Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight))])""")
    assert all(n <= 2 for _, n in lines), [h for h in lines if h[1] > 2]
    # model names on one line, cut short, whole on hover
    names = page.locator("#board tbody td:nth-child(2) a").evaluate_all("""links => links.map(a => [
        a.title, a.textContent, new Set([...a.getClientRects()].map(r => Math.round(r.top))).size,
        a.parentElement.scrollWidth > a.parentElement.clientWidth])""")
    assert names and all(title == text and lines == 1 for title, text, lines, _ in names), names
    assert any(cut for *_, cut in names) or size == "desktop", names  # the phone's column is narrow
    # the expert's controls and the explanation of the scores a click away
    expect(page.locator("#p-values")).to_be_hidden()
    expect(page.locator("#columns")).to_be_hidden()
    open_filters(page)
    expect(page.locator("#p-values")).to_be_visible()
    expect(page.locator("#columns")).to_be_visible()
    scoring = page.locator("#intro details")
    expect(scoring.locator("p").first).to_be_hidden()
    scoring.get_by_text("How scoring works").click()
    expect(scoring).to_contain_text("Models are ranked by")
