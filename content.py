"""Text shown in the web app, made from the benchmark's tasks file: nothing here names a
benchmark; its own prose comes from the file's `description` and `about`."""
from __future__ import annotations

from leaderboard.config.tasks import PANEL, Benchmark
from leaderboard.storage.presubmissions import WINDOW_DAYS
from leaderboard.views.markdown import escape_markdown
from leaderboard.views.table import weights_note
from stats.duel_tests import N_RESAMPLES
from stats.evidence import CERTAINTY_RESAMPLES
from stats.metrics import SAMPLE_KINDS


def lifetime_text(seconds: float) -> str:
    """A lifetime for people: "45 seconds", "15 minutes", "2 hours"."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 2 * size:
            count = round(seconds / size)
            return f"{count} {unit}s"
    return f"{seconds:g} second{'s' * (seconds != 1)}"


# How each duel test decides, by the registry's `test_name`.
TEST_EXPLANATIONS = {
    "paired t-test": ("a one-sided t-test on the per-sample differences between A and B (its p is half the "
                      "two-sided paired t-test's when A's mean is higher)"),
    "paired bootstrap": (f"the test items are resampled {N_RESAMPLES} times (the same resamples for every "
                         f"model) and the metric recomputed on each; p is the share of resamples whose "
                         f"difference exceeds twice the observed one"),
    "paired Bayesian AUROC test": ("the test items are reweighted at random (Bayesian bootstrap) and p is the "
                                   "posterior probability that A's AUROC is not above B's; its closed form is "
                                   "DeLong's test extended to the average over classes"),
}

# Measured by bench/bench_ranking.py on tests/test_coverage.py's designs (bench/RESULTS.md,
# "The field ranking on simulated designs").
COVERAGE_TEXT = """What the intervals are worth, measured on simulated boards where the truth is known
(models of set abilities answering simulated test items of shared difficulty; the truth is the
score's expected value at these sample sizes, from 40 re-simulations, and its rank; eleven
designs of 90-240 models each, accuracy, token F1 and perplexity tasks): the 95% **score
interval** held the true score for 95.0-98.9% of the models in every design (a board of three
models: 96.1%, 87.8% before each interval was widened by half the smallest step its score can
take), with mean widths from 5.0 points (far-apart abilities) to 38.2 (a single task); the 95%
**rank interval** held the true rank for 94.5-98.9% in eight designs (mean widths 2.8-17.5 ranks),
and more than stated in two: 100% with 50 tasks on three boards (98.1% on twelve) and 99.7% on the
three-model board. Tiers of five exactly equal models are the third miss: each of a tie's ranks is
equally likely to be a member's (nothing but the draw orders equal models), and the rank interval
held it for 88.9%; two equal models shared a tie group in 86-90% of equal pairs (the target is
90%). The shown score and rank lay inside their own intervals for every model in every design.
Not measured yet under this rule: the shipped benchmarks' demo boards against a truth. Limits:
only the sampling of test items is resampled: which tasks make up the benchmark is not (the truth
is defined on these tasks); items of different tasks are taken as independent; AUROC is resampled
to first order (its influence values)."""

READ_ONLY = "This leaderboard is read-only: pre-submissions work, publishing is switched off."
PUBLISHED_BY_MAINTAINERS = ("Publishing from this page needs signing in with Hugging Face, which this server does not "
                            "offer: pre-submissions work, and the maintainers publish models with the command line "
                            "(`python -m leaderboard publish`).")
SIGN_IN_FIRST = ("**Sign in with Hugging Face** (the button below) to pre-submit and publish: a model is published "
                 "by an account, under its name or one of its organizations. Browsing the board needs no sign-in.")


def signed_in(username: str, teams: list[str]) -> str:
    """The note by the sign-in button once signed in (names already escaped)."""
    return (f"Signed in as **{username}**. You publish as this account, under its name or one of its "
            f"organizations: {', '.join(teams)}.")


def confirm(kept_seconds: float) -> str:
    """The question before publishing; the pre-submission is kept `kept_seconds`."""
    return ("**Publish this model?** It will appear on the public leaderboard and duel future "
            "submissions. This cannot be undone from the app. The pre-submission is kept for "
            f"{lifetime_text(kept_seconds)}: publish before then or pre-submit again.")

P_VALUES_INFO = ("BH-adjusted: each model's duel p-values are corrected for testing many at once "
                 "(Benjamini-Hochberg); duel verdicts and duel wins follow (under the original Win Score rule, "
                 "the ranking too). See About.")


def title(benchmark: Benchmark) -> str:
    return f"{benchmark.name} duel leaderboard"


def _plural(n: int, word: str, words: str = "") -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


def intro(benchmark: Benchmark) -> str:
    """The title and one line; the benchmark's description and the rule a click away ("How
    scoring works"): the first screen is the ranking's."""
    return f"""
# {escape_markdown(title(benchmark))}
{_in_one_line(benchmark)}

<details><summary>How scoring works</summary>

{benchmark.description}

{_ranked_by(benchmark)} Scores are in percent.
</details>
"""


