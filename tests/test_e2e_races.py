"""Answers that arrive out of order: the page's events answered in the order a loaded server
can answer them, in Chromium (a call held back until the visitor has done more) or through
the page's own calls (`PageSession`), on an app served in this process. The last answer to
arrive leaves the page as the visitor last set it. Gradio drops a trigger of an event while
that event's last call is on its way (its default trigger mode, "once"), and covers the
event's outputs meanwhile, not its other inputs."""
from __future__ import annotations

import threading
from pathlib import Path

from playwright.sync_api import expect

from harness_logs import DATE_A, write_run
from support.archives import zip_folder
from support.page_checks import first_header
from support.page_sessions import PageSession
from support.pages import choose, close, open_page, rows, settled
from support.servers import serve_in_process

from leaderboard.app import details_tab, leaderboard_tab
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.submission.demo import demo_model
from leaderboard.views import details, submission


def is_event_call(request) -> bool:
    """A call of one of the page's event functions: a JSON post to /run/ or to the queue."""
    return request.method == "POST" and ("/run/" in request.url or "/queue/join" in request.url)


class HeldBack:
    """The first call of an event function that `action` on the page makes, held back (not
    sent) until the test lets it go; the page's other calls go."""

    def __init__(self, page, action):
        self.page, self.held = page, []
        page.route("**/gradio_api/**", self.route)
        with page.expect_request(is_event_call):
            action()
        for _ in range(100):  # its route comes after the request's event
            if self.held:
                return
            page.wait_for_timeout(50)
        raise AssertionError("the call was not held back")

    def route(self, call) -> None:
        if not self.held and is_event_call(call.request):
            self.held.append(call)
        else:
            call.continue_()

    def let_go(self) -> None:
        for call in self.held:
            call.continue_()
        self.page.unroute("**/gradio_api/**")


def test_a_category_picked_while_a_model_s_view_is_on_its_way_is_shown(browser, tmp_path_factory,
                                                                      full_store_template):
    """Details and Head-to-head: a category picked while the view of a model picked just before
    is on its way (the model pickers are covered meanwhile, not the category's) is shown with
    that model once the view has come (the category's pick was dropped: the view stayed in
    the previous category under the new category's picker)."""
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        board = Leaderboard(LocalStore(store))
        best, second, third = (board.models[m].title for m in board.ranked().index[:3])
        category = board.benchmark.categories[0]
        page = open_page(browser, url, own_context=True)
        page.get_by_role("tab", name="Details").click()
        expect(page.locator("#card")).to_contain_text(best)
        rendered = HeldBack(page, lambda: choose(page, "model-pick", second))
        choose(page, "details-category", category)
        rendered.let_go()
        expect(page.locator("#card")).to_contain_text(f"{category}: rank")
        expect(page.locator("#card h3")).to_have_text(second)

        page.get_by_role("tab", name="Head-to-head").click()
        expect(page.locator("#pair-summary")).to_contain_text("On all tasks")
        rendered = HeldBack(page, lambda: choose(page, "model-b", third))
        choose(page, "pair-category", category)
        rendered.let_go()
        expect(page.locator("#pair-summary")).to_contain_text(f"On the {category} tasks")
        expect(page.locator("#pair-summary")).to_contain_text(f"B = {third}")
        close(page)



