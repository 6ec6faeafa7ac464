"""Each shipped board in the app (13 models), measured in Chromium on a phone (390x844) and a
desktop (1440x900): the first screen is the ranking (issue 36: the rows fully in view before any
scroll, the header cells' lines, the model names on one line with the whole name on hover, the
phone's rank, model, score and interval side by side, the expert controls and the scoring's
explanation a click away), the ranking chart, Back and the in-page model link; the benchmark's
own title, metric-value headers and About tab; a model pre-submitted and published.

Screenshots are saved in test-artifacts/ (the benchmark's steps as bench_<benchmark>_<step>_<width>.png).
"""
from __future__ import annotations

from support.built_once import built_once

from support.benchmarks import BENCHMARKS
from support.pages import DESKTOP, PHONE, choose, close, fill_form, open_filters, open_page, rows, settled, shot
from support.page_checks import check_back_and_model_link, check_ranking_chart
from support.paths import ARTIFACTS
from support.servers import serve

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from leaderboard.board.configured import build_demo_store
from leaderboard.board.state import Leaderboard
from leaderboard.config.tasks import load_benchmark
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import dump_json
from leaderboard.submission.demo import sample_document

MODELS = 13  # more than the rows a first screen must hold
WANTED_ROWS = {"desktop": 12, "phone": 6}


@pytest.fixture(scope="module", params=list(BENCHMARKS))
def board_url(request, tmp_path_factory):
    """The app on a copy of a demo store of MODELS models of one shipped benchmark: (its name,
    url, tasks file, the store template, the served copy)."""
    tasks = BENCHMARKS[request.param]
    template = built_once(tmp_path_factory, f"first_screen_{request.param}",
                          lambda root: build_demo_store(root, MODELS, seed=0, benchmark=load_benchmark(tasks)))
    with serve(tmp_path_factory, template, LEADERBOARD_TASKS=str(tasks)) as (url, store, _, _):
        yield request.param, url, tasks, template, store


def rows_in_view(page) -> list[list[str]]:
    """The texts of the table rows wholly inside the window, each row's cells that are too."""
    return page.evaluate("""() => [...document.querySelectorAll('#board tbody tr')]
        .filter(r => { const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight; })
        .map(r => [...r.querySelectorAll('td')]
             .filter(c => { const b = c.getBoundingClientRect(); return b.left >= 0 && b.right <= innerWidth; })
             .map(c => c.innerText.trim()))""")


def test_each_board_s_first_screen_chart_views_and_a_publication(browser, board_url, tmp_path):
    """One app per board and one visit per viewport (a load of its page costs some 2.5 s of
    Chromium's CPU and 1 s of the app's: bench/RESULTS.md), the phone's first: the first
    screen as it comes, before any scroll or click; then issue 36's chart (Overall and each
    category), Back and the in-page model link; the benchmark's own views. Then the desktop's
    page pre-submits and publishes a model, once the phone has shown the board as it was."""
    name, url, tasks, template, store = board_url
    benchmark = load_benchmark(tasks)
    for viewport in (PHONE, DESKTOP):
        page = open_page(browser, url, viewport)
        settled(page)
        check_first_screen(page, name, "desktop" if viewport is DESKTOP else "phone")
        check_back_and_model_link(page, url, benchmark.categories[0])
        check_ranking_chart(page, viewport, benchmark.categories, MODELS)
        shot(page, f"43_chart_{name}", full_page=False)
        check_benchmark_views(page, benchmark, viewport)
        if viewport is PHONE:
            close(page)
    check_publication(page, benchmark, own_model_file(benchmark, template, tmp_path))
    close(page)
    assert len(list((store / "data").glob("*.json"))) == MODELS + 1


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


def check_benchmark_views(page, benchmark, viewport: dict) -> None:
    """The benchmark's name as the page's title and heading; in its last category whose task
    names its measure (`metric_label`), each task's metric-value header and legend line; the
    About tab's account of its tasks, panel and metrics."""
    name = benchmark.name.lower()
    expect(page).to_have_title(f"{benchmark.name} duel leaderboard")
    expect(page.locator("#intro h1")).to_have_text(f"{benchmark.name} duel leaderboard")
    expect(rows(page)).to_have_count(MODELS)
    page.screenshot(path=str(ARTIFACTS / f"bench_{name}_board_{viewport['width']}.png"))
    category = next((t.category for t in reversed(benchmark.tasks) if t.metric_label
                     and t.metric_label != t.metric.display_name), benchmark.categories[-1])
    choose(page, "category", category)
    page.locator("#values label", has_text="Metric value").click()
    for task in benchmark.tasks_in(category):
        header = f"{task.abbreviation} {task.metric_title}"
        expect(page.locator("#board thead th").filter(has_text=header)).to_have_count(1, timeout=15000)
        expect(page.locator("#legend")).to_contain_text(task.name)
    page.screenshot(path=str(ARTIFACTS / f"bench_{name}_category_{viewport['width']}.png"), full_page=True)
    page.get_by_role("tab", name="About").click()
    about = page.locator("#about")
    expect(about).to_contain_text(f"{benchmark.name} has {len(benchmark.tasks)} tasks")
    expect(about).to_contain_text(f"the {benchmark.top_opponents} best models by overall score")
    for metric in {t.metric for t in benchmark.tasks}:
        expect(about).to_contain_text(f"({metric.name},")
    page.screenshot(path=str(ARTIFACTS / f"bench_{name}_about_{viewport['width']}.png"), full_page=True)


def own_model_file(benchmark, store: Path, folder: Path) -> Path:
    """A valid file that is not the store's sample file (which cannot be published): the
    sample generator with another seed, on the store's documents."""
    document = sample_document(benchmark, Leaderboard(LocalStore(store), benchmark).references(), seed=1)
    path = folder / "own.json"
    path.write_bytes(dump_json(document))
    return path


def check_publication(page, benchmark, file: Path) -> None:
    """`file` pre-submitted and published from the page's Submit tab; Details then shows its
    duel with each of the MODELS models under the benchmark's alpha."""
    fill_form(page, file, "Bench Team", "bench-model")
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text(re.compile("would rank|not accepted"))
    assert "would rank" in status.inner_text(), (status.inner_text(), page.locator("#form-errors").inner_text(),
                                                 page.locator("#file-errors").inner_text())
    page.locator("#publish").click()
    page.locator("#confirm").click()
    expect(page.locator("#status")).to_contain_text("Published")
    page.get_by_role("tab", name="Details").click()
    expect(page.locator("#duels-explained")).to_contain_text(f"p ≤ {benchmark.alpha:g}")
    expect(rows(page, "duels")).to_have_count(MODELS)
    page.screenshot(path=str(ARTIFACTS / f"bench_{benchmark.name.lower()}_details_1440.png"), full_page=True)
