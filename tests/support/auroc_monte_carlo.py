"""Monte-Carlo oracles of the AUROC duel tests: the reference leaderboard's sampling scheme
and a Bayesian bootstrap, against which the closed forms in `stats.duel_tests` are checked."""
from __future__ import annotations

import numpy as np
from scipy.stats import mannwhitneyu

from stats.duel_tests import auc_posterior_parts

N_POSTERIOR_DRAWS = 1000


def auc_posterior_draws(gold: np.ndarray, probs: np.ndarray, seed: int,
                        n_draws: int = N_POSTERIOR_DRAWS) -> np.ndarray:
    """Seeded Monte-Carlo draws of the posterior class-averaged AUC: shape (n_draws,).

    The reference's sampling scheme; `stats.duel_tests.bayes_auroc_normal` is its closed-form limit.
    """
    rng = np.random.default_rng(seed)
    parts = list(auc_posterior_parts(gold, probs))
    return sum(rng.beta(al, be, size=(n_draws, al.size)) @ w for w, al, be in parts) / len(parts)


def bayes_auroc_monte_carlo(draws_a: np.ndarray, draws_b: np.ndarray,
                            delta: np.ndarray | None = None) -> np.ndarray:
    """p = P(AUC_A <= AUC_B) over all pairs of A's and B's posterior draws.

    draws_*: (..., S) from `auc_posterior_draws`. Returns shape (...,).
    """
    draws_a, draws_b = np.broadcast_arrays(draws_a, draws_b)
    wins = mannwhitneyu(draws_a, draws_b, axis=-1, method="asymptotic").statistic
    return 1.0 - wins / (draws_a.shape[-1] * draws_b.shape[-1])


def auroc_difference_draws(gold: np.ndarray, probs_a: np.ndarray, probs_b: np.ndarray, seed: int,
                           n_draws: int = N_POSTERIOR_DRAWS) -> np.ndarray:
    """Seeded Bayesian-bootstrap draws of AUC_A - AUC_B (class-averaged): shape (n_draws,).

    Each draw weighs the n shared samples by Dirichlet(1, ..., 1) and recomputes both
    weighted AUROCs; the Monte-Carlo counterpart of `paired_auroc`.
    """
    weights = np.random.default_rng(seed).dirichlet(np.ones(len(gold)), size=n_draws)  # (S, n)

    def weighted_auc(probs):
        aucs = []
        for c in range(probs.shape[1]):
            positive = gold == c
            if positive.all() or not positive.any():
                continue
            order = np.argsort(probs[:, c], kind="mergesort")
            score, pos, w = probs[order, c], positive[order], weights[:, order]
            neg_w = np.where(pos, 0.0, w)
            _, first = np.unique(score, return_index=True)
            group = np.searchsorted(score[first], score)
            tie_start = np.concatenate([first, [len(score)]])
            cum = np.concatenate([np.zeros((len(w), 1)), np.cumsum(neg_w, axis=1)], axis=1)
            tied = cum[:, tie_start[group + 1]] - cum[:, tie_start[group]]
            below = cum[:, tie_start[group]]
            numerator = np.sum(np.where(pos, w, 0.0) * (below + 0.5 * tied), axis=1)
            aucs.append(numerator / (np.where(pos, w, 0).sum(1) * neg_w.sum(1)))
        return np.mean(aucs, axis=0)

    return weighted_auc(probs_a) - weighted_auc(probs_b)
