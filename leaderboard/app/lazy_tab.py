"""Tabs whose components are made the first time a page session opens them (issue 35).

Gradio's browser runtime takes in every component and event of the page's config on its first
load, whether its tab is shown or not: about 1 ms of the main thread each (bench/RESULTS.md,
session 22). A tab built when opened is not in that config: its components and events are
made on the server, for that page session, and the browser mounts them then."""
from __future__ import annotations

import itertools
from typing import Callable, Sequence

import gradio as gr

from leaderboard.app.gradio_compat import private_render
from leaderboard.app.settings import PRIVATE


def built_when_opened(tab: gr.Tab, opened: gr.Checkbox, build: Callable, inputs: Sequence = ()) -> None:
    """`build(*inputs)` makes `tab`'s components and events, inside it, the first time the
    page session opens it: when `opened` first turns True. The tab's selection turns it True
    (a change event fires once: later selections leave the built tab as it is); a link's
    restore does so for the tab the page opens on. Call inside `tab`; `build` may ask for
    gr.Request and gr.OAuthToken as any event's function does.

    The page keeps one list of listeners per component and event, and a built tab's replace
    the page's: `build` listens to no component of the page that the page listens to itself
    (a relay, `follower`, in its place), except the tab's selection, whose events then write
    the tab to the URL themselves."""
    private_render(build, list(inputs), [opened.change])
    tab.select(None, None, opened, js="() => true", api_visibility=PRIVATE["api_visibility"])


def follower(component) -> gr.State:
    """A State set to `component`'s value at each input of it (queued: the page fires a
    State's change only for a queued call's answer): a built tab listens to its change in
    place of the component's input, which the page listens to itself (see built_when_opened)."""
    relay = gr.State(None)
    component.input(lambda value: value, component, relay, api_visibility=PRIVATE["api_visibility"])
    return relay


def opened_flag(tab_id: str) -> gr.Checkbox:
    """The hidden flag that builds the tab `tab_id` (see built_when_opened). Made outside the
    tabs: a component inside a tab not yet shown is not mounted in the browser."""
    return gr.Checkbox(False, visible=False, elem_id=f"{tab_id}-opened")


_VISITS = itertools.count()


def new_visit(view: dict) -> dict:
    """`view` as a new value of a tab's view state (a gr.State its built tab follows): Gradio
    fires a State's change only when its value changes, and a link's restore must show its
    view even when it equals the last one set (Back to a view the visitor has left by picking)."""
    return {**view, "visit": next(_VISITS)}


def updates(view, shown: dict[str, dict]) -> dict:
    """A built tab's components' updates: `shown`'s properties of each, by its attribute's name
    in `view` (a tab's view, made as properties so that the tab's build uses them too)."""
    return {getattr(view, name): gr.update(**properties) for name, properties in shown.items()}
