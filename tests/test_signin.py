"""Who may pre-submit and publish: the sign-in's modes, the team rule, the whoami lookup
against the local Hub, Gradio's mocked sign-in refused, and the Submit tab's handlers
refusing what the page would never send (no sign-in, another account's team)."""
from __future__ import annotations

from support.signin_pages import signin_tab

import gradio as gr
import pytest
from gradio.routes import App

from fake_hub import FakeHub
from leaderboard.app.gradio_compat import MockedSignInRefused, prepare_sign_in
from leaderboard.app.signin import ANYONE, MAINTAINERS, SIGNED_IN, Account, SignIn, SignInFailed, whoami
from leaderboard.config.settings import Settings

PROVIDER = Settings(openid_provider_url="https://hub.example", oauth_client_id="id", oauth_client_secret="secret")


def test_sign_in_only_on_a_hub_board_with_a_provider():
    assert SignIn(Settings(), hub_backed=False).mode == ANYONE  # the local demo store, as before
    assert SignIn(PROVIDER, hub_backed=False).mode == ANYONE
    assert SignIn(Settings(), hub_backed=True).mode == MAINTAINERS  # no provider: publishing by the CLI
    assert SignIn(Settings(openid_provider_url="https://hub.example", oauth_client_id="id"),
                  hub_backed=True).mode == MAINTAINERS  # no secret: no sign-in
    assert SignIn(PROVIDER, hub_backed=True).mode == SIGNED_IN


def test_the_team_is_the_account_or_one_of_its_organizations():
    alice = Account("alice", ("alice-lab",))
    assert SignIn.team_problem(alice, "alice") is None and SignIn.team_problem(alice, "alice-lab") is None
    for team in ("bob-org", "Alice-Lab", "", None):
        problem = SignIn.team_problem(alice, team)
        assert "signed in as alice" in problem and "(alice, alice-lab)" in problem


def test_whoami_reads_the_account_and_its_organizations_from_the_hub(tmp_path, monkeypatch):
    hub = FakeHub(tmp_path / "hub").start()
    try:
        hub.add_account("alice", ["alice-lab", "czech-nlp"])
        monkeypatch.setattr("huggingface_hub.constants.ENDPOINT", hub.url)
        token = hub.issue_token("alice")
        assert whoami(token) == Account("alice", ("alice-lab", "czech-nlp"))
        with pytest.raises(SignInFailed, match="expired"):
            whoami("hf_oauth_not_issued")
    finally:
        hub.stop()


def test_gradios_mocked_sign_in_is_never_mounted():
    """Outside a Space with no provider, a page with a LoginButton would get Gradio's mock
    (every visitor signed in as the server's Hub account): refused, the app not built."""
    prepare_sign_in(Settings())
    with pytest.raises(MockedSignInRefused):
        with gr.Blocks() as page:
            gr.LoginButton()
        App.create_app(page)


class Token:
    def __init__(self, token: str):
        self.token = token


def test_the_handlers_refuse_unsigned_and_foreign_team_submissions(small_store, tmp_path):
    """What a raw request could send: no sign-in, or a team of another account. Refused
    with the reason; nothing stored."""
    from leaderboard.app.page import build_app
    accounts = {"alice-token": Account("alice", ("alice-lab",)), "bob-token": Account("bob", ("bob-org",))}
    signin = SignIn(PROVIDER, hub_backed=True, lookup=lambda token: accounts[token])
    build_app(small_store, signin=signin)
    submit = signin_tab(small_store, signin)
    assert submit.shared.publisher(None, "alice")[1].startswith("**Sign in with Hugging Face**")
    assert "signed in as bob" in submit.shared.publisher(Token("bob-token"), "alice-lab")[1]
    assert submit.shared.publisher(Token("alice-token"), "alice-lab") == ("alice", None)
    before = sorted(small_store.models)
    out = submit.presubmit("alice-lab", "m", "chat", 7, 4096, "bfloat16", "", "https://x.org", "file.json",
                           gr.Request(session_hash="s"), None)
    assert out[submit.status].startswith("**Sign in with Hugging Face**")
    out = submit.publish("a-token", gr.Request(session_hash="s"), Token("bob-token"))
    assert "pre-submit" in out[submit.status]  # nothing of bob's to publish
    assert sorted(small_store.models) == before


def test_a_tampered_team_is_refused_by_the_handler_with_the_reason(small_store, new_model_file):
    """A request naming a team outside the account's list (the page offers only those) got
    Gradio's bare "Error"; the dropdown now passes it on and the handler says why it is
    refused, nothing stored (issue 32, item 9)."""
    from leaderboard.app.page import build_app
    accounts = {"alice-token": Account("alice", ("alice-lab",))}
    signin = SignIn(PROVIDER, hub_backed=True, lookup=lambda token: accounts[token])
    build_app(small_store, signin=signin)  # prepares Gradio's sign-in as the app does
    submit = signin_tab(small_store, signin)
    before = sorted(small_store.models)
    team = submit.team.preprocess("bob-org")  # what Gradio makes of the value a request sends
    out = submit.presubmit(team, "m", "chat", 7, 4096, "bfloat16", "", "https://x.org", str(new_model_file),
                           gr.Request(session_hash="s"), Token("alice-token"))
    assert out[submit.status] == ("**Not accepted**: Team\\: you are signed in as alice, so the team must be your "
                                  "account or one of your organizations \\(alice, alice\\-lab\\); got bob\\-org.")
    assert sorted(small_store.models) == before
