"""The web app: Gradio components wired to `leaderboard.views` functions, nothing more.

    python app.py      # serves on GRADIO_SERVER_PORT (default 7860)
"""
from __future__ import annotations

import functools
import json
import logging
import math
import os

import gradio as gr
from gradio.route_utils import get_root_url
from starlette.middleware import Middleware

import content
from leaderboard.board import open_configured_board
from leaderboard.storage.hub import HubStore
from leaderboard.limits import MB, TempDiskBudget, UploadGate, UploadWindow
from leaderboard.previews import DEFAULT_TTL_SECONDS, PreviewShelf, lifetime_text
from leaderboard.errors import BadInput, StoreFailure
from leaderboard.submission.archive import MAX_ARCHIVE_BYTES
from leaderboard.submission.parsing import MODEL_TYPES, PRECISIONS
from leaderboard.config.tasks import TasksFileError
from leaderboard.views import compare, details, share, submission, table as board_views
from leaderboard.views.api import ENDPOINTS, ReadApi
from leaderboard.views.markdown import escape_markdown

log = logging.getLogger("leaderboard.app")
READ_ONLY = os.environ.get("LEADERBOARD_READ_ONLY", "").lower() in ("1", "true", "yes")
# Uploads and exports in Gradio's cache are deleted once they are this old (seconds);
# a pre-submission waits at most as long for its confirmation.
CACHE_SECONDS = int(os.environ.get("LEADERBOARD_CACHE_SECONDS", DEFAULT_TTL_SECONDS))
CACHE_SWEEP_SECONDS = min(60, CACHE_SECONDS)  # how often Gradio looks for old files
# Temporary disk in all (uploads while Gradio keeps them, archives while they are unpacked),
# and what one address may upload per hour.
TEMP_DISK = TempDiskBudget(int(os.environ.get("LEADERBOARD_TEMP_DISK_MB", "4096")) * MB)
UPLOADS = UploadWindow(int(os.environ.get("LEADERBOARD_UPLOADS_PER_HOUR", "20")),
                       int(os.environ.get("LEADERBOARD_UPLOAD_MB_PER_HOUR", "1024")) * MB)
