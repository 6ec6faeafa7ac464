"""What the page's layout must not do, measured in a real headless Chromium on a desktop and
a phone: cut the pinned rank header, squeeze the details bars to nothing, run a model's
name under the dropdown's arrow, cover the duel map's titles with its toolbar; and, on the
same visit, the browser's history (Back, Forward, a model's link in the page).

A load of the page costs some 2.5 s of Chromium's CPU and 1 s of the app's (bench/RESULTS.md):
each viewport visits the Leaderboard tab once (and the longest header's view from a link) and
Details then Head-to-head once, and runs the checks in turn on the page as the one before left it.

Screenshots are saved in test-artifacts/; the app is conftest.py's `shared_app`.
"""
from __future__ import annotations

from support.page_checks import check_back_and_model_link, check_ranking_chart
from support.pages import DESKTOP, PHONE, cells, choose, close, open_filters, open_page, rows, settled, shot

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

# app_url: conftest's, the app shared by the modules that only read it

VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def assert_rank_header_whole(page, category: str) -> None:
    """The pinned rank header of `category`'s view whole in its cell, and the pinned Model
    column starting after it, measured once the view is painted (the Model column's offset
    is the rank column's width, as the server set both)."""
    header = page.locator("#board thead th").first
    text = header.locator(".header")
    expect(text).to_have_text("Rank" if category == "Overall" else f"{category} rank")
    page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
    fits = text.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert fits[0] <= fits[1], (category, fits)  # no word runs past the header's text box
    box, cell_box = text.bounding_box(), header.bounding_box()
    assert box["x"] + box["width"] <= cell_box["x"] + cell_box["width"] + 0.5, (category, box, cell_box)
    model = page.locator("#board thead th").nth(1).bounding_box()  # the pinned Model column starts after it
    assert model["x"] >= cell_box["x"] + cell_box["width"] - 0.5, (category, cell_box, model)


@VIEWPORTS
def test_the_leaderboard_tab_s_layout(browser, app_url, viewport):
    """The Leaderboard tab's checks in turn on one page, then the longest header's view from a
    link. First the browser's history (issue 36): a view change pushes a history entry, Back
    returns to the view before it, Forward to the one after; a model's link opens its Details
    in the page (no new tab, no reload) at a URL of its own."""
    page = open_page(browser, app_url[0], viewport)
    settled(page)
    check_back_and_model_link(page, app_url[0], "NER")
    expect(rows(page)).to_have_count(5)
    check_every_header_explains_its_column_on_a_click_or_tap(page, viewport)
    check_a_category_switch_shows_its_score_beside_the_pinned_columns(page)
    check_the_pinned_rank_header_is_whole_in_every_category_view(page)
    check_every_radio_option_lies_inside_the_window(page)
    check_ranking_chart(page, viewport, ["NER"], 5)  # issue 36: the ranking chart, in Overall and NER
    check_the_longest_header_from_a_link(page, app_url[0])
    close(page)


@VIEWPORTS
def test_details_and_head_to_head_layout(browser, app_url, viewport):
    """Details' checks in turn on one page, then Head-to-head's (with the duel map) on it. Issue
    36: on a phone Details' won / lost / not significant table and Head-to-head's tasks won per
    category scroll sideways with their category column pinned."""
    page = open_page(browser, app_url[0] + "?tab=details", viewport)
    check_details_bars_have_length_and_the_model_name_clears_the_arrow(page)
    check_per_category_table_is_readable(page, "duel-summary", viewport)
    shot(page, "38_details_summary", full_page=False)
    if viewport is PHONE:
        assert_key_cell_pinned(page, "duel-summary")
        shot(page, "40_details_summary_scrolled", full_page=False)
    page.goto(app_url[0] + "?tab=head-to-head&map=Overall")
    check_per_category_table_is_readable(page, "pair-record", viewport)
    if viewport is PHONE:
        assert_key_cell_pinned(page, "pair-record")
        shot(page, "41_pair_record_scrolled", full_page=False)
    check_the_duel_map_s_cells_are_readable(page)
    check_the_duel_maps_toolbar_covers_none_of_its_titles(page)
    check_head_to_head_headers_break_at_words(page)
    close(page)


def check_the_pinned_rank_header_is_whole_in_every_category_view(page) -> None:
    """Every category view as the category picker switches to it on one page (a page load
    for each view cost 11 more loads a viewport), Overall last, the table at its start."""
    from leaderboard.config.tasks import load_benchmark
    page.locator("#board .board-scroll").evaluate("e => e.scrollLeft = 0")
    for category in [*load_benchmark().categories, "Overall"]:
        choose(page, "category", category)
        assert_rank_header_whole(page, category)