def test_a_category_picked_while_an_opened_tab_s_view_is_on_its_way_is_shown(browser, tmp_path_factory,
                                                                             full_store_template):
    """Details and Head-to-head opened again, and a category picked before the tab's view has
    come: the category's view is shown (the tab's view, answered after the pick's, was shown
    under the category's picker). (Their first open builds them: nothing to pick before.)"""
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        board = Leaderboard(LocalStore(store))
        best = board.models[board.ranked().index[0]].title
        category = board.benchmark.categories[0]
        page = open_page(browser, url, own_context=True)
        settled(page)
        for tab, built in (("Details", "#duels"), ("Head-to-head", "#pair-summary")):
            page.get_by_role("tab", name=tab).click()
            expect(page.locator(built)).to_be_visible()
        page.get_by_role("tab", name="Leaderboard").click()
        opened = HeldBack(page, lambda: page.get_by_role("tab", name="Details").click())
        choose(page, "details-category", category)
        opened.let_go()
        expect(page.locator("#card")).to_contain_text(f"{category}: rank")
        expect(page.locator("#card h3")).to_have_text(best)
        page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
        expect(page.locator("#card")).to_contain_text(f"{category}: rank")

        opened = HeldBack(page, lambda: page.get_by_role("tab", name="Head-to-head").click())
        choose(page, "pair-category", category)
        opened.let_go()
        summary = page.locator("#pair-summary")
        expect(summary).to_contain_text(f"On the {category} tasks")
        page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
        expect(summary).to_contain_text(f"On the {category} tasks")
        close(page)

def test_the_p_value_setting_changed_before_details_and_head_to_head_are_opened_is_followed(
        tmp_path_factory, full_store_template):
    """Through the page's own calls: the p-value setting changed before Details and
    Head-to-head were opened; each is built, at its first open, on the setting then (before
    they were built when opened, they failed with a traceback at the setting's change, and
    Head-to-head, chained after Details, was not called)."""
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        session = PageSession(url, opened=())
        shown = {}
        for tab in ("details", "head-to-head"):  # each built from its view state (none yet) and the setting
            built = session.open_tab(tab, [None, "bh"])
            shown.update({c["props"].get("elem_id"): c["props"].get("value") for c in built["components"]})
        assert "Rank **1**" in shown["card"], shown["card"]
        assert "Benjamini-Hochberg adjusted" in shown["pair-summary"], shown["pair-summary"]


def test_back_twice_while_the_first_back_s_view_is_on_its_way_shows_the_view_of_the_url(
        browser, tmp_path_factory, full_store_template):
    """Back pressed twice while the view of the first Back is on its way: the page shows the
    view of the address it is at, the second Back's (that Back was dropped: the page stayed
    at the first Back's view under the second's address)."""
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        first, second = Leaderboard(LocalStore(store)).benchmark.categories[:2]
        page = open_page(browser, url, own_context=True)
        settled(page)
        for category in (first, second):
            choose(page, "category", category)
            expect(first_header(page)).to_have_text(f"{category} rank")
        restored = HeldBack(page, page.go_back)
        page.go_back()
        assert page.url == url
        restored.let_go()
        expect(page.locator("#category input")).to_have_value("Overall")
        expect(first_header(page)).to_have_text("Rank")
        close(page)


def test_a_model_picked_while_more_duels_are_on_their_way_shows_its_own(browser, tmp_path_factory,
                                                                        full_store_template, monkeypatch):
    """Details: the best model's grid of all its duels asked for ("Show all"), and another
    model picked before it has come: that model's view and grid are shown, and the first
    model's grid, when made, is not shown under them (it was, over the second's)."""
    monkeypatch.setattr(details_tab, "FIRST_GRID", 2)  # of 4 competitors: the rest a click away
    asked, go_on = threading.Event(), threading.Event()
    work = details.duel_frame

    def held(board, duels, models=None, competitors=None):  # the grid of all duels waits for the test
        if competitors == details.GRID_COMPETITORS:
            asked.set()
            go_on.wait(timeout=60)
        return work(board, duels, models, competitors)
    monkeypatch.setattr(details, "duel_frame", held)
    with serve_in_process(tmp_path_factory, full_store_template) as (url, store, _, _):
        board = Leaderboard(LocalStore(store))
        second = board.models[board.ranked().index[1]].title
        page = open_page(browser, url, own_context=True)
        page.get_by_role("tab", name="Details").click()
        expect(rows(page, "duels")).to_have_count(2)
        page.locator("#duels-more").click()
        assert asked.wait(timeout=60)
        choose(page, "model-pick", second)
        expect(page.locator("#card h3")).to_have_text(second)
        go_on.set()
        page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
        page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
        expect(rows(page, "duels")).to_have_count(2)
        expect(rows(page, "duels").filter(has_text=second)).to_have_count(0)  # its own grid: not its own competitor
        close(page)


