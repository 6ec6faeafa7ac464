"""Every validation rule, with a bad file published through the command line:
a specific message, exit code 2, and a store left byte-for-byte unchanged."""
from __future__ import annotations

from support.cli import cli
from support.stores import tree_digest

import copy
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import given, settings, strategies as st

from bad_files import ACC_TASK, CASE_NAMES, EM_TASK, PPL_TASK, set_value
from leaderboard.cli import main
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import canonical_json, dump_json, orjson_may_misread
from leaderboard.submission.parsing import parse_submission
from leaderboard.submission.reading import read_document
from leaderboard.submission.metadata import title_keys, validate_metadata
from leaderboard.errors import BadInput

ROOT = Path(__file__).resolve().parent.parent

FORM = ["--team", "Tester", "--model", "Bad-1", "--type", "chat", "--params", "7", "--input-length", "4096",
        "--precision", "bfloat16", "--link", "https://example.com/m"]
COMMANDS = {"validate": [], "presubmit": FORM[:4]}  # publish parses the same way (see test_bad_metadata_is_rejected)


@pytest.fixture(scope="module")
def valid_document(new_model_file):
    return json.loads(new_model_file.read_text())


@pytest.mark.parametrize("hidden", ["\u200b", "\u202e", "\u3164", "\x07", "\u00ad"])
def test_a_title_with_hidden_characters_has_the_keys_of_the_title_without_them(hidden):
    # printable ASCII titles skip the character-by-character look for hidden ones; a title
    # holding one is looked at and keyed as the same title without it
    plain = "Team Name/model-7b v2.1 (chat)"
    assert title_keys(plain[:6] + hidden + plain[6:]) == title_keys(plain)
    assert title_keys(plain) != title_keys(plain.replace("7b", "8b"))


def test_the_corpus_is_large(bad_file_corpus):
    assert len(bad_file_corpus) == len(CASE_NAMES) >= 100


@pytest.mark.parametrize("case", CASE_NAMES)
def test_bad_file_is_refused_by_every_command(case, bad_file_corpus, full_store, capsys):
    """validate, presubmit and publish: exit 2, the specific message, no traceback, the
    store byte-for-byte unchanged, every message short."""
    path, expected = bad_file_corpus[case]
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
        if kind == "fifo":  # a process of its own, so that reading it could only block that process
            done = subprocess.run([sys.executable, "-m", "leaderboard", command, str(path), "--store", str(full_store),
                                   *form], capture_output=True, text=True, timeout=60, cwd=ROOT)
        else:
            done = cli(command, path, "--store", full_store, *form)
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


@pytest.mark.parametrize("field, value, expected", [
    ("model_name", "m" * 5 * 2**20, "metadata.model_name: at most 100 characters (as the form's Model name), "
                                    "got 5,242,880"),
    ("team_name", "t" * 101, "metadata.team_name: at most 100 characters (as the form's Team name), got 101"),
    ("description", "d" * 5000, "metadata.description: at most 4,096 characters, got 5,000"),
    ("chat_template", "{{ x }}" * 10_000, "metadata.chat_template: at most 65,536 bytes as JSON, got 70,002"),
    ("n-shot", {f"task_{k}": 0 for k in range(20_000)}, "metadata.n-shot: at most 65,536 bytes as JSON, got "),
])
def test_every_metadata_field_of_the_file_is_bounded(field, value, expected, valid_document, full_store, tmp_path,
                                                     capsys):
    """A 5 MB model_name was stored as an 8.6 MB data file (issue 32, item 13): each field
    of the file's metadata is bounded, refused naming the field and the bound, nothing stored."""
    document = {**valid_document, "metadata": {**valid_document.get("metadata", {}), field: value}}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document))
    before = tree_digest(full_store)
    assert main(["publish", str(path), "--store", str(full_store), *FORM]) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err) < 600, err[:600]
    assert tree_digest(full_store) == before


