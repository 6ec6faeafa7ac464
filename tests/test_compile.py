"""`compile`: lm-evaluation-harness output (written by harness_logs.py in the harness's own
layout) -> a submission file; every problem named; safe extraction of uploaded archives."""
from __future__ import annotations

from support.cli import cli
from support.stores import SMALL_TASKS

import html
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt

from harness_logs import DATE_A, DATE_B, MODEL, sanitize_model_name, write_run, write_two_runs
from leaderboard.submission.archive import extracted
from leaderboard.temp_disk import LimitReached, TempDiskBudget
from leaderboard.cli import main
from leaderboard.submission.demo import demo_model
from leaderboard.board.state import Leaderboard
from leaderboard.errors import BadInput
from leaderboard.storage.local import LocalStore
from leaderboard.config.tasks import load_benchmark
from support.disk_budget import bytes_held

# The small benchmark with harness names of its own: compile is not tied to BenCzechMark.
MINI_HARNESS = {"t_acc": ("mini_quiz", True), "t_em": ("mini_open_qa", False), "t_auc": ("mini_nli", True),
                "t_ppl": ("mini_corpus", True), "t_rouge": ("mini_summaries", False)}


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    tasks = json.loads(json.dumps(SMALL_TASKS))
    for t in tasks["tasks"]:
        t["harness_task"], t["harness_prompt_variants"] = MINI_HARNESS[t["id"]]
    tasks["harness_deprecated"] = ["mini_retired"]
    path = tmp_path_factory.mktemp("mini") / "tasks.json"
    path.write_text(json.dumps(tasks))
    benchmark = load_benchmark(path)
    return path, benchmark, demo_model(benchmark, 3, seed=0)[1]


def compile_cli(tasks_file, inputs, output, *flags, capsys=None):
    args = ["--tasks", str(tasks_file), "compile", *[a for i in inputs for a in ("-i", str(i))], "-o", str(output),
            *flags]
    code = main(args)
    return code, capsys.readouterr() if capsys else None


def metric_values(document, task):
    return [(s["doc_id"], s[task.metric_name]) for s in document["predictions"][task.id]]


# --- the whole path ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def full_logs(tmp_path_factory, full_benchmark):
    """All 50 BenCzechMark tasks over two run folders; benczechmark_agree has 12 prompt
    variants and its best is prompt 10 (the reference read the prompt number from the
    alias's last character)."""
    root = tmp_path_factory.mktemp("harness")
    document = demo_model(full_benchmark, 7, seed=0)[1]  # the new_model_file's samples
    write_two_runs(root, full_benchmark, document, variants={"benczechmark_agree": 12},
                   best={"benczechmark_agree": 10, "benczechmark_snli": 0})
    return root, document


def test_compile_validate_presubmit_end_to_end(full_logs, full_benchmark, full_store, tmp_path):
    root, document = full_logs
    out = tmp_path / "submission.json"
    compiled = cli("compile", "-i", root / "run_a", "-i", root / "run_*", "-o", out)
    assert compiled.returncode == 0, compiled.stderr
    assert "50 tasks" in compiled.stdout and MODEL in compiled.stdout
    result = json.loads(out.read_text())
    for task in full_benchmark.tasks:  # the best variant's samples, in doc_id order
        assert metric_values(result, task) == metric_values(document, task), task.id
    agree = result["results"]["benczechmark_agree"]
    assert agree["harness_task"] == "benchmark_agree_10" and agree["prompt_variants"] == 12
    assert result["results"]["benczechmark_snli"]["harness_task"] == "benczechmark_snli_0"
    assert "max_centered_variance" not in result["results"]["benczechmark_histcorpus"]  # no variants
    meta = result["metadata"]
    assert meta["lm_eval_version"] == "0.4.13" and meta["max_length"] == 4096 and meta["model_name"] == MODEL
    assert len(meta["task_hashes"]) == 50 and meta["n-shot"]["benczechmark_agree"] == 0
    assert meta["total_evaluation_time_seconds"] == 7800.0 and len(meta["harness_runs"]) == 2
    validated = cli("validate", out, "--store", full_store)
    assert validated.returncode == 0 and "valid, 50 tasks" in validated.stdout, validated.stderr
    ranked = cli("presubmit", out, "--store", full_store, "--team", "Harness", "--model", "compiled", "--json")
    assert ranked.returncode == 0, ranked.stderr
    preview = json.loads(ranked.stdout)
    assert preview["rank"] >= 1 and preview["opponents"] > 0 and len(preview["tasks"]) == 50


