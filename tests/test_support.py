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


def test_a_store_s_digest_waits_for_a_commit_in_flight(tmp_path):
    """A digest taken while a write holds the store's lock, its journal at the root, equals
    the digest after that write: the store is read under its shared lock (the whole suite
    once failed a "nothing stored" check on a served app's upload record being committed)."""
    import fcntl
    import threading
    from support.stores import tree_digest
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text("{}")
    (tmp_path / ".lock").touch()
    clean = tree_digest(tmp_path)
    with open(tmp_path / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a commit, as LocalStore.lock() takes it
        (tmp_path / ".journal.json").write_text("{}")
        digests = []
        reader = threading.Thread(target=lambda: digests.append(tree_digest(tmp_path)))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive()  # waiting for the commit, not reading beside it
        (tmp_path / ".journal.json").unlink()  # the commit ends
    reader.join(10)
    assert digests == [clean]
