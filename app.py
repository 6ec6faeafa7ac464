"""The web app: Gradio components wired to `leaderboard` functions, nothing more.

    python app.py      # serves on GRADIO_SERVER_PORT (default 7860)
"""
from __future__ import annotations

import json
import logging
import os

import gradio as gr

import content
from leaderboard import views
from leaderboard.board import open_configured_board
from leaderboard.hub_store import HubStore
from leaderboard.previews import PreviewShelf
from leaderboard.store import StoreError
from leaderboard.submission import MAX_FILE_BYTES, MODEL_TYPES, PRECISIONS, SubmissionError

log = logging.getLogger("leaderboard.app")
READ_ONLY = os.environ.get("LEADERBOARD_READ_ONLY", "").lower() in ("1", "true", "yes")
# Uploads and exports in Gradio's cache are deleted once they are this old (seconds);
# a pre-submission waits at most as long for its confirmation.
CACHE_SECONDS = int(os.environ.get("LEADERBOARD_CACHE_SECONDS", "900"))
OVERALL = "Overall"
VALUE_CHOICES = [("Win score (%)", views.WIN_SCORE), ("Metric value", views.METRIC_VALUE)]
# Gradio's Dataframe sets a header's title to its own text; this puts the task's full name
# there instead (and again whenever Gradio re-renders a header).
HEADER_TITLES_JS = """() => {
  const titles = %s;
  const label = () => document.querySelectorAll("th.header-cell").forEach((th) => {
    const title = titles[th.querySelector("span.header")?.textContent.trim()];
    if (title && th.title !== title) th.title = title;
  });
  new MutationObserver(label).observe(document.body, {subtree: true, childList: true,
                                                      attributes: true, attributeFilter: ["title"]});
  label();
}"""


