"""False winners between equal models, measured with the real duel engine (issue 20).

    python bench/bench_false_positives.py [--pairs 2000] [--seed 20] [--only NAME ...]

For each metric, pairs of models drawn from one distribution (equal models) are dueled
with `stats.duel` in both directions at alpha = 0.05, as the leaderboard does. Per metric
it reports the share of pairs where "A beats B" (the one-sided test's false-positive
rate, alpha by design) and where either side wins (two one-sided tests per pair: about
2 x alpha), each with its standard error. Seeded: the same numbers on every run.

The bootstrap metrics take their resamples from `resample_counts(n, seed)` like the
engine (one matrix per task); the pairs are spread over 20 such seeds, so the rate is
not that of one particular resample matrix. Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import METRICS, ClassProbs, LabelPairs, duel  # noqa: E402

ALPHA = 0.05
SEEDS = 20  # resample matrices the pairs are spread over


def labels(rng, n, classes=3, accuracy=0.6):
    gold = rng.integers(0, classes, n)

    def labeller():
        wrong = rng.integers(-1, classes, n)  # a wrong class, or -1: no valid answer
        return LabelPairs(gold, np.where(rng.random(n) < accuracy, gold, wrong), classes)
    return labeller(), labeller()


def probabilities(rng, n=300, classes=3, skill=1.0):
    gold = np.arange(n) % classes

    def classifier():
        logits = rng.normal(0, 1, (n, classes))
        logits[np.arange(n), gold] += skill
        return ClassProbs(gold, np.exp(logits) / np.exp(logits).sum(1, keepdims=True))
    return classifier(), classifier()


def perplexity(rng, n=200, nll=3.0):
    def model():
        words = rng.integers(5, 80, n).astype(float)
        return np.column_stack([-words * (nll + rng.normal(0, 0.3, n)), words])
    return model(), model()


def entity_counts(rng, n=200, found=0.6):
    """Counts [tp, fp, fn] of two equal taggers on n sentences: Poisson(1.5) gold entities,
    each found with probability `found`, Poisson(0.5) spurious ones."""
    gold = rng.poisson(1.5, n)

    def tagger():
        tp = rng.binomial(gold, found)
        return np.column_stack([tp, rng.poisson(0.5, n), gold - tp]).astype(float)
    return tagger(), tagger()


def character_counts(rng, n=200):
    """Character counts [common, predicted - common, gold - common] of two equal readers:
    gold answers of 3-15 characters, a Beta(2, 2) share of them in common, none for 30%."""
    gold = rng.integers(3, 16, n)

    def reader():
        common = np.where(rng.random(n) < 0.3, 0, np.round(rng.beta(2, 2, n) * gold))
        predicted = np.maximum(common, rng.integers(5, 21, n))
        return np.column_stack([common, predicted - common, gold - common]).astype(float)
    return reader(), reader()


# (name, metric, a pair of equal models' samples, what the samples are)
DESIGNS = [
    ("acc", "acc", lambda rng: tuple(rng.random((2, 300)) < 0.6), "300 items, both right with probability 0.6"),
    ("judge_score", "judge_score", lambda rng: tuple(rng.integers(1, 11, (2, 150)).astype(float)),
     "150 answers, scores uniform on 1-10"),
    ("word_perplexity", "word_perplexity", perplexity, "200 documents of 5-80 words, mean NLL 3.0 per word"),
    ("token_f1", "token_f1",
     lambda rng: tuple(np.where(rng.random((2, 200)) < 0.3, 0.0, rng.beta(4, 2, (2, 200)))),
     "200 answers, 30% scoring 0, else Beta(4, 2)"),
    ("avg_mcauroc", "avg_mcauroc", probabilities, "300 items, 3 classes, logit of the gold class + 1"),
    ("macro_f1 (n=200)", "macro_f1", lambda rng: labels(rng, 200), "200 items, 3 classes, accuracy 0.6"),
    ("mcc (n=200)", "mcc", lambda rng: labels(rng, 200), "200 items, 3 classes, accuracy 0.6"),
    ("macro_f1 (n=1000)", "macro_f1", lambda rng: labels(rng, 1000), "1000 items, 3 classes, accuracy 0.6"),
    ("mcc (n=1000)", "mcc", lambda rng: labels(rng, 1000), "1000 items, 3 classes, accuracy 0.6"),
    ("micro_f1 (n=200)", "micro_f1", entity_counts,
     "200 sentences, Poisson(1.5) entities each found with probability 0.6, Poisson(0.5) spurious"),
    ("micro_f1 (n=2048)", "micro_f1", lambda rng: entity_counts(rng, 2048), "the same, 2048 sentences (PoNER's test)"),
    ("char_f1", "char_f1", character_counts,
     "200 answers, gold 3-15 characters, a Beta(2, 2) share in common, none for 30%"),
]


def measure(metric_name: str, draw, pairs: int, seed: int) -> dict:
    """Duels of `pairs` equal pairs in both directions: the rates of "A beats B" and of a winner."""
    metric, rng = METRICS[metric_name], np.random.default_rng(seed)
    a_wins, any_wins = np.zeros(pairs, dtype=bool), np.zeros(pairs, dtype=bool)
    for block in np.array_split(np.arange(pairs), SEEDS):  # one resample matrix per block, as per task
        task_seed = seed * 1000 + int(block[0])
        drawn = [draw(rng) for _ in block]
        aggregate = np.array([[metric.aggregate(m) for m in pair] for pair in drawn])  # (P, 2)
        summary = np.stack([np.stack([metric.summarize(m, task_seed) for m in pair]) for pair in drawn])  # (P, 2, d)
        forward = duel(metric, aggregate[:, 0], summary[:, 0], aggregate[:, 1], summary[:, 1], ALPHA)
        backward = duel(metric, aggregate[:, 1], summary[:, 1], aggregate[:, 0], summary[:, 0], ALPHA)
        a_wins[block], any_wins[block] = forward.significant, forward.significant | backward.significant

    def rate(hits):
        share = float(hits.mean())
        return {"rate": share, "se": float(np.sqrt(share * (1 - share) / pairs))}
    return {"pairs": pairs, "a_beats_b": rate(a_wins), "either_wins": rate(any_wins)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only the designs of these metrics")
    args = parser.parse_args()
    results = {}
    for k, (name, metric, draw, design) in enumerate(DESIGNS):
        if args.only and metric not in args.only:
            continue
        results[name] = {"design": design, **measure(metric, draw, args.pairs, args.seed + k)}
        print(name, json.dumps(results[name]), file=sys.stderr, flush=True)
    print(json.dumps({"alpha": ALPHA, "results": results}, indent=1))


if __name__ == "__main__":
    main()