def test_names_have_whitespace_collapsed():
    meta = validate_metadata("  My   Team ", "Model\t 1", "chat", "7", "4096", "bfloat16", "https://x.org")
    assert (meta.team_name, meta.model_name, meta.parameters, meta.input_length) == ("My Team", "Model 1", 7.0, 4096)


# JSON values with the numbers whose forms differ between writers: floats of every
# magnitude (1e-05, 1e+16), NaN and infinities, integers beyond 64 bits, any text
json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers(-2**70, 2**70) | st.text()
    | st.sampled_from([1e-05, 1.5e-07, 1e16, 2.5e22, 0.0001, 9999999999999998.0, "1e5", "0.00001", "null"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(json_values)
def test_the_predictions_canonical_text_is_python_s_sorted_compact_json(value):
    """The text the predictions' hash (and so the submission id) is taken of is the one
    json.dumps writes with sorted keys, no spaces and characters as they are, whichever
    writer made it."""
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert canonical_json(value) == expected


class _Pairs(list):
    """A JSON object as the (key, value) pairs a file writes, a key possibly repeated."""


pair_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers(-2**70, 2**70) | st.text(max_size=4),
    lambda children: st.lists(children, max_size=3) | st.lists(
        st.tuples(st.sampled_from(["a", "b", ":", "é"]), children), max_size=3).map(_Pairs),
    max_leaves=12)


def _write(value, ascii_only: bool, escape_colons: bool) -> str:
    """The value as JSON text; escape_colons: a colon in a string written as \\u003a."""
    if isinstance(value, _Pairs):
        return "{" + ", ".join(f"{_write(k, ascii_only, escape_colons)}: {_write(v, ascii_only, escape_colons)}"
                               for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_write(v, ascii_only, escape_colons) for v in value) + "]"
    text = json.dumps(value, ensure_ascii=ascii_only)
    return text.replace(":", "\\u003a") if escape_colons and isinstance(value, str) else text


def _breaks_strict_json(value) -> bool:
    """A repeated key, NaN or an infinity, or an integer beyond 64 bits, anywhere in it."""
    if isinstance(value, _Pairs):
        return len({k for k, _ in value}) < len(value) or any(_breaks_strict_json(v) for _, v in value)
    if isinstance(value, list):
        return any(_breaks_strict_json(v) for v in value)
    if isinstance(value, float):
        return not np.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pair_values, pair_values, st.booleans(), st.booleans())
def test_a_file_reads_as_python_s_json_reads_it_or_is_refused_for_what_strict_json_refuses(predictions, results,
                                                                                         ascii_only, escape_colons):
    """read_document against the standard library, on files written pair by pair: a
    strict document is read to the same values of the same types (1 stays an int, 1.0 a
    float, every float to the bit); a repeated key, NaN, an infinity or an integer beyond
    64 bits is refused, naming it."""
    document = _Pairs([("predictions", predictions if isinstance(predictions, _Pairs) else _Pairs()),
                       ("results", results if isinstance(results, _Pairs) else _Pairs())])
    text = _write(document, ascii_only, escape_colons)
    try:
        read = read_document(text.encode("utf-8"))
    except BadInput as e:
        message = " ".join(e.problems)
        assert _breaks_strict_json(document), message
        assert "repeats the key" in message or "NaN or Infinity" in message or "beyond 64 bits" in message, message
        return
    assert not _breaks_strict_json(document)
    assert repr(read) == repr(json.loads(text))


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
    with pytest.raises(BadInput) as e:
        parse_submission(json.dumps(doc).encode(), full_benchmark)
    assert len(e.value.problems) == 2


# --- fields that describe the documents, not the model ------------------------------------

