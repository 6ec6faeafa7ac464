"""bench_web's figure for the page's first load against known truth: pairs of simulated
loads (the empty page's, the app's, right after it) whose true ratio is 2, the machine's
state shared by a pair and changing between pairs as on a shared machine."""
import numpy as np

from bench.bench_web import load_ratio

TRUE_RATIO = 2.0


def simulated_pairs(rng, n: int) -> tuple[list[float], list[float]]:
    machine = rng.lognormal(0, 0.2, n)  # what both loads of a pair meet
    return list(TRUE_RATIO * 0.55 * machine * rng.lognormal(0, 0.1, n)), list(0.55 * machine * rng.lognormal(0, 0.1, n))


def test_the_pairs_ratio_interval_covers_the_true_ratio_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    runs = 400
    covered = sum(low <= TRUE_RATIO <= high for low, high in
                  (load_ratio(*simulated_pairs(rng, 21))["pair_ratios_median_interval_95"] for _ in range(runs)))
    assert covered / runs >= 0.93  # 95% less 2.2 standard errors of 400 runs


def test_the_figures_are_those_of_a_slow_count():
    rng = np.random.default_rng(8)
    app, empty = simulated_pairs(rng, 12)
    figure = load_ratio(app, empty)
    ratios = sorted(a / e for a, e in zip(app[1:], empty[1:]))  # the first pair apart: a cold browser's
    assert figure["pairs_after_first"] == 11
    assert figure["median_of_pair_ratios"] == round(ratios[5], 2)
    assert figure["median_after_first"] == round(sorted(app[1:])[5] / sorted(empty[1:])[5], 2)
    assert figure["first"] == round(app[0] / empty[0], 2)
    # Below 6 pairs no interval reaches 95%: none is given rather than a wrong one.
    assert load_ratio(app[:6], empty[:6])["pair_ratios_median_interval_95"] is None
