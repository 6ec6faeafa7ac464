"""Property-based tests (hypothesis) on a benchmark with a task of every metric (so every
sample kind and every duel test): the parser never fails other than with a
BadInput, accepts what is valid with finite scores, and every duel test gives
p in [0, 1] and a finite delta on any valid input."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stats
from leaderboard.submission.parsing import parse_submission, summarize
from leaderboard.errors import BadInput
from leaderboard.config.tasks import load_benchmark

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
N = 12  # samples per task
K = 3  # classes of the classification tasks

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12)


def _every_metric_task(name: str, **declared) -> dict:
    return {"id": f"t_{name}", "abbreviation": name[:6].upper(), "short_name": name, "name": f"{name} task",
            "category": "All", "metric": stats.METRICS[name].name, "dataset_url": "", **declared}


def _declared(metric) -> dict:
    kind = metric.sample_kind
    return ({"labels": [f"class {i}" for i in range(K)]} if kind == "label_pair"
            else {"score_range": [1, 10]} if kind == "judge" else {})


# One task per registered metric, and a judge task with criteria: every sample kind and
# every duel test.
EVERY_KIND_TASKS = {"benchmark": "Every kind", "categories": ["All"], "tasks": [
    *(_every_metric_task(name, **_declared(stats.METRICS[name])) for name in sorted(stats.METRICS)),
    {**_every_metric_task("judge_score", score_range=[0, 1], criteria={"helpfulness": 0.7, "brevity": 0.3}),
     "id": "t_judge_criteria"},
    {**_every_metric_task("micro_f1", entity_classes=["PER", "LOC", "MISC"], left_out_classes=["MISC"]),
     "id": "t_entity_classes"}]}


@pytest.fixture(scope="module")
def every_kind(tmp_path_factory):
    path = tmp_path_factory.mktemp("every_kind") / "tasks.json"
    path.write_text(json.dumps(EVERY_KIND_TASKS))
    return load_benchmark(path)


def _finite(low, high):
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def _probabilities(k):
    return st.lists(_finite(0.001, 1.0), min_size=k, max_size=k).map(lambda w: [x / sum(w) for x in w])


GOLD_KINDS = {"gold_probs", "label_pair"}  # the kinds whose samples carry gold labels, equal in every submission


def gold_labels(benchmark):
    """Gold labels of each classification task, two classes at least (as a test set has)."""
    golds = st.lists(st.integers(0, K - 1), min_size=N, max_size=N).filter(lambda g: len(set(g)) > 1)
    return st.fixed_dictionaries({t.id: golds for t in benchmark.tasks if t.metric.sample_kind in GOLD_KINDS})


def valid_samples(task, golds):
    """A task's list of per-sample values, valid by the rules of its sample kind."""
    kind = task.metric.sample_kind
    if kind == "binary":
        return st.lists(st.sampled_from([0, 1]), min_size=N, max_size=N)
    if kind == "unit_interval":
        return st.lists(_finite(0.0, 1.0), min_size=N, max_size=N)
    if kind == "loglik_words":
        pair = st.integers(1, 10**6).flatmap(lambda w: st.tuples(_finite(-700.0 * w, 0.0), st.just(w)).map(list))
        return st.lists(pair, min_size=N, max_size=N)
    if kind == "gold_probs":
        return st.tuples(*[_probabilities(K).map(lambda p, g=g: [g, p]) for g in golds[task.id]]).map(list)
    if kind == "label_pair":
        predicted = st.lists(st.integers(-1, K - 1), min_size=N, max_size=N)
        return predicted.map(lambda labels: [[g, p] for g, p in zip(golds[task.id], labels)])
    if kind == "tp_fp_fn":
        triple = st.lists(st.integers(0, 10**9), min_size=3, max_size=3)
        if task.entity_classes:
            triple = st.dictionaries(st.sampled_from(task.entity_classes), triple)
        return st.lists(triple, min_size=N, max_size=N)
    if kind == "judge":
        score = _finite(*task.score_range)
        if task.criteria:
            score = st.fixed_dictionaries({name: score for name, _ in task.criteria})
        return st.lists(score, min_size=N, max_size=N)
    raise AssertionError(f"no strategy for sample kind {kind!r}: add one to valid_samples")


