"""The first model of a new board, as the README's "Stand up a board" leaves it: the app on
an empty local store folder and on an empty Hub repo (`fake_hub.py`, with its OpenID
provider for sign-in, as on a Space), in Chromium: pre-submit a file, see it would rank 1
of 1, publish it, see it on the board; the pre-submission recorded once.

Screenshots are saved in test-artifacts/ (first_model_*).
"""
from __future__ import annotations

from support.pages import DESKTOP, PHONE, close, fill_form, open_page, rows, shot
from support.servers import free_port, start_app
from support.signin_pages import fill, signed_in_page

import os

from playwright.sync_api import expect

from fake_hub import FakeHub
from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR

REPO = "czech/new-board"
ACCOUNT = "alice"


def app_env(root, **env) -> dict:
    """The app's environment: a port of its own, no store or repo but those in `env`."""
    port = free_port()
    base = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
            "GRADIO_TEMP_DIR": str(root / "gradio"), "HF_HOME": str(root / "hf")}
    for name in ("LEADERBOARD_STORE", "LEADERBOARD_REPO", "SPACE_ID", "SYSTEM", "SPACE_HOST"):
        base.pop(name, None)
    return {**base, **env}


def presubmit_and_publish_the_first_model(page, title: str) -> None:
    """Pre-submit (the form filled), see rank 1 of 1 with its row, publish, see it published
    and alone on the Leaderboard tab."""
    page.locator("#presubmit").click()
    status = page.locator("#status")
    expect(status).to_contain_text(f"{title} would rank 1 of 1", timeout=90000)
    expect(status).to_contain_text("It would be the board's first model")
    expect(status).not_to_contain_text("0 other members")  # no panel of none, no table of empty scores
    expect(status).to_contain_text("Recorded as a disclosed pre-submission")
    expect(rows(page, "preview")).to_have_count(1)
    expect(page.locator("#preview [role=row]").filter(has_text="★")).to_contain_text("new")
    shot(page, "first_model_preview")
    page.locator("#publish").click()
    page.locator("#confirm").click()
    expect(status).to_contain_text(f"Published {title}", timeout=90000)
    expect(status).to_contain_text("rank 1 of 1")
    shot(page, "first_model_published")
    page.get_by_role("tab", name="Leaderboard").click()
    expect(rows(page)).to_have_count(1)
    expect(page.locator("#board table")).to_contain_text(title)


def test_the_first_model_of_an_empty_local_store(browser, tmp_path, new_model_file):
    store = tmp_path / "store"
    store.mkdir()
    log = tmp_path / "app.log"
    env = app_env(tmp_path, LEADERBOARD_STORE=str(store))
    app = start_app(env, log)
    try:
        page = open_page(browser, f"http://127.0.0.1:{env['GRADIO_SERVER_PORT']}/", DESKTOP)
        fill_form(page, new_model_file, "First Team", "first-model")
        presubmit_and_publish_the_first_model(page, "First Team/first-model")
        assert not page.dialogs
        close(page)
    finally:
        app.terminate()
        app.wait(timeout=30)
    assert len(list((store / "data").glob("*.json"))) == 1
    records = "".join(p.read_text() for p in (store / PRESUBMISSIONS_DIR).glob("*.jsonl")).splitlines()
    assert len(records) == 1 and '"rank":1' in records[0]
    assert "Traceback" not in log.read_text()


def test_the_first_model_of_an_empty_hub_repo(browser, tmp_path, new_model_file):
    """On a phone, signed in with Hugging Face as on a Space."""
    hub = FakeHub(tmp_path / "hub").start()
    hub.add_account(ACCOUNT)
    hub.create_repo(REPO)
    log = tmp_path / "app.log"
    env = app_env(tmp_path, LEADERBOARD_REPO=REPO, HF_TOKEN=hub.token, HF_ENDPOINT=hub.url,
                  OPENID_PROVIDER_URL=hub.url, OAUTH_CLIENT_ID=hub.client_id, OAUTH_CLIENT_SECRET=hub.client_secret)
    app = start_app(env, log)
    try:
        page = signed_in_page(browser, f"http://127.0.0.1:{env['GRADIO_SERVER_PORT']}/", hub, ACCOUNT, PHONE)
        fill(page, new_model_file, "first-model")
        presubmit_and_publish_the_first_model(page, f"{ACCOUNT}/first-model")
        assert not page.dialogs
        close(page)
        files = hub.files(REPO)
        records = b"".join(hub.read(REPO, f) for f in files if f.startswith(f"{PRESUBMISSIONS_DIR}/")).splitlines()
    finally:
        app.terminate()
        app.wait(timeout=30)
        hub.stop()
    assert sum(f.startswith("data/") for f in files) == 1
    assert len(records) == 1 and b'"rank":1' in records[0]
    assert "Traceback" not in log.read_text()
