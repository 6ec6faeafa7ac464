"""Metrics scored from per-sample counts [tp, fp, fn] (issue 38): entity micro-F1, a ratio of
the corpus's summed counts, against seqeval and scikit-learn on the same entities (all
classes, and EuroEval's MISC left out through the tasks file); character F1, SQuAD's mean of
per-answer F1 over characters, against a direct computation from the strings; each
bootstrap against a slow loop over the resamples; false winners between equal models."""
from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from seqeval.metrics import f1_score as seqeval_f1
from sklearn.metrics import f1_score

from bench.bench_false_positives import character_counts, entity_counts
from leaderboard.config.tasks import load_benchmark
from leaderboard.submission.samples import parse_task_samples
from stats import METRICS, duel
from stats import duel_tests as dt

ENTITY_TYPES = ("PER", "LOC", "ORG", "MISC")


def micro_f1():
    return METRICS["micro_f1"]


def char_f1():
    return METRICS["char_f1"]


# --- entities: spans (start, end, type) per sentence, BIO tags for seqeval --------------------

def gold_sentences(rng, n):
    """n sentences: (length, gold spans), an entity starting at a free token with probability 0.3."""
    sentences = []
    for _ in range(n):
        length, spans, at = int(rng.integers(4, 16)), [], 0
        while at < length:
            if rng.random() < 0.3:
                end = min(length, at + int(rng.integers(1, 4)))
                spans.append((at, end, ENTITY_TYPES[int(rng.integers(len(ENTITY_TYPES)))]))
                at = end
            at += 1
        sentences.append((length, spans))
    return sentences


def tagger(rng, sentences, accuracy):
    """A model's spans: each gold entity kept with probability `accuracy`, else dropped, given
    another type or cut short; a spurious one-token entity where a sentence has room."""
    predicted = []
    for length, spans in sentences:
        mine = []
        for start, end, kind in spans:
            r = rng.random()
            if r < accuracy:
                mine.append((start, end, kind))
            elif r < accuracy + (1 - accuracy) / 3:
                mine.append((start, end, ENTITY_TYPES[(ENTITY_TYPES.index(kind) + 1) % len(ENTITY_TYPES)]))
            elif end - start > 1 and r < accuracy + 2 * (1 - accuracy) / 3:
                mine.append((start, end - 1, kind))
        taken = {i for s, e, _ in spans for i in range(s, e + 1)} | {i for s, e, _ in mine for i in range(s, e + 1)}
        free = [i for i in range(length) if i not in taken and i - 1 not in taken]
        if free and rng.random() < 0.4:
            at = free[int(rng.integers(len(free)))]
            mine.append((at, at + 1, ENTITY_TYPES[int(rng.integers(len(ENTITY_TYPES)))]))
        predicted.append(mine)
    return predicted


def bio(length, spans, left_out=()):
    tags = ["O"] * length
    for start, end, kind in spans:
        if kind not in left_out:
            tags[start:end] = [f"B-{kind}"] + [f"I-{kind}"] * (end - start - 1)
    return tags


def class_counts(gold, predicted):
    """{class: [tp, fp, fn]} of one sentence, the classes with any entity on either side."""
    gold, predicted = set(gold), set(predicted)
    return {kind: [len({e for e in gold & predicted if e[2] == kind}), len({e for e in predicted - gold if e[2] == kind}),
                   len({e for e in gold - predicted if e[2] == kind})]
            for kind in sorted({e[2] for e in gold | predicted})}


def total_counts(per_class):
    return np.array([np.sum([c for c in counts.values()], axis=0) if counts else [0, 0, 0] for counts in per_class],
                    dtype=float).reshape(len(per_class), 3)


def one_model(rng, sentences, accuracy):
    predicted = tagger(rng, sentences, accuracy)
    per_class = [class_counts(spans, mine) for (_, spans), mine in zip(sentences, predicted)]
    return predicted, per_class


