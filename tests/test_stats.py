"""The duel tests against independent computations, on seeded synthetic data."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from sklearn.metrics import f1_score, matthews_corrcoef, roc_auc_score, roc_curve

import stats
from stats import METRICS, ClassProbs, LabelPairs, duel
from stats import duel_tests as dt
from stats.metrics import REFERENCE_AUROC, resampled_means
from stats.registry import Registry
from stats_samples import binary_models, classifier, f1_counts, labeller, perplexity_samples, samples_of
from support.auroc_monte_carlo import auc_posterior_draws, auroc_difference_draws, bayes_auroc_monte_carlo

ROOT = Path(__file__).resolve().parent.parent

ACC = METRICS["acc"]
PPL = METRICS["word_perplexity"]
ROUGE = METRICS["rouge_raw_r2_mid_f"]
AUROC = METRICS["avg_mcauroc"]
MACRO_F1, MCC, JUDGE = METRICS["macro_f1"], METRICS["mcc"], METRICS["judge_score"]


def duel_one_vs_many(metric, a, bs, seed=7):
    sa = metric.summarize(a, seed)
    sb = np.stack([metric.summarize(b, seed) for b in bs])
    return duel(metric, metric.aggregate(a), sa[None], np.array([metric.aggregate(b) for b in bs]), sb)


# --- paired t-test ------------------------------------------------------------------------

def test_ttest_matches_scipy_pair_by_pair():
    rng = np.random.default_rng(1)
    a = binary_models(rng, 400, [0.62])[0]
    bs = binary_models(rng, 400, [0.50, 0.55, 0.58, 0.60, 0.61, 0.70])
    result = duel_one_vs_many(ACC, a, bs)
    for b, p, d in zip(bs, result.p_value, result.delta):
        if a.mean() < b.mean():
            assert p == 1.0
        else:
            two_sided = sps.ttest_rel(a, b).pvalue
            assert p == pytest.approx(two_sided / 2, rel=1e-10)  # the reference's "half the two-sided p"
        assert d == pytest.approx(a.mean() - b.mean())
    assert result.significant.tolist() == (result.p_value <= 0.05).tolist()


def test_ttest_always_better_by_a_constant_is_significant():
    a, b = np.ones(50), np.zeros(50)
    result = duel(ACC, 1.0, a[None], 0.0, b[None])
    assert result.significant[0] and result.p_value[0] == 0.0


def test_ttest_with_zero_variance_differences_matches_scipy():
    # equal means: NaN (the duel is not significant); a constant lead: 0; a constant deficit: 1
    for a, b in [(np.ones(30), np.ones(30)), (np.ones(30), np.zeros(30)), (np.zeros(30), np.ones(30))]:
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = sps.ttest_rel(a, b, alternative="greater").pvalue
        assert np.array_equal(dt.paired_ttest(a, b), expected, equal_nan=True)


def test_binary_ttest_from_counts_matches_scipy_and_the_general_test():
    # the accuracy test computes the t statistic from counts: the same p-values as scipy's
    # paired t-test and the general one, zero-variance cases and identical pairs included
    rng = np.random.default_rng(11)
    a = binary_models(rng, 300, [0.6])
    bs = np.vstack([binary_models(rng, 300, [0.5, 0.6, 0.65]), a, np.ones((1, 300)), np.zeros((1, 300))])
    for first, second in ((a, bs), (bs, a)):  # one model against many: a matrix-vector product
        p = dt.binary_paired_ttest(first, second)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = sps.ttest_rel(np.broadcast_to(first, bs.shape), np.broadcast_to(second, bs.shape), axis=-1,
                                     alternative="greater").pvalue
        np.testing.assert_allclose(p, expected, rtol=1e-10)
        np.testing.assert_allclose(p, dt.paired_ttest(first, second), rtol=1e-10)
        assert np.array_equal(np.isnan(p), np.isnan(expected))  # the identical pair (equal means, no variance)
    for x, y in [(np.ones(30), np.ones(30)), (np.ones(30), np.zeros(30)), (np.zeros(30), np.ones(30)),
                 (np.ones(1), np.zeros(1))]:
        with np.errstate(divide="ignore", invalid="ignore"):
            assert np.array_equal(dt.binary_paired_ttest(x, y), dt.paired_ttest(x, y), equal_nan=True)
    pairs = bs[:, None, :], bs[None, :, :]  # every pair at once: the broadcast product
    identical = dt.binary_paired_ttest_both_ways(*pairs)[2]
    np.testing.assert_array_equal(identical, np.all(pairs[0] == pairs[1], axis=-1))


@pytest.mark.parametrize("name", sorted(METRICS))
def test_a_duel_both_ways_equals_two_duels_to_the_last_bit(name):
    # one model against many, both directions in one call (a backfill's duels), is the two
    # one-way duels; every pair kind: better, worse, identical, equal score
    metric, rng = METRICS[name], np.random.default_rng(12)
    kind = metric.sample_kind
    samples = []
    for skill in (0.0, 0.3, 0.6, 0.6):
        if kind == "binary":
            samples.append((rng.random(80) < 0.5 + skill / 2).astype(float))
        elif kind in ("unit_interval", "judge"):
            samples.append(np.clip(rng.random(80) + skill, 0, 1))
        elif kind == "loglik_words":
            samples.append(perplexity_samples(rng, 80, 3.0 - skill))
        elif kind == "gold_probs":
            gold = rng.integers(0, 3, 80)
            samples.append(ClassProbs(gold, classifier(rng, gold, 3, 1.0 + skill)))
        elif kind == "tp_fp_fn":
            samples.append(f1_counts(rng, 80, 0.4 + skill / 2))
        else:
            gold = rng.integers(0, 3, 80)
            right = rng.random(80) < 0.4 + skill / 2
            samples.append(LabelPairs(gold, np.where(right, gold, rng.integers(0, 3, 80)), 3))
    samples.append(samples[1])  # identical to one of the others
    summaries = np.stack([metric.summarize(s, 5) for s in samples])
    aggregates = np.array([metric.aggregate(s) for s in samples])
    forward, backward = stats.duel_both_ways(metric, aggregates[1], summaries[1][None], aggregates, summaries)
    alone = duel(metric, aggregates[1], summaries[1][None], aggregates, summaries)
    back = duel(metric, aggregates, summaries, aggregates[1], summaries[1][None])
    for mine, theirs in ((forward, alone), (backward, back)):
        assert np.array_equal(mine.p_value, theirs.p_value) and np.array_equal(mine.delta, theirs.delta)
        assert np.array_equal(np.signbit(mine.delta), np.signbit(theirs.delta))
    assert forward.p_value[1] == backward.p_value[1] == forward.p_value[4] == 1.0  # itself and its copy


# --- paired bootstrap -----------------------------------------------------------------------

def slow_bootstrap_p(a, b, statistic, seed, higher_is_better, n_resamples=1000):
    """The reference rule written plainly: resample indices, recompute both statistics."""
    n = len(a)
    idx = (np.random.default_rng(seed).integers(0, n, size=n_resamples * n).reshape(n_resamples, n))
    sign = 1 if higher_is_better else -1
    observed = sign * (statistic(a) - statistic(b))
    if observed < 0:
        return 1.0
    exceed = 0
    for r in range(n_resamples):
        exceed += sign * (statistic(a[idx[r]]) - statistic(b[idx[r]])) > 2 * observed
    return exceed / n_resamples


def ppl(s):
    return np.exp(-s[:, 0].sum() / s[:, 1].sum())


@pytest.mark.parametrize("nlls", [[3.0, 3.02, 3.05, 3.1, 2.9]])
def test_perplexity_bootstrap_matches_slow_implementation(nlls):
    rng = np.random.default_rng(2)
    a = perplexity_samples(rng, 150, 3.0)
    bs = [perplexity_samples(rng, 150, x) for x in nlls]
    result = duel_one_vs_many(PPL, a, bs, seed=11)
    for b, p, d in zip(bs, result.p_value, result.delta):
        assert p == pytest.approx(slow_bootstrap_p(a, b, ppl, 11, higher_is_better=False), abs=1e-12)
        assert d == pytest.approx(ppl(b) - ppl(a))  # lower perplexity is better
    assert 0 < result.p_value.min() < result.p_value.max() <= 1


def test_rouge_bootstrap_matches_slow_implementation():
    rng = np.random.default_rng(3)
    a = np.clip(rng.normal(0.30, 0.1, 120), 0, 1)
    bs = [np.clip(a + rng.normal(shift, 0.08, 120), 0, 1) for shift in (-0.03, -0.01, 0.0, 0.02)]
    result = duel_one_vs_many(ROUGE, a, bs, seed=5)
    for b, p in zip(bs, result.p_value):
        assert p == pytest.approx(slow_bootstrap_p(a, b, np.mean, 5, higher_is_better=True), abs=1e-12)


# --- Bayesian AUROC -------------------------------------------------------------------------

def test_roc_points_match_scikit_learn():
    rng = np.random.default_rng(4)
    for n in (30, 200, 1000):
        positive = rng.random(n) < 0.3
        score = np.round(rng.random(n) + positive * 0.3, 2)  # rounding makes ties
        fpr, tp, fn = dt.roc_points(positive, score)
        sk_fpr, sk_tpr, _ = roc_curve(positive, score)
        np.testing.assert_allclose(fpr, sk_fpr)
        np.testing.assert_allclose(tp / (tp + fn), sk_tpr)
        assert dt.trapezoid_weights(fpr) @ (tp / (tp + fn)) == pytest.approx(roc_auc_score(positive, score))


def test_aggregate_is_mean_one_vs_rest_auroc_of_scikit_learn():
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 4, 500)
    probs = np.round(classifier(rng, gold, 4, 1.0), 3)
    expected = np.mean([roc_auc_score(gold == c, probs[:, c]) for c in range(4)])
    assert AUROC.aggregate(ClassProbs(gold, probs)) == pytest.approx(expected)


def slow_posterior_draws(gold, probs, rng, n_draws):
    """The reference's sampling, plainly: per class, per draw, one Beta per ROC point."""
    per_class = []
    for c in range(probs.shape[1]):
        positive = gold == c
        fpr, tpr, _ = roc_curve(positive, probs[:, c])
        tp = np.round(tpr * positive.sum())
        fn = positive.sum() - tp
        draws = [np.trapezoid(rng.beta(tp + 1, fn + 1), fpr) for _ in range(n_draws)]
        per_class.append(draws)
    return np.mean(per_class, axis=0)


