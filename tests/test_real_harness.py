"""`compile` on real lm-evaluation-harness output, read untouched: TruthfulQA-Multi's logs of
four models in five languages (../shared/real_harness/truthfulqa_multi, see its README), with
a tasks file alone (tests/data/truthfulqa_multi_tasks.json: harness_metric bleu_acc, scored
as accuracy, labelled "BLEU accuracy"). Every score is checked against the harness's own
results_*.json and every duel against scipy's paired t-test on the logged values."""
from __future__ import annotations

from support.stores import tree_digest

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from leaderboard.board.publishing import Publishing
from leaderboard.board.state import Leaderboard
from leaderboard.cli import main
from leaderboard.config.tasks import load_benchmark
from leaderboard.errors import BadInput
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import dump_json
from leaderboard.views import details
from leaderboard.views.submission import compile_archive, harness_form, harness_hints

REAL = Path(__file__).resolve().parents[2] / "shared" / "real_harness"  # ../shared/real_harness beside the checkout
LOGS = REAL / "truthfulqa_multi"
TASKS_FILE = Path(__file__).resolve().parent / "data" / "truthfulqa_multi_tasks.json"
LANGUAGES = ("en", "es", "ca", "gl", "eu")
MODELS = ("google__gemma-2-9b-it", "google__gemma-2-9b", "meta-llama__Llama-3.1-8B", "mistralai__Mistral-7B-v0.3")


def harness_record(language: str, model: str) -> tuple[dict, list[tuple[int, float]]]:
    """(the results file, [(doc_id, bleu_acc)] of the samples file) as the harness wrote them."""
    folder = LOGS / language / model
    results = json.loads(next(folder.glob("results_*.json")).read_text())
    with open(next(folder.glob("samples_*.jsonl")), encoding="utf-8") as f:
        samples = [(line["doc_id"], line["bleu_acc"]) for line in map(json.loads, f)]
    return results, samples


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """model -> the compiled submission, from the five language folders of each model."""
    before = tree_digest(LOGS)
    out = tmp_path_factory.mktemp("compiled")
    documents = {}
    for model in MODELS:
        inputs = [a for language in LANGUAGES for a in ("-i", str(LOGS / language / model))]
        assert main(["--tasks", str(TASKS_FILE), "compile", *inputs, "-o", str(out / f"{model}.json")]) == 0
        documents[model] = json.loads((out / f"{model}.json").read_text())
    assert tree_digest(LOGS) == before  # read, never written
    return out, documents


def test_every_score_equals_the_harness_number(compiled):
    benchmark = load_benchmark(TASKS_FILE)
    for model, document in compiled[1].items():
        for task in benchmark.tasks:
            language = task.id.removeprefix("truthfulqa_")
            results, samples = harness_record(language, model)
            reported = results["results"][task.harness]["bleu_acc,none"]
            assert document["results"][task.id]["acc"] == reported, (model, task.id)
            assert document["results"][task.id]["acc_stderr"] == results["results"][task.harness]["bleu_acc_stderr,none"]
            compiled_samples = document["predictions"][task.id]
            assert [(s["doc_id"], s["acc"]) for s in compiled_samples] == sorted(samples) and len(samples) == 817
            assert np.mean([v for _, v in samples]) == pytest.approx(reported, abs=1e-12)


