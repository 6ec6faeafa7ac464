"""CPU of reading and checking submission files, for one or more source trees in one run
(before/after): the bad-file corpus (tests/bad_files.py, 116 files of ~3.5 MB) through
`validate` and `presubmit` in one process, as tests/test_validation.py runs them (the
command line's `main` in process, a 5-model full-size demo store); `read_document` and
`parse_submission` of the valid file the corpus is made from; and the corpus's build.

    python bench/bench_reading.py --workdir W --tree before=/path/to/old/tree --tree after=. [--repeats 3]

The store, the valid file and the corpus are made once in W with this tree's code. Each
repeat runs every tree in turn, each in a fresh process (`sys.path` starting at the tree);
the figures are medians over the repeats of CPU seconds (`time.process_time`). Every
command must exit 2 with its case's expected message (a miss is counted and printed).
The stored per-model arrays' read (the store's own files, not submissions) is
`bench_arrays.py`'s.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import contextlib, io, json, os, statistics, sys, time
from pathlib import Path
tree, workdir = sys.argv[1], Path(sys.argv[2])
sys.path[:0] = [tree, tree + "/tests"]
from leaderboard.cli import main
from leaderboard.config.tasks import load_benchmark
from leaderboard.submission.parsing import parse_submission
from leaderboard.submission.reading import read_document

def cpu(f, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return statistics.median(times)

out = {}
valid = (workdir / "new_model.json").read_bytes()
benchmark = load_benchmark()
out["read_document"] = cpu(lambda: read_document(valid))
out["parse_submission"] = cpu(lambda: parse_submission(valid, benchmark))
expected = json.loads((workdir / "expected.json").read_text())
form = {"validate": [], "presubmit": ["--team", "Tester", "--model", "Bad-1"]}
per_case, misses = {}, []
for case, (index, message) in expected.items():
    for command, extra in form.items():
        err = io.StringIO()
        start = time.process_time()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([command, str(workdir / "corpus" / f"{index}.json"), "--store", str(workdir / "store"), *extra])
        per_case[f"{command}: {case}"] = [time.process_time() - start, "is not strict JSON" in err.getvalue()]
        if code != 2 or message not in err.getvalue():
            misses.append(f"{command}: {case}: {err.getvalue()[:200]}")
out["corpus"] = sum(seconds for seconds, _ in per_case.values())
out["per_case"] = per_case
out["misses"] = misses
import bad_files
document = json.loads(valid)
start = time.process_time()
bad_files.bad_files(document)
out["corpus_build"] = time.process_time() - start
print(json.dumps(out))
"""

def build(workdir: Path) -> None:
    """The store, the valid file and the corpus, made with this tree's code (as conftest does)."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from bad_files import CASE_NAMES, bad_files
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.strict_json import dump_json
    from leaderboard.board.configured import build_demo_store
    from leaderboard.submission.demo import demo_model
    benchmark = load_benchmark()
    workdir.mkdir(parents=True, exist_ok=True)
    if not (workdir / "store").exists():
        build_demo_store(workdir / "store", 5, seed=0, benchmark=benchmark)
    if not (workdir / "expected.json").exists():
        _, document, _ = demo_model(benchmark, 7, seed=0)
        (workdir / "new_model.json").write_bytes(dump_json(document))
        corpus = bad_files(json.loads((workdir / "new_model.json").read_text()))
        (workdir / "corpus").mkdir(exist_ok=True)
        for index, case in enumerate(CASE_NAMES):
            (workdir / "corpus" / f"{index}.json").write_bytes(corpus[case][0])
        (workdir / "expected.json").write_text(json.dumps({c: [i, corpus[c][1]] for i, c in enumerate(CASE_NAMES)}))


def summary(runs: list[dict]) -> dict:
    def median(f):
        return statistics.median(f(r) for r in runs)

    def cases(r, pick):  # pick(case, refused as not strict JSON)
        return [t for name, (t, strict) in r["per_case"].items() if pick(name.split(": ", 1)[1], strict)]

    million = "a million task keys"
    return {
        "corpus, validate + presubmit (s)": median(lambda r: r["corpus"]),
        "refused as not strict JSON, per command (s)": median(lambda r: statistics.median(
            cases(r, lambda case, strict: strict))),
        "a million task keys, per command (s)": median(lambda r: statistics.median(
            cases(r, lambda case, strict: case == million))),
        "the other cases, per command (s)": median(lambda r: statistics.median(
            cases(r, lambda case, strict: not strict and case != million))),
        "cases refused as not strict JSON": len(cases(runs[0], lambda case, strict: strict)) // 2,
        "read_document, valid file (s)": median(lambda r: r["read_document"]),
        "parse_submission, valid file (s)": median(lambda r: r["parse_submission"]),
        "corpus build, bad_files() (s)": median(lambda r: r["corpus_build"]),
        "misses": sum(len(r["misses"]) for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "reading")
    parser.add_argument("--tree", action="append", default=[], help="name=path of a source tree (default: this one)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    build(args.workdir)
    trees = dict(t.split("=", 1) for t in args.tree) or {"this tree": str(ROOT)}
    runs = {name: [] for name in trees}
    for _ in range(args.repeats):
        for name, tree in trees.items():
            done = subprocess.run([sys.executable, "-c", CHILD, str(Path(tree).resolve()), str(args.workdir)],
                                  capture_output=True, text=True, check=True,
                                  env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
            runs[name].append(json.loads(done.stdout))
            for miss in runs[name][-1]["misses"]:
                print(f"{name}: MISS {miss}", file=sys.stderr)
    results = {name: summary(r) for name, r in runs.items()}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
