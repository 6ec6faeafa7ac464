"""What a new visitor's first open of Details and Head-to-head asks for, and what the first
pre-submission's view needs, made once the page is served (issue 35: at 10,000 models the
best model's duels took 1-1.3 s and the best two's comparison 1-4 s, most of it scipy.stats'
first import; the first preview paid 0.28 s for pandas' Styler). The duels CSV is not among
them: it is made when a visitor asks for it."""
from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

# Gradio adds a component made anywhere in the process to the page being built then (its build
# context is global): the first views are made while no page is being built, so that no
# component a view makes (their properties are plain dicts since the tabs are built when
# opened, session 22) can join one. One app serves a page per process; the tests build several.
PAGE_BUILDS = threading.Lock()


def make_in_background(after: threading.Event, *tabs) -> None:
    """Each tab's `warm()` in a thread of its own, once `after` is set (the page is served), each
    while no page is being built (PAGE_BUILDS)."""
    def warm():
        after.wait()
        for tab in tabs:
            try:
                with PAGE_BUILDS:
                    tab.warm()
            except Exception:  # a visitor's open makes it then, and says what failed
                log.exception("warming %s's first view failed", type(tab).__name__)
    threading.Thread(target=warm, name="first-views", daemon=True).start()
