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
Upload either a **.zip of your lm-evaluation-harness output folders** (run with
`--log_samples`; compiled here, and the form is filled in from the logs) or one JSON
submission file with per-sample results for all 50 tasks (see *About*).
**Pre-submit** shows where the model would rank, in seconds; nothing is stored until you
confirm **Publish**.
"""

READ_ONLY = "This leaderboard is read-only: pre-submissions work, publishing is switched off."

CONFIRM = ("**Publish this model?** It will appear on the public leaderboard and duel future "
           "submissions. This cannot be undone from the app.")

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
same samples in the same order as the published submissions. You do not write it by
hand: the leaderboard compiles it from the harness's logs (below).

## From the harness to the leaderboard
1. **Evaluate** with lm-evaluation-harness, keeping the per-sample logs:
   ```
   lm_eval --model hf --model_args pretrained=ORG/MODEL \\
     --tasks TASKS --output_path out/ --log_samples
   ```
   It writes `out/<model>/results_<date>.json` and one `samples_<task>_<date>.jsonl` per
   task. Several runs (e.g. task groups run separately) are fine; each task must be in
   one run.
2. **Compile**: zip the `out/` folder and upload the .zip in *Submit*, or on your machine:
   ```
   python -m leaderboard compile -i out/ -o submission.json
   ```
   For each task it keeps the best prompt variant by the task's metric (for perplexity,
   the lowest), that variant's per-sample values, the spread over the variants
   (`max_centered_variance`) and the harness's metadata (versions, few-shot, chat
   template, task hashes). Any problem (a task missing, a samples file missing, variants
   with different documents, a task in two runs, ...) is listed with its task and file.
3. **Pre-submit** in *Submit* (or `python -m leaderboard presubmit submission.json ...`):
   the duels run and you see the would-be ranking; nothing is stored.
4. **Publish** after checking it. The model details then show how the model was
   evaluated, so readers can tell whether two models were evaluated the same way.

## Citation
Fajcik et al., *BenCzechMark: A Czech-centric Multitask and Multimetric Benchmark for Large
Language Models with Duel Scoring Mechanism*, TACL 2025.
"""