def document(benchmark, draw_values):
    return {"predictions": {t.id: [{t.metric_name: v, "doc_id": i} for i, v in enumerate(draw_values[t.id])]
                            for t in benchmark.tasks}}


@st.composite
def valid_documents(draw, benchmark, golds=None):
    golds = golds or draw(gold_labels(benchmark))
    return document(benchmark, {t.id: draw(valid_samples(t, golds)) for t in benchmark.tasks})


@st.composite
def broken_documents(draw, benchmark):
    """A valid document with one sample value, one sample, or one task replaced by any JSON."""
    doc = draw(valid_documents(benchmark))
    task = draw(st.sampled_from(benchmark.tasks))
    where = draw(st.sampled_from(["value", "sample", "task", "document"]))
    junk = draw(json_values)
    if where == "value":
        doc["predictions"][task.id][draw(st.integers(0, N - 1))][task.metric_name] = junk
    elif where == "sample":
        doc["predictions"][task.id][draw(st.integers(0, N - 1))] = junk
    elif where == "task":
        doc["predictions"][task.id] = junk
    else:
        doc = junk
    return doc


@st.composite
def document_pairs(draw, benchmark):
    """Two valid documents of one test set: the same gold labels, as validation requires."""
    golds = draw(gold_labels(benchmark))
    return draw(valid_documents(benchmark, golds)), draw(valid_documents(benchmark, golds))


def test_the_documents_cover_every_sample_kind_and_every_metric(every_kind):
    assert {t.metric.sample_kind for t in every_kind.tasks} == set(stats.metrics.SAMPLE_KINDS)
    assert {t.metric_name for t in every_kind.tasks} == set(stats.METRICS)
    assert any(t.criteria for t in every_kind.tasks) and any(t.left_out_classes for t in every_kind.tasks)


def test_valid_documents_parse_with_finite_scores(every_kind):
    @SETTINGS
    @given(valid_documents(every_kind))
    def check(doc):
        parsed = parse_submission(json.dumps(doc).encode(), every_kind)
        results = summarize(parsed, every_kind)
        assert all(np.isfinite(v) for v in results.aggregates.values())
        assert all(np.isfinite(s).all() for s in results.summaries.values())
    check()


def test_any_broken_document_gives_a_submission_error_or_parses(every_kind):
    @SETTINGS
    @given(broken_documents(every_kind))
    def check(doc):
        text = json.dumps(doc)  # NaN, Infinity and huge integers as Python writes them
        try:
            parsed = parse_submission(text.encode(), every_kind)
        except BadInput as e:
            assert e.problems and all(isinstance(p, str) and p for p in e.problems)
            return
        try:
            summarize(parsed, every_kind)  # the junk happened to be valid: scores must be finite
        except BadInput:
            pass
    check()


def test_any_bytes_give_a_submission_error(every_kind):
    @SETTINGS
    @given(st.binary(max_size=200))
    def check(data):
        try:
            parse_submission(data, every_kind)
        except BadInput:
            return
        raise AssertionError("random bytes were accepted")
    check()


def test_every_duel_test_gives_a_probability_and_a_finite_delta(every_kind):
    @SETTINGS
    @given(document_pairs(every_kind))
    def check(pair):
        a, b = (summarize(parse_submission(json.dumps(doc).encode(), every_kind), every_kind) for doc in pair)
        for task in every_kind.tasks:
            for x, y in ((a, b), (b, a), (a, a)):
                r = stats.duel(task.metric, x.aggregates[task.id], x.summaries[task.id][None, :],
                               np.array([y.aggregates[task.id]]), y.summaries[task.id][None, :])
                assert np.all((r.p_value >= 0) & (r.p_value <= 1)) and np.all(np.isfinite(r.delta))
            same = stats.duel(task.metric, a.aggregates[task.id], a.summaries[task.id][None, :],
                              np.array([a.aggregates[task.id]]), a.summaries[task.id][None, :])
            assert not same.significant.any()
    check()
