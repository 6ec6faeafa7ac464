"""Coverage and accuracy of the field score's intervals and order against known truth
(issue 33), for tests/test_coverage.py (small runs) and bench/bench_ranking.py (large).

Models with set abilities per task answer items of shared difficulty (accuracy and token
F1 tasks alternating, `samples`). The board shows each model's field score
(`stats.field`, every model weighing one: the designs have no copies) and its intervals
(`field.field_certainty` on each metric's replicates). The truth the intervals are about
is the field score's expected value at these sample sizes: the mean of the displayed
score over `truth_draws` fresh draws of items and answers from the same abilities
(Monte Carlo; exactly equal models get their tier's mean), and the true rank is the rank
of that expected score among the others' (for exactly equal models, each of their tie's
ranks equally likely: `tie_share_held`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import stats
from stats import evidence, field, rank_sets

ACC, TOKEN_F1 = stats.METRICS["acc"], stats.METRICS["token_f1"]  # a paired t-test metric, a bootstrap one
PERPLEXITY = stats.METRICS["word_perplexity"]  # lower is better, a ratio of sums resampled by bootstrap
BENCZECHMARK_SIZES = [16, 8, 7, 6, 4, 4, 2, 2, 1]  # 50 tasks in 9 categories


def samples(rng, metric, skill: np.ndarray, n_items: int) -> np.ndarray:
    """Per-sample values of N models on one task, (N, n): right answers (0/1) or scores
    in (0, 1), likelier the higher the model's ability over the item's difficulty; for
    perplexity (N, n, 2) [log-likelihood, words] of texts of 5-40 words (shared by the
    models), each word's negative log-likelihood softplus(difficulty - ability) plus
    noise, so that a better model has a lower perplexity."""
    difficulty = rng.normal(0.0, 1.0, n_items)
    logit = skill[:, None] - difficulty[None, :]
    if metric is ACC:
        return (rng.random(logit.shape) < 1 / (1 + np.exp(-logit))).astype(float)
    if metric is PERPLEXITY:
        words = np.broadcast_to(rng.integers(5, 41, n_items).astype(float), logit.shape)
        per_word = np.log1p(np.exp(-logit)) * np.exp(rng.normal(0.0, 0.3, logit.shape))
        return np.stack([-per_word * words, words], axis=-1)
    return 1 / (1 + np.exp(-(logit + rng.normal(0.0, 0.5, logit.shape))))


@dataclass(frozen=True)
class Design:
    """models; category sizes; ability spread (sd of the general level; the task profile's
    sd is `profile` x spread); items per task; boards; tiers: models per tier of exactly
    equal abilities (1: none); metrics: the tasks' metrics, in turn."""

    models: int
    sizes: tuple[int, ...]
    spread: float
    items: int
    boards: int
    tiers: int = 1
    profile: float = 0.5
    metrics: tuple = (ACC, TOKEN_F1)


DESIGNS = {
    "many tasks": Design(30, tuple(BENCZECHMARK_SIZES), 0.3, 200, 3),
    "few tasks": Design(30, (1, 1, 1), 0.3, 300, 6),
    "close abilities": Design(30, (3, 3, 3), 0.08, 300, 6),
    "far abilities": Design(30, (3, 3, 3), 1.0, 300, 6),
    "more models than top_opponents + 1": Design(60, (3, 3, 2), 0.3, 300, 3),
    "single task": Design(30, (1,), 0.3, 500, 8),
    "three models": Design(3, (2, 2), 0.3, 300, 60),
    "tiers of 5 equal models": Design(30, (3, 3, 3), 0.5, 300, 6, tiers=5),
    "200 models": Design(200, (3, 3, 3), 0.5, 300, 1),
    "strong model x task interaction": Design(30, (3, 3, 3), 0.3, 300, 6, profile=2.0),
    "perplexity tasks": Design(30, (3, 3, 3), 0.3, 300, 6, metrics=(PERPLEXITY, ACC, PERPLEXITY)),
}