OVERALL = board_views.OVERALL
VALUE_CHOICES = [("Win score (%)", board_views.WIN_SCORE), ("Metric value (per task)", board_views.METRIC_VALUE)]
VALUES_IN_OVERALL = "Overall shows win scores only; choose a category to see each task's metric."
VALUES_IN_CATEGORY = "Win score: % of duels won. Metric value: the task's own metric, in the header's unit."
COMPILING = "**Compiling the archive** (unpacking and reading the logs takes a few seconds) …"
# Gradio's Dataframe sets a header's title to its own text; this puts the task's full name
# there instead (and again whenever Gradio re-renders a header). It also defines the URL
# writer of the shareable views.
PAGE_JS = """() => {
  %s
  const titles = %s;
  const label = () => {
    document.querySelectorAll("th.header-cell").forEach((th) => {
      const title = titles[th.querySelector("span.header")?.textContent.trim()];
      if (title && th.title !== title) th.title = title;
    });
    // The pinned Model column starts where the rank column (its width follows the view) ends.
    const board = document.getElementById("board"), rank = board?.querySelector("thead th");
    if (rank) board.style.setProperty("--rank-width", `${rank.getBoundingClientRect().width}px`);
  };
  new MutationObserver(label).observe(document.body, {subtree: true, childList: true,
                                                      attributes: true, attributeFilter: ["title"]});
  label();
}"""
# After a pre-submission, bring the new model's row (★) into view. The preview's rows are
# rendered virtually: jump to where the row (position `index`) should be by the rendered
# rows' height, then step until it is rendered and centre it.
SCROLL_TO_NEW_ROW_JS = """async (index) => {
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const viewport = document.querySelector("#preview .virtual-table-viewport");
  let jumped = false;
  for (let i = 0; viewport && index !== null && i < 300; i++) {
    const rows = [...viewport.querySelectorAll("div[role=row]")];
    const row = rows.find((r) => r.textContent.includes("★"));
    if (row) {
      row.scrollIntoView({block: "center", behavior: "instant"});
      break;
    }
    if (rows.length && !jumped) {
      viewport.scrollTop = Math.max(0, index * rows[0].getBoundingClientRect().height - viewport.clientHeight / 2);
      jumped = true;
    } else if (rows.length) {
      viewport.scrollTop += viewport.clientHeight / 2;
    }
    await frame();
  }
}"""
SCROLL_TO_STATUS_JS = """(...inputs) => {
  document.getElementById("status")?.scrollIntoView({block: "start", behavior: "instant"});
  return inputs;
}"""
# The system's own fonts: the theme's web fonts are three downloads that hold up the first paint.
THEME = gr.themes.Soft(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])
MODEL_WIDTH = "170px"  # the pinned Model column, right of the rank
RESTORED_KEYS = ["category", "search", "types", "min", "max", "columns", "p"]  # sort, values, flagged: with the table
# Events of the page are for the page: only the read API's endpoints (gr.api) are public.
PRIVATE = {"api_visibility": "private"}
BOARD_OUTPUTS = 11  # what board_view updates
CSS = """
#board th:nth-child(-n+2), #board [role=gridcell]:nth-child(-n+2) {
  position: sticky; z-index: 3; background: var(--table-even-background-fill);
}
#board th:nth-child(1), #board [role=gridcell]:nth-child(1) { left: 0; }
#board th:nth-child(2), #board [role=gridcell]:nth-child(2) {
  left: var(--rank-width, 60px); box-shadow: 2px 0 0 var(--border-color-primary);
}
#board th .header, #preview th .header { word-break: normal; overflow-wrap: normal; hyphens: none; }
#duels [role=gridcell], #duels th { font-size: 12px; }
#legend th, #legend td { word-break: normal; overflow-wrap: normal; hyphens: none; }
.score-bars { margin: 0; max-width: 720px; }
.score-bars figcaption { font-weight: 600; margin-bottom: 6px; }
.bar-row { display: grid; grid-template-columns: minmax(4em, 17em) minmax(30%, 1fr) 3.5em; align-items: center; gap: 8px; }
input[role=combobox] { padding-right: 28px !important; text-overflow: ellipsis; }  /* the text stops before the arrow */
.bar-label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar-track { background: var(--background-fill-secondary); height: 16px; border-radius: 3px; }
.bar { display: block; height: 100%; background: #4C78A8; border-radius: 3px; }
.bar-value { text-align: right; font-variant-numeric: tabular-nums; }
@media (max-width: 640px) {
  #intro p { display: none; }
  #intro h1 { font-size: 1.3em; margin: 0; }
  .tab-wrapper button { padding: 4px 3px !important; font-size: 12px !important; }
  #p-values { padding: 4px 8px !important; }
  #p-values .info-text, #p-values [data-testid=block-info] { display: none; }
  #p-values .wrap { flex-wrap: nowrap; gap: 6px; }
  #p-values label { padding: 4px 8px !important; font-size: 13px !important; white-space: nowrap; }
  #board-controls { gap: 4px; }
  #values .info-text { display: none; }
  #board-controls > div { min-width: 45% !important; }
  #legend table { display: block; overflow-x: auto; font-size: 13px; }
  #legend th, #legend td { padding: 4px 6px; }
}
"""


def rank_width(header: str) -> str:
    """The pinned rank column's width: its header's longest word on one line ("Understanding"
    in "Czech Language Understanding rank"); headers are 14px monospace, 0.6em a letter,
    plus the cell's padding and a margin for fonts a little wider."""
    return f"{max(60, math.ceil(8.6 * max(map(len, header.split())) + 20))}px"


