"""Submission files: parsing, validation and the submission's metadata and id.

A file in the reference format (BEHAVIOUR.md, section 2) becomes one compact numpy
array per task. Every problem is reported with the task, the sample and what is wrong;
nothing is half-accepted.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from leaderboard.tasks import Benchmark, Task
from stats import METRIC_ALIASES, ClassProbs
from stats.metrics import SAMPLE_KINDS

MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_PROBLEMS = 25
MODEL_TYPES = ("chat", "pretrained", "ensemble")
PRECISIONS = ("float32", "float16", "bfloat16", "8bit", "4bit")
MAX_NAME_LENGTH = 100
MAX_DESCRIPTION_LENGTH = 2000


class SubmissionError(ValueError):
    """Bad input: `problems` says, one line each, what is wrong and where."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        if len(self.problems) > MAX_PROBLEMS:
            more = len(self.problems) - MAX_PROBLEMS
            self.problems = self.problems[:MAX_PROBLEMS] + [f"... and {more} more problems"]
        super().__init__("\n".join(self.problems))


@dataclass
class TaskSamples:
    """One task's per-sample results: `samples` as the metric's sample kind, in file order."""

    samples: np.ndarray | ClassProbs
    doc_ids: np.ndarray | None  # (n,) int, or None when the file has none


@dataclass(frozen=True)
class TaskReference:
    """What every submission must share on a task so that duels are paired."""

    n_samples: int
    doc_ids: np.ndarray | None = None
    gold: np.ndarray | None = None
    n_classes: int | None = None

    @classmethod
    def of(cls, task_samples: TaskSamples) -> "TaskReference":
        s = task_samples.samples
        if isinstance(s, ClassProbs):
            return cls(len(s.gold), task_samples.doc_ids, s.gold, s.probs.shape[1])
        return cls(len(s), task_samples.doc_ids)


@dataclass
class ParsedSubmission:
    tasks: dict[str, TaskSamples]
    document: dict  # the whole file, stored as is when published
    predictions_sha256: str
    results_sha256: str
    warnings: list[str] = field(default_factory=list)


# --- per-sample parsing, one function per sample kind -----------------------------------

class _SampleProblem(Exception):
    def __init__(self, index: int, what: str):
        self.index, self.what = index, what


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _numeric_array(values: list, ndim: int) -> np.ndarray | None:
    """values as a float array of `ndim` dimensions, or None if any value is not a number."""
    try:
        arr = np.array(values)
    except (ValueError, TypeError):  # ragged nesting
        return None
    return arr.astype(float) if arr.dtype.kind in "iuf" and arr.ndim == ndim else None


def _not_a(expect: str, values: list, is_valid) -> _SampleProblem:
    i = next(i for i, v in enumerate(values) if not is_valid(v))
    return _SampleProblem(i, f"must be {expect}, got {json.dumps(values[i])[:60]}")


def _check_finite(arr: np.ndarray, what: str) -> None:
    finite = np.isfinite(arr).reshape(len(arr), -1).all(axis=1)
    if not finite.all():
        raise _SampleProblem(_first(~finite), f"{what} is NaN or infinite")


def _numbers(values: list, expect: str) -> np.ndarray:
    arr = _numeric_array(values, 1)
    if arr is None:
        raise _not_a(expect, values, _is_number)
    _check_finite(arr, "the value")
    return arr


def _parse_binary(values: list) -> np.ndarray:
    arr = _numbers(values, SAMPLE_KINDS["binary"])
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"must be 0 or 1, got {arr[_first(bad)]:g}")
    return arr.astype(np.uint8)


def _parse_unit_interval(values: list) -> np.ndarray:
    arr = _numbers(values, SAMPLE_KINDS["unit_interval"])
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"must be in [0, 1], got {arr[_first(bad)]:g}")
    return arr


def _is_number_pair(v) -> bool:
    return isinstance(v, list) and len(v) == 2 and _is_number(v[0]) and _is_number(v[1])