def test_an_archive_replaced_while_it_is_compiled_leaves_the_form_to_the_new_one(browser, tmp_path, full_benchmark,
                                                                                 tmp_path_factory, full_store_template,
                                                                                 monkeypatch):
    """Submit: a .zip of harness output removed while it is compiled (seconds), and another
    uploaded in its place: the second is compiled, and the form is filled in from its logs,
    not the first's (the first's compile answered last over the second's file, whose own
    compile the page dropped)."""
    archives = {}
    for name in ("First-1B", "Second-2B"):
        root = tmp_path / name / "lm_eval_output"
        write_run(root, full_benchmark, full_benchmark.task_ids, demo_model(full_benchmark, 11, seed=0)[1], DATE_A,
                  model=f"Brno-NLP/{name}")
        archives[name] = zip_folder(root, tmp_path / name / f"{name.lower()}.zip")
    compiling, go_on = threading.Event(), threading.Event()
    work = submission.compile_archive

    def held(board, path, *args, **kwargs):  # the first archive's compile waits for the test
        if Path(path).name == "first-1b.zip":
            compiling.set()
            go_on.wait(timeout=60)
        return work(board, path, *args, **kwargs)
    monkeypatch.setattr(submission, "compile_archive", held)
    with serve_in_process(tmp_path_factory, full_store_template) as (url, _, _, _):
        page = open_page(browser, url, own_context=True)
        page.get_by_role("tab", name="Submit").click()
        page.locator("#file input[type=file]").set_input_files(str(archives["First-1B"]))
        assert compiling.wait(timeout=60)
        page.locator("#file button[aria-label='Clear']").click()
        page.locator("#file input[type=file]").set_input_files(str(archives["Second-2B"]))
        expect(page.locator("#file").get_by_role("cell", name="second-2b.zip")).to_be_visible()
        go_on.set()
        model = page.locator("#model textarea, #model input").first
        expect(model).to_have_value("Second-2B")
        expect(page.locator("#file-errors")).to_contain_text("Compiled from the harness output")
        page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
        expect(model).to_have_value("Second-2B")
        expect(page.locator("#presubmit")).to_be_enabled()
        close(page)


def test_a_view_changed_while_the_next_page_is_on_its_way_is_shown_from_its_first_page(
        browser, tmp_path_factory, full_store_template, monkeypatch):
    """Leaderboard: another category picked while the next page of the Overall view is on its
    way: the category's first page is shown, and the Overall page, when made, is not shown
    over it (it was, under the category's picker)."""
    turning, go_on = threading.Event(), threading.Event()
    work = leaderboard_tab.turned_to

    def held(name, page):  # the click on Next waits for the test
        turning.set()
        go_on.wait(timeout=60)
        return work(name, page)
    monkeypatch.setattr(leaderboard_tab, "turned_to", held)
    with serve_in_process(tmp_path_factory, full_store_template, page_rows=2) as (url, store, _, _):
        category = Leaderboard(LocalStore(store)).benchmark.categories[0]
        page = open_page(browser, url, own_context=True)
        settled(page)
        note = page.locator("#page-of")
        expect(note).to_contain_text("Page 1 of 3")
        page.locator("#page-next").click()
        assert turning.wait(timeout=60)
        choose(page, "category", category)
        expect(first_header(page)).to_have_text(f"{category} rank")
        go_on.set()
        page.wait_for_function("() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')")
        page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
        expect(first_header(page)).to_have_text(f"{category} rank")
        expect(note).to_contain_text("Page 1 of 3")
        close(page)