def test_best_variant_follows_the_metric_direction_and_spread_is_max_centered(mini, tmp_path, capsys):
    tasks_file, benchmark, document = mini
    write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A,
              variants={"t_ppl": 4, "t_acc": 11}, best={"t_ppl": 1, "t_acc": 9})
    code, _ = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 0
    result = json.loads((tmp_path / "s.json").read_text())
    logs = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    ppl = [logs[f"mini_corpus_{k}"]["word_perplexity,none"] for k in range(4)]
    assert int(np.argmin(ppl)) == 1 and result["results"]["t_ppl"]["harness_task"] == "mini_corpus_1"  # lower wins
    assert result["results"]["t_ppl"]["word_perplexity"] == pytest.approx(min(ppl))
    assert result["results"]["t_ppl"]["max_centered_variance"] == pytest.approx(
        sum((100 * x - 100 * min(ppl)) ** 2 for x in ppl) / 3)
    assert result["results"]["t_acc"]["harness_task"] == "mini_quiz_9"
    assert metric_values(result, benchmark.task("t_ppl")) == metric_values(document, benchmark.task("t_ppl"))
    # exact match is logged under two filters: the "none" lines are kept, not the strict-match zeros
    assert metric_values(result, benchmark.task("t_em")) == metric_values(document, benchmark.task("t_em"))


def test_deprecated_tasks_are_skipped_with_a_note(mini, tmp_path, capsys):
    tasks_file, benchmark, document = mini
    write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A, extra_tasks=("mini_retired",))
    code, io = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 0 and "note: " in io.err and "skipped mini_retired" in io.err


# --- one test per error: exit 2, the message names task and file, nothing written ---------

def refused(mini, tmp_path, capsys, *flags, inputs=None) -> str:
    tasks_file = mini[0]
    out = tmp_path / "s.json"
    code, io = compile_cli(tasks_file, inputs or [tmp_path / "out"], out, *flags, capsys=capsys)
    assert code == 2 and "Traceback" not in io.err
    assert not out.exists() and not Path(f"{out}.partial").exists()
    return io.err


def test_benchmark_task_missing_from_the_logs(mini, tmp_path, capsys):
    _, benchmark, document = mini
    write_run(tmp_path / "out", benchmark, ["t_acc", "t_em", "t_auc"], document, DATE_A)
    err = refused(mini, tmp_path, capsys)
    assert "2 of 5 Mini tasks are in none of the runs: t_ppl (harness: mini_corpus), t_rouge" in err


def test_a_variants_samples_file_missing(mini, tmp_path, capsys):
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    (path.parent / f"samples_mini_nli_1_{DATE_A}.jsonl").unlink()
    err = refused(mini, tmp_path, capsys)
    assert f"task t_auc ({path})" in err and f"samples file samples_mini_nli_1_{DATE_A}.jsonl is missing" in err


def test_a_metric_missing_from_a_result(mini, tmp_path, capsys):
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    logs = json.loads(path.read_text())
    del logs["results"]["mini_quiz_2"]["acc,none"]
    path.write_text(json.dumps(logs))
    err = refused(mini, tmp_path, capsys)
    assert "task t_acc" in err and "mini_quiz_2 has no result for acc" in err


def test_every_problem_of_a_run_is_listed_at_once(mini, tmp_path, capsys):
    """Problems in several tasks and runs come back together, not one per attempt."""
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, ["t_acc", "t_auc", "t_ppl", "t_rouge"], document, DATE_A,
                     extra_tasks=("mystery_task",))
    (path.parent / f"samples_mini_nli_1_{DATE_A}.jsonl").unlink()
    logs = json.loads(path.read_text())
    del logs["results"]["mini_quiz_2"]["acc,none"]
    path.write_text(json.dumps(logs))
    err = refused(mini, tmp_path, capsys, "--strict")
    for problem in ("mystery_task", "1 of 5 Mini tasks are in none of the runs: t_em", "mini_quiz_2 has no result for acc",
                    f"samples file samples_mini_nli_1_{DATE_A}.jsonl is missing"):
        assert problem in err, (problem, err)


