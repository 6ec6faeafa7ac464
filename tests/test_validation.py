"""Every validation rule, with a bad file published through the command line:
a specific message, exit code 2, and a store left byte-for-byte unchanged."""
from __future__ import annotations

import copy
import json

import pytest

from conftest import tree_digest
from leaderboard.cli import main
from leaderboard.store import LocalStore
from leaderboard.submission import SubmissionError, parse_submission, validate_metadata

ACC_TASK = "benczechmark_hellaswag"
EM_TASK = "benczechmark_cs_naturalquestions"
AUC_TASK = "benczechmark_snli"
PPL_TASK = "benczechmark_essay"
FORM = ["--team", "Tester", "--model", "Bad-1", "--type", "chat", "--params", "7", "--input-length", "4096",
        "--precision", "bfloat16", "--link", "https://example.com/m"]


@pytest.fixture(scope="module")
def valid_document(new_model_file):
    return json.loads(new_model_file.read_text())


def set_value(doc, task, index, value):
    sample = doc["predictions"][task][index]
    metric = next(k for k in sample if k != "doc_id")
    sample[metric] = value


def n_classes(doc):
    return len(doc["predictions"][AUC_TASK][0]["avg_mcauroc"][1])


def _drop_task(doc):
    del doc["predictions"][AUC_TASK]


def _extra_task(doc):
    doc["predictions"]["benczechmark_summarization"] = [{"rouge_raw_r2_mid_f": 0.2, "doc_id": 0}]


def _probs_wrong_count(doc):
    gold, probs = doc["predictions"][AUC_TASK][5]["avg_mcauroc"]
    doc["predictions"][AUC_TASK][5]["avg_mcauroc"] = [gold, probs[:-1]]


def _all_probs_extra_class(doc):
    for s in doc["predictions"][AUC_TASK]:
        gold, probs = s["avg_mcauroc"]
        s["avg_mcauroc"] = [gold, probs + [0.0]]


def _gold_changed(doc):
    gold, probs = doc["predictions"][AUC_TASK][7]["avg_mcauroc"]
    doc["predictions"][AUC_TASK][7]["avg_mcauroc"] = [(gold + 1) % len(probs), probs]


def _drop_sample(doc):
    doc["predictions"][ACC_TASK].pop()


def _swap_doc_ids(doc):
    samples = doc["predictions"][ACC_TASK]
    samples[3]["doc_id"], samples[4]["doc_id"] = samples[4]["doc_id"], samples[3]["doc_id"]


def _duplicate_doc_id(doc):
    doc["predictions"][ACC_TASK][4]["doc_id"] = doc["predictions"][ACC_TASK][3]["doc_id"]


def _missing_metric(doc):
    del doc["predictions"][EM_TASK][2]["exact_match"]


def _empty_task(doc):
    doc["predictions"][EM_TASK] = []


BAD_DOCUMENTS = {
    "missing task": (_drop_task, f"missing tasks (1 of 50): {AUC_TASK}"),
    "extra task": (_extra_task, "not part of BenCzechMark: benczechmark_summarization"),
    "acc not 0/1": (lambda d: set_value(d, ACC_TASK, 10, 0.5), f"task {ACC_TASK}, sample 10 (doc_id 10): acc must be 0 or 1, got 0.5"),
    "acc a string": (lambda d: set_value(d, ACC_TASK, 11, "1"), "sample 11 (doc_id 11): acc must be 0 or 1, got \"1\""),
    "NaN": (lambda d: set_value(d, EM_TASK, 12, float("nan")), f"task {EM_TASK}, sample 12 (doc_id 12): exact_match the value is NaN or infinite"),
    "infinite loglik": (lambda d: set_value(d, PPL_TASK, 3, [float("-inf"), 10]), f"task {PPL_TASK}, sample 3 (doc_id 3): word_perplexity the loglikelihood or number_of_words is NaN or infinite"),
    "zero words": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, 0]), "number_of_words must be a positive integer, got 0"),
    "negative words": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, -3]), "number_of_words must be a positive integer, got -3"),
    "perplexity not a pair": (lambda d: set_value(d, PPL_TASK, 6, -10.0), "must be a pair [loglikelihood, number_of_words], got -10.0"),
    "probability above 1": (lambda d: set_value(d, AUC_TASK, 2, [0, [1.2] + [0.0] * (n_classes(d) - 1)]), f"task {AUC_TASK}, sample 2 (doc_id 2): avg_mcauroc has a probability outside [0, 1]"),
    "class count varies": (_probs_wrong_count, "sample 5 (doc_id 5): avg_mcauroc has"),
    "class count differs from published": (_all_probs_extra_class, "classes, the published submissions have"),
    "gold out of range": (lambda d: set_value(d, AUC_TASK, 8, [7, [1.0 / n_classes(d)] * n_classes(d)]), "gold class 7 is out of range"),
    "gold differs from published": (_gold_changed, "sample 7 has gold class"),
    "sample count": (_drop_sample, f"task {ACC_TASK}: has "),
    "doc_id order": (_swap_doc_ids, "sample 3 has doc_id 4, the published submissions have doc_id 3 there"),
    "duplicate doc_id": (_duplicate_doc_id, "sample 4 (doc_id 3): acc repeats a doc_id"),
    "missing metric": (_missing_metric, f"task {EM_TASK}, sample 2 (doc_id 2): exact_match has no 'exact_match' value"),
    "empty task": (_empty_task, f"task {EM_TASK}: has no samples"),
    "no predictions": (lambda d: d.pop("predictions"), "the file has no 'predictions' object"),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_file_is_rejected_and_store_unchanged(case, valid_document, full_store, tmp_path, capsys):
    mutate, expected = BAD_DOCUMENTS[case]
    doc = copy.deepcopy(valid_document)
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    before = tree_digest(full_store)
    assert main(["publish", str(path), "--store", str(full_store), *FORM]) == 2
    err = capsys.readouterr().err
    assert expected in err, err
    assert "Traceback" not in err
    assert tree_digest(full_store) == before


