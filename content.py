"""Text shown in the web app, made from the benchmark's tasks file: nothing here names a
benchmark; its own prose comes from the file's `description` and `about`."""
from __future__ import annotations

from leaderboard.app.previews import lifetime_text
from leaderboard.config.tasks import PANEL, Benchmark
from leaderboard.storage.presubmissions import WINDOW_DAYS
from leaderboard.views.markdown import escape_markdown
from leaderboard.views.table import weights_note
from stats.duel_tests import N_RESAMPLES
from stats.evidence import CERTAINTY_RESAMPLES
from stats.metrics import SAMPLE_KINDS

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

# Measured as in bench/bench_coverage.py (bench/RESULTS.md, "Coverage of every design after the fix").
COVERAGE_TEXT = """What the intervals are worth, measured in simulations where the truth is known (models
with set abilities answering simulated items, dueled by the engine; 900-2,400 models per
design): the 95% **score interval** held the true panel score for 90.6-96.1% of the models in
every simulated design, with mean widths of 5.3 points (50 tasks, 30 models), 18.8 (3 one-task
categories), 21.4 (close abilities), 4.3 (far abilities), 9.9 (60 models, 20 in the panel)
and 32.2 (a single task); the 95% **rank interval** held the true panel rank (for a tie, its
best rank, as the board shows it) for 93.1-98.2%, with mean widths of 1.9, 6.1, 6.9, 1.6, 8.7
and 9.4 ranks. On the demo boards of the shipped benchmarks (30 boards of 40 models each,
truth from their set skills) the score interval held for 95.9% on CzechSuite (width 2.8
points) and 94.0% on BenCzechMark (50 tasks, width 1.7 points), the rank interval for 98.6%
and 99.0% (widths 1.4 and 0.8 ranks; 99.4% each with the percentile intervals used before):
their models are far apart, most ranks are pinned or take two or three values over the
draws, and an interval of whole ranks then covers more than 95%.
Two equally able models shared a tie group in 95% of 200 boards of 9 tasks, two
models 0.5 logit apart in none. Limits: only the sampling of test items is resampled:
which tasks make up the benchmark is not (the truth is defined on these tasks), nor which
models make up the panel; items of different tasks are taken as independent; AUROC is
resampled to first order (its influence values); the model of true values is normal, so a
board whose models differ in ways it does not describe can be covered less well (the
coverage above is the share over all models; the extremes of a board are covered somewhat
less, its middle more)."""

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

P_VALUES_INFO = ("BH-adjusted: each model's p-values over all its duels are corrected for testing many at once "
                 "(Benjamini-Hochberg); every score, rank, view and download follows. See About.")


def title(benchmark: Benchmark) -> str:
    return f"{benchmark.name} duel leaderboard"


def _plural(n: int, word: str, words: str = "") -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


def intro(benchmark: Benchmark) -> str:
    return f"""
# {escape_markdown(title(benchmark))}
{benchmark.description}

Models are ranked by **duels**: on each of the {_plural(len(benchmark.tasks), "task")} a model is tested
against {_opponents(benchmark)}, and its **Win Score** is
the share of duels it won with a statistically significant result (one-sided, α = {benchmark.alpha:g}). Scores are in percent.
"""


def _opponents(benchmark: Benchmark) -> str:
    """Whom a model's Win Score counts, by the benchmark's `opponents` rule."""
    if benchmark.opponents == PANEL:
        return (f"the same **reference panel** as every other model, the {benchmark.top_opponents} best "
                f"published models that are not flagged (see About)")
    return f"the top {benchmark.top_opponents} published models that are not flagged at the time it is published"


def _weights(benchmark: Benchmark) -> str:
    return (f"so each category weighs the same and a task weighs 1/(C × k) of the overall score (C categories, "
            f"k tasks in its category): {weights_note(benchmark)}")


def _never_dueled(benchmark: Benchmark) -> str:
    if benchmark.opponents == PANEL:
        return "neither has been on the reference panel since both were published"
    return f"neither among the other's top {benchmark.top_opponents}"


def _flagged(benchmark: Benchmark) -> str:
    if benchmark.opponents == PANEL:
        return ("A flagged model never sits on the reference panel, so duels against it count for no one; "
                "flagging a panel member brings the next model in (its missing duels run in the same commit).")
    return (f"Its duels still count as usual, but new submissions never duel a flagged model: they take the "
            f"{benchmark.top_opponents} best models that are not flagged.")


