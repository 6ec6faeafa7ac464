"""Any benchmark from a tasks file: the four shipped benchmarks through the same CLI run
(their run in the app, desktop and phone: test_e2e_first_screen.py), tasks-file errors, bad
samples of the new metrics, a benchmark name of markup shown as typed."""
from __future__ import annotations

from support.benchmarks import BENCHMARKS, SUITE_FILE
from support.pages import close, open_page
from support.paths import ROOT
from support.servers import free_port, start_app
from support.stores import tree_digest

from support.cli import cli as run_cli

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect
from seqeval.metrics import f1_score as seqeval_f1

from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.submission.parsing import parse_submission
from leaderboard.config.tasks import TasksFileError, load_benchmark

N_MODELS = 6


def cli(tasks: Path, *args: str) -> subprocess.CompletedProcess:
    """The command on the benchmark of `tasks` (`support.cli.cli`), no LEADERBOARD_ setting in its environment."""
    return run_cli("--tasks", tasks, *args, env={k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")})


@pytest.fixture(scope="module", params=list(BENCHMARKS))
def built(request, tmp_path_factory):
    """(benchmark, store folder, a valid new file): a demo store made by the CLI."""
    tasks = BENCHMARKS[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    store, sample = folder / "store", folder / "sample.json"
    out = cli(tasks, "demo", "--store", str(store), "--models", str(N_MODELS))
    assert out.returncode == 0, out.stderr
    out = cli(tasks, "sample-file", "--store", str(store), "-o", str(sample))
    assert out.returncode == 0, out.stderr
    return load_benchmark(tasks), tasks, store, sample


def test_cli_runs_the_benchmark(built):
    benchmark, tasks, store, sample = built
    assert cli(tasks, "validate", str(sample), "--store", str(store)).returncode == 0
    out = cli(tasks, "presubmit", str(sample), "--store", str(store), "--team", "T", "--model", "M", "--json")
    assert out.returncode == 0, out.stderr
    preview = json.loads(out.stdout)
    assert preview["of"] == N_MODELS + 1 and set(preview["tasks"]) == set(benchmark.task_ids)
    assert preview["opponents"] == min(N_MODELS, benchmark.top_opponents)
    duel = json.loads(cli(tasks, "duel", str(sample), str(sample), "--json").stdout)
    assert set(duel) == set(benchmark.task_ids) and not any(d["significant"] for d in duel.values())
    for category in benchmark.categories:
        out = cli(tasks, "table", "--store", str(store), "--category", category, "--format", "csv")
        assert out.returncode == 0 and all(t.abbreviation in out.stdout for t in benchmark.tasks_in(category))
    assert cli(tasks, "check", "--store", str(store)).returncode == 0


def test_cli_refuses_a_file_of_the_other_benchmark(built):
    benchmark, tasks, store, sample = built
    other = next(f for f in BENCHMARKS.values() if f != tasks)
    before = tree_digest(store)
    out = cli(other, "presubmit", str(sample), "--store", str(store), "--team", "T", "--model", "M")
    assert out.returncode == 2 and "missing tasks" in out.stderr and "Traceback" not in out.stderr
    assert tree_digest(store) == before


# --- the tasks file ---------------------------------------------------------------------

CSFD, SQAD, HELPS = 0, 4, 7  # positions in CzechSuite's tasks: a macro-F1, a token-F1, a judge task with criteria


@pytest.mark.parametrize("top, task, fields, message", [
    ({"alpha": 0.7}, CSFD, {}, "'alpha' must be a number between 0 and 0.5"),
    ({"top_opponents": 0}, CSFD, {}, "'top_opponents' must be a whole number of at least 1"),
    ({"opponents": "top-50"}, CSFD, {}, "'opponents' must be one of \"panel\", \"top-of-its-day\", got \"top-50\""),
    ({"benchmark": ""}, CSFD, {}, "'benchmark' must be a non-empty string"),
    ({}, CSFD, {"labels": ["only"]}, "task csfd_sentiment: metric macro_f1 needs 'labels'"),
    ({}, HELPS, {"score_range": [1, 1]}, "task helps_answers: metric judge_score needs 'score_range'"),
    ({}, HELPS, {"criteria": {"helpfulness": 0.5, "relevance": 0.3}}, "weights summing to 1"),
    ({}, HELPS, {"criteria": {f"c{k}": 0.1667 for k in range(6)}},  # the sum and the tolerance, exactly
     "the weights sum to 1.0002, not 1 within 1e-09"),
    ({}, CSFD, {"metric": "f2"}, "task csfd_sentiment: unknown metric 'f2'"),
    ({}, CSFD, {"metric": "acc"}, "'labels' does not apply to metric acc"),
    ({}, CSFD, {"harness_metric": "acc_norm,none"}, "task csfd_sentiment: 'harness_metric' must be a metric key"),
    ({}, CSFD, {"harness_filter": ""}, "task csfd_sentiment: 'harness_filter' must be a filter name"),
    ({}, CSFD, {"metric_label": 3}, "task csfd_sentiment: 'metric_label' must be a non-empty string"),
    ({}, CSFD, {"harness_subtasks": ["only_one"]}, "'harness_subtasks' must be a list of at least 2 distinct"),
    ({}, CSFD, {"harness_subtasks": ["a", "a"]}, "'harness_subtasks' must be a list of at least 2 distinct"),
    ({}, CSFD, {"harness_subtasks": ["a", "b"], "harness_prompt_variants": True},
     "task csfd_sentiment: 'harness_subtasks' and 'harness_prompt_variants' exclude each other"),
    ({}, CSFD, {"samples": 0}, "task csfd_sentiment: 'samples' must be a whole number of at least 1"),
    ({}, CSFD, {"harness_versions": []}, "task csfd_sentiment: 'harness_versions' must be a non-empty list"),
    ({}, CSFD, {"harness_versions": "2.0"}, "task csfd_sentiment: 'harness_versions' must be a non-empty list"),
    ({}, CSFD, {"harness_versions": [True]}, "task csfd_sentiment: 'harness_versions' must be a non-empty list"),
    ({}, CSFD, {"samples": 12.5}, "task csfd_sentiment: 'samples' must be a whole number of at least 1"),
    ({}, SQAD, {"metric": "micro_f1", "entity_classes": ["PER", "PER"]},
     "task sqad_f1: 'entity_classes' must be a list of distinct class names"),
    ({}, SQAD, {"metric": "micro_f1", "left_out_classes": ["MISC"]},
     "task sqad_f1: 'left_out_classes' must list some of the task's 'entity_classes', not all"),
    ({}, SQAD, {"metric": "micro_f1", "entity_classes": ["MISC"], "left_out_classes": ["MISC"]},
     "task sqad_f1: 'left_out_classes' must list some of the task's 'entity_classes', not all"),
    ({}, SQAD, {"entity_classes": ["PER"]}, "task sqad_f1: 'entity_classes' does not apply to metric token_f1"),
])
def test_tasks_file_errors_name_the_field_and_task(tmp_path, top, task, fields, message):
    raw = {**json.loads(SUITE_FILE.read_text()), **top}
    raw["tasks"][task].update(fields)
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(TasksFileError, match=message):
        load_benchmark(path)
    out = cli(path, "validate", str(path))
    assert out.returncode == 2 and message.split("'")[0] in out.stderr and "Traceback" not in out.stderr


def test_tasks_file_names_the_harness_side_of_a_task(tmp_path):
    """The harness keys are read as written; absent, the harness metric is the scoring
    metric, the filter "none", no label, no subtasks, no stated document count."""
    raw = json.loads(SUITE_FILE.read_text())
    raw["tasks"][CSFD].update({"harness_metric": "acc_norm", "harness_filter": "strict-match",
                               "metric_label": "BLEU accuracy", "samples": 817,
                               "harness_subtasks": ["bbh_navigate", "bbh_snarks", "bbh_boolean"]})
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(raw))
    stated, plain = load_benchmark(path).tasks[CSFD], load_benchmark(path).tasks[HELPS]
    assert (stated.harness_metric, stated.harness_filter, stated.metric_label, stated.samples) == \
        ("acc_norm", "strict-match", "BLEU accuracy", 817)
    assert stated.harness_subtasks == ("bbh_navigate", "bbh_snarks", "bbh_boolean")
    assert stated.metric_name == "macro_f1"  # the scoring metric stays separate
    assert (plain.harness_metric, plain.harness_filter, plain.metric_label, plain.harness_subtasks, plain.samples) \
        == ("judge_score", "none", "", (), None)


def test_tasks_file_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_TASKS", str(SUITE_FILE))
    assert load_benchmark().name == "CzechSuite"
    monkeypatch.setenv("LEADERBOARD_TASKS", str(tmp_path / "missing.json"))
    with pytest.raises(TasksFileError, match="cannot read the tasks file"):
        load_benchmark()


# --- bad samples of the new metrics ---------------------------------------------------------

@pytest.mark.parametrize("task, index, value, message", [
    ("csfd_sentiment", 2, [0, 3], "macro_f1 predicted_label 3 is out of range (the task's 3 labels are 0..2: "
                                  "negative, neutral, positive; -1 for no valid answer)"),
    ("ctkfacts_nli", 1, [-1, 0], "mcc gold_label -1 is out of range"),
    ("ctkfacts_nli", 0, [0.5, 1], "mcc labels must be whole numbers (class indices), got [0.5, 1]"),
    ("csfd_sentiment", 4, ["positive", 1], "macro_f1 must be a pair [gold_label, predicted_label]"),
    ("chat_1_10", 3, 11, "judge_score must be in [1, 10], got 11"),
    ("helps_answers", 5, {"helpfulness": 1, "relevance": 0.5}, "judge_score has no 'brevity' score"),
    ("helps_answers", 6, {"helpfulness": 1, "relevance": 1.5, "brevity": 0}, "judge_score relevance must be in [0, 1], got 1.5"),
    ("sqad_f1", 0, 1.2, "token_f1 must be in [0, 1], got 1.2"),
    # the offending value exactly (":g" showed 1.0000001 as "1") and that no tolerance applies
    ("sqad_em", 2, 1.0000001, "exact_match must be 0 or 1, got 1.0000001 (exactly: no tolerance)"),
    ("sqad_f1", 1, 1.0000001, "token_f1 must be in [0, 1], got 1.0000001 (exactly: no tolerance)"),
    ("chat_1_10", 4, 0.99999999, "judge_score must be in [1, 10], got 0.99999999 (exactly: no tolerance)"),
])
@pytest.mark.parametrize("built", ["CzechSuite"], indirect=True)  # its tasks have the new metrics
def test_bad_samples_are_refused_naming_task_sample_and_problem(built, tmp_path, task, index, value, message):
    benchmark, tasks, store, sample = built
    document = json.loads(sample.read_text())
    document["predictions"][task][index][benchmark.task(task).metric_name] = value
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    before = tree_digest(store)
    out = cli(tasks, "presubmit", str(bad), "--store", str(store), "--team", "T", "--model", "M")
    assert out.returncode == 2, out.stderr
    assert f"error: task {task}, sample {index} (doc_id " in out.stderr and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert tree_digest(store) == before


@pytest.mark.parametrize("task, index, value, message", [
    ("poner", 0, [1, 0], "micro_f1 must be an object {class: [tp, fp, fn]} of the task's entity classes "
                         "(PER, LOC, ORG, MISC), got [1, 0]"),
    ("poner", 3, {"PER": [1, 0, 0], "DATE": [0, 1, 0]}, "micro_f1 has an unknown entity class 'DATE' "
                                                        "(the task's classes: PER, LOC, ORG, MISC)"),
    ("poner", 2, {"LOC": [1, -1, 0]}, "micro_f1 class LOC: counts [tp, fp, fn] must be whole numbers from 0 to "
                                      "1,000,000,000, got [1, -1, 0]"),
    ("poner", 1, {"MISC": [0.5, 0, 0]}, "micro_f1 class MISC: counts [tp, fp, fn] must be whole numbers"),
    ("poner", 4, {"ORG": [1, 2]}, "micro_f1 class ORG: must be a triple [true_positives, false_positives, "
                                  "false_negatives], got [1, 2]"),
    ("sqad", 5, [3, True, 0], "char_f1 must be a triple [true_positives, false_positives, false_negatives], "
                              "got [3, true, 0] (true/false are not numbers)"),
    ("sqad", 6, "Praha", "char_f1 must be a triple [true_positives, false_positives, false_negatives], got \"Praha\""),
])
@pytest.mark.parametrize("built", ["EuroEval"], indirect=True)  # its tasks have the count metrics
def test_bad_counts_are_refused_naming_task_sample_and_problem(built, tmp_path, task, index, value, message):
    test_bad_samples_are_refused_naming_task_sample_and_problem(built, tmp_path, task, index, value, message)


@pytest.mark.parametrize("built", ["CzechSuite"], indirect=True)
def test_judge_criteria_are_combined_with_the_declared_weights(built):
    """helps_answers declares helpfulness 0.5, relevance 0.3, brevity 0.2: each sample's
    score is that weighted mean of its criteria scores."""
    benchmark, _, _, sample = built
    assert dict(benchmark.task("helps_answers").criteria) == {"helpfulness": 0.5, "relevance": 0.3, "brevity": 0.2}
    document = json.loads(sample.read_text())
    samples = document["predictions"]["helps_answers"]
    given = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.2, 0.6, 1.0)]
    for item, (h, r, b) in zip(samples, given * len(samples)):
        item["judge_score"] = {"brevity": b, "helpfulness": h, "relevance": r}  # any key order
    parsed = parse_submission(json.dumps(document).encode(), benchmark)
    scores = parsed.tasks["helps_answers"].samples[:4]
    assert scores.tolist() == pytest.approx([0.5, 0.3, 0.2, 0.5 * 0.2 + 0.3 * 0.6 + 0.2 * 1.0])


