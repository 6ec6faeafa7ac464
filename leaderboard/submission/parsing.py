"""Submission files: parsing, validation and the submission's metadata and id.

A file in the reference leaderboard's format (`predictions`: per task a list of samples;
`results`; metadata) becomes one compact numpy array per task. Every problem is reported
with the task, the sample and what is wrong; nothing is half-accepted.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import icu
import numpy as np

from leaderboard.errors import BadInput
from leaderboard.config.tasks import Benchmark, Task
from leaderboard.strict_json import is_json_number
from stats import METRIC_ALIASES, ClassProbs, LabelPairs
from stats.metrics import SAMPLE_KINDS

# Bounds checked before any parsing work is spent. Real files are about 5 MB with
# ~100,000 samples; a file at these bounds parses in under 1 GB (bench/RESULTS.md).
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_JSON_OBJECTS = 1_000_000  # counted as "{" bytes: an upper bound on samples
MAX_JSON_VALUES = 8_000_000  # counted as "," bytes: an upper bound on numbers and strings
PROBABILITY_SUM_TOLERANCE = 0.01  # class probabilities must sum to 1 within this
MIN_LOGLIK_PER_WORD = -700.0  # exp(700) is near the largest float: a bound, not a real result
MAX_WORDS = 10**9
MODEL_TYPES = ("chat", "pretrained", "ensemble")
PRECISIONS = ("float32", "float16", "bfloat16", "8bit", "4bit")
MAX_NAME_LENGTH = 100
MAX_DESCRIPTION_LENGTH = 2000
MAX_LINK_LENGTH = 500
MAX_PARAMETERS = 100_000.0  # billions
MAX_INPUT_LENGTH = 100_000_000  # tokens


@dataclass
class TaskSamples:
    """One task's per-sample results: `samples` as the metric's sample kind, in file order."""

    samples: np.ndarray | ClassProbs | LabelPairs
    doc_ids: np.ndarray | None  # (n,) int, or None when the file has none


@dataclass(frozen=True)
class TaskReference:
    """What every submission must share on a task so that duels are paired: the fields
    that describe the documents, not the model."""

    n_samples: int
    doc_ids: np.ndarray | None = None
    gold: np.ndarray | None = None
    n_classes: int | None = None
    words: np.ndarray | None = None  # perplexity tasks: each document's number of words

    @classmethod
    def of(cls, task_samples: TaskSamples) -> "TaskReference":
        s = task_samples.samples
        if isinstance(s, (ClassProbs, LabelPairs)):
            return cls(len(s.gold), task_samples.doc_ids, s.gold, s.n_classes)
        if s.ndim == 2:  # loglik_words: (n, 2) pairs [loglikelihood, number_of_words]
            return cls(len(s), task_samples.doc_ids, words=s[:, 1])
        return cls(len(s), task_samples.doc_ids)


@dataclass
class ParsedSubmission:
    tasks: dict[str, TaskSamples]
    document: dict  # the whole file, stored as is when published
    predictions_sha256: str
    results_sha256: str
    warnings: list[str] = field(default_factory=list)


# --- per-sample parsing, one function per sample kind -----------------------------------
# A parser gets the task's values in file order and the task (for what the task declares:
# labels, a score range, judge criteria); it returns the samples or raises _SampleProblem.

class _SampleProblem(Exception):
    def __init__(self, index: int, what: str):
        self.index, self.what = index, what


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


_type_of = np.frompyfunc(type, 1, 1)


def _numeric_array(values: list, ndim: int) -> np.ndarray | None:
    """values as a float array of `ndim` dimensions, or None if any value is not a number."""
    try:
        arr = np.array(values)
    except (ValueError, TypeError):  # ragged nesting
        return None
    return arr.astype(float) if arr.dtype.kind in "iuf" and arr.ndim == ndim else None


def _refuse_booleans(values: list, expect: str, shown: list | None = None) -> None:
    """numpy reads JSON true/false as 1/0; a boolean is not a number here. `shown`: the
    samples to quote in the message, when `values` are parts of them."""
    is_bool = (_type_of(np.array(values, dtype=object)) == bool).reshape(len(values), -1).any(axis=1)
    if is_bool.any():
        i = _first(is_bool)
        raise _SampleProblem(i, f"must be {expect}, got {json.dumps((shown or values)[i])[:60]} "
                                f"(true/false are not numbers)")


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
        raise _not_a(expect, values, is_json_number)
    _refuse_booleans(values, expect)
    _check_finite(arr, "the value")
    return arr


def _check_range(arr: np.ndarray, low: float, high: float) -> None:
    bad = (arr < low) | (arr > high)
    if bad.any():
        raise _SampleProblem(_first(bad), f"must be in [{low:g}, {high:g}], got {arr[_first(bad)]:g}")


def _parse_binary(values: list, task: Task) -> np.ndarray:
    arr = _numbers(values, SAMPLE_KINDS["binary"])
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"must be 0 or 1, got {arr[_first(bad)]:g}")
    return arr.astype(np.uint8)


def _parse_unit_interval(values: list, task: Task) -> np.ndarray:
    arr = _numbers(values, SAMPLE_KINDS["unit_interval"])
    _check_range(arr, 0, 1)
    return arr


def _is_number_pair(v) -> bool:
    return isinstance(v, list) and len(v) == 2 and is_json_number(v[0]) and is_json_number(v[1])


def _number_pairs(values: list, expect: str, what: str) -> np.ndarray:
    """values as an (n, 2) float array of finite numbers; `what` names them in a message."""
    arr = _numeric_array(values, 2)
    if arr is None or arr.shape[1] != 2:
        raise _not_a(expect, values, _is_number_pair)
    _refuse_booleans(values, expect)
    _check_finite(arr, what)
    return arr


def _parse_loglik_words(values: list, task: Task) -> np.ndarray:
    """Bounded so that every perplexity, of the task and of any bootstrap resample, is a
    finite number: loglikelihood <= 0 and >= MIN_LOGLIK_PER_WORD per word."""
    arr = _number_pairs(values, SAMPLE_KINDS["loglik_words"], "the loglikelihood or number_of_words")
    loglik, words = arr[:, 0], arr[:, 1]
    bad = (words <= 0) | (words != np.round(words)) | (words > MAX_WORDS)
    if bad.any():
        raise _SampleProblem(_first(bad), f"number_of_words must be a whole number from 1 to {MAX_WORDS:,}, "
                                          f"got {words[_first(bad)]:g}")
    bad = loglik > 0
    if bad.any():
        raise _SampleProblem(_first(bad), f"loglikelihood must be <= 0 (a log of a probability), "
                                          f"got {loglik[_first(bad)]:g}")
    bad = loglik < MIN_LOGLIK_PER_WORD * words
    if bad.any():
        i = _first(bad)
        raise _SampleProblem(i, f"loglikelihood {loglik[i]:g} over {words[i]:g} words is below "
                                f"{MIN_LOGLIK_PER_WORD:g} per word (a perplexity beyond e^700)")
    return arr


def _is_gold_probs_pair(v) -> bool:
    return (isinstance(v, list) and len(v) == 2 and is_json_number(v[0]) and isinstance(v[1], list)
            and all(is_json_number(p) for p in v[1]))


def _parse_gold_probs(values: list, task: Task) -> ClassProbs:
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
    _refuse_booleans([v[0] for v in values], expect, values)
    _refuse_booleans([v[1] for v in values], expect, values)
    _check_finite(gold, "the gold class")
    _check_finite(probs, "a probability")
    bad = gold != np.round(gold)
    if bad.any():
        raise _SampleProblem(_first(bad), f"gold_class_index must be an integer, got {gold[_first(bad)]:g}")
    bad = ((probs < 0) | (probs > 1)).any(axis=1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"has a probability outside [0, 1]: {probs[_first(bad)].tolist()}")
    total = probs.sum(axis=1)
    bad = np.abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE
    if bad.any():
        i = _first(bad)
        raise _SampleProblem(i, f"class probabilities sum to {total[i]:.6g}, not 1 "
                                f"(within {PROBABILITY_SUM_TOLERANCE:g}): {probs[i].tolist()[:10]}")
    gold = gold.astype(np.int64)
    bad = (gold < 0) | (gold >= n_classes)
    if bad.any():
        raise _SampleProblem(_first(bad), f"gold class {gold[_first(bad)]} is out of range 0..{n_classes - 1}")
    return ClassProbs(gold, probs)


def _parse_label_pair(values: list, task: Task) -> LabelPairs:
    arr = _number_pairs(values, SAMPLE_KINDS["label_pair"], "a label")
    bad = (arr != np.round(arr)).any(axis=1)
    if bad.any():
        raise _SampleProblem(_first(bad), f"labels must be whole numbers (class indices), "
                                          f"got {json.dumps(values[_first(bad)])[:60]}")
    k = len(task.labels)
    classes = f"the task's {k} labels are 0..{k - 1}: {some_names(list(task.labels), 5)}"
    for side, column, lowest in (("gold_label", arr[:, 0], 0), ("predicted_label", arr[:, 1], -1)):
        bad = (column < lowest) | (column >= k)
        if bad.any():
            raise _SampleProblem(_first(bad), f"{side} {column[_first(bad)]:g} is out of range ({classes}"
                                              f"{'; -1 for no valid answer' if lowest < 0 else ''})")
    return LabelPairs(arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), k)


def _scores_in_range(values: list, low: float, high: float) -> np.ndarray:
    arr = _numbers(values, f"a number in [{low:g}, {high:g}]")
    _check_range(arr, low, high)
    return arr


def _parse_judge(values: list, task: Task) -> np.ndarray:
    """One score per sample: the value, or the criteria's weighted mean (criteria declared)."""
    low, high = task.score_range
    if not task.criteria:
        return _scores_in_range(values, low, high)
    names = [name for name, _ in task.criteria]
    expect = "an object {" + ", ".join(f'"{name}": number' for name in names) + "}"
    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise _SampleProblem(i, f"must be {expect}, got {json.dumps(v)[:60]}")
        if set(v) != set(names):
            missing, unknown = [n for n in names if n not in v], sorted(set(v) - set(names))
            problem = f"has no {missing[0]!r} score" if missing else f"has an unknown criterion {unknown[0]!r}"
            raise _SampleProblem(i, f"{problem} (the task's criteria: {', '.join(names)})")
    scores = np.empty((len(values), len(names)))
    for j, name in enumerate(names):
        try:
            scores[:, j] = _scores_in_range([v[name] for v in values], low, high)
        except _SampleProblem as p:
            raise _SampleProblem(p.index, f"{name} {p.what}") from None
    return scores @ np.array([w for _, w in task.criteria])


