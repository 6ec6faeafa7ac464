"""Per-sample parsing: one task's samples, as the metric's sample kind, into a numpy array.

A parser gets the task's values in file order and the task (for what the task declares:
labels, a score range, judge criteria); it returns the samples or raises SampleProblem
naming the first bad sample.
"""
from __future__ import annotations

import json
import operator
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from leaderboard.config.tasks import Task
from leaderboard.errors import some_names
from leaderboard.strict_json import exact_text, is_json_number
from stats import METRIC_ALIASES, ClassProbs, LabelPairs
from stats.metrics import SAMPLE_KINDS

PROBABILITY_SUM_TOLERANCE = 0.01  # class probabilities must sum to 1 within this
MIN_LOGLIK_PER_WORD = -700.0  # exp(700) is near the largest float: a bound, not a real result
MAX_WORDS = 10**9
MAX_COUNT = 10**9  # entities or characters of one sample: a bound far above any real one


@dataclass
class TaskSamples:
    """One task's per-sample results: `samples` as the metric's sample kind, in file order."""

    samples: np.ndarray | ClassProbs | LabelPairs
    doc_ids: np.ndarray | None  # (n,) int, or None when the file has none


class SampleProblem(Exception):
    def __init__(self, index: int, what: str):
        self.index, self.what = index, what


