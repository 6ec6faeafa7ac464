"""The progress callback long operations report through: progress(fraction done, what is happening)."""

from typing import Callable

Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    pass