_PARSERS = {"binary": _parse_binary, "unit_interval": _parse_unit_interval, "loglik_words": _parse_loglik_words,
            "gold_probs": _parse_gold_probs, "label_pair": _parse_label_pair, "judge": _parse_judge}


def _metric_value(item, metric: str):
    if metric in item:
        return item[metric]
    for alias, name in METRIC_ALIASES.items():
        if name == metric and alias in item:
            return item[alias]
    raise KeyError(metric)


def _parse_task(task: Task, items, require_doc_ids: bool) -> TaskSamples:
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
    samples = _PARSERS[task.metric.sample_kind](values, task)
    if all(d is None for d in doc_ids) and not require_doc_ids:
        return TaskSamples(samples, None)
    for i, d in enumerate(doc_ids):
        if not (isinstance(d, int) and not isinstance(d, bool)):
            raise _SampleProblem(i, f"doc_id must be an integer, got {json.dumps(d)}"
                                    + (" (every sample needs its doc_id, so that samples are paired by it)"
                                       if d is None else ""))
    ids = np.asarray(doc_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    repeats = order[1:][ids[order][1:] == ids[order][:-1]]
    if repeats.size:
        raise _SampleProblem(int(repeats.min()), "repeats a doc_id of an earlier sample")
    return TaskSamples(samples, ids)


def _sample_label(items: list, index: int) -> str:
    item = items[index]
    doc_id = item.get("doc_id") if isinstance(item, dict) else None
    return f"sample {index}" + (f" (doc_id {doc_id})" if type(doc_id) is int else "")


def canonical_sha256(obj) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def predictions_sha256(document: dict) -> str:
    """The hash a parsed file of `document` gets as `ParsedSubmission.predictions_sha256`
    (taken of the JSON, so numpy and Python numbers hash alike)."""
    return canonical_sha256(json.loads(json.dumps(document["predictions"])))


def _read_bytes(path: Path) -> bytes:
    """A regular file's bytes, refused before reading when it is too large; special files
    (FIFOs, devices such as /dev/zero) are refused without reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise BadInput(f"cannot read the file {path}: {e.strerror or e}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)  # before fdopen, which refuses a directory
        raise BadInput(f"{path} is not a regular file (a JSON file is expected)")
    with os.fdopen(fd, "rb") as f:
        if st.st_size > MAX_FILE_BYTES:
            raise BadInput(f"the file is {st.st_size / 2**20:.0f} MB, larger than the limit of "
                                  f"{MAX_FILE_BYTES // 2**20} MB")
        try:
            return f.read(MAX_FILE_BYTES + 1)  # one byte over: a file that grew is refused by the caller
        except OSError as e:  # e.g. /proc/self/mem: a regular file that cannot be read
            raise BadInput(f"cannot read the file {path}: {e.strerror or e}") from None


class _FlaggedDict(dict):
    """A JSON object that repeated a key (the later value would silently win)."""

    repeated: list[str]


class _HugeInteger:
    """Stands for an integer literal too long to convert (located later, then refused)."""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in text (half of a UTF-16 pair: no character, and not
    writable as UTF-8), as its escape."""
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found.group()):04x}"