@pytest.mark.parametrize("task", ["csfd_sentiment", "ctkfacts_nli"])  # macro_f1, mcc
@pytest.mark.parametrize("built", ["CzechSuite"], indirect=True)
def test_a_gold_label_differing_from_the_published_ones_is_refused(built, tmp_path, task):
    """The gold label describes the document: a file may not change it (it would change
    what the model is scored against)."""
    benchmark, tasks, store, sample = built
    document = json.loads(sample.read_text())
    metric, k = benchmark.task(task).metric_name, len(benchmark.task(task).labels)
    entry = document["predictions"][task][4]
    gold, predicted = entry[metric]
    entry[metric] = [(gold + 1) % k, predicted]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    before = tree_digest(store)
    out = cli(tasks, "presubmit", str(bad), "--store", str(store), "--team", "T", "--model", "M")
    assert out.returncode == 2, out.stderr
    assert (f"error: task {task}, sample 4 (doc_id {entry['doc_id']}): gold label {(gold + 1) % k} differs from the "
            f"published submissions' {gold}") in out.stderr, out.stderr
    assert tree_digest(store) == before


# Markup of every kind that Gradio's Markdown would render (HTML it sanitises, emphasis, a link, an entity).
MARKUP_NAME = "<b>Bold</b> <img src=x> *Suite* [x](https://example.com) &amp; _v2_"


