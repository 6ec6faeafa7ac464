"""The ranking table for people: display columns with units, category ranks, filters,
sorting, exports, the score/size plot.

Shared by the command line and the web app; plain pandas, no UI code.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import html
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from leaderboard.config.tasks import TOP_OF_ITS_DAY
from leaderboard.engine import ranking
from leaderboard.board.publishing import Preview
from leaderboard.board.state import Leaderboard
from leaderboard.storage.flags import MARKER
from leaderboard.storage.store import PublishedModel
from leaderboard.submission.metadata import MAX_NAME_LENGTH
from leaderboard.views.markdown import app_link, app_query, escape_markdown, markdown_link

if TYPE_CHECKING:
    import plotly.graph_objects as go

OVERALL = "Overall"
WIN_SCORE, METRIC_VALUE = "win_score", "metric"
VALUE_NAMES = {WIN_SCORE: "win score", METRIC_VALUE: "metric value"}
META_COLUMNS = {"model_type": "Type", "parameters": "Parameters (B)", "precision": "Precision",
                "input_length": "Input length (tokens)", "description": "Description"}
PRESUBMISSIONS = "Pre-submissions (30 days)"  # disclosed before publication (storage/presubmissions.py)
SHOWN_META = ["Type", "Parameters (B)", "Precision", "Input length (tokens)", "Submitted",
              PRESUBMISSIONS]  # the column chooser's
DEFAULT_META = SHOWN_META[:-1]  # shown unless a view asks otherwise
RANK_SORT = "rank"
MAX_SEARCH_CHARS = 2 * MAX_NAME_LENGTH + 1  # the longest title, "team/model": a longer search cannot match
RAW_P, ADJUSTED_P = "raw", "bh"  # the p-value setting: as tested, or Benjamini-Hochberg adjusted
P_VALUE_CHOICES = [("Raw p-values", RAW_P), ("BH-adjusted", ADJUSTED_P)]
FLAG_COLUMNS = ["Flagged", "Flag reason", "Flag link"]
PUBLISHER = "Published by"  # the Hugging Face account, in exports and the model card; not a column on screen


@dataclass(frozen=True)
class ScoreColumn:
    key: str  # the column in Leaderboard.ranked(): a category, a task id or ranking.OVERALL
    header: str  # what the table shows: name, what the number is, its unit
    task_id: str | None = None  # a task column
    lower_is_better: bool = False


def is_overall(category: str | None) -> bool:
    return category in (None, "", OVERALL)


def score_header(board: Leaderboard, name: str) -> str:
    """A score column's header: the field score under the default rule, the Win Score
    under the original one (`"opponents": "top-of-its-day"`)."""
    return f"{name} {'win score' if board.benchmark.opponents == TOP_OF_ITS_DAY else 'score'} %"


def duel_wins_header(name: str) -> str:
    return f"{name} duel wins %"


def metric_header(task) -> str:
    m = task.metric
    return f"{task.abbreviation} {task.metric_title}{' %' if m.percent else ''} {'↑' if m.higher_is_better else '↓'}"


def check_category(board: Leaderboard, category: str | None) -> None:
    """Raise ValueError naming the choices unless `category` is Overall or one of the
    benchmark's categories."""
    if category != OVERALL and category not in board.benchmark.categories:
        raise ValueError(f"unknown category {category!r}; choose {OVERALL} or one of "
                         f"{', '.join(board.benchmark.categories)}")


def score_columns(board: Leaderboard, category: str | None, values: str = WIN_SCORE) -> list[ScoreColumn]:
    """The view's score columns, its ranking score first: Overall and the categories, or a
    category and its tasks (win scores, or with METRIC_VALUE each task's own metric)."""
    if is_overall(category):
        return [ScoreColumn(ranking.OVERALL, score_header(board, OVERALL)),
                *[ScoreColumn(c, score_header(board, c)) for c in board.benchmark.categories]]
    check_category(board, category)
    tasks = board.benchmark.tasks_in(category)
    if values == METRIC_VALUE:
        task_columns = [ScoreColumn(t.id, metric_header(t), t.id, not t.metric.higher_is_better) for t in tasks]
    else:
        # A task named like its category (BBH in BBH) would repeat the category's header.
        task_columns = [ScoreColumn(t.id, score_header(board, t.abbreviation + (
            " task" if t.abbreviation == category else "")), t.id) for t in tasks]
    return [ScoreColumn(category, score_header(board, category)), *task_columns]


def delta_scale(board: Leaderboard, task_ids) -> tuple[np.ndarray, list[str]]:
    """Per task: the factor from the metric to its display unit (100 for a percentage),
    and the unit of a difference: "pp" (percentage points) or the metric's own."""
    metrics = [board.benchmark.task(t).metric for t in task_ids]
    return (np.where([m.percent for m in metrics], 100.0, 1.0),
            ["pp" if m.percent else m.unit or m.display_name for m in metrics])