class _JsonReader:
    """json.loads with the JSON rules Python relaxes: NaN/Infinity, numbers overflowing to
    infinity, integers beyond 64 bits and repeated keys are remembered while parsing, then
    located by one walk of the document (only when one was seen)."""

    def __init__(self):
        self.suspicious = False

    def _object(self, pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self.suspicious = True
            flagged = _FlaggedDict(obj)
            seen = set()
            flagged.repeated = [k for k, _ in pairs if k in seen or seen.add(k)]
            return flagged
        return obj

    def _float(self, text):
        value = float(text)
        if not math.isfinite(value):
            self.suspicious = True
        return value

    def _int(self, text):
        if len(text) > 18:  # could exceed 64 bits; converting a huge digit string is also slow
            self.suspicious = True
            if len(text) > 40:
                return _HugeInteger()  # never int() a 10^6-digit string
        return int(text)

    def _constant(self, name):
        self.suspicious = True
        return float(name.replace("Infinity", "inf"))

    def loads(self, text: str):
        if _SURROGATE_ESCAPE.search(text):  # a pair is one character, a lone half is located later
            self.suspicious = True
        return json.loads(text, object_pairs_hook=self._object, parse_float=self._float,
                          parse_int=self._int, parse_constant=self._constant)


def _describe_path(path: tuple) -> str:
    """('predictions', task, 3, 'acc') -> "task <task>, sample 3 → 'acc'"."""
    names = [f"item {p}" if isinstance(p, int) else repr(p) for p in path]
    if len(path) >= 3 and path[0] == "predictions":
        names = [f"task {path[1]}, sample {path[2]}", *names[3:]]
    return " → ".join(names) or "the top level"


def _first_invalid_value(document) -> str | None:
    """Where the document breaks strict JSON rules, walking without recursion."""
    stack = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _FlaggedDict):
            return f"{_describe_path(path)} repeats the key {value.repeated[0]!r} (keys must be unique)"
        if isinstance(value, float) and not math.isfinite(value):
            return (f"{_describe_path(path)} is NaN or Infinity, or a number too large for a float "
                    f"(JSON has no NaN or Infinity: write null or a finite number)")
        if isinstance(value, _HugeInteger) or (isinstance(value, int) and not -2**63 <= value < 2**63):
            return f"{_describe_path(path)} is an integer beyond 64 bits"
        if isinstance(value, str) and _lone_surrogate(value):
            return (f"{_describe_path(path)} holds a lone surrogate {_lone_surrogate(value)} (half of a UTF-16 pair, "
                    f"not a character: write the character itself)")
        if isinstance(value, dict):
            bad_key = next((k for k in value if _lone_surrogate(k)), None)
            if bad_key is not None:
                return (f"{_describe_path(path)} has a key with a lone surrogate {_lone_surrogate(bad_key)} (half of a "
                        f"UTF-16 pair, not a character: write the character itself)")
            stack.extend(((*path, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(value))))
    return None