def abilities(rng, design: Design) -> np.ndarray:
    """(N, T): a general level (sd spread) plus a task profile (sd profile x spread),
    repeated in tiers of `design.tiers` equal models."""
    n_tasks = sum(design.sizes)
    n_distinct = -(-design.models // design.tiers)
    skill = (rng.normal(0.0, design.spread, (n_distinct, 1))
             + rng.normal(0.0, design.spread * design.profile, (n_distinct, n_tasks)))
    return np.repeat(skill, design.tiers, axis=0)[:design.models]


def observe(rng, skill: np.ndarray, n_items: int, n_resamples: int, metrics: tuple = (ACC, TOKEN_F1)):
    """One draw of the board's data: (task scores (N, T), per task replicates (R, N) or
    None when n_resamples is 0)."""
    scores, replicates = np.zeros(skill.shape), []
    for t in range(skill.shape[1]):
        metric, seed = metrics[t % len(metrics)], 7919 * t + 1
        values = samples(rng, metric, skill[:, t], n_items)
        aggregates = np.array([metric.aggregate(v) for v in values])
        scores[:, t] = metric.sign * aggregates
        if n_resamples:
            summaries = np.stack([metric.summarize(v, seed) for v in values])
            replicates.append(metric.replicates(summaries, aggregates, seed, n_resamples))
    return scores, replicates or None


def field_overall(task_scores: np.ndarray, category: np.ndarray) -> np.ndarray:
    """The overall field score of models with these task scores (N, T), each weighing one."""
    return field.category_means(field.field_shares(task_scores.T, np.ones(len(task_scores))).T, category)[:, 0]


def competition_ranks(values: np.ndarray) -> np.ndarray:
    values = np.round(values, 9)
    return 1 + (values[None, :] > values[:, None]).sum(axis=1)


@dataclass(frozen=True)
class BoardOutcome:
    """One board: the truth (expected score, its best and worst rank), the displayed
    score and rank, the intervals (overall), the tie groups, the simultaneous rank sets
    (overall), the true abilities, the task scores and their replicates (per task (R, N))."""

    truth: np.ndarray
    truth_best: np.ndarray
    truth_worst: np.ndarray
    displayed: np.ndarray
    displayed_rank: np.ndarray
    certainty: evidence.RankCertainty
    sets: rank_sets.RankSets
    skill: np.ndarray
    task_scores: np.ndarray
    category: np.ndarray
    replicates: list


def simulate(design: Design, seed: int, truth_draws: int) -> list[BoardOutcome]:
    rng = np.random.default_rng(seed)
    category = np.repeat(np.arange(len(design.sizes)), design.sizes)
    out = []
    for _ in range(design.boards):
        skill = abilities(rng, design)
        expected = np.mean([field_overall(observe(rng, skill, design.items, 0, design.metrics)[0], category)
                            for _ in range(truth_draws)], axis=0)
        tier = np.unique(skill, axis=0, return_inverse=True)[1].reshape(-1)
        expected = np.array([expected[tier == t].mean() for t in tier])  # equal models: equal truth
        scores, replicates = observe(rng, skill, design.items, evidence.CERTAINTY_RESAMPLES, design.metrics)
        displayed = field.category_means(field.field_shares(scores.T, np.ones(len(scores))).T, category)
        n = len(scores)
        certainty = field.field_certainty(replicates, category, np.ones(n), np.arange(n), displayed)
        sets = rank_sets.field_rank_sets(lambda: replicates, scores, category, np.ones(n), np.arange(n), displayed,
                                         design.items)[0]
        best = competition_ranks(expected)
        worst = np.array([(np.round(expected, 9) >= np.round(e, 9)).sum() for e in expected])
        out.append(BoardOutcome(expected, best, worst, displayed[:, 0], competition_ranks(displayed[:, 0]),
                                certainty, sets, skill, scores, category, replicates))
    return out


def tie_share_held(low: np.ndarray, high: np.ndarray, best: np.ndarray, worst: np.ndarray) -> np.ndarray:
    """The share of each model's true ranks best..worst (a tie of exactly equal models
    holds them all; one rank otherwise) that its rank interval low..high holds: the
    chance that it holds the model's rank when the tie's ranks are dealt to its members
    at random, as their observed scores deal them."""
    held = np.minimum(high, worst) - np.maximum(low, best) + 1
    return np.clip(held, 0, None) / (worst - best + 1)


def coverage(outcomes: list[BoardOutcome]) -> dict[str, float]:
    """Shares over every model of the boards: score and rank intervals holding the truth
    (rank: the chance that the interval holds the true rank, a tie's ranks each equally
    likely, `tie_share_held`; "rank_best": holding the tie's best rank; "rank_meets_tie":
    meeting the tie's rank range),
    the displayed score and rank inside their own intervals, and mean widths."""
    def share(per_board) -> float:
        return float(np.mean(np.concatenate([per_board(o) for o in outcomes])))
    def low_high(o, kind):
        return getattr(o.certainty, f"{kind}_low")[:, 0], getattr(o.certainty, f"{kind}_high")[:, 0]
    return {
        "models": int(sum(len(o.truth) for o in outcomes)),
        "score": share(lambda o: (low_high(o, "score")[0] - 1e-9 <= o.truth) & (o.truth <= low_high(o, "score")[1] + 1e-9)),
        "rank": share(lambda o: tie_share_held(*low_high(o, "rank"), o.truth_best, o.truth_worst)),
        "rank_best": share(lambda o: (low_high(o, "rank")[0] <= o.truth_best) & (o.truth_best <= low_high(o, "rank")[1])),
        "rank_meets_tie": share(lambda o: (low_high(o, "rank")[0] <= o.truth_worst)
                                & (o.truth_best <= low_high(o, "rank")[1])),
        "displayed_score_inside": share(lambda o: (low_high(o, "score")[0] - 1e-9 <= o.displayed)
                                        & (o.displayed <= low_high(o, "score")[1] + 1e-9)),
        "displayed_rank_inside": share(lambda o: (low_high(o, "rank")[0] <= o.displayed_rank)
                                       & (o.displayed_rank <= low_high(o, "rank")[1])),
        "score_width_pp": 100 * share(lambda o: np.subtract(*low_high(o, "score")[::-1])),
        "rank_width": share(lambda o: np.subtract(*low_high(o, "rank")[::-1]) + 1),
    }


def simultaneous_coverage(outcomes: list[BoardOutcome]) -> dict[str, float]:
    """Shares over the boards: every model's true ranks (a tie's best to its worst) inside
    its simultaneous rank set at once ("all"), and the displayed ranks all inside theirs;
    the mean set width (ranks) and the mean number of models that could be first."""
    def share(per_board) -> float:
        return float(np.mean([per_board(o) for o in outcomes]))
    return {
        "boards": len(outcomes),
        "all": share(lambda o: bool(((o.sets.low <= o.truth_best) & (o.truth_worst <= o.sets.high)).all())),
        "displayed_inside": share(lambda o: bool(((o.sets.low <= o.displayed_rank)
                                                  & (o.displayed_rank <= o.sets.high)).all())),
        "width": share(lambda o: float(np.mean(o.sets.high - o.sets.low + 1))),
        "could_be_first": share(lambda o: o.sets.could_be_first),
    }


def task_set_coverage(design: Design, seed: int, truth_draws: int) -> dict[str, float]:
    """Coverage of the overall field score when the tasks are a draw too: each board's
    models keep their general level (sd spread) and get a fresh task profile (sd profile x
    spread) on every draw of tasks, so the truth is the field score's expected value over
    draws of tasks and items (by `truth_draws` re-simulations). Shares over every model of
    the boards: the truth inside the items-only interval (`field.field_certainty`) and
    inside the tasks-and-items one (`field.task_set_certainty`), and their mean widths in
    points."""
    rng = np.random.default_rng(seed)
    category = np.repeat(np.arange(len(design.sizes)), design.sizes)
    n, n_tasks = design.models, sum(design.sizes)

    def skill_of(level: np.ndarray) -> np.ndarray:
        return level + rng.normal(0.0, design.spread * design.profile, (n, n_tasks))
    inside = {"items": [], "tasks": []}
    width = {"items": [], "tasks": []}
    for _ in range(design.boards):
        level = rng.normal(0.0, design.spread, (n, 1))
        truth = np.mean([field_overall(observe(rng, skill_of(level), design.items, 0)[0], category)
                         for _ in range(truth_draws)], axis=0)
        scores, replicates = observe(rng, skill_of(level), design.items, evidence.CERTAINTY_RESAMPLES)
        displayed = field.category_means(field.field_shares(scores.T, np.ones(n)).T, category)
        for kind, certainty in (("items", field.field_certainty), ("tasks", field.task_set_certainty)):
            result = certainty(replicates, category, np.ones(n), np.arange(n), displayed)
            low, high = result.score_low[:, 0], result.score_high[:, 0]
            inside[kind].append((low - 1e-9 <= truth) & (truth <= high + 1e-9))
            width[kind].append(100 * (high - low))
    return {**{kind: float(np.mean(np.concatenate(v))) for kind, v in inside.items()},
            **{f"{kind}_width": float(np.mean(np.concatenate(v))) for kind, v in width.items()}}
