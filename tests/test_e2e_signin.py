"""Signing in with Hugging Face, as users meet it: the app on a board in a (local) Hub repo,
`fake_hub.py` as the Hub and its OpenID provider, Chromium in one browser context per
person: two accounts signed in, one visitor signed out; desktop and phone.

Screenshots are saved in test-artifacts/ (signin_*).
"""
from __future__ import annotations

from support.page_sessions import PageSession
from support.pages import DESKTOP, PHONE, open_page, rows
from support.paths import ARTIFACTS
from support.servers import free_port, start_app
from support.signin_pages import fill, signed_in_page

import json
import os
import re
import shutil

import pytest
from playwright.sync_api import expect

import content
from fake_hub import FakeHub
from leaderboard.strict_json import dump_json
from leaderboard.submission.demo import demo_model

REPO = "czech/leaderboard"
ALICE, ALICE_ORG, BOB, BOB_ORG, CAROL = "alice", "alice-lab", "bob", "bob-org", "carol"


@pytest.fixture(scope="module")
def board(tmp_path_factory, full_store_template):
    """(app url, hub): the app on a Hub repo holding the 5-model store, sign-in configured
    with the hub as provider, outside a Space."""
    root = tmp_path_factory.mktemp("signin")
    hub = FakeHub(root / "hub").start()
    hub.add_account(ALICE, [ALICE_ORG])
    hub.add_account(BOB, [BOB_ORG])
    hub.add_account(CAROL, [])
    files = {str(p.relative_to(full_store_template)): p.read_bytes()
             for p in full_store_template.rglob("*") if p.is_file() and p.name != ".lock" and ".cache" not in p.parts}
    hub.create_repo(REPO, files)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_REPO": REPO, "HF_TOKEN": hub.token, "HF_ENDPOINT": hub.url,
           "HF_HOME": str(root / "hf"), "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
           "GRADIO_TEMP_DIR": str(root / "gradio"), "OPENID_PROVIDER_URL": hub.url,
           "OAUTH_CLIENT_ID": hub.client_id, "OAUTH_CLIENT_SECRET": hub.client_secret}
    for name in ("LEADERBOARD_STORE", "SPACE_ID", "SYSTEM", "SPACE_HOST"):
        env.pop(name, None)
    app = start_app(env, root / "app.log")
    try:
        yield f"http://127.0.0.1:{port}/", hub
    finally:
        app.terminate()
        app.wait(timeout=30)
        hub.stop()


@pytest.fixture(scope="module")
def model_files(tmp_path_factory, full_benchmark):
    """Two valid files of models not on the board (two variants a team might try)."""
    folder = tmp_path_factory.mktemp("files")
    paths = []
    for index in (7, 8):
        path = folder / f"variant_{index}.json"
        path.write_bytes(dump_json(demo_model(full_benchmark, index, seed=0)[1]))
        paths.append(path)
    return paths


