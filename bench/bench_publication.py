"""The cost of one publication and one pre-submission under the reference panel, with the
new model entering the panel or staying out of it, and of the rank and score intervals
(issue 20: a publication at 1,000 models in at most 2 s, at 10,000 in at most 5 s,
backfill included; a pre-submission at 10,000 in at most 1 s out of the panel, 5 s into
it; the intervals of a 1,000-model board in at most 3 s).

    python bench/bench_publication.py --models 1000 [--samples 0] [--workdir /work/scratch/f] [--repeats 3]
        [--before DIR [--before-repeats 1]]   # also time another tree of the code (`git archive main`), in turn

The store is `bench_scale.py --settled`'s (40 samples per task, or with `--samples 0` full
size; the panel settled, every model's duels with it stored; `--rebuilt`: the same
store with its duels run by `rebuild`); built once under --workdir. Two new files come
from the demo generator on the store's task designs, from the pool the store's models
were picked from (`bench_scale.store_contents`): its best model, which enters the panel,
and one below the panel, which stays out (each run checks which).
Each run is one fresh process on a fresh hard-linked copy of the store (`--phase
publication`): load, the board's intervals (`certainty`, as the app's first page asks:
every model's replicates computed), the pre-submission (3 times, median), the
publication, then what follows it: the intervals of the new board computed and the
snapshot written again (`refresh_intervals`, after the commit; in a tree without it the
intervals are part of the publication). Prints one JSON summary: medians per tree and file.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("BENCH_CODE", ROOT))  # the tree whose leaderboard package a phase times
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(CODE))


def new_files(work: Path, samples: int) -> dict[str, Path]:
    """The two new submissions of the store's pool (`bench_scale.store_contents`): the one
    that enters the panel and one that stays out, as files (with their forms beside
    them, `.form.json`), on the store's task designs."""
    from bench.bench_scale import small_designs, store_contents
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.strict_json import dump_json
    from leaderboard.submission.demo import demo_model, task_design
    benchmark = load_benchmark()
    contents = store_contents(benchmark, 0)
    designs = ({t.id: task_design(t, seed=1) for t in benchmark.tasks} if samples == 0
               else small_designs(benchmark, samples))
    files = {}
    for name, index in (("enters", contents.enters), ("stays_out", contents.stays_out)):
        path = work / f"publication-{name}-{samples}.json"
        if not path.exists():
            form, document, _ = demo_model(benchmark, index, seed=1, designs=designs)
            path.write_bytes(dump_json(document))
            path.with_suffix(".form.json").write_text(json.dumps(form))
        files[name] = path
    return files


def phase_publication(store: str, new_file: str, repeats: str) -> dict:
    """In one process: load, pre-submit `repeats` times, publish, refresh the intervals."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    form = json.loads(Path(new_file).with_suffix(".form.json").read_text())
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    load = time.perf_counter() - t
    t, cpu = time.perf_counter(), time.process_time()
    board.certainty()  # as the app's first page does: every model's replicates computed (and, after, kept)
    intervals, intervals_cpu = time.perf_counter() - t, time.process_time() - cpu
    presubmits = []
    for _ in range(int(repeats)):
        t = time.perf_counter()
        preview = board.publishing.presubmit(Path(new_file), form)
        presubmits.append(time.perf_counter() - t)
    entered = preview.submission_id in preview.panel
    t = time.perf_counter()
    board.publishing.publish(preview)
    publish = time.perf_counter() - t
    out = {"load_s": load, "intervals_cold_s": intervals, "intervals_cold_cpu_s": intervals_cpu,
           "presubmit_s": statistics.median(presubmits), "publish_s": publish,
           "entered_panel": entered, "panel_change": [len(part) for part in preview.panel_change],
           "models": len(board.models)}
    if hasattr(board.publishing, "refresh_intervals"):
        t = time.perf_counter()
        board.publishing.refresh_intervals()
        out["intervals_after_publish_s"] = time.perf_counter() - t
    return out


PHASES = {"publication": phase_publication}


def run_phase(code: Path, name: str, *args) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, *map(str, args)], cwd=ROOT,
                         env={**os.environ, "BENCH_CODE": str(code)}, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"phase {name} ({code}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rebuilt", action="store_true", help="a store whose duels `rebuild` ran (default: "
                                                               "`bench_scale.py --settled`'s, the same duels)")
    parser.add_argument("--distinct", type=int, default=20, help="the other contents a full-size store shares")
    parser.add_argument("--before", help="another tree of the code, timed in turn with this one")
    parser.add_argument("--before-repeats", type=int, help="runs of the other tree (default --repeats): it "
                                                           "may take minutes per run")
    parser.add_argument("--phase")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(PHASES[args.phase](*args.args)))
        return
    from bench.bench_scale import built_store, linked_copy
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    result = {"models": args.models, "samples": args.samples, "load_average_at_start": os.getloadavg()}
    store, result["build"] = built_store(work, args.models, args.samples, not args.rebuilt, args.distinct)
    files = new_files(work, args.samples)
    trees = {"after": ROOT, **({"before": Path(args.before)} if args.before else {})}
    runs = {(tree, name): [] for tree in trees for name in files}
    copy = work / f"publication{args.models}-copy"
    for k in range(args.repeats):
        for tree, code in trees.items():  # the trees in turn, so both see the same load
            if tree == "before" and k >= (args.before_repeats or args.repeats):
                continue
            for name, path in files.items():
                linked_copy(store, copy)
                runs[tree, name].append(run_phase(code, "publication", copy, path, 3))
                print(json.dumps({tree: {name: runs[tree, name][-1]}}), file=sys.stderr, flush=True)
    shutil.rmtree(copy, ignore_errors=True)
    for tree in trees:
        result[tree] = {name: {key: (statistics.median(r[key] for r in runs[tree, name])
                                     if isinstance(runs[tree, name][0][key], float) else runs[tree, name][0][key])
                               for key in runs[tree, name][0]} for name in files}
    result["load_average_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