def _in_one_line(benchmark: Benchmark) -> str:
    counts = f"{_plural(len(benchmark.tasks), 'task')} in {_plural(len(benchmark.categories), 'category', 'categories')}"
    if benchmark.opponents == PANEL:
        return f"{counts}; a model's score is the share of the other models it beats."
    return f"{counts}; a model's win score is the share of its duels it won."


def _ranked_by(benchmark: Benchmark) -> str:
    """The intro's sentence on what the board ranks by, by the benchmark's `opponents` rule."""
    tasks = _plural(len(benchmark.tasks), "task")
    if benchmark.opponents == PANEL:
        return (f"Models are ranked by their **score**: on each of the {tasks}, the share of the other published "
                f"models whose result a model beats (near-copies of one model count as one), averaged over each "
                f"category's tasks and then the categories. Every model also **duels** the same reference panel, "
                f"the {benchmark.top_opponents} best models, with a one-sided test (α = {benchmark.alpha:g}): its "
                f"**duel wins**, the share of the panel it beats significantly, stand beside the score as evidence.")
    return (f"Models are ranked by **duels**: on each of the {tasks} a model is tested against the top "
            f"{benchmark.top_opponents} published models that are not flagged at the time it is published, and its "
            f"**Win Score** is the share of duels it won with a statistically significant result (one-sided, "
            f"α = {benchmark.alpha:g}).")


def _weights(benchmark: Benchmark) -> str:
    return (f"so each category weighs the same and a task weighs 1/(C × k) of the overall score (C categories, "
            f"k tasks in its category): {weights_note(benchmark)}")


def _never_dueled(benchmark: Benchmark) -> str:
    if benchmark.opponents == PANEL:
        return "neither has been on the reference panel since both were published"
    return f"neither among the other's top {benchmark.top_opponents}"


def _flagged(benchmark: Benchmark) -> str:
    if benchmark.opponents == PANEL:
        return ("**Exclude flagged models** ranks without them. A flagged model counts for no one either way: it "
                "weighs nothing in the other models' scores and never sits on the reference panel (flagging a "
                "member brings the next model in, its missing duels run in the same commit); it is still scored "
                "itself.")
    return (f"**Exclude flagged models** ranks without them: every score is recomputed from the stored duels with "
            f"the duels against flagged models left out (no duel is run again). Otherwise its duels still count as "
            f"usual, but new submissions never duel a flagged model: they take the {benchmark.top_opponents} best "
            f"models that are not flagged.")


