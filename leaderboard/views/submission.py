"""Submission: problems placed by the fields they concern, the would-be ranking, a sample file."""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from leaderboard.submission.archive import extracted
from leaderboard.board.publishing import Preview
from leaderboard.board.state import Leaderboard
from leaderboard.submission.harness import compile_runs
from leaderboard.temp_disk import TempDiskBudget
from leaderboard.strict_json import dump_json
from leaderboard.submission.metadata import PRECISIONS
from leaderboard.errors import BadInput
from leaderboard.engine.progress import no_progress
from leaderboard.engine.progress import Progress
from leaderboard.config.tasks import Benchmark
from leaderboard.storage.presubmissions import WINDOW_DAYS
from leaderboard.views.details import score_name
from leaderboard.views.markdown import app_link, code_span, escape_markdown
from leaderboard.views.table import export_file, export_name, leaderboard_table, percent

# The form's fields as `validate_metadata` names them at the start of a problem.
FORM_FIELDS = ("Team name", "Model name", "Model type", "Parameters", "Input length", "Precision",
               "Link to model", "Description")


def split_problems(problems: list[str]) -> tuple[list[str], list[str]]:
    """(problems of the form's fields, problems of the file)."""
    form = [p for p in problems if p.startswith(tuple(f"{f}:" for f in FORM_FIELDS))]
    return form, [p for p in problems if p not in form]


def with_abbreviations(benchmark: Benchmark, text: str) -> str:
    """Task ids in a message shown as the abbreviation the table uses, with the id the file
    uses in parentheses: "CNEC (benczechmark_cs_ner)"."""
    ids = sorted(benchmark.task_ids, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, ids)) + r")(?![\w])")
    return pattern.sub(lambda m: f"{benchmark.task(m.group(1)).abbreviation} ({m.group(1)})", text)


def problems_markdown(benchmark: Benchmark, problems: list[str], heading: str) -> str:
    """A list of problems under a heading; task ids shown with their table abbreviations."""
    if not problems:
        return ""
    items = "\n".join(f"- {escape_markdown(with_abbreviations(benchmark, p))}" for p in problems)
    return f"**{heading}**\n\n{items}"


def preview_table(board: Leaderboard, preview: Preview, rows: pd.Index | None = None) -> pd.DataFrame:
    """The would-be ranking (`rows`: only these of its rows): the new model marked, rank
    changes as arrows."""
    table = leaderboard_table(board, None, preview=preview, rows=rows)
    change = table.pop("Rank change")
    table.insert(1, "Change", ["new" if sid == preview.submission_id else "" if c == 0 else
                               f"▲{int(c)}" if c > 0 else f"▼{int(-c)}" for sid, c in zip(table.index, change)])
    table = table.drop(columns=["Previous rank"])
    if preview.submission_id in table.index:
        table.loc[preview.submission_id, "Model"] = "★ " + table.loc[preview.submission_id, "Model"]
    return table


def published_table(board: Leaderboard, submission_id: str, rows: pd.Index | None = None) -> pd.DataFrame:
    """The board after publishing `submission_id` (`rows`: only these of its rows): the
    preview's columns, its row marked "published" where the preview said "new"."""
    table = leaderboard_table(board, None, rows=rows)
    table.insert(1, "Change", ["published" if sid == submission_id else "" for sid in table.index])
    return table


def published_summary(board: Leaderboard, submission_id: str) -> str:
    """What was published, where it ranks, and a link to its details view."""
    return (f"Published **{escape_markdown(board.models[submission_id].title)}** as `{submission_id}`, rank "
            f"{int(board.ranked().loc[submission_id, 'rank']):,} of {len(board.models):,}. "
            + app_link("See its details", {"tab": "details", "model": submission_id}) + ".")


FIRST_MODEL = ("It would be the board's first model: with no other model to compare with or duel, it has no "
               "score yet; its scores and duels come with the next model published.")