def rank_header(category: str | None) -> str:
    return "Rank" if is_overall(category) else f"{category} rank"


def submitted_date(timestamp) -> str:
    if not timestamp:
        return ""
    return dt.datetime.fromtimestamp(float(timestamp), dt.timezone.utc).strftime("%Y-%m-%d")


def model_info(models: dict[str, PublishedModel], ids) -> pd.DataFrame:
    """Title and metadata columns for the given submission ids; PUBLISHER (the signed-in
    account that published the model) on a board where some model has one."""
    rows = []
    signed = any(models[sid].metadata.get("publisher") for sid in models)
    for sid in ids:
        m = models[sid].metadata
        rows.append({"Model": models[sid].title,
                     **{label: m.get(key) for key, label in META_COLUMNS.items()},
                     "Submitted": submitted_date(m.get("submission_timestamp")),
                     "Link": m.get("link_to_model", ""),
                     **({PUBLISHER: m.get("publisher") or ""} if signed else {})})
    # Named, so an empty board has them too.
    columns = ["Model", *META_COLUMNS.values(), "Submitted", "Link", *([PUBLISHER] if signed else [])]
    return pd.DataFrame(rows, index=pd.Index(list(ids), name="submission_id"), columns=columns)


def scope_order(ranked: pd.DataFrame, key: str) -> pd.DataFrame:
    """`ranked` in order of the score column `key` (best first, no score last); equal
    scores keep the overall order."""
    return ranked.iloc[np.argsort(-ranked[key].round(9).fillna(-1).to_numpy(), kind="stable")]


INTERVAL = "95%"  # the level of stats.evidence's intervals, as headers name it
INTERVALS_PENDING = "being refreshed"  # the tie group cell while the intervals are computed after a publication
PENDING = "intervals_pending"  # a leaderboard_table's attrs key: made while its intervals were being computed


def leaderboard_table(board: Leaderboard, category: str | None = None, values: str = WIN_SCORE,
                      preview: Preview | None = None, adjusted: bool = False,
                      exclude_flagged: bool = False, rows: pd.Index | None = None) -> pd.DataFrame:
    """The ranked table: rank, model, the view's score with how certain it is (95%
    intervals of rank and score, tie group), the other scores (percent, perplexity as
    is), then metadata and the maintainers' flag (FLAG_COLUMNS). A category view is
    ranked by the category's win score (ties share a rank, then overall order) with the
    overall rank beside it. `adjusted`: scores from Benjamini-Hochberg adjusted duels.
    `exclude_flagged`: the ranking without the flagged models and their duels. With a
    preview, the ranking as it would be, with `Previous rank` and `Rank change` (and no
    intervals, no PRESUBMISSIONS column: its pre-submissions are disclosed once published).
    `rows`: only these rows are made (a neighbourhood of 7 of 10,001 in milliseconds, where
    the whole table takes 0.3-0.9 s at 10,000 models), ranked among all."""
    models = dict(board.models)
    ranked = board.ranked(adjusted, exclude_flagged)
    if preview is not None:
        models[preview.submission_id] = preview.model
        ranked = preview.table
    # Without its attrs (near-copy families, duel wins: 10,000-row frames), which pandas
    # deep-copies into every frame made from it, a third of a neighbourhood's time.
    family, duel_wins = ranked.attrs.get("family"), ranked.attrs.get("duel_wins")
    ranked = pd.DataFrame(ranked, copy=False)
    ranked.attrs = {}
    columns = score_columns(board, category, values)
    first = columns[0].key
    if not is_overall(category):
        ranked = scope_order(ranked, first)
    ranks = pd.DataFrame({rank_header(category): ranking.competition_rank(ranked[first], family)},
                         index=ranked.index)
    if rows is not None:
        ranked, ranks = ranked.loc[rows], ranks.loc[rows]
    scores = ranked[[c.key for c in columns]] * 100.0
    if values == METRIC_VALUE:
        tasks = [c.task_id for c in columns if c.task_id]
        raw = pd.DataFrame({sid: m.results.aggregates for sid, m in models.items()}).T.reindex(
            index=ranked.index, columns=tasks)
        scores[tasks] = raw[tasks] * delta_scale(board, tasks)[0]
    scores.columns = [c.header for c in columns]
    extra = ranked[[c for c in ("previous_rank", "rank_change") if c in ranked.columns]].rename(
        columns={"previous_rank": "Previous rank", "rank_change": "Rank change"})
    info = model_info(models, ranked.index)
    parts = [ranks, extra, info[["Model"]], scores.iloc[:, :1].round(2)]
    certainty = None
    if preview is None and board.benchmark.opponents != TOP_OF_ITS_DAY:
        # Intervals of the field score and its rank, beside them; the original rule's Win
        # Score has none (the reference leaderboard showed none).
        scope = ranking.OVERALL if is_overall(category) else category
        certainty = board.certainty(adjusted, exclude_flagged, wait=False)
        if certainty is None:  # being computed after a publication: empty until then, the group cell says so
            certainty = pd.DataFrame({"rank_low": pd.NA, "rank_high": pd.NA, "group": INTERVALS_PENDING,
                                      "score_low": np.nan, "score_high": np.nan}, index=ranked.index)
        else:
            certainty = certainty[scope].loc[ranked.index]
        rank, score = rank_header(category), columns[0].header
        # the score's interval beside the score, then the rank's and the tie group
        parts.append(pd.DataFrame({f"{score} {INTERVAL} low": (certainty["score_low"] * 100).round(2),
                                   f"{score} {INTERVAL} high": (certainty["score_high"] * 100).round(2),
                                   f"{rank} {INTERVAL} low": certainty["rank_low"].astype("Int64"),
                                   f"{rank} {INTERVAL} high": certainty["rank_high"].astype("Int64"),
                                   f"{'Tie group' if is_overall(category) else f'{category} tie group'}":
                                       certainty["group"]}))
    if duel_wins is not None and values != METRIC_VALUE:
        name = OVERALL if is_overall(category) else category
        parts.append(pd.DataFrame({duel_wins_header(name): (duel_wins[first].reindex(ranked.index) * 100).round(2)}))
    if not is_overall(category):
        parts.append(ranked[["rank"]].rename(columns={"rank": "Overall rank"}))
    disclosed = []
    if preview is None:
        disclosures = board.disclosures()
        disclosed.append(pd.DataFrame({PRESUBMISSIONS: [disclosures[sid].cell() for sid in ranked.index]},
                                      index=ranked.index))
    table = pd.concat([*parts, scores.iloc[:, 1:].round(2), info.drop(columns="Model"), *disclosed,
                       flag_columns(board.flags, ranked.index)], axis=1)
    table.attrs[PENDING] = certainty is not None and certainty["group"].eq(INTERVALS_PENDING).any()
    return table