def test_variants_with_different_document_counts(mini, tmp_path, capsys):
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    samples = path.parent / f"samples_mini_quiz_0_{DATE_A}.jsonl"
    samples.write_text("".join(samples.read_text().splitlines(keepends=True)[:-1]))
    err = refused(mini, tmp_path, capsys)
    n = len(document["predictions"]["t_acc"])
    assert f"variants mini_quiz_2 ({n} documents) and mini_quiz_0 ({n - 1}) differ in document count" in err


def test_variants_with_different_doc_ids(mini, tmp_path, capsys):
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    samples = path.parent / f"samples_mini_nli_0_{DATE_A}.jsonl"
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    lines[5]["doc_id"] = 10_000
    samples.write_text("".join(json.dumps(s) + "\n" for s in lines))
    err = refused(mini, tmp_path, capsys)
    assert "variants mini_nli_2 and mini_nli_0 have different doc_ids" in err


def test_two_runs_with_the_same_task_unless_newest(mini, tmp_path, capsys):
    _, benchmark, document = mini
    older = write_run(tmp_path / "out" / "a", benchmark, benchmark.task_ids, document, DATE_A)
    newer = write_run(tmp_path / "out" / "b", benchmark, ["t_acc"], document, DATE_B, best={"t_acc": 0})
    err = refused(mini, tmp_path, capsys)
    assert f"task t_acc: evaluated in 2 runs ({older}, {newer})" in err and "--newest" in err
    code, io = compile_cli(mini[0], [tmp_path / "out"], tmp_path / "s.json", "--newest", capsys=capsys)
    assert code == 0 and "kept the newest run" in io.err
    assert json.loads((tmp_path / "s.json").read_text())["results"]["t_acc"]["harness_task"] == "mini_quiz_0"


def test_runs_of_different_models(mini, tmp_path, capsys):
    _, benchmark, document = mini
    write_run(tmp_path / "out", benchmark, ["t_acc", "t_em"], document, DATE_A)
    write_run(tmp_path / "out", benchmark, ["t_auc", "t_ppl", "t_rouge"], document, DATE_B, model="other/model")
    assert "the runs are of different models" in refused(mini, tmp_path, capsys)


def test_no_results_at_the_path(mini, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    err = refused(mini, tmp_path, capsys, inputs=[tmp_path / "empty"])
    assert f"{tmp_path / 'empty'}: no harness results" in err and "none of the runs" not in err


# --- archives ------------------------------------------------------------------------------

def make_zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            z.writestr(info, data)
    return path


def symlink_entry(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


@pytest.mark.parametrize("entries, limits, message", [
    ([("ok.txt", b"x"), ("../escape.txt", b"x")], {}, "'../escape.txt' points outside"),
    ([("/etc/evil", b"x")], {}, "'/etc/evil' is an absolute path"),
    ([symlink_entry("run/link", "/etc/passwd")], {}, "'run/link' is a symbolic link"),
    ([("big.jsonl", b"0" * 5000)], {"max_unpacked": 4000}, "'big.jsonl' unpacks to"),
    ([(f"f{i}.json", b"{}") for i in range(30)], {"max_members": 20}, "30 entries, more than the limit of 20"),
    ([("a.json", b"{}")], {"max_archive": 10}, "the archive is 0 MB, more than the limit"),
    ([("run/a.json", b"{}"), ("run/b.json", b"{}"), ("run/a.json", b"[]")], {},
     "'run/a.json' is in the archive twice"),
    ([("run/a.json", b"{}"), ("run/./a.json", b"[]")], {}, "'run/./a.json' is in the archive twice"),
    ([("run/a", b"x"), ("run/a/b.json", b"{}")], {}, "'run/a' is both a file and a folder"),
    ([("run/a/b.json", b"{}"), ("run/a", b"x")], {}, "'run/a' is both a file and a folder"),
    ([("run/" + "x" * 300 + ".json", b"{}")], {}, "has a name part longer than 255 bytes"),
    ([("/".join(["d" * 200] * 30) + "/r.json", b"{}")], {}, "has a name longer than 1,024 bytes"),
])
@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_unsafe_archives_are_refused_and_nothing_is_left(tmp_path, entries, limits, message):
    archive = make_zip(tmp_path / "upload.zip", entries)
    parent = tmp_path / "unpack"
    parent.mkdir()
    with pytest.raises(BadInput) as e:
        with extracted(archive, parent, **limits):
            pytest.fail("an unsafe archive was extracted")
    assert message in str(e.value) and len(str(e.value)) < 600
    assert list(parent.iterdir()) == [] and not (tmp_path / "escape.txt").exists()


def test_an_archive_that_lies_about_sizes_stops_at_the_limit(tmp_path):
    archive = make_zip(tmp_path / "upload.zip", [("big.jsonl", b"0" * 50_000)])
    data = bytearray(archive.read_bytes())  # declare 100 bytes in both headers; it inflates to 50,000
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature) + offset
        data[at:at + 4] = (100).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    parent = tmp_path / "unpack"
    parent.mkdir()
    with pytest.raises(BadInput):
        with extracted(archive, parent, max_unpacked=1000):
            pass
    assert list(parent.iterdir()) == []


def test_not_a_zip(tmp_path):
    path = tmp_path / "upload.zip"
    path.write_text("not a zip")
    with pytest.raises(BadInput, match="upload.zip is not a readable .zip archive"):
        with extracted(path, tmp_path):
            pass


def test_a_zip_of_harness_output_compiles_and_the_folder_is_removed(mini, tmp_path):
    from leaderboard.submission.harness import compile_runs
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    archive = make_zip(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                               for p in path.parent.iterdir()])
    parent = tmp_path / "unpack"
    parent.mkdir()
    with extracted(archive, parent) as folder:
        assert (folder / "out" / sanitize_model_name(MODEL) / path.name).is_file()
        compiled, _ = compile_runs([str(folder)], benchmark)
    assert compiled["metadata"]["model_name"] == MODEL
    assert list(parent.iterdir()) == []
    assert os.listdir(parent) == []