def build_app(board, previews: PreviewShelf | None = None) -> gr.Blocks:
    categories = [OVERALL, *board.benchmark.categories]
    previews = previews or PreviewShelf(ttl=CACHE_SECONDS)

    def board_parts(category, values, search, types, min_params, max_params, sort, shown_meta, p_values,
                    exclude_flagged,
                    plot_open=False):
        """Everything the Leaderboard tab shows for one view, from the current board."""
        board.refresh()
        values = values if category != OVERALL else board_views.WIN_SCORE
        columns = board_views.score_columns(board, category, values)
        full = board_views.leaderboard_table(board, category, values, adjusted=p_values == board_views.ADJUSTED_P,
                                             exclude_flagged=exclude_flagged)
        shown = board_views.filter_table(full, search, types, min_params, max_params)
        shown = board_views.sort_table(shown, columns, sort)
        display = board_views.with_model_links(shown, board.models, shown_meta)
        name = board_views.board_export_name(board, category, values, p_values == board_views.ADJUSTED_P)
        sorts = board_views.sort_choices(columns)
        return dict(
            table=board_views.emphasised(display, columns[0].header), datatype=board_views.column_types(display),
            widths=[rank_width(display.columns[0]), MODEL_WIDTH, *["auto"] * (len(display.columns) - 2)],
            note="\n\n".join(filter(None, [board_views.filter_note(shown, len(full), search, types, min_params,
                                                                  max_params),
                                            board_views.flag_note(board, exclude_flagged)])),
            legend=board_views.category_legend(board, category),
            csv=board_views.export_table(shown, "csv", name), json=board_views.export_table(shown, "json", name),
            plot=board_views.score_scatter(shown, columns[0].header) if plot_open else gr.skip(),
            sorts=sorts, sort=sort if sort in [key for _, key in sorts] else board_views.RANK_SORT,
            values=values, values_open=category != OVERALL, as_of=board_views.as_of_note(board),
            revision=board.revision, exclude_flagged=exclude_flagged, any_flagged=bool(board.flags))

    def board_view(*view):
        """board_parts as updates of board_outputs."""
        p = board_parts(*view)
        return (gr.Dataframe(value=p["table"], datatype=p["datatype"], column_widths=p["widths"]), p["note"],
                p["legend"], p["csv"], p["json"], p["plot"], gr.Dropdown(choices=p["sorts"], value=p["sort"]),
                gr.Radio(value=p["values"], interactive=p["values_open"],
                         info=VALUES_IN_CATEGORY if p["values_open"] else VALUES_IN_OVERALL),
                p["as_of"], p["revision"], gr.Checkbox(value=p["exclude_flagged"], visible=p["any_flagged"]))

    def render_plot(*view):
        table = board_views.leaderboard_table(board, view[0], view[1], adjusted=view[8] == board_views.ADJUSTED_P,
                                              exclude_flagged=view[9])
        shown = board_views.filter_table(table, *view[2:6])
        return board_views.score_scatter(shown, board_views.score_columns(board, view[0], view[1])[0].header)

    def refresh_if_changed(shown_revision, *view):
        """On opening the Leaderboard tab: re-render only when the board changed meanwhile."""
        board.refresh()
        return board_view(*view) if board.revision != shown_revision else (gr.skip(),) * BOARD_OUTPUTS

    def render_model(submission_id, category, p_values):
        board.refresh()
        adjusted = p_values == board_views.ADJUSTED_P
        choices = gr.Dropdown(choices=details.model_choices(board), value=submission_id)
        if not submission_id or submission_id not in board.models:
            return choices, "Pick a model.", None, None, None, None
        duels = details.duel_table(board, submission_id, category, board.duels(adjusted),
                                   rank_order=board.ranked(adjusted).index)
        return (choices, details.model_card(board, submission_id, category, adjusted),
                details.score_bars(board, submission_id, category, adjusted), details.duel_summary(duels, category),
                gr.Dataframe(value=details.duel_grid(duels, category),
                             column_widths=details.grid_widths(duels, category)),
                board_views.export_table(duels, "csv", board_views.export_name(
                    board.benchmark.name, board.models[submission_id].title, category, "duels",
                    "bh-adjusted" if adjusted else "")))

    def render_pair(a, b, category, p_values):
        """The Head-to-head tab: models a and b on the category's tasks."""
        board.refresh()
        adjusted = p_values == board_views.ADJUSTED_P
        choices = details.model_choices(board)
        pickers = gr.Dropdown(choices=choices, value=a), gr.Dropdown(choices=choices, value=b)
        try:
            result = compare.head_to_head(board, a, b, category, adjusted)
        except ValueError as e:  # not two published models, or an unknown category
            return *pickers, f"**{escape_markdown(e)}**", None, None, None, None
        name = board_views.export_name(board.benchmark.name, result.title_a, "vs", result.title_b, result.category,
                                       "bh-adjusted" if adjusted else "")
        return (*pickers, compare.head_to_head_summary(result), result.record, compare.head_to_head_figure(result),
                compare.head_to_head_display(result),
                board_views.export_table(compare.head_to_head_export(result), "csv", name))

    def render_map(scope, p_values):
        return compare.duel_map_figure(compare.duel_map(board, scope, p_values == board_views.ADJUSTED_P,
                                                        compare.MAP_MODELS))

    default_view = share.view_from_query({}, board)
    first = board_parts(*[default_view[k] for k in share.BOARD_KEYS])
    first_revision = first["revision"]
    def best_two() -> list:
        """The two best models' ids, None where the board has fewer."""
        return [*board.ranked().index[:2], None, None][:2]

    default_model = board.ranked().index[0] if len(board.models) else None
    default_pair = best_two()

    def restore_view(plot_open, request: gr.Request):
        """On page load: the view the link asks for (its query), from the current board."""
        view = share.view_from_query(request.query_params, board)
        board.refresh()
        unchanged = board.revision == first_revision and view == default_view
        top = best_two()  # the board may have changed
        model, a, b = view["model"] or top[0], view["a"] or top[0], view["b"] or top[1]
        choices = details.model_choices(board)
        shown_details = (render_model(model, view["details_category"], view["p"]) if view["tab"] == "details" else
                         (gr.Dropdown(choices=choices, value=model), *(gr.skip(),) * 5))
        shown_pair = (render_pair(a, b, view["h2h_category"], view["p"]) if view["tab"] == "head-to-head" else
                      (gr.Dropdown(choices=choices, value=a), gr.Dropdown(choices=choices, value=b),
                       *(gr.skip(),) * 5))
        shown_map = ((view["map"], gr.Accordion(open=True), True, render_map(view["map"], view["p"])) if view["map"] else
                     (gr.skip(),) * 4)
        return (gr.Tabs(selected=view["tab"]) if view["tab"] != default_view["tab"] else gr.skip(),
                *[view[k] for k in RESTORED_KEYS],
                *((gr.skip(),) * BOARD_OUTPUTS if unchanged else
                  board_view(*[view[k] for k in share.BOARD_KEYS], plot_open)),
                view["details_category"], *shown_details, view["h2h_category"], *shown_pair, None, None, *shown_map)

    def about_page(request: gr.Request) -> str:
        """The About tab, its API example addressed to this server as the browser reached it
        (behind a proxy: the forwarded host)."""
        return content.about(board.benchmark, get_root_url(request.request, request.request.url.path, None) + "/")

    def presubmit(team, model, model_type, params, input_length, precision, description, link, file,
                  request: gr.Request, progress=gr.Progress()):
        hidden = gr.update(visible=False)
        failed = (hidden, hidden, None, None, hidden, hidden)
        if not file:
            return "", "", "**Choose a results file first.**", *failed
        form = dict(team_name=team, model_name=model, model_type=model_type, parameters=params,
                    input_length=input_length, precision=precision, description=description, link_to_model=link)
        try:
            source = (submission.compile_archive(board, file, lambda f, m: progress(f, desc=m), TEMP_DISK).data
                      if submission.is_archive(file) else file)
            preview = board.presubmit(source, form, progress=lambda f, m: progress(f, desc=m))
        except BadInput as e:
            form_problems, file_problems = submission.split_problems(e.problems)
            return ("**The submission was not accepted**: see the messages by the form and the file.",
                    submission.problems_markdown(board.benchmark, form_problems, "Fix these fields:"),
                    submission.problems_markdown(board.benchmark, file_problems, "The file was not accepted:"),
                    *failed)
        duels = details.duel_table(board, preview.submission_id, None, preview.tournament,
                                   {**board.models, preview.submission_id: preview.model}, preview.table.index)
        preview_display = board_views.with_model_links(submission.preview_table(board, preview), board.models)
        return (submission.preview_summary(board, preview), "", "",
                gr.Dataframe(value=board_views.emphasised(preview_display, board_views.score_columns(board, None)[0].header,
                                                          preview.submission_id),
                             datatype=board_views.column_types(preview_display), visible=True),
                gr.Dataframe(value=details.duel_grid(duels), column_widths=details.grid_widths(duels), visible=True),
                previews.put(request.session_hash, preview), preview_display.index.get_loc(preview.submission_id),
                gr.update(visible=not READ_ONLY), hidden)

    def compiling(file):
        """Before a .zip is compiled (seconds): say so, and hold Pre-submit until it is done."""
        if not submission.is_archive(file):
            return gr.skip(), gr.skip()
        return COMPILING, gr.Button(interactive=False)

    def uploaded(file, team, model, input_length, params, precision, progress=gr.Progress()):
        """A .zip of harness output: compiled at once, so the form is filled in from its logs
        and the compiled JSON can be downloaded; a JSON file: nothing to do."""
        hidden = gr.DownloadButton(visible=False)
        if not submission.is_archive(file):
            return "", hidden, team, model, input_length, params, precision
        try:
            compiled = submission.compile_archive(board, file, lambda f, m: progress(f, desc=m), TEMP_DISK)
        except BadInput as e:
            return (submission.problems_markdown(board.benchmark, e.problems, "The archive was not accepted:"),
                    hidden, team, model, input_length, params, precision)
        form = compiled.form
        return (compiled.summary, gr.DownloadButton(value=submission.compiled_file(board, compiled), visible=True),
                team or form.get("team_name", ""), model or form.get("model_name", ""),
                form.get("input_length", input_length), form.get("parameters", params),
                form.get("precision", precision))

    def publish(token: str | None, request: gr.Request, progress=gr.Progress()):
        preview = previews.get(request.session_hash, token)
        if preview is None or READ_ONLY:
            message = ("Nothing to publish: pre-submit a file first." if token is None or READ_ONLY else
                       f"This pre-submission has expired (they are kept for {lifetime_text(CACHE_SECONDS)}); "
                       "pre-submit the file again.")
            return message, None, gr.update(visible=False), gr.update(), gr.skip()
        try:
            sid = board.publish(preview, progress=lambda f, m: progress(f, desc=m))
        except (BadInput, StoreFailure) as e:  # a store failure's message says whether anything landed
            problems, heading = ((e.problems, "Publishing failed:") if isinstance(e, BadInput)
                                 else ([str(e)], "The store could not be written:"))
            return (submission.problems_markdown(board.benchmark, problems, heading), None,
                    gr.update(visible=False), gr.update(), gr.skip())
        previews.discard(request.session_hash, token)
        published = board_views.with_model_links(submission.published_table(board, sid), board.models)
        return (submission.published_summary(board, sid), None, gr.update(visible=False),
                gr.update(choices=details.model_choices(board), value=sid),
                gr.Dataframe(value=board_views.emphasised(published, board_views.score_columns(board, None)[0].header, sid),
                             datatype=board_views.column_types(published)))

    with gr.Blocks(title=content.title(board.benchmark), delete_cache=(CACHE_SWEEP_SECONDS, CACHE_SECONDS)) as app:
        gr.Markdown(content.intro(board.benchmark), elem_id="intro")
        p_values = gr.Radio(board_views.P_VALUE_CHOICES, value=default_view["p"], label="Significance of a duel",
                            info=content.P_VALUES_INFO, elem_id="p-values")
        with gr.Tabs(selected=default_view["tab"]) as tabs:
            with gr.Tab("Leaderboard", id="leaderboard") as board_tab:
                as_of = gr.Markdown(first["as_of"], elem_id="as-of")
                with gr.Row(elem_id="board-controls"):
                    category = gr.Dropdown(categories, value=default_view["category"], label="Category",
                                           elem_id="category", min_width=150)
                    values = gr.Radio(VALUE_CHOICES, value=default_view["values"], label="Show", elem_id="values",
                                      interactive=False, info=VALUES_IN_OVERALL, min_width=150)
                    sort = gr.Dropdown(first["sorts"], value=default_view["sort"], label="Sort by", elem_id="sort",
                                       min_width=150)
                    search = gr.Textbox(label="Search model or team", elem_id="search", min_width=150)
                exclude_flagged = gr.Checkbox(value=default_view["exclude_flagged"], visible=first["any_flagged"],
                                              label=f"Exclude flagged models ({board_views.MARKER}): rank without "
                                                    f"them and their duels", elem_id="exclude-flagged")
                with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
                    with gr.Row():
                        types = gr.CheckboxGroup(list(MODEL_TYPES), label="Model type", elem_id="types")
                        min_params = gr.Number(label="Min parameters (B)", value=None, minimum=0,
                                               placeholder="no minimum", elem_id="min-params")
                        max_params = gr.Number(label="Max parameters (B)", value=None, minimum=0,
                                               placeholder="no maximum", elem_id="max-params")
                    shown_meta = gr.CheckboxGroup(board_views.SHOWN_META, value=default_view["columns"],
                                                  label="Columns", elem_id="columns")
                note = gr.Markdown(first["note"], elem_id="board-note")
                table = gr.Dataframe(first["table"], datatype=first["datatype"], label="Ranking", interactive=False,
                                     max_height=700, elem_id="board", wrap=True, column_widths=first["widths"])
                with gr.Row():
                    csv_button = gr.DownloadButton("Download CSV", value=first["csv"], size="sm", elem_id="csv")
                    json_button = gr.DownloadButton("Download JSON", value=first["json"], size="sm", elem_id="json")
                    copy_button = gr.Button("Copy link to this view", size="sm", elem_id="copy-link")
                link_box = gr.Textbox(label="Link to this view", interactive=False, visible=False, elem_id="link-box")
                legend = gr.Markdown(first["legend"], elem_id="legend")
                plot_open = gr.State(False)
                shown_revision = gr.State(first_revision)
                with gr.Accordion("Plot: score against model size", open=False) as plot_box:
                    scatter = gr.Plot(show_label=False, elem_id="scatter")
            with gr.Tab("Details", id="details") as details_tab:
                with gr.Row():
                    model_pick = gr.Dropdown(details.model_choices(board), value=default_model, label="Model",
                                             elem_id="model-pick")
                    detail_category = gr.Dropdown(categories, value=OVERALL, label="Category",
                                                  elem_id="details-category")
                card = gr.Markdown(elem_id="card")
                bars = gr.HTML(elem_id="bars")
                summary = gr.Dataframe(label="Duels won / lost / not significant", interactive=False,
                                       elem_id="duel-summary", max_height=420)
                gr.Markdown(details.duels_explained(board.benchmark), elem_id="duels-explained")
                duel_view = gr.Dataframe(label="Duels against each competitor", interactive=False,
                                         elem_id="duels", max_height=600, line_breaks=True, wrap=True)
                duel_csv = gr.DownloadButton("Download duels CSV", size="sm", elem_id="duel-csv")
            with gr.Tab("Head-to-head", id="head-to-head") as pair_tab:
                with gr.Row():
                    model_a = gr.Dropdown(details.model_choices(board), value=default_pair[0], label="Model A",
                                          elem_id="model-a", min_width=150)
                    model_b = gr.Dropdown(details.model_choices(board), value=default_pair[1], label="Model B",
                                          elem_id="model-b", min_width=150)
                    pair_category = gr.Dropdown(categories, value=OVERALL, label="Category", elem_id="pair-category",
                                                min_width=150)
                pair_summary = gr.Markdown(elem_id="pair-summary")
                pair_record = gr.Dataframe(label="Tasks won per category", interactive=False, elem_id="pair-record",
                                           max_height=420)
                pair_plot = gr.Plot(show_label=False, elem_id="pair-plot")
                pair_tasks = gr.Dataframe(label="Every task: metric values, Δ and p", interactive=False,
                                          elem_id="pair-tasks", max_height=600, wrap=True)
                pair_csv = gr.DownloadButton("Download head-to-head CSV", size="sm", elem_id="pair-csv")
                map_open = gr.State(False)
                with gr.Accordion(f"Duel map: every pair of the best {compare.MAP_MODELS} models on a task or "
                                  f"category", open=False, elem_id="map-box") as map_box:
                    map_scope = gr.Dropdown(compare.scope_choices(board), value=OVERALL, label="Task or category",
                                            elem_id="map-scope")
                    duel_map_plot = gr.Plot(show_label=False, elem_id="duel-map")
            with gr.Tab("Submit", id="submission") as submission_tab:
                gr.Markdown(content.submission_help(board.benchmark) + (f"\n> {content.READ_ONLY}" if READ_ONLY else ""))
                sample = gr.DownloadButton("Download a valid sample file for this leaderboard", size="sm",
                                           value=submission.sample_file(board), elem_id="sample")
                with gr.Row():
                    team = gr.Textbox(label="Team name", elem_id="team")
                    model = gr.Textbox(label="Model name", elem_id="model")
                    model_type = gr.Dropdown(list(MODEL_TYPES), label="Model type", value="pretrained")
                with gr.Row():
                    params = gr.Number(label="Parameters (billions)", value=None, minimum=0, placeholder="e.g. 7",
                                       elem_id="params")
                    input_length = gr.Number(label="Input length (tokens, a whole number)", value=None, minimum=0,
                                             placeholder="e.g. 4096", elem_id="input-length")
                    precision = gr.Dropdown(list(PRECISIONS), label="Precision", value="bfloat16")
                link = gr.Textbox(label="Link to model (http or https)", elem_id="link")
                description = gr.Textbox(label="Description (optional)", lines=2)
                form_errors = gr.Markdown(elem_id="form-errors")
                file = gr.File(label="Results file (JSON), or a .zip of lm-evaluation-harness output folders",
                               file_types=[".json", ".zip"], type="filepath", elem_id="file")
                file_errors = gr.Markdown(elem_id="file-errors")
                compiled = gr.DownloadButton("Download the compiled JSON", size="sm", visible=False,
                                             elem_id="compiled")
                presubmit_button = gr.Button("Pre-submit", variant="primary", elem_id="presubmit")
                status = gr.Markdown(elem_id="status")
                preview_state = gr.State(None)  # a token of `previews`: the preview itself stays on the server
                new_row = gr.Number(visible=False)  # the new model's position in the preview table, for the scroll
                with gr.Group(visible=False) as publish_row:
                    publish_button = gr.Button("Publish…", variant="primary", elem_id="publish")
                with gr.Group(visible=False) as confirm_box:
                    gr.Markdown(content.confirm(CACHE_SECONDS))
                    with gr.Row():
                        confirm_button = gr.Button("Yes, publish", variant="stop", elem_id="confirm")
                        cancel_button = gr.Button("Cancel", elem_id="cancel")
                preview_table = gr.Dataframe(label="The leaderboard with your model", interactive=False,
                                             elem_id="preview", max_height=600, visible=False, wrap=True)
                preview_duels = gr.Dataframe(label="Your model's duels", interactive=False, max_height=500,
                                             visible=False, line_breaks=True, wrap=True)
            with gr.Tab("About", id="about") as about_tab:
                about = gr.Markdown(elem_id="about")  # filled on load: its API example has the server's address

        board_inputs = [category, values, search, types, min_params, max_params, sort, shown_meta, p_values,
                        exclude_flagged]
        board_outputs = [table, note, legend, csv_button, json_button, scatter, sort, values, as_of, shown_revision,
                         exclude_flagged]  # shown while some model is flagged
        for control in board_inputs:
            control.input(board_view, [*board_inputs, plot_open], board_outputs, queue=False,
                          js=share.query_writer(share.BOARD_KEYS), trigger_mode="always_last", **PRIVATE)
        details_outputs = [model_pick, card, bars, summary, duel_view, duel_csv]
        pair_inputs = [model_a, model_b, pair_category, p_values]
        pair_outputs = [model_a, model_b, pair_summary, pair_record, pair_plot, pair_tasks, pair_csv]
        app.load(restore_view, [plot_open],
                 [tabs, category, search, types, min_params, max_params, shown_meta, p_values, *board_outputs,
                  detail_category, *details_outputs, pair_category, *pair_outputs,
                  params, input_length,  # Gradio's Number mounts None as 0; reset
                  map_scope, map_box, map_open, duel_map_plot],
                 queue=False, **PRIVATE)
        app.load(about_page, None, about, queue=False, **PRIVATE)
        board_tab.select(refresh_if_changed, [shown_revision, *board_inputs, plot_open], board_outputs,
                         queue=False, js=share.tab_writer("leaderboard"), **PRIVATE)
        plot_box.expand(lambda: True, None, plot_open, **PRIVATE).then(render_plot, board_inputs, scatter, queue=False,
                                                                       **PRIVATE)
        plot_box.collapse(lambda: False, None, plot_open, **PRIVATE)
        copy_button.click(lambda url: gr.Textbox(value=url, visible=True), link_box, link_box,
                          js=share.COPY_LINK_JS, queue=False, **PRIVATE)
        for control in (model_pick, detail_category):
            control.input(render_model, [model_pick, detail_category, p_values], details_outputs, queue=False,
                          js=share.query_writer(share.DETAILS_KEYS), **PRIVATE)
        # Rendered when opened, not on page load: a duel grid of 50 tasks x 99 opponents is
        # the heaviest thing on the page.
        details_tab.select(render_model, [model_pick, detail_category, p_values], details_outputs, queue=False,
                           js=share.query_writer(share.DETAILS_KEYS, tab="details"), **PRIVATE)
        for control in (model_a, model_b, pair_category):
            control.input(render_pair, pair_inputs, pair_outputs, queue=False,
                          js=share.query_writer(share.HEAD_TO_HEAD_KEYS), **PRIVATE)
        pair_tab.select(render_pair, pair_inputs, pair_outputs, queue=False,
                        js=share.query_writer(share.HEAD_TO_HEAD_KEYS, tab="head-to-head"), **PRIVATE)
        map_box.expand(lambda: True, None, map_open, **PRIVATE).then(render_map, [map_scope, p_values], duel_map_plot,
                                                                     queue=False, js=share.query_writer(share.MAP_KEYS),
                                                                     **PRIVATE)
        map_box.collapse(lambda: False, None, map_open, js=share.MAP_CLOSER_JS, **PRIVATE)
        map_scope.input(render_map, [map_scope, p_values], duel_map_plot, queue=False,
                        js=share.query_writer(share.MAP_KEYS), **PRIVATE)
        # The p-value setting changes every score: the other tabs follow (the board's own
        # handler is among board_inputs' above).
        p_values.input(render_model, [model_pick, detail_category, p_values], details_outputs, queue=False,
                       **PRIVATE).then(
            render_pair, pair_inputs, pair_outputs, queue=False, **PRIVATE).then(
            lambda scope, p, is_open: render_map(scope, p) if is_open else gr.skip(), [map_scope, p_values, map_open],
            duel_map_plot, queue=False, **PRIVATE)
        submission_tab.select(None, js=share.tab_writer("submission"))
        about_tab.select(None, js=share.tab_writer("about"))

        file.upload(compiling, file, [file_errors, presubmit_button], queue=False, **PRIVATE).then(
            uploaded, [file, team, model, input_length, params, precision],
            [file_errors, compiled, team, model, input_length, params, precision], show_progress_on=[file_errors],
            **PRIVATE).then(lambda: gr.Button(interactive=True), None, presubmit_button, queue=False, **PRIVATE)
        file.clear(lambda: ("", gr.DownloadButton(visible=False)), None, [file_errors, compiled], queue=False,
                   **PRIVATE)
        presubmit_button.click(
            presubmit, [team, model, model_type, params, input_length, precision, description, link, file],
            [status, form_errors, file_errors, preview_table, preview_duels, preview_state, new_row, publish_row,
             confirm_box],
            concurrency_limit=2, show_progress_on=[status], js=SCROLL_TO_STATUS_JS, **PRIVATE,
        ).then(None, new_row, None, js=SCROLL_TO_NEW_ROW_JS)
        publish_button.click(lambda: (gr.update(visible=False), gr.update(visible=True)), None,
                             [publish_row, confirm_box], **PRIVATE)

        def cancel(token, request: gr.Request):
            previews.discard(request.session_hash, token)
            return "Pre-submission discarded.", gr.update(visible=False), gr.update(visible=False), None, gr.update(visible=False)

        cancel_button.click(cancel, preview_state, [status, preview_table, preview_duels, preview_state, confirm_box],
                            **PRIVATE)
        confirm_button.click(publish, [preview_state], [status, preview_state, confirm_box, model_pick, preview_table],
                             concurrency_limit=1, show_progress_on=[status], js=SCROLL_TO_STATUS_JS, **PRIVATE,
                             ).then(board_view, [*board_inputs, plot_open], board_outputs, **PRIVATE)

        read_api = ReadApi(board)
        for name in ENDPOINTS:  # the public, read-only endpoints (documented in the About tab)
            gr.api(api_endpoint(getattr(read_api, name)), api_name=name)
    return app


