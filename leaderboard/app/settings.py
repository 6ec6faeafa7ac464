"""The app's settings from the environment, and what the tabs' events share."""
from __future__ import annotations

import os
from pathlib import Path

from leaderboard.limits import MB, TempDiskBudget, UploadWindow
from leaderboard.previews import DEFAULT_TTL_SECONDS

READ_ONLY = os.environ.get("LEADERBOARD_READ_ONLY", "").lower() in ("1", "true", "yes")
# Uploads and exports in Gradio's cache are deleted once they are this old (seconds);
# a pre-submission waits at most as long for its confirmation.
CACHE_SECONDS = int(os.environ.get("LEADERBOARD_CACHE_SECONDS", DEFAULT_TTL_SECONDS))
CACHE_SWEEP_SECONDS = min(60, CACHE_SECONDS)  # how often Gradio looks for old files
# Temporary disk in all (uploads while Gradio keeps them, archives while they are unpacked),
# and what one address may upload per hour.
TEMP_DISK = TempDiskBudget(int(os.environ.get("LEADERBOARD_TEMP_DISK_MB", "4096")) * MB)
UPLOADS = UploadWindow(int(os.environ.get("LEADERBOARD_UPLOADS_PER_HOUR", "20")),
                       int(os.environ.get("LEADERBOARD_UPLOAD_MB_PER_HOUR", "1024")) * MB)
# Events of the page are for the page: only the read API's endpoints (gr.api) are public.
PRIVATE = {"api_visibility": "private"}
# Handlers return {component: value}; an event's outputs are still a list, in a fixed order,
# because the page's protocol sends them by position (as clients of it read them).
STATIC = Path(__file__).parent / "static"


def script(name: str) -> str:
    """A JavaScript function from static/, as an event's or the page's `js=`."""
    return (STATIC / name).read_text(encoding="utf-8")