def preview_summary(board: Leaderboard, preview: Preview) -> str:
    row = preview.table.loc[preview.submission_id]
    basis = ("(per task, the share of the other published models whose result it beats; averaged over each "
             "category's tasks, then over the categories: see How scoring works)" if preview.panel
             else f"from duels with {len(preview.opponents)} models")
    lines = [f"### {escape_markdown(preview.model.title)} would rank **{preview.rank:,}** of {len(preview.table):,}"]
    if len(preview.table) == 1:  # nothing to compare with: no scores, and no panel but its own
        lines += [FIRST_MODEL]
    else:
        lines += [f"Overall {score_name(board)} **{percent(row['overall'])}** {basis}. "
                  f"Its row (★) is below.", *_near_copy_note(board, preview),
                  *_panel_change(board, preview)]
    if preview.warnings:
        lines += ["", "**Warnings:**", *[f"- {escape_markdown(with_abbreviations(board.benchmark, w))}"
                                         for w in preview.warnings]]
    return "\n".join(lines)


def disclosure_note(preview: Preview, failure: str | None) -> str:
    """What became of the pre-submission's record (Publishing.disclose): recorded, or why not."""
    if preview.is_sample:
        return ""
    if failure:
        return (f"\n\n> **This pre-submission could not be recorded** ({escape_markdown(failure)}). The preview "
                f"is shown all the same, but it is missing from the pre-submissions a published model's card "
                f"discloses.")
    return (f"\n\nRecorded as a disclosed pre-submission (would-be rank {preview.rank:,} of {len(preview.table):,}): "
            f"a published model's card shows its team's pre-submissions of the {WINDOW_DAYS} days before (see About).")


def quota_refusal(message: str) -> str:
    """A pre-submission refused by the quota (PresubmissionQuota): nothing was run or stored."""
    return f"**Not pre-submitted.** {escape_markdown(message)}. Nothing was stored."


def presubmission_failed(reason: str) -> str:
    """A pre-submission that failed after it was admitted: why, and that nothing was recorded."""
    return (f"**Your model could not be pre-submitted**: {escape_markdown(reason)}. Nothing was recorded and "
            f"it does not count against your pre-submissions; try again later.")


def _near_copy_note(board: Leaderboard, preview: Preview) -> list[str]:
    """A line naming the published models the new one nearly copies (`stats.field.near_copies`:
    answers that move together on resampled items), if any."""
    family = preview.table.attrs.get("family")
    if family is None:
        return []
    copied = [m for m in family.index[family == family[preview.submission_id]] if m != preview.submission_id]
    if not copied:
        return []
    titles = ", ".join(escape_markdown(board.models[m].title) for m in copied)
    return ["", f"**A near-copy.** Its answers move with those of {titles} on resampled test items: a family of "
            "near-copies counts as one model in everyone's scores and ranks, and takes at most one seat on the "
            "reference panel (see About)."]


def _panel_change(board: Leaderboard, preview: Preview) -> list[str]:
    """A line on how publication would change the reference panel, if it would."""
    joining, leaving = preview.panel_change
    if not (joining or leaving):
        return []
    def titles(ids):
        return ", ".join(escape_markdown(preview.model.title if m == preview.submission_id else board.models[m].title)
                         for m in ids)
    parts = ([f"joining: {titles(joining)}"] if joining else []) + ([f"leaving: {titles(leaving)}"] if leaving else [])
    return ["", f"**The reference panel would change** ({'; '.join(parts)}). Duel wins then count the new panel "
                f"(the scores and ranks do not depend on it)" + _duels_at_publication(preview.duels_at_publication)]


def _duels_at_publication(pending: int) -> str:
    """The end of the panel's line: the models whose duels with an entering model are its
    publication's (`Preview.duels_at_publication`), if any."""
    if not pending:
        return "."
    models = "model off the panel duels" if pending == 1 else "models off the panel duel"
    return f"; the {pending:,} {models} your model at publication, so their duel wins here do not count it yet."


def sample_file(board: Leaderboard) -> str:
    """Write a valid submission file for this board (its samples, doc_ids and gold labels)
    (see `export_file`); returns its path."""
    return export_file(dump_json(board.sample_document()),
                       f"{export_name(board.benchmark.name, 'sample-submission')}.json")


# --- a .zip of harness output -----------------------------------------------------------

@dataclass(frozen=True)
class Compiled:
    data: bytes  # the submission file
    form: dict  # form fields the harness metadata gives (model_name, input_length, ...)
    summary: str  # Markdown: what was compiled, and notes


