"""The reliability probe: hostile inputs through the command line against a demo store.

    python bench/bench_probe.py [--workdir bench/out/probe]

Every input goes through `validate`, `presubmit` and `publish` (in one process, the CLI's
own `main`) against a 5-model BenCzechMark demo store. An input counts as refused when
`presubmit` and `publish` exit 2 with a message and no traceback or "internal error",
and the store is byte-for-byte unchanged afterwards. Inputs: the test suite's bad-file
corpus (`tests/bad_files.py`), special files, and the cases the audit of issue 18 found
(document fields that differ from the published submissions, lone surrogates, /proc
files, invisible-only and look-alike names, the Submit tab's sample file).
Prints a JSON summary; the refused share and every input that was not refused.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import io
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

FORM = {"--team": "Prober", "--model": "Probe-1", "--type": "chat", "--params": "7", "--input-length": "4096",
        "--precision": "bfloat16", "--link": "https://example.com/m"}
PPL_TASK, AUC_TASK = "benczechmark_essay", "benczechmark_snli"


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name != ".lock":
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def run_cli(argv: list[str]) -> tuple[int, str]:
    from leaderboard.cli import main
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse refusing an argument
            code = e.code
    return code, err.getvalue()


def _changed(valid: dict, mutate) -> bytes:
    doc = copy.deepcopy(valid)
    mutate(doc)
    return json.dumps(doc).encode()


def audit_files(valid: dict) -> dict[str, bytes]:
    """The hostile files of issue 18's audit (document fields, surrogates)."""
    def triple_words(doc):
        for s in doc["predictions"][PPL_TASK]:
            s["word_perplexity"][1] *= 3

    def other_gold(doc):
        s = doc["predictions"][AUC_TASK][3]
        s["avg_mcauroc"][0] = (s["avg_mcauroc"][0] + 1) % len(s["avg_mcauroc"][1])

    def extra_class(doc):
        s = doc["predictions"][AUC_TASK][0]
        s["avg_mcauroc"][1] = [p * 0.5 for p in s["avg_mcauroc"][1]] + [0.5]

    def shifted_doc_ids(doc):
        for s in doc["predictions"][PPL_TASK]:
            s["doc_id"] += 100_000

    files = {name: _changed(valid, f) for name, f in [
        ("perplexity word counts tripled", triple_words), ("a gold label changed", other_gold),
        ("a class added to one sample", extra_class), ("doc ids shifted", shifted_doc_ids)]}
    text = json.dumps(valid)
    name = json.dumps(valid["metadata"]["model_name"])
    files["lone surrogate in metadata"] = text.replace(f'"model_name": {name}', '"model_name": "x\\ud800"', 1).encode()
    files["lone surrogate in a sample"] = text.replace('"doc_id": 0', '"doc_id": 0, "note": "\\udfff"', 1).encode()
    return files


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default=ROOT / "bench" / "out" / "probe", type=Path)
    args = parser.parse_args()
    from bad_files import bad_files
    from leaderboard.board.configured import build_demo_store
    from leaderboard.submission.demo import demo_model
    from leaderboard.storage.local import LocalStore
    from leaderboard.strict_json import dump_json
    from leaderboard.config.tasks import load_benchmark

    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    benchmark = load_benchmark()
    store = args.workdir / "store"
    build_demo_store(store, 5, seed=0, benchmark=benchmark)
    _, valid, _ = demo_model(benchmark, 7, seed=0)

    inputs: dict[str, tuple[Path, dict]] = {}  # name -> (file, form changes)
    files = {**{f"corpus: {k}": v[0] for k, v in bad_files(valid).items()}, **audit_files(valid)}
    for k, (name, data) in enumerate(files.items()):
        path = args.workdir / f"bad{k}.json"
        path.write_bytes(data)
        inputs[name] = (path, {})
    fifo = args.workdir / "fifo.json"
    os.mkfifo(fifo)
    inputs.update({"a FIFO": (fifo, {}), "/dev/zero": (Path("/dev/zero"), {}),
                   "a directory": (args.workdir, {}), "/proc/self/mem": (Path("/proc/self/mem"), {})})
    good = args.workdir / "good.json"
    good.write_bytes(dump_json(valid))
    titles = LocalStore(store).read_titles().values()
    team, model = next(t for t in titles if "o" in t.split("/")[1]).split("/")
    for name, changes in {
        "team of U+3164 only": {"--team": "\u3164\u3164"},
        "model of U+2800 only": {"--model": "\u2800"},
        "surrogate in the team (argument)": {"--team": "x\udc80"},
        "Cyrillic o in a published title": {"--team": team, "--model": model.replace("o", "\u043e", 1)},
        "Greek omicron in a published title": {"--team": team, "--model": model.replace("o", "\u03bf", 1)},
    }.items():
        inputs[name] = (good, changes)
    sample = args.workdir / "sample.json"
    run_cli(["sample-file", "--store", str(store), "-o", str(sample)])
    inputs["the Submit tab's sample file, published"] = (sample, {})

    pristine = args.workdir / "pristine"
    shutil.copytree(store, pristine)
    before = digest(store)
    not_refused = {}
    for k, (name, (path, changes)) in enumerate(inputs.items()):
        form = [x for kv in {**FORM, "--model": f"Probe-{k}", **changes}.items() for x in kv]
        outcomes = []
        for command in ("presubmit", "publish"):
            code, err = run_cli([command, str(path), "--store", str(store), *form])
            clean = code == 2 and err.strip() and "Traceback" not in err and "internal error" not in err
            outcomes.append(bool(clean) or (command == "presubmit" and code == 0 and "sample" in name))
        if not all(outcomes) or digest(store) != before:
            not_refused[name] = err.strip()[:200] or "accepted"
            shutil.rmtree(store)
            shutil.copytree(pristine, store)
    print(json.dumps({"inputs": len(inputs), "refused_with_store_unchanged": len(inputs) - len(not_refused),
                      "not_refused": not_refused}, indent=1, ensure_ascii=True))


if __name__ == "__main__":
    main()