def _scores(benchmark: Benchmark) -> str:
    """About's paragraphs on whom the duels count against, by the `opponents` rule."""
    k = benchmark.top_opponents
    if benchmark.opponents != PANEL:
        return f"""**Scores.** Win Score on a task = duels won ÷ duels fought. A category's score is the mean
over its tasks; the overall score is the mean over categories, {_weights(benchmark)} Ties share a
rank. A new model duels the {k} best models at the time it is
submitted, passing over flagged ones; every duel is stored in both directions. (This is
BenCzechMark's original rule, kept by the tasks file's `"opponents": "top-of-its-day"`:
a rank depends on when a model was published, see the README.)"""
    return f"""**Scores.** Every model is measured against the same opponents, the **reference panel**:
the {k} best models of the board that are not flagged. Win Score on a task = the share of
the panel's members (other than the model itself) that it beats there. A category's score
is the mean over its tasks; the overall score is the mean over categories, {_weights(benchmark)}
Ties share a rank.

**The reference panel, and why.**
- *Why:* under the original rule each new model dueled the top models *of the day it was
  published*, and those duels were kept: a model published early met a weak board and
  kept its easy wins, one published late met only the strongest, so a rank depended on
  the order of publication. In simulations with known abilities (45 models, 12 tasks, 20
  opponents, each board published in two random orders) that rule left 40-58% of the
  models more than 2 places apart between the two orders, one by 20 places; with the
  panel every model gets the same rank in both.
- *What it is:* a **fixed point**, the {k} best models by the scores measured against the
  panel itself.
- *How it is found:* start from the {k} best by a Borda count of the models' own metric
  values (per task, the share of models a model's value beats; then means per category
  and overall, like Win Scores), score every model against that panel, take the {k}
  best, and repeat until a panel comes back. Ties go to the higher Borda count, then the
  smaller submission id.
- *Cycles:* the panels may come back in a cycle instead of settling (models at the border
  beating each other in a circle; the iteration ended so on 3 of 4 simulated boards, the
  panels differing by a few border members). Then the cycle's panel nearest to a fixed
  point is kept: most of its members among the {k} best by its own scores, then the one
  highest in the Borda order.
- *Why the order of publication changes nothing:* every step depends only on which models
  are published and on their duels, and a duel's verdict only on the pair.
- *Its duels:* when a model enters the panel, every published model that has not dueled it
  does so, in the same commit as the publication (or removal or flag) that brought it in;
  duels with models that have left the panel stay stored but do not count. A
  pre-submission shows the board as it would be after publication, panel changes
  included. Flagged models are never on the panel; their own scores are measured against it."""



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
its details, in the CSV/JSON downloads and in the dataset's `leaderboard.parquet`). **Exclude
flagged models** ranks without them: every score is recomputed from the stored duels with the
duels against flagged models left out (no duel is run again). {_flagged(benchmark)}

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

**How certain is a rank?** Beside every rank the table shows a **95% interval for the rank**,
one for the **panel score**, and a **tie group** (A = the top group), for the overall score and
for each category, computed on the whole board (so search and filters never move a model
between groups):
- the **panel** is the set of reference opponents: the {benchmark.top_opponents} best models that are not
  flagged. A model's **panel score** on a task is the share of the panel it is ahead of (its
  metric is better; an equal one counts half; itself left out), averaged over tasks and
  categories like the win score. It is what the win score would be with infinitely many test
  items like these, when every real difference is significant. The win score counts only
  significant wins, so it is lower, for close models much lower: the score interval is the
  panel score's, and the win score can lie below it;
- the intervals come from seeded **draws of each model's true metric values** given the
  samples (an empirical-Bayes model): each task's items are resampled {CERTAINTY_RESAMPLES} times, the
  same resamples for every model, which measures how far each model's metric can move with
  other items like these while keeping a model's duels correlated (they share the items);
  a model's true value on a task is drawn as its general level plus its level on the
  category plus its own effect on the task, each estimated from the board with the noise
  taken out (how much tasks differ, per category), so a task where the model looks unusual
  is pulled toward what its other tasks say. Metrics that measure one skill through
  different curves (perplexity, AUROC, exact match) are first put on their category's common
  scale by a rising curve (only where the bend is clear), which keeps each task's order of
  the models and stops a curve's bend from counting as task effects. Each draw gives every model its panel score and rank
  (equal scores share the best rank, as on the board); each interval holds the draws' middle,
  each end leaving out the share of the draws nearest to 2.5%. A rank is a whole number and
  a model far from its neighbours takes one to three ranks over all draws: the percentile
  interval holding at least 95% of the draws then keeps a rank that 3% of them take (holding
  100%), and on the shipped benchmarks' demo boards it held the true rank for 99.4% of
  the models, more than the stated 95%; leaving out the end ranks that hold less than 5% of
  the draws beyond the interval brings each tail nearest to 2.5% (on draws of distinct values
  5 of the 200 are left out at each end). The plain bootstrap of the scores (each
  resample deciding every close pair by its own coin flip) put close models' scores near
  the middle and its score intervals missed the truth for up to half the models. The rank
  interval is for the rank by panel score; the rank shown is by win score and can fall
  outside it, for a model whose differences are rarely significant;