def test_an_archive_without_results_is_refused_naming_no_server_path(small_store, tmp_path):
    from leaderboard.views.submission import compile_archive
    archive = make_zip(tmp_path / "logs.zip", [("out/notes.txt", b"no results here")])
    with pytest.raises(BadInput) as e:
        compile_archive(small_store, str(archive))
    message = str(e.value)
    assert "the archive: no harness results (results_<date>.json) found" in message, message
    assert "harness-" not in message and str(Path(tempfile.gettempdir())) not in message, message


def test_the_compiled_summary_shows_the_logs_model_name_literally(small_store, tmp_path):
    """The logs' model_name is the submitter's text: in the summary's code span a backtick
    must not end the span and let the rest render as markup (issue 32, item 16)."""
    from leaderboard.views.submission import compile_archive
    benchmark = small_store.benchmark
    name = "org/a`b **bold** <img src=x> ``c"
    document = demo_model(benchmark, 7, seed=0)[1]
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A, model=name)
    archive = make_zip(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                               for p in path.parent.iterdir()])
    summary = compile_archive(small_store, str(archive)).summary
    rendered = MarkdownIt().render(summary)
    assert f"<code>{html.escape(name, quote=False)}</code>" in rendered, rendered
    assert "<strong>bold" not in rendered and "<img" not in rendered


def test_a_local_checkpoint_path_fills_the_model_name_with_a_hint_to_edit_it(small_store, tmp_path):
    """The harness's model_name of a local checkpoint is a path on the submitter's machine:
    its last part fills the form, and the summary asks for the model's public name."""
    from leaderboard.views.submission import compile_archive
    benchmark = small_store.benchmark
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, demo_model(benchmark, 7, seed=0)[1], DATE_A,
                     model="/scratch/project/dd-24-5/ckpt/step-5000")
    archive = make_zip(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                               for p in path.parent.iterdir()])
    compiled = compile_archive(small_store, str(archive))
    assert compiled.form["model_name"] == "step-5000" and "team_name" not in compiled.form
    assert ("Model name: step-5000, the last part of a local path in the logs; give the model's public name"
            in html.unescape(compiled.summary.replace("\\", ""))), compiled.summary


def test_an_archive_is_compiled_under_the_board_it_is_uploaded_to(small_store, tmp_path):
    """Each call compiles the archive it is given for its own board: nothing from an earlier
    call on the same path (another board's, another benchmark's) answers for it."""
    from leaderboard.views.submission import compile_archive
    benchmark = small_store.benchmark
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, demo_model(benchmark, 7, seed=0)[1], DATE_A)
    archive = make_zip(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                               for p in path.parent.iterdir()])
    assert json.loads(compile_archive(small_store, str(archive)).data)["metadata"]["model_name"] == MODEL
    other = Leaderboard(LocalStore(tmp_path / "other"), load_benchmark())  # BenCzechMark: none of these tasks
    with pytest.raises(BadInput):
        compile_archive(other, str(archive))