def flag_columns(flags: dict, ids) -> pd.DataFrame:
    """FLAG_COLUMNS for the given submission ids: flagged or not, the reason and link."""
    return pd.DataFrame({"Flagged": [sid in flags for sid in ids],
                         "Flag reason": [flags[sid].reason if sid in flags else None for sid in ids],
                         "Flag link": [flags[sid].link if sid in flags else None for sid in ids]},
                        index=pd.Index(list(ids), name="submission_id"))


# --- for the web app: the table on screen, filters, sorting, exports, plot --------------------

def with_model_links(table: pd.DataFrame, published, shown_meta=None, as_html: bool = False) -> pd.DataFrame:
    """The table for the screen: the Model column links to the model's details in this app
    (for `published` ids; its own page is linked from there), as escaped markdown (for a
    gr.Dataframe) or with `as_html` as escaped HTML (for views.board_html), its whole
    name on hover (the column cuts long names short); a
    flagged model's name follows the MARKER, its reason shown on hover instead (and in
    `flag_note`); descriptions, links, the publisher and the flag columns stay in exports and details;
    of the metadata columns only those in `shown_meta` (None: all)."""
    hidden = [c for c in SHOWN_META if shown_meta is not None and c not in shown_meta and c in table.columns]
    publisher = [PUBLISHER] if PUBLISHER in table else []
    out = merged_intervals(table.drop(columns=["Link", "Description", *FLAG_COLUMNS, *hidden, *publisher]))
    link, text = (html_link, html.escape) if as_html else (app_link, escape_markdown)
    out["Model"] = [(f"{MARKER} " if flagged else "")
                    + (link(m, {"tab": "details", "model": sid}, f"Flagged: {reason}" if flagged else m)
                       if sid in published else text(m))
                    for sid, m, flagged, reason in zip(table.index, table["Model"], table["Flagged"],
                                                       table["Flag reason"])]
    return out


def html_link(text, query: dict, title: str) -> str:
    """markdown.app_link as an HTML link: to a view of this app, the text and title escaped."""
    return f'<a href="?{html.escape(app_query(query))}" title="{html.escape(title)}">{html.escape(text)}</a>'


def merged_intervals(table: pd.DataFrame) -> pd.DataFrame:
    """Each pair of columns "X 95% low", "X 95% high" as one text column "X 95%" ("2–5",
    "61.20–67.90"; one number when both ends are equal), in the low column's place."""
    out = table.copy()
    for low in [c for c in table.columns if c.endswith(f" {INTERVAL} low")]:
        name = low.removesuffix(" low")
        ends = [table[low], table[f"{name} high"]]
        form = "{:d}" if pd.api.types.is_integer_dtype(ends[0]) else "{:.2f}"
        text = [e.map(lambda v: "–" if pd.isna(v) else form.format(v)).astype(object) for e in ends]  # also with no rows
        out[low] = np.where(text[0] == text[1], text[0], text[0] + "–" + text[1])
        out = out.drop(columns=f"{name} high").rename(columns={low: name})
    return out


