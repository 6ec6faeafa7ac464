"""Model details: the card, the per-category (or per-task) chart, the duels and their summary."""
from __future__ import annotations

import functools
import hashlib
import html
import json
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.engine import ranking
from leaderboard.board.state import Leaderboard
from leaderboard.storage.flags import MARKER
from leaderboard.storage.presubmissions import WINDOW_DAYS, Disclosure
from leaderboard.engine.tournament import Tournament
from leaderboard.views.markdown import escape_markdown, markdown_link
from leaderboard.config.tasks import TOP_OF_ITS_DAY, Benchmark
from leaderboard.strict_json import is_finite_number
from leaderboard.views.table import (META_COLUMNS, OVERALL, PUBLISHER, submitted_date, delta_scale, is_overall, p_phrase,
                                     parameters_text, percent, score_header)

WON, LOST, NOT_SIGNIFICANT = "won", "lost", "n.s."


def delta_explained(this: str, other: str) -> str:
    """What a duel's Δ is, as the Details and Head-to-head tabs both show it (the duels'
    stored delta: oriented, so that a win is positive whichever way the metric goes)."""
    return (f"**Δ** is how much better {this} is than {other}: positive = {this} better, in percentage points "
            f"(pp) for metrics shown in percent, else in the metric's own unit; where lower is better "
            f"(perplexity), {other}'s value minus {this}'s.")


def duels_explained(benchmark: Benchmark) -> str:
    return f"""
**Reading the duels.** Each cell is one duel on one task: **won** (green) when a one-sided
test says this model is better with **p ≤ {benchmark.alpha:g}**, **lost** (red) when the competitor is
significantly better, **n.s.** (grey) otherwise. **p** is the one-sided test's p-value in the
direction of the verdict (for a loss: the competitor's); **p = 1: not tested**, because
this model's score was lower, so "better" was not tested.
{delta_explained("this model", "the competitor")}
Competitors are in rank order. In **Overall** each
cell counts the duels on one category's tasks, coloured by the side that won more of them;
pick a category to see each task's verdict, Δ and p.
"""


PICKER_CHOICES = 50  # a model picker's most choices: the page never lists every model


def model_choices(board: Leaderboard, search: str = "", keep=(), limit: int = PICKER_CHOICES) -> list[tuple[str, str]]:
    """(title, submission id) of the first `limit` published models in rank order whose title
    contains `search` (case-insensitive; empty: the best models), then those of the ids in
    `keep` (a picker's chosen models) not among them; flagged ones marked."""
    ranked, models = board.ranked().index, board.models
    needle = search.strip().lower()
    found = [sid for sid in ranked if needle in models[sid].title.lower()][:limit] if needle else list(ranked[:limit])
    found += [sid for sid in dict.fromkeys(keep) if sid in models and sid not in found]
    return [(f"{MARKER} " * (sid in board.flags) + models[sid].title, sid) for sid in found]


def matching_models(board: Leaderboard, search: str) -> int:
    """How many published models' titles contain `search` (case-insensitive)."""
    needle = search.strip().lower()
    return sum(needle in m.title.lower() for m in board.models.values())


def picker_info(board: Leaderboard, search: str, limit: int = PICKER_CHOICES) -> str:
    """What a model picker lists (model_choices), in words."""
    total = len(board.models)
    if not search.strip():
        return f"The best {limit} of {total:,} models: search to find the others" if total > limit else ""
    found = matching_models(board, search)
    if not found:
        return f"No model or team name contains “{search.strip()}”"
    return (f"{found:,} model{'s' * (found > 1)} match{'es' * (found == 1)} “{search.strip()}”" if found <= limit else
            f"The best {limit} of {found:,} models matching “{search.strip()}”: type more to narrow")