def _decode(data: bytes) -> str:
    encoding = json.detect_encoding(data)
    if encoding not in ("utf-8", "utf-8-sig"):
        raise BadInput(f"the file is {encoding.upper()} encoded; save it as UTF-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise BadInput(f"the file is not UTF-8 text (byte {e.start} is not valid UTF-8); "
                              f"save it as UTF-8") from None


def _read_document(source: str | Path | bytes) -> dict:
    data = _read_bytes(Path(source)) if isinstance(source, (str, Path)) else bytes(source)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"the file is larger than the limit of {MAX_FILE_BYTES // 2**20} MB")
    # Bounds on what parsing would build, counted before any object is made.
    if data.count(b"{") > MAX_JSON_OBJECTS:
        raise BadInput(f"the file holds more than {MAX_JSON_OBJECTS:,} JSON objects (samples); "
                              f"the benchmark's tasks have far fewer")
    if data.count(b",") > MAX_JSON_VALUES:
        raise BadInput(f"the file holds more than {MAX_JSON_VALUES:,} JSON values; "
                              f"the benchmark's tasks need far fewer")
    reader = _JsonReader()
    try:
        document = reader.loads(_decode(data))
    except json.JSONDecodeError as e:
        raise BadInput(f"the file is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise BadInput("the file nests arrays or objects too deeply (a submission needs 4 levels)") from None
    if reader.suspicious:
        problem = _first_invalid_value(document)
        if problem:
            raise BadInput(f"the file is not strict JSON: {problem}")
    if not isinstance(document, dict):
        raise BadInput("the file must hold a JSON object with 'predictions' and 'results'")
    if not isinstance(document.get("predictions"), dict):
        raise BadInput("the file has no 'predictions' object (task -> list of per-sample results)")
    if "results" in document and not isinstance(document["results"], dict):
        raise BadInput("'results' must be an object (task -> aggregate metrics)")
    return document


def some_names(names: list[str], shown: int = 10) -> str:
    return ", ".join(names[:shown]) + (f", ... ({len(names) - shown} more)" if len(names) > shown else "")


def parse_submission(source: str | Path | bytes, benchmark: Benchmark,
                     references: dict[str, TaskReference] | None = None,
                     require_doc_ids: bool = True) -> ParsedSubmission:
    """Parse and validate a submission file against the benchmark and, when given, the
    per-task references of the published submissions (sample count, doc_id order, gold
    labels, class count). Raises BadInput listing every problem found.

    New files must give every sample its doc_id (the only way to tell that samples are in
    the published order); require_doc_ids=False reads stored files of older layouts."""
    document = _read_document(source)
    predictions = document["predictions"]
    expected = set(benchmark.task_ids)
    problems = []
    missing = [t for t in benchmark.task_ids if t not in predictions]
    extra = sorted(set(predictions) - expected)
    if missing:
        problems.append(f"missing tasks ({len(missing)} of {len(expected)}): {some_names(missing)}")
    if extra:
        problems.append(f"{len(extra):,} tasks that are not part of {benchmark.name}: {some_names(extra)}")
    tasks = {}
    for task in benchmark.tasks:
        if task.id not in predictions:
            continue
        try:
            tasks[task.id] = _parse_task(task, predictions[task.id], require_doc_ids)
        except _SampleProblem as p:
            problems.append(f"task {task.id}, {_sample_label(predictions[task.id], p.index)}: "
                            f"{task.metric_name} {p.what}" if p.index >= 0 else f"task {task.id}: {p.what}")
    for task_id, samples in tasks.items():
        problem = benchmark.task(task_id).count_problem(len(predictions[task_id]))
        if problem:
            problems.append(f"task {task_id}: {problem}")
        elif references and task_id in references:
            problem = _alignment_problem(task_id, samples, references[task_id])
            if problem:
                problems.append(problem)
    if problems:
        raise BadInput(problems)
    parsed = ParsedSubmission(tasks, document, canonical_sha256(predictions),
                              canonical_sha256(document.get("results", {})))
    parsed.warnings = _results_warnings(parsed, benchmark)
    return parsed


def _alignment_problem(task_id: str, samples: TaskSamples, ref: TaskReference) -> str | None:
    """Why these samples cannot be paired with the published ones, or None. Every
    per-sample field that describes the document (doc_id, gold label, word count) must
    equal the published one; the first differing sample is named."""
    new = TaskReference.of(samples)
    if new.n_samples != ref.n_samples:
        return f"task {task_id}: has {new.n_samples} samples, the published submissions have {ref.n_samples}"
    if ref.doc_ids is not None and new.doc_ids is not None and not np.array_equal(new.doc_ids, ref.doc_ids):
        i = _first(new.doc_ids != ref.doc_ids)
        return (f"task {task_id}: sample {i} has doc_id {new.doc_ids[i]}, the published submissions have doc_id "
                f"{ref.doc_ids[i]} there (samples must be in the same order)")
    if ref.n_classes is not None and new.n_classes != ref.n_classes:
        return f"task {task_id}: has {new.n_classes} classes, the published submissions have {ref.n_classes}"
    gold = "gold class" if isinstance(samples.samples, ClassProbs) else "gold label"
    for name, mine, published in ((gold, new.gold, ref.gold), ("word count", new.words, ref.words)):
        if mine is None or published is None:
            continue
        differs = np.asarray(mine) != np.asarray(published)
        if differs.any():
            i, more = _first(differs), int(differs.sum()) - 1
            label = f"task {task_id}, sample {i}" + (f" (doc_id {new.doc_ids[i]})" if new.doc_ids is not None else "")
            return (f"{label}: {name} {mine[i]:.10g} differs from the published submissions' {published[i]:.10g}"
                    + (f" (and {more:,} more samples)" if more else ""))
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
        if not is_json_number(reported):
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


# Invisible and direction-changing characters: control (Cc), format (Cf: zero-width
# spaces and joiners, bidirectional overrides), surrogates (Cs), line/paragraph separators,
# and the default-ignorable code points fonts draw as nothing (U+3164 HANGUL FILLER, ...).
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
# UTS #39 confusable skeletons: the Unicode Consortium's own implementation (ICU).
_SPOOF_CHECKER = icu.SpoofChecker()


def _is_hidden(c: str) -> bool:
    return (unicodedata.category(c) in _HIDDEN_CATEGORIES
            or icu.Char.hasBinaryProperty(c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT))


def normalize_name(text) -> str:
    """A name as stored and compared: Unicode NFKC, whitespace runs collapsed to one space."""
    return " ".join(unicodedata.normalize("NFKC", str(text or "")).split())


def title_keys(title: str) -> tuple[str, str]:
    """What two titles must differ in to be different models: the UTS #39 confusable
    skeletons of the title in lower case and in upper case, after NFKC and removing hidden
    characters (older stored titles may hold them). Titles are the same when either key
    is: lower case catches "I" for "i" and a Greek "ο" for "o", upper case a Greek "Β" for
    "B" (whose lower case is no "b")."""
    visible = "".join(c for c in normalize_name(title) if not _is_hidden(c))
    return (_SPOOF_CHECKER.getSkeleton(0, visible.casefold()), _SPOOF_CHECKER.getSkeleton(0, visible.upper()))


_UNNAMED = {"Cc": "control character", "Cs": "lone surrogate"}


def _describe_character(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, None) or _UNNAMED.get(unicodedata.category(c), 'unnamed character')}"


