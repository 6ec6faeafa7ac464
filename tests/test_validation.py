"""Every validation rule, with a bad file published through the command line:
a specific message, exit code 2, and a store left byte-for-byte unchanged."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bad_files import ACC_TASK, CASE_NAMES, EM_TASK, bad_files, set_value
from conftest import tree_digest
from leaderboard.cli import main
from leaderboard.store import LocalStore
from leaderboard.submission import SubmissionError, parse_submission, validate_metadata

ROOT = Path(__file__).resolve().parent.parent

FORM = ["--team", "Tester", "--model", "Bad-1", "--type", "chat", "--params", "7", "--input-length", "4096",
        "--precision", "bfloat16", "--link", "https://example.com/m"]
COMMANDS = {"validate": [], "presubmit": FORM[:4]}  # publish parses the same way (see test_bad_metadata_is_rejected)


@pytest.fixture(scope="module")
def valid_document(new_model_file):
    return json.loads(new_model_file.read_text())


@pytest.fixture(scope="module")
def corpus(valid_document):
    return bad_files(valid_document)


def test_the_corpus_is_large(corpus):
    assert len(corpus) == len(CASE_NAMES) >= 100


@pytest.mark.parametrize("case", CASE_NAMES)
def test_bad_file_is_refused_by_every_command(case, corpus, full_store, tmp_path, capsys):
    """validate, presubmit and publish: exit 2, the specific message, no traceback, the
    store byte-for-byte unchanged, every message short."""
    content, expected = corpus[case]
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    before = tree_digest(full_store)
    for command, form in COMMANDS.items():
        assert main([command, str(path), "--store", str(full_store), *form]) == 2, command
        err = capsys.readouterr().err
        assert expected in err, (command, err)
        assert "Traceback" not in err and "internal error" not in err
        assert all(len(line) < 600 for line in err.splitlines())
    assert tree_digest(full_store) == before


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "symlink to a device"])
def test_special_files_are_refused_without_reading(kind, full_store, tmp_path):
    """A FIFO would block and /dev/zero never ends: both refused before reading."""
    path = tmp_path / "special.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    before = tree_digest(full_store)
    for command, form in COMMANDS.items():
        done = subprocess.run([sys.executable, "-m", "leaderboard", command, str(path), "--store", str(full_store), *form],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 2, done.stderr
        assert f"{path} is not a regular file" in done.stderr or "Is a directory" in done.stderr, done.stderr
    assert tree_digest(full_store) == before


def test_missing_file(full_store, capsys):
    assert main(["validate", "/nonexistent/file.json"]) == 2
    assert "cannot read the file /nonexistent/file.json" in capsys.readouterr().err


@pytest.mark.parametrize("field, value, expected", [
    ("--team", "   ", "Team name: required"),
    ("--type", "instruct", "Model type: choose one of chat, pretrained, ensemble"),
    ("--params", "0", "Parameters: a number of billions greater than 0"),
    ("--params", "seven", "Parameters: a number of billions greater than 0"),
    ("--input-length", "4096.5", "Input length: a whole number of tokens from 1 to 100,000,000, got 4096.5"),
    ("--input-length", "-1", "Input length: a whole number of tokens from 1 to 100,000,000, got -1"),
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
