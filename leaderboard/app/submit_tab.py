"""The Submit tab: the form and results file, pre-submission (a preview of the board with
the new model), then publication after a confirmation."""
from __future__ import annotations

import json
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import gradio as gr
import pandas as pd

import content
from leaderboard import freed_memory
from leaderboard.temp_disk import LimitReached
from leaderboard.app.column_widths import column_widths
from leaderboard.app.lazy_tab import built_when_opened, new_visit
from leaderboard.app.pager import Pager, turned_to
from leaderboard.app.settings import PRIVATE, AppSettings, script
from leaderboard.app.previews import PreviewShelf
from leaderboard.app.signin import MAINTAINERS, SignIn, SignInFailed
from leaderboard.board.publishing import Preview, Publishing, ReadFile
from leaderboard.board.state import Leaderboard
from leaderboard.errors import BadInput, StoreFailure
from leaderboard.storage.presubmissions import file_sha256, requester_key
from leaderboard.submission.metadata import MODEL_TYPES, PRECISIONS
from leaderboard.views import details, report_card, share, submission, table as board_views
from leaderboard.views.markdown import escape_markdown

COMPILING = "**Compiling the archive** (unpacking and reading the logs takes a few seconds) …"
SCROLL_TO_STATUS_JS = script("scroll_to_status.js")
SCROLL_TO_STATUS_AGAIN_JS = script("scroll_to_status_again.js")
EMPTY_NUMBERS_JS = """() => ["#params", "#input-length"].map(
    (id) => Number(document.querySelector(`${id} input`)?.value) || null)"""
SCROLL_TO_NEW_ROW_JS = script("scroll_to_new_row.js")
PREVIEW_DUELS_TITLE = "Your model's duels"
# The new model's row and three on each side: with the outcome's headline, within a phone's first screen.
NEIGHBOURHOOD_ROWS = 7
WHOLE_RANKING = "See the whole ranking, a page at a time"
NEIGHBOURHOOD = "Back to your model's neighbourhood"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Presubmitted:
    """A pre-submission kept for its confirmation (PreviewShelf): the preview, and the whole
    would-be ranking, made when a page of it is first asked for, then each page cut from it.
    The preview's first screen makes only the new model's neighbourhood: the whole ranking
    takes 0.3-0.9 s at 10,000 models (bench/RESULTS.md, session 14)."""
    preview: Preview
    board: Leaderboard

    @cached_property
    def ranking(self) -> pd.DataFrame:
        return submission.preview_table(self.board, self.preview)