def hidden_character(text: str) -> str | None:
    c = next((c for c in text if _is_hidden(c)), None)
    return None if c is None else _describe_character(c)


def _name_problem(raw, name: str) -> str | None:
    """What is wrong with a team or model name (`name`: `raw` normalized), or None. Hidden
    characters are named as typed (NFKC turns U+3164 into another filler)."""
    if not name:
        return "required"
    if len(name) > MAX_NAME_LENGTH:
        return f"at most {MAX_NAME_LENGTH} characters, got {len(name)}"
    hidden = hidden_character(" ".join(str(raw).split())) or hidden_character(name)
    if hidden:
        return f"invisible or text-direction characters are not allowed ({hidden})"
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        return f"needs a letter or digit (got only {_describe_character(name.replace(' ', '')[0])})"
    return None


def is_web_address(text: str) -> bool:
    try:
        url = urlparse(text)
    except ValueError:  # e.g. a malformed IPv6 host
        return False
    return (url.scheme in ("http", "https") and bool(url.netloc) and not hidden_character(text)
            and not any(c.isspace() for c in text))


def _field_problem(label: str, expect: str, value) -> str:
    if value is None or str(value).strip() == "":
        return f"{label}: required, {expect}"
    return f"{label}: {expect}, got {str(value)[:40]}"