def _parse_loglik_words(values: list) -> np.ndarray:
    arr = _numeric_array(values, 2)
    if arr is None or arr.shape[1] != 2:
        raise _not_a(SAMPLE_KINDS["loglik_words"], values, _is_number_pair)
    _check_finite(arr, "the loglikelihood or number_of_words")
    words = arr[:, 1]
    bad = (words <= 0) | (words != np.round(words))
    if bad.any():
        raise _SampleProblem(_first(bad), f"number_of_words must be a positive integer, got {words[_first(bad)]:g}")
    return arr


def _is_gold_probs_pair(v) -> bool:
    return (isinstance(v, list) and len(v) == 2 and _is_number(v[0]) and isinstance(v[1], list)
            and all(_is_number(p) for p in v[1]))


def _parse_gold_probs(values: list) -> ClassProbs:
    expect = SAMPLE_KINDS["gold_probs"]
    if not all(isinstance(v, list) and len(v) == 2 for v in values):
        raise _not_a(expect, values, _is_gold_probs_pair)
    gold = _numeric_array([v[0] for v in values], 1)
    probs = _numeric_array([v[1] for v in values], 2)
    if gold is None or probs is None:
        if all(map(_is_gold_probs_pair, values)):  # well-formed, so the class counts differ
            counts = [len(v[1]) for v in values]
            i = next(i for i, c in enumerate(counts) if c != counts[0])
            raise _SampleProblem(i, f"has {counts[i]} class probabilities, earlier samples have {counts[0]}")
        raise _not_a(expect, values, _is_gold_probs_pair)
    n_classes = probs.shape[1]
    if n_classes < 2:
        raise _SampleProblem(0, f"needs at least 2 class probabilities, got {n_classes}")
    _check_finite(gold, "the gold class")
    _check_finite(probs, "a probability")
    bad = gold != np.round(gold)
    if bad.any():
        raise _SampleProblem(_first(bad), f"gold_class_index must be an integer, got {gold[_first(bad)]:g}")
    bad = ((probs < 0) | (probs > 1)).any(axis=1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"has a probability outside [0, 1]: {probs[_first(bad)].tolist()}")
    gold = gold.astype(np.int64)
    bad = (gold < 0) | (gold >= n_classes)
    if bad.any():
        raise _SampleProblem(_first(bad), f"gold class {gold[_first(bad)]} is out of range 0..{n_classes - 1}")
    return ClassProbs(gold, probs)


_PARSERS = {"binary": _parse_binary, "unit_interval": _parse_unit_interval,
            "loglik_words": _parse_loglik_words, "gold_probs": _parse_gold_probs}


def _metric_value(item, metric: str):
    if metric in item:
        return item[metric]
    for alias, name in METRIC_ALIASES.items():
        if name == metric and alias in item:
            return item[alias]
    raise KeyError(metric)