def check_the_longest_header_from_a_link(page, url: str) -> None:
    """The view with the longest word in its header ("Czech Language Understanding") as a link
    opens it, its rank and Model columns still side by side when the table is scrolled."""
    page.goto(f"{url}?category={quote('Czech Language Understanding')}")
    assert_rank_header_whole(page, "Czech Language Understanding")
    expect(rows(page).first).to_be_visible()
    first = cells(rows(page).first)
    page.locator("#board .board-scroll").evaluate("e => e.scrollLeft = 600")
    expect(first.nth(1)).to_be_in_viewport()
    rank, model = first.nth(0).bounding_box(), first.nth(1).bounding_box()
    assert model["x"] >= rank["x"] + rank["width"] - 0.5, (rank, model)  # still side by side when scrolled
    shot(page, "30_category_rank_header", full_page=False)


def check_details_bars_have_length_and_the_model_name_clears_the_arrow(page) -> None:
    expect(page.locator("#bars .bar").first).to_be_attached()
    widths = page.locator("#bars .bar").evaluate_all("bars => bars.map(b => b.getBoundingClientRect().width)")
    values = [float(v) for v in page.locator("#bars .bar-value").all_inner_texts()]
    assert all(w > 0 for w, v in zip(widths, values) if v > 0), (widths, values)
    for picker in ("#model-pick", "#details-category"):
        name = page.locator(f"{picker} input")
        text_right = name.evaluate("e => e.getBoundingClientRect().right - parseFloat(getComputedStyle(e).paddingRight)")
        arrow = page.locator(f"{picker} .icon-wrap").bounding_box()
        assert text_right <= arrow["x"] + 0.5, (picker, text_right, arrow)  # the text stops before the arrow
    shot(page, "31_details_bars")


def check_the_duel_maps_toolbar_covers_none_of_its_titles(page) -> None:
    expect(page.locator("#duel-map .hm").first).to_be_attached()
    page.locator("#map-box").scroll_into_view_if_needed()
    page.locator("#duel-map").hover()  # the toolbar shows on hover
    toolbar = page.locator("#duel-map .modebar").bounding_box()
    for title in ("#duel-map .gtitle", "#duel-map .xtitle"):
        assert not overlap(toolbar, page.locator(title).bounding_box()), (title, toolbar)
    shot(page, "32_duel_map_titles", full_page=False)


def check_head_to_head_headers_break_at_words(page) -> None:
    """Each header of the per-task table wraps between words, never letter by letter: no
    word is wider than its header's text box, and none takes more than three lines. In
    Language Modeling, whose "p one-sided (B better)" column holds only 1s (the best model
    against the second: every perplexity better)."""
    expect(rows(page, "pair-tasks").first).to_be_visible()
    choose(page, "pair-category", "Language Modeling")
    expect(rows(page, "pair-tasks")).to_have_count(8)
    page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
    measured = page.locator("#pair-tasks thead th .header").evaluate_all("""headers => headers.map(h => {
        const words = h.textContent.trim().split(/\\s+/).map(word => {
            const probe = document.createElement('span');
            probe.textContent = word;
            probe.style.whiteSpace = 'nowrap';
            h.appendChild(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return width;
        });
        const style = getComputedStyle(h);
        return {text: h.textContent.trim(), width: h.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
                widest: Math.max(...words), lines: Math.round(h.getBoundingClientRect().height / parseFloat(style.lineHeight))};
    })""")
    squeezed = [m for m in measured if m["widest"] > m["width"] + 0.5 or m["lines"] > 3]
    assert len(measured) == 10 and not squeezed, squeezed
    page.locator("#pair-tasks").scroll_into_view_if_needed()
    shot(page, "33_head_to_head_headers", full_page=False)


def check_a_category_switch_shows_its_score_beside_the_pinned_columns(page) -> None:
    """The table scrolled sideways, then another category picked: its view starts at its
    score, right of the pinned rank and Model columns, not scrolled under them."""
    first = cells(rows(page).first)
    page.locator("#board .board-scroll").evaluate("e => e.scrollLeft = 0")  # from the table's start
    start = first.nth(2).bounding_box()["x"]
    page.locator("#board .board-scroll").evaluate("e => e.scrollLeft = 600")
    page.wait_for_function("([cell, x]) => cell.getBoundingClientRect().x < x - 300",  # the scroll has been painted
                           arg=[first.nth(2).element_handle(), start])
    choose(page, "category", "NLI")
    assert_rank_header_whole(page, "NLI")
    expect(page.locator("#board thead th").nth(2)).to_contain_text("NLI score")
    model, score = first.nth(1).bounding_box(), first.nth(2).bounding_box()
    assert score["x"] >= model["x"] + model["width"] - 0.5, (model, score)
    expect(first.nth(2)).to_be_in_viewport()
    shot(page, "34_category_switch_scroll", full_page=False)