def test_micro_f1_equals_seqeval_and_scikit_learn_on_the_same_entities():
    rng = np.random.default_rng(30)
    for n, accuracy in ((40, 0.7), (200, 0.4), (25, 1.0), (60, 0.0)):
        sentences = gold_sentences(rng, n)
        predicted, per_class = one_model(rng, sentences, accuracy)
        gold_tags = [bio(length, spans) for length, spans in sentences]
        predicted_tags = [bio(length, mine) for (length, _), mine in zip(sentences, predicted)]
        expected = seqeval_f1(gold_tags, predicted_tags, average="micro", zero_division=0)
        assert micro_f1().aggregate(total_counts(per_class)) == pytest.approx(expected, abs=1e-12)
        # scikit-learn: one row per entity named by either side, "in the gold" vs "predicted"
        named = sorted({(i, *e) for i, ((_, spans), mine) in enumerate(zip(sentences, predicted)) for e in spans + mine})
        gold_set = {(i, *e) for i, (_, spans) in enumerate(sentences) for e in spans}
        predicted_set = {(i, *e) for i, mine in enumerate(predicted) for e in mine}
        in_gold, in_predicted = [e in gold_set for e in named], [e in predicted_set for e in named]
        assert micro_f1().aggregate(total_counts(per_class)) == pytest.approx(
            f1_score(in_gold, in_predicted, zero_division=0), abs=1e-12)


def test_no_entities_on_either_side_score_zero_as_seqeval_does():
    assert micro_f1().aggregate(np.zeros((5, 3))) == 0.0 == seqeval_f1([["O"] * 3], [["O"] * 3], zero_division=0)


def ner_task_file(tmp_path, **declared):
    raw = {"benchmark": "NER", "categories": ["NER"], "tasks": [
        {"id": "poner", "abbreviation": "PONER", "short_name": "PoNER", "name": "PoNER", "category": "NER",
         "metric": "micro_f1", "dataset_url": "", **declared}]}
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(raw))
    return load_benchmark(path).tasks[0]


def test_micro_f1_without_misc_from_per_class_counts_equals_seqeval_with_misc_tags_removed(tmp_path):
    """EuroEval's micro_f1_no_misc: its seqeval run with MISC tags turned into O, here the
    per-class counts of the submission with the task's left-out class not counted."""
    task = ner_task_file(tmp_path, entity_classes=list(ENTITY_TYPES), left_out_classes=["MISC"])
    rng = np.random.default_rng(31)
    sentences = gold_sentences(rng, 150)
    predicted, per_class = one_model(rng, sentences, 0.6)
    items = [{"micro_f1": counts, "doc_id": i} for i, counts in enumerate(per_class)]
    samples = parse_task_samples(task, items, require_doc_ids=True).samples
    expected = seqeval_f1([bio(length, spans, ("MISC",)) for length, spans in sentences],
                          [bio(length, mine, ("MISC",)) for (length, _), mine in zip(sentences, predicted)],
                          zero_division=0)
    assert task.metric.aggregate(samples) == pytest.approx(expected, abs=1e-12)
    assert expected != pytest.approx(micro_f1().aggregate(total_counts(per_class)))  # MISC did count before


def slow_bootstrap_p(metric, a, b, statistic, seed):
    """The paired bootstrap done by hand: each resample's indices from the engine's seeded
    counts, the statistic recomputed from the resampled items, one resample at a time."""
    resampled = [np.repeat(np.arange(len(a)), row) for row in dt.resample_counts(len(a), seed).astype(int)]
    boot_a, boot_b = (np.array([statistic([s[i] for i in indices]) for indices in resampled]) for s in (a, b))
    delta = statistic(a) - statistic(b)
    return 1.0 if delta < 0 else float(np.mean(boot_a - boot_b > 2 * delta)), delta