def _process(*args: str) -> subprocess.CompletedProcess:
    """The command in a fresh `python -m leaderboard` process (the tests of what the
    interpreter cannot take: they need its own streams and file reading)."""
    return subprocess.run([sys.executable, "-m", "leaderboard", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_word_counts_must_equal_the_published_ones(valid_document, full_store, tmp_path):
    """Tripled word counts lower the perplexity without a better model: refused by validate,
    presubmit and publish, naming the task, the sample and both counts."""
    doc = copy.deepcopy(valid_document)
    samples = doc["predictions"][PPL_TASK]
    words = [s["word_perplexity"][1] for s in samples]
    for s in samples:
        s["word_perplexity"][1] *= 3
    path = tmp_path / "tripled.json"
    path.write_text(json.dumps(doc))
    expected = (f"task {PPL_TASK}, sample 0 (doc_id {samples[0]['doc_id']}): word count {3 * words[0]} differs from "
                f"the published submissions' {words[0]} (and {len(words) - 1:,} more samples)")
    before = tree_digest(full_store)
    for command, form in {**COMMANDS, "publish": FORM}.items():
        done = cli(command, path, "--store", full_store, *form)
        assert done.returncode == 2 and expected in done.stderr, (command, done.stderr)
        assert "warning" not in done.stderr
    assert tree_digest(full_store) == before


# --- characters and files the interpreter cannot handle ---------------------------------------

def test_a_lone_surrogate_is_refused_naming_where(valid_document, full_store, tmp_path):
    doc = copy.deepcopy(valid_document)
    doc["metadata"]["model_name"] = "Model \ud800"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(doc))
    before = tree_digest(full_store)
    for command, form in COMMANDS.items():
        done = _process(command, str(path), "--store", str(full_store), *form)
        assert done.returncode == 2, (command, done.stderr)
        assert "'metadata' → 'model_name' holds a lone surrogate \\ud800" in done.stderr, done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert tree_digest(full_store) == before


def test_the_first_strict_json_problem_in_the_file_is_named(valid_document):
    """Of several problems deep in a file, the one the file holds first is named (an object's
    own before those of the values it holds), with its task, sample and key; numbers and
    characters that only look suspicious are read as json reads them."""
    tasks = list(valid_document["predictions"])
    early, late = tasks[30], tasks[40]

    def with_values(*values):
        """The valid file's text with each (task, sample, key, JSON text) set."""
        doc = copy.deepcopy(valid_document)
        for task, index, key, _ in values:
            doc["predictions"][task][index][key] = f"@{task}/{index}/{key}@"
        text = json.dumps(doc)
        for task, index, key, value in values:
            text = text.replace(f'"@{task}/{index}/{key}@"', value)
        return text.encode()

    def refusal(data):
        with pytest.raises(BadInput) as refused:
            read_document(data)
        return str(refused.value)

    huge = str(2**64)
    assert refusal(with_values((late, 7, "x", "NaN"), (early, 900, "y", huge), (early, 901, "z", '"\\udc00"'))) == (
        f"the file is not strict JSON: task {early}, sample 900 → 'y' is an integer beyond 64 bits")
    assert refusal(with_values((early, 5, "x", "1e400"), (early, 5, "\ud800", "1"))) == (
        f"the file is not strict JSON: task {early}, sample 5 has a key with a lone surrogate \\ud800 (half of a UTF-16 "
        f"pair, not a character: write the character itself)")
    nested = "[[1, 2], [" + "[" * 12 + "-Infinity" + "]" * 12 + "]]"
    assert refusal(with_values((late, 3, "x", nested))) == (
        f"the file is not strict JSON: task {late}, sample 3 → 'x' → item 1 → " + "item 0 → " * 12
        + "item 0 is NaN or Infinity, or a number too large for a float (JSON has no NaN or Infinity: write null or "
        "a finite number)")
    looks_suspicious = with_values((early, 2, "x", str(2**63 - 1)), (late, 2, "y", '"\\ud83d\\ude00"'),
                                   (late, 3, "z", "1e-400"), (late, 4, "w", "1.5E+300"))
    assert read_document(looks_suspicious) == json.loads(looks_suspicious)


def test_a_surrogate_pair_is_a_character(valid_document, tmp_path):
    """An escaped pair (an emoji written as two \\u escapes) is one valid character."""
    doc = copy.deepcopy(valid_document)
    doc["metadata"]["model_name"] = "Model \U0001F600"
    path = tmp_path / "pair.json"
    path.write_text(json.dumps(doc))  # ensure_ascii: written as "\ud83d\ude00"
    assert "\\ud83d\\ude00" in path.read_text()
    done = cli("validate", path)
    assert done.returncode == 0, done.stderr


def test_a_file_that_cannot_be_read_is_bad_input():
    """/proc/self/mem opens as a regular file but reading it fails."""
    done = _process("validate", "/proc/self/mem")
    assert done.returncode == 2, done.stderr
    assert "cannot read the file /proc/self/mem: Input/output error" in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_word_counts_are_checked_on_a_store_cached_without_them(valid_document, full_store, tmp_path):
    """Arrays cached before word counts were kept (cache version 2) still refuse changed
    word counts: the reference model's counts are read from its file."""
    for path in (full_store / ".cache").glob("*.npz"):
        with np.load(path) as z:
            info = json.loads(str(z["info"]))
            arrays = {k: z[k] for k in z.files if k not in ("info", "words")}
        info["version"] = 2
        for reference in info["references"].values():
            reference.pop("words", None)
        np.savez(path, info=np.array(json.dumps(info)), **arrays)
    doc = copy.deepcopy(valid_document)
    set_value(doc, PPL_TASK, 3, [-10.0, 123_456])
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(doc))
    done = cli("presubmit", path, "--store", full_store, *COMMANDS["presubmit"])
    assert done.returncode == 2, done.stderr
    assert f"task {PPL_TASK}, sample 3 (doc_id 3): word count 123456 differs from the published submissions'" in done.stderr


