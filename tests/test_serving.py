"""How `app.py` serves the page: Gradio's queue, which looks for waiting events every
millisecond while it has none, looks every `QUEUE_POLL_SECONDS` instead; Gradio, imported
after `gradio_compat.skip_stub_writing()`, writes no type stubs of its components."""
import subprocess
import sys
from pathlib import Path

import gradio as gr

from leaderboard.app import gradio_compat

ROOT = Path(__file__).resolve().parent.parent


def page() -> gr.Blocks:
    with gr.Blocks() as blocks:
        gr.Markdown("a page")
    return blocks


def test_the_queue_looks_for_waiting_events_every_10_ms_not_every_millisecond():
    gradio_own = page().queue(default_concurrency_limit=8)._queue
    assert gradio_own.sleep_when_free == 0.001  # what app.py replaces (Gradio has no setting for it)
    served = gradio_compat.queued(page())._queue
    assert served.sleep_when_free == gradio_compat.QUEUE_POLL_SECONDS == 0.01
    assert served.default_concurrency_limit == 8


def test_gradio_imported_after_skip_stub_writing_writes_no_stubs_and_builds_a_page():
    # In a fresh interpreter: a process imports Gradio once, and this one has.
    code = """
import sys
from leaderboard.app import gradio_compat
gradio_compat.skip_stub_writing()
import gradio as gr
from gradio import blocks_events, component_meta
assert component_meta.create_or_modify_pyi is gradio_compat.write_no_stub
assert blocks_events.create_or_modify_pyi is gradio_compat.write_no_stub
assert not any(isinstance(f, gradio_compat._StubWriterSkipper) for f in sys.meta_path)
with gr.Blocks() as blocks:
    button = gr.Button("go")
    out = gr.Markdown()
    button.click(lambda: "done", None, out)
assert [type(b).__name__ for b in blocks.blocks.values()] == ["Button", "Markdown"]
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def test_a_host_too_loaded_to_answer_gradios_self_check_in_3_s_still_serves(tmp_path_factory, full_store_template,
                                                                           monkeypatch):
    """Gradio's launch asks the page of its own address once (a HEAD, 3 s at most) and
    refuses to serve when it gets no answer, telling to make a share link: at load 20 that
    failed an app's start (session 20). The app serves without that check."""
    import gradio.networking
    import httpx
    from support.servers import serve_in_process

    monkeypatch.setattr(gradio.networking, "url_ok", lambda url: False)  # the answer a 3 s timeout gives
    with serve_in_process(tmp_path_factory, full_store_template) as (url, *_):
        assert httpx.get(url, timeout=60).status_code == 200


def test_the_app_computes_about_s_discordance_once_it_serves_before_anyone_opens_about(tmp_path_factory,
                                                                                     full_store_template, monkeypatch):
    """Its every-model read (8-13 s at 10,000 models) is warmed at the start, not left to About's
    first visitor."""
    from support.servers import serve_in_process

    from leaderboard.views import report_card

    warmed = []
    warm = report_card.warm_task_rows
    monkeypatch.setattr(report_card, "warm_task_rows", lambda board, **kw: warmed.append((board, warm(board, **kw))))
    monkeypatch.setattr(report_card, "_last_task_rows", (None, None))
    with serve_in_process(tmp_path_factory, full_store_template):
        (board, thread), = warmed
        thread.join(timeout=120)
        assert report_card._last_task_rows[0] is board.ranked()
