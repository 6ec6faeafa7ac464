"""Who is asking: on a board backed by a Hub repo, pre-submitting and publishing need an
account signed in with Hugging Face (OpenID Connect). The publisher is the account; the
team is the account or one of its organizations, as the Hub's whoami lists them for the
account's own token.

Gradio mounts its sign-in routes when a page has a `gr.LoginButton`: inside a Space the
real ones (authlib, the provider in OPENID_PROVIDER_URL), outside one a mocked sign-in that
signs every visitor in as the server's own Hub account. That mock is never mounted here
(`gradio_compat.prepare_sign_in`): with a configured provider the real routes are mounted outside a Space
too, and without one no LoginButton is built and publishing is a maintainer's command-line
action.
"""
from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass

import gradio as gr
import httpx2
import huggingface_hub
from huggingface_hub.errors import HfHubHTTPError

from leaderboard.app.gradio_compat import LOGOUT_PATH, oauth_info
from leaderboard.config.settings import Settings

ANYONE, SIGNED_IN, MAINTAINERS = "anyone", "signed in", "maintainers"  # who may publish from the page


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


class SignOuts:
    """The access tokens of sessions signed out of this app, each until it expires.
    Gradio keeps a session in a signed cookie, which /logout empties in the browser; a copy
    of the cookie kept from before would still carry the token, which the Hub still honours."""

    KEPT_WITHOUT_EXPIRY = 86400.0  # a token whose session says no expiry is refused for a day

    def __init__(self, clock=time.time):
        self.clock = clock
        self._until: dict[str, float] = {}  # sha256 of a token -> when it expires
        self._lock = threading.Lock()

    @staticmethod
    def _key(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()  # the tokens themselves are not kept

    def add(self, token: str, expires_at: float | None) -> None:
        now = self.clock()
        with self._lock:
            for key in [k for k, until in self._until.items() if until <= now]:
                del self._until[key]
            self._until[self._key(token)] = expires_at or now + self.KEPT_WITHOUT_EXPIRY

    def __contains__(self, token: object) -> bool:  # a Container[str], as UploadGate takes it
        if not isinstance(token, str):
            return False
        with self._lock:
            return self._until.get(self._key(token), 0) > self.clock()


class SignOutGate:
    """ASGI middleware: a request to Gradio's /logout adds the session's token to `signed_out`
    before Gradio empties the session (the cookie sent back), so that no copy of it signs in again."""

    def __init__(self, app, signed_out: SignOuts):
        self.app, self.signed_out = app, signed_out

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].endswith(LOGOUT_PATH):
            info = oauth_info(scope)
            if info.get("access_token"):
                self.signed_out.add(str(info["access_token"]), info.get("expires_at"))
        await self.app(scope, receive, send)


class SignIn:
    """The board's sign-in: who may publish from the page (`mode`), and each request's account
    (none for a session signed out: `signed_out`, which SignOutGate fills)."""

    def __init__(self, settings: Settings, hub_backed: bool, lookup=whoami, signed_out: SignOuts | None = None):
        self.settings = settings
        self.mode = ANYONE if not hub_backed else SIGNED_IN if settings.sign_in_configured else MAINTAINERS
        self.lookup = lookup
        self.signed_out = signed_out if signed_out is not None else SignOuts()

    @property
    def required(self) -> bool:
        return self.mode == SIGNED_IN

    def account(self, token: gr.OAuthToken | None) -> Account | None:
        """The signed-in account (None: not signed in); SignInFailed when the Hub does not confirm it."""
        return None if token is None or token.token in self.signed_out else self.lookup(token.token)

    @staticmethod
    def team_problem(account: Account, team) -> str | None:
        """Why `account` may not publish under `team`, or None."""
        if team in account.teams:
            return None
        return (f"Team: you are signed in as {account.username}, so the team must be your account or one of your "
                f"organizations ({', '.join(account.teams)}); got {str(team or '')[:100] or 'none'}")