def test_posterior_moments_match_slow_sampling():
    rng = np.random.default_rng(6)
    gold = rng.integers(0, 3, 300)
    probs = classifier(rng, gold, 3, 1.2)
    mean, var = dt.auc_posterior_moments(gold, probs)
    draws = slow_posterior_draws(gold, probs, np.random.default_rng(0), 3000)
    assert mean == pytest.approx(draws.mean(), abs=4 * draws.std() / np.sqrt(3000))
    assert var == pytest.approx(draws.var(), rel=0.1)  # sampling error of a variance from 3000 draws: ~2.6%


def test_monte_carlo_p_is_share_of_pairs():
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.80, 0.01, (3, 200)), rng.normal(0.81, 0.01, (3, 200))
    brute = [np.mean(np.less_equal.outer(x, y)) for x, y in zip(a, b)]
    np.testing.assert_allclose(bayes_auroc_monte_carlo(a, b), brute)


def test_closed_form_agrees_with_seeded_monte_carlo():
    """P(AUC_A <= AUC_B) in closed form vs the reference's Monte-Carlo estimate."""
    rng = np.random.default_rng(8)
    gold = rng.integers(0, 3, 400)
    a = classifier(rng, gold, 3, 1.3)
    n_draws = 4000
    draws_a = auc_posterior_draws(gold, a, seed=1, n_draws=n_draws)
    for skill in (1.0, 1.15, 1.25, 1.3, 1.4):
        b = classifier(rng, gold, 3, skill)
        closed = dt.bayes_auroc_normal(dt.auc_posterior_moments(gold, a), dt.auc_posterior_moments(gold, b))
        mc = bayes_auroc_monte_carlo(draws_a, auc_posterior_draws(gold, b, seed=2, n_draws=n_draws))
        # standard error of the all-pairs estimate is below sqrt(p(1-p)/S) * sqrt(2)
        se = np.sqrt(2 * max(closed * (1 - closed), 1e-4) / n_draws)
        assert abs(closed - mc) < 4 * se + 0.005, (skill, closed, mc)