def test_unpacking_holds_the_declared_size_of_the_temporary_disk_before_writing(tmp_path):
    budget = TempDiskBudget(10 * 2**20)
    archive = make_zip(tmp_path / "upload.zip", [("run/samples_a.jsonl", bytes(6 * 2**20))])
    parent = tmp_path / "unpack"
    parent.mkdir()
    upload = budget.reserve(5 * 2**20, "An upload", seconds=600)
    with pytest.raises(LimitReached, match=r"Unpacking the archive needs 6 MB of temporary space and the server's is "
                                           r"in use by other uploads \(5 MB of 10 MB\); try again in 10 minutes"):
        with extracted(archive, parent, budget=budget):
            pytest.fail("unpacked past the budget")
    assert list(parent.iterdir()) == []
    budget.release(upload)
    with extracted(archive, parent, budget=budget) as folder:
        assert bytes_held(budget) == 6 * 2**20 and (folder / "run" / "samples_a.jsonl").stat().st_size == 6 * 2**20
    assert bytes_held(budget) == 0 and list(parent.iterdir()) == []
    with pytest.raises(LimitReached, match="needs 12 MB of temporary space, more than this server's 10 MB in all"):
        with extracted(make_zip(tmp_path / "big.zip", [("run/b.jsonl", bytes(12 * 2**20))]), parent, budget=budget):
            pass


# --- the harness side of a task: metric key, filter, subtasks, document counts (issue 22) ---

BBH = ["mini_bbh_navigate", "mini_bbh_snarks", "mini_bbh_date"]


def mini_variant(tmp_path: Path, changes: dict[str, dict], name: str = "tasks.json") -> tuple[Path, object]:
    """The Mini tasks file of `mini` with some tasks' fields changed; (path, benchmark)."""
    tasks = json.loads(json.dumps(SMALL_TASKS))
    for t in tasks["tasks"]:
        t["harness_task"], t["harness_prompt_variants"] = MINI_HARNESS[t["id"]]
        t.update(changes.get(t["id"], {}))
    path = tmp_path / name
    path.write_text(json.dumps(tasks))
    return path, load_benchmark(path)


def test_the_named_harness_metric_and_filter_are_read(mini, tmp_path, capsys):
    """acc_norm logged beside acc, exact_match under strict-match beside flexible-extract:
    the tasks file's harness_metric and harness_filter pick the values; the scoring metric
    stays acc / exact_match."""
    document = mini[2]
    tasks_file, benchmark = mini_variant(tmp_path, {
        "t_acc": {"harness_task": "mini_hellaswag", "harness_prompt_variants": False, "harness_metric": "acc_norm",
                  "metric_label": "normalised accuracy"},
        "t_em": {"harness_task": "mini_gsm", "harness_filter": "strict-match"}})
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    code, io = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 0, io.err
    result, logs = json.loads((tmp_path / "s.json").read_text()), json.loads(path.read_text())["results"]
    for task_id, key in (("t_acc", "acc_norm,none"), ("t_em", "exact_match,strict-match")):
        task = benchmark.task(task_id)
        assert metric_values(result, task) == metric_values(document, task), task_id
        assert result["results"][task_id][task.metric_name] == logs[task.harness][key]
    assert logs["mini_hellaswag"]["acc,none"] != logs["mini_hellaswag"]["acc_norm,none"]  # the decoy differs


def test_a_missing_harness_metric_or_filter_names_what_the_run_has(mini, tmp_path, capsys):
    _, benchmark = mini_variant(tmp_path, {"t_em": {"harness_task": "mini_gsm", "harness_filter": "strict-match"}})
    write_run(tmp_path / "out", benchmark, benchmark.task_ids, mini[2], DATE_A)
    wrong, _ = mini_variant(tmp_path, {"t_em": {"harness_task": "mini_gsm", "harness_filter": "get-answer"}},
                            "wrong.json")
    err = refused((wrong,), tmp_path, capsys)
    assert ("task t_em" in err and "mini_gsm has no result for exact_match with filter get-answer (it has: "
            "exact_match,strict-match, exact_match,flexible-extract)" in err), err