def flag_line(board: Leaderboard, submission_id: str) -> str:
    """The flag of a model as a markdown line, empty when it is not flagged."""
    flag = board.flags.get(submission_id)
    if flag is None:
        return ""
    return (f"{MARKER} **Flagged by the maintainers** on {submitted_date(flag.flagged_at)}: "
            f"{escape_markdown(flag.reason)}"
            + (f" ({markdown_link('evidence', flag.link)})" if flag.link else "")
            + ". It is ranked as usual, unless the leaderboard's *Exclude flagged models* is on, and new "
              "submissions do not duel it.")


def category_rank(board: Leaderboard, category: str, adjusted: bool = False) -> pd.Series:
    return ranking.competition_rank(board.ranked(adjusted)[category])


def _certain(board: Leaderboard, submission_id: str, scope: str, adjusted: bool) -> str:
    """"95% interval 2–5, tie group B" of a model in a scope (overall or a category); nothing
    under top-of-its-day, whose Win Score has no interval (the intervals are the field score's)."""
    if board.benchmark.opponents == TOP_OF_ITS_DAY:
        return ""
    row = board.certainty(adjusted).loc[submission_id, scope]
    rank = f"{row['rank_low']}" if row["rank_low"] == row["rank_high"] else f"{row['rank_low']}–{row['rank_high']}"
    return f"(95% interval {rank}, tie group **{row['group']}**)" if row["group"] else ""


def score_name(board: Leaderboard) -> str:
    """The board's score as the table's headers name it (`score_header` without its unit):
    "score" (the field score) or, under `"opponents": "top-of-its-day"`, "win score"."""
    return score_header(board, "").strip(" %")


def model_card(board: Leaderboard, submission_id: str, category: str | None = None, adjusted: bool = False) -> str:
    """Title, ranks with their intervals and tie groups, scores, metadata. `adjusted`: the
    ranking with Benjamini-Hochberg adjusted duels (the same under the panel, whose scores
    count no duel; under top-of-its-day the Win Scores of the adjusted verdicts)."""
    model = board.models[submission_id]
    m = model.metadata
    row = board.ranked(adjusted).loc[submission_id]
    flagged = submission_id in board.flags
    lines = [f"### {f'{MARKER} ' * flagged}{escape_markdown(model.title)}",
             *([f"> {flag_line(board, submission_id)}", ""] if flagged else []),
             f"Rank **{int(row['rank']):,}** of {len(board.models):,} {_certain(board, submission_id, ranking.OVERALL, adjusted)}"
             f" · overall {score_name(board)} **{percent(row['overall'])}**"]
    if not is_overall(category):
        lines.append(f"{escape_markdown(category)}: rank "
                     f"**{int(category_rank(board, category, adjusted)[submission_id]):,}** of {len(board.models):,} "
                     f"{_certain(board, submission_id, category, adjusted)} · {score_name(board)} **{percent(row[category])}**")
    lines += ["", "| Field | Value |", "| --- | --- |",
              f"| Model page | {markdown_link(m.get('link_to_model', ''), m.get('link_to_model'))} |"]
    for key, label in {**META_COLUMNS, "submission_id": "Submission id"}.items():
        value = parameters_text(m.get(key)) if key == "parameters" else m.get(key, "")
        lines.append(f"| {label} | {escape_markdown(value)} |")
    lines.append(f"| Submitted | {submitted_date(m.get('submission_timestamp'))} |")
    if m.get("publisher"):
        lines.append(f"| {PUBLISHER} | {escape_markdown(m['publisher'])} (signed in with Hugging Face) |")
    lines.append(f"| Pre-submissions ({WINDOW_DAYS} days before) | {disclosure_text(board.disclosure(submission_id))} |")
    rows = provenance(harness_metadata(board.store, submission_id))
    lines += ["", "#### How it was evaluated",
              *(["| Field | Value |", "| --- | --- |", *(f"| {k} | {escape_markdown(v)} |" for k, v in rows),
                 *(["", "Equal task-hash fingerprints: the same prompts, documents and targets."]
                   if any(k == "Task hashes" for k, _ in rows) else [])]
                if rows else ["Not recorded in the submission file."])]
    return "\n".join(lines)