def slow_delong_variance(gold, pa, pb, c):
    """DeLong's variance of AUC_a - AUC_b for class c, with explicit pairwise kernels."""
    pos, neg = np.flatnonzero(gold == c), np.flatnonzero(gold != c)

    def kernels(p):
        diff = p[pos, c][:, None] - p[neg, c][None, :]
        return (diff > 0) + 0.5 * (diff == 0)

    ka, kb = kernels(pa), kernels(pb)
    v10 = ka.mean(1) - kb.mean(1)  # per positive
    v01 = ka.mean(0) - kb.mean(0)  # per negative
    return v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)


def test_paired_auroc_variance_is_delong_for_two_classes():
    rng = np.random.default_rng(9)
    gold = rng.integers(0, 2, 250)
    pa = np.round(classifier(rng, gold, 2, 1.2), 2)
    pb = np.round(classifier(rng, gold, 2, 1.0), 2)
    psi_a, psi_b = dt.auroc_influence(gold, pa), dt.auroc_influence(gold, pb)
    # with two classes both one-vs-rest curves carry the same information
    var = np.sum((psi_a - psi_b) ** 2)
    expected = np.mean([slow_delong_variance(gold, pa, pb, c) for c in (0, 1)])
    assert var == pytest.approx(expected, rel=1e-9)


