"""The page: the intro, the p-value setting every tab follows, the tabs, the view a link
restores, and the public read API; and what `launch` needs to style and script it."""
from __future__ import annotations

import functools
import inspect
import json
import threading

import gradio as gr

import content
from leaderboard.app import first_views, sessions
from leaderboard.app.about_tab import AboutTab
from leaderboard.app.lazy_tab import follower, opened_flag
from leaderboard.app.details_tab import DetailsTab
from leaderboard.app.head_to_head_tab import HeadToHeadTab
from leaderboard.app.leaderboard_tab import LeaderboardTab
from leaderboard.temp_disk import LimitReached
from leaderboard.app.settings import API_CONCURRENCY, PRIVATE, STATIC, AppSettings, script
from leaderboard.app.gradio_compat import prepare_sign_in
from leaderboard.app.limits import RequestRate
from leaderboard.app.signin import SignIn
from leaderboard.app.submit_tab import SubmitTab
from leaderboard.app.view_state import restore_on_load
from leaderboard.app.previews import PreviewShelf
from leaderboard.storage.hub import HubStore
from leaderboard.views import share, table as board_views
from leaderboard.views.api import ENDPOINTS, ReadApi

# The system's own fonts: the theme's web fonts are three downloads that hold up the first paint.
# The tabs built when first opened, by their ids.
LAZY_TABS = ("details", "head-to-head", "submission", "about")
THEME = gr.themes.Soft(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


def build_app(board, settings: AppSettings | None = None, previews: PreviewShelf | None = None,
              signin: SignIn | None = None, warm_after: threading.Event | None = None) -> gr.Blocks:
    """The page, with `settings` (default: the environment's, read now); `signin` (default:
    from the settings) says who may pre-submit and publish; `warm_after` set (the page
    served): the first views of Details and Head-to-head are made then, in the background."""
    settings = settings or AppSettings()
    categories = [board_views.OVERALL, *board.benchmark.categories]
    previews = previews or PreviewShelf(ttl=settings.cache_seconds)
    signin = signin or SignIn(settings.settings, hub_backed=isinstance(board.store, HubStore),
                              signed_out=settings.signed_out)
    prepare_sign_in(signin.settings)
    default_view = share.view_from_query({}, board)
    with first_views.PAGE_BUILDS, gr.Blocks(title=content.title(board.benchmark),
                                            delete_cache=(settings.cache_sweep_seconds, settings.cache_seconds)) as app:
        gr.Markdown(content.intro(board.benchmark), elem_id="intro")
        # An expert's setting: rendered among the Leaderboard tab's options, followed by every tab.
        p_values = gr.Radio(board_views.P_VALUE_CHOICES, value=default_view["p"], label="Significance of a duel",
                            info=content.P_VALUES_INFO, elem_id="p-values", render=False)
        # The tabs after the first are built when a page session first opens them (lazy_tab).
        opened = {tab: opened_flag(tab) for tab in LAZY_TABS}
        # What Details and Head-to-head follow once built: the view a link or a publication asks
        # for, and the p-value setting (each its own: the page keeps one list of listeners per
        # component and event, and a built tab's replace it).
        details_view, pair_view = gr.State(None), gr.State(None)
        details_p, pair_p = follower(p_values), follower(p_values)
        with gr.Tabs(selected=default_view["tab"]) as tabs:
            leaderboard = LeaderboardTab(board, p_values, default_view, categories, settings.settings.page_rows)
            model_details = DetailsTab(board, p_values, categories, opened["details"], details_view, details_p)
            head_to_head = HeadToHeadTab(board, p_values, categories, opened["head-to-head"], pair_view, pair_p)
            submit = SubmitTab(board, settings, previews, details_view, leaderboard, signin, opened["submission"])
            AboutTab(board, opened["about"])

        restore_on_load(app, board, tabs, opened, default_view, leaderboard, model_details, head_to_head)
        # Gradio's Number mounts an unset value as 0: the unset ones are emptied as the page
        # loads, in the browser (a server's answer could land after the visitor typed, and erase it).
        numbers = [leaderboard.controls["min"], leaderboard.controls["max"]]
        app.load(None, None, numbers, js=f"() => {json.dumps([None] * len(numbers))}")
        if signin.required:
            app.load(submit.show_account, None, submit.account_note, queue=False, **PRIVATE)

        if warm_after is not None:
            first_views.make_in_background(warm_after, head_to_head, model_details, submit)

        read_api = ReadApi(board)
        for name in ENDPOINTS:  # the public, read-only endpoints (documented in the About tab), sharing one limit
            gr.api(api_endpoint(getattr(read_api, name), settings.api_rate), api_name=name, concurrency_limit=API_CONCURRENCY,
                   concurrency_id="read_api")
    return app


def api_endpoint(answer, rate: RequestRate):
    """A ReadApi method as an endpoint, within its caller's `rate` (per client address):
    its ValueError (an unknown category or model) or the rate's refusal is the caller's error
    message, not a bare "Error"."""
    @functools.wraps(answer)
    def endpoint(request: gr.Request, *args, **kwargs):
        try:
            rate.admit(request.client.host, "read-API requests")
            return answer(*args, **kwargs)
        except (ValueError, LimitReached) as e:
            raise gr.Error(str(e)) from None
    # gr.api makes the endpoint's schema from the signature and type hints: the method's, after
    # the request, which Gradio passes first (by position) and leaves out of the schema.
    signature = inspect.signature(answer)
    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.Request)
    endpoint.__signature__ = signature.replace(parameters=[request, *signature.parameters.values()])
    endpoint.__annotations__ = {**answer.__annotations__, "request": gr.Request}
    return endpoint


def page_style(board) -> dict:
    """`launch`'s theme, CSS and the script run on page load: the URL writer of the shareable
    views (share.QUERY_WRITER_JS), static/page.js with the columns' explanations, then
    static/let_go.js, which says when the server let go of the page's session (sessions.py)."""
    titles = json.dumps(board_views.header_titles(board))
    let_go = f"{json.dumps(sessions.LET_GO_HEADER)}, {json.dumps(sessions.LET_GO)}"
    return dict(theme=THEME, css_paths=[STATIC / "page.css"],
                js=f"() => {{\n{share.QUERY_WRITER_JS}\n  ({script('page.js')})({titles});\n"
                   f"  ({script('let_go.js')})({let_go});\n}}")