def test_the_benchmark_name_is_plain_text_on_the_page(chromium, tmp_path):
    """The tasks file's `benchmark` shows as typed in the page's title, heading and About
    tab, as model names do: never as HTML or markdown."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({**json.loads(SUITE_FILE.read_text()), "benchmark": MARKUP_NAME}))
    store = tmp_path / "store"
    assert cli(tasks, "demo", "--store", str(store), "--models", "3").returncode == 0
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")},
           "LEADERBOARD_STORE": str(store), "LEADERBOARD_TASKS": str(tasks),
           "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    process = start_app(env, tmp_path / "app.log")
    try:
        page = open_page(chromium, f"http://127.0.0.1:{port}/")
        expect(page).to_have_title(f"{MARKUP_NAME} duel leaderboard")
        expect(page.locator("#intro h1")).to_have_text(f"{MARKUP_NAME} duel leaderboard")
        page.get_by_role("tab", name="About").click()
        expect(page.locator("#about")).to_contain_text(f"{MARKUP_NAME} has 9 tasks")
        for shown in (page.locator("#intro h1"), page.locator("#about p").filter(has_text="has 9 tasks")):
            expect(shown.locator("b, img, em, a")).to_have_count(0)
        close(page)
    finally:
        process.terminate()
        process.wait(timeout=30)


# --- a EuroEval user's submission (README, "EuroEval") ---------------------------------------

def readme_euroeval_script() -> str:
    section = (ROOT / "README.md").read_text().split("### EuroEval: per-sample files", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def euroeval_rows(benchmark, references, rng):
    """One line per test sample as the README's script reads it: the published gold labels,
    made-up entity spans, answers and summaries, and a model's answer to each."""
    for task in benchmark.tasks:
        reference = references[task.id]
        for i, doc_id in enumerate(reference.doc_ids.tolist()):
            if task.labels:
                gold = task.labels[int(reference.gold[i])]
                row = {"gold": gold, "predicted": rng.choice([*task.labels, gold, "nevím"])}
            elif task.metric_name == "micro_f1":
                gold = [[0, 2, "PER"], [3, 4, rng.choice(["LOC", "MISC"])], [5, 7, "ORG"]]
                predicted = [span for span in gold if rng.random() < 0.6] + [[8, 9, rng.choice(["PER", "MISC"])]]
                row = {"gold": gold, "predicted": predicted}
            else:
                row = {"gold": "Karlův most", "predicted": rng.choice(["Karlův most", "most", "Praha", ""])}
            yield {"task": task.id, "doc_id": doc_id, **row}