def disclosure_text(disclosed: Disclosure) -> str:
    """The card's line on a model's disclosed pre-submissions: how many, by whom, the range
    of their would-be ranks."""
    by = f"{'account' if disclosed.by_account else 'team'} {escape_markdown(disclosed.owner)}"
    if not disclosed.count:
        return f"none recorded by {by}"
    return f"**{disclosed.count}** by {by}, {disclosed.ranks_text()}"


@functools.lru_cache(maxsize=512)
def harness_metadata(store, submission_id: str) -> dict:
    """The submission file's "metadata" (copied from the harness logs); {} when unreadable.
    A published file never changes, so it is read once."""
    try:
        metadata = json.loads(store.read_document(submission_id)).get("metadata")
    except (OSError, ValueError, AttributeError):
        return {}
    return metadata if isinstance(metadata, dict) else {}


NOT_RECORDED = "not recorded"


def _recorded(value) -> str:
    return NOT_RECORDED if value is None else str(value)


def _per_run(value) -> str:
    """A value the runs agree on, or their distinct values when they differ; "not recorded"
    where the logs have none (older harness releases lack some fields)."""
    if isinstance(value, dict):
        distinct = sorted({_recorded(v) for v in value.values()}, key=lambda v: (v == NOT_RECORDED, v))
        return distinct[0] if len(distinct) == 1 else " / ".join(distinct) + " (differs between runs)"
    return _recorded(value)


def _aggregated(tasks: dict) -> str:
    """Each aggregated task: its subtasks and documents, and the harness's own aggregate
    when the run reported one (`compile` scores the concatenation, a sample-weighted mean)."""
    parts = []
    for task_id, record in tasks.items():
        if not isinstance(record, dict):  # a submitter's file may hold anything here
            continue
        subtasks, documents = record.get("subtasks"), record.get("documents")
        n = sum(d for d in documents if type(d) is int) if isinstance(documents, list) else 0
        text = (f"{task_id}: {len(subtasks) if isinstance(subtasks, list) else 0} subtasks, {n:,} documents, "
                f"scored on all of them")
        if is_finite_number(record.get("harness_value")):
            text += (f" (the harness reports {record['harness_value']:.4f} for {record.get('harness_group')}, "
                     f"another aggregate)")
        parts.append(text)
    return "; ".join(parts)


def _seconds(value) -> float | None:
    """total_evaluation_time_seconds: a number, a numeric string, or one per run (summed)."""
    values = value.values() if isinstance(value, dict) else [value]
    try:
        return sum(float(v) for v in values)
    except (TypeError, ValueError):
        return None


def _harness_version(meta: dict) -> str:
    """The harness's release and the commit it ran from (`git_hash`, which logs older than
    `lm_eval_version` already record), as far as the logs say."""
    release, commit = _per_run(meta.get("lm_eval_version")), _per_run(meta.get("git_hash"))
    if commit == NOT_RECORDED:
        return release
    return f"{release} (commit {commit})" if release != NOT_RECORDED else f"commit {commit} (release not recorded)"