def flag_note(board: Leaderboard, exclude_flagged: bool) -> str:
    """Below the controls: which models the maintainers flagged and why, or that they are
    left out of the ranking; empty when none is flagged."""
    if not board.flags:
        return ""
    if exclude_flagged:
        titles = ", ".join(f"**{escape_markdown(board.models[sid].title)}**" for sid in board.flags)
        return f"{MARKER} Left out as flagged: {titles}. The scores are recomputed without their duels."
    items = [f"- **{escape_markdown(board.models[sid].title)}**: {escape_markdown(flag.reason)}"
             + (f" ({markdown_link('evidence', flag.link)})" if flag.link else "")
             for sid, flag in board.flags.items()]
    return "\n".join([f"{MARKER} **Flagged by the maintainers** (ranked as usual; "
                      f"not an opponent of new submissions):", *items])


def emphasised(table: pd.DataFrame, score_column: str, highlight: str | None = None):
    """Styler for gr.Dataframe: the ranking's score column in bold, the row of submission
    id `highlight` (a pre-submitted model) shaded."""
    style = table.style.set_properties(subset=[score_column], **{"font-weight": "bold"})
    if highlight in table.index:
        style = style.apply(lambda row: ["background-color: #fff3c4" if row.name == highlight else ""] * len(row),
                            axis=1)
    return style.format(cell_formats(table))


def cell_formats(table: pd.DataFrame) -> dict[str, Callable[[Any], str]]:
    """How the screen shows the columns of `table` it formats (the Dataframe's Styler and the
    Leaderboard's HTML table alike): each decimal column with two places, "–" when missing;
    Parameters (B) as parameters_text."""
    formats: dict[str, Callable[[Any], str]] = {c: two_places for c in table.select_dtypes("float").columns}
    if "Parameters (B)" in table:
        formats["Parameters (B)"] = parameters_text
    return formats


def two_places(value) -> str:
    return "–" if pd.isna(value) else f"{value:.2f}"


def filter_table(table: pd.DataFrame, search: str = "", model_types=None,
                 min_params: float | None = None, max_params: float | None = None) -> pd.DataFrame:
    """Rows whose model or team contains `search` as literal text (case-insensitive), of the
    given types and parameter range (None: no limit); ranks are kept as on the full board.
    A search over MAX_SEARCH_CHARS matches nothing (filter_note says why)."""
    keep = pd.Series(True, index=table.index)
    if search and search.strip():
        # Lower-cased on both sides: pandas' case=False runs the text through a regex engine,
        # which refuses long patterns.
        keep &= (len(search.strip()) <= MAX_SEARCH_CHARS
                 and table["Model"].str.lower().str.contains(search.strip().lower(), regex=False))
    if model_types:
        keep &= table["Type"].isin(model_types)
    if min_params is not None:
        keep &= table["Parameters (B)"] >= min_params
    if max_params is not None:
        keep &= table["Parameters (B)"] <= max_params
    return table[keep]


@dataclass(frozen=True)
class TablePage:
    """One page of a view: the rows matching its search and filters in its order, which
    page of them is shown (`rows`), of how many, and how many rows the board has."""
    matching: pd.DataFrame
    page: int  # 1 to pages
    pages: int  # at least 1, even when nothing matches
    page_rows: int
    total: int

    @property
    def start(self) -> int:
        """The page's first row's position among the matching rows, from 0."""
        return (self.page - 1) * self.page_rows

    @property
    def rows(self) -> pd.DataFrame:
        return self.matching.iloc[self.start:self.start + self.page_rows]