def test_the_compiled_files_validate_publish_and_duel_as_scipy_says(compiled, tmp_path):
    """All four published: the board's score is the harness's number and each duel's p-value
    is scipy's one-tailed paired t-test on the logged bleu_acc values."""
    out, documents = compiled
    benchmark = load_benchmark(TASKS_FILE)
    board = Leaderboard(LocalStore(tmp_path / "store"), benchmark)
    for k, model in enumerate(MODELS):
        assert main(["--tasks", str(TASKS_FILE), "validate", str(out / f"{model}.json")]) == 0
        form = {"team_name": model.split("__")[0], "model_name": model.split("__")[1], "model_type": "pretrained",
                "parameters": 8, "input_length": 8192, "precision": "bfloat16",
                "link_to_model": f"https://huggingface.co/{model.replace('__', '/')}"}
        preview = Publishing(board).presubmit(dump_json(documents[model]), form)
        assert preview.warnings == []  # the samples give the number the results file states
        Publishing(board).publish(preview, submitted_at=1_700_000_000 + k)
    by_model = {m.metadata["model_name"]: sid for sid, m in board.models.items()}
    duels = board.duels().to_json()
    checked = 0
    for a in MODELS:
        for b in MODELS:
            if a == b:
                continue
            entry = duels[by_model[a.split("__")[1]]].get(by_model[b.split("__")[1]], {})
            for task_id, duel in entry.items():
                language = task_id.removeprefix("truthfulqa_")
                x = np.array([v for _, v in sorted(harness_record(language, a)[1])], dtype=float)
                y = np.array([v for _, v in sorted(harness_record(language, b)[1])], dtype=float)
                # the engine skips the test when A's mean is lower: it cannot win that duel
                expected = 1.0 if x.mean() < y.mean() else sps.ttest_rel(x, y, alternative="greater").pvalue
                assert duel["p_value"] == pytest.approx(expected, rel=1e-9), (a, b, task_id)
                checked += 1
    assert checked >= 6 * len(LANGUAGES)  # each pair dueled at least one way on every task


def test_what_is_published_says_what_was_measured_and_keeps_the_machine_out(compiled):
    out, documents = compiled
    text = (out / f"{MODELS[0]}.json").read_text()
    assert str(LOGS) not in text and str(REAL) not in text
    meta = documents[MODELS[0]]["metadata"]
    runs = [r["run"] for r in meta["harness_runs"]]
    assert sorted(runs) == sorted(f"{lang}/{MODELS[0]}/{p.name}" for lang in LANGUAGES
                                  for p in (LOGS / lang / MODELS[0]).glob("results_*.json"))
    rows = dict(details.provenance(meta))
    # these logs predate lm_eval_version but name the harness's commit (issue 32, item 12)
    assert rows["lm-evaluation-harness"] == "commit 9d55d84 (release not recorded)"
    assert rows["transformers"] == "4.42.3"


def test_the_form_takes_the_model_type_from_the_logs_chat_template(compiled):
    """gemma-2-9b-it's logs record a chat template: the form pre-selects the chat type and
    the summary says why; gemma-2-9b's record none, and the form keeps its default."""
    documents = compiled[1]
    chat, base = (documents[m]["metadata"] for m in ("google__gemma-2-9b-it", "google__gemma-2-9b"))
    assert harness_form(chat)["model_type"] == "chat" and "model_type" not in harness_form(base)
    assert any("Model type: chat, as the logs record a chat template" in hint for hint in harness_hints(chat))
    assert not any("Model type" in hint for hint in harness_hints(base))


def test_logs_of_another_benchmark_are_named_not_listed_as_missing(tmp_path, full_benchmark, capsys):
    """One model's TruthfulQA-Multi logs against BenCzechMark: the message says what the
    archive (or the folders) hold and that none of it is a BenCzechMark task, instead of a
    cut-off list of the 50 tasks missing (issue 32, item 10)."""
    archive = tmp_path / "gemma.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(LOGS.glob("*/google__gemma-2-9b/*")):
            z.write(path, path.relative_to(LOGS).as_posix())
    held = ("holds 5 harness tasks (truthfulqa-multi_gen_ca, truthfulqa-multi_gen_en, truthfulqa-multi_gen_es, "
            "truthfulqa-multi_gen_eu, truthfulqa-multi_gen_gl) of google/gemma-2-9b; none is a task of BenCzechMark")
    with pytest.raises(BadInput) as refused:
        compile_archive(Leaderboard(LocalStore(tmp_path / "store"), full_benchmark), str(archive))
    assert refused.value.problems == [f"the archive {held}"], refused.value.problems
    inputs = [str(LOGS / language / "google__gemma-2-9b") for language in LANGUAGES]
    assert main(["compile", "-i", *inputs, "-o", str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert f"error: the inputs {held}" in err and "in none of the runs" not in err, err
