"""Discordance (the Leaderboard Reporting Standard's R8): how many items two models' answers
differ on, on average over the pairs of models: the mean over pairs j < k of
sum over items |x_j - x_k|, in items. On 0/1 answers these are the items on which exactly
one of the two is right: what a paired test of the two has to work with."""
from __future__ import annotations

import numpy as np


def binary_discordance(right: np.ndarray, models: int) -> float:
    """right (n,): per item, how many of `models` (>= 2) models answered it right (0/1 answers).
    An item that c of N models got right differs between c (N - c) of the N (N - 1) / 2 pairs;
    so the counts are all it takes, which a board accumulates one model at a time."""
    right = np.asarray(right, dtype=float)
    return float((right * (models - right)).sum() / (models * (models - 1) / 2))
