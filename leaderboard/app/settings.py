"""The app's settings (from `leaderboard.config.settings`, read once when the app starts), and what
the tabs' events share."""
from __future__ import annotations

from pathlib import Path

import gradio as gr

from leaderboard.app.limits import PresubmissionQuota, RequestRate
from leaderboard.temp_disk import MB, TempDiskBudget
from leaderboard.app.signin import SignOuts
from leaderboard.config.settings import Settings

SETTINGS = Settings.from_environment()
READ_ONLY = SETTINGS.read_only
PAGE_ROWS = SETTINGS.page_rows  # rows per page of the leaderboard table
# Uploads and exports in Gradio's cache are deleted once they are this old (seconds);
# a pre-submission waits at most as long for its confirmation.
CACHE_SECONDS = SETTINGS.cache_seconds
CACHE_SWEEP_SECONDS = min(60, CACHE_SECONDS)  # how often Gradio looks for old files
# Temporary disk in all (uploads while Gradio keeps them, archives while they are unpacked).
TEMP_DISK = TempDiskBudget(SETTINGS.temp_disk_mb * MB)
# What one account (or address, without sign-in) may upload per hour is counted from the
# store's upload records (app.py's UploadWindow); a Hub replica commits its records at most
# this often (seconds), so replicas see each other's uploads within it (and the poll).
HUB_UPLOAD_RECORD_SECONDS = 60
# Pre-submissions per account (per address without sign-in) per hour, and per account per day.
PRESUBMISSIONS = PresubmissionQuota(SETTINGS.presubmissions_per_hour, SETTINGS.presubmissions_per_day)
# The public read API: its requests per client address per minute, and how many it answers at
# once (one: each holds the interpreter for its milliseconds, so the page's own events, which
# run beside it, stay quick during a flood of API requests).
API_RATE = RequestRate(SETTINGS.api_per_minute)
API_CONCURRENCY = 1
# Sessions signed out (their tokens), refused from then on.
SIGNED_OUT = SignOuts()
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
