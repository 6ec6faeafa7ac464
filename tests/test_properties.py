"""Property-based tests (hypothesis): the parser never fails other than with a
SubmissionError, accepts what is valid with finite scores, and every duel test gives
p in [0, 1] and a finite delta on any valid input."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stats
from leaderboard.submission import SubmissionError, parse_submission
from leaderboard.tournament import summarize

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
N = 12  # samples per task

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12)


def _finite(low, high):
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def _probabilities(k):
    return st.lists(_finite(0.001, 1.0), min_size=k, max_size=k).map(lambda w: [x / sum(w) for x in w])


def valid_samples(kind: str):
    """A task's list of per-sample values of one sample kind, valid by the rules."""
    if kind == "binary":
        return st.lists(st.sampled_from([0, 1]), min_size=N, max_size=N)
    if kind == "unit_interval":
        return st.lists(_finite(0.0, 1.0), min_size=N, max_size=N)
    if kind == "loglik_words":
        pair = st.integers(1, 10**6).flatmap(lambda w: st.tuples(_finite(-700.0 * w, 0.0), st.just(w)).map(list))
        return st.lists(pair, min_size=N, max_size=N)
    k = 3
    golds = st.lists(st.integers(0, k - 1), min_size=N, max_size=N).filter(lambda g: len(set(g)) > 1)
    return golds.flatmap(lambda g: st.tuples(*[_probabilities(k).map(lambda p, gi=gi: [gi, p]) for gi in g]).map(list))


def document(small_benchmark, draw_values):
    return {"predictions": {t.id: [{t.metric_name: v, "doc_id": i} for i, v in enumerate(draw_values[t.id])]
                            for t in small_benchmark.tasks}}


@st.composite
def valid_documents(draw, benchmark):
    return document(benchmark, {t.id: draw(valid_samples(t.metric.sample_kind)) for t in benchmark.tasks})


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


def test_valid_documents_parse_with_finite_scores(small_benchmark):
    @SETTINGS
    @given(valid_documents(small_benchmark))
    def check(doc):
        parsed = parse_submission(json.dumps(doc).encode(), small_benchmark)
        results = summarize(parsed, small_benchmark)
        assert all(np.isfinite(v) for v in results.aggregates.values())
        assert all(np.isfinite(s).all() for s in results.summaries.values())
    check()


def test_any_broken_document_gives_a_submission_error_or_parses(small_benchmark):
    @SETTINGS
    @given(broken_documents(small_benchmark))
    def check(doc):
        text = json.dumps(doc)  # NaN, Infinity and huge integers as Python writes them
        try:
            parsed = parse_submission(text.encode(), small_benchmark)
        except SubmissionError as e:
            assert e.problems and all(isinstance(p, str) and p for p in e.problems)
            return
        try:
            summarize(parsed, small_benchmark)  # the junk happened to be valid: scores must be finite
        except SubmissionError:
            pass
    check()


def test_any_bytes_give_a_submission_error(small_benchmark):
    @SETTINGS
    @given(st.binary(max_size=200))
    def check(data):
        try:
            parse_submission(data, small_benchmark)
        except SubmissionError:
            return
        raise AssertionError("random bytes were accepted")
    check()


def test_every_duel_test_gives_a_probability_and_a_finite_delta(small_benchmark):
    @SETTINGS
    @given(valid_documents(small_benchmark), valid_documents(small_benchmark))
    def check(doc_a, doc_b):
        a = summarize(parse_submission(json.dumps(doc_a).encode(), small_benchmark), small_benchmark)
        b = summarize(parse_submission(json.dumps(doc_b).encode(), small_benchmark), small_benchmark)
        for task in small_benchmark.tasks:
            if task.metric.sample_kind == "gold_probs" and doc_a["predictions"][task.id] != doc_b["predictions"][task.id]:
                golds = [[s[task.metric_name][0] for s in d["predictions"][task.id]] for d in (doc_a, doc_b)]
                if golds[0] != golds[1]:
                    continue  # a classification duel needs the same gold labels (validation guarantees it)
            for x, y in ((a, b), (b, a), (a, a)):
                r = stats.duel(task.metric, x.aggregates[task.id], x.summaries[task.id][None, :],
                               np.array([y.aggregates[task.id]]), y.summaries[task.id][None, :])
                assert np.all((r.p_value >= 0) & (r.p_value <= 1)) and np.all(np.isfinite(r.delta))
            same = stats.duel(task.metric, a.aggregates[task.id], a.summaries[task.id][None, :],
                              np.array([a.aggregates[task.id]]), a.summaries[task.id][None, :])
            assert not same.significant.any()
    check()
