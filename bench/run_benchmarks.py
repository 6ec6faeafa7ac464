"""Speed and memory of the engine on a realistic 50-model store.

    python bench/run_benchmarks.py [--models 50] [--workdir bench/out]

Each measurement runs in a fresh process so that its peak memory is its own.
Prints a JSON summary; bench/RESULTS.md records the numbers with machine and date.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_build(store: Path, n_models: Path) -> dict:
    from leaderboard.board.configured import build_demo_store
    t = time.perf_counter()
    build_demo_store(store, int(str(n_models)), seed=1)
    return {"seconds": time.perf_counter() - t}


def phase_presubmit(store: Path, new_file: Path) -> dict:
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    load = time.perf_counter() - t
    form = json.loads(new_file.with_suffix(".form.json").read_text())
    times = []
    for _ in range(3):
        t = time.perf_counter()
        preview = Publishing(board).presubmit(new_file, form)
        times.append(time.perf_counter() - t)
    return {"load_seconds": load, "presubmit_seconds": min(times), "presubmit_all": times,
            "opponents": len(preview.opponents), "rank": preview.rank, "peak_mb": peak_mb()}


def phase_cold_start(store: Path) -> dict:
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    board.ranked()
    return {"seconds": time.perf_counter() - t, "models": len(board.models), "peak_mb": peak_mb()}


def phase_rebuild(store: Path) -> dict:
    from leaderboard.board.administration import Administration
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    (store / "tournament.json").unlink()
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    pairs = Administration(board).rebuild()
    return {"seconds": time.perf_counter() - t, "pairs": pairs, "peak_mb": peak_mb()}


def phase_reference_pair(store: Path) -> dict:
    """One model pair, both directions, all 50 tasks: reference rules vs the engine
    (the engine's time includes summarizing both models from their parsed samples)."""
    import numpy as np

    import stats
    from bench.reference_rules import reference_duel
    from leaderboard.submission.parsing import parse_submission, summarize
    from leaderboard.config.tasks import load_benchmark
    benchmark = load_benchmark()
    a_path, b_path = sorted((store / "data").glob("*.json"))[:2]
    a, b = parse_submission(a_path, benchmark), parse_submission(b_path, benchmark)
    ra, rb = summarize(a, benchmark), summarize(b, benchmark)
    rng = np.random.default_rng(0)
    per_metric = {}
    t0 = time.perf_counter()
    for task in benchmark.tasks:  # both directions: only the better model's direction runs a test
        t = time.perf_counter()
        for x, y, rx, ry in ((a, b, ra, rb), (b, a, rb, ra)):
            reference_duel(task.metric_name, x.tasks[task.id].samples, y.tasks[task.id].samples,
                           rx.aggregates[task.id], ry.aggregates[task.id], rng)
        per_metric[task.metric_name] = per_metric.get(task.metric_name, 0) + time.perf_counter() - t
    reference = time.perf_counter() - t0
    t = time.perf_counter()
    ra, rb = summarize(a, benchmark), summarize(b, benchmark)
    for task in benchmark.tasks:
        for x, y in ((ra, rb), (rb, ra)):
            stats.duel(task.metric, x.aggregates[task.id], x.summaries[task.id], y.aggregates[task.id],
                       y.summaries[task.id])
    engine = time.perf_counter() - t
    return {"reference_seconds": reference, "reference_by_metric": per_metric, "engine_seconds": engine}


PHASES = {"build": phase_build, "presubmit": phase_presubmit, "cold_start": phase_cold_start,
          "rebuild": phase_rebuild, "reference_pair": phase_reference_pair}


def run_phase(name: str, *args) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, *map(str, args)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--phase")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(PHASES[args.phase](*map(Path, args.args))))
        return
    work = Path(args.workdir)
    store = work / f"store{args.models}"
    new_file = work / "new_model.json"
    results = {}
    if not store.exists():
        results["build"] = run_phase("build", store, args.models)
    if not new_file.exists():
        from leaderboard.submission.demo import demo_model
        from leaderboard.strict_json import dump_json
        from leaderboard.config.tasks import load_benchmark
        form, document, _ = demo_model(load_benchmark(), 999, seed=1)
        new_file.write_bytes(dump_json(document))
        new_file.with_suffix(".form.json").write_text(json.dumps(form))
    results["file_mb"] = new_file.stat().st_size / 2**20
    results["presubmit"] = run_phase("presubmit", store, new_file)
    results["cold_start_cached"] = run_phase("cold_start", store)
    cold = work / "cold_copy"
    shutil.rmtree(cold, ignore_errors=True)
    shutil.copytree(store, cold, ignore=shutil.ignore_patterns(".cache"))
    results["cold_start_no_cache"] = run_phase("cold_start", cold)
    results["rebuild"] = run_phase("rebuild", cold)
    shutil.rmtree(cold)
    results["reference_pair"] = run_phase("reference_pair", store)
    rp = results["reference_pair"]
    results["speedup_one_pair"] = rp["reference_seconds"] / rp["engine_seconds"]
    results["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