def api_endpoint(answer):
    """A ReadApi method as an endpoint: its ValueError (an unknown category or model) is the
    caller's error message, not a bare "Error"."""
    @functools.wraps(answer)  # the signature and type hints, from which gr.api makes the endpoint's schema
    def endpoint(*args, **kwargs):
        try:
            return answer(*args, **kwargs)
        except ValueError as e:
            raise gr.Error(str(e)) from None
    return endpoint


def main():
    logging.basicConfig(level=os.environ.get("LEADERBOARD_LOG_LEVEL", "INFO").upper())
    try:
        board = open_configured_board(progress=lambda f, m: log.info("%3.0f%% %s", 100 * f, m))
    except (StoreFailure, TasksFileError) as e:
        raise SystemExit(f"cannot open the leaderboard: {e}")
    if isinstance(board.store, HubStore):  # other replicas may publish: notice their commits
        board.watch(float(os.environ.get("LEADERBOARD_POLL_SECONDS", "60")))
    app = build_app(board)
    page_js = PAGE_JS % (share.QUERY_WRITER_JS, json.dumps(board_views.header_titles(board)))
    # Uploads are admitted by address and by temporary disk before Gradio stores them.
    gate = Middleware(UploadGate, uploads=UPLOADS, disk=TEMP_DISK, keep_seconds=CACHE_SECONDS + CACHE_SWEEP_SECONDS)
    app.queue(default_concurrency_limit=8).launch(max_file_size=MAX_ARCHIVE_BYTES, theme=THEME, css=CSS,
                                                  js=page_js, app_kwargs={"middleware": [gate]})


if __name__ == "__main__":
    main()