def provenance(meta: dict) -> list[tuple[str, str]]:
    """(field, value) rows saying how the model was evaluated, from what the file recorded:
    harness and transformers versions, few-shot examples, chat template, evaluation time,
    task hashes (one fingerprint: equal fingerprints mean the same prompts and documents)."""
    rows = []
    if "lm_eval_version" in meta or "git_hash" in meta:
        rows.append(("lm-evaluation-harness", _harness_version(meta)))
    if "transformers_version" in meta:
        rows.append(("transformers", _per_run(meta["transformers_version"])))
    shots = meta.get("n-shot")
    if isinstance(shots, dict) and shots:
        counts = Counter(str(v) for v in shots.values())
        rows.append(("Few-shot examples", ", ".join(
            f"{n} on {'all ' if c == len(shots) else ''}{c} task{'s' if c > 1 else ''}" for n, c in counts.most_common())))
    elif shots is not None:
        rows.append(("Few-shot examples", str(shots)))
    if "chat_template_sha" in meta or "chat_template" in meta:
        sha = meta.get("chat_template_sha")
        used = sha or meta.get("chat_template")
        rows.append(("Chat template", f"used (sha256 {_per_run(sha)[:12]})" if sha and not isinstance(sha, dict)
                     else "used" if used else "not used"))
    seconds = _seconds(meta.get("total_evaluation_time_seconds"))
    if seconds:
        rows.append(("Evaluation time", f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"))
    if isinstance(meta.get("aggregated_tasks"), dict) and meta["aggregated_tasks"]:
        rows.append(("Aggregated tasks", _aggregated(meta["aggregated_tasks"])))
    hashes = meta.get("task_hashes")
    if isinstance(hashes, dict) and hashes:
        fingerprint = hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()[:12]
        rows.append(("Task hashes", f"{len(hashes)} task{'s' * (len(hashes) != 1)}, fingerprint {fingerprint}"))
    return rows


def score_bars(board: Leaderboard, submission_id: str, category: str | None = None, adjusted: bool = False) -> str:
    """The score per category, or per task of `category`, as an HTML bar chart: plain
    elements draw at once, where a plotly figure costs the page a second or more."""
    row = board.ranked(adjusted).loc[submission_id]
    if is_overall(category):
        keys = labels = list(board.benchmark.categories)
        title = f"{score_name(board).capitalize()} per category"
    else:
        tasks = board.benchmark.tasks_in(category)
        keys, labels = [t.id for t in tasks], [t.abbreviation for t in tasks]
        title = f"{category}: {score_name(board)} per task"
    values = row[keys].to_numpy(dtype=float) * 100
    bars = "".join(
        f'<div class="bar-row"><span class="bar-label">{html.escape(label)}</span>'
        f'<span class="bar-track"><span class="bar" style="width:{0 if np.isnan(v) else v:.1f}%"></span></span>'
        f'<span class="bar-value">{"–" if np.isnan(v) else f"{v:.1f}"}</span></div>'
        for label, v in zip(labels, values))
    return (f'<figure class="score-bars" aria-label="{html.escape(title)} (%)">'
            f'<figcaption>{html.escape(board.models[submission_id].title)}: {html.escape(title)} (%)</figcaption>'
            f"{bars}</figure>")


@dataclass(frozen=True)
class ModelDuels:
    """A model's duels on a scope's tasks with each competitor, in rank order: the
    tournament's arrays, (competitors, tasks), from which the grid, the summary and the
    CSV are made (the grid needs the first rows only; a panel member has dueled every model)."""
    submission_id: str
    opponents: list  # competitor ids, rank order
    ranks: np.ndarray  # each competitor's position in the ranking (1 = best)
    tasks: list  # the scope's tasks (config.tasks.Task), benchmark order
    won: np.ndarray  # (competitors, tasks) bool: this model significantly better
    lost: np.ndarray  # the competitor significantly better
    p_won: np.ndarray  # one-sided p, this model better
    p_lost: np.ndarray  # one-sided p, the competitor better
    delta: np.ndarray  # this model minus the competitor, in the metric's unit


def model_duels(board: Leaderboard, submission_id: str, category: str | None = None,
                tournament: Tournament | None = None, rank_order=None) -> ModelDuels:
    """The duels of `submission_id` (competitors in `rank_order`, default the board's
    ranking; tasks of `category` in benchmark order, every task in Overall)."""
    tour = tournament if tournament is not None else board.tournament  # one without rows is falsy (len 0)
    tasks = [t for t in board.benchmark.tasks if is_overall(category) or t.category == category]
    forward, backward = tour.rows_of(submission_id)  # row k of both: the same opponent
    row_of = {tour.model_ids[j]: k for k, j in enumerate(forward.second)}
    order = board.ranked().index if rank_order is None else rank_order
    position = pd.Series(range(1, len(order) + 1), index=order)
    opponents = [o for o in order if o in row_of] if tasks else []
    grid = np.ix_(np.array([row_of[o] for o in opponents], dtype=int),
                  np.array([tour.task_ids.index(t.id) for t in tasks], dtype=int))
    won = forward.significant[grid]
    return ModelDuels(submission_id, opponents, position[opponents].to_numpy(dtype=int), tasks, won,
                      backward.significant[grid] & ~won, forward.p_value[grid], backward.p_value[grid],
                      forward.delta[grid])


def duel_frame(board: Leaderboard, duels: ModelDuels, models: dict | None = None,
               competitors: int | None = None) -> pd.DataFrame:
    """One row per duel (of the first `competitors` competitors; None: of every one):
    verdict, both directions' one-sided p-values and the delta in the task's unit. This is
    the CSV export; the grid is pivoted from it."""
    models = models or board.models
    opponents = duels.opponents[:competitors]
    if not opponents:
        return pd.DataFrame(columns=["Rank", "Competitor", "competitor_id", "competitor_flagged", "Category", "Task",
                                     "task_id", "Result", "p one-sided (this model better)", "p one-sided (competitor better)", "Δ",
                                     "Δ unit"])
    n_tasks, n_opp, tasks = len(duels.tasks), len(opponents), duels.tasks
    scale, units = delta_scale(board, [t.id for t in tasks])
    return pd.DataFrame({  # flattened opponent-major
        "Rank": np.repeat(duels.ranks[:n_opp], n_tasks),
        "Competitor": np.repeat([models[o].title for o in opponents], n_tasks),
        "competitor_id": np.repeat(opponents, n_tasks),
        "competitor_flagged": np.repeat([o in board.flags for o in opponents], n_tasks),
        "Category": np.tile([t.category for t in tasks], n_opp),
        "Task": np.tile([t.abbreviation for t in tasks], n_opp),
        "task_id": np.tile([t.id for t in tasks], n_opp),
        "Result": np.select([duels.won[:n_opp].ravel(), duels.lost[:n_opp].ravel()], [WON, LOST], NOT_SIGNIFICANT),
        "p one-sided (this model better)": duels.p_won[:n_opp].ravel(),
        "p one-sided (competitor better)": duels.p_lost[:n_opp].ravel(),
        "Δ": (duels.delta[:n_opp] * scale).ravel(),
        "Δ unit": np.tile(units, n_opp)})


def duel_table(board: Leaderboard, submission_id: str, category: str | None = None,
               tournament: Tournament | None = None, models: dict | None = None,
               rank_order=None) -> pd.DataFrame:
    """Every duel of `submission_id` as duel_frame's rows (model_duels' arguments)."""
    return duel_frame(board, model_duels(board, submission_id, category, tournament, rank_order), models)

def csv_label(board: Leaderboard, submission_id: str, category: str | None, adjusted: bool,
              duels: ModelDuels | None = None) -> str:
    """What a duels CSV holds: the model, the category, which p-values; with `duels`, how many
    rows (one per competitor and task), else that it is being made."""
    what = (f"{board.models[submission_id].title}, {OVERALL if is_overall(category) else category}, "
            f"{'BH-adjusted' if adjusted else 'raw'} p-values")
    if duels is None:
        return f"Making the duels CSV: {what}…"
    n, tasks = len(duels.opponents), len(duels.tasks)
    return f"Duels CSV: {what}: {n * tasks:,} rows, {n:,} competitor{'s' * (n != 1)} × {tasks} task{'s' * (tasks != 1)}"


GRID_COMPETITORS = 100  # rows of the duel grid (a panel member has dueled every published model)
_COLOURS = {WON: "background-color: #c8e6c9", LOST: "background-color: #ffcdd2",
            NOT_SIGNIFICANT: "background-color: #eeeeee"}


def duel_grid(duels: pd.DataFrame, category: str | None = None):
    """The duels as people read them, a row per competitor (rank order); green won, red
    lost, grey not significant. In a category, a compact three-line cell per task
    (verdict, Δ with unit, p). In Overall, a cell per category counting its duels
    ("2 won · 1 lost / 3 n.s."), coloured by the majority of the decided ones: 9 columns
    instead of 50, and the task cells one category pick away."""
    if duels.empty:
        return pd.DataFrame({"Competitor": ["no duels yet"]})
    marks = np.where(duels["competitor_flagged"].astype(bool), f"{MARKER} ", "")
    duels = duels.assign(Competitor=duels["Rank"].astype(str) + ". " + marks + duels["Competitor"])
    if is_overall(category):
        columns = pd.MultiIndex.from_product([list(dict.fromkeys(duels["Category"])), [WON, LOST, NOT_SIGNIFICANT]])
        counts = (duels.groupby(["Rank", "Competitor", "Category", "Result"]).size()
                  .unstack(["Category", "Result"], fill_value=0).reindex(columns=columns, fill_value=0))
        won, lost, ns = (counts.xs(r, axis=1, level=1) for r in (WON, LOST, NOT_SIGNIFICANT))
        verdicts = pd.DataFrame(np.select([won > lost, lost > won], [WON, LOST], NOT_SIGNIFICANT),
                                index=won.index, columns=won.columns)
        cells = won.astype(str) + " won · " + lost.astype(str) + " lost\n" + ns.astype(str) + " n.s."
    else:
        p = np.where(duels["Result"] == LOST, duels["p one-sided (competitor better)"], duels["p one-sided (this model better)"])
        duels = duels.assign(cell=duels["Result"] + "\nΔ " + duels["Δ"].map("{:+.2f}".format) + " "
                             + duels["Δ unit"] + "\n" + pd.Series(p, index=duels.index).map(p_phrase))
        order = list(dict.fromkeys(duels["Task"]))
        cells, verdicts = (duels.pivot(index=["Rank", "Competitor"], columns="Task", values=v)[order]
                           for v in ("cell", "Result"))
    grid = cells.reset_index(level="Competitor").reset_index(drop=True)
    colours = verdicts.reset_index(drop=True).replace(_COLOURS)
    colours.insert(0, "Competitor", "")
    grid.columns = colours.columns = [str(c) for c in grid.columns]
    return grid.style.apply(lambda _: colours, axis=None)


def grid_label(total: int, title: str, rest: str = "", limit: int = GRID_COMPETITORS) -> str:
    """The duel grid's `title`, saying which of the `total` competitors it shows when it
    shows only the first `limit` (then `rest` follows: where the others are)."""
    return title if total <= limit else f"{title}: the best {limit} of {total:,} competitors{rest}"


def grid_widths(duels: pd.DataFrame, category: str | None = None) -> list[str]:
    """Column widths of the duel grid: compact cells, so that many columns fit a screen."""
    by = "Category" if is_overall(category) else "Task"
    return ["190px", *["135px" if by == "Category" else "82px"] * duels[by].nunique()]


def duel_summary(duels: ModelDuels, category: str | None = None) -> pd.DataFrame:
    """Duels won / lost / not significant per category (Overall) or per task (a category),
    with a total row: counted on the arrays, every competitor's."""
    by = "Category" if is_overall(category) else "Task"
    groups = [t.category if by == "Category" else t.abbreviation for t in duels.tasks]
    per_task = pd.DataFrame({"won": duels.won.sum(axis=0), "lost": duels.lost.sum(axis=0)}, dtype=int)
    per_task["not significant"] = len(duels.opponents) - per_task["won"] - per_task["lost"]
    counts = per_task.groupby(pd.Index(groups, name=by), sort=False).sum()
    counts.loc["Total"] = counts.sum()
    counts["Total"] = counts.sum(axis=1)
    return counts.reset_index()