def check_every_header_explains_its_column_on_a_click_or_tap(page, viewport: dict) -> None:
    """Issue 36: each column's one-line explanation from its header, on a phone too (which
    shows no title on hover): a click or tap on the header shows it under the header, within
    the window; a click elsewhere hides it."""
    help_box = page.locator("#column-help")
    explained = {}
    for index in range(7):  # rank, model, score, its interval, rank interval, tie group, duel wins
        header = page.locator("#board thead th").nth(index)
        header.scroll_into_view_if_needed()
        header.locator(".header").click()
        expect(help_box).to_be_visible()
        name = " ".join(header.locator(".header").inner_text().split())
        text = help_box.inner_text()
        assert text.startswith(f"{name}: ") and len(text) > len(name) + 20, (name, text)
        box = help_box.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (name, box)
        explained[name] = text
    assert len(set(explained.values())) == 7, explained
    assert "rank intervals overlap" in explained["Tie group"] and "95%" in explained["Rank 95%"]
    # a scroll, the page's own (a table re-rendered by a late answer) or the visitor's, moves
    # the explanation with its header instead of taking it away (under load it vanished so)
    header = page.locator("#board thead th").nth(6)
    page.evaluate("() => document.querySelector('#board').dispatchEvent(new Event('scroll'))")
    page.evaluate("() => window.scrollBy(0, 40)")
    expect(help_box).to_be_visible()
    page.wait_for_function("() => { const h = document.querySelectorAll('#board thead th')[6].getBoundingClientRect();"
                           " return Math.abs(document.getElementById('column-help').getBoundingClientRect().top"
                           " - (h.bottom + 4)) < 1; }")
    assert help_box.inner_text() == explained[" ".join(header.locator(".header").inner_text().split())]
    shot(page, "35_column_help", full_page=False)
    page.locator("#as-of").click()
    expect(help_box).to_be_hidden()


def right_edges(page, elem_id: str) -> list[float]:
    return page.locator(f"#{elem_id} thead th").evaluate_all("ths => ths.map(th => th.getBoundingClientRect().right)")


def check_per_category_table_is_readable(page, elem_id: str, viewport: dict) -> None:
    """Issue 36: Details' won / lost / not significant table (`duel-summary`) and
    Head-to-head's tasks won per category (`pair-record`) show their counts beside the
    category, not only the category column."""
    expect(rows(page, elem_id).first).to_be_visible()
    edges = right_edges(page, elem_id)
    # category, won, lost, n.s. (Details); category, A, B, not separable (Head-to-head)
    assert len(edges) >= 4 and all(e <= viewport["width"] for e in edges[:4]), edges
    page.locator(f"#{elem_id}").scroll_into_view_if_needed()


def check_the_duel_map_s_cells_are_readable(page) -> None:
    """Issue 36: the duel map's cells are at least 12px wide (the map scrolls sideways where
    the screen is narrower)."""
    expect(page.locator("#duel-map .hm").first).to_be_attached()
    ticks = page.locator("#duel-map .xtick text").evaluate_all("ts => ts.map(t => t.getBoundingClientRect().x)")
    assert len(ticks) == 5 and min(b - a for a, b in zip(ticks, ticks[1:])) >= 12, ticks
    page.locator("#duel-map").scroll_into_view_if_needed()
    shot(page, "39_duel_map_cells", full_page=False)


def assert_key_cell_pinned(page, elem_id: str) -> None:
    """`elem_id`'s table scrolled to its right end on a phone: the first row's key (first)
    cell still within the window and on top where it is drawn (no scrolled cell over it)."""
    expect(rows(page, elem_id).first).to_be_visible()
    # The rows show before the table's render is answered, under its status overlay, which
    # elementFromPoint would find over the key cell: wait for the answer.
    page.wait_for_function("(id) => !document.querySelector(`#${id} [data-testid=status-tracker]:not(.hide)`)",
                           arg=elem_id)
    page.locator(f"#{elem_id}").scroll_into_view_if_needed()
    key = rows(page, elem_id).first.locator("[role=gridcell]").first
    before = key.bounding_box()
    page.locator(f"#{elem_id} .virtual-table-viewport").evaluate("e => e.scrollLeft = e.scrollWidth")
    page.evaluate("() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))")
    box = key.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (elem_id, before, box)
    on_top = key.evaluate("""cell => {
        const r = cell.getBoundingClientRect();
        return cell.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
    }""")
    assert on_top, (elem_id, box)  # no scrolled cell drawn over the key cell


def check_every_radio_option_lies_inside_the_window(page) -> None:
    """Issue 36: no choice of a radio switch cut off, by the window's edge or by a box around
    it that hides what overflows (on a phone the board's value switch cut "Metric value"),
    the expert controls unfolded too."""
    open_filters(page)
    expect(page.locator("#p-values")).to_be_visible()
    cut = page.locator("label:has(input[type=radio])").evaluate_all("""labels => labels
        .filter(label => label.getClientRects().length)
        .map(label => {
            const box = label.getBoundingClientRect();
            let [left, right] = [0, window.innerWidth];
            for (let e = label.parentElement; e; e = e.parentElement) {
                if (getComputedStyle(e).overflowX !== 'visible') {
                    const clip = e.getBoundingClientRect();
                    [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
                }
            }
            return {text: label.textContent.trim(), left: box.left, right: box.right, shown: [left, right]};
        })""")
    outside = [c for c in cut if c["left"] < c["shown"][0] - 0.5 or c["right"] > c["shown"][1] + 0.5]
    assert len(cut) >= 4 and not outside, outside
    shot(page, "42_radio_options", full_page=False)