def _whole_number(value) -> int:
    """An integer from a form value (int, integral float or digit string); else ValueError."""
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError
        return int(value)
    return value if isinstance(value, int) else int(str(value).strip())


def validate_metadata(team_name, model_name, model_type, parameters, input_length, precision,
                      link_to_model, description="") -> SubmissionMetadata:
    """The reference's form rules plus length and range caps; raises BadInput
    naming each bad field."""
    problems = []
    given_team, given_model = team_name or "", model_name or ""
    team_name, model_name = normalize_name(team_name), normalize_name(model_name)
    for label, raw, value in (("Team name", given_team, team_name), ("Model name", given_model, model_name)):
        problem = _name_problem(raw, value)
        if problem:
            problems.append(f"{label}: {problem}")
    if model_type not in MODEL_TYPES:
        problems.append(f"Model type: choose one of {', '.join(MODEL_TYPES)}")
    given_parameters = parameters
    try:
        parameters = float(given_parameters)
        if not (math.isfinite(parameters) and 0 < parameters <= MAX_PARAMETERS):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        problems.append(_field_problem("Parameters", f"a number of billions greater than 0 and at most "
                                                     f"{MAX_PARAMETERS:,.0f}", given_parameters))
    given_length = input_length
    try:
        input_length = _whole_number(given_length)
        if not 0 < input_length <= MAX_INPUT_LENGTH:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        problems.append(_field_problem("Input length", f"a whole number of tokens from 1 to {MAX_INPUT_LENGTH:,}",
                                       given_length))
    if precision not in PRECISIONS:
        problems.append(f"Precision: choose one of {', '.join(PRECISIONS)}")
    link_to_model = str(link_to_model or "").strip()
    if len(link_to_model) > MAX_LINK_LENGTH:
        problems.append(f"Link to model: at most {MAX_LINK_LENGTH} characters, got {len(link_to_model):,}")
    elif not is_web_address(link_to_model):
        problems.append("Link to model: an http:// or https:// address")
    description = str(description or "").strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        problems.append(f"Description: at most {MAX_DESCRIPTION_LENGTH} characters, got {len(description):,}")
    if problems:
        raise BadInput(problems)
    return SubmissionMetadata(team_name, model_name, model_type, parameters, input_length, precision,
                              description, link_to_model)


def submission_id(metadata: SubmissionMetadata, parsed: ParsedSubmission) -> str:
    """`<team[:7]>_<model[:7]>_<sha7 predictions>_<sha7 results>`, safe in a file name."""
    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9-]", "-", text[:7])
    return (f"{safe(metadata.team_name)}_{safe(metadata.model_name)}_"
            f"{parsed.predictions_sha256[:7]}_{parsed.results_sha256[:7]}")