def test_paired_auroc_agrees_with_seeded_bayesian_bootstrap():
    """Closed form vs the Monte-Carlo posterior of AUC_A - AUC_B (Dirichlet weights)."""
    rng = np.random.default_rng(10)
    gold = rng.integers(0, 3, 300)
    a = classifier(rng, gold, 3, 1.3)
    n_draws = 4000
    for skill in (1.0, 1.15, 1.25, 1.3):
        b = classifier(rng, gold, 3, skill)
        delta = dt.one_vs_rest_auroc(gold, a) - dt.one_vs_rest_auroc(gold, b)
        closed = dt.paired_auroc(dt.auroc_influence(gold, a), dt.auroc_influence(gold, b), delta)
        draws = auroc_difference_draws(gold, a, b, seed=3, n_draws=n_draws)
        assert draws.mean() == pytest.approx(delta, abs=4 * draws.std() / np.sqrt(n_draws))
        mc = np.mean(draws <= 0)
        se = np.sqrt(max(closed * (1 - closed), 1e-3) / n_draws)
        assert abs(closed - mc) < 4 * se + 0.01, (skill, closed, mc)


def test_auroc_duel_in_engine_uses_paired_test():
    rng = np.random.default_rng(9)
    gold = rng.integers(0, 2, 300)
    a = ClassProbs(gold, classifier(rng, gold, 2, 1.5))
    bs = [ClassProbs(gold, classifier(rng, gold, 2, s)) for s in (0.8, 1.2, 1.5, 2.0)]
    result = duel_one_vs_many(AUROC, a, bs)
    for b, p, d in zip(bs, result.p_value, result.delta):
        assert d == pytest.approx(AUROC.aggregate(a) - AUROC.aggregate(b))
        if d < 0:
            assert p == 1.0
        else:
            sd = np.sqrt(np.mean([slow_delong_variance(gold, a.probs, b.probs, c) for c in (0, 1)]))
            assert p == pytest.approx(sps.norm.sf(d / sd), rel=1e-6)


