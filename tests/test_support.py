"""The tests' own machinery (`tests/support/`): the Chromium the browser tests launch."""
from pathlib import Path

import pytest

from support import browser


def test_chromium_is_debians_unless_chromium_path_names_another(monkeypatch, tmp_path):
    monkeypatch.delenv("CHROMIUM_PATH", raising=False)
    assert browser.chromium_path() == Path("/usr/bin/chromium")
    other = tmp_path / "chrome"
    other.write_bytes(b"")
    other.chmod(0o755)
    monkeypatch.setenv("CHROMIUM_PATH", str(other))
    assert browser.chromium_path() == other


def test_a_missing_chromium_is_named_with_the_variable_that_chooses_it(monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMIUM_PATH", str(tmp_path / "nowhere" / "chromium"))
    with pytest.raises(browser.ChromiumMissing, match=r"no Chromium at .*nowhere/chromium.*CHROMIUM_PATH"):
        browser.chromium_path()
