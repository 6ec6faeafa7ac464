"""Everything the app takes from Gradio beyond its public API, in one place: private
attributes it sets, private functions it replaces or calls, the layout of Gradio's session
and routes it reads, a workaround for a Dropdown's events, and the class names and test ids
of Gradio's page that static/page.css and static/*.js select. A Gradio upgrade may move any
of them; tests/test_gradio_compat.py checks each against the installed Gradio.

Gradio is imported inside the functions, not here: `skip_stub_writing()` must run before
Gradio's first import (app.py).
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys

# --- the queue -------------------------------------------------------------------------
# How often Gradio's queue looks for waiting events while it has none. Gradio's own
# millisecond is a thousand wake-ups a second, 2-3% of a core for an app nobody uses; a
# queued event (a pre-submission, a publication) now waits at most 10 ms longer to start.
QUEUE_POLL_SECONDS = 0.01


def queued(app):
    """The page with Gradio's queue: 8 events at once, polled every QUEUE_POLL_SECONDS when idle."""
    app.queue(default_concurrency_limit=8)
    app._queue.sleep_when_free = QUEUE_POLL_SECONDS  # Gradio has no setting for it
    return app


# --- a render's event ------------------------------------------------------------------------
def private_render(build, inputs: list, triggers: list) -> None:
    """`gr.render(inputs, triggers)(build)`, its event private as the page's others are: Gradio
    makes a render's event "undocumented" (callable by API clients), with no setting."""
    import gradio as gr
    from gradio.context import get_blocks_context

    gr.render(inputs=inputs, triggers=triggers, queue=False)(build)
    context = get_blocks_context()
    assert context is not None  # gr.render has raised outside a page's build
    renderable = context.renderables[-1]
    for fn in context.fns.values():
        if fn.renderable is renderable:
            fn.api_visibility = "private"


# --- the launch's check of its own address -----------------------------------------------
# Gradio's launch asks its own page once (a HEAD, 3 s at most; a timeout is not asked again)
# and refuses to serve without an answer, telling to make a share link: on a loaded host
# (load 20) an app's start failed so. Its private `_frontend` argument gates that check only.
WITHOUT_SELF_CHECK = {"_frontend": False}


# --- the type stubs Gradio writes at import ----------------------------------------------
# Gradio writes the type stubs (.pyi) of its own components again each time it is imported:
# for each of some 80 component classes it parses the class's module and its stub and
# renders a template (`gradio.component_meta.create_or_modify_pyi`), to find that the
# installed stubs are already right. That is 0.7 s of the 1.8 s of CPU its import takes on
# this project's machine, in every process that serves the app. `skip_stub_writing()`,
# called before Gradio is imported, makes that step do nothing; the stubs serve editors
# and type checkers only, never a running app.
STUB_WRITER_MODULE = "gradio.component_meta"


def write_no_stub(component_class, class_name, events) -> None:
    """Gradio's stub writer's stand-in (its signature): writes nothing."""


class _StubWriterSkipper(importlib.abc.MetaPathFinder):
    """Finds STUB_WRITER_MODULE as Python would, and replaces its stub writer once the
    module has run (before any component class is made); then steps aside."""

    def find_spec(self, name, path, target=None):
        if name != STUB_WRITER_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            module.create_or_modify_pyi = write_no_stub

        spec.loader.exec_module = exec_module
        return spec


def skip_stub_writing() -> None:
    """Gradio, when next imported, writes no type stubs (see above). Only before its
    import: later, its components have been made already."""
    if STUB_WRITER_MODULE not in sys.modules:
        sys.meta_path.insert(0, _StubWriterSkipper())


# --- sign-in -----------------------------------------------------------------------------
class MockedSignInRefused(RuntimeError):
    pass


def _refuse_mocked_sign_in(app) -> None:
    raise MockedSignInRefused("Gradio's mocked sign-in (every visitor signed in as the server's own Hub account) is "
                              "never mounted: configure OPENID_PROVIDER_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET")


def prepare_sign_in(settings) -> None:
    """Gradio's sign-in routes as the board needs them (`leaderboard.app.signin`): the real
    ones for the provider in `settings` (wherever the app runs), the mocked ones refused.
    Gradio reads its own copies of the variables when imported; they are replaced here."""
    import gradio.oauth

    gradio.oauth._add_mocked_oauth_routes = _refuse_mocked_sign_in
    if settings.sign_in_configured:
        gradio.oauth.OPENID_PROVIDER_URL = settings.openid_provider_url.rstrip("/")
        gradio.oauth.OAUTH_CLIENT_ID = settings.oauth_client_id
        gradio.oauth.OAUTH_CLIENT_SECRET = settings.oauth_client_secret
        gradio.oauth.OAUTH_SCOPES = settings.oauth_scopes
        # Gradio picks the real routes only when it believes it runs in a Space.
        gradio.oauth.get_space = lambda: "configured OpenID provider"


