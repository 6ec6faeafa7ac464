"""Deterministic, realistic demo submissions in the reference file format.

Models differ by a latent ability (correlated with their size) and a per-category
specialisation; items differ by a difficulty shared by every model, so results are
correlated across models as on a real benchmark and many models are close competitors.
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np

from leaderboard.submission.alignment import TaskReference
from leaderboard.submission.samples import TaskSamples
from leaderboard.config.tasks import Benchmark, Task
from stats import ClassProbs, LabelPairs

TEAMS = ["CzechAI", "Brno NLP", "Vltava Labs", "Morava ML", "Prague LLM", "Krkonose", "Sumava AI",
         "Ostrava DS", "Plzen Lab", "Olomouc NLP"]
FAMILIES = ["Lipa", "Orel", "Sokol", "Dub", "Jezek", "Rys", "Vlk", "Buk", "Kos", "Los", "Tis", "Jerab"]
SIZES = [0.5, 1.0, 1.5, 2.0, 3.0, 7.0, 8.0, 9.0, 12.0, 14.0, 24.0, 27.0, 32.0, 70.0]
INPUT_LENGTHS = [2048, 4096, 8192, 32768, 131072]
FIRST_TIMESTAMP = 1735689600  # 2025-01-01, then one submission every three days


def _rng(*keys: int | str) -> np.random.Generator:
    return np.random.default_rng([k if isinstance(k, int) else zlib.crc32(k.encode()) for k in keys])


def task_design(task: Task, seed: int) -> dict:
    """The shared, model-independent side of a task: sizes (the task's `samples` when
    stated; an aggregated task's subtasks are one run of doc_ids, as `compile` numbers
    them), difficulties, gold labels."""
    rng = _rng(seed, task.id)
    drawn = int(rng.integers(200, 2500))  # drawn even when unused, so the other draws stay the same
    n = task.samples or drawn  # a full run's documents when the tasks file states them
    design = {"n": n, "difficulty": rng.normal(0.0, 1.0, n), "doc_ids": np.arange(n)}
    if task.metric.sample_kind in ("gold_probs", "label_pair"):
        k = len(task.labels) or int(rng.integers(2, 6))
        design.update(k=k, gold=rng.integers(0, k, n))
    if task.metric.sample_kind == "loglik_words":
        design.update(words=5 + rng.poisson(60, n), base_nll=rng.uniform(2.8, 4.0))
    if task.metric.sample_kind == "tp_fp_fn":
        design.update(to_find=_to_find(task, rng, n))
    return design


def _to_find(task: Task, rng: np.random.Generator, n: int) -> np.ndarray:
    """What each item has to find, per entity class (n, classes): a few entities, or the
    characters of a short answer (char_f1)."""
    return rng.poisson(12.0 if task.metric_name == "char_f1" else 1.2, (n, len(task.entity_classes) or 1))


def design_from_reference(task: Task, reference, seed: int) -> dict:
    """A task design that lines up with a published store: its sample count, `doc_id`s,
    gold labels, class count and word counts (`reference` is a TaskReference); the rest as
    task_design."""
    design = task_design(task, seed)
    n = reference.n_samples
    rng = _rng(seed, task.id, "reference")
    design.update(n=n, difficulty=rng.normal(0.0, 1.0, n),
                  doc_ids=reference.doc_ids if reference.doc_ids is not None else np.arange(n))
    if task.metric.sample_kind in ("gold_probs", "label_pair"):
        design.update(k=reference.n_classes, gold=reference.gold)
    if task.metric.sample_kind == "loglik_words":
        design.update(words=reference.words.astype(int) if reference.words is not None else 5 + rng.poisson(60, n))
    if task.metric.sample_kind == "tp_fp_fn":
        design.update(to_find=_to_find(task, rng, n))
    return design


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _samples(task: Task, design: dict, skill: float, rng: np.random.Generator) -> tuple[list, object]:
    """(per-sample values as the file holds them, the same as the metric's sample array)."""
    n, difficulty = design["n"], design["difficulty"]
    kind = task.metric.sample_kind
    if kind == "binary":
        shift = 0.8 if task.metric_name == "exact_match" else 0.0
        p = _sigmoid(1.6 * (skill - difficulty - shift) + rng.normal(0, 0.8, n))
        correct = (rng.random(n) < p).astype(int)
        return correct.tolist(), correct
    if kind == "gold_probs":
        k, gold = design["k"], design["gold"]
        logits = rng.normal(0.0, 1.0, (n, k))
        logits[np.arange(n), gold] += 2.5 * _sigmoid(skill - difficulty) + 0.1
        probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        probs = np.round(probs, 5)
        return [[int(g), p] for g, p in zip(gold, probs.tolist())], ClassProbs(gold, probs)
    if kind == "label_pair":
        k, gold = design["k"], design["gold"]
        right = rng.random(n) < _sigmoid(1.6 * (skill - difficulty) + 0.5)
        wrong = (gold + rng.integers(1, k + 1, n)) % (k + 1)  # another class, or k: no valid answer
        predicted = np.where(right, gold, np.where(wrong == k, -1, wrong))
        return np.column_stack([gold, predicted]).tolist(), LabelPairs(gold, predicted, k)
    if kind == "judge":
        low, high = task.score_range
        criteria = task.criteria or (("", 1.0),)
        shares = _sigmoid(skill - difficulty[:, None] + rng.normal(0, 0.7, (n, len(criteria))))
        scores = np.round(low + (high - low) * shares, 0 if high - low >= 4 else 2)  # integer scales stay integer
        combined = scores @ np.array([w for _, w in criteria])
        values = ([dict(zip([c for c, _ in criteria], row)) for row in scores.tolist()] if task.criteria
                  else scores[:, 0].tolist())
        return values, combined
    if kind == "loglik_words":
        words = design["words"]
        nll = design["base_nll"] + 0.3 * difficulty - 0.12 * skill + rng.normal(0, 0.05, n)
        loglik = np.round(-words * nll, 4)
        return [[ll, int(w)] for ll, w in zip(loglik.tolist(), words)], np.column_stack([loglik, words])
    if kind == "tp_fp_fn":
        return _counts(task, design["to_find"], _sigmoid(1.6 * (skill - difficulty) + rng.normal(0, 0.8, n)), rng)
    score = np.round(_sigmoid(skill - difficulty + rng.normal(0, 0.5, n)), 4)  # unit_interval
    return score.tolist(), score


def _counts(task: Task, to_find: np.ndarray, found: np.ndarray, rng: np.random.Generator) -> tuple[list, np.ndarray]:
    """Counts [tp, fp, fn] per item and class: each thing to find found with probability
    `found` (n,), spurious ones fewer the more is found; per class when the task declares
    entity classes, summed over the counted classes as the parser does."""
    tp = rng.binomial(to_find, found[:, None])
    fp = rng.poisson((1 - found[:, None]) * to_find.mean(axis=0).clip(0.5))
    counts = np.stack([tp, fp, to_find - tp], axis=2)  # (n, classes, 3)
    if not task.entity_classes:
        return counts[:, 0].tolist(), counts[:, 0].astype(float)
    counted = [c not in task.left_out_classes for c in task.entity_classes]
    values = [{c: row for c, row in zip(task.entity_classes, item) if any(row)} for item in counts.tolist()]
    return values, counts[:, counted].sum(axis=1).astype(float)


def demo_model(benchmark: Benchmark, index: int, seed: int = 0,
               designs: dict | None = None) -> tuple[dict, dict, int]:
    """The `index`-th demo model: (form fields for `validate_metadata`, file document, timestamp)."""
    return demo_submission(benchmark, index, seed, designs)[:3]


def demo_submission(benchmark: Benchmark, index: int, seed: int = 0, designs: dict | None = None,
                    n_tasks: int | None = None) -> tuple[dict, dict, int, dict[str, TaskSamples]]:
    """demo_model, and the per-sample arrays its file holds (task id -> TaskSamples);
    `n_tasks`: only the first tasks (the same values: they are drawn in task order)."""
    form, skills, rng = demo_profile(benchmark, index, seed)
    designs = designs or {t.id: task_design(t, seed) for t in benchmark.tasks}
    predictions, results, tasks = {}, {}, {}
    for task in benchmark.tasks[:n_tasks]:
        values, samples = _samples(task, designs[task.id], skills[task.category], rng)
        results[task.id] = {task.metric_name: task.metric.aggregate(samples), "alias": task.short_name}
        predictions[task.id] = [{task.metric_name: v, "doc_id": int(i)}
                                for i, v in zip(designs[task.id]["doc_ids"], values)]
        tasks[task.id] = TaskSamples(samples, np.asarray(designs[task.id]["doc_ids"], dtype=np.int64))
    document = {"predictions": predictions, "results": results,
                "metadata": {"model_name": f"{form['team_name']}/{form['model_name']}",
                             "max_length": form["input_length"], "n-shot": 0}}
    return form, document, FIRST_TIMESTAMP + 3 * 86400 * index, tasks


def demo_profile(benchmark: Benchmark, index: int, seed: int) -> tuple[dict, dict[str, float], np.random.Generator]:
    """The `index`-th demo model's form fields, skill per category, and its generator
    (to draw its samples next). Every sample kind's expected score rises with the skill
    (perplexity falls), so the skill orders the models on each task of the category as
    infinitely many items would: the truth that simulations check against."""
    rng = _rng(seed, index, "model")
    size = SIZES[int(rng.integers(len(SIZES)))]
    ability = 0.45 * np.log2(size) - 1.0 + rng.normal(0, 0.45)
    team = TEAMS[int(rng.integers(len(TEAMS)))]
    model = f"{FAMILIES[index % len(FAMILIES)]}-{size:g}B-v{index // len(FAMILIES) + 1}"
    form = {"team_name": team, "model_name": model,
            "model_type": ["chat", "pretrained", "chat", "ensemble"][int(rng.integers(4)) if size > 1 else 1],
            "parameters": size, "input_length": INPUT_LENGTHS[int(rng.integers(len(INPUT_LENGTHS)))],
            "precision": ["bfloat16", "bfloat16", "float16", "float32", "8bit", "4bit"][int(rng.integers(6))],
            "link_to_model": f"https://huggingface.co/{team.replace(' ', '-')}/{model}",
            "description": f"Demo model {index}: a synthetic {size:g}B model."}
    skills = {c: ability + rng.normal(0, 0.25) for c in benchmark.categories}
    return form, skills, rng


def sample_document(benchmark: Benchmark, references: Mapping[str, TaskReference], seed: int = 0, n_tasks: int | None = None) -> dict:
    """A valid submission file for a store whose models share `references` (task id ->
    TaskReference, as Leaderboard.references()): same samples, doc_ids, gold labels and
    word counts, marked as the sample (SAMPLE_MARKER in its metadata). Without references
    (an empty store) any demo file is valid. `n_tasks`: only the benchmark's first tasks,
    as the whole file has them (a file whose first task differs is not the sample: told
    in milliseconds instead of the second the whole file takes)."""
    tasks = benchmark.tasks[:n_tasks]
    designs = {t.id: design_from_reference(t, references[t.id], seed) if t.id in references
               else task_design(t, seed) for t in tasks}
    document = demo_submission(benchmark, SAMPLE_INDEX, seed, designs, n_tasks)[1]
    document["metadata"][SAMPLE_MARKER] = SAMPLE_NOTE
    return document


# Says so to whoever opens the file; the leaderboard recognizes the sample by its predictions.
SAMPLE_MARKER = "leaderboard_sample_file"
SAMPLE_NOTE = ("made by the leaderboard to try a pre-submission; it cannot be published (published, every "
               "visitor's copy would be refused as a duplicate)")


SAMPLE_INDEX = 10_000  # far from the demo store's models, so never already published