class SubmitTab:
    """The Submit tab: what every page session's form shares (the board's publishing, the
    pre-submissions kept for their confirmation, the uploads read), and the tab, whose form
    (`SubmitForm`) is built when a page session first opens it (lazy_tab). The Details tab's
    view (`details_view`: DetailsTab's view state) follows a publication, and so does
    `leaderboard`'s table. `signin` says who
    may pre-submit and publish: anyone (a local board), an account signed in with Hugging Face
    under its own or an organization's name, or no one from the page (the maintainers publish)."""

    def __init__(self, board, settings: AppSettings, previews: PreviewShelf, details_view: gr.State, leaderboard,
                 signin: SignIn, opened: gr.Checkbox):
        self.board, self.previews, self.details_view, self.leaderboard, self.signin = (
            board, previews, details_view, leaderboard, signin)
        self.cache_seconds, self.page_rows = settings.cache_seconds, settings.settings.page_rows
        self.presubmissions, self.temp_disk = settings.presubmissions, settings.temp_disk
        self.read_only = settings.settings.read_only  # publishing hidden
        self.upload_expired = (f"The upload expired after {content.lifetime_text(self.cache_seconds)} (uploads are "
                               f"kept that long); upload the file again.")
        self.preview_expired = (f"This pre-submission has expired (they are kept for "
                                f"{content.lifetime_text(self.cache_seconds)}); pre-submit the file again.")
        self.publishing = Publishing(board)  # the board's writing role, built beside it
        # Each session's last compiled upload (its path, the compile), kept as long as Gradio keeps
        # the upload: its pre-submission uses it instead of compiling the archive again.
        self.compiled_uploads: PreviewShelf[tuple[str, submission.Compiled]] = PreviewShelf(self.cache_seconds)
        # a JSON upload read as it arrives (`uploaded`): (its path, its sha256, the reading, done or under way)
        self.read_uploads: PreviewShelf[tuple[str, str, Future[ReadFile]]] = PreviewShelf(self.cache_seconds)
        self.can_publish = not self.read_only and signin.mode != MAINTAINERS
        # One at a time: the duels a preview leaves to its publication, run once its submitter
        # asks to publish (Publishing.duel_ahead), and the memory a pre-submission freed given back.
        self.background = ThreadPoolExecutor(1, thread_name_prefix="after-presubmission")
        notice = (content.READ_ONLY if self.read_only else
                  content.PUBLISHED_BY_MAINTAINERS if signin.mode == MAINTAINERS else None)
        with gr.Tab("Submit", id="submission") as self.tab:
            gr.Markdown(content.submission_help(board.benchmark) + (f"\n> {notice}" if notice else ""))
            if signin.required:
                # In the page, not built with the form: Gradio serves its sign-in routes only to a
                # page whose config holds a LoginButton. Stacked, not side by side: on a phone a
                # row squeezes the note into a narrow column.
                self.account_note = gr.Markdown(content.SIGN_IN_FIRST, elem_id="signin-note")
                gr.LoginButton(elem_id="login", size="md")
            built_when_opened(self.tab, opened, self.build)
        self.tab.select(None, js=share.tab_writer("submission"), **PRIVATE)

    def build(self, oauth_token: gr.OAuthToken | None) -> SubmitForm:
        """A page session's form, for its visitor as signed in now."""
        return SubmitForm(self, oauth_token)

    def show_account(self, oauth_token: gr.OAuthToken | None) -> str:
        """On page load: who is signed in, or what to do (`account_note`)."""
        return self.account_view(oauth_token)[0]

    def account_view(self, oauth_token: gr.OAuthToken | None) -> tuple[str, list[str]]:
        """Who is signed in (the note saying so, or what to do) and the names they may publish
        under, their own first (none: not signed in)."""
        try:
            account = self.signin.account(oauth_token)
        except SignInFailed as e:
            return f"**Sign in again**: {e}.", []
        if account is None:
            return content.SIGN_IN_FIRST, []
        return (content.signed_in(escape_markdown(account.username), [escape_markdown(t) for t in account.teams]),
                account.teams)

    def publisher(self, oauth_token: gr.OAuthToken | None, team) -> tuple[str | None, str | None]:
        """(the account publishing under `team`, None), or (None, why it may not); (None, None)
        on a board without sign-in."""
        if not self.signin.required:
            return None, None
        try:
            account = self.signin.account(oauth_token)
        except SignInFailed as e:
            return None, f"**Sign in again**: {e}."
        if account is None:
            return None, content.SIGN_IN_FIRST
        problem = self.signin.team_problem(account, team)
        return (account.username, None) if problem is None else (None, f"**Not accepted**: {escape_markdown(problem)}.")

    def compiled_upload(self, file: str, session: str, progress) -> submission.Compiled:
        """The session's compile of the upload at `file` (by `uploaded`), or a compile now."""
        held = self.compiled_uploads.newest(session)
        if held is not None and held[0] == file:
            return held[1]
        return submission.compile_archive(self.board, file, lambda f, m: progress(f, desc=m), self.temp_disk)

    def read_upload(self, file: str, sha256: str, session: str) -> ReadFile | str:
        """The session's reading of the JSON upload at `file` (by `uploaded`; waited for
        when a quick click finds it under way), or the path to read it now."""
        held = self.read_uploads.newest(session)
        if held is None or held[:2] != (file, sha256):
            return file
        try:
            return held[2].result()
        except Exception:  # noqa: BLE001 - read again, where its failure is told
            return file

    def warm(self) -> None:
        """What a first pre-submission's view would pay before its answer (pandas' Styler,
        imported and its templates compiled on first use: 0.28 s of CPU, bench/RESULTS.md
        session 19): the best model's neighbourhood, made as a publication's is, and dropped."""
        ranked = self.board.ranked()
        if len(ranked):
            best = ranked.index[0]
            around = board_views.rows_around(ranked, best, NEIGHBOURHOOD_ROWS).index
            self.marked(submission.published_table(self.board, best, around), best)

    def marked(self, rows: pd.DataFrame, model: str):
        """`rows` of a ranking as the page shows them (models linked, intervals merged:
        `with_model_links`), and styled with `model`'s row marked."""
        header = board_views.score_columns(self.board, None)[0].header
        rows = board_views.with_model_links(rows, self.board.models)
        return rows, board_views.emphasised(rows, header, model)