# Where Gradio's sign-in keeps the account in its session: {"userinfo": {"preferred_username"},
# "access_token", "expires_at"}.
OAUTH_SESSION_KEY = "oauth_info"


def oauth_info(scope) -> dict:
    """The signed-in account's record in an ASGI request's session (empty when none)."""
    return (scope.get("session") or {}).get(OAUTH_SESSION_KEY) or {}


# --- routes --------------------------------------------------------------------------------
UPLOAD_PATH = "/gradio_api/upload"  # Gradio's file upload, which UploadGate bounds before Gradio stores it
LOGOUT_PATH = "/logout"  # Gradio's sign-out, which SignOutGate records before Gradio empties the session


def root_url(request) -> str:
    """The server's address as the browser reached it (behind a proxy: the forwarded host),
    for a Gradio event's `gr.Request`."""
    from gradio.route_utils import get_root_url

    return get_root_url(request.request, request.request.url.path, None)


# --- components ------------------------------------------------------------------------
def picked(dropdown):
    """A dropdown's event for one pick by the user: `blur`. Gradio's Dropdown sends `input`
    twice for a pick with the mouse (on the pick, then again on the blur that closes the
    list; measured: two identical requests, each rendered), and `blur` once for any pick,
    by mouse or keyboard, both of which end by blurring the box."""
    return dropdown.blur


# --- Gradio's page, as static/page.css and static/*.js select it ---------------------------
# The class names and test ids of Gradio's own elements (its Svelte components') that the
# page's CSS and scripts select: the table's header cells and menus, its virtual scroller,
# the status tracker, the blocks' info texts, the radio's wrapper, the tabs, gr.HTML's padded box.
PAGE_CLASSES = ("header-cell", "header", "cell-menu-button", "virtual-table-viewport", "cell-wrap", "sizing-body",
                "info-text", "wrap", "md", "hide", "tab-wrapper", "html-container")
PAGE_TEST_IDS = ("status-tracker", "block-info")


# --- sessions (leaderboard.app.sessions) ---------------------------------------------------
# An open page holds GET HEARTBEAT_PATH/<session> streamed; it runs an event by POSTing
# {"session_hash", "fn_index", ...} to QUEUE_JOIN_PATH (a queued event), or to one of
# RUN_PATHS followed by the event's name (one that is not). Gradio keeps each session's
# `SessionState` in `page.state_holder.session_data`, when it last ran an event in
# `time_last_used` (datetimes), both under `state_holder.lock`; a session's events are its
# page's own (`page.fns`) and those `gr.render` built for it (its `blocks_config.fns`).
HEARTBEAT_PATH = "/gradio_api/heartbeat/"
QUEUE_JOIN_PATH = "/gradio_api/queue/join"
RUN_PATHS = ("/gradio_api/run/", "/gradio_api/api/")


def event_refused(message: str) -> dict:
    """An event request's refusal that the page shows as `message`: it reads `detail` for a
    queued event, `error` for one that is not."""
    return {"detail": message, "error": message}


def is_event_request(scope) -> bool:
    """Whether an HTTP request (its ASGI scope) asks to run an event."""
    path = scope["path"]
    return scope["method"] == "POST" and (path.endswith(QUEUE_JOIN_PATH) or any(p in path for p in RUN_PATHS))


def heartbeat_session(path: str) -> str | None:
    """The session whose heartbeat `path` is (None: not a heartbeat)."""
    before, found, session = path.rpartition(HEARTBEAT_PATH)
    return session if found and session and "/" not in session else None


def sessions_last_used(page) -> dict[str, float]:
    """Each session `page` keeps -> when it last ran an event (seconds since the epoch)."""
    holder = page.state_holder
    with holder.lock:
        return {session: used.timestamp() for session, used in holder.time_last_used.items()
                if session in holder.session_data}


def let_go_of_sessions(page, sessions: list[str]) -> None:
    """`page` no longer keeps `sessions` (their States' delete callbacks run first, as Gradio's
    own expiry runs them)."""
    holder = page.state_holder
    for session in sessions:
        holder.delete_state(session)
        with holder.lock:
            holder.session_data.pop(session, None)
            holder.time_last_used.pop(session, None)


def session_knows_event(page, session: str, event_id: int) -> bool:
    """Whether Gradio can run the event `event_id` for `session`: one of the page's own, or
    built for `session` while `page` kept it."""
    state = page.state_holder.session_data.get(session)
    return event_id in (state.blocks_config.fns if state is not None else page.fns)
