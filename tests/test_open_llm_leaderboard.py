"""The shipped Open LLM Leaderboard v2 tasks file (`data/open_llm_leaderboard_v2_tasks.json`):
its demo store has the harness's document counts, and a run of the harness's `leaderboard`
group, written in the harness's layout, compiles with the tasks file alone to the
harness's own numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import content
from harness_logs import DATE_A, write_run
from leaderboard.board.state import Leaderboard
from leaderboard.cli import main
from leaderboard.config.tasks import load_benchmark
from leaderboard.board.configured import build_demo_store
from leaderboard.submission.demo import sample_document
from leaderboard.storage.local import LocalStore
from leaderboard.submission.parsing import parse_submission
from leaderboard.views.table import METRIC_VALUE, WIN_SCORE, leaderboard_table

ROOT = Path(__file__).resolve().parent.parent
TASKS_FILE = ROOT / "data" / "open_llm_leaderboard_v2_tasks.json"
RAW = json.loads(TASKS_FILE.read_text())
N_MODELS = 3
# The documents of each subtask in a full run, in the tasks file's order (its About text
# says how they follow from the harness's own output).
SUBTASK_DOCUMENTS = {
    "leaderboard_bbh": [250, 187, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250, 146, 250, 250, 250, 178,
                        250, 250, 250, 250, 250, 250],
    "leaderboard_math_hard": [307, 123, 132, 280, 154, 193, 135],
    "leaderboard_gpqa": [198, 546, 448],
    "leaderboard_musr": [250, 256, 250],
}


@pytest.fixture(scope="module")
def suite():
    return load_benchmark(TASKS_FILE)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, suite) -> Path:
    root = tmp_path_factory.mktemp("open_llm") / "store"
    build_demo_store(root, N_MODELS, seed=0, benchmark=suite)
    return root


def test_the_demo_store_has_the_harness_document_counts(demo_store, suite):
    references = Leaderboard(LocalStore(demo_store), suite).references()
    assert {t["id"]: references[t["id"]].n_samples for t in RAW["tasks"]} == {t["id"]: t["samples"] for t in RAW["tasks"]}


@pytest.mark.parametrize("values", [WIN_SCORE, METRIC_VALUE])
def test_every_view_has_distinct_column_headers(demo_store, suite, values):
    """Each benchmark is a category holding one task of the same name (BBH in BBH): the
    category's column and its task's must not share a header (the page refused a table
    with repeated columns and showed "Error")."""
    board = Leaderboard(LocalStore(demo_store), suite)
    for category in suite.categories:
        columns = leaderboard_table(board, category, values).columns
        assert columns.is_unique, (category, [c for c in columns if list(columns).count(c) > 1])


@pytest.fixture(scope="module")
def harness_output(tmp_path_factory, suite, demo_store):
    """(output folder, the run's results, the samples it logs): `lm_eval --tasks leaderboard
    --log_samples` of a model that lines up with the demo store, in the harness's layout,
    with the leaderboard's groups as the harness aggregates them (weight_by_size)."""
    document = sample_document(suite, Leaderboard(LocalStore(demo_store), suite).references(), seed=1)
    root = tmp_path_factory.mktemp("lm_eval_out")
    results = write_run(root, suite, suite.task_ids, document, DATE_A, subtask_documents=SUBTASK_DOCUMENTS,
                        weight_by_size=True, parent_group="leaderboard")
    return root, json.loads(results.read_text()), document


def test_the_subtask_counts_add_up_to_the_tasks_file(suite):
    for task in suite.tasks:
        assert len(SUBTASK_DOCUMENTS.get(task.id, [0] * len(task.harness_subtasks))) == len(task.harness_subtasks)
        if task.harness_subtasks:
            assert sum(SUBTASK_DOCUMENTS[task.id]) == task.samples, task.id


def test_a_run_of_the_leaderboard_group_compiles_to_the_harness_numbers(harness_output, suite, demo_store,
                                                                        tmp_path, capsys):
    root, logs, document = harness_output
    out = tmp_path / "submission.json"
    assert main(["--tasks", str(TASKS_FILE), "compile", "-i", str(root), "-o", str(out)]) == 0, capsys.readouterr()
    printed = capsys.readouterr().out
    assert "ignored" not in printed and "another aggregate" not in printed, printed
    compiled = json.loads(out.read_text())
    parsed = parse_submission(out.read_bytes(), suite)
    for task in suite.tasks:  # the harness's own number: a task's, or its group's for an aggregated task
        harness_number = logs["results"][task.harness][f"{task.harness_metric},{task.harness_filter}"]
        assert compiled["results"][task.id][task.metric_name] == pytest.approx(harness_number, rel=1e-12), task.id
        assert task.metric.aggregate(parsed.tasks[task.id].samples) == pytest.approx(harness_number, rel=1e-12)
        assert [(s["doc_id"], int(s[task.metric_name])) for s in compiled["predictions"][task.id]] == \
            [(s["doc_id"], s[task.metric_name]) for s in document["predictions"][task.id]], task.id
    bbh = compiled["predictions"]["leaderboard_bbh"]
    assert [s["subtask"] for s in bbh[249:251]] == ["leaderboard_bbh_boolean_expressions",
                                                   "leaderboard_bbh_causal_judgement"]
    for command in (["validate", str(out)], ["presubmit", str(out), "--team", "T", "--model", "M", "--json"]):
        assert main(["--tasks", str(TASKS_FILE), *command, "--store", str(demo_store)]) == 0, capsys.readouterr()


def test_a_run_made_with_limit_is_refused(suite, demo_store, tmp_path, capsys):
    document = sample_document(suite, Leaderboard(LocalStore(demo_store), suite).references(), seed=1)
    write_run(tmp_path / "out", suite, suite.task_ids, document, DATE_A, subtask_documents=SUBTASK_DOCUMENTS,
              weight_by_size=True, limit=10)
    assert main(["--tasks", str(TASKS_FILE), "compile", "-i", str(tmp_path / "out"), "-o",
                 str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert all(f"task {t}" in err for t in suite.task_ids) and "--limit 10" in err, err
    assert not (tmp_path / "s.json").exists()


def test_the_file_pins_the_harness_task_versions_and_refuses_another(suite, demo_store, tmp_path, capsys):
    """MATH Lvl 5's exact_match changed meaning between harness task versions (2.0: the
    original answer check on lighteval/MATH-Hard; 3.0: Math-Verify on another copy of the
    data): the file accepts each task's version of the harness it maps, a run of MATH 2.0
    is refused naming both versions, and the About says which version each task uses and
    how the original leaderboard showed BBH and MuSR (issue 32, item 11)."""
    assert {t.id: t.harness_versions for t in suite.tasks} == {
        "leaderboard_ifeval": ("3.0",), "leaderboard_bbh": ("1.0",), "leaderboard_math_hard": ("3.0",),
        "leaderboard_gpqa": ("1.0",), "leaderboard_musr": ("1.0",), "leaderboard_mmlu_pro": ("0.1",)}
    document = sample_document(suite, Leaderboard(LocalStore(demo_store), suite).references(), seed=1)
    write_run(tmp_path / "out", suite, suite.task_ids, document, DATE_A, subtask_documents=SUBTASK_DOCUMENTS,
              weight_by_size=True, versions={"leaderboard_math_hard": 2.0})
    assert main(["--tasks", str(TASKS_FILE), "compile", "-i", str(tmp_path / "out"), "-o",
                 str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert ("task leaderboard_math_hard (" in err and "leaderboard_math_algebra_hard is version 2.0 of the harness "
            "task; the tasks file accepts 3.0 (harness_versions)") in err, err
    assert "leaderboard_bbh" not in err and not (tmp_path / "s.json").exists()
    about = " ".join(content.about(suite, "http://localhost/").split())  # as a reader sees the paragraphs
    assert ("**Harness task versions.** compile accepts these versions of the harness's tasks (the `versions` "
            "of results_*.json) and refuses a run of another: IFEval version 3.0, BBH version 1.0, MATH Lvl 5 "
            "version 3.0, GPQA version 1.0, MuSR version 1.0, MMLU-Pro version 0.1.") in about
    assert "showed BBH and MuSR each as the unweighted mean of baseline-normalised subtask scores" in about