def test_a_run_of_another_harness_task_version_is_refused_naming_both(mini, tmp_path, capsys):
    """`harness_versions` names the versions a task accepts; the run's `versions` says
    which it is (issue 32, item 11)."""
    _, _, document = mini
    tasks_file, benchmark = mini_variant(tmp_path, {"t_em": {"harness_versions": [2, "2.1"]}})
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    code, out = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 2 and (f"task t_em ({path}): mini_open_qa is version 1.0 of the harness task; the tasks file "
                          f"accepts 2.0, 2.1 (harness_versions)") in out.err, out.err
    write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A, versions={"mini_open_qa": 2.0})
    assert compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)[0] == 0
    logs = json.loads(path.read_text())
    del logs["versions"]["mini_open_qa"]
    path.write_text(json.dumps(logs))
    code, out = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 2 and "mini_open_qa has no version in the run's 'versions'; the tasks file accepts 2.0, 2.1" \
        in out.err, out.err


def test_an_aggregated_task_concatenates_its_subtasks_in_the_stated_order(mini, tmp_path, capsys):
    """Three subtasks of unequal size run as a group whose entry is the mean of subtask
    means (as BBH's): the task is their samples in the tasks file's order, doc ids offset by
    the documents before, the score the sample-weighted mean, and the other aggregate named."""
    document = mini[2]
    n = len(document["predictions"]["t_acc"])
    tasks_file, benchmark = mini_variant(tmp_path, {"t_acc": {
        "harness_task": "mini_bbh", "harness_prompt_variants": False, "harness_subtasks": BBH,
        "harness_metric": "acc_norm", "samples": n}})
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    logs = json.loads(path.read_text())
    code, io = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 0, io.err
    result = json.loads((tmp_path / "s.json").read_text())
    task = benchmark.task("t_acc")
    assert metric_values(result, task) == metric_values(document, task)  # doc ids 0..n-1 again, in order
    subtasks = [s["subtask"] for s in result["predictions"]["t_acc"]]
    sizes = [logs["n-samples"][b]["effective"] for b in BBH]
    assert subtasks == [b for b, k in zip(BBH, sizes) for _ in range(k)] and len(set(sizes)) == 3
    weighted = float(np.mean([s["acc"] for s in document["predictions"]["t_acc"]]))
    assert result["results"]["t_acc"]["acc"] == pytest.approx(weighted, abs=1e-12)
    harness = logs["results"]["mini_bbh"]["acc_norm,none"]
    assert harness == pytest.approx(np.mean([logs["results"][b]["acc_norm,none"] for b in BBH]))
    assert abs(harness - weighted) > 1e-4
    assert (f"task t_acc: the sample-weighted mean of 3 subtasks, {weighted:.4f}; the harness reports "
            f"{harness:.4f} for mini_bbh (another aggregate, e.g. a mean of subtask means)") in io.err
    aggregated = result["metadata"]["aggregated_tasks"]["t_acc"]
    assert aggregated == {"subtasks": BBH, "documents": sizes, "harness_group": "mini_bbh",
                          "harness_value": harness}
    validated = main(["--tasks", str(tasks_file), "validate", str(tmp_path / "s.json")])
    assert validated == 0


def test_an_aggregated_task_missing_a_subtask_is_refused_naming_it(mini, tmp_path, capsys):
    tasks_file, benchmark = mini_variant(tmp_path, {"t_acc": {
        "harness_task": "mini_bbh", "harness_prompt_variants": False, "harness_subtasks": BBH}})
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, mini[2], DATE_A)
    logs = json.loads(path.read_text())
    for section in ("results", "configs", "n-samples"):
        del logs[section]["mini_bbh_snarks"]
    logs["group_subtasks"]["mini_bbh"].remove("mini_bbh_snarks")
    path.write_text(json.dumps(logs))
    err = refused((tasks_file,), tmp_path, capsys)
    assert "task t_acc" in err and "has 2 of its 3 subtasks; missing: mini_bbh_snarks" in err, err


