"""How `app.py` serves the page: Gradio's queue, which looks for waiting events every
millisecond while it has none, looks every `QUEUE_POLL_SECONDS` instead."""
import gradio as gr

import app


def page() -> gr.Blocks:
    with gr.Blocks() as blocks:
        gr.Markdown("a page")
    return blocks


def test_the_queue_looks_for_waiting_events_every_10_ms_not_every_millisecond():
    gradio_own = page().queue(default_concurrency_limit=8)._queue
    assert gradio_own.sleep_when_free == 0.001  # what app.py replaces (Gradio has no setting for it)
    served = app.queued(page())._queue
    assert served.sleep_when_free == app.QUEUE_POLL_SECONDS == 0.01
    assert served.default_concurrency_limit == 8
