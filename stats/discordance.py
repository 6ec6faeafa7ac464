"""Discordance (the Leaderboard Reporting Standard's R8): how many items two models' answers
differ on, on average over the pairs of models: the mean over pairs j < k of
sum over items |x_j - x_k|, in items (on 0/1 answers, the items on which exactly one of the
two is right: what a paired test of the two has to work with)."""
from __future__ import annotations

import numpy as np


def discordance(values: np.ndarray) -> float:
    """values (N, n): N models' values on n items (N >= 2). Per item the sum over pairs of
    |x_j - x_k| is sum_i x_(i) (2 i - N + 1) over the item's values sorted ascending
    (i from 0): each value is larger than the i before it and smaller than the N - 1 - i
    after it; divided by the N (N - 1) / 2 pairs."""
    values = np.sort(np.asarray(values, dtype=float), axis=0)
    n = len(values)
    weight = 2 * np.arange(n) - n + 1
    return float((weight @ values).sum() / (n * (n - 1) / 2))