def first_index(mask: np.ndarray) -> int:
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
    samples to quote in the message, when `values` are parts of them. Checked in C (the
    types of the numbers, or of the numbers in each list) before the bad sample is looked for."""
    types = set(map(type, values))
    if list in types:  # rows of numbers (the caller has checked that every value is one)
        types = set(map(type, chain.from_iterable(values)))
    if bool not in types:
        return
    i = first_index((_type_of(np.array(values, dtype=object)) == bool).reshape(len(values), -1).any(axis=1))
    raise SampleProblem(i, f"must be {expect}, got {json.dumps((shown or values)[i])[:60]} "
                           f"(true/false are not numbers)")


def _not_a(expect: str, values: list, is_valid) -> SampleProblem:
    i = next(i for i, v in enumerate(values) if not is_valid(v))
    return SampleProblem(i, f"must be {expect}, got {json.dumps(values[i])[:60]}")


def _check_finite(arr: np.ndarray, what: str) -> None:
    finite = np.isfinite(arr).reshape(len(arr), -1).all(axis=1)
    if not finite.all():
        raise SampleProblem(first_index(~finite), f"{what} is NaN or infinite")


def _numbers(values: list, expect: str) -> np.ndarray:
    arr = _numeric_array(values, 1)
    if arr is None:
        raise _not_a(expect, values, is_json_number)
    _refuse_booleans(values, expect)
    _check_finite(arr, "the value")
    return arr


NEAR_MISS = 1e-6  # a refused value this close to an allowed one looks like rounding: say none is tolerated


def _refused_value(value: float, nearest: float) -> str:
    """A refused value exactly, noting when it misses an allowed value by a rounding error
    that the bounds do not tolerate."""
    return exact_text(value) + (" (exactly: no tolerance)" if abs(value - nearest) <= NEAR_MISS else "")


def _check_range(arr: np.ndarray, low: float, high: float) -> None:
    bad = (arr < low) | (arr > high)
    if bad.any():
        value = arr[first_index(bad)]
        raise SampleProblem(first_index(bad), f"must be in [{low:g}, {high:g}], got "
                                              f"{_refused_value(value, min(max(value, low), high))}")


def _parse_binary(values: list, task: Task) -> np.ndarray:
    arr = _numbers(values, SAMPLE_KINDS["binary"])
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        value = arr[first_index(bad)]
        raise SampleProblem(first_index(bad), f"must be 0 or 1, got {_refused_value(value, float(value >= 0.5))}")
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
        raise SampleProblem(first_index(bad), f"number_of_words must be a whole number from 1 to {MAX_WORDS:,}, "
                                              f"got {words[first_index(bad)]:g}")
    bad = loglik > 0
    if bad.any():
        raise SampleProblem(first_index(bad), f"loglikelihood must be <= 0 (a log of a probability), "
                                              f"got {loglik[first_index(bad)]:g}")
    bad = loglik < MIN_LOGLIK_PER_WORD * words
    if bad.any():
        i = first_index(bad)
        raise SampleProblem(i, f"loglikelihood {loglik[i]:g} over {words[i]:g} words is below "
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
            raise SampleProblem(i, f"has {counts[i]} class probabilities, earlier samples have {counts[0]}")
        raise _not_a(expect, values, _is_gold_probs_pair)
    n_classes = probs.shape[1]
    if n_classes < 2:
        raise SampleProblem(0, f"needs at least 2 class probabilities, got {n_classes}")
    _refuse_booleans([v[0] for v in values], expect, values)
    _refuse_booleans([v[1] for v in values], expect, values)
    _check_finite(gold, "the gold class")
    _check_finite(probs, "a probability")
    bad = gold != np.round(gold)
    if bad.any():
        raise SampleProblem(first_index(bad), f"gold_class_index must be an integer, got {gold[first_index(bad)]:g}")
    bad = ((probs < 0) | (probs > 1)).any(axis=1)
    if bad.any():
        raise SampleProblem(first_index(bad), f"has a probability outside [0, 1]: {probs[first_index(bad)].tolist()}")
    total = probs.sum(axis=1)
    bad = np.abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE
    if bad.any():
        i = first_index(bad)
        raise SampleProblem(i, f"class probabilities sum to {total[i]:.6g}, not 1 "
                               f"(within {PROBABILITY_SUM_TOLERANCE:g}): {probs[i].tolist()[:10]}")
    gold = gold.astype(np.int64)
    bad = (gold < 0) | (gold >= n_classes)
    if bad.any():
        raise SampleProblem(first_index(bad), f"gold class {gold[first_index(bad)]} is out of range 0..{n_classes - 1}")
    return ClassProbs(gold, probs)


def _parse_label_pair(values: list, task: Task) -> LabelPairs:
    arr = _number_pairs(values, SAMPLE_KINDS["label_pair"], "a label")
    bad = (arr != np.round(arr)).any(axis=1)
    if bad.any():
        raise SampleProblem(first_index(bad), f"labels must be whole numbers (class indices), "
                                              f"got {json.dumps(values[first_index(bad)])[:60]}")
    k = len(task.labels)
    classes = f"the task's {k} labels are 0..{k - 1}: {some_names(list(task.labels), 5)}"
    for side, column, lowest in (("gold_label", arr[:, 0], 0), ("predicted_label", arr[:, 1], -1)):
        bad = (column < lowest) | (column >= k)
        if bad.any():
            raise SampleProblem(first_index(bad), f"{side} {column[first_index(bad)]:g} is out of range ({classes}"
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
            raise SampleProblem(i, f"must be {expect}, got {json.dumps(v)[:60]}")
        if set(v) != set(names):
            missing, unknown = [n for n in names if n not in v], sorted(set(v) - set(names))
            problem = f"has no {missing[0]!r} score" if missing else f"has an unknown criterion {unknown[0]!r}"
            raise SampleProblem(i, f"{problem} (the task's criteria: {', '.join(names)})")
    scores = np.empty((len(values), len(names)))
    for j, name in enumerate(names):
        try:
            scores[:, j] = _scores_in_range([v[name] for v in values], low, high)
        except SampleProblem as p:
            raise SampleProblem(p.index, f"{name} {p.what}") from None
    return scores @ np.array([w for _, w in task.criteria])


def _is_count_triple(v) -> bool:
    return isinstance(v, list) and len(v) == 3 and all(map(is_json_number, v))


def _count_triples(values: list) -> np.ndarray:
    """values as an (n, 3) float array of whole counts [tp, fp, fn] in 0..MAX_COUNT."""
    expect = "a triple [true_positives, false_positives, false_negatives]"
    arr = _numeric_array(values, 2)
    if arr is None or arr.shape[1] != 3:
        raise _not_a(expect, values, _is_count_triple)
    _refuse_booleans(values, expect)
    _check_finite(arr, "a count")
    bad = ((arr < 0) | (arr != np.round(arr)) | (arr > MAX_COUNT)).any(axis=1)
    if bad.any():
        raise SampleProblem(first_index(bad), f"counts [tp, fp, fn] must be whole numbers from 0 to {MAX_COUNT:,}, "
                                              f"got {json.dumps(values[first_index(bad)])[:60]}")
    return arr


def _parse_tp_fp_fn(values: list, task: Task) -> np.ndarray:
    """[tp, fp, fn] per sample; with entity classes declared, {class: [tp, fp, fn]} (a class
    not named counts nothing), summed over the classes the task does not leave out."""
    if not task.entity_classes:
        return _count_triples(values)
    classes = task.entity_classes
    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise SampleProblem(i, f"must be an object {{class: [tp, fp, fn]}} of the task's entity classes "
                                   f"({', '.join(classes)}), got {json.dumps(v)[:60]}")
        unknown = sorted(set(v) - set(classes))
        if unknown:
            raise SampleProblem(i, f"has an unknown entity class {unknown[0]!r} (the task's classes: "
                                   f"{', '.join(classes)})")
    total = np.zeros((len(values), 3))
    for name in classes:
        try:
            counts = _count_triples([v.get(name, [0, 0, 0]) for v in values])
        except SampleProblem as p:
            raise SampleProblem(p.index, f"class {name}: {p.what}") from None
        if name not in task.left_out_classes:
            total += counts
    return total


SAMPLE_PARSERS = {"binary": _parse_binary, "unit_interval": _parse_unit_interval, "loglik_words": _parse_loglik_words,
                  "gold_probs": _parse_gold_probs, "label_pair": _parse_label_pair, "judge": _parse_judge,
                  "tp_fp_fn": _parse_tp_fp_fn}


def _metric_value(item, metric: str):
    if metric in item:
        return item[metric]
    for alias, name in METRIC_ALIASES.items():
        if name == metric and alias in item:
            return item[alias]
    raise KeyError(metric)


def _metric_values(items: list, metric: str) -> list:
    """Each sample's value of the metric, in order; SampleProblem for the first sample that
    is not an object or has no value. When every sample is an object naming the metric
    itself (a valid file), mapped in C."""
    if all(map(isinstance, items, repeat(dict))) and all(map(operator.contains, items, repeat(metric))):
        return list(map(operator.itemgetter(metric), items))
    values = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise SampleProblem(i, "must be an object with the metric value and doc_id")
        try:
            values.append(_metric_value(item, metric))
        except KeyError:
            raise SampleProblem(i, f"has no {metric!r} value") from None
    return values


def parse_task_samples(task: Task, items, require_doc_ids: bool) -> TaskSamples:
    """Raises SampleProblem for the first bad sample."""
    if not isinstance(items, list):
        raise SampleProblem(-1, f"predictions must be a list of samples, got {type(items).__name__}")
    if not items:
        raise SampleProblem(-1, "has no samples")
    values = _metric_values(items, task.metric_name)
    doc_ids = list(map(dict.get, items, repeat("doc_id")))
    samples = SAMPLE_PARSERS[task.metric.sample_kind](values, task)
    if doc_ids.count(None) == len(doc_ids) and not require_doc_ids:
        return TaskSamples(samples, None)
    if set(map(type, doc_ids)) != {int}:  # the loop only for the message (or an int subclass)
        for i, d in enumerate(doc_ids):
            if not (isinstance(d, int) and not isinstance(d, bool)):
                raise SampleProblem(i, f"doc_id must be an integer, got {json.dumps(d)}"
                                       + (" (every sample needs its doc_id, so that samples are paired by it)"
                                          if d is None else ""))
    ids = np.asarray(doc_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    repeats = order[1:][ids[order][1:] == ids[order][:-1]]
    if repeats.size:
        raise SampleProblem(int(repeats.min()), "repeats a doc_id of an earlier sample")
    return TaskSamples(samples, ids)


def sample_label(items: list, index: int) -> str:
    item = items[index]
    doc_id = item.get("doc_id") if isinstance(item, dict) else None
    return f"sample {index}" + (f" (doc_id {doc_id})" if type(doc_id) is int else "")