# --- properties every test must have ----------------------------------------------------------

@pytest.mark.parametrize("name", sorted(METRICS))
def test_identical_results_are_never_significant(name):
    metric = METRICS[name]
    s = samples_of(metric, np.random.default_rng(10))
    summary = metric.summarize(s, 3)
    result = duel(metric, metric.aggregate(s), summary[None], metric.aggregate(s), summary[None])
    assert result.p_value[0] == 1.0 and not result.significant[0]


REPRODUCED = """
import hashlib, json, sys
import numpy as np
sys.path.insert(0, "tests")
from stats_samples import samples_of
from leaderboard.engine.tournament import task_seed
from stats import METRICS, duel
out = {}
for name in sorted(METRICS):
    metric, seed = METRICS[name], task_seed("task_" + name)
    a, b = samples_of(metric, np.random.default_rng(11)), samples_of(metric, np.random.default_rng(12))
    summary_a, summary_b = metric.summarize(a, seed), metric.summarize(b, seed)
    better, worse = sorted(((a, summary_a), (b, summary_b)), key=lambda s: -metric.sign * metric.aggregate(s[0]))
    r = duel(metric, metric.aggregate(better[0]), better[1][None], metric.aggregate(worse[0]), worse[1][None])
    out[name] = [r.p_value[0].hex(), r.delta[0].hex(), hashlib.sha256(summary_a.tobytes()).hexdigest()]
print(json.dumps(out))
"""


