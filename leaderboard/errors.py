"""What went wrong, by meaning; each type has one exit code in the CLI and one heading in the app.

- `BadInput` (exit 2): the user's input is wrong; `problems` says, one line each, what and where
  (task, sample, field). Nothing was stored.
- `NotFound` (exit 2): a bad input naming something that does not exist (a model id);
  `StoreNotFound` (exit 2) for a store.
- `StoreFailure` (exit 1): the store could not be read or written (network, permissions, disk);
  the message gives the cause and says whether anything was published (`UnfinishedWrite`:
  committed, finished by the next process that opens the store).
- `StoreConflict`: the store changed under a write, which wrote nothing; the board retries
  (exit 1 when it reaches the caller).
"""

MAX_PROBLEMS = 25
MAX_PROBLEM_CHARS = 400


def some_names(names: list[str], shown: int = 10, total: int | None = None) -> str:
    """The first `shown` names for a message, and how many more there are (of `total` in
    all, when `names` holds only the first)."""
    total = len(names) if total is None else total
    return ", ".join(names[:shown]) + (f", ... ({total - shown} more)" if total > shown else "")


class BadInput(ValueError):
    """Bad input: `problems` says, one line each, what is wrong and where."""

    def __init__(self, problems: list[str] | str):
        problems = [problems] if isinstance(problems, str) else list(problems)
        self.problems = [p if len(p) <= MAX_PROBLEM_CHARS else p[:MAX_PROBLEM_CHARS - 1] + "…" for p in problems]
        if len(self.problems) > MAX_PROBLEMS:
            more = len(self.problems) - MAX_PROBLEMS
            self.problems = self.problems[:MAX_PROBLEMS] + [f"... and {more} more problems"]
        super().__init__("\n".join(self.problems))


class NotFound(BadInput):
    """The input names a model, flag or store that does not exist."""


class StoreFailure(Exception):
    """The store could not be read or written (network, permissions); the message says
    whether anything was written."""


class UnfinishedWrite(StoreFailure):
    """A local write failed after its commit point: it is committed (its journal), and the
    next process that opens the store finishes it; so it must not be written again."""


class StoreNotFound(StoreFailure):
    """The store named does not exist (as opposed to one that cannot be reached): exit 2
    like `NotFound`, but a store failure to code that reads the store (not a ValueError,
    which readers take for one bad file)."""


class StoreConflict(Exception):
    """The store changed since the revision a write was computed on; nothing was written."""