@pytest.mark.parametrize("built", ["EuroEval"], indirect=True)
def test_the_readme_script_writes_a_euroeval_submission_that_validates(built, tmp_path):
    benchmark, tasks, store, _ = built
    rows = list(euroeval_rows(benchmark, Leaderboard(LocalStore(store), benchmark).references(), random.Random(38)))
    (tmp_path / "outputs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "script.py").write_text(readme_euroeval_script())
    # sacrebleu is not among the project's packages: a stand-in with its CHRF interface
    (tmp_path / "stub" / "sacrebleu").mkdir(parents=True)
    (tmp_path / "stub" / "sacrebleu" / "__init__.py").write_text("")
    (tmp_path / "stub" / "sacrebleu" / "metrics.py").write_text(
        "from types import SimpleNamespace\n"
        "class CHRF:\n    def __init__(self, word_order, beta): assert (word_order, beta) == (2, 3)\n"
        "    def sentence_score(self, hypothesis, references):\n"
        "        return SimpleNamespace(score=100.0 * (hypothesis == references[0]))\n")
    out = subprocess.run([sys.executable, str(tmp_path / "script.py"), str(tmp_path / "outputs.jsonl"),
                          str(tmp_path / "submission.json")], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "stub")})
    assert out.returncode == 0, out.stderr
    result = cli(tasks, "validate", str(tmp_path / "submission.json"), "--store", str(store))
    assert result.returncode == 0, result.stderr
    parsed = parse_submission((tmp_path / "submission.json").read_bytes(), benchmark)
    ner = [row for row in rows if row["task"] == "poner"]
    gold_tags = [bio_tags(row["gold"]) for row in ner]
    predicted_tags = [bio_tags(row["predicted"]) for row in ner]
    assert benchmark.task("poner").metric.aggregate(parsed.tasks["poner"].samples) == pytest.approx(
        seqeval_f1(gold_tags, predicted_tags, zero_division=0), abs=1e-12)


def bio_tags(spans, length=10, left_out=("MISC",)):
    tags = ["O"] * length
    for start, end, kind in spans:
        if kind not in left_out:
            tags[start:end] = [f"B-{kind}"] + [f"I-{kind}"] * (end - start - 1)
    return tags