def test_harness_tasks_no_benchmark_task_maps_are_ignored_with_a_note_unless_strict(mini, tmp_path, capsys):
    tasks_file, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A,
                     extra_tasks=("mystery_task", "mini_retired"))
    code, io = compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)
    assert code == 0, io.err
    assert f"note: {path}: ignored 1 harness task that no Mini task maps: mystery_task" in io.err
    assert "skipped mini_retired, listed in the tasks file's harness_deprecated" in io.err
    assert "no longer scores" not in io.err
    (tmp_path / "s.json").unlink()
    err = refused(mini, tmp_path, capsys, "--strict")
    assert "mystery_task" in err and "no Mini task maps" in err and "--strict" in err


def test_a_run_made_with_limit_is_refused_by_compile(mini, tmp_path, capsys):
    """The harness records --limit in config.limit and n-samples: refused even when the
    tasks file states no document counts."""
    tasks_file, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A, limit=10)
    err = refused(mini, tmp_path, capsys)
    n = len(document["predictions"]["t_em"])
    assert f"task t_em ({path}): the run evaluated 10 of {n} documents of mini_open_qa (it was made with --limit 10)" \
        in err, err


def test_a_short_task_against_its_stated_samples_is_refused_by_compile_and_validate(mini, tmp_path, capsys):
    """Logs that do not record the limit (older harness releases): the tasks file's
    `samples` catches them; validate refuses a submission file with fewer samples too."""
    document = mini[2]
    n = len(document["predictions"]["t_em"])
    tasks_file, benchmark = mini_variant(tmp_path, {"t_em": {"samples": n}})
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A, limit=10)
    logs = json.loads(path.read_text())
    del logs["n-samples"], logs["config"]["limit"]
    path.write_text(json.dumps(logs))
    err = refused((tasks_file,), tmp_path, capsys)
    message = f"has 10 documents, but a full run has {n:,} (the tasks file's 'samples'); was the harness run with --limit?"
    assert f"task t_em ({path}): {message}" in err, err
    short = {**document, "predictions": {**document["predictions"], "t_em": document["predictions"]["t_em"][:10]}}
    (tmp_path / "short.json").write_text(json.dumps(short))
    assert main(["--tasks", str(tasks_file), "validate", str(tmp_path / "short.json")]) == 2
    assert f"task t_em: {message}" in capsys.readouterr().err


def test_several_paths_after_one_input_option(mini, tmp_path, capsys):
    """`compile -i a b c` (as a shell glob expands `-i out/*`) reads every path, like
    `-i a -i b -i c`, and the two forms mix (issue 32, item 12)."""
    tasks_file, benchmark, document = mini
    folders = [tmp_path / "out" / name for name in ("a", "b", "c")]
    for folder, tasks in zip(folders, (["t_acc", "t_em"], ["t_auc", "t_ppl"], ["t_rouge"])):
        write_run(folder, benchmark, tasks, document, DATE_A)
    for k, args in enumerate((["-i", *map(str, folders)], ["-i", str(folders[0]), "-i", *map(str, folders[1:])])):
        output = tmp_path / f"s{k}.json"
        code = main(["--tasks", str(tasks_file), "compile", *args, "-o", str(output)])
        assert code == 0, capsys.readouterr().err
        assert set(json.loads(output.read_text())["predictions"]) == set(benchmark.task_ids)


def test_provenance_keys_runs_by_their_place_under_the_inputs_not_the_machines_folders(mini, tmp_path, capsys):
    tasks_file, benchmark, document = mini
    a = write_run(tmp_path / "out" / "run_a", benchmark, ["t_acc", "t_em"], document, DATE_A)
    b = write_run(tmp_path / "out" / "run_b", benchmark, ["t_auc", "t_ppl", "t_rouge"], document, DATE_B)
    logs = json.loads(b.read_text())
    logs["transformers_version"] = "4.57.1"
    b.write_text(json.dumps(logs))
    code, io = compile_cli(tasks_file, [tmp_path / "out" / "run_a", tmp_path / "out" / "run_b"], tmp_path / "s.json",
                           capsys=capsys)
    assert code == 0, io.err
    text = (tmp_path / "s.json").read_text()
    meta = json.loads(text)["metadata"]
    folder = sanitize_model_name(MODEL)
    assert meta["transformers_version"] == {f"run_a/{folder}/{a.name}": "4.51.3",
                                            f"run_b/{folder}/{b.name}": "4.57.1"}
    assert [r["run"] for r in meta["harness_runs"]] == [f"run_a/{folder}/{a.name}", f"run_b/{folder}/{b.name}"]
    assert str(tmp_path) not in text and "/tmp" not in text