def _scores(benchmark: Benchmark) -> str:
    """About's paragraphs on what a score counts, by the `opponents` rule."""
    k = benchmark.top_opponents
    if benchmark.opponents != PANEL:
        return f"""**Scores.** Win Score on a task = duels won ÷ duels fought. A category's score is the mean
over its tasks; the overall score is the mean over categories, {_weights(benchmark)} Ties share a
rank. A new model duels the {k} best models at the time it is
submitted, passing over flagged ones; every duel is stored in both directions. (This is
BenCzechMark's original rule, kept by the tasks file's `"opponents": "top-of-its-day"`:
a rank depends on when a model was published, see the README.)"""
    return f"""**Scores.** A model's **score** on a task is the share of the other published models whose result
on the task its own beats (an equal result counts half). A category's score is the mean over its
tasks; the overall score is the mean over categories, {_weights(benchmark)}
- *Near-copies count as one model.* Two models are near-copies when their answers move together
  on resampled test items far beyond what shared item difficulty gives (the variance of their
  difference at most 0.2 of the sum of their variances, averaged over the tasks; 2% of answers
  changed gives 0.04-0.11, independent models 0.6-0.9, fine-tunes of one base 0.3-0.6). A family of
  near-copies counts in everyone else's score as one model, the member whose answers are nearest
  the others'. Flagged models count for no one; they are still scored themselves. The check
  compares a new model, at pre-submission and at publication, with the published models whose task
  scores are within 4 standard errors of its own on every task; the links found are kept with the
  publication.
- *Rank* = 1 + the families with a member above the model + the members of its own family above
  it: publishing copies of a model that is above yours moves you at most one place. Equal scores
  share a rank.
- *What follows:* the board is defined directly by the set of published models and their
  results, so there is one answer whatever the order of publication; turning wrong answers right
  never lowers a model's score or rank; and in simulations, one or two teams publishing 20
  near-copies of a strong, median or weak model moved no other model more than 2 places or 2
  points (each a test in the suite, see the README).

**The reference panel and duel wins.** Every model duels the same opponents, the **reference
panel**: the {k} best models by overall score, at most **one seat per family** of near-copies,
flagged models never. It is read off the scores, which count no duel, so it is found in one pass. A
model's **duel wins** on a task are the share of the panel's members (other than itself) that it
beats in a significant one-sided duel, averaged like the score: the table shows them beside the
score ("Overall duel wins %") as evidence; the board does not rank by them. When a model enters
the panel, every published model that has not dueled it does so, in the same commit as the
publication (or removal or flag) that brought it in; duels with models that have left the panel
stay stored but do not count. A pre-submission shows the board as it would be after publication, its
scores and ranks exactly (they depend on no duel); it runs the new model's duels with the panel, and
when the model would enter the panel, the other models' duels with it are the publication's (the page
runs them while you read the preview), so their duel wins in the preview do not count it yet.
- *Why not the original rule:* each new model dueled the top models *of the day it was published*
  and kept those duels, so a rank depended on the order of publication: in simulations (45
  models, 12 tasks, 20 opponents, each board published in two random orders) 40-58% of the
  models ended more than 2 places apart between the two orders.
- *Why not ranking by duels against the panel:* an earlier version ranked by Win Scores against
  a panel chosen as the best by those same Win Scores. Such a panel could be chosen in several
  ways, and 20 near-copies of one strong model took 15-17 of 20 seats and moved other models'
  scores by up to 45 points; ranking by the score above, with the panel read off it, has neither
  problem."""


def _certainty(benchmark: Benchmark) -> str:
    """About's section on the intervals and tie groups, by the `opponents` rule."""
    if benchmark.opponents != PANEL:
        return """**How certain is a rank?** Under this rule the table shows no intervals and no tie groups,
as the original leaderboard showed none: the board's intervals are computed for the score of
the default rule (the tasks file's `"opponents": "panel"`), not for the Win Score, and an
interval is only worth showing beside the number it is about."""
    return f"""**How certain is a rank?** Beside every score the table shows a **95% interval for the score**,
beside every rank a **95% interval for the rank**, and a **tie group** (A = the top group), for the
overall score and for each category, computed on the whole board (so search and filters never
move a model between groups):
- each task's test items are resampled {CERTAINTY_RESAMPLES} times, the same resamples for every model
  (models answer the same items, so their results move together); on each resample every
  model's score and rank are computed again, exactly as the board computes them;
- each interval is about the number beside it: the **score's expected value** at these sample
  sizes (what the board would show on average over fresh draws of test items like these) and its
  rank. The shown score and rank lie inside their own intervals for almost every model;
- each interval holds the resamples' middle, each end leaving out the share of them nearest to
  2.5%. A rank is a whole number and a model far from its neighbours takes one to three ranks
  over all resamples: an interval holding at least 95% of them would keep a rank that 3% take
  and cover far more than stated. An interval of one rank ("3") or one score means fewer than
  5% of the resamples put the model elsewhere on each side: the data pin it;
- tie groups go down the ranking: a model joins the current group when its rank interval
  meets the interval of every model already in it, else it starts the next group. Two models
  whose rank intervals are disjoint are never in one group;
- the duel wins have no interval: they are evidence about the panel, not what the board ranks by.

{COVERAGE_TEXT}"""


