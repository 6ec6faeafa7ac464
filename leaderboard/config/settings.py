"""Every environment variable the app and the command line read, read here and only here.

`Settings.from_environment()` is one frozen snapshot of them; the defaults are the
README's configuration table. Read when needed (not at import), so a process that
changes its environment (the tests) gets what it set. Gradio's own variables
(GRADIO_SERVER_PORT, ...) and uvicorn's FORWARDED_ALLOW_IPS are read by those libraries.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping

DEFAULT_CACHE_SECONDS = 900  # also how long a pre-submission waits for its confirmation
TRUE_WORDS = ("1", "true", "yes")


@dataclass(frozen=True)
class Settings:
    repo: str | None = None  # LEADERBOARD_REPO: the Hub dataset repo owner/name (wins over `store`)
    hf_token: str | None = None  # HF_TOKEN: write access to `repo`
    hf_home: str | None = None  # HF_HOME: huggingface_hub's folder, where the Hub store caches files
    store: str | None = None  # LEADERBOARD_STORE: the store's folder
    tasks_file: str | None = None  # LEADERBOARD_TASKS: the benchmark's tasks file
    poll_seconds: float = 60.0  # LEADERBOARD_POLL_SECONDS: how often a Hub-backed app looks for commits
    read_only: bool = False  # LEADERBOARD_READ_ONLY: publishing hidden
    cache_seconds: int = DEFAULT_CACHE_SECONDS  # LEADERBOARD_CACHE_SECONDS: uploads, downloads, pre-submissions
    temp_disk_mb: int = 4096  # LEADERBOARD_TEMP_DISK_MB: temporary disk for uploads and unpacking, in all
    uploads_per_hour: int = 20  # LEADERBOARD_UPLOADS_PER_HOUR: per account, or per client address without
    upload_mb_per_hour: int = 1024  # LEADERBOARD_UPLOAD_MB_PER_HOUR: per client address
    api_per_minute: int = 60  # LEADERBOARD_API_PER_MINUTE: read-API requests per client address
    idle_session_seconds: int = DEFAULT_CACHE_SECONDS  # LEADERBOARD_IDLE_SESSION_SECONDS: a visitor's session kept after the page left
    page_rows: int = 50  # LEADERBOARD_PAGE_ROWS: rows per page of the leaderboard table
    presubmissions_per_hour: int = 10  # LEADERBOARD_PRESUBMISSIONS_PER_HOUR: per account, or per address without
    presubmissions_per_day: int = 30  # LEADERBOARD_PRESUBMISSIONS_PER_DAY: per account, any 24 hours
    cache_dir: str | None = None  # LEADERBOARD_CACHE_DIR: what the command line keeps between runs (~/.cache/leaderboard)
    log_level: str = "INFO"  # LEADERBOARD_LOG_LEVEL: the app's logging level
    debug: bool = False  # LEADERBOARD_DEBUG: the CLI prints the traceback of an internal error
    # Sign-in with Hugging Face (OpenID Connect): a Space with `hf_oauth: true` sets all four;
    # elsewhere a board backed by a Hub repo offers sign-in only when the first three are set.
    openid_provider_url: str | None = None  # OPENID_PROVIDER_URL: the provider (https://huggingface.co)
    oauth_client_id: str | None = None  # OAUTH_CLIENT_ID: this board's OAuth app
    oauth_client_secret: str | None = field(default=None, repr=False)  # OAUTH_CLIENT_SECRET: its secret
    oauth_scopes: str = "openid profile"  # OAUTH_SCOPES: what the sign-in asks for

    @property
    def sign_in_configured(self) -> bool:
        return bool(self.openid_provider_url and self.oauth_client_id and self.oauth_client_secret)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> "Settings":
        default = cls()

        def text(name: str) -> str | None:  # unset or empty: None
            return environ.get(name) or None

        def number(name: str, kind, value):
            return kind(environ.get(name, value))

        return cls(repo=text("LEADERBOARD_REPO"), hf_token=text("HF_TOKEN"), hf_home=text("HF_HOME"),
                   store=text("LEADERBOARD_STORE"), tasks_file=text("LEADERBOARD_TASKS"),
                   poll_seconds=number("LEADERBOARD_POLL_SECONDS", float, default.poll_seconds),
                   read_only=environ.get("LEADERBOARD_READ_ONLY", "").lower() in TRUE_WORDS,
                   cache_seconds=number("LEADERBOARD_CACHE_SECONDS", int, default.cache_seconds),
                   temp_disk_mb=number("LEADERBOARD_TEMP_DISK_MB", int, default.temp_disk_mb),
                   uploads_per_hour=number("LEADERBOARD_UPLOADS_PER_HOUR", int, default.uploads_per_hour),
                   upload_mb_per_hour=number("LEADERBOARD_UPLOAD_MB_PER_HOUR", int, default.upload_mb_per_hour),
                   api_per_minute=number("LEADERBOARD_API_PER_MINUTE", int, default.api_per_minute),
                   idle_session_seconds=number("LEADERBOARD_IDLE_SESSION_SECONDS", int,
                                               default.idle_session_seconds),
                   page_rows=max(1, number("LEADERBOARD_PAGE_ROWS", int, default.page_rows)),  # never empty
                   presubmissions_per_hour=number("LEADERBOARD_PRESUBMISSIONS_PER_HOUR", int,
                                                  default.presubmissions_per_hour),
                   presubmissions_per_day=number("LEADERBOARD_PRESUBMISSIONS_PER_DAY", int,
                                                 default.presubmissions_per_day),
                   cache_dir=text("LEADERBOARD_CACHE_DIR"),
                   log_level=environ.get("LEADERBOARD_LOG_LEVEL", default.log_level).upper(),
                   debug=bool(environ.get("LEADERBOARD_DEBUG")),
                   openid_provider_url=text("OPENID_PROVIDER_URL"), oauth_client_id=text("OAUTH_CLIENT_ID"),
                   oauth_client_secret=text("OAUTH_CLIENT_SECRET"),
                   oauth_scopes=text("OAUTH_SCOPES") or default.oauth_scopes)