def test_p_values_are_reproducible_across_processes():
    """The same duels in two fresh processes (no cached resampling matrix shared, string
    hashing seeded differently) give bit-identical p-values, deltas and summaries."""
    runs = [subprocess.run([sys.executable, "-c", REPRODUCED], cwd=ROOT, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONHASHSEED": str(hash_seed)}) for hash_seed in (1, 2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr[-2000:]
    first, second = (json.loads(r.stdout) for r in runs)
    assert sorted(first) == sorted(METRICS) and first == second
    assert any(0 < float.fromhex(p) < 1 for p, _, _ in first.values())  # real tests ran, not only p = 1


DRAWN = """
import hashlib, sys
import numpy as np
sys.path.insert(0, "tests")
from support.auroc_monte_carlo import auc_posterior_draws
classes = np.load(sys.argv[1])
print(hashlib.sha256(auc_posterior_draws(classes["gold"], classes["probs"], int(sys.argv[2])).tobytes()).hexdigest())
"""


def test_monte_carlo_draws_are_reproducible(tmp_path):
    """The draws of one seed in this process are the same in a fresh one (nothing taken from
    the process: its hash seed, its id, a generator's state), and a seed one apart draws others."""
    gold = np.arange(100) % 2
    probs = classifier(np.random.default_rng(0), gold, 2, 1.0)
    np.savez(tmp_path / "classes.npz", gold=gold, probs=probs)

    def drawn_in_a_fresh_process(seed: int) -> str:
        run = subprocess.run([sys.executable, "-c", DRAWN, str(tmp_path / "classes.npz"), str(seed)], cwd=ROOT,
                             capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONHASHSEED": "7"})
        assert run.returncode == 0, run.stderr[-2000:]
        return run.stdout.strip()

    here = hashlib.sha256(auc_posterior_draws(gold, probs, 3).tobytes()).hexdigest()
    assert drawn_in_a_fresh_process(3) == here
    assert drawn_in_a_fresh_process(4) != here


def false_positive_rate(metric, draw_pair, n_pairs, seed=12):
    rng = np.random.default_rng(seed)
    wins = 0
    for k in range(n_pairs):
        a, b = draw_pair(rng)
        r = duel(metric, metric.aggregate(a), metric.summarize(a, k)[None],
                 metric.aggregate(b), metric.summarize(b, k)[None])
        wins += bool(r.significant[0])
    return wins / n_pairs


def test_false_positive_rate_of_ttest_is_near_alpha():
    rate = false_positive_rate(ACC, lambda rng: binary_models(rng, 300, [0.6, 0.6]), 1000)
    assert 0.03 <= rate <= 0.07  # alpha = 0.05; 3.2 standard errors either side


def test_false_positive_rate_of_bootstrap_is_near_alpha():
    rate = false_positive_rate(PPL, lambda rng: (perplexity_samples(rng, 200, 3.0),
                                                 perplexity_samples(rng, 200, 3.0)), 600)
    assert 0.025 <= rate <= 0.075


def same_classifiers(rng):
    gold = np.arange(300) % 3
    return (ClassProbs(gold, classifier(rng, gold, 3, 1.0)), ClassProbs(gold, classifier(rng, gold, 3, 1.0)))


def test_false_positive_rate_of_auroc_test_is_near_alpha():
    assert 0.025 <= false_positive_rate(AUROC, same_classifiers, 800) <= 0.075


def test_reference_auroc_test_is_liberal():
    """Why the engine does not use the reference's test: independent Beta draws per
    ROC point shrink the posterior, so equal models 'win' far more often than alpha."""
    assert false_positive_rate(REFERENCE_AUROC, same_classifiers, 300) > 0.25


# --- macro-F1 and MCC from labels, judge scores ------------------------------------------------

def sklearn_macro_f1(gold, predicted):
    return f1_score(gold, predicted, average="macro", labels=np.unique(np.r_[gold, predicted[predicted >= 0]]))


@pytest.mark.parametrize("metric, direct", [(MACRO_F1, sklearn_macro_f1), (MCC, matthews_corrcoef)])
def test_label_metrics_match_scikit_learn(metric, direct):
    rng = np.random.default_rng(20)
    for k, n, accuracy in ((2, 50, 0.7), (3, 120, 0.5), (5, 300, 0.3), (4, 40, 0.0), (3, 30, 1.0)):
        s = labeller(rng, rng.integers(0, k, n), k, accuracy)
        assert metric.aggregate(s) == pytest.approx(direct(s.gold, s.predicted), abs=1e-12)


def test_mcc_of_a_single_predicted_class_is_zero():
    gold = np.arange(30) % 3
    assert MCC.aggregate(LabelPairs(gold, np.zeros(30, dtype=int), 3)) == 0.0


def table(gold, predicted):
    """The contingency table of the labels (no answer, -1, a label of its own, as in scikit-learn)."""
    labels = np.unique(np.r_[gold, predicted])
    return (gold[:, None, None] == labels[:, None]) & (predicted[:, None, None] == labels), labels


def macro_f1_by_definition(gold, predicted):
    """Mean over the labels seen (answers and gold, not -1) of 2 tp / (2 tp + fp + fn)."""
    counts, labels = table(gold, predicted)
    counts = counts.sum(axis=0)[labels >= 0][:, labels >= 0]
    tp = np.diag(counts)
    both = (gold[:, None] == labels[labels >= 0]).sum(0) + (predicted[:, None] == labels[labels >= 0]).sum(0)
    return np.mean(np.divide(2 * tp, both, out=np.zeros(len(tp)), where=both > 0))


def mcc_by_definition(gold, predicted):
    """Gorodkin's R_K: (c s - t.p) / sqrt((s^2 - p.p)(s^2 - t.t)), 0 when a side is constant."""
    counts = table(gold, predicted)[0].sum(axis=0)
    t, p, c, s = counts.sum(1), counts.sum(0), np.trace(counts), counts.sum()
    denominator = np.sqrt(float(s * s - p @ p) * float(s * s - t @ t))
    return (c * s - t @ p) / denominator if denominator else 0.0


@pytest.mark.parametrize("metric, direct, by_definition", [(MACRO_F1, sklearn_macro_f1, macro_f1_by_definition),
                                                           (MCC, matthews_corrcoef, mcc_by_definition)])
def test_label_bootstrap_matches_a_slow_loop_over_resamples(metric, direct, by_definition):
    """Each p-value equals the bootstrap done by hand: every resample's indices drawn from
    the same seeded counts, the metric recomputed from its definition one resample at a
    time; that computation is scikit-learn's on the first resamples of every model (all
    of them cost 5-7 ms of scikit-learn's checks each, 30 s for 5,000)."""
    rng = np.random.default_rng(21)
    gold = rng.integers(0, 3, 60)
    a, bs = labeller(rng, gold, 3, 0.7), [labeller(rng, gold, 3, acc) for acc in (0.4, 0.6, 0.7, 0.8)]
    result = duel_one_vs_many(metric, a, bs, seed=5)
    counts = dt.resample_counts(60, 5).astype(int)
    resampled = [np.repeat(np.arange(60), row) for row in counts]

    def boot(s):
        by_hand = np.array([by_definition(s.gold[i], s.predicted[i]) for i in resampled])
        np.testing.assert_allclose(by_hand[:40], [direct(s.gold[i], s.predicted[i]) for i in resampled[:40]],
                                   rtol=0, atol=1e-12)
        return by_hand
    boot_a = boot(a)
    for b, p, d in zip(bs, result.p_value, result.delta):
        assert d == pytest.approx(direct(a.gold, a.predicted) - direct(b.gold, b.predicted))
        expected = 1.0 if d < 0 else np.mean(boot_a - boot(b) > 2 * d)
        assert p == pytest.approx(expected)


def test_label_bootstrap_one_vs_many_equals_pair_by_pair():
    rng = np.random.default_rng(22)
    gold = rng.integers(0, 4, 500)
    a, bs = labeller(rng, gold, 4, 0.6), [labeller(rng, gold, 4, acc) for acc in np.linspace(0.4, 0.7, 8)]
    many = duel_one_vs_many(MACRO_F1, a, bs)
    for b, p in zip(bs, many.p_value):
        assert duel_one_vs_many(MACRO_F1, a, [b]).p_value[0] == p


def same_labellers(rng):
    gold = rng.integers(0, 3, 200)
    return labeller(rng, gold, 3, 0.6), labeller(rng, gold, 3, 0.6)


@pytest.mark.parametrize("metric", [MACRO_F1, MCC])
def test_false_positive_rate_of_label_bootstrap_is_near_alpha(metric):
    assert 0.02 <= false_positive_rate(metric, same_labellers, 500) <= 0.08


def test_judge_score_is_the_mean_tested_by_a_paired_t_test():
    rng = np.random.default_rng(23)
    a, bs = rng.integers(1, 11, 80).astype(float), rng.integers(1, 11, (5, 80)).astype(float)
    result = duel_one_vs_many(JUDGE, a, bs)
    for b, p, d in zip(bs, result.p_value, result.delta):
        assert d == pytest.approx(a.mean() - b.mean())
        assert p == (1.0 if d < 0 else pytest.approx(sps.ttest_rel(a, b, alternative="greater").pvalue))


def test_false_positive_rate_of_judge_scores_is_near_alpha():
    rate = false_positive_rate(JUDGE, lambda rng: rng.integers(1, 11, (2, 150)).astype(float), 800)
    assert 0.025 <= rate <= 0.075


def test_false_positive_rate_of_token_f1_and_chrf_bootstrap_is_near_alpha():
    """Per-sample scores in [0, 1] with many zeros (answers that share no token), both
    models from one distribution; chrF shares the test."""
    def draw(rng):
        return np.where(rng.random((2, 200)) < 0.3, 0.0, rng.beta(4, 2, (2, 200)))
    assert METRICS["chrf"].test is METRICS["token_f1"].test
    rate = false_positive_rate(METRICS["token_f1"], draw, 600)
    assert 0.025 <= rate <= 0.075


def test_two_one_sided_duels_give_equal_models_a_winner_about_twice_alpha():
    """What About and the README state: each pair is dueled in both directions at alpha, so
    two equal models get a winner (either side) about 2 x alpha of the time. 3000 equal
    pairs through `stats.duel`, both directions in one call each: 2 x 0.05 within 3 SE."""
    rng = np.random.default_rng(24)
    a, b = binary_models(rng, 300, [0.6, 0.6] * 3000).reshape(3000, 2, 300).transpose(1, 0, 2)
    forward = duel(ACC, a.mean(axis=1), a, b.mean(axis=1), b)
    backward = duel(ACC, b.mean(axis=1), b, a.mean(axis=1), a)
    rate = np.mean(forward.significant | backward.significant)
    assert not (forward.significant & backward.significant).any()
    assert abs(rate - 0.10) <= 3 * np.sqrt(0.10 * 0.90 / 3000), rate
    assert abs(np.mean(forward.significant) - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / 3000)


def test_alpha_decides_significance():
    a = np.r_[np.ones(30), np.zeros(10)]
    b = np.r_[np.zeros(6), np.ones(24), 1, np.zeros(9)]  # 6 samples better, 1 worse: p = 0.029
    p = duel(ACC, a.mean(), a[None], b.mean(), b[None]).p_value[0]
    assert 0.01 < p < 0.05
    assert duel(ACC, a.mean(), a[None], b.mean(), b[None], alpha=0.05).significant[0]
    assert not duel(ACC, a.mean(), a[None], b.mean(), b[None], alpha=0.01).significant[0]


def test_registering_a_metric_is_one_entry(monkeypatch):
    monkeypatch.setattr(stats.metrics, "METRICS", Registry("metric"))  # the test's metric leaves with it
    judge = stats.register(stats.Metric(name="judge_score_test", sample_kind="unit_interval", higher_is_better=True,
                                        aggregate=lambda s: float(np.mean(s)),
                                        summarize=lambda s, seed: np.asarray(s, float), test=dt.paired_ttest,
                                        test_name="paired t-test", replicates=resampled_means))
    assert list(stats.metrics.METRICS) == ["judge_score_test"]
    rng = np.random.default_rng(13)
    a, b = rng.random(200) * 0.5 + 0.4, rng.random(200) * 0.5
    r = duel(judge, a.mean(), a[None], b.mean(), b[None])
    assert r.significant[0] and r.delta[0] == pytest.approx(a.mean() - b.mean())


@pytest.mark.parametrize("n, seed, resamples", [(1, 4, 10), (60, 5, 200), (300, 7, 1000), (40, 3, 1500)])
def test_resample_counts_are_each_resample_s_draws_of_its_own_seeded_stream(n, seed, resamples):
    """Resample r counts how often each item is among draws r*n .. (r+1)*n - 1 of the task's
    seeded stream (NumPy's default generator), by a loop over resamples: so the counts of
    fewer resamples (the intervals' 200) are the first rows of the duels' 1,000, and stored
    bootstrap summaries stay reproducible whatever the cache holds."""
    draws = np.random.default_rng(seed).integers(0, n, size=resamples * n)
    by_loop = np.array([np.bincount(draws[r * n:(r + 1) * n], minlength=n) for r in range(resamples)])
    assert dt.resample_counts(n, seed, resamples).dtype == np.float32
    np.testing.assert_array_equal(dt.resample_counts(n, seed, resamples), by_loop)