def _adjusted(benchmark: Benchmark) -> str:
    """About's paragraph on the p-value switch, by the `opponents` rule."""
    if benchmark.opponents != PANEL:
        return f"""**Raw or adjusted p-values.** A model's win scores count hundreds of duels at p ≤ {benchmark.alpha:g}, so
some wins are chance. The switch at the top applies the **Benjamini-Hochberg** correction
(`scipy.stats.false_discovery_control`) to each model's p-values, with **one family per
model: all its duels on all tasks** ("this model is better than that one on this task").
Significance, win scores, ranks, the duel views and every download are then recomputed from
the adjusted p-values, which keeps the expected share of false wins among each model's wins at
{benchmark.alpha:.0%}. Duels whose p-value was not stored (imported from the original leaderboard with
only a verdict) keep their verdict. The Parquet snapshot holds the raw ranking."""
    return f"""**Raw or adjusted p-values.** A model's duel wins count many duels at p ≤ {benchmark.alpha:g}, so some
wins are chance. The switch at the top applies the **Benjamini-Hochberg** correction
(`scipy.stats.false_discovery_control`) to each model's p-values in two families: its duels
against the reference panel on all tasks, and its other stored duels (which other duels are
stored depends on the order of publication, so they never share a family with the panel's).
Verdicts, duel wins, the duel views and every download's duel columns are then recomputed,
which keeps the expected share of false wins among a model's wins against the panel at
{benchmark.alpha:.0%}. The scores, ranks, intervals and tie groups count no duel: the switch changes duel
wins and verdicts, never the ranking. Duels whose p-value was not stored (imported from the
original leaderboard with only a verdict) keep their verdict. The Parquet snapshot holds the
raw duel wins."""


def submission_help(benchmark: Benchmark) -> str:
    return f"""
### Submit a model
Upload either a **.zip of your lm-evaluation-harness output folders** (run with
`--log_samples`; compiled here, and the form is filled in from the logs) or one JSON
submission file with per-sample results for all {_plural(len(benchmark.tasks), "task")} (see *About*).
**Pre-submit** shows where the model would rank, in seconds; the pre-submission is
recorded (who, when, a hash of the file and the would-be rank: see *About*), the model
is not published until you confirm **Publish**.
"""


def _metrics_used(benchmark: Benchmark) -> dict:
    """Each metric the benchmark uses -> the number of its tasks, in first-use order."""
    used = {}
    for task in benchmark.tasks:
        used[task.metric] = used.get(task.metric, 0) + 1
    return used


def _harness_versions(benchmark: Benchmark) -> str:
    """Which lm-evaluation-harness task version each task accepts, when the tasks file pins
    them (`harness_versions`): a task's meaning can change between versions."""
    pinned = [f"{t.short_name} version {' or '.join(t.harness_versions)}" for t in benchmark.tasks
              if t.harness_versions]
    if not pinned:
        return ""
    return (f"\n**Harness task versions.** compile accepts these versions of the harness's tasks (the `versions` "
            f"of results_*.json) and refuses a run of another: {', '.join(pinned)}.\n")


