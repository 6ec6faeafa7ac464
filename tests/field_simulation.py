"""Simulated boards for the field score's tests and bench (`stats.field`).

Models with set abilities per task answer test items of shared difficulty (right with
probability sigmoid(ability - difficulty)), so the truth is known and every draw seeded;
near-copies and fine-tunes are made from a model's own answers. `board_of` turns the
answers into what the board shows under the field rule, composed from `stats.field`'s
public functions as the engine composes them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import stats
from stats import evidence, field

ACC = stats.METRICS["acc"]


def item_answers(rng, ability: np.ndarray, n_items: int) -> np.ndarray:
    """Right (1.0) or wrong (0.0) answers of N models on T tasks: ability (N, T) ->
    (N, T, n_items); each task's items have a difficulty shared by every model."""
    difficulty = rng.normal(0.0, 1.0, (ability.shape[1], n_items))
    chance = 1 / (1 + np.exp(difficulty[None] - ability[..., None]))
    return (rng.random(chance.shape) < chance).astype(float)


def near_copies(rng, answers: np.ndarray, count: int, flipped: float = 0.02) -> np.ndarray:
    """`count` near-copies of one model's answers (T, n): each with `flipped` of its
    answers (rounded, at least one per task) turned over, chosen afresh per copy:
    (count, T, n)."""
    n_tasks, n_items = answers.shape
    k = max(1, round(flipped * n_items))
    out = np.repeat(answers[None], count, axis=0)
    for copy in out:
        for task in range(n_tasks):
            at = rng.choice(n_items, k, replace=False)
            copy[task, at] = 1 - copy[task, at]
    return out


def fine_tune(rng, answers: np.ndarray, ability: np.ndarray, kept: float = 0.5) -> np.ndarray:
    """A model sharing `kept` of its answers with a base model's answers (T, n) and
    answering the others afresh at its own ability (T,) on items of the same difficulty:
    its item-level answers correlate with the base's by about `kept`. Items of difficulty
    0 (the shared difficulty's spread adds correlation to any pair, as `item_answers` does
    not reproduce here)."""
    fresh = (rng.random(answers.shape) < 1 / (1 + np.exp(-ability[:, None]))).astype(float)
    return np.where(rng.random(answers.shape) < kept, answers, fresh)


def replicates_of(answers: np.ndarray, n_resamples: int = evidence.CERTAINTY_RESAMPLES) -> list[np.ndarray]:
    """Per task, every model's accuracy on the task's first `n_resamples` bootstrap
    resamples of its items, the same items for every model (`Metric.replicates`, seeded by
    task as the engine seeds it): answers (N, T, n) -> T arrays (R, N)."""
    return [ACC.replicates(answers[:, t], answers[:, t].mean(axis=1), 7919 * t + 1, n_resamples)
            for t in range(answers.shape[1])]


@dataclass(frozen=True)
class Board:
    """What a board shows under the field rule: task_scores (N, T), family (N,) int,
    weights (N,) each model's weight as an opponent, shares (N, T) per-task field shares,
    scores (N, 1 + C) overall then categories, ranks (N, 1 + C) family ranks."""

    task_scores: np.ndarray
    family: np.ndarray
    weights: np.ndarray
    shares: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray


def board_of(task_scores: np.ndarray, replicates: list[np.ndarray], category: np.ndarray,
             flagged: np.ndarray | None = None) -> Board:
    """The board of models with task scores (N, T) (larger is better) and per-task
    replicates: families of near-copies among the unflagged models, then shares with each
    family weighing as its medoid (flagged models weigh 0: scored, not in the field), averaged per category and overall, and ranked by family."""
    n = len(task_scores)
    in_field = np.ones(n, dtype=bool) if flagged is None else ~np.asarray(flagged, dtype=bool)
    candidates = np.where(in_field[:, None], task_scores, np.nan)  # a flagged model is nobody's copy
    copies = field.near_copies(candidates, field.task_noise(replicates), lambda models: [r[:, models] for r in replicates])
    family = copies.family
    weights = field.family_weights(family, copies.representative) * in_field
    shares = field.field_shares(task_scores.T, weights).T
    scores = field.category_means(shares, category)
    return Board(task_scores, family, weights, shares, scores, field.family_ranks(scores.T, family).T)


def accuracy_board(answers: np.ndarray, category: np.ndarray, flagged: np.ndarray | None = None,
                   n_resamples: int = evidence.CERTAINTY_RESAMPLES) -> Board:
    """`board_of` the item answers (N, T, n): task scores their means."""
    return board_of(answers.mean(axis=2), replicates_of(answers, n_resamples), category, flagged)