def corpus_f1(counts):
    tp, fp, fn = np.sum(counts, axis=0) if len(counts) else (0, 0, 0)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def check_bootstrap_against_slow_loop(metric, a, bs, statistic, summarize_input=np.asarray):
    seed = 5
    sa = metric.summarize(summarize_input(a), seed)
    for b in bs:
        result = duel(metric, metric.aggregate(summarize_input(a)), sa[None],
                      metric.aggregate(summarize_input(b)), metric.summarize(summarize_input(b), seed)[None])
        p, delta = slow_bootstrap_p(metric, a, b, statistic, seed)
        assert result.delta[0] == pytest.approx(delta, abs=1e-12)
        assert result.p_value[0] == pytest.approx(p)


def test_micro_f1_bootstrap_matches_a_slow_loop_over_resamples():
    rng = np.random.default_rng(32)
    sentences = gold_sentences(rng, 50)
    a, *bs = (list(total_counts(one_model(rng, sentences, acc)[1])) for acc in (0.7, 0.4, 0.6, 0.7, 0.8))
    check_bootstrap_against_slow_loop(micro_f1(), a, bs, corpus_f1)


# --- characters: SQuAD's per-answer F1 over characters ---------------------------------------

@lru_cache(maxsize=None)  # the slow loop meets the same answers in every resample
def squad_char_f1(predicted: str, gold: str) -> float:
    """SQuAD v2's compute_f1 with characters for tokens: 1 or 0 when either is empty."""
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def char_counts(predicted: str, gold: str) -> list[int]:
    common = sum((Counter(predicted) & Counter(gold)).values())
    return [common, len(predicted) - common, len(gold) - common]


WORDS = ["Praha", "Brno", "1918", "Karel IV.", "Vltava", "devíti", "NetWare", "Masarykova univerzita", ""]


def answers(rng, golds, accuracy):
    return [gold if rng.random() < accuracy else WORDS[int(rng.integers(len(WORDS)))][: int(rng.integers(0, 12))]
            for gold in golds]


def test_char_f1_is_the_mean_of_squads_per_answer_f1_over_characters():
    rng = np.random.default_rng(33)
    golds = [WORDS[int(i)] or "Ostrava" for i in rng.integers(len(WORDS), size=300)]
    for accuracy in (0.0, 0.5, 0.9):
        predicted = answers(rng, golds, accuracy)
        counts = np.array([char_counts(p, g) for p, g in zip(predicted, golds)], dtype=float)
        expected = np.mean([squad_char_f1(p, g) for p, g in zip(predicted, golds)])
        assert char_f1().aggregate(counts) == pytest.approx(expected, abs=1e-12)
    assert char_f1().aggregate(np.zeros((3, 3))) == 1.0  # empty answer, empty gold: right, as in SQuAD


def test_char_f1_bootstrap_matches_a_slow_loop_over_resamples():
    rng = np.random.default_rng(34)
    golds = [WORDS[int(i)] or "Ostrava" for i in rng.integers(len(WORDS), size=60)]
    a, *bs = ([(p, g) for p, g in zip(answers(rng, golds, acc), golds)] for acc in (0.6, 0.3, 0.5, 0.6, 0.8))

    def statistic(pairs):
        return float(np.mean([squad_char_f1(p, g) for p, g in pairs]))

    def as_counts(pairs):
        return np.array([char_counts(p, g) for p, g in pairs], dtype=float)
    check_bootstrap_against_slow_loop(char_f1(), a, bs, statistic, as_counts)


# --- false winners between equal models -------------------------------------------------------

@pytest.mark.parametrize("metric, draw_pair", [("micro_f1", entity_counts), ("char_f1", character_counts)])
def test_false_positive_rate_between_equal_models_is_near_alpha(metric, draw_pair):
    metric, rng, wins, pairs = METRICS[metric], np.random.default_rng(35), 0, 400
    for k in range(pairs):
        a, b = draw_pair(rng)
        result = duel(metric, metric.aggregate(a), metric.summarize(a, k)[None],
                      metric.aggregate(b), metric.summarize(b, k)[None])
        wins += bool(result.significant[0])
    assert 0.02 <= wins / pairs <= 0.09  # alpha = 0.05; about 3 standard errors either side
