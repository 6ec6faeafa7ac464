"""Text shown in the web app."""

TITLE = "BenCzechMark duel leaderboard"

INTRO = """
# BenCzechMark duel leaderboard
Models are ranked by **duels**: on each of the 50 tasks a model is tested against the top
50 published models, and its **Win Score** is the share of duels it won with a
statistically significant result (one-tailed, α = 0.05). Scores are in percent.
"""

SUBMISSION_HELP = """
### Submit a model
Upload one JSON file with per-sample results for all 50 tasks (see *About* for the
format). **Pre-submit** shows where the model would rank, in seconds; nothing is stored
until you confirm **Publish**.
"""

READ_ONLY = "This leaderboard is read-only: pre-submissions work, publishing is switched off."

CONFIRM = ("**Publish this model?** It will appear on the public leaderboard and duel future "
           "submissions. This cannot be undone from the app.")

P_VALUES_INFO = ("BH-adjusted: each model's p-values over all its duels are corrected for testing many at once "
                 "(Benjamini-Hochberg); every score, rank, view and download follows. See About.")

ABOUT = """
## How the leaderboard works

**Tasks and metrics.** BenCzechMark has 50 tasks in 9 categories. Each task has one metric:
accuracy (`acc`, multiple choice) and exact match (`exact_match`, open answers) per sample
0 or 1; `avg_mcauroc` (classification: the mean over classes of one-vs-rest AUROC,
from per-sample class probabilities); `word_perplexity` (language modelling, lower is
better, from per-sample log-likelihoods and word counts).

**Duels.** Model A beats model B on a task when a one-tailed test of "A is better than B"
gives p ≤ 0.05. When A's score is worse than B's, no test is run and A does not win.
- accuracy and exact match: a paired t-test on the per-sample 0/1 results;
- perplexity (and ROUGE for older tasks): a paired bootstrap with 1000 resamples of the
  test items; p is the share of resamples whose difference exceeds twice the observed one;
- AUROC: a paired Bayesian test. The test items are reweighted at random (Bayesian
  bootstrap); p is the posterior probability that A's AUROC is not above B's. Its closed
  form is DeLong's test extended to the average over classes.

**Scores.** Win Score on a task = duels won ÷ duels fought. A category's score is the mean
over its tasks; the overall score is the mean over categories, so each category weighs
the same. Ties share a rank. A new model duels the 50 best models at the time it is
submitted; every duel is stored in both directions.

**How certain is a rank?** Beside every rank the table shows a **95% interval for the rank**,
one for the **score**, and a **tie group** (A = the top group), for the overall score and for
each category. They come from a seeded bootstrap over the tasks, computed on the whole
board (so search and filters never move a model between groups; each p-value setting has
its own):
- each model's task win scores spread around its category's mean; this spread is pooled
  over the categories with two or more tasks (scaled by √(k/(k−1)) for a category of k
  tasks so that it is not underestimated);
- 1000 resamples each redraw every category's tasks from that pool (the same draws for
  every model, so models with similar profiles move together) and recompute category and
  overall scores and ranks; the intervals run from the 2.5th to the 97.5th percentile;
- tie groups go down the ranking: the best model leads group A; a model joins the current
  group when its score interval reaches the leader's lower end, else it leads the next.

What it answers: how much the order depends on which tasks happen to be in the benchmark.
In simulations with BenCzechMark's 50 tasks in 9 categories, the overall interval covers
the true score (the score on many more tasks like these) in about 95% of cases, a
category's interval in about 92-94%. Limits: it assumes the tasks of a category are
interchangeable and spread alike in every category; it takes each task's win score as
exact (which opponents a model met, and the noise of each duel, are not resampled), and
tasks are treated as independent. Overlapping intervals are a cautious rule: two models
in one group may still differ; two models in different groups very likely do.

**Raw or adjusted p-values.** A model's win scores count hundreds of duels at p ≤ 0.05, so
some wins are chance. The switch at the top applies the **Benjamini-Hochberg** correction
(`scipy.stats.false_discovery_control`) to each model's p-values, with **one family per
model: all its duels on all tasks** ("this model is better than that one on this task").
Significance, win scores, ranks, intervals, the duel views and every download are then
recomputed from the adjusted p-values, which keeps the expected share of false wins
among each model's wins at 5%. Duels whose p-value was not stored (imported from the
original leaderboard with only a verdict) keep their verdict. The Parquet snapshot holds
the raw ranking.

**Head-to-head and the duel map.** Pick two models: per task, each side's metric value,
the difference Δ in the task's unit (percentage points, or perplexity), both one-tailed
p-values and who wins significantly; the count per category; and a **sign test** over the
tasks (`scipy.stats.binomtest`): is A's metric better on more tasks than a coin would
give? Two models that never dueled (neither among the other's top 50) are dueled on the
spot from the stored results; those duels are shown but never stored or scored; with
adjusted p-values they are corrected within each model's stored duels plus this pair's.
The **duel map** shows every pair on a task or category in rank order: won, lost, not
separable, or never dueled.

**What we changed from the original BenCzechMark leaderboard, and why**
- Identical results never win a duel (the original counted a NaN p-value as a win).
- Every random draw is seeded, so a duel gives the same p-value on every run.
- Files whose samples do not line up with the published ones (count, `doc_id` order,
  gold labels, class count) are refused instead of compared as if paired.
- The original AUROC test drew every point of the ROC curve independently, which made it
  claim significance for about half of the duels between equally good models. Our
  paired test keeps false wins at the promised 5%.
- Scores are computed from the per-sample values; if the file's `results` disagree,
  you get a warning.
- A pre-submission takes seconds instead of up to two hours.

## The submission file
One JSON object:
```
{
  "predictions": {"<task>": [{"<metric>": <value>, "doc_id": <int>}, ...], ...},
  "results":     {"<task>": {"<metric>": <aggregate>}, ...},
  "metadata":    {...}
}
```
Per-sample values: `acc` and `exact_match` 0 or 1; `avg_mcauroc` a pair
`[gold_class_index, [p_class0, p_class1, ...]]`; `word_perplexity` a pair
`[loglikelihood, number_of_words]`. Every task of the benchmark must be present, with the
same samples in the same order as the published submissions. The BenCzechMark
repository's compile script turns lm-evaluation-harness logs into this file, keeping the
best prompt per task.

## Citation
Fajcik et al., *BenCzechMark: A Czech-centric Multitask and Multimetric Benchmark for Large
Language Models with Duel Scoring Mechanism*, TACL 2025.
"""