def table_page(table: pd.DataFrame, columns: list[ScoreColumn], page: int, page_rows: int, search: str = "",
               model_types=None, min_params: float | None = None, max_params: float | None = None,
               sort: str = RANK_SORT) -> TablePage:
    """Page `page` (from 1; beyond either end: the first or last page) of `page_rows` rows
    of the table filtered (filter_table) and sorted (sort_table) over all its rows."""
    matching = sort_table(filter_table(table, search, model_types, min_params, max_params), columns, sort)
    pages = max(1, -(-len(matching) // page_rows))
    return TablePage(matching, int(min(max(1, page), pages)), pages, page_rows, len(table))


def rows_around(table: pd.DataFrame, row_id: str, rows: int) -> pd.DataFrame:
    """`rows` consecutive rows of `table` with `row_id`'s in the middle, or as near it as the
    table's ends allow (a model's neighbourhood in the ranking)."""
    start = min(max(0, table.index.get_loc(row_id) - rows // 2), max(0, len(table) - rows))
    return table.iloc[start:start + rows]


def page_of(table: pd.DataFrame, row_id: str, page_rows: int) -> int:
    """The page (from 1) of `page_rows` rows of `table`, in its order, that holds `row_id`'s row."""
    return table.index.get_loc(row_id) // page_rows + 1


def pager_note(page: TablePage) -> str:
    """Where the page is: "Page 2 of 198 · rows 51–100 of 9,874 matching (of 10,000)"."""
    matching = len(page.matching)
    if not matching:
        return f"Page 1 of 1 · no rows match (of {page.total:,})"
    rows = (f"row {page.start + 1:,}" if len(page.rows) == 1 else
            f"rows {page.start + 1:,}–{page.start + len(page.rows):,}") + f" of {matching:,}"
    return (f"Page {page.page:,} of {page.pages:,} · {rows}"
            + (f" matching (of {page.total:,})" if matching < page.total else ""))


_TABLES: dict[tuple, tuple[object, pd.DataFrame]] = {}  # view -> (the derived dict of the state it is of, table)
MAX_CACHED_TABLES = 16


def current_table(board: Leaderboard, category: str | None = None, values: str = WIN_SCORE, adjusted: bool = False,
                  exclude_flagged: bool = False) -> pd.DataFrame:
    """leaderboard_table of the board's current state, made once per state and view:
    paging, searching and sorting reuse it. Read-only: filter or copy it."""
    key = (id(board), category, values, adjusted, exclude_flagged)
    derived, cached = board.state.derived, _TABLES.get(key)
    # Kept with the state's derived dict (so its id is not reused), which a pre-submission's
    # record, changing the revision only, keeps; a table made while the intervals were being
    # computed (after a publication) is made again once they are.
    if cached is None or cached[0] is not derived or (cached[1].attrs[PENDING] and not board.intervals_pending()):
        _TABLES.pop(key, None)
        while len(_TABLES) >= MAX_CACHED_TABLES:
            _TABLES.pop(next(iter(_TABLES)))
        cached = _TABLES[key] = (derived, leaderboard_table(board, category, values, adjusted=adjusted,
                                                          exclude_flagged=exclude_flagged))
    return cached[1]


def filter_note(shown: pd.DataFrame, total: int, search: str = "", model_types=None,
                min_params: float | None = None, max_params: float | None = None) -> str:
    """What the filters did, in words: why nothing shows, or how many of how many."""
    if search and len(search.strip()) > MAX_SEARCH_CHARS:
        return (f"**Search not applied:** it is {len(search.strip()):,} characters long; at most {MAX_SEARCH_CHARS} "
                f"(the longest model title). Shorten it.")
    if min_params is not None and max_params is not None and min_params > max_params:
        return (f"**No model can match:** the minimum size ({parameters_text(min_params)} B) is above the maximum "
                f"({parameters_text(max_params)} B). Swap or clear them.")
    if total == 0:
        return "**No model is published yet.** The first one published appears here (see the Submit tab)."
    if shown.empty:
        asked = []
        if search and search.strip():
            asked.append(f"“{escape_markdown(search.strip())}” in the model or team name")
        if model_types:
            asked.append("type " + " or ".join(model_types))
        if min_params is not None or max_params is not None:
            asked.append(f"{parameters_text(min_params) or 'any'}–{parameters_text(max_params) or 'any'} B parameters")
        return (f"**No model matches** {', '.join(asked)} (of {total} models). "
                f"Clear the search or widen the filters.")
    if len(shown) < total:
        return f"Showing {len(shown):,} of {total:,} models (ranks are on the full board)."
    return ""


def sort_choices(columns: list[ScoreColumn]) -> list[tuple[str, str]]:
    """(label, key) for the sort control: the rank, then every score column, then size."""
    return [("Rank", RANK_SORT), *[(c.header, c.key) for c in columns], ("Parameters (B)", "parameters")]


def sort_table(table: pd.DataFrame, columns: list[ScoreColumn], key: str) -> pd.DataFrame:
    """Best first by the score column `key` (lowest first for perplexity), largest first by
    "parameters"; RANK_SORT or an unknown key keeps the ranking's order."""
    by = {c.key: (c.header, c.lower_is_better) for c in columns}
    by["parameters"] = ("Parameters (B)", False)
    if key not in by:
        return table
    header, ascending = by[key]
    return table.sort_values(header, ascending=ascending, kind="stable", na_position="last")


def _csv_safe(value):
    """Keep spreadsheet programs from running a cell as a formula."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell that a spreadsheet would run as a formula quoted: each
    distinct value of a text column checked once (pd.factorize), as a duels CSV repeats a few
    hundred texts 500,000 times at 10,000 models (cell by cell, seconds). Other cells are
    kept as they are (factorize counts 1 and True as one value: only texts are replaced)."""
    safe = table.copy(deep=False)
    texts = [name for name, dtype in table.dtypes.items() if dtype == object or pd.api.types.is_string_dtype(dtype)]
    for name in texts:
        codes, distinct = pd.factorize(table[name])  # a missing value: code -1
        quoted = np.array([_csv_safe(value) for value in distinct], dtype=object)
        changed = np.array([q is not value for q, value in zip(quoted, distinct)], dtype=bool)
        if changed.any():
            rows = (codes >= 0) & changed[codes]
            values = table[name].to_numpy(dtype=object, copy=True)
            values[rows] = quoted[codes[rows]]
            safe[name] = values
    return safe


def percent(fraction) -> str:
    """A win score for a sentence: "63.50%", or "no duels yet" for a model without any."""
    return "no duels yet" if fraction is None or np.isnan(fraction) else f"{fraction * 100:.2f}%"


def p_text(p) -> str:
    """A p-value for a table cell: two significant digits, "< 0.0001" below that, "–" unknown."""
    if p is None or np.isnan(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.2g}"


def p_phrase(p) -> str:
    """A p-value in a sentence: "p = 0.012", "p < 0.0001"."""
    text = p_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def parameters_text(billions) -> str:
    """Parameters (billions) as everywhere on the page: "7", "1.5"; "" when not given."""
    return "" if billions is None or billions == "" or np.isnan(float(billions)) else f"{float(billions):g}"


def export_name(*parts: str) -> str:
    """A file name from words: lower case, dashes, e.g. benczechmark_ner_metric-value_2025-03-01."""
    return "_".join(re.sub(r"[^a-z0-9.]+", "-", p.lower()).strip("-") for p in parts if p)


EXPORTS = Path(tempfile.gettempdir()) / f"leaderboard-exports-{os.getpid()}"
MAX_EXPORTS = 64


def export_file(data: bytes, file_name: str) -> str:
    """Write a download and return its path. Files are named by their content, so
    rendering a view again reuses its file, and only the newest MAX_EXPORTS are kept
    (Gradio serves its own copy, deleted by the app's `delete_cache`)."""
    path = EXPORTS / hashlib.sha256(data).hexdigest()[:16] / file_name
    if path.exists():
        os.utime(path.parent)  # newest again: not pruned below
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    prune_exports()
    return str(path)


def prune_exports() -> None:
    """Keep only the newest MAX_EXPORTS downloads' folders."""
    for old in sorted(EXPORTS.iterdir(), key=lambda p: p.stat().st_mtime)[:-MAX_EXPORTS]:
        shutil.rmtree(old, ignore_errors=True)


def export_table(table: pd.DataFrame, fmt: str, name: str = "leaderboard") -> str:
    """The table as `<name>.csv` or `<name>.json` (see `export_file`); returns its path."""
    data = (spreadsheet_safe(table).to_csv(index=False) if fmt == "csv"
            else table.to_json(orient="records", indent=1, force_ascii=False)).encode("utf-8")
    return export_file(data, f"{name}.{fmt}")


_EXPORTS: dict[tuple, tuple[object, dict[str, str]]] = {}  # key -> (what they were made from, paths by format)
MAX_CACHED_EXPORTS = 32


def kept_exports(key: tuple, source: object, make: Callable[[], dict[str, str]]) -> dict[str, str]:
    """make()'s downloads (paths by format), made once per `key` while `source` (a table the
    key names by its id, or the board it was made from) is the same object, and again if a file was pruned: at
    10,000 models a view's CSV and JSON are 10,000 rows each, a panel member's duels 500,000."""
    cached = _EXPORTS.get(key)
    if cached is not None and cached[0] is source and all(os.path.exists(path) for path in cached[1].values()):
        return cached[1]
    _EXPORTS.pop(key, None)
    while len(_EXPORTS) >= MAX_CACHED_EXPORTS:
        _EXPORTS.pop(next(iter(_EXPORTS)))
    paths = make()
    _EXPORTS[key] = (source, paths)  # the source kept with them, so its id is not reused
    return paths


def view_exports(table: pd.DataFrame, matching: pd.DataFrame, name: str, view: tuple) -> dict[str, str]:
    """The CSV and JSON (export_table) of `matching`, the rows of the current_table `table`
    that a view's search, filters and sort (`view`, hashable) give, kept (kept_exports) as
    the table is."""
    return kept_exports((id(table), name, view), table,
                        lambda: {fmt: export_table(matching, fmt, name) for fmt in ("csv", "json")})


def board_export_name(board: Leaderboard, category: str | None, values: str, adjusted: bool = False) -> str:
    """e.g. benczechmark_ner_metric-value_2025-03-01; with `adjusted` ..._bh-adjusted_2025-03-01."""
    kind = VALUE_NAMES[WIN_SCORE if is_overall(category) else values]
    return export_name(board.benchmark.name, category or OVERALL, kind, "bh-adjusted" if adjusted else "",
                       as_of(board).strftime("%Y-%m-%d"))


def as_of(board: Leaderboard) -> dt.datetime:
    """When the store last changed (publication, removal, rebuild), in UTC."""
    return dt.datetime.fromtimestamp(board.store.updated_at(), dt.timezone.utc)


def as_of_note(board: Leaderboard) -> str:
    if not board.models:  # an empty store has no time of its last change
        return "No model published yet."
    refreshing = (" **Intervals are being computed** for the board as it is now: reload in a few seconds."
                  if board.intervals_pending() else "")
    return (f"Data as of **{as_of(board):%Y-%m-%d %H:%M} UTC** · {len(board.models)} models. "
            f"Scores change as models arrive.{refreshing}")


def shown_version(board: Leaderboard) -> str:
    """What a shown table was made from: the board's revision, and whether its intervals
    were still being computed (a table shown then is shown again once they are)."""
    return f"{board.revision} intervals pending" if board.intervals_pending() else str(board.revision)


def log_ticks(values) -> list[float]:
    """1-2-5 ticks (0.5, 1, 2, 5, 10, ...) spanning the values, for a readable log axis."""
    positive = pd.Series(values, dtype=float).dropna()
    positive = positive[positive > 0]
    if positive.empty:
        return []
    low, high = np.floor(np.log10(positive.min())), np.ceil(np.log10(positive.max()))
    ticks = (np.array([1, 2, 5]) * 10.0 ** np.arange(low, high + 1)[:, None]).ravel()
    return [float(f"{t:.3g}") for t in ticks if positive.min() / 2 <= t <= positive.max() * 2]


PLOT_POINTS = 1000  # the plot's most models (more are slow to draw and cannot be told apart)


def score_scatter(table: pd.DataFrame, score_column: str) -> go.Figure:
    """Score against parameters (log scale with 1-2-5 ticks), model names on hover; of the
    first PLOT_POINTS rows only (the title says so when there are more)."""
    import plotly.graph_objects as go  # here: the command line prints tables without it
    total = len(table)
    table = table.iloc[:PLOT_POINTS]
    fig = go.Figure(go.Scatter(
        x=table["Parameters (B)"], y=table[score_column], mode="markers",
        marker={"size": 10, "color": table[score_column], "colorscale": "Viridis", "showscale": False},
        text=[html.escape(str(m)) for m in table["Model"]],
        hovertemplate="%{text}<br>%{x} B parameters<br>" + html.escape(score_column) + " %{y:.2f}<extra></extra>"))
    ticks = log_ticks(table["Parameters (B)"])
    fig.update_layout(xaxis={"type": "log", "title": "Parameters (billions, log scale)", "tickvals": ticks,
                             "ticktext": [f"{t:g}" for t in ticks]},
                      yaxis={"title": score_column}, margin={"l": 50, "r": 20, "t": 30, "b": 50},
                      height=420, template="plotly_white",
                      title={"text": f"The first {PLOT_POINTS:,} of {total:,} models in this view's order",
                             "font": {"size": 13}} if total > PLOT_POINTS else None)
    return fig


def column_types(table: pd.DataFrame) -> list[str]:
    """gr.Dataframe datatypes: markdown for the model links, numbers for numbers."""
    return ["markdown" if c == "Model" else "number" if pd.api.types.is_numeric_dtype(table[c]) else "str"
            for c in table.columns]


def header_titles(board: Leaderboard) -> dict[str, str]:
    """Hover text for score columns: every header a category or task can have -> what it
    is (full task name and metric), how it is computed, its weight in Overall."""
    weights = board.benchmark.task_weights
    if board.benchmark.opponents == TOP_OF_ITS_DAY:
        what = f"% of duels won (one-sided test, p ≤ {board.benchmark.alpha:g})"
    else:
        what = "% of the other models whose score on the task is lower (near-copies counted as one model)"
    duels = f"% of the reference panel beaten in duels (one-sided test, p ≤ {board.benchmark.alpha:g})"
    titles = {score_header(board, OVERALL): f"Overall: the mean of the categories' scores, each {what}",
              duel_wins_header(OVERALL): f"{duels}, mean of the categories: evidence, not ranked by"}
    for c in board.benchmark.categories:
        titles[score_header(board, c)] = (f"{c}: the mean of its tasks' scores, each {what}; "
                                          f"weighs {1 / len(board.benchmark.categories):.1%} of Overall")
        titles[duel_wins_header(c)] = f"{c}: {duels}, mean of its tasks"
    for t in board.benchmark.tasks:
        titles[score_header(board, t.abbreviation)] = f"{t.name}: {what}; weighs {weights[t.id]:.1%} of Overall"
        titles[metric_header(t)] = f"{t.name} ({metric_description(t)})"
    for scope in [OVERALL, *board.benchmark.categories]:
        titles.update(certainty_titles(board, scope))
    return {**titles, **COLUMN_TITLES}


# What the columns beside the scores hold, for a newcomer (their headers' explanations).
COLUMN_TITLES = {
    "Model": "Team/model; click it for the model's details: its duels and its result on every task",
    "Overall rank": "The model's rank by its overall score, beside this category's rank",
    "Type": "How the model was trained (pretrained, chat, ensemble), as its team declared",
    "Parameters (B)": "The model's size in billions of parameters, as its team declared",
    "Precision": "The number format the model was run in (float16, bfloat16, 8bit...), as declared",
    "Input length (tokens)": "The longest input the model was run with, in tokens, as declared",
    "Submitted": "The day the model was published on this board (UTC)",
    PRESUBMISSIONS: "Pre-submissions the team made in the 30 days before publishing, with the ranks they would have had",
    "Previous rank": "The model's rank on the board as it is now",
    "Rank change": "Places the model would move if the new model were published",
}


def certainty_titles(board: Leaderboard, scope: str) -> dict[str, str]:
    """The explanations of a view's rank, its intervals and its tie group (`scope`: Overall or a category)."""
    rank, score = rank_header(scope), score_header(board, scope)
    group = "Tie group" if is_overall(scope) else f"{scope} tie group"
    return {rank: f"Position by {scope} score (1 = best); near-copies of one model and equal scores share a rank",
            f"{score} {INTERVAL}": "Where the score would lie (95%) on other draws of test items of the same sizes",
            f"{rank} {INTERVAL}": "The ranks the model could take (95%) on other draws of test items of the same sizes",
            group: "Models sharing a letter cannot be told apart: their rank intervals overlap"}


def weights_note(benchmark) -> str:
    """Each task's weight in Overall, per category, and the effective number of tasks:
    "NLI: 16 tasks, 0.7% each; ... That is worth 27 effective tasks of 50 (...)"."""
    weights = benchmark.task_weights
    per_category = "; ".join(
        f"{escape_markdown(c)}: {len(tasks)} task{'s' * (len(tasks) > 1)}, {weights[tasks[0].id]:.1%}"
        f"{' each' * (len(tasks) > 1)}" for c in benchmark.categories for tasks in [benchmark.tasks_in(c)])
    return (f"{per_category}. That is worth **{benchmark.effective_tasks:.3g} effective tasks of "
            f"{len(benchmark.tasks)}** (1 / the sum of the squared weights).")


def metric_description(task) -> str:
    """The task's metric in words with what the task declares: "judge score, 0–1: 50%
    helpfulness + 30% relevance + 20% brevity", "macro-F1 over 3 labels", "perplexity,
    lower is better"."""
    text = task.metric_title
    if task.labels:
        text += f" over {len(task.labels)} labels"
    if task.score_range:
        text += f", {task.score_range[0]:g}–{task.score_range[1]:g}"
    if task.criteria:
        text += ": " + " + ".join(f"{w:.0%} {name}" for name, w in task.criteria)
    return text + ("" if task.metric.higher_is_better else ", lower is better")


def category_legend(board: Leaderboard, category: str | None) -> str:
    if is_overall(category):
        if board.benchmark.opponents == TOP_OF_ITS_DAY:
            what = ("Every score column is a **win score**: the percentage of duels won, averaged over a "
                    "category's tasks; Overall averages the categories.")
        else:
            what = ("**Score**: per task, the % of the other models whose result is lower (near-copies of one "
                    "model count as one), averaged over a category's tasks; Overall averages the categories. "
                    "**Overall score % 95%** and **Rank 95%**: where the score and the rank would lie on other "
                    "draws of test items of these sizes. **Tie group**: models whose rank intervals all overlap "
                    "share its letter. **Duel wins**: "
                    "% of the reference panel beaten in significant duels (evidence; not ranked by).")
        return (what + " Metric values are per task: choose a category.\n\n"
                f"So a task of a category with k tasks weighs 1/({len(board.benchmark.categories)} × k) of Overall: "
                + weights_note(board.benchmark))
    tasks = board.benchmark.tasks_in(category)
    weights = board.benchmark.task_weights
    rows = [f"| {escape_markdown(t.abbreviation)} | {escape_markdown(t.name)} | {markdown_link('dataset', t.dataset_url) if t.dataset_url else 'not public'} "
            f"| {escape_markdown(metric_description(t))} | {weights[t.id]:.1%} |" for t in tasks]
    return "\n".join([f"**{escape_markdown(category)}** tasks", "",
                      "| Abbreviation | Task | Data | Metric | Weight in Overall |",
                      "| --- | --- | --- | --- | --- |", *rows])
