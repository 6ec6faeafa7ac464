"""Boards of simulated models with set abilities, for the reference panel's tests and bench.

Each model has a true ability per task; each task has items of shared difficulty; a
model answers an item right with probability sigmoid(ability - difficulty), so the truth
(who is better where) is known and every draw is seeded.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark, benchmark_of
from leaderboard.engine import ranking
from leaderboard.engine.panel import settle
from leaderboard.engine.replay import opponents_of_the_day
from leaderboard.engine.tournament import ModelResults, Tournament, play


def accuracy_tasks_file(n_tasks: int, n_categories: int, top_opponents: int, **options) -> dict:
    """A tasks file of `n_tasks` accuracy tasks dealt round-robin into `n_categories`
    categories; `options`: more top-level fields (e.g. "opponents")."""
    categories = [f"C{c}" for c in range(n_categories)]
    return {"benchmark": "Simulated", "categories": categories, "top_opponents": top_opponents, **options,
            "tasks": [{"id": f"t{k:02d}", "abbreviation": f"T{k}", "short_name": f"T{k}", "name": f"Task {k}",
                       "category": categories[k % n_categories], "metric": "acc", "dataset_url": ""}
                      for k in range(n_tasks)]}


def accuracy_benchmark(n_tasks: int, n_categories: int, top_opponents: int) -> Benchmark:
    """The benchmark of `accuracy_tasks_file`."""
    return benchmark_of(accuracy_tasks_file(n_tasks, n_categories, top_opponents))


def simulated_answers(benchmark: Benchmark, n_models: int, seed: int, items: int = 200, spread: float = 0.6,
                      task_spread: float = 0.3) -> np.ndarray:
    """Right (1) or wrong (0) answers, (n_models, n_tasks, items). Abilities: a model's
    general ability (sd `spread`) plus a per-task one (sd `task_spread`)."""
    rng = np.random.default_rng(seed)
    n_tasks = len(benchmark.tasks)
    ability = rng.normal(0, spread, (n_models, 1)) + rng.normal(0, task_spread, (n_models, n_tasks))
    difficulty = rng.normal(0, 1, (n_tasks, items))
    return (rng.random((n_models, n_tasks, items)) < 1 / (1 + np.exp(difficulty[None] - ability[..., None]))
            ).astype(float)


def simulated_results(benchmark: Benchmark, n_models: int, seed: int, **design) -> dict[str, ModelResults]:
    """Per model id ("m000", ...): the ModelResults of `simulated_answers`."""
    answers = simulated_answers(benchmark, n_models, seed, **design)
    return {f"m{i:03d}": ModelResults({t.id: float(answers[i, k].mean()) for k, t in enumerate(benchmark.tasks)},
                                      {t.id: answers[i, k] for k, t in enumerate(benchmark.tasks)})
            for i in range(n_models)}


def simulated_submissions(benchmark: Benchmark, n_models: int, seed: int, **design) -> list[tuple[dict, dict]]:
    """(form, submission document) of each model of `simulated_answers`, as a harness run
    compiled for this leaderboard would give them."""
    answers = simulated_answers(benchmark, n_models, seed, **design)
    out = []
    for i in range(n_models):
        # a team each: the panel seats one model per team
        form = {"team_name": f"Team-{i:03d}", "model_name": f"model-{i:03d}", "model_type": "chat", "parameters": 7,
                "input_length": 4096, "precision": "bfloat16", "link_to_model": f"https://example.com/{i}"}
        document = {"predictions": {t.id: [{"acc": float(v), "doc_id": j} for j, v in enumerate(answers[i, k])]
                                    for k, t in enumerate(benchmark.tasks)},
                    "results": {t.id: {"acc": float(answers[i, k].mean()), "alias": t.short_name}
                                for k, t in enumerate(benchmark.tasks)},
                    "metadata": {"model_name": f"Team-{i:03d}/model-{i:03d}", "max_length": 4096, "n-shot": 0}}
        out.append((form, document))
    return out


def publish_under_panel(benchmark: Benchmark, results: dict[str, ModelResults], order: list[str]):
    """Publish the models in `order`, each publication settling the panel (with backfill);
    returns (tournament, the last panel)."""
    tournament = Tournament(benchmark.task_ids)
    panel = None
    for sid in order:
        tournament.add_models([sid])
        panel = settle(benchmark, tournament, results)
    return tournament, panel


def publish_top_of_its_day(benchmark: Benchmark, results: dict[str, ModelResults], order: list[str]) -> Tournament:
    """The original rule: each model duels the top models of the day it is published."""
    tournament = Tournament(benchmark.task_ids)
    for k, sid in enumerate(order):
        table = ranking.ranked(ranking.scores_table(tournament, benchmark), pd.Series({s: float(j) for j, s in enumerate(order[:k])}))
        opponents = opponents_of_the_day(table, benchmark)
        play(benchmark, tournament, sid, results, opponents)
    return tournament


def ranks(table: pd.DataFrame, submitted: pd.Series) -> pd.Series:
    """Competition ranks of a scores table (ties share a rank, so submission times do not matter)."""
    return ranking.ranked(table, submitted)["rank"]


def share_within(first: pd.Series, second: pd.Series, places: int = 2) -> float:
    """The share of models whose ranks in `first` and `second` are at most `places` apart."""
    return float(((first - second.reindex(first.index)).abs() <= places).mean())


def two_orders(ids: list[str], seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    return list(rng.permutation(ids)), list(rng.permutation(ids))
