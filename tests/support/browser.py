"""The Chromium the browser tests and the page benchmarks launch: Debian's by default,
another through CHROMIUM_PATH (a Chrome, a Playwright download)."""
from __future__ import annotations

import os
from pathlib import Path

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DEFAULT_CHROMIUM = "/usr/bin/chromium"


class ChromiumMissing(RuntimeError):
    pass


def chromium_path() -> Path:
    """The Chromium executable to launch, read when a browser is launched (a test may set it)."""
    path = Path(os.environ.get("CHROMIUM_PATH") or DEFAULT_CHROMIUM)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise ChromiumMissing(f"no Chromium at {path} (an executable file): install Debian's chromium "
                              f"(make install-test) or set CHROMIUM_PATH to a Chromium or Chrome executable")
    return path


def launch_chromium(playwright):
    """A headless Chromium from `chromium_path()`, with the arguments the tests run it with."""
    return playwright.chromium.launch(executable_path=str(chromium_path()), args=CHROMIUM_ARGS)
