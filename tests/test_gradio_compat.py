"""`leaderboard/app/gradio_compat.py`, the one module that relies on Gradio's internals:
each reliance checked against the installed Gradio, so that an upgrade that moves one fails
here (fast tier) rather than on a served page."""
import inspect
import re
from pathlib import Path

import gradio
import gradio as gr
import gradio.blocks_events
import gradio.component_meta
import gradio.oauth
import gradio.route_utils
import gradio.routes
import gradio.state_holder
import pytest

from leaderboard.app import gradio_compat

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = Path(gradio.__file__).parent / "templates" / "frontend"
STATIC = ROOT / "leaderboard" / "app" / "static"


# The queue's polling interval: test_serving.py (Gradio's own millisecond, checked still there).


def test_the_stub_writer_is_still_where_and_as_the_skipper_replaces_it():
    assert gradio_compat.STUB_WRITER_MODULE == gradio.component_meta.__name__
    writer = gradio.component_meta.create_or_modify_pyi
    assert list(inspect.signature(writer).parameters) == ["component_class", "class_name", "events"]
    gradio_compat.write_no_stub(gr.Button, "Button", ["click"])  # takes what Gradio passes it
    # blocks_events calls it by its name from component_meta: the skipper's replacement reaches it there too
    assert "from gradio.component_meta import create_or_modify_pyi" in inspect.getsource(gradio.blocks_events)


def test_the_launch_argument_that_skips_the_self_check_gates_that_check_only():
    (argument, value), = gradio_compat.WITHOUT_SELF_CHECK.items()
    launch = inspect.getsource(gr.Blocks.launch)
    assert argument in inspect.signature(gr.Blocks.launch).parameters and value is False
    uses = [line.strip() for line in launch.splitlines() if argument in line][1:]  # after the signature's
    assert uses == [f"if {argument} and not networking.url_ok(self.local_url) and not self.share:"], uses


def test_the_mocked_sign_in_and_the_oauth_settings_are_still_gradios_module_attributes():
    mocked = gradio.oauth._add_mocked_oauth_routes
    assert list(inspect.signature(mocked).parameters) == ["app"]
    attach = inspect.getsource(gradio.oauth.attach_oauth)
    assert "_add_mocked_oauth_routes(app)" in attach and "get_space()" in attach  # looked up at call time
    for name in ("OPENID_PROVIDER_URL", "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_SCOPES", "get_space"):
        assert hasattr(gradio.oauth, name), name
    assert 'session["oauth_info"]' in inspect.getsource(gradio.oauth)
    assert '@app.get("/logout")' in inspect.getsource(gradio.oauth._add_oauth_routes)


def test_the_signed_in_account_is_read_from_gradios_session_layout():
    session = {gradio_compat.OAUTH_SESSION_KEY: {"userinfo": {"preferred_username": "ana"}, "access_token": "t",
                                                 "expires_at": 5}}
    assert gradio_compat.oauth_info({"session": session}) == {"userinfo": {"preferred_username": "ana"},
                                                               "access_token": "t", "expires_at": 5}
    assert gradio_compat.oauth_info({}) == {}
    source = inspect.getsource(gradio.oauth)
    for key in ("userinfo", "preferred_username", "access_token", "expires_at"):
        assert f'"{key}"' in source, key


def test_the_upload_route_is_where_the_upload_gate_looks_for_it():
    assert gradio_compat.UPLOAD_PATH == gradio.route_utils.API_PREFIX + "/upload"
    assert '@router.post("/upload"' in inspect.getsource(gradio.routes)


