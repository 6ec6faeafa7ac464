"""A name -> entry registry that refuses a second entry under a taken name and, asked for
an unknown name, says which names it knows."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

T = TypeVar("T")


class NameClash(ValueError):
    """A name or alias is already registered: silently replacing the entry would change
    what every user of that name gets."""


class UnknownName(KeyError):
    """No entry under that name; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0])


class Registry(Mapping[str, T], Generic[T]):
    """Entries by name (iteration, `in` and `[]` see the names only); `aliases` maps each
    name and alias to its name."""

    def __init__(self, what: str):
        self.what = what  # what an entry is, for messages: "metric", "task"
        self._entries: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self.aliases: Mapping[str, str] = MappingProxyType(self._aliases)

    def register(self, name: str, entry: T, aliases: tuple[str, ...] = ()) -> T:
        for taken in (name, *aliases):
            if taken in self._aliases:
                owner = self._aliases[taken]
                raise NameClash(f"{self.what} {taken!r} is already registered"
                                f"{'' if owner == taken else f' (an alias of {owner!r})'}; pick another name")
        self._entries[name] = entry
        self._aliases.update(dict.fromkeys((name, *aliases), name))
        return entry

    def __getitem__(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownName(f"unknown {self.what} {name!r}; known: {', '.join(sorted(self._entries)) or 'none'}") \
                from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