def _parse_task(task: Task, items) -> TaskSamples:
    """Raises _SampleProblem for the first bad sample."""
    if not isinstance(items, list):
        raise _SampleProblem(-1, f"predictions must be a list of samples, got {type(items).__name__}")
    if not items:
        raise _SampleProblem(-1, "has no samples")
    values, doc_ids = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise _SampleProblem(i, "must be an object with the metric value and doc_id")
        try:
            values.append(_metric_value(item, task.metric_name))
        except KeyError:
            raise _SampleProblem(i, f"has no {task.metric_name!r} value") from None
        doc_ids.append(item.get("doc_id"))
    samples = _PARSERS[task.metric.sample_kind](values)
    if all(d is None for d in doc_ids):
        return TaskSamples(samples, None)
    for i, d in enumerate(doc_ids):
        if not (isinstance(d, int) and not isinstance(d, bool)):
            raise _SampleProblem(i, f"doc_id must be an integer, got {json.dumps(d)}")
    ids = np.asarray(doc_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    repeats = order[1:][ids[order][1:] == ids[order][:-1]]
    if repeats.size:
        raise _SampleProblem(int(repeats.min()), "repeats a doc_id of an earlier sample")
    return TaskSamples(samples, ids)


def _sample_label(items: list, index: int) -> str:
    item = items[index]
    doc_id = item.get("doc_id") if isinstance(item, dict) else None
    return f"sample {index}" + (f" (doc_id {doc_id})" if isinstance(doc_id, int) else "")


def _canonical_sha256(obj) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_document(source: str | Path | bytes) -> dict:
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise SubmissionError(f"the file is larger than {MAX_FILE_BYTES // 2**20} MB")
            source = path.read_bytes()
        except OSError as e:
            raise SubmissionError(f"cannot read the file {path}: {e.strerror or e}") from None
    try:
        document = json.loads(source)
    except UnicodeDecodeError:
        raise SubmissionError("the file is not UTF-8 text; expected a JSON submission file") from None
    except json.JSONDecodeError as e:
        raise SubmissionError(f"the file is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    if not isinstance(document, dict):
        raise SubmissionError("the file must hold a JSON object with 'predictions' and 'results'")
    if not isinstance(document.get("predictions"), dict):
        raise SubmissionError("the file has no 'predictions' object (task -> list of per-sample results)")
    if "results" in document and not isinstance(document["results"], dict):
        raise SubmissionError("'results' must be an object (task -> aggregate metrics)")
    return document


def parse_submission(source: str | Path | bytes, benchmark: Benchmark,
                     references: dict[str, TaskReference] | None = None) -> ParsedSubmission:
    """Parse and validate a submission file against the benchmark and, when given, the
    per-task references of the published submissions (sample count, doc_id order, gold
    labels, class count). Raises SubmissionError listing every problem found."""
    document = _read_document(source)
    predictions = document["predictions"]
    expected = set(benchmark.task_ids)
    problems = []
    missing = [t for t in benchmark.task_ids if t not in predictions]
    extra = sorted(set(predictions) - expected)
    if missing:
        problems.append(f"missing tasks ({len(missing)} of {len(expected)}): {', '.join(missing)}")
    if extra:
        problems.append(f"tasks that are not part of {benchmark.name}: {', '.join(extra)}")
    tasks = {}
    for task in benchmark.tasks:
        if task.id not in predictions:
            continue
        try:
            tasks[task.id] = _parse_task(task, predictions[task.id])
        except _SampleProblem as p:
            problems.append(f"task {task.id}, {_sample_label(predictions[task.id], p.index)}: "
                            f"{task.metric_name} {p.what}" if p.index >= 0 else f"task {task.id}: {p.what}")
    for task_id, samples in tasks.items():
        if references and task_id in references:
            problem = alignment_problem(samples, references[task_id])
            if problem:
                problems.append(f"task {task_id}: {problem}")
    if problems:
        raise SubmissionError(problems)
    parsed = ParsedSubmission(tasks, document, _canonical_sha256(predictions),
                              _canonical_sha256(document.get("results", {})))
    parsed.warnings = _results_warnings(parsed, benchmark)
    return parsed


def alignment_problem(samples: TaskSamples, ref: TaskReference) -> str | None:
    """Why these samples cannot be paired with the published ones, or None."""
    new = TaskReference.of(samples)
    if new.n_samples != ref.n_samples:
        return f"has {new.n_samples} samples, the published submissions have {ref.n_samples}"
    if ref.doc_ids is not None and new.doc_ids is not None and not np.array_equal(new.doc_ids, ref.doc_ids):
        i = _first(new.doc_ids != ref.doc_ids)
        return (f"sample {i} has doc_id {new.doc_ids[i]}, the published submissions have doc_id "
                f"{ref.doc_ids[i]} there (samples must be in the same order)")
    if ref.gold is not None:
        if new.n_classes != ref.n_classes:
            return f"has {new.n_classes} classes, the published submissions have {ref.n_classes}"
        if not np.array_equal(new.gold, ref.gold):
            i = _first(new.gold != ref.gold)
            return f"sample {i} has gold class {new.gold[i]}, the published submissions have {ref.gold[i]}"
    return None


def aggregates(parsed: ParsedSubmission, benchmark: Benchmark) -> dict[str, float]:
    """Each task's score computed from its per-sample values."""
    return {t.id: t.metric.aggregate(parsed.tasks[t.id].samples) for t in benchmark.tasks}


def _results_warnings(parsed: ParsedSubmission, benchmark: Benchmark) -> list[str]:
    results = parsed.document.get("results", {})
    warnings = []
    for task_id, computed in aggregates(parsed, benchmark).items():
        task = benchmark.task(task_id)
        entry = results.get(task_id)
        reported = None
        if isinstance(entry, dict):
            reported = next((entry[a] for a, n in METRIC_ALIASES.items() if n == task.metric_name and a in entry), None)
        if not _is_number(reported):
            warnings.append(f"task {task_id}: 'results' has no {task.metric_name}; using {computed:.6g} "
                            "computed from the samples")
        elif not math.isclose(reported, computed, rel_tol=1e-3, abs_tol=1e-4):
            warnings.append(f"task {task_id}: 'results' says {task.metric_name} = {reported:.6g}, the samples "
                            f"give {computed:.6g}; the leaderboard uses the value from the samples")
    return warnings


# --- metadata --------------------------------------------------------------------------

@dataclass(frozen=True)
class SubmissionMetadata:
    team_name: str
    model_name: str
    model_type: str
    parameters: float  # billions
    input_length: int  # tokens
    precision: str
    description: str
    link_to_model: str

    @property
    def title(self) -> str:
        return f"{self.team_name}/{self.model_name}"

    def to_dict(self) -> dict:
        return asdict(self)


def _collapse(text) -> str:
    return " ".join(str(text or "").split())


def validate_metadata(team_name, model_name, model_type, parameters, input_length, precision,
                      link_to_model, description="") -> SubmissionMetadata:
    """The reference's form rules; raises SubmissionError naming each bad field."""
    problems = []
    team_name, model_name = _collapse(team_name), _collapse(model_name)
    for label, value in (("Team name", team_name), ("Model name", model_name)):
        if not value:
            problems.append(f"{label}: required")
        elif len(value) > MAX_NAME_LENGTH:
            problems.append(f"{label}: at most {MAX_NAME_LENGTH} characters")
    if model_type not in MODEL_TYPES:
        problems.append(f"Model type: choose one of {', '.join(MODEL_TYPES)}")
    try:
        parameters = float(parameters)
        if not (math.isfinite(parameters) and parameters > 0):
            raise ValueError
    except (TypeError, ValueError):
        problems.append(f"Parameters: a number of billions greater than 0, got {parameters!r}")
    try:
        if isinstance(input_length, float) and not input_length.is_integer():
            raise ValueError
        input_length = int(str(input_length).strip()) if not isinstance(input_length, (int, float)) else int(input_length)
        if input_length <= 0:
            raise ValueError
    except (TypeError, ValueError):
        problems.append(f"Input length: a whole number of tokens greater than 0, got {input_length!r}")
    if precision not in PRECISIONS:
        problems.append(f"Precision: choose one of {', '.join(PRECISIONS)}")
    link_to_model = str(link_to_model or "").strip()
    url = urlparse(link_to_model)
    if url.scheme not in ("http", "https") or not url.netloc:
        problems.append("Link to model: an http:// or https:// address")
    description = str(description or "").strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        problems.append(f"Description: at most {MAX_DESCRIPTION_LENGTH} characters")
    if problems:
        raise SubmissionError(problems)
    return SubmissionMetadata(team_name, model_name, model_type, parameters, input_length, precision,
                              description, link_to_model)


def submission_id(metadata: SubmissionMetadata, parsed: ParsedSubmission) -> str:
    """`<team[:7]>_<model[:7]>_<sha7 predictions>_<sha7 results>`, safe in a file name."""
    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9-]", "-", text[:7])
    return (f"{safe(metadata.team_name)}_{safe(metadata.model_name)}_"
            f"{parsed.predictions_sha256[:7]}_{parsed.results_sha256[:7]}")