- an interval of one rank ("3") or one score means the draws put the model elsewhere fewer
  than 5% of the time on each side (on the demo boards every one-rank interval held at least
  92.5% of its draws, 99% of them 95% or more): the data pin it, as happens when its
  neighbours are far apart on every task;
- tie groups go down the ranking: a model joins the current group when its rank interval
  meets the interval of every model already in it, else it starts the next group. Two models
  whose rank intervals are disjoint are never in one group. The intervals do not depend on
  the p-values; each p-value setting orders its own groups.

{COVERAGE_TEXT}

**Raw or adjusted p-values.** A model's win scores count hundreds of duels at p ≤ {benchmark.alpha:g}, so
some wins are chance. The switch at the top applies the **Benjamini-Hochberg** correction
(`scipy.stats.false_discovery_control`) to each model's p-values, with **one family per
model: all its duels on all tasks** ("this model is better than that one on this task").
Significance, win scores, ranks, tie groups, the duel views and every download are then
recomputed from the adjusted p-values, which keeps the expected share of false wins
among each model's wins at {benchmark.alpha:.0%}. Duels whose p-value was not stored (imported from the
original leaderboard with only a verdict) keep their verdict. The Parquet snapshot holds
the raw ranking.

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
| `/leaderboard_table` | `category` (`"Overall"` or a category name, default Overall), `values` (`"win_score"`, or `"metric"` for each task's own metric in a category), `exclude_flagged` (bool, default false), `adjusted` | the ranked table as on the Leaderboard tab: a list of records, best first, with `submission_id`, the rank and its 95% interval, the tie group, `Model`, scores in percent, metadata, `Pre-submissions (30 days)`, `Flagged`, `Flag reason`, `Flag link` |
| `/model_details` | `submission_id`, `category` (default Overall), `adjusted` | one model: `title`, `metadata`, `rank` of `models`, `overall`, `categories` and `tasks` win scores in percent, `metric_values`, `flag` (reason, link, flagged_at, or null), `presubmissions` (disclosed from the 30 days before publication: `by` account or team, `count`, `best_rank`, `worst_rank`, `fewest_models`, `most_models`), `duels` in the category (per competitor and task: `Result`, `p one-sided (this model better)`, `p one-sided (competitor better)`, `Δ` = this model better by, in the task's unit) |
| `/head_to_head` | `model_a`, `model_b` (submission ids), `category` (default Overall), `adjusted` | as the Head-to-head tab: `tasks` (per task both metric values, `Better when` (higher or lower), `A − B` and its `Δ unit`, `Better` (A, B or equal), `A better by`, `p one-sided (A better)`, `p one-sided (B better)`, `p two-sided`, `Verdict`), `record` per category and Total, the sign test (`ahead`, `behind`, `sign_p_two_sided`, `sign_p_a_ahead` and `sign_p_b_ahead` one-sided, `sign_leader`: A, B or empty), `on_demand` (true: the two never dueled; the duels were run for this answer) |
| `/duel_map` | `scope` (Overall, a category or a task id), `top` (the best models on the scope, 1-200, default 50), `adjusted` | the heatmap's data: `model_ids` in the scope's rank order and `cells`, one per ordered pair: `Verdict` (won, lost, not separable, not dueled), tasks won / lost / not separable, and on a task `p one-sided (model better)`, `p one-sided (opponent better)`, `Δ` |

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
   the duels run and you see the would-be ranking; the page records the pre-submission
   (who, when, a hash of the file, the would-be rank), nothing else is stored.
4. **Publish** after checking it. The model details then show how the model was
   evaluated, so readers can tell whether two models were evaluated the same way.

{benchmark.about}
"""
