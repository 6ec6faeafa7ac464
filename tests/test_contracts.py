"""The checked contracts between layers, in the fast tier: what the board calls on a store
is in the `Store` protocol (storage/store.py) and both stores implement it with its
signatures; what the writing roles use of the board is in `BoardReader` (board/reader.py)
and `Leaderboard` implements it. `tests/test_import_graph.py` checks the imports themselves."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from leaderboard.board.reader import BoardReader
from leaderboard.board.state import EMPTY_STATE, Leaderboard
from leaderboard.storage.hub import HubStore
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import Store

ROOT = Path(__file__).resolve().parent.parent


def protocol_mismatches(protocol: type, implementation) -> list[str]:
    """What `implementation` (a class, or an instance when the protocol has attributes
    the instance sets) lacks of `protocol` or has otherwise: a missing member, a method that
    is not one, a method's parameters (names, kinds and defaults, in order) differing from
    the protocol's."""
    found, kind = [], implementation if isinstance(implementation, type) else type(implementation)
    for name, member in vars(protocol).items():
        if name.startswith("_"):
            continue
        if not hasattr(implementation, name):
            found.append(f"{kind.__name__} lacks {name}")
        elif callable(member):
            implemented = getattr(kind, name, None)
            if not callable(implemented):
                found.append(f"{kind.__name__}.{name} is not a method")
                continue
            wanted, has = ([(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]
                           for f in (member, implemented))
            if has != wanted:
                found.append(f"{kind.__name__}.{name}{inspect.signature(implemented)}: the protocol has "
                             f"{name}{inspect.signature(member)}")
    return found


def test_both_stores_implement_the_whole_store_protocol_the_board_calls():
    """What the board calls on a store is in the `Store` protocol, and both stores have it
    all with the protocol's signatures."""
    board_code = "".join(path.read_text() for path in (ROOT / "leaderboard" / "board").glob("*.py"))
    called = set(re.findall(r"\bstore\.([a-z_]+)\(", board_code))
    protocol = {name for name in vars(Store) if not name.startswith("_")}
    assert called and called <= protocol, called - protocol
    assert protocol_mismatches(Store, LocalStore) + protocol_mismatches(Store, HubStore) == []


def test_the_board_gives_its_writers_what_their_reader_protocol_says(tmp_path, small_benchmark):
    """The writing roles take a `BoardReader` (board/reader.py): `Leaderboard` has all of it,
    with its signatures, and what the writers use of the board is in it."""
    assert protocol_mismatches(BoardReader, Leaderboard(LocalStore(tmp_path), small_benchmark)) == []
    writers = "".join((ROOT / "leaderboard" / "board" / f"{name}.py").read_text()
                      for name in ("publishing", "administration", "writing"))
    used = set(re.findall(r"(?<!leaderboard\.)\bboard\.([a-z_]+)\b", writers))  # not `leaderboard.board.x`, a module
    assert used and used <= {name for name in vars(BoardReader) if not name.startswith("_")}, used - set(vars(BoardReader))


def test_the_board_state_is_read_only_and_its_writers_are_its_neighbours(tmp_path, small_benchmark):
    """Issue 37: `Leaderboard` builds no writer (they are built beside it and take a
    `BoardReader`), its state cannot be assigned, and the one call of the protocol that
    changes the board is `install` (`refresh` reloads it from the store); the reading
    role's module imports no writing role."""
    board = Leaderboard(LocalStore(tmp_path), small_benchmark)
    assert not hasattr(board, "publishing") and not hasattr(board, "admin")
    with pytest.raises(AttributeError):
        board.state = EMPTY_STATE  # type: ignore[misc]
    methods = {name for name, member in vars(BoardReader).items() if not name.startswith("_") and callable(member)}
    assert {"install", "refresh"} <= methods and not methods & {"replace_state", "forget_orphan_duels", "follow"}
    reading_role = (ROOT / "leaderboard" / "board" / "state.py").read_text()
    assert not re.findall(r"^from leaderboard\.board\.(publishing|administration|writing) import", reading_role,
                          re.MULTILINE)


def test_a_store_without_a_protocol_method_or_with_another_signature_is_found():
    """The check itself: a method missing, renamed parameters and another default are each named."""
    class Partial:
        def exists(self) -> bool: ...

        def revision(self, stale: bool = False) -> str: ...

        def lock(self, shared: bool = True): ...

    found = protocol_mismatches(Store, Partial)
    assert "Partial lacks publish_all" in found
    assert any(line.startswith("Partial.revision(self, stale") for line in found), found
    assert any(line.startswith("Partial.lock(self, shared") for line in found), found
    assert not any("exists" in line for line in found)