def test_the_session_routes_and_the_session_layout_are_where_the_session_keeper_looks():
    """The heartbeat and queue-join routes; the session store's fields (the real page's use of
    them: tests/test_sessions.py)."""
    assert gradio_compat.HEARTBEAT_PATH == gradio.route_utils.API_PREFIX + "/heartbeat/"
    assert gradio_compat.QUEUE_JOIN_PATH == gradio.route_utils.API_PREFIX + "/queue/join"
    routes = inspect.getsource(gradio.routes)
    assert '@router.get("/heartbeat/{session_hash}")' in routes and '"/queue/join"' in routes
    holder = gradio.state_holder.StateHolder()
    assert {"session_data", "time_last_used", "lock"} <= set(vars(holder))
    assert "def delete_state(self, session_id: str" in inspect.getsource(gradio.state_holder.StateHolder)
    assert "session_state.blocks_config.fns" in inspect.getsource(gradio.route_utils.get_fn)


def test_the_root_url_helper_keeps_its_signature():
    assert list(inspect.signature(gradio.route_utils.get_root_url).parameters) == ["request", "route_path", "root_path"]


def test_a_dropdown_still_has_the_blur_event_picked_listens_to():
    assert "blur" in [getattr(e, "event_name", e) for e in gr.Dropdown.EVENTS]
    with gr.Blocks():
        dropdown = gr.Dropdown(["a", "b"])
        assert gradio_compat.picked(dropdown) == dropdown.blur


def shipped_frontend() -> str:
    return "\n".join(f.read_text(encoding="utf-8", errors="replace")
                     for f in (FRONTEND / "assets").iterdir() if f.suffix in (".js", ".css"))


@pytest.fixture(scope="module")
def frontend() -> str:
    return shipped_frontend()


@pytest.mark.parametrize("name", gradio_compat.PAGE_CLASSES)
def test_each_gradio_class_the_page_selects_is_in_gradios_shipped_frontend(frontend, name):
    # a class in a Svelte template: one word of a quoted class list ("wrap svelte-1ab2c3", `header-cell ...`)
    assert re.search(rf"""[\s"'`]{re.escape(name)}[\s"'`]""", frontend), name


@pytest.mark.parametrize("name", gradio_compat.PAGE_TEST_IDS)
def test_each_gradio_test_id_the_page_selects_is_in_gradios_shipped_frontend(frontend, name):
    assert re.search(rf"""data-testid[=",:\s]+["'`]?{re.escape(name)}["'`]""", frontend), name


def test_every_gradio_name_the_pages_css_and_scripts_select_is_listed_in_the_compatibility_module():
    css = "\n".join(f.read_text() for f in STATIC.glob("*.css"))
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    scripts = [f.read_text() for f in STATIC.glob("*.js")]
    selectors = css + "\n".join(s for script in scripts for s in re.findall(r"""(?:querySelector|querySelectorAll|closest)\??\.?\(["']([^"']*)["']""", script))
    classes = set(re.findall(r"\.([A-Za-z_][-\w]*)", selectors)) - {"svg"}
    own = set(re.findall(r'(?:class=\\?|elem_classes=)"([-\w ]+)', "".join(f.read_text() for f in (ROOT / "leaderboard").rglob("*.py"))
                         + (ROOT / "content.py").read_text()))
    own = {word for found in own for word in found.split()}  # the page's own HTML's
    # The board's own table uses Gradio's header classes too: page.js reads both tables' headers alike.
    assert classes - own <= set(gradio_compat.PAGE_CLASSES) <= classes
    assert set(re.findall(r"data-testid=([-\w]+)", selectors)) == set(gradio_compat.PAGE_TEST_IDS)


def test_a_render_made_private_is_private_in_the_page_s_config():
    """private_render sets the private visibility on the render's event, where Gradio keeps it
    (test_api: API clients are refused every event but the read endpoints)."""
    from leaderboard.app.gradio_compat import private_render
    with gr.Blocks() as page:
        flag = gr.Checkbox(visible=False)
        private_render(lambda: gr.Markdown("built"), [], [flag.change])
    (render,) = [fn for fn in page.fns.values() if fn.renderable is not None]
    assert render.api_visibility == "private"
    (event,) = [d for d in page.get_config_file()["dependencies"] if list(d["targets"][0]) == [flag._id, "change"]]
    assert event["api_visibility"] == "private"  # the page's config, which API clients read