def build_app(board, previews: PreviewShelf | None = None) -> gr.Blocks:
    categories = [OVERALL, *board.benchmark.categories]
    previews = previews or PreviewShelf(ttl=CACHE_SECONDS)

    def model_choices():
        return [(m.title, sid) for sid, m in sorted(board.models.items(), key=lambda kv: kv[1].title.lower())]

    def current_view(category, values, search, types, min_params, max_params):
        board.refresh()
        table = views.leaderboard_table(board, category, values)
        return views.filter_table(table, search, types, min_params, max_params), views.score_columns(board, category)

    def board_view(plot_open, *view):
        """(styled table, its datatypes, legend, CSV path, JSON path, plot) of the view;
        the plot only when it is open (plotly is the slowest thing to draw)."""
        shown, score_columns = current_view(*view)
        display = views.with_model_links(shown)
        score = score_columns[0][1]
        return (views.emphasised(display, score), views.column_types(display),
                views.category_legend(board, view[0]), views.export_table(shown, "csv"),
                views.export_table(shown, "json"), views.score_scatter(shown, score) if plot_open else gr.skip())

    def render_board(plot_open, *view):
        styled, datatypes, *rest = board_view(plot_open, *view)
        return gr.Dataframe(value=styled, datatype=datatypes), *rest

    def render_plot(*view):
        shown, score_columns = current_view(*view)
        return views.score_scatter(shown, score_columns[0][1])

    default_view = (OVERALL, views.WIN_SCORE, "", [], 0, 0)
    first_table, first_types, first_legend, first_csv, first_json, _ = board_view(False, *default_view)
    first_revision = board.revision

    def refresh_board(plot_open, *view):
        """On page load: the page was built with the board as it was at start-up."""
        board.refresh()
        if board.revision != first_revision or tuple(view) != default_view:
            return render_board(plot_open, *view)
        return (gr.skip(),) * 5

    def render_model(submission_id, category):
        if not submission_id or submission_id not in board.models:
            return "Pick a model.", None, None, None
        duels = views.duel_table(board, submission_id, category)
        return (views.model_card(board, submission_id), views.category_bars(board, submission_id),
                views.duel_grid(duels), views.export_table(duels, "csv", "duels"))

    def presubmit(team, model, model_type, params, input_length, precision, description, link, file,
                  request: gr.Request, progress=gr.Progress()):
        hidden = gr.update(visible=False)
        if not file:
            return "**Choose a results file first.**", hidden, hidden, None, hidden, hidden
        form = dict(team_name=team, model_name=model, model_type=model_type, parameters=params,
                    input_length=input_length, precision=precision, description=description, link_to_model=link)
        try:
            preview = board.presubmit(file, form, progress=lambda f, m: progress(f, desc=m))
        except SubmissionError as e:
            return views.problems_markdown(e.problems), hidden, hidden, None, hidden, hidden
        table = views.with_model_links(views.preview_table(board, preview))
        duels = views.duel_table(board, preview.submission_id, None, preview.tournament,
                                 {**board.models, preview.submission_id: preview.model})
        return (views.preview_summary(board, preview),
                gr.Dataframe(value=views.emphasised(table, "Overall", preview.submission_id),
                             datatype=views.column_types(table), visible=True),
                gr.Dataframe(value=views.duel_grid(duels), visible=True), previews.put(request.session_hash, preview),
                gr.update(visible=not READ_ONLY), hidden)

    def publish(token: str | None, request: gr.Request, progress=gr.Progress()):
        preview = previews.get(request.session_hash, token)
        if preview is None or READ_ONLY:
            message = ("Nothing to publish: pre-submit a file first." if token is None or READ_ONLY else
                       "This pre-submission has expired (they are kept for 15 minutes); pre-submit the file again.")
            return message, None, gr.update(visible=False), gr.update()
        try:
            sid = board.publish(preview, progress=lambda f, m: progress(f, desc=m))
        except SubmissionError as e:
            return views.problems_markdown(e.problems), None, gr.update(visible=False), gr.update()
        previews.discard(request.session_hash, token)
        return (f"Published **{views.escape_markdown(preview.model.title)}** as `{sid}`, rank "
                f"{int(board.ranked().loc[sid, 'rank'])} of {len(board.models)}.", None, gr.update(visible=False),
                gr.update(choices=model_choices(), value=sid))

    with gr.Blocks(title=content.TITLE, delete_cache=(min(60, CACHE_SECONDS), CACHE_SECONDS)) as app:
        gr.Markdown(content.INTRO)
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                with gr.Row():
                    category = gr.Dropdown(categories, value=default_view[0], label="Category", elem_id="category")
                    values = gr.Radio(VALUE_CHOICES, value=default_view[1], label="Show")
                    search = gr.Textbox(label="Search model or team", elem_id="search")
                with gr.Row():
                    types = gr.CheckboxGroup(list(MODEL_TYPES), label="Model type")
                    min_params = gr.Number(label="Min parameters (B)", value=0, minimum=0)
                    max_params = gr.Number(label="Max parameters (B), 0 = no limit", value=0, minimum=0)
                table = gr.Dataframe(first_table, datatype=first_types, label="Ranking", interactive=False,
                                     max_height=700, elem_id="board", pinned_columns=2, wrap=True)
                with gr.Row():
                    csv_button = gr.DownloadButton("Download CSV", value=first_csv, size="sm")
                    json_button = gr.DownloadButton("Download JSON", value=first_json, size="sm")
                legend = gr.Markdown(first_legend)
                plot_open = gr.State(False)
                with gr.Accordion("Plot: score against model size", open=False) as plot_box:
                    scatter = gr.Plot(show_label=False, elem_id="scatter")
            with gr.Tab("Model details", id="details") as details_tab:
                with gr.Row():
                    top = board.ranked().index
                    model_pick = gr.Dropdown(model_choices(), value=top[0] if len(top) else None, label="Model",
                                             elem_id="model-pick")
                    detail_category = gr.Dropdown(categories, value=OVERALL, label="Category")
                card = gr.Markdown()
                bars = gr.Plot(label="Win score per category")
                duel_view = gr.Dataframe(label="Duels (won / lost / n.s. = not significant)", interactive=False,
                                         elem_id="duels", max_height=600)
                duel_csv = gr.DownloadButton("Download duels CSV", size="sm")
            with gr.Tab("Submission", id="submission"):
                gr.Markdown(content.SUBMISSION_HELP + (f"\n> {content.READ_ONLY}" if READ_ONLY else ""))
                with gr.Row():
                    team = gr.Textbox(label="Team name", elem_id="team")
                    model = gr.Textbox(label="Model name", elem_id="model")
                    model_type = gr.Dropdown(list(MODEL_TYPES), label="Model type", value="pretrained")
                with gr.Row():
                    params = gr.Number(label="Parameters (billions)", value=None, elem_id="params")
                    input_length = gr.Number(label="Input length (tokens)", value=None, precision=0,
                                             elem_id="input-length")
                    precision = gr.Dropdown(list(PRECISIONS), label="Precision", value="bfloat16")
                link = gr.Textbox(label="Link to model (http or https)", elem_id="link")
                description = gr.Textbox(label="Description (optional)", lines=2)
                file = gr.File(label="Results file (JSON)", file_types=[".json"], type="filepath", elem_id="file")
                presubmit_button = gr.Button("Pre-submit", variant="primary", elem_id="presubmit")
                status = gr.Markdown(elem_id="status")
                preview_state = gr.State(None)  # a token of `previews`: the preview itself stays on the server
                with gr.Group(visible=False) as publish_row:
                    publish_button = gr.Button("Publish…", variant="primary", elem_id="publish")
                with gr.Group(visible=False) as confirm_box:
                    gr.Markdown(content.CONFIRM)
                    with gr.Row():
                        confirm_button = gr.Button("Yes, publish", variant="stop", elem_id="confirm")
                        cancel_button = gr.Button("Cancel", elem_id="cancel")
                preview_table = gr.Dataframe(label="The leaderboard with your model", interactive=False,
                                             elem_id="preview", max_height=600, visible=False, pinned_columns=3)
                preview_duels = gr.Dataframe(label="Your model's duels", interactive=False, max_height=500,
                                             visible=False)
            with gr.Tab("About", id="about"):
                gr.Markdown(content.ABOUT)

        board_inputs = [category, values, search, types, min_params, max_params]
        board_outputs = [table, legend, csv_button, json_button, scatter]
        for control in board_inputs:
            control.change(render_board, [plot_open, *board_inputs], board_outputs, queue=False)
        app.load(refresh_board, [plot_open, *board_inputs], board_outputs, queue=False)
        plot_box.expand(lambda: True, None, plot_open).then(render_plot, board_inputs, scatter, queue=False)
        plot_box.collapse(lambda: False, None, plot_open)
        details_outputs = [card, bars, duel_view, duel_csv]
        for control in (model_pick, detail_category):
            control.change(render_model, [model_pick, detail_category], details_outputs, queue=False)
        # Rendered when opened, not on page load: a duel grid of 50 tasks x 99 opponents is
        # the heaviest thing on the page.
        details_tab.select(render_model, [model_pick, detail_category], details_outputs, queue=False)

        presubmit_button.click(
            presubmit, [team, model, model_type, params, input_length, precision, description, link, file],
            [status, preview_table, preview_duels, preview_state, publish_row, confirm_box], concurrency_limit=2)
        publish_button.click(lambda: (gr.update(visible=False), gr.update(visible=True)), None,
                             [publish_row, confirm_box])
        def cancel(token, request: gr.Request):
            previews.discard(request.session_hash, token)
            return "Pre-submission discarded.", gr.update(visible=False), gr.update(visible=False), None, gr.update(visible=False)

        cancel_button.click(cancel, preview_state, [status, preview_table, preview_duels, preview_state, confirm_box])
        confirm_button.click(publish, [preview_state], [status, preview_state, confirm_box, model_pick],
                             concurrency_limit=1).then(render_board, [plot_open, *board_inputs], board_outputs)
    return app


def main():
    logging.basicConfig(level=os.environ.get("LEADERBOARD_LOG_LEVEL", "INFO").upper())
    try:
        board = open_configured_board(progress=lambda f, m: log.info("%3.0f%% %s", 100 * f, m))
    except StoreError as e:
        raise SystemExit(f"cannot open the leaderboard: {e}")
    if isinstance(board.store, HubStore):  # other replicas may publish: notice their commits
        board.watch(float(os.environ.get("LEADERBOARD_POLL_SECONDS", "60")))
    app = build_app(board)
    app.queue(default_concurrency_limit=8).launch(max_file_size=MAX_FILE_BYTES, theme=gr.themes.Soft(),
                                                  js=HEADER_TITLES_JS % json.dumps(views.header_titles(board)))


if __name__ == "__main__":
    main()
