"""The settings an app is built with (`AppSettings`: from `leaderboard.config.settings`, read
when the app is built, never at import), and what the tabs' events share."""
from __future__ import annotations

from pathlib import Path

import gradio as gr

from leaderboard.app.limits import PresubmissionQuota, RequestRate
from leaderboard.temp_disk import MB, TempDiskBudget
from leaderboard.app.signin import SignOuts
from leaderboard.config.settings import Settings

# What one account (or address, without sign-in) may upload per hour is counted from the
# store's upload records (app.serving's UploadWindow); a Hub replica commits its records at most
# this often (seconds), so replicas see each other's uploads within it (and the poll).
HUB_UPLOAD_RECORD_SECONDS = 60
# The public read API answers one request at a time: each holds the interpreter for its
# milliseconds, so the page's own events, which run beside it, stay quick during a flood of
# API requests.
API_CONCURRENCY = 1


class AppSettings:
    """One app's settings (default: the environment's, read now) and the limits made from
    them: each app counts its own quotas, rates and temporary disk (a process may serve
    several, as the tests do)."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings if settings is not None else Settings.from_environment()
        # Temporary disk in all (uploads while Gradio keeps them, archives while they are unpacked).
        self.temp_disk = TempDiskBudget(self.settings.temp_disk_mb * MB)
        # Pre-submissions per account (per address without sign-in) per hour, and per account per day.
        self.presubmissions = PresubmissionQuota(self.settings.presubmissions_per_hour,
                                                 self.settings.presubmissions_per_day)
        self.api_rate = RequestRate(self.settings.api_per_minute)  # read-API requests per client address per minute
        self.signed_out = SignOuts()  # sessions signed out (their tokens), refused from then on

    @property
    def cache_seconds(self) -> int:
        """Uploads and exports in Gradio's cache are deleted once they are this old (seconds);
        a pre-submission waits at most as long for its confirmation."""
        return self.settings.cache_seconds

    @property
    def cache_sweep_seconds(self) -> int:
        """How often Gradio looks for old files."""
        return min(60, self.settings.cache_seconds)


# Events of the page are for the page: only the read API's endpoints (gr.api) are public.
PRIVATE = {"api_visibility": "private"}
# Handlers return {component: value}; an event's outputs are still a list, in a fixed order,
# because the page's protocol sends them by position (as clients of it read them).
STATIC = Path(__file__).parent / "static"


def download(path: str | None):
    """A download button's update holding `path`, disabled while it holds none (a file made
    by a later event): a click then does nothing, where an enabled button gave no download."""
    return gr.DownloadButton(value=path, interactive=path is not None)


def script(name: str) -> str:
    """A JavaScript function from static/, as an event's or the page's `js=`."""
    return (STATIC / name).read_text(encoding="utf-8")