def test_a_zip_upload_publishes_no_server_folder(mini, tmp_path):
    from leaderboard.submission.harness import compile_runs
    _, benchmark, document = mini
    a = write_run(tmp_path / "out" / "run_a", benchmark, ["t_acc", "t_em"], document, DATE_A)
    b = write_run(tmp_path / "out" / "run_b", benchmark, ["t_auc", "t_ppl", "t_rouge"], document, DATE_B,
                  chat_template="{{ messages }}")
    archive = make_zip(tmp_path / "logs.zip", [(str(p.relative_to(tmp_path)), p.read_bytes())
                                               for p in (tmp_path / "out").rglob("*") if p.is_file()])
    parent = tmp_path / "unpack"
    parent.mkdir()
    with extracted(archive, parent) as folder:
        compiled, _ = compile_runs([str(folder)], benchmark)
    text = json.dumps(compiled)
    assert str(parent) not in text and tempfile.gettempdir() not in text and "/tmp" not in text
    assert set(compiled["metadata"]["chat_template"]) == {f"run_a/{sanitize_model_name(MODEL)}/{a.name}",
                                                          f"run_b/{sanitize_model_name(MODEL)}/{b.name}"}


LFS_POINTER = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


def test_a_git_lfs_pointer_is_named_as_such(mini, tmp_path, capsys):
    _, benchmark, document = mini
    path = write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    (path.parent / f"samples_mini_open_qa_{DATE_A}.jsonl").write_text(LFS_POINTER)
    err = refused(mini, tmp_path, capsys)
    assert (f"samples_mini_open_qa_{DATE_A}.jsonl: the file is a Git LFS pointer, not the file itself: "
            "run git lfs pull") in err and "not valid JSON" not in err
    path.write_text(LFS_POINTER)
    err = refused(mini, tmp_path, capsys)
    assert f"{path}: the file is a Git LFS pointer, not the file itself: run git lfs pull" in err, err


def test_a_first_submission_shows_its_document_counts_in_the_preview(mini, small_store, tmp_path, capsys):
    """Nothing published and no `samples` in the tasks file: the preview lists each task's
    document count (the only place a --limit run could be noticed); once a model is
    published, later files must match its counts instead."""
    tasks_file, benchmark, _ = mini
    document = demo_model(benchmark, 7, seed=0)[1]  # one the small store has not published
    write_run(tmp_path / "out", benchmark, benchmark.task_ids, document, DATE_A)
    assert compile_cli(tasks_file, [tmp_path / "out"], tmp_path / "s.json", capsys=capsys)[0] == 0
    form = ["--team", "Harness", "--model", "compiled"]
    counts = ", ".join(f"{t} {len(document['predictions'][t]):,}" for t in benchmark.task_ids)
    assert main(["--tasks", str(tasks_file), "presubmit", str(tmp_path / "s.json"), "--store",
                 str(tmp_path / "empty"), *form]) == 0
    err = capsys.readouterr().err
    assert (f"warning: the first submission: documents per task {counts}; nothing published to compare them with "
            f"and the tasks file states no 'samples', so check these are full runs (not made with --limit)") in err, err
    assert main(["--tasks", str(tasks_file), "presubmit", str(tmp_path / "s.json"), "--store",
                 str(small_store.store.root), *form]) == 0
    assert "documents per task" not in capsys.readouterr().err


def upload_handler(board):
    """The Submit tab's handler of a finished upload, as the served page calls it (its form
    built as a page session's first open of the tab builds it)."""
    from leaderboard.app.page import build_app
    from support.signin_pages import built_submit_form
    return built_submit_form(build_app(board))[0].uploaded


def test_an_uploaded_json_file_leaves_the_form_as_typed(small_store, tmp_path):
    """A JSON file has nothing to fill in: the upload's handler must not send the form's fields
    back as they were when the upload began, which undid what was typed meanwhile (under load,
    the parameters and input length typed while the file uploaded came back empty)."""
    import gradio as gr
    uploaded = upload_handler(small_store)
    path = tmp_path / "model.json"
    path.write_text("{}")
    answer = uploaded(str(path), "", "", None, None, None, None, request=None)
    form = [v for k, v in answer.items() if getattr(k, "elem_id", None) in ("team", "model", "params", "input-length")]
    assert len(form) == 4
    assert all(v == gr.update() for v in form), form