def save(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"signin_{name}_{page.viewport_size['width']}.png"
    page.screenshot(path=str(path), full_page=True)
    shots = os.environ.get("SIGNIN_SHOTS")  # a folder to copy them to, for looking at them
    if shots:
        shutil.copy(path, shots)


def choose_team(page, team: str) -> list[str]:
    """Pick `team` in the Team dropdown; the names it offered."""
    page.locator("#team input").click()
    option = page.get_by_role("option", name=team, exact=True)
    expect(option).to_be_visible()
    offered = [t.split()[-1] for t in page.get_by_role("option").all_inner_texts()]  # after the chosen one's "✓"
    option.click()
    expect(page.locator("#team input")).to_have_value(team)
    return offered


def presubmit(page, title: str) -> None:
    page.locator("#presubmit").click()
    expect(page.locator("#status")).to_contain_text(f"{title} would rank", timeout=90000)  # not the one before


def test_two_accounts_and_a_visitor(browser, board, model_files):
    url, hub = board
    # Account 1 signs in, sees its own names only, pre-submits two variants and publishes the second under its org.
    alice = signed_in_page(browser, url, hub, ALICE, DESKTOP)
    expect(alice.locator("#login")).to_contain_text(f"Logout ({ALICE})")
    assert choose_team(alice, ALICE_ORG) == [ALICE, ALICE_ORG]  # never bob's organization
    fill(alice, model_files[0], "variant-a")
    presubmit(alice, f"{ALICE_ORG}/variant-a")
    fill(alice, model_files[1], "variant-b")
    expect(alice.locator("#team input")).to_have_value(ALICE_ORG)
    presubmit(alice, f"{ALICE_ORG}/variant-b")
    save(alice, "submit_signed_in")
    alice.locator("#publish").click()
    expect(alice.locator("#confirm")).to_be_visible()
    alice.locator("#confirm").click()
    expect(alice.locator("#status")).to_contain_text("Published", timeout=90000)
    published = [f for f in hub.files(REPO) if f.startswith("data/") and "alice-l_variant" in f]
    assert len(published) == 1, published
    sid = published[0].removeprefix("data/").removesuffix(".json")
    assert json.loads(hub.read(REPO, published[0]))["submission_metadata"]["publisher"] == ALICE
    # Account 2, on a phone, opens the model's card and sees who published it; it may use only its own names.
    bob = signed_in_page(browser, url, hub, BOB, PHONE)
    assert choose_team(bob, BOB_ORG) == [BOB, BOB_ORG]
    save(bob, "submit_signed_in")
    bob.goto(f"{url}?tab=details&model={sid}")
    card = bob.locator("#card")
    expect(card).to_contain_text(f"{ALICE_ORG}/variant-b")
    expect(card).to_contain_text(f"Published by {ALICE} (signed in with Hugging Face)")
    # ... and the two pre-submissions alice's account ran before publishing, with their would-be ranks.
    expect(card).to_contain_text(re.compile(rf"2 by account {ALICE}, would-be ranks? \d+(–\d+)? of 6"))
    save(bob, "card")
    alice.goto(f"{url}?tab=details&model={sid}")
    expect(alice.locator("#card")).to_contain_text(f"Published by {ALICE}")
    save(alice, "card")
    # A visitor, signed out, browses the board but cannot pre-submit or publish.
    for viewport in (DESKTOP, PHONE):
        visitor = open_page(browser, url, viewport, own_context=True)
        expect(rows(visitor)).to_have_count(6)
        expect(visitor.locator("#board table")).to_contain_text(f"{ALICE_ORG}/variant-b")
        visitor.get_by_role("tab", name="Submit").click()
        expect(visitor.locator("#signin-note")).to_contain_text("Sign in with Hugging Face")
        expect(visitor.locator("#presubmit")).to_be_disabled()
        expect(visitor.locator("#publish")).to_be_hidden()
        expect(visitor.locator("#login")).to_contain_text("Sign in with Hugging Face")
        save(visitor, "submit_signed_out")
        assert not visitor.dialogs
        visitor.context.close()
    for page in (alice, bob):
        assert not page.dialogs
        page.context.close()
    assert re.fullmatch(r"\d+", str(hub.sign_ins)) and hub.sign_ins == 2


def test_a_session_saved_before_signing_out_can_neither_pre_submit_nor_publish(browser, board, model_files):
    """An account signs in, pre-submits with a copy of its session cookie (as anyone holding
    the cookie could), then signs out in its browser: the copy is refused for publishing the
    preview and for another pre-submission, and nothing lands in the repo."""
    url, hub = board
    carol = signed_in_page(browser, url, hub, CAROL, DESKTOP)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in carol.context.cookies(url))
    saved = PageSession(url, cookie=cookie)  # its Submit tab built for the account: its names are the team's choices
    form = [CAROL, "replayed", "chat", 7, 4096, "bfloat16", "", "https://example.com/replayed"]
    assert "would rank" in saved.call("presubmit", [*form, saved.upload(model_files[0])])[0]  # signed in, it works
    carol.locator("#login").click()  # "Logout (carol)"
    expect(carol.locator("#login")).to_contain_text("Sign in with Hugging Face")
    save(carol, "signed_out")
    files = sorted(hub.files(REPO))
    assert saved.call("publish", [None])[0] == content.SIGN_IN_FIRST
    status = saved.call("presubmit", [*form, saved.upload(model_files[1])])[0]
    assert status == content.SIGN_IN_FIRST, status
    assert sorted(hub.files(REPO)) == files
    assert not carol.dialogs
    carol.context.close()
