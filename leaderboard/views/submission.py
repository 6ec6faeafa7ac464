"""Submission: problems placed by the fields they concern, the would-be ranking, a sample file."""
from __future__ import annotations

import re

import pandas as pd

from leaderboard.board import Leaderboard, Preview
from leaderboard.demo import sample_document
from leaderboard.store import dump_json
from leaderboard.tasks import Benchmark
from leaderboard.views.markdown import escape_markdown
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


def preview_table(board: Leaderboard, preview: Preview) -> pd.DataFrame:
    """The would-be ranking: the new model marked, rank changes as arrows."""
    table = leaderboard_table(board, None, preview=preview)
    change = table.pop("Rank change")
    table.insert(1, "Change", ["new" if sid == preview.submission_id else "" if c == 0 else
                               f"▲{int(c)}" if c > 0 else f"▼{int(-c)}" for sid, c in zip(table.index, change)])
    table = table.drop(columns=["Previous rank"])
    table.loc[preview.submission_id, "Model"] = "★ " + table.loc[preview.submission_id, "Model"]
    return table


def preview_summary(board: Leaderboard, preview: Preview) -> str:
    row = preview.table.loc[preview.submission_id]
    lines = [f"### {escape_markdown(preview.model.title)} would rank **{preview.rank}** of {len(preview.table)}",
             f"Overall win score **{percent(row['overall'])}** from duels with {len(preview.opponents)} models. "
             f"The table below is scrolled to your model's row (★).",
             "", "| Category | Win score |", "| --- | --- |"]
    lines += [f"| {escape_markdown(c)} | {percent(row[c])} |" for c in board.benchmark.categories]
    if preview.warnings:
        lines += ["", "**Warnings:**", *[f"- {escape_markdown(with_abbreviations(board.benchmark, w))}"
                                         for w in preview.warnings]]
    return "\n".join(lines)


def sample_file(board: Leaderboard) -> str:
    """Write a valid submission file for this board (its samples, doc_ids and gold labels)
    (see `export_file`); returns its path."""
    return export_file(dump_json(sample_document(board.benchmark, board.references())),
                       f"{export_name(board.benchmark.name, 'sample-submission')}.json")
