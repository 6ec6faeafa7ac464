"""Who is asking: on a board backed by a Hub repo, pre-submitting and publishing need an
account signed in with Hugging Face (OpenID Connect). The publisher is the account; the
team is the account or one of its organizations, as the Hub's whoami lists them for the
account's own token.

Gradio mounts its sign-in routes when a page has a `gr.LoginButton`: inside a Space the
real ones (authlib, the provider in OPENID_PROVIDER_URL), outside one a mocked sign-in that
signs every visitor in as the server's own Hub account. That mock is never mounted here
(`prepare_gradio`): with a configured provider the real routes are mounted outside a Space
too, and without one no LoginButton is built and publishing is a maintainer's command-line
action.
"""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
import gradio.oauth
import httpx2
import huggingface_hub
from huggingface_hub.errors import HfHubHTTPError

from leaderboard.config.settings import Settings

ANYONE, SIGNED_IN, MAINTAINERS = "anyone", "signed in", "maintainers"  # who may publish from the page


class MockedSignInRefused(RuntimeError):
    pass


def _refuse_mocked_sign_in(app) -> None:
    raise MockedSignInRefused("Gradio's mocked sign-in (every visitor signed in as the server's own Hub account) is "
                              "never mounted: configure OPENID_PROVIDER_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET")


def prepare_gradio(settings: Settings) -> None:
    """Gradio's sign-in routes as this board needs them: the real ones for the provider in
    `settings` (wherever the app runs), the mocked ones refused. Gradio reads its own copies
    of the variables when imported; they are replaced by the settings' here."""
    gradio.oauth._add_mocked_oauth_routes = _refuse_mocked_sign_in
    if settings.sign_in_configured:
        gradio.oauth.OPENID_PROVIDER_URL = settings.openid_provider_url.rstrip("/")
        gradio.oauth.OAUTH_CLIENT_ID = settings.oauth_client_id
        gradio.oauth.OAUTH_CLIENT_SECRET = settings.oauth_client_secret
        gradio.oauth.OAUTH_SCOPES = settings.oauth_scopes
        # Gradio picks the real routes only when it believes it runs in a Space.
        gradio.oauth.get_space = lambda: "configured OpenID provider"


@dataclass(frozen=True)
class Account:
    username: str
    organizations: tuple[str, ...]

    @property
    def teams(self) -> list[str]:
        """The names it may publish under: itself, then its organizations."""
        return [self.username, *self.organizations]


class SignInFailed(Exception):
    """The Hub did not confirm who the token belongs to (expired, revoked, unreachable)."""


def whoami(token: str) -> Account:
    """The account of an OAuth access token and its organizations, from the Hub."""
    try:
        answer = huggingface_hub.HfApi().whoami(token=token)  # the endpoint as configured now
    except (HfHubHTTPError, httpx2.HTTPError) as e:
        status = getattr(getattr(e, "response", None), "status_code", None)
        raise SignInFailed("your sign-in has expired; sign in again" if status == 401 else
                           "Hugging Face did not confirm your sign-in; try again in a minute") from None
    return Account(str(answer["name"]), tuple(str(org["name"]) for org in answer.get("orgs") or ()))


class SignIn:
    """The board's sign-in: who may publish from the page (`mode`), and each request's account."""

    def __init__(self, settings: Settings, hub_backed: bool, lookup=whoami):
        self.settings = settings
        self.mode = ANYONE if not hub_backed else SIGNED_IN if settings.sign_in_configured else MAINTAINERS
        self.lookup = lookup

    @property
    def required(self) -> bool:
        return self.mode == SIGNED_IN

    def account(self, token: gr.OAuthToken | None) -> Account | None:
        """The signed-in account (None: not signed in); SignInFailed when the Hub does not confirm it."""
        return None if token is None else self.lookup(token.token)

    @staticmethod
    def team_problem(account: Account, team) -> str | None:
        """Why `account` may not publish under `team`, or None."""
        if team in account.teams:
            return None
        return (f"Team: you are signed in as {account.username}, so the team must be your account or one of your "
                f"organizations ({', '.join(account.teams)}); got {str(team or '')[:100] or 'none'}")