def about(benchmark: Benchmark, address: str) -> str:
    """The About tab; `address` is this server's as the reader reached it (the API example's)."""
    used = _metrics_used(benchmark)
    metrics = "\n".join(
        f"- **{m.display_name}** (`{m.name}`, {_plural(n, 'task')}, {'higher' if m.higher_is_better else 'lower'} "
        f"is better): per sample {SAMPLE_KINDS[m.sample_kind]}; duels: {m.test_name}." for m, n in used.items())
    tests = "\n".join(f"- **{name}**: {TEST_EXPLANATIONS[name]}."
                      for name in dict.fromkeys(m.test_name for m in used))
    return f"""
## How the leaderboard works

**Tasks and metrics.** {escape_markdown(benchmark.name)} has {_plural(len(benchmark.tasks), "task")} in
{_plural(len(benchmark.categories), "category", "categories")}. Each task has one
metric, computed from the per-sample values of the submitted file (the Leaderboard tab's
legend lists each category's tasks, their data and declared label sets or score ranges):
{metrics}
{_harness_versions(benchmark)}
**Duels.** Model A beats model B on a task when a one-sided test of "A is better than B"
gives p ≤ {benchmark.alpha:g}. When A's score is worse than B's, no test is run and A does not win.
Identical results never win. Every random draw is seeded, so a duel gives the same p-value
on every run. The tests:
{tests}

**One-sided p-values, and winners between equal models.** Every duel p-value on the page,
in the downloads and in the API is one-sided ("A is better than B"; the columns say
`one-sided`). Each pair is tested in both directions, each at α = {benchmark.alpha:g}, so
two equal models get a winner about {2 * benchmark.alpha:.0%} of the time (2 × α: either
side may win by chance; measured with the duel engine in the README, *The statistics*).
The Head-to-head tab also gives each task a **two-sided p** = 2 × the smaller one-sided p,
capped at 1: for the t-tests and the AUROC test this is exactly their two-sided test; for
the bootstrap metrics it is the usual doubling of the one-sided bootstrap p.

{_scores(benchmark)}

**Flags (⚑).** The maintainers can flag a published model, for instance when its test data
leaked into its training data, with a reason and a link to the evidence. A flagged model
stays on the board, marked ⚑ with its reason (in the note above the table, on hover and in
its details, in the CSV/JSON downloads and in the dataset's `leaderboard.parquet`).
{_flagged(benchmark)}

**Disclosed pre-submissions.** A pre-submission shows where a model would rank before
anything is published, which makes it easy to try many variants in private and publish
only the one that happened to rank best. Every score carries noise, so the best of many
tries is lucky as well as good, and a board where some teams do this and others do not
ranks the lucky above the good. *The Leaderboard Illusion* (2025,
arXiv 2504.20879) found this pattern, private testing followed by selective disclosure,
inflating scores on LMArena (Chatbot Arena). This board does not forbid it; it makes
it visible. Every pre-submission made on this page is recorded in the leaderboard's
dataset: who made it (the signed-in account, or "anonymous" with a hash of the address),
when, a hash of the uploaded file and the rank it would have had, never its predictions
or scores. Each model's details then show how many pre-submissions its account (for a
model published without sign-in: its team name, which anyone can type) made in the
{WINDOW_DAYS} days before publishing, and the range of their would-be ranks; the
Leaderboard tab's *Columns* can show the same as a column. A model published after one
pre-submission was not picked from many; one published after twenty, all ranking 8-15,
may owe part of its rank to the pick. Pre-submissions are limited per hour (per account,
or per address without sign-in) and per account per day; the page says when to retry.
Pre-submissions from the command line are the maintainers' and are not recorded.

{_certainty(benchmark)}

{_adjusted(benchmark)}

**Head-to-head and the duel map.** Pick two models: per task, each side's metric value,
**Δ**, how much better A is than B, as in the Details tab (positive = A better, in the task's
unit: percentage points for percentages, else the metric's own: perplexity, judge points;
for perplexity B's value minus A's), with the side whose value is better, both one-sided p-values, the two-sided p and who wins
significantly; the count per category; and a **sign test** over the tasks (the binomial
test at ½, as `scipy.stats.binomtest`): is one model better on more tasks than a coin
would give? It names A or B as ahead when its two-sided p is at most α (so equal models
get a leader at most α of the time) and shows both one-sided p's. The chart draws one
panel per unit, never two units on one axis, each bar pointing right when A is better
(for perplexity it plots B − A). Two models that never dueled ({_never_dueled(benchmark)}) are dueled on the
spot from the stored results; those duels are shown but never stored or scored; with
adjusted p-values they are corrected within each model's stored duels plus this pair's.
The **duel map** shows every pair on a task or category in rank order: won, lost, not
separable, or never dueled.

## Public API
The board can be read by programs through Gradio's API (read only: pre-submitting and
publishing are not API endpoints; use the page or the command line for those). Every
endpoint takes `adjusted` (bool, default false): true judges the duels by
Benjamini-Hochberg adjusted p-values, as the page's *BH-adjusted* setting.

| endpoint | parameters | returns |
| --- | --- | --- |
| `/leaderboard_table` | `category` (`"Overall"` or a category name, default Overall), `values` (`"win_score"` for the scores, as the Leaderboard tab's *Score*, or `"metric"` for each task's own metric in a category), `exclude_flagged` (bool, default false), `adjusted` | the ranked table as on the Leaderboard tab: a list of records, best first, with `submission_id`, the rank and its 95% interval, the tie group, `Model`, scores in percent, metadata, `Pre-submissions (30 days)`, `Flagged`, `Flag reason`, `Flag link` |
| `/model_details` | `submission_id`, `category` (default Overall), `adjusted` | one model: `title`, `metadata`, `rank` of `models`, `overall`, `categories` and `tasks` scores in percent (Win Scores under top-of-its-day), `metric_values`, `flag` (reason, link, flagged_at, or null), `presubmissions` (disclosed from the 30 days before publication: `by` account or team, `count`, `best_rank`, `worst_rank`, `fewest_models`, `most_models`), `duels` in the category (per competitor and task: `Result`, `p one-sided (this model better)`, `p one-sided (competitor better)`, `Δ` = this model better by, in the task's unit) |
| `/head_to_head` | `model_a`, `model_b` (submission ids), `category` (default Overall), `adjusted` | as the Head-to-head tab: `tasks` (per task both metric values, `Better when` (higher or lower), `A − B` and its `Δ unit`, `Better` (A, B or equal), `A better by`, `p one-sided (A better)`, `p one-sided (B better)`, `p two-sided`, `Verdict`), `record` per category and Total, the sign test (`ahead`, `behind`, `sign_p_two_sided`, `sign_p_a_ahead` and `sign_p_b_ahead` one-sided, `sign_leader`: A, B or empty), `on_demand` (true: the two never dueled; the duels were run for this answer) |
| `/duel_map` | `scope` (Overall, a category or a task id), `top` (the best models on the scope, 1-200, default 50), `adjusted` | the heatmap's data: `model_ids` in the scope's rank order and `cells`, one per ordered pair: `Verdict` (won, lost, not separable, not dueled), tasks won / lost / not separable, and on a task `p one-sided (model better)`, `p one-sided (opponent better)`, `Δ` |
| `/report_card` | none (it does not depend on the duels' significance) | as the Report card tab: `benchmark`, `shape`, `matrix_file` and its `matrix_sha256` (the card's models x tasks CSV), `item_matrices` (per task, what a value of its models x items matrix is), `scopes` (per scope: `models`, `could_be_first`, `could_be_last`, `tiers`, `largest_unseparated`, `established_percent`, `median_set_width`, `top_k`, `top_k_bits`; null while computed after a publication), `overall_models` (per model: the score's and rank's 95% intervals on these tasks and with tasks drawn too, the simultaneous rank set, the tier), `tasks` (per 0/1 task: `discordance`, `discordance_top`), `definitions`, `model_definitions`, `task_definitions`, `not_on_this_card`, `provenance` |
| `/item_matrix` | `task_id` (a task with a value per item: accuracy, exact match, AUROC, judge score) | one task's models x items matrix as a CSV file: a row per model in rank order (`submission_id` first), a column per item named by its document id, each value what the task's figures are computed from (`item_matrices` in `/report_card` says what); the file's SHA-256 is its folder's name |

A bad argument (a wrong type, text over 500 characters, a number out of range, an unknown
category, scope or model) gets an error naming the parameter.

```python
from gradio_client import Client

client = Client("{address}")
rows = client.predict(category="{benchmark.categories[0]}", exclude_flagged=True, api_name="/leaderboard_table")
a, b = rows[0]["submission_id"], rows[1]["submission_id"]
pair = client.predict(model_a=a, model_b=b, api_name="/head_to_head")
print(pair["record"][-1], pair["sign_leader"], pair["sign_p_two_sided"])
```

## The submission file
One JSON object:
```
{{
  "predictions": {{"<task>": [{{"<metric>": <value>, "doc_id": <int>}}, ...], ...}},
  "results":     {{"<task>": {{"<metric>": <aggregate>}}, ...}},
  "metadata":    {{...}}
}}
```
Every task of the benchmark must be present, with the same samples (`doc_id`s, and gold
labels where there are any) in the same order as the published submissions. If the
file's `results` disagree with the per-sample values, you get a warning and the values
from the samples count. The Submit tab offers a valid sample file. You do not write
the file by hand: the leaderboard compiles it from the harness's logs (below).

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
   its duels with the panel run and you see the would-be ranking; the page records the pre-submission
   (who, when, a hash of the file, the would-be rank), nothing else is stored.
4. **Publish** after checking it. The model details then show how the model was
   evaluated, so readers can tell whether two models were evaluated the same way.

{benchmark.about}
"""