def test_a_name_argument_that_is_not_utf8_is_refused(small_tasks_file, small_store, small_documents, tmp_path):
    """A byte that is not UTF-8 in an argument reaches Python as a lone surrogate (the small
    store: the process reads a file and a store as on the full one, in a fraction of the time)."""
    root = small_store.store.root
    path = tmp_path / "model.json"
    path.write_bytes(dump_json(small_documents[5][1]))
    before = tree_digest(root)
    done = subprocess.run([sys.executable, "-m", "leaderboard", "presubmit", str(path), "--store", str(root),
                           "--team", "T", "--model", b"Model\xff"], capture_output=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "LEADERBOARD_TASKS": str(small_tasks_file)})
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, err
    assert "Model name: invisible or text-direction characters are not allowed (U+DCFF lone surrogate)" in err, err
    assert tree_digest(root) == before


LIMITS = [2 ** 64 - 1, 2 ** 64, -2 ** 63, -2 ** 63 - 1, 10 ** 19 - 1, -(10 ** 19 - 1), 10 ** 18, -(10 ** 18)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LIMITS) | st.integers(-10 ** 21, 10 ** 21) | st.floats(allow_nan=False, allow_infinity=False)
                | st.sampled_from(["1e309", "-1e400", "1.5", "12345678901234567890.5", "0.12345678901234567890123"]),
                min_size=1, max_size=6))
def test_only_json_text_that_orjson_may_misread_is_sent_to_json_by_the_model_index(values):
    """orjson reads an integer beyond its 64 bits (above 2**64 - 1, below -2**63) as a float:
    the model index reads a line that may hold one with json (`orjson_may_misread`). Whatever text it lets
    through, orjson reads as json does, to the type, or refuses (a float json reads as an
    infinity: its callers then read the text with json). A 19-digit positive integer, such
    as a time in nanoseconds, and a content hash whose hex digits look like an exponent, as
    each line of the cache folder's index holds, are not sent to json (they were: 90% of
    the index lines, 0.7 s at 10,000 models)."""
    text = ("[" + ",".join(v if isinstance(v, str) else json.dumps(v) for v in values) + "]").encode()
    if not orjson_may_misread(text):
        exact = json.loads(text)
        try:
            fast = orjson.loads(text)
        except orjson.JSONDecodeError:
            assert not all(map(math.isfinite, exact)), text
        else:
            assert fast == exact and [type(v) for v in fast] == [type(v) for v in exact], text
    assert not orjson_may_misread(b'{"stamp":[7,1732700000123456789,"d42475be486daeab"],"x":-922337203685477580}')