class SubmitForm:
    """A page session's Submit tab (`shared`: what every session's shares): the form and
    results file, pre-submission (a preview of the board with the new model), then publication
    after a confirmation. Signed in (when the board asks for it), its team is one of the
    account's names."""

    def __init__(self, shared: SubmitTab, oauth_token: gr.OAuthToken | None):
        self.shared = shared
        board, signin = shared.board, shared.signin
        teams = shared.account_view(oauth_token)[1] if signin.required else []
        gr.DownloadButton("Download a valid sample file for this leaderboard", size="sm",
                          value=submission.sample_file(board), elem_id="sample")
        with gr.Row():
            # allow_custom_value: a team outside the account's list reaches `publisher`, which
            # says why it is refused (Gradio's own check answers a bare "Error").
            self.team = (gr.Dropdown(teams, value=teams[0] if teams else None, interactive=bool(teams),
                                     label="Team (your account or one of your organizations)", elem_id="team",
                                     allow_custom_value=True)
                         if signin.required
                         else gr.Textbox(label="Team name", elem_id="team"))
            self.model = gr.Textbox(label="Model name", elem_id="model")
            self.model_type = gr.Dropdown(list(MODEL_TYPES), label="Model type", value="pretrained",
                                          elem_id="model-type")
        with gr.Row():
            self.params = gr.Number(label="Parameters (billions)", value=None, minimum=0, placeholder="e.g. 7",
                                    elem_id="params")
            self.input_length = gr.Number(label="Input length (tokens, a whole number)", value=None, minimum=0,
                                          placeholder="e.g. 4096", elem_id="input-length")
            self.precision = gr.Dropdown(list(PRECISIONS), label="Precision", value="bfloat16")
        link = gr.Textbox(label="Link to model (http or https)", elem_id="link")
        description = gr.Textbox(label="Description (optional)", lines=2)
        self.form_errors = gr.Markdown(elem_id="form-errors")
        file = gr.File(label="Results file (JSON), or a .zip of lm-evaluation-harness output folders",
                       file_types=[".json", ".zip"], type="filepath", elem_id="file")
        self.file_errors = gr.Markdown(elem_id="file-errors")
        self.compiled = gr.DownloadButton("Download the compiled JSON", size="sm", visible=False,
                                          elem_id="compiled")
        self.presubmit_button = gr.Button("Pre-submit", variant="primary", elem_id="presubmit",
                                          interactive=not signin.required or bool(teams))
        self.status = gr.Markdown(elem_id="status")
        self.preview_state = gr.State(None)  # a token of `previews`: the preview itself stays on the server
        self.new_row = gr.Number(visible=False)  # the new model's position in the preview table, for the scroll
        # The would-be ranking, a neighbourhood of the new model's row or (pager) one page of the whole.
        self.preview_table = gr.Dataframe(interactive=False, elem_id="preview", max_height=600, visible=False,
                                          wrap=True)
        self.preview_pager = Pager("preview-")
        self.whole_button = gr.Button(WHOLE_RANKING, size="sm", elem_id="preview-whole", visible=False)
        with gr.Group(visible=False) as self.publish_row:
            publish_button = gr.Button("Publish…", variant="primary", elem_id="publish")
        with gr.Group(visible=False) as self.confirm_box:
            gr.Markdown(content.confirm(shared.cache_seconds))
            with gr.Row():
                confirm_button = gr.Button("Yes, publish", variant="stop", elem_id="confirm")
                cancel_button = gr.Button("Cancel", elem_id="cancel")
        self.preview_duels = gr.Dataframe(label=PREVIEW_DUELS_TITLE, interactive=False, max_height=500,
                                          visible=False, line_breaks=True, wrap=True, elem_id="preview-duels")

        form_from_logs = [self.team, self.model, self.model_type, self.input_length, self.params, self.precision]
        # A file uploaded while the last one is read (an archive: compiled for seconds) is read
        # once that reading is done, or cancelled (Gradio's default trigger mode dropped it).
        reading = file.upload(self.compiling, file, [self.file_errors, self.presubmit_button], queue=False,
                              **PRIVATE).then(
            self.uploaded, [file, *form_from_logs], [self.file_errors, self.compiled, *form_from_logs],
            show_progress_on=[self.file_errors], trigger_mode="always_last", **PRIVATE)
        reading.then(self.release_presubmit, None, self.presubmit_button, queue=False, **PRIVATE)
        # The file removed (to choose another): what its reading would show (the form filled
        # from its logs, its compiled JSON) is not shown for the next one. Cancelled before the
        # messages are emptied, whose answer then clears the "Error" a cancelled call leaves on
        # them (Gradio runs an event's listeners in the order they were added). Not cancelled
        # by an upload: its own reading, started by its first step, would be.
        file.clear(None, cancels=[reading], **PRIVATE)
        file.clear(lambda: {self.file_errors: "", self.compiled: gr.DownloadButton(visible=False)}, None,
                   [self.file_errors, self.compiled], queue=False, **PRIVATE)
        ranking_outputs = [self.preview_table, *self.preview_pager.outputs, self.new_row, self.whole_button]
        presubmitted = self.cleared(self.presubmit_button, [self.status, self.form_errors, self.file_errors]).then(
            self.presubmit, [self.team, self.model, self.model_type, self.params, self.input_length, self.precision,
                             description, link, file],
            [self.status, self.form_errors, self.file_errors, *ranking_outputs, self.preview_duels,
             self.preview_state, self.publish_row, self.confirm_box],
            concurrency_limit=2, show_progress_on=[self.status], js=SCROLL_TO_STATUS_JS, **PRIVATE,
        )
        presubmitted.then(None, js=SCROLL_TO_STATUS_AGAIN_JS)
        # The duels grid (most of the answer's bytes) follows the ranking's rows, which come first.
        presubmitted.then(self.duels_view, self.preview_state, self.preview_duels, **PRIVATE)
        page_inputs = [self.preview_state, self.preview_pager.page]
        self.whole_button.click(self.switch_ranking, page_inputs, [self.status, *ranking_outputs], queue=False,
                                **PRIVATE).then(None, self.new_row, None, js=SCROLL_TO_NEW_ROW_JS)
        self.preview_pager.on_turn(self.turn_ranking, page_inputs, [self.status, *ranking_outputs], queue=False,
                                   trigger_mode="always_last")
        publish_button.click(self.confirming, self.preview_state, [self.publish_row, self.confirm_box], **PRIVATE)
        cancel_button.click(self.cancel, self.preview_state,
                            [self.status, *ranking_outputs, self.preview_duels, self.preview_state, self.confirm_box],
                            **PRIVATE)
        self.shared.leaderboard.show_after(self.cleared(confirm_button, [self.status]).then(
            self.publish, [self.preview_state],
            [self.status, self.preview_state, self.confirm_box, self.shared.details_view, *ranking_outputs],
            concurrency_limit=1, show_progress_on=[self.status], js=SCROLL_TO_STATUS_JS, **PRIVATE))
        # Gradio's Number mounts an unset value as 0: emptied once mounted, in the browser, unless
        # the visitor has typed a number already (neither field accepts 0). Read from the page:
        # an event with inputs would run at each of their changes too.
        gr.on(None, None, None, [self.params, self.input_length], js=EMPTY_NUMBERS_JS, **PRIVATE)

    @staticmethod
    def cleared(button: gr.Button, messages: list[gr.Markdown]):
        """`button`'s click, emptying the previous run's `messages` in the browser at once: the
        run it starts shows its progress in the status line (the first), which Gradio draws
        over whatever the line says."""
        return button.click(None, None, messages, js=f"() => {json.dumps([''] * len(messages))}", queue=False,
                            **PRIVATE)

    def release_presubmit(self, oauth_token: gr.OAuthToken | None):
        """Pre-submit again usable after an archive is compiled (still not for a visitor who must sign in)."""
        return gr.Button(interactive=not self.shared.signin.required or oauth_token is not None)

    def presubmit(self, team, model, model_type, params, input_length, precision, description, link, file,
                  request: gr.Request, oauth_token: gr.OAuthToken | None, progress=gr.Progress()) -> dict:
        """The preview, disclosed in the store (Publishing.disclose) within the requester's
        quota (`presubmissions`): per account when signed in, else per client address."""
        board = self.shared.board
        hidden = gr.update(visible=False)
        failed = {**self.ranking_hidden(), self.preview_duels: hidden, self.preview_state: None,
                  self.publish_row: hidden, self.confirm_box: hidden}
        account, refused = self.shared.publisher(oauth_token, team)
        if refused:
            return {self.status: refused, self.form_errors: "", self.file_errors: "", **failed}
        if not file:
            return {self.status: "", self.form_errors: "", self.file_errors: "**Choose a results file first.**",
                    **failed}
        try:  # first: the upload may expire (be deleted) while the pre-submission runs
            sha256 = file_sha256(file)
        except FileNotFoundError:
            return {self.status: "", self.form_errors: "", self.file_errors: self.shared.upload_expired, **failed}
        form = dict(team_name=team, model_name=model, model_type=model_type, parameters=params,
                    input_length=input_length, precision=precision, description=description, link_to_model=link)
        address = request.client.host
        record_failure = None
        try:
            with self.shared.presubmissions.admitted(board.presubmissions, requester_key(account, address), account is not None):
                try:
                    source = (self.shared.compiled_upload(file, request.session_hash, progress).data
                              if submission.is_archive(file) else self.shared.read_upload(file, sha256, request.session_hash))
                    preview = self.shared.publishing.presubmit(source, form, progress=lambda f, m: progress(f, desc=m))
                finally:  # read, or refused: the upload no longer holds its client's temporary disk
                    self.shared.temp_disk.release_file(file)
                # What the page shows is made before the record: a pre-submission that fails records nothing.
                summary, shown = submission.preview_summary(board, preview), self.preview_neighbourhood(preview)
                try:
                    self.shared.publishing.disclose(preview, sha256, account, address)
                except StoreFailure as e:  # the preview is still shown, with what happened
                    record_failure = str(e)
        except LimitReached as e:
            return {self.status: submission.quota_refusal(str(e)), self.form_errors: "", self.file_errors: "",
                    **failed}
        except BadInput as e:
            form_problems, file_problems = submission.split_problems(e.problems)
            return {self.status: "**The submission was not accepted**: see the messages by the form and the file.",
                    self.form_errors: submission.problems_markdown(board.benchmark, form_problems,
                                                                   "Fix these fields:"),
                    self.file_errors: submission.problems_markdown(board.benchmark, file_problems,
                                                                   "The file was not accepted:"),
                    **failed}
        except Exception:  # a defect of ours: logged for the maintainers, the visitor told, nothing recorded
            log.exception("a pre-submission failed")
            return {self.status: submission.presubmission_failed("an internal error, logged for the maintainers"),
                    self.form_errors: "", self.file_errors: "", **failed}
        finally:  # what it freed: hundreds of MB at 10,000 models
            self.shared.background.submit(freed_memory.give_back)
        return {self.status: summary + submission.disclosure_note(preview, record_failure), self.form_errors: "",
                self.file_errors: "", **shown, self.preview_duels: hidden,  # filled by `duels_view`, next
                self.preview_state: self.shared.previews.put(request.session_hash, Presubmitted(preview, board)),
                self.publish_row: gr.update(visible=self.shared.can_publish), self.confirm_box: hidden}

    def duels_view(self, token, request: gr.Request):
        """The session's pre-submitted model's duels grid: its duels with the panel
        (Publishing.presubmit); hidden when there is none (refused, expired)."""
        kept = self.shared.previews.get(request.session_hash, token)
        if kept is None:
            return gr.update(visible=False)
        board, preview = self.shared.board, kept.preview
        duels = details.model_duels(board, preview.submission_id, None, preview.tournament, preview.table.index)
        shown = details.duel_frame(board, duels, {**board.models, preview.submission_id: preview.model},
                                   details.GRID_COMPETITORS)
        return gr.Dataframe(value=details.duel_grid(shown), column_widths=details.grid_widths(shown), visible=True,
                            label=details.grid_label(len(duels.opponents), PREVIEW_DUELS_TITLE))

    def preview_neighbourhood(self, preview: Preview) -> dict:
        """The new model's neighbourhood in the would-be ranking, its row marked."""
        return self.neighbourhood_view(preview.table, preview.submission_id,
                                       lambda rows: submission.preview_table(self.shared.board, preview, rows))

    def neighbourhood_view(self, order: pd.DataFrame, model: str, made: Callable[[pd.Index], pd.DataFrame]) -> dict:
        """`model`'s row and its neighbours in a ranking whose rows are `order`'s, in its
        order; `made` makes those rows alone (not the ranking's thousands)."""
        around = board_views.rows_around(order, model, NEIGHBOURHOOD_ROWS).index
        start = order.index.get_loc(around[0])
        label = f"Your model among its neighbours: rows {start + 1:,}–{start + len(around):,} of {len(order):,}"
        return self.ranking_view(made(around), model, label, self.preview_pager.updates(None, 0), WHOLE_RANKING)

    def page_view(self, ranking: pd.DataFrame, model: str, page: int) -> dict:
        """Page `page` of `page_rows` rows of `ranking`, with the pager."""
        shown = board_views.table_page(ranking, board_views.score_columns(self.shared.board, None), page, self.shared.page_rows)
        return self.ranking_view(shown.rows, model, "The ranking with your model",
                                 self.preview_pager.updates(shown), NEIGHBOURHOOD)

    def ranking_view(self, rows: pd.DataFrame, model: str, label: str, pager: dict, switch: str) -> dict:
        """`rows` of a ranking with `model`'s row marked, as the page shows them (models
        linked, intervals merged: `with_model_links`); the row's position among them, for the
        scroll (None: not there); `switch`, the button to the other view."""
        rows, styled = self.shared.marked(rows, model)
        return {self.preview_table: gr.Dataframe(value=styled,
                                                 datatype=board_views.column_types(rows), label=label,
                                                 column_widths=column_widths(rows), visible=True),
                **pager, self.new_row: rows.index.get_loc(model) if model in rows.index else None,
                self.whole_button: gr.Button(switch, visible=True)}

    def ranking_hidden(self) -> dict:
        hidden = gr.update(visible=False)
        return {self.preview_table: hidden, **self.preview_pager.updates(None, 0), self.new_row: None,
                self.whole_button: hidden}

    def kept_preview(self, token, request: gr.Request) -> Presubmitted | dict:
        """The pre-submission the page shows, or what the page shows once it has expired."""
        kept = self.shared.previews.get(request.session_hash, token)
        if kept is not None:
            return kept
        return {self.status: self.shared.preview_expired, **self.ranking_hidden()}

    def switch_ranking(self, token, page, request: gr.Request) -> dict:
        """From the new model's neighbourhood to the page of the whole ranking that holds its
        row, and back."""
        kept = self.kept_preview(token, request)
        if isinstance(kept, dict):
            return kept
        model = kept.preview.submission_id
        if page:
            return self.preview_neighbourhood(kept.preview)
        return self.page_view(kept.ranking, model, board_views.page_of(kept.ranking, model, self.shared.page_rows))

    def turn_ranking(self, token, page, button, request: gr.Request) -> dict:
        """Another page of the whole ranking (the pager's `button`)."""
        kept = self.kept_preview(token, request)
        if isinstance(kept, dict):
            return kept
        return self.page_view(kept.ranking, kept.preview.submission_id, turned_to(button, page))

    def compiling(self, file) -> dict:
        """At an upload, before it is read: a JSON file's, the messages about the file before
        it go; a .zip's (compiled for seconds), say so and hold Pre-submit until it is done."""
        if not submission.is_archive(file):
            return {self.file_errors: ""}
        return {self.file_errors: COMPILING, self.presubmit_button: gr.Button(interactive=False)}

    def uploaded(self, file, team, model, model_type, input_length, params, precision, request: gr.Request,
                 progress=gr.Progress()) -> dict:
        """A .zip of harness output: compiled at once, so the form is filled in from its logs
        and the compiled JSON can be downloaded; a JSON file: read at once (its problems are
        told at the click to pre-submit, with the form's), so the click does not wait for it
        (or, when it comes first, waits for what is left)."""
        # Fields the logs do not fill are left alone (no update): echoing the values this event
        # was sent with undid what was typed while the file uploaded.
        as_filled = {self.compiled: gr.DownloadButton(visible=False),
                     **{field: gr.update() for field in (self.team, self.model, self.model_type, self.input_length,
                                                         self.params, self.precision)}}
        if not submission.is_archive(file):
            reading: Future[ReadFile] = Future()
            try:
                self.shared.read_uploads.put(request.session_hash, (file, file_sha256(file), reading))
                reading.set_result(self.shared.publishing.read(file))
            except Exception as e:  # noqa: BLE001 - deleted meanwhile, or a defect: the click reads it again and says so
                reading.set_exception(e)
            # The file's messages are left alone: a quick click's pre-submission can answer
            # first, on a loaded server, and they are its (`compiling` cleared the old ones).
            return {self.file_errors: gr.skip(), **as_filled}
        try:
            compiled = submission.compile_archive(self.shared.board, file, lambda f, m: progress(f, desc=m), self.shared.temp_disk)
        except FileNotFoundError:  # the upload was deleted before its turn came, on a loaded server
            return {self.file_errors: self.shared.upload_expired, **as_filled}
        except BadInput as e:
            return {self.file_errors: submission.problems_markdown(self.shared.board.benchmark, e.problems,
                                                                   "The archive was not accepted:"),
                    **as_filled}
        finally:  # read, or refused: the upload no longer holds its client's temporary disk
            self.shared.temp_disk.release_file(file)
        self.shared.compiled_uploads.put(request.session_hash, (file, compiled))
        form = compiled.form
        return {**as_filled, self.file_errors: compiled.summary,
                self.compiled: gr.DownloadButton(value=submission.compiled_file(self.shared.board, compiled), visible=True),
                # Signed in, the team is one of the account's names, not the logs'; what was typed stays.
                **({} if self.shared.signin.required or team or "team_name" not in form else {self.team: form["team_name"]}),
                **({} if model or "model_name" not in form else {self.model: form["model_name"]}),
                **{field: form[key] for field, key in ((self.model_type, "model_type"), (self.input_length, "input_length"),
                                                       (self.params, "parameters"), (self.precision, "precision"))
                   if key in form}}

    def confirming(self, token, request: gr.Request) -> dict:
        """The confirmation asked for; meanwhile the duels the preview left to its publication
        run (seconds of a core at 10,000 models when it enters the panel), so that the click
        to confirm finds them run. Not with the preview: most previews are never published,
        and their duels took a core from every other visitor."""
        kept = self.shared.previews.get(request.session_hash, token)
        if kept is not None and kept.preview.duels_ahead is None:
            self.shared.publishing.duel_ahead(kept.preview, self.shared.background)
            if kept.preview.duels_ahead is not None:  # some were left to run: what they free, given back
                self.shared.background.submit(freed_memory.give_back)
        return {self.publish_row: gr.update(visible=False), self.confirm_box: gr.update(visible=True)}

    def cancel(self, token, request: gr.Request) -> dict:
        kept = self.shared.previews.get(request.session_hash, token)
        if kept is not None and kept.preview.duels_ahead is not None:
            kept.preview.duels_ahead.cancel()  # unless they are running
        self.shared.previews.discard(request.session_hash, token)
        hidden = gr.update(visible=False)
        return {self.status: "Pre-submission discarded.", **self.ranking_hidden(), self.preview_duels: hidden,
                self.preview_state: None, self.confirm_box: hidden}

    def publish(self, token: str | None, request: gr.Request, oauth_token: gr.OAuthToken | None,
                progress=gr.Progress()) -> dict:
        board = self.shared.board
        kept = self.shared.previews.get(request.session_hash, token)
        preview = kept.preview if kept is not None else None
        closed = {self.preview_state: None, self.confirm_box: gr.update(visible=False)}
        if not self.shared.can_publish:
            return {self.status: content.READ_ONLY if self.shared.read_only else content.PUBLISHED_BY_MAINTAINERS, **closed}
        if preview is None:
            message = "Nothing to publish: pre-submit a file first." if token is None else self.shared.preview_expired
            return {self.status: message, **closed}
        publisher, refused = self.shared.publisher(oauth_token, preview.metadata.team_name)
        if refused:
            return {self.status: refused, **closed}
        try:
            sid = self.shared.publishing.publish(preview, progress=lambda f, m: progress(f, desc=m), publisher=publisher)
        except (BadInput, StoreFailure) as e:  # a store failure's message says whether anything landed
            problems, heading = ((e.problems, "Publishing failed:") if isinstance(e, BadInput)
                                 else ([str(e)], "The store could not be written:"))
            return {self.status: submission.problems_markdown(board.benchmark, problems, heading), **closed}
        self.shared.previews.discard(request.session_hash, token)
        self.shared.publishing.refresh_intervals_in_background()  # the page says "being refreshed" until they are
        report_card.warm_task_rows(board)  # About's, which would otherwise wait for them
        return {self.status: submission.published_summary(board, sid), **closed,
                self.shared.details_view: new_visit({"model": sid, "category": None, "shown": False}),
                # its neighbourhood on the board: the whole board is the Leaderboard tab's
                **self.neighbourhood_view(board.ranked(), sid, lambda rows: submission.published_table(board, sid, rows)),
                self.whole_button: gr.update(visible=False)}
