"""The field rule written a second, slow way: plain loops over models, pairs and
resamples, from the definitions in `stats.field`'s text (for test_field.py and
test_ranking_properties.py; never calling the code under test)."""
from __future__ import annotations

import numpy as np

from stats import evidence, field


def slow_field_shares(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row and model: (weights of the others below + half of those equal) / the
    others' weights, over the others in the field (a value that is not NaN)."""
    out = np.full(values.shape, np.nan)
    for r, row in enumerate(values):
        for i, own in enumerate(row):
            others = [j for j in range(len(row)) if j != i and not np.isnan(row[j])]
            total = sum(weights[j] for j in others)
            if np.isnan(own) or total <= 0:
                continue
            below = sum(weights[j] for j in others if row[j] < own)
            equal = sum(weights[j] for j in others if row[j] == own)
            out[r, i] = (below + equal / 2) / total
    return out


def slow_family_ranks(scores: np.ndarray, family: np.ndarray) -> np.ndarray:
    """1 + the other families with a member above + the own family's members above."""
    scores = np.round(scores, 9)
    out = np.zeros(scores.shape, dtype=int)
    for r, row in enumerate(scores):
        for i, own in enumerate(row):
            families_above = {family[j] for j in range(len(row)) if family[j] != family[i] and row[j] > own}
            own_above = [j for j in range(len(row)) if family[j] == family[i] and row[j] > own]
            out[r, i] = 1 + len(families_above) + len(own_above)
    return out


def slow_difference_share(replicates: list[np.ndarray], i: int, j: int) -> float:
    """The mean over tasks of Var(a - b) / (Var a + Var b) across the resamples (0 where
    both are constant)."""
    per_task = []
    for values in replicates:
        a, b = values[:, i], values[:, j]
        spread = np.var(a) + np.var(b)
        per_task.append(np.var(a - b) / spread if spread > 0 else 0.0)
    return float(np.mean(per_task))


def slow_near_copies(scores: np.ndarray, replicates: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(family, medoid) by the written rule, every pair looked at: candidates whose task
    scores differ on every task by at most CANDIDATE_NOISE_GAP standard errors of their
    difference (each model's from the standard deviation of its replicates); near-copies
    when their difference share is at most NEAR_COPY_SHARE; families grown by repeated
    merging, numbered by first member; each family's medoid the member whose shares to
    the other members sum least, an unlinked pair counting 1 (ties: the first)."""
    n = len(scores)
    in_field = [i for i in range(n) if np.isfinite(scores[i]).all()]
    noise = [[float(np.std(values[:, i])) for values in replicates] for i in range(n)]
    label, link = list(range(n)), {}
    for i in in_field:
        for j in in_field:
            if j <= i:
                continue
            if any(abs(scores[i, t] - scores[j, t]) > field.CANDIDATE_NOISE_GAP * np.hypot(noise[i][t], noise[j][t])
                   + 1e-12 for t in range(scores.shape[1])):
                continue
            share = slow_difference_share(replicates, i, j)
            if share <= field.NEAR_COPY_SHARE:
                link[i, j] = link[j, i] = share
                old, new = max(label[i], label[j]), min(label[i], label[j])
                label = [new if x == old else x for x in label]
    first = {}
    family = np.array([first.setdefault(x, len(first)) for x in label])
    medoid = np.zeros(n, dtype=bool)
    for f in range(family.max() + 1):
        members = [i for i in range(n) if family[i] == f]
        totals = [sum(link.get((i, j), 1.0) for j in members if j != i) for i in members]
        medoid[members[int(np.argmin(np.round(totals, 12)))]] = True
    return family, medoid


def slow_half_step(replicates, category, weights) -> np.ndarray:
    """Per model and scope, half the smallest change of its score: per task of the scope,
    1 / (2 x the weight of its opponents in the field) x the task's weight in the scope
    (overall: 1 / (categories x its category's tasks)); 0 where no task has an opponent."""
    n_categories = category.max() + 1
    out = np.zeros((replicates[0].shape[1], 1 + n_categories))
    for i in range(len(out)):
        steps = {}  # scope -> the steps of its tasks
        for t, values in enumerate(replicates):
            opponents = sum(weights[j] for j in range(len(out)) if j != i and not np.isnan(values[0, j]))
            if opponents <= 0:
                continue
            in_category = int(np.sum(category == category[t]))
            steps.setdefault(0, []).append(0.5 / opponents / in_category / n_categories)
            steps.setdefault(1 + category[t], []).append(0.5 / opponents / in_category)
        for scope, values in steps.items():
            out[i, scope] = min(values) / 2
    return out


def slow_certainty(replicates, category, weights, family, displayed):
    """Per resample: every model's field share per task by the loop, category and overall
    means, family ranks by the loop; then each column's nearest-tails interval (a score's
    joined with itself moved by the displayed score less the draws' mean, then widened
    by `slow_half_step`, within [0, 1]) and the tie
    groups (`evidence`'s, tested in test_coverage.py)."""
    n_resamples = replicates[0].shape[0]
    scopes = []
    for r in range(n_resamples):
        shares = np.column_stack([slow_field_shares(values[r:r + 1], weights)[0] for values in replicates])
        per_category = [shares[:, category == c].mean(axis=1) for c in range(category.max() + 1)]
        scopes.append(np.column_stack([np.mean(per_category, axis=0), *per_category]))
    draws = np.round(np.array(scopes), 9)  # (R, N, 1 + C)
    score = [evidence.nearest_tails_interval(draws[:, :, s], 0.95) for s in range(draws.shape[2])]
    half = slow_half_step(replicates, category, weights)
    score_low, score_high = np.zeros(displayed.shape), np.zeros(displayed.shape)
    for i in range(len(displayed)):
        for s, (low, high) in enumerate(score):
            moved = displayed[i, s] - np.mean(draws[:, i, s])
            score_low[i, s] = min(max(min(low[i], low[i] + moved) - half[i, s], 0), 1)
            score_high[i, s] = min(max(max(high[i], high[i] + moved) + half[i, s], 0), 1)
    rank = [evidence.nearest_tails_interval(slow_family_ranks(draws[:, :, s], family), 0.95)
            for s in range(draws.shape[2])]
    rank_low, rank_high = np.column_stack([r[0] for r in rank]), np.column_stack([r[1] for r in rank])
    return (score_low, score_high, rank_low, rank_high,
            evidence.tie_groups(displayed, rank_low, rank_high))


def slow_board(task_scores: np.ndarray, replicates: list[np.ndarray], category: np.ndarray,
               flagged: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(family, scores (N, 1 + C), ranks (N, 1 + C)) by the loops: families from the
    task scores of the unflagged models, each family weighing as its medoid alone
    (flagged: 0), the mean per category and of the categories, ranks counting each family once."""
    in_field = ~np.asarray(flagged, dtype=bool)
    family, medoid = slow_near_copies(np.where(in_field[:, None], task_scores, np.nan), replicates)
    weights = (medoid & in_field).astype(float)
    shares = slow_field_shares(task_scores.T, weights).T
    per_category = [shares[:, category == c].mean(axis=1) for c in range(category.max() + 1)]
    scores = np.column_stack([np.mean(per_category, axis=0), *per_category])
    return family, scores, slow_family_ranks(scores.T, family).T
