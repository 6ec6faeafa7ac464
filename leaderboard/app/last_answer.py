"""The last answer a tab made, kept for the next event that asks the same of the same board:
a render and the download chained after it, the start's warming and the first visitor."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class LastAnswer(Generic[T]):
    def __init__(self) -> None:
        self._kept: tuple | None = None  # (the board's derived state, the question, the answer)

    def of(self, derived, question: tuple, make: Callable[[], T]) -> T:
        """The answer to `question` on the board whose derived state is `derived` (the same
        object while nothing is published: compared by identity, never by value)."""
        kept = self._kept
        if kept is not None and kept[0] is derived and kept[1] == question:
            return kept[2]
        answer = make()
        self._kept = (derived, question, answer)
        return answer