@pytest.mark.parametrize("content, expected", [
    (b"{not json", "the file is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
    (b"[1, 2]", "the file must hold a JSON object"),
    (b"\x80abc", "not UTF-8"),
])
def test_unreadable_files(content, expected, full_store, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    before = tree_digest(full_store)
    assert main(["publish", str(path), "--store", str(full_store), *FORM]) == 2
    assert expected in capsys.readouterr().err
    assert tree_digest(full_store) == before


def test_missing_file(full_store, capsys):
    assert main(["validate", "/nonexistent/file.json"]) == 2
    assert "cannot read the file /nonexistent/file.json" in capsys.readouterr().err


@pytest.mark.parametrize("field, value, expected", [
    ("--team", "   ", "Team name: required"),
    ("--type", "instruct", "Model type: choose one of chat, pretrained, ensemble"),
    ("--params", "0", "Parameters: a number of billions greater than 0"),
    ("--params", "seven", "Parameters: a number of billions greater than 0"),
    ("--input-length", "4096.5", "Input length: a whole number of tokens greater than 0"),
    ("--input-length", "-1", "Input length: a whole number of tokens greater than 0"),
    ("--precision", "bfloat32", "Precision: choose one of float32, float16, bfloat16, 8bit, 4bit"),
    ("--link", "ftp://example.com/m", "Link to model: an http:// or https:// address"),
])
def test_bad_metadata_is_rejected(field, value, expected, new_model_file, full_store, capsys):
    form = list(FORM)
    form[form.index(field) + 1] = value
    before = tree_digest(full_store)
    assert main(["publish", str(new_model_file), "--store", str(full_store), *form]) == 2
    assert expected in capsys.readouterr().err
    assert tree_digest(full_store) == before


def test_names_have_whitespace_collapsed():
    meta = validate_metadata("  My   Team ", "Model\t 1", "chat", "7", "4096", "bfloat16", "https://x.org")
    assert (meta.team_name, meta.model_name, meta.parameters, meta.input_length) == ("My Team", "Model 1", 7.0, 4096)


def test_duplicate_predictions_are_rejected(full_store, capsys):
    existing = LocalStore(full_store).submission_ids()[0]
    path = full_store / "data" / f"{existing}.json"
    before = tree_digest(full_store)
    assert main(["publish", str(path), "--store", str(full_store), *FORM]) == 2
    assert "these predictions are already published as" in capsys.readouterr().err
    assert tree_digest(full_store) == before


def test_disagreeing_results_give_a_warning(valid_document, full_benchmark):
    doc = copy.deepcopy(valid_document)
    doc["results"][ACC_TASK]["acc"] = 0.99
    del doc["results"][EM_TASK]
    parsed = parse_submission(json.dumps(doc).encode(), full_benchmark)
    assert any(w.startswith(f"task {ACC_TASK}: 'results' says acc = 0.99, the samples give") for w in parsed.warnings)
    assert any(w.startswith(f"task {EM_TASK}: 'results' has no exact_match") for w in parsed.warnings)
    assert len(parsed.warnings) == 2


def test_old_rouge_spelling_is_accepted(small_benchmark, small_documents):
    _, doc, _ = small_documents[0]
    doc = copy.deepcopy(doc)
    doc["predictions"]["t_rouge"] = [{"rouge_raw_r2_mid_f_without_bootstrap": s["rouge_raw_r2_mid_f"],
                                      "doc_id": s["doc_id"]} for s in doc["predictions"]["t_rouge"]]
    doc["results"]["t_rouge"] = {"rouge_raw_r2_mid_f_without_bootstrap": doc["results"]["t_rouge"]["rouge_raw_r2_mid_f"]}
    parsed = parse_submission(json.dumps(doc).encode(), small_benchmark)
    assert parsed.warnings == []
    assert len(parsed.tasks["t_rouge"].samples) == len(doc["predictions"]["t_rouge"])


def test_problems_are_all_listed_at_once(valid_document, full_benchmark):
    doc = copy.deepcopy(valid_document)
    set_value(doc, ACC_TASK, 1, 2)
    set_value(doc, EM_TASK, 1, -1)
    with pytest.raises(SubmissionError) as e:
        parse_submission(json.dumps(doc).encode(), full_benchmark)
    assert len(e.value.problems) == 2