def is_archive(path: str | None) -> bool:
    return bool(path) and str(path).lower().endswith(".zip")


def _precision(dtype) -> str | None:
    name = str(dtype).removeprefix("torch.")
    return {"half": "float16", "float": "float32", "bf16": "bfloat16"}.get(name, name) if name in (
        *PRECISIONS, "half", "float", "bf16") else None


def _local_path(name: str) -> bool:
    """Whether the harness's model_name is a checkpoint's folder on the submitter's machine
    rather than a Hub id (`owner/name`, one slash)."""
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name or name[1:3] in (":/", ":\\")


def _records_chat_template(metadata: dict) -> bool:
    """Whether the runs (any of them) applied a chat template: lm-evaluation-harness records
    the template and its hash only with --apply_chat_template."""
    values = [metadata.get(key) for key in ("chat_template", "chat_template_sha")]
    return any(any(v.values()) if isinstance(v, dict) else v for v in values)


def harness_form(metadata: dict) -> dict:
    """Form fields the harness metadata can fill: the model's name (after its owner), the team
    (the owner, when the name is a Hub id `owner/name`), the chat type (when the runs applied
    a chat template), the input length (max_length), parameters (billions) and precision,
    where the run says."""
    form = {}
    name, length, params = metadata.get("model_name"), metadata.get("max_length"), metadata.get("model_num_parameters")
    if isinstance(name, str) and name.strip("/"):
        form["model_name"] = name.rstrip("/").rsplit("/", 1)[-1]
        owner, _, model = name.partition("/")
        if owner.strip() and model.strip() and not _local_path(name):
            form["team_name"] = owner
    if _records_chat_template(metadata):
        form["model_type"] = "chat"
    if isinstance(length, int) and not isinstance(length, bool) and length > 0:
        form["input_length"] = length
    if isinstance(params, (int, float)) and not isinstance(params, bool) and params > 0:
        form["parameters"] = round(params / 1e9, 3)
    if _precision(metadata.get("model_dtype")):
        form["precision"] = _precision(metadata.get("model_dtype"))
    return form


def harness_hints(metadata: dict) -> list[str]:
    """Why `harness_form` filled a field as it did, where the submitter should check it."""
    form, name = harness_form(metadata), metadata.get("model_name")
    hints = []
    if isinstance(name, str) and "model_name" in form and _local_path(name):
        hints.append(f"Model name: {form['model_name']}, the last part of a local path in the logs; give the "
                     f"model's public name (and its team) instead")
    if form.get("model_type") == "chat":
        hints.append("Model type: chat, as the logs record a chat template (the harness applied it); choose "
                     "another type if the model is not chat or instruction-tuned")
    return hints


def compile_archive(board: Leaderboard, path: str, progress: Progress = no_progress,
                    budget: TempDiskBudget | None = None) -> Compiled:
    """The submission compiled from an uploaded .zip of harness output folders (unpacked
    safely within `budget`, the folder removed afterwards). Raises BadInput; messages
    name files inside the archive, not the server's temporary folder."""
    with extracted(path, budget=budget) as folder:
        def in_archive(text: str) -> str:
            """The text with the unpacking folder's paths as paths inside the archive."""
            return text.replace(str(folder) + "/", "").replace(str(folder), "the archive")

        try:
            document, notes = compile_runs([str(folder)], board.benchmark, progress=progress)
        except BadInput as e:
            raise BadInput([in_archive(p) for p in e.problems]) from None
    meta = document["metadata"]
    n = sum(len(samples) for samples in document["predictions"].values())
    lines = [f"**Compiled from the harness output**: {len(document['predictions'])} tasks, {n:,} samples of "
             f"{code_span(meta.get('model_name'))}. The form is filled in from the logs where they say; check it."]
    lines += [f"- {escape_markdown(text)}" for text in [*harness_hints(meta), *map(in_archive, notes)]]
    return Compiled(dump_json(document), harness_form(meta), "\n".join(lines))


def compiled_file(board: Leaderboard, compiled: Compiled) -> str:
    """The compiled submission as a download; returns its path."""
    model = compiled.form.get("model_name", "model")
    return export_file(compiled.data, f"{export_name(board.benchmark.name, model, 'submission')}.json")
