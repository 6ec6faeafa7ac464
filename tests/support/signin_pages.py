"""Signing in: the Submit tab built with a sign-in, and a person's browser signed in at the fake hub."""
from __future__ import annotations

from playwright.sync_api import expect
import gradio as gr
from fake_hub import FakeHub
from support.pages import open_page


def signed_in_page(browser, url: str, hub: FakeHub, account: str | None, viewport: dict):
    """A person's browser: signed in to the hub as `account` (None: not at all), on the app's
    Submit tab, signed in to the app through its button when `account` is given."""
    page = open_page(browser, url + "?tab=submission", viewport, own_context=True)
    if account is not None:
        page.context.add_cookies([{"name": "fake_hub_account", "value": account, "url": hub.url}])
        page.locator("#login").click()
        expect(page.locator("#signin-note")).to_contain_text(f"Signed in as {account}")
    return page


def fill(page, file, model: str) -> None:
    page.locator("#model textarea, #model input").first.fill(model)
    page.locator("#params input").fill("7")
    page.locator("#input-length input").fill("4096")
    page.locator("#link textarea, #link input").first.fill("https://example.com/signed")
    held = page.locator("#file").get_by_role("button", name="Clear")
    if held.count():  # the file of a pre-submission before: cleared as a user does
        held.click()
    page.locator("#file input[type=file]").set_input_files(str(file))
    expect(page.locator("#file").get_by_role("cell", name=file.name)).to_be_visible()


def signin_tab(board, signin):
    """The Submit tab's form (`SubmitForm`) of a page built for `board` with `signin`, as a page
    session's first open of the tab builds it."""
    from leaderboard.app.previews import PreviewShelf
    from leaderboard.app.settings import AppSettings
    from leaderboard.app.submit_tab import SubmitTab
    with gr.Blocks():
        opened = gr.Checkbox()
        with gr.Tabs():
            with gr.Tab("Details"):
                pick = gr.Dropdown()

            class Board:
                def show_after(self, event):
                    return event
            tab = SubmitTab(board, AppSettings(signin.settings), PreviewShelf(ttl=60), pick, Board(), signin, opened)
            with tab.tab:
                return tab.build(None)


def built_submit_form(app):
    """The Submit tab's form of the page `app` (build_app's), built as a page session's first
    open of the tab builds it, not signed in; and the Blocks holding its components."""
    from leaderboard.app.submit_tab import SubmitTab
    submit = next(r.fn.__self__ for r in app.renderables if isinstance(r.fn.__self__, SubmitTab))
    with gr.Blocks() as page:
        form = submit.build(None)
    return form, page
