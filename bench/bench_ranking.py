"""The field ranking's coverage and accuracy on simulated designs (issue 33).

    python bench/bench_ranking.py [--boards-scale 2] [--truth-draws 80] [design ...]

Per design of tests/field_coverage.py (`DESIGNS`; all by default), `--boards-scale` times
its boards, the truth from `--truth-draws` fresh draws (see field_coverage's text):

- coverage: the share of models whose 95% score / rank interval holds the truth, and of
  displayed scores / ranks inside their own intervals, with mean widths;
- accuracy: Kendall's tau (scipy, tau-b) of each ranking's overall order with the true
  order, the category-weighted mean of the models' true abilities (the order the
  benchmark means to measure): the field score (what the board shows), the
  category-weighted mean of per-task z-scores, Bradley-Terry on per-task wins (fitted by
  Hunter's MM iterations, each task's wins weighing the task's weight) and EuroEval's rank
  score (per task 1 + (best score - the model's) / the task's standard deviation over the
  models, averaged per category and then over categories, lower better: the rule the
  ScandEval/EuroEval leaderboards state in their Rank column's tooltip, "1 + the average
  number of standard deviations away from the best model", averaged per language first,
  repository ScandEval/scandeval.github.io, germanic-nlg.md). Mean tau over the boards.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, norm

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from field_coverage import DESIGNS, BoardOutcome, coverage, simulate  # noqa: E402 (the path just above)
from stats.field import field_shares, task_noise  # noqa: E402


def category_weights(category: np.ndarray) -> np.ndarray:
    """Each task's weight in the overall score: 1 / (categories x its category's tasks)."""
    sizes = np.bincount(category)
    return 1.0 / (len(sizes) * sizes[category])


def z_score_mean(scores: np.ndarray, category: np.ndarray) -> np.ndarray:
    spread = scores.std(axis=0)
    z = (scores - scores.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    return z @ category_weights(category)


def euroeval_rank_score(scores: np.ndarray, category: np.ndarray) -> np.ndarray:
    """Minus the rank score (so that larger is better, as for the others)."""
    spread = scores.std(axis=0)
    rank = 1 + (scores.max(axis=0) - scores) / np.where(spread > 0, spread, 1.0)
    return -(rank @ category_weights(category))


def bradley_terry(scores: np.ndarray, category: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Log-strengths of Bradley-Terry fitted to the per-task wins (a tie half to each),
    each task's comparisons weighing its category weight x the number of tasks; Hunter's
    MM update p_i <- W_i / sum_j n_ij / (p_i + p_j), normalized each step."""
    weight = category_weights(category) * scores.shape[1]
    beats = (scores[:, None, :] > scores[None, :, :]) + 0.5 * (scores[:, None, :] == scores[None, :, :])
    wins = (beats * weight).sum(axis=2)
    np.fill_diagonal(wins, 0)
    games = np.full(wins.shape, weight.sum())
    np.fill_diagonal(games, 0)
    strength = np.ones(len(scores))
    total = wins.sum(axis=1) + 1e-9  # a model that never wins keeps a tiny strength
    for _ in range(iterations):
        strength = total / (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        strength /= np.exp(np.log(strength).mean())
    return np.log(strength)


def soft_share(scores: np.ndarray, scale: np.ndarray, category: np.ndarray) -> np.ndarray:
    """A candidate magnitude-aware field score (not the board's rule): per task the mean
    over the others of Phi((x_i - x_j) / scale_ij), scale (N, N, T) or (T,), averaged as the
    board averages."""
    beats = norm.cdf((scores[:, None, :] - scores[None, :, :]) / np.maximum(scale, 1e-12))
    return ((beats.sum(axis=1) - 0.5) / (len(scores) - 1)) @ category_weights(category)


def accuracy(outcomes: list[BoardOutcome]) -> dict[str, float]:
    """Mean Kendall tau of each ranking with the true order over the boards; the soft
    shares are candidates for issue 33's accuracy target: the scale k x the pair's noise
    (sqrt of the two models' squared bootstrap standard errors: depends on the pair
    alone) and k x the task's standard deviation over the models (moves with any model's
    answers: a better score can lose a rank, see bench/RESULTS.md), and the resamples' mean
    share."""
    def pair_noise(o):
        noise = task_noise(o.replicates)
        return np.sqrt(noise[:, None, :] ** 2 + noise[None, :, :] ** 2)

    def resampled_share(o):
        """The mean over the resamples of the field share: monotone by construction (a
        better answer raises the model's score on every resample)."""
        shares = np.column_stack([field_shares(r, np.ones(r.shape[1])).mean(axis=0) for r in o.replicates])
        return shares @ category_weights(o.category)
    rankings = {"field score (displayed)": lambda o: o.displayed,
                "z-score mean": lambda o: z_score_mean(o.task_scores, o.category),
                "Bradley-Terry": lambda o: bradley_terry(o.task_scores, o.category),
                "EuroEval rank score": lambda o: euroeval_rank_score(o.task_scores, o.category),
                "soft, 3 x pair noise": lambda o: soft_share(o.task_scores, 3 * pair_noise(o), o.category),
                "soft, 6 x pair noise": lambda o: soft_share(o.task_scores, 6 * pair_noise(o), o.category),
                "resampled share": resampled_share,
                "soft, 2 x task sd": lambda o: soft_share(o.task_scores, 2 * o.task_scores.std(axis=0), o.category)}
    out = {}
    for name, rank_by in rankings.items():
        taus = [kendalltau(o.skill @ category_weights(o.category), rank_by(o)).statistic for o in outcomes]
        out[name] = round(float(np.nanmean(taus)), 4)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards-scale", type=int, default=2)
    parser.add_argument("--truth-draws", type=int, default=80)
    parser.add_argument("designs", nargs="*", default=list(DESIGNS))
    args = parser.parse_args()
    out = {}
    for name in args.designs:
        start = time.perf_counter()
        design = DESIGNS[name]
        outcomes = simulate(dataclasses.replace(design, boards=design.boards * args.boards_scale), 1, args.truth_draws)
        out[name] = {"coverage": {k: round(v, 4) for k, v in coverage(outcomes).items()},
                     "kendall_tau": accuracy(outcomes), "seconds": round(time.perf_counter() - start, 1)}
        print(name, json.dumps(out[name]), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
