"""The cold command line against its floor (issue 35: `presubmit` on 50 models at most 8x the
floor, python plus `json.load` of the same file; at 10,000 models at most 3 s).

    python bench/bench_cold_cli.py --store STORE [--file NEW.json] [--repeats 7] [--before TREE]
                                   [--linked-copy DIR]

Each run is a fresh `python -m leaderboard presubmit` process (the file, its form from the
`.form.json` beside it, `--store STORE`), wall and CPU (user + system of the child), after
one warm-up run that is reported apart (the page cache and the store's cache index are then
warm, as for a team that runs it twice). The floor is `python -c "import json, sys;
json.load(open(sys.argv[1]))" FILE`. The floor, this tree and `--before` (another tree of
the code, a `git archive`) run in turn, so all see the same load. Without `--file`, a new
model's file for the store is written beside it (`bench_scale.write_probe`). Prints medians
as JSON.

The command line keeps each task's bootstrap resample counts in LEADERBOARD_CACHE_DIR
(`leaderboard/storage/kept_draws.py`): the children get an empty one of their own, so the
first run draws and keeps them and the repeats read them, as a team's second run would.
`--linked-copy DIR`: each tree's processes run on a hard-linked copy of the store of its
own, made in DIR/after and DIR/before (`bench_scale.linked_copy`), for a store that must not
be written (a pre-submission's reads keep the store's cache index, which each tree then
finds as its own runs left it).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Bytecode as an installed package has it (pip compiles it): the warm-up run writes what a
# machine with PYTHONDONTWRITEBYTECODE set would otherwise compile in every run.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
FLAGS = {"team_name": "--team", "model_name": "--model", "model_type": "--type", "parameters": "--params",
         "input_length": "--input-length", "precision": "--precision", "link_to_model": "--link",
         "description": "--description"}


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one process, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--file", help="a new model's file, its form beside it (.form.json)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--before", help="another tree of the code, timed in turn with this one")
    parser.add_argument("--linked-copy", help="run on a hard-linked copy of the store made in this folder")
    args = parser.parse_args()
    store = Path(args.store)
    new_file = Path(args.file) if args.file else store.parent / f"{store.name}-new.json"
    trees = {"after": ROOT, **({"before": Path(args.before)} if args.before else {})}
    stores = {tree: store for tree in trees}
    if args.linked_copy:  # one copy per tree: what one tree's runs keep in the store's cache, the other does not read
        from bench.bench_scale import linked_copy
        stores = {tree: Path(args.linked_copy) / tree for tree in trees}
        for copy in stores.values():
            linked_copy(store, copy)
    if not new_file.exists():
        from bench.bench_scale import write_probe
        write_probe(new_file, store, "cold-cli-probe")
    form = json.loads(new_file.with_suffix(".form.json").read_text())
    form_flags = [part for key, flag in FLAGS.items() if form.get(key) not in (None, "") for part in (flag, str(form[key]))]
    commands = {"floor": ([sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1]))", str(new_file)],
                          ROOT),
                **{tree: ([sys.executable, "-m", "leaderboard", "presubmit", str(new_file), "--store", str(stores[tree]),
                           *form_flags], code) for tree, code in trees.items()}}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-cold-cli-") as kept:
        CHILD_ENV["LEADERBOARD_CACHE_DIR"] = kept
        first = {name: timed(command, cwd) for name, (command, cwd) in commands.items()}
        for _ in range(args.repeats):
            for name, (command, cwd) in commands.items():
                runs[name].append(timed(command, cwd))
    result: dict[str, object] = {"stores": {tree: str(path) for tree, path in stores.items()}, "file": str(new_file),
                                 "load_average_at_start": load_at_start}
    for name in commands:
        result[name] = {"wall_s": statistics.median(w for w, _ in runs[name]),
                        "cpu_s": statistics.median(c for _, c in runs[name]),
                        "first_wall_s": first[name][0], "first_cpu_s": first[name][1]}
    floor = result["floor"]
    for name in commands:
        if name != "floor":
            result[name]["x_floor_wall"] = result[name]["wall_s"] / floor["wall_s"]
            result[name]["x_floor_cpu"] = result[name]["cpu_s"] / floor["cpu_s"]
    result["load_average_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
