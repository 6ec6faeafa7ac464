"""Submission files: `parse_submission`, the one entry that reads, parses and aligns a file.

A file in the reference leaderboard's format (`predictions`: per task a list of samples;
`results`; metadata) becomes one compact numpy array per task. Every problem is reported
with the task, the sample and what is wrong; nothing is half-accepted.
"""
from __future__ import annotations

import hashlib
import heapq
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from leaderboard.config.tasks import Benchmark
from leaderboard.engine.tournament import ModelResults, task_seed
from leaderboard.errors import BadInput, some_names
from leaderboard.strict_json import canonical_json, is_json_number
from leaderboard.submission.bounds import metadata_problems
from leaderboard.submission.alignment import TaskReference, alignment_problem
from leaderboard.submission.reading import read_document, read_source
from leaderboard.submission.samples import SampleProblem, TaskSamples, parse_task_samples, sample_label
from stats import METRIC_ALIASES


@dataclass
class ParsedSubmission:
    tasks: dict[str, TaskSamples]
    document: dict  # the whole file, stored as is when published
    predictions_sha256: str
    results_sha256: str
    warnings: list[str] = field(default_factory=list)
    aggregates: dict[str, float] = field(default_factory=dict)  # each task's score from its samples, when computed
    source: bytes | None = None  # the file as read (None: a document made in memory), which parses to `document`


def canonical_sha256(obj) -> str:
    return hashlib.sha256(canonical_json(obj)).hexdigest()


def predictions_sha256(document: dict) -> str:
    """The hash a parsed file of `document` gets as `ParsedSubmission.predictions_sha256`
    (taken of the JSON, so numpy and Python numbers hash alike)."""
    return canonical_sha256(json.loads(json.dumps(document["predictions"])))


def parse_submission(source: str | Path | bytes, benchmark: Benchmark,
                     references: Mapping[str, TaskReference] | None = None,
                     require_doc_ids: bool = True) -> ParsedSubmission:
    """Parse and validate a submission file against the benchmark and, when given, the
    per-task references of the published submissions (sample count, doc_id order, gold
    labels, class count). Raises BadInput listing every problem found.

    New files must give every sample its doc_id (the only way to tell that samples are in
    the published order); require_doc_ids=False reads stored files of older layouts."""
    data = read_source(source)
    document = read_document(data)
    predictions = document["predictions"]
    expected = set(benchmark.task_ids)
    problems = []
    missing = [t for t in benchmark.task_ids if t not in predictions]
    extra = set(predictions) - expected
    if missing:
        problems.append(f"missing tasks ({len(missing)} of {len(expected)}): {some_names(missing)}")
    if extra:  # the first names in order, without sorting them all (a file may hold a million)
        problems.append(f"{len(extra):,} tasks that are not part of {benchmark.name}: "
                        f"{some_names(heapq.nsmallest(10, extra), total=len(extra))}")
    if require_doc_ids:  # a new file; a stored one is read as it was accepted, whatever the bounds were then
        problems += metadata_problems(document.get("metadata"))
    tasks = {}
    for task in benchmark.tasks:
        if task.id not in predictions:
            continue
        try:
            tasks[task.id] = parse_task_samples(task, predictions[task.id], require_doc_ids)
        except SampleProblem as p:
            problems.append(f"task {task.id}, {sample_label(predictions[task.id], p.index)}: "
                            f"{task.metric_name} {p.what}" if p.index >= 0 else f"task {task.id}: {p.what}")
    for task_id, samples in tasks.items():
        problem = benchmark.task(task_id).count_problem(len(predictions[task_id]))
        if problem:
            problems.append(f"task {task_id}: {problem}")
        elif references and task_id in references:
            problem = alignment_problem(task_id, samples, references[task_id])
            if problem:
                problems.append(problem)
    if problems:
        raise BadInput(problems)
    parsed = ParsedSubmission(tasks, document, canonical_sha256(predictions),
                              canonical_sha256(document.get("results", {})), source=data)
    parsed.aggregates = aggregates(parsed, benchmark)  # once: the warnings compare them, the summaries keep them
    parsed.warnings = _results_warnings(parsed, benchmark)
    return parsed


def aggregates(parsed: ParsedSubmission, benchmark: Benchmark) -> dict[str, float]:
    """Each task's score computed from its per-sample values."""
    return {t.id: t.metric.aggregate(parsed.tasks[t.id].samples) for t in benchmark.tasks}


def _results_warnings(parsed: ParsedSubmission, benchmark: Benchmark) -> list[str]:
    results = parsed.document.get("results", {})
    warnings = []
    for task_id, computed in parsed.aggregates.items():
        task = benchmark.task(task_id)
        entry = results.get(task_id)
        reported = None
        if isinstance(entry, dict):
            reported = next((entry[a] for a, n in METRIC_ALIASES.items() if n == task.metric_name and a in entry), None)
        if not is_json_number(reported):
            warnings.append(f"task {task_id}: 'results' has no {task.metric_name}; using {computed:.6g} "
                            "computed from the samples")
        elif not math.isclose(reported, computed, rel_tol=1e-3, abs_tol=1e-4):
            warnings.append(f"task {task_id}: 'results' says {task.metric_name} = {reported:.6g}, the samples "
                            f"give {computed:.6g}; the leaderboard uses the value from the samples")
    return warnings


def summarize(parsed: ParsedSubmission, benchmark: Benchmark) -> ModelResults:
    """Each task's score and test summary; a task whose score or summary is not finite
    (say, an AUROC task whose gold labels hold one class) is refused, naming the task."""
    aggregates, summaries, problems = {}, {}, []
    for task in benchmark.tasks:
        samples = parsed.tasks[task.id].samples
        with np.errstate(all="ignore"):
            aggregates[task.id] = (parsed.aggregates[task.id] if task.id in parsed.aggregates  # parsing computed it
                                   else task.metric.aggregate(samples))
            summaries[task.id] = np.asarray(task.metric.summarize(samples, task_seed(task.id)), dtype=float)
        if not (np.isfinite(aggregates[task.id]) and np.isfinite(summaries[task.id]).all()):
            problems.append(f"task {task.id}: the {task.metric_name} of these samples is not a finite number "
                            f"({aggregates[task.id]}); for a classification task, gold labels must hold "
                            f"at least two classes")
    if problems:
        raise BadInput(problems)
    return ModelResults(aggregates, summaries)
