"""Shareable views: the page's state (tab, category, value kind, search, filters, sort,
columns, p-values, flagged models left out or not, the table's page, the model in details, the head-to-head
pair, the open duel map's scope) as a URL query, read back when a link is opened."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping

from leaderboard.board.state import Leaderboard
from leaderboard.submission.metadata import MODEL_TYPES
from leaderboard.views.compare import scope_choices
from leaderboard.views.table import (ADJUSTED_P, DEFAULT_META, MAX_SEARCH_CHARS, METRIC_VALUE, OVERALL, RAW_P, RANK_SORT,
                                     SHOWN_META, WIN_SCORE, score_columns, sort_choices)

TABS = ("leaderboard", "details", "head-to-head", "submission", "about")
# The query's keys and their defaults (a default is left out of the URL).
DEFAULTS = {"tab": "leaderboard", "category": OVERALL, "values": WIN_SCORE, "search": "", "types": [],
            "min": None, "max": None, "sort": RANK_SORT, "columns": DEFAULT_META, "p": RAW_P, "exclude_flagged": False,
            "table_page": 1, "model": None, "details_category": OVERALL, "a": None, "b": None, "h2h_category": OVERALL,
            "map": None}  # the duel map's scope while it is open
BOARD_KEYS = ["category", "values", "search", "types", "min", "max", "sort", "columns", "p", "exclude_flagged"]
DETAILS_KEYS = ["model", "details_category"]
PAGE_KEYS = ["table_page"]  # written after the server answers (it clamps the page); Gradio reserves "page"
HEAD_TO_HEAD_KEYS = ["a", "b", "h2h_category"]
MAP_KEYS = ["map"]


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def view_from_query(query: Mapping[str, str], board: Leaderboard) -> dict:
    """The view a link asks for; anything unknown or malformed falls back to the default."""
    categories = [OVERALL, *board.benchmark.categories]
    text = {k: str(query.get(k, "")).strip() for k in DEFAULTS}
    view = dict(DEFAULTS)
    if text["tab"] in TABS:
        view["tab"] = text["tab"]
    for key in ("category", "details_category", "h2h_category"):
        if text[key] in categories:
            view[key] = text[key]
    if text["values"] in (WIN_SCORE, METRIC_VALUE) and view["category"] != OVERALL:
        view["values"] = text["values"]
    view["search"] = text["search"][:MAX_SEARCH_CHARS]
    view["types"] = [t for t in MODEL_TYPES if t in text["types"].split(",")]
    view["min"], view["max"] = _number(text["min"]), _number(text["max"])
    sorts = [key for _, key in sort_choices(score_columns(board, view["category"], view["values"]))]
    if text["sort"] in sorts:
        view["sort"] = text["sort"]
    if "columns" in query:
        view["columns"] = [c for c in SHOWN_META if c in text["columns"].split(",")]
    if text["p"] in (RAW_P, ADJUSTED_P):
        view["p"] = text["p"]
    view["exclude_flagged"] = text["exclude_flagged"] == "true"
    if text["table_page"].isdecimal() and len(text["table_page"]) < 10:  # past the last page shows the last
        view["table_page"] = max(1, int(text["table_page"]))
    for key in ("model", "a", "b"):
        if text[key] in board.models:
            view[key] = text[key]
    if text["map"] in [key for _, key in scope_choices(board)]:
        view["map"] = text["map"]
    return view


def _query_value(value) -> str:
    """A value as the page's script writes it into the URL (String() in JavaScript)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(value)
    return "" if value is None else str(value)


# Runs once in the page: `writeViewQuery(keys, values, push)` puts the values into the address
# bar (no reload), leaving defaults out: a new history entry when the view changed and `push`
# (Back returns to the view before), else in place (a restored view writes what it was given).
QUERY_WRITER_JS = """
  const viewDefaults = %s;
  window.writeViewQuery = (keys, values, push = true) => {
    const query = new URLSearchParams(location.search);
    keys.forEach((key, i) => {
      const value = Array.isArray(values[i]) ? values[i].join(",") : String(values[i] ?? "");
      if (value === viewDefaults[key]) query.delete(key); else query.set(key, value);
    });
    const search = query.toString(), before = new URLSearchParams(location.search);
    query.sort();
    before.sort();
    if (query.toString() === before.toString()) return;
    history[push ? "pushState" : "replaceState"](null, "", search ? "?" + search : location.pathname);
  };
""" % json.dumps({k: _query_value(v) for k, v in DEFAULTS.items()})


def query_writer(keys: list[str], tab: str | None = None, push: bool = True) -> str:
    """An event's `js=`: write the event's first inputs (in `keys` order) and the tab, if
    given, to the URL, then pass the inputs on to the event's function; `push` False: in
    the history entry the event's first step made."""
    keys_and_values = f"[...{json.dumps(keys)}, 'tab'], [...values.slice(0, {len(keys)}), {json.dumps(tab)}]" if tab \
        else f"{json.dumps(keys)}, values"
    return f"(...values) => {{ window.writeViewQuery({keys_and_values}, {json.dumps(push)}); return values; }}"


def view_writer(keys: list[str], values: list, tab: str) -> str:
    """An event's `js=`: write `values` (known when the event is made: a tab's view as it was
    built) and the tab to the URL, in the history entry the tab's opening made."""
    return f"() => {{ window.writeViewQuery({json.dumps([*keys, 'tab'])}, {json.dumps([*values, tab])}, false); }}"


# The duel map closed: its scope leaves the URL.
MAP_CLOSER_JS = "() => { window.writeViewQuery(%s, ['']); return []; }" % json.dumps(MAP_KEYS)


def tab_writer(tab: str) -> str:
    """An event's `js=`: write the tab to the URL, pass the event's inputs on unchanged."""
    return query_writer([], tab)


# The "Copy link" button: the address (which holds the view) to the clipboard and into a box.
COPY_LINK_JS = """() => {
  navigator.clipboard?.writeText(location.href).catch(() => {});
  return location.href;
}"""
