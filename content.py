"""Text shown in the web app."""

TITLE = "BenCzechMark duel leaderboard"

INTRO = """
# BenCzechMark duel leaderboard
Models are ranked by **duels**: on each of the 50 tasks a model is tested against the top
50 published models that are not flagged, and its **Win Score** is the share of duels it won with a
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
submitted, passing over flagged ones; every duel is stored in both directions.

**Flags (⚑).** The maintainers can flag a published model, for instance when its test data
leaked into its training data, with a reason and a link to the evidence. A flagged model
stays on the board, marked ⚑ with its reason (in the note above the table, on hover and in
its details, in the CSV/JSON downloads and in the dataset's `leaderboard.parquet`), and its
duels still count as usual. **Exclude flagged models** ranks without them: every score is
recomputed from the stored duels with the duels against flagged models left out (no duel is
run again). New submissions never duel a flagged model: they take the 50 best models that
are not flagged.

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

## Public API
The board can be read by programs through Gradio's API (read only: pre-submitting and
publishing are not API endpoints; use the page or the command line for those).

| endpoint | parameters | returns |
| --- | --- | --- |
| `/leaderboard_table` | `category` (`"Overall"` or a category name, default Overall), `values` (`"win_score"`, or `"metric"` for each task's own metric in a category), `exclude_flagged` (bool, default false) | the ranked table as on the Leaderboard tab: a list of records, best first, with `submission_id`, the rank, `Model`, scores in percent, metadata, `Flagged`, `Flag reason`, `Flag link` |
| `/model_details` | `submission_id`, `category` (default Overall) | one model: `title`, `metadata`, `rank` of `models`, `overall`, `categories` and `tasks` win scores in percent, `metric_values`, `flag` (reason, link, flagged_at, or null), `duels` in the category (per competitor and task: `Result`, both p-values, `Δ` in the task's unit) |

Head-to-head and heatmap data will follow. A bad argument (an unknown category or model)
gets an error with its message.

```python
from gradio_client import Client

client = Client("https://<this space's address>/")
rows = client.predict(category="NER", exclude_flagged=True, api_name="/leaderboard_table")
best = client.predict(submission_id=rows[0]["submission_id"], api_name="/model_details")
print(best["title"], best["overall"], best["flag"])
```

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
