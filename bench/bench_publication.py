"""The cost of one publication and one pre-submission under the reference panel, with the
new model entering the panel or staying out of it, and of the rank and score intervals
(issue 35's targets at 10,000 full-size models, in process: a pre-submission staying off
the panel in at most 0.5 s, entering it in 3 s, the first call within 1.5x the steady one;
the publication including every duel it adds in 5 s; no cold interval computation on the
first publication of an app started from its snapshot).

    python bench/bench_publication.py --models 1000 [--samples 0] [--workdir /work/scratch/f] [--repeats 3]
        [--before DIR [--before-repeats 1]]   # also time another tree of the code (`git archive main`), in turn
        [--ahead]   # also the app's publication after its preview's duels ran ahead

The store is `bench_scale.py --settled`'s (40 samples per task, or with `--samples 0` full
size; the panel settled, every model's duels with it stored; `--rebuilt`: the same
store with its duels run by `rebuild`); built once under --workdir. Two new files come
from the demo generator on the store's task designs, from the pool the store's models
were picked from (`bench_scale.store_contents`): its best model, which enters the panel,
and one below the panel, which stays out (each run checks which).
Each run is one fresh process on a fresh hard-linked copy of the store (`--phase
publication`), started as the app starts from the store's snapshot: load, the intervals
taken from the snapshot (`certainty_from_snapshot`), and what the tree's app then warms in
the background (`Leaderboard.warm_in_background`, waited for and timed apart; a tree
without it warms nothing). Then the pre-submission (a first call, reported apart, then
`--presubmits` more: median); then the publication including every duel it adds (its
preview's duels dropped, so that it runs them all itself, as the app's click to publish
costs on top of the click to preview), then what follows it: the intervals of the new
board computed and the snapshot written again (`refresh_intervals`, after the commit),
cold unless the start warmed the replicates; and the process's peak memory over all of it
(the app's engine through its start, pre-submissions and a publication; not Gradio's
share). Prints one JSON summary: medians per tree and file.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import shutil
import statistics
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


def phase_publication(store: str, new_file: str, repeats: str, ahead: str = "") -> dict:
    """In one process, started as the app starts: load, intervals from the snapshot, the
    start's background warming (waited for); pre-submit once and `repeats` times more;
    publish with every duel (`ahead`: instead, as the app publishes, after the duels the
    preview left to its publication ran ahead, `Publishing.duel_ahead`, timed apart);
    refresh the intervals."""
    try:  # one BLAS thread, as the tree's app starts (a tree from before session 14 has no such step)
        from leaderboard import blas
        blas.one_thread()
    except ImportError:
        pass
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.engine.tournament import Tournament
    from leaderboard.storage.local import LocalStore
    form = json.loads(Path(new_file).with_suffix(".form.json").read_text())
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    load = time.perf_counter() - t
    out = {"load_s": load, "intervals_from_snapshot": board.certainty_from_snapshot()}
    if hasattr(board, "warm_in_background"):
        t, cpu = time.perf_counter(), time.process_time()
        board.warm_in_background().join()
        out.update(start_warming_s=time.perf_counter() - t, start_warming_cpu_s=time.process_time() - cpu)
    presubmits = []
    for _ in range(1 + int(repeats)):
        t = time.perf_counter()
        preview = Publishing(board).presubmit(Path(new_file), form)
        presubmits.append(time.perf_counter() - t)
    entered = preview.submission_id in preview.panel
    if ahead:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(1) as pool:
            t = time.perf_counter()
            Publishing(board).duel_ahead(preview, pool)
            if preview.duels_ahead is not None:
                preview.duels_ahead.result()
            out["duels_ahead_s"] = time.perf_counter() - t
            t = time.perf_counter()
            Publishing(board).publish(preview)
            out["publish_after_duels_ahead_s"] = time.perf_counter() - t
    else:
        no_duels = dataclasses.replace(preview, tournament=Tournament(board.benchmark.task_ids))
        t = time.perf_counter()
        Publishing(board).publish(no_duels)
        out["publish_with_its_duels_s"] = time.perf_counter() - t
    out.update(first_presubmit_s=presubmits[0], presubmit_s=statistics.median(presubmits[1:]), entered_panel=entered,
               panel_change=[len(part) for part in preview.panel_change], models=len(board.models))
    t, cpu = time.perf_counter(), time.process_time()
    Publishing(board).refresh_intervals()
    out.update(intervals_after_publish_s=time.perf_counter() - t, intervals_after_publish_cpu_s=time.process_time() - cpu,
               peak_memory_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6)  # kB on Linux
    return out


PHASES = {"publication": phase_publication}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per tree and file (median)")
    parser.add_argument("--presubmits", type=int, default=5, help="pre-submissions after the first, per process")
    parser.add_argument("--rebuilt", action="store_true", help="a store whose duels `rebuild` ran (default: "
                                                               "`bench_scale.py --settled`'s, the same duels)")
    parser.add_argument("--distinct", type=int, default=20, help="the other contents a full-size store shares")
    parser.add_argument("--distinct-files", action="store_true", help="the store whose models have their own data "
                                                                      "files (`bench_scale.py --distinct-files`)")
    parser.add_argument("--before", help="another tree of the code, timed in turn with this one")
    parser.add_argument("--before-repeats", type=int, help="runs of the other tree (default --repeats): it "
                                                           "may take minutes per run")
    parser.add_argument("--ahead", action="store_true", help="also, per run of this tree, the app's publication of "
                                                             "the entering file after its duels ran ahead")
    parser.add_argument("--phase")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(PHASES[args.phase](*args.args)))
        return
    from bench.trees import phase_in_tree  # this tree's: a phase's tree may be older
    from bench.bench_scale import built_store, linked_copy
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    result = {"models": args.models, "samples": args.samples, "load_average_at_start": os.getloadavg()}
    store, result["build"] = built_store(work, args.models, args.samples, not args.rebuilt, args.distinct,
                                         args.distinct_files)
    files = new_files(work, args.samples)
    trees = {"after": ROOT, **({"before": Path(args.before)} if args.before else {})}
    runs = {(tree, name): [] for tree in trees for name in [*files, *(["enters_ahead"] if args.ahead else [])]}
    copy = work / f"publication{args.models}-copy"
    for k in range(args.repeats):
        for tree, code in trees.items():  # the trees in turn, so both see the same load
            if tree == "before" and k >= (args.before_repeats or args.repeats):
                continue
            for name, path in files.items():
                linked_copy(store, copy)
                runs[tree, name].append(phase_in_tree(__file__, code, "publication", copy, path, args.presubmits))
                print(json.dumps({tree: {name: runs[tree, name][-1]}}), file=sys.stderr, flush=True)
            if args.ahead and tree == "after":
                linked_copy(store, copy)
                runs[tree, "enters_ahead"].append(phase_in_tree(__file__, code, "publication", copy, files["enters"],
                                                            args.presubmits, "ahead"))
                print(json.dumps({tree: {"enters_ahead": runs[tree, "enters_ahead"][-1]}}), file=sys.stderr, flush=True)
    shutil.rmtree(copy, ignore_errors=True)
    for tree in trees:
        names = [name for (t, name), r in runs.items() if t == tree and r]
        result[tree] = {name: {key: (statistics.median(r[key] for r in runs[tree, name])
                                     if isinstance(runs[tree, name][0][key], float) else runs[tree, name][0][key])
                               for key in runs[tree, name][0]} for name in names}
        for name in names:  # the first process's figures apart: its page cache was the coldest
            result[tree][name]["first_process"] = runs[tree, name][0]
    result["load_average_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
