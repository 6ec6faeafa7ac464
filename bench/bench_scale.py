"""How the engine scales with the number of published models (issue 12).

    python bench/bench_scale.py --models 50 200 1000 [--samples 40] [--workdir bench/out]
    python bench/bench_scale.py --models 10000 --synthetic-duels

Stores are synthetic, in the project's own layout, on the full 50-task benchmark with
`--samples` samples per task (small, so that a 10,000-model store fits in minutes; the
code paths are those of a real store). Models are written as the store lays them out
(submission file, per-model cache stamped by content, titles) without duels, then
`rebuild` runs every duel (its time is the rebuild curve).
With `--synthetic-duels` the duel files are written directly with random verdicts
against 50 earlier models each (a 10,000-model rebuild takes too long to repeat; the
files and everything that reads them are the real ones).

Each measurement runs in a fresh process, so peak memory (max RSS) is its own; wall
times of whole processes include Python's start-up. Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
REPEATS = 3  # runs of each measurement unless --repeats says otherwise


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def small_designs(benchmark, samples: int) -> dict:
    from leaderboard.submission.demo import task_design
    designs = {}
    for task in benchmark.tasks:
        design = task_design(task, seed=1)
        n = samples
        design.update(n=n, difficulty=design["difficulty"][:n], doc_ids=design["doc_ids"][:n])
        if "gold" in design:
            design["gold"] = design["gold"][:n]
        if "words" in design:
            design["words"] = design["words"][:n]
        designs[task.id] = design
    return designs


def phase_build(store: str, n_models: str, samples: str, synthetic: str) -> dict:
    """Write `n_models` models (data file, per-model cache) without duels, then either
    rebuild (timed) or write random duel files."""
    import numpy as np

    from leaderboard.board.state import Leaderboard
    from leaderboard.submission.demo import demo_model
    from leaderboard.storage.local import TITLES_FILE, LocalStore, PublishedModel
    from leaderboard.storage.strict_json import dump_json
    from leaderboard.submission.alignment import TaskReference
    from leaderboard.submission.parsing import parse_submission
    from leaderboard.submission.metadata import submission_id, validate_metadata
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine.tournament import DuelRows, summarize
    from leaderboard.storage import duel_files
    benchmark = load_benchmark()
    designs = small_designs(benchmark, int(samples))
    store_obj = LocalStore(store)
    store_obj.data_dir.mkdir(parents=True, exist_ok=True)
    (Path(store) / "duels").mkdir(exist_ok=True)
    t = time.perf_counter()
    titles, ids = {}, []
    for i in range(int(n_models)):
        form, document, submitted_at = demo_model(benchmark, i, seed=1, designs=designs)
        metadata = validate_metadata(**form)
        parsed = parse_submission(dump_json(document), benchmark)
        sid = submission_id(metadata, parsed)
        stored = {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": submitted_at,
                  "model_predictions_sha256": parsed.predictions_sha256,
                  "model_results_sha256": parsed.results_sha256}
        model = PublishedModel(sid, stored, summarize(parsed, benchmark),
                               {k: TaskReference.of(s) for k, s in parsed.tasks.items()})
        titles[sid] = metadata.title
        ids.append(sid)
        data = dump_json({**parsed.document, "submission_metadata": stored})
        (store_obj.data_dir / f"{sid}.json").write_bytes(data)
        store_obj.save_cached(model)
    (Path(store) / TITLES_FILE).write_bytes(dump_json(titles))
    written = time.perf_counter() - t
    result = {"write_models_seconds": written}
    if synthetic == "1":
        rng = np.random.default_rng(0)
        task_ids = [task.id for task in benchmark.tasks]
        rules = {"synthetic": {"version": 0, "note": "random verdicts for a scale benchmark"}}
        for k in range(1, len(ids)):
            opponents = rng.choice(k, size=min(50, k), replace=False)
            m = len(opponents)
            first = np.concatenate([np.full(m, k), opponents]).astype(np.int32)
            second = np.concatenate([opponents, np.full(m, k)]).astype(np.int32)
            shape = (2 * m, len(task_ids))
            significant = rng.random(shape) < 0.3
            rows = DuelRows(first, second, np.ones(shape, bool), significant,
                            np.where(significant, 0.01, 0.5), rng.normal(0, 0.05, shape),
                            np.full(2 * m, "synthetic", dtype=object))
            (Path(store) / "duels" / f"{ids[k]}.parquet").write_bytes(
                duel_files.duel_file(rows, ids, task_ids, rules))
        result["synthetic_duels_seconds"] = time.perf_counter() - t - written
    else:
        t = time.perf_counter()
        board = Leaderboard(LocalStore(store))
        report = board.admin.rebuild()
        result.update(rebuild_seconds=time.perf_counter() - t, dueled=report.dueled, rebuild_peak_mb=peak_mb())
    return result


def phase_in_process(store: str, new_file: str) -> dict:
    """Load, pre-submit (3 times) and publish in one process; bytes one publication wrote."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    form = json.loads(Path(new_file).with_suffix(".form.json").read_text())
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    board.ranked()
    load = time.perf_counter() - t
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        preview = board.publishing.presubmit(Path(new_file), form)
        times.append(time.perf_counter() - t)
    before = {p: p.stat().st_size for p in Path(store).rglob("*") if p.is_file()}
    t = time.perf_counter()
    board.publishing.publish(preview)
    publish = time.perf_counter() - t
    after = {p: p.stat().st_size for p in Path(store).rglob("*") if p.is_file()}
    changed = {str(p.relative_to(store)): size for p, size in after.items() if before.get(p) != size
               or p.stat().st_mtime > time.time() - publish - 1}
    duels = board.tournament.rows().first.size
    return {"load_seconds": load, "presubmit_median_seconds": statistics.median(times), "presubmit_all": times,
            "publish_seconds": publish, "peak_mb": peak_mb(), "duel_rows": duels,
            "bytes_written": sum(changed.values()), "files_written": changed}


PHASES = {"build": phase_build, "in_process": phase_in_process}


def run_phase(name: str, *args) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, *map(str, args)], cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"phase {name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed_process(command: list[str], env=None) -> tuple[float, float]:
    """(wall seconds, peak MB) of a whole process."""
    t = time.perf_counter()
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if out.returncode not in (0, 1):
        raise SystemExit(f"{command} failed:\n{out.stderr[-3000:]}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def app_start(store: Path, log: Path) -> float:
    """Seconds from `python app.py` until the page answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    t = time.perf_counter()
    with open(log, "w") as out:
        app = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
                return time.perf_counter() - t
            except OSError:
                if app.poll() is not None or time.perf_counter() - t > 600:
                    raise SystemExit(f"the app did not start; see {log}")
                time.sleep(0.2)
    finally:
        app.terminate()
        app.wait(timeout=30)


def measure(n: int, args) -> dict:
    work = Path(args.workdir)
    kind = "synthetic" if args.synthetic_duels else "rebuilt"
    store = work / f"scale{n}-{args.samples}-{kind}"
    result = {"models": n}
    if not store.exists():
        result["build"] = run_phase("build", store, n, args.samples, "1" if args.synthetic_duels else "0")
    new_file = work / f"scale-new-{args.samples}.json"
    if not new_file.exists():
        from leaderboard.board.state import Leaderboard
        from leaderboard.submission.demo import sample_document
        from leaderboard.storage.local import LocalStore
        from leaderboard.storage.strict_json import dump_json
        board = Leaderboard(LocalStore(store))
        new_file.write_bytes(dump_json(sample_document(board.benchmark, board.references(), seed=7)))
        new_file.with_suffix(".form.json").write_text(json.dumps(
            {"team_name": "Bench", "model_name": "scale-probe", "model_type": "chat", "parameters": 7,
             "input_length": 4096, "precision": "bfloat16", "link_to_model": "https://example.com/probe",
             "description": "scale benchmark probe"}))
    cli = [sys.executable, "-m", "leaderboard"]
    presubmit = [*cli, "presubmit", str(new_file), "--store", str(store), "--team", "Bench", "--model",
                 "scale-probe", "--type", "chat", "--params", "7", "--input-length", "4096", "--precision",
                 "bfloat16", "--link", "https://example.com/probe"]
    runs = [timed_process(presubmit) for _ in range(args.repeats)]
    result["cold_presubmit_process_seconds"] = statistics.median(r[0] for r in runs)
    result["cold_table_process_seconds"] = statistics.median(
        timed_process([*cli, "table", "--store", str(store), "--format", "csv"])[0] for _ in range(args.repeats))
    result["validate_process_seconds"] = statistics.median(
        timed_process([*cli, "validate", str(new_file)])[0] for _ in range(args.repeats))
    result["app_start_seconds"] = statistics.median(app_start(store, work / "scale_app.log") for _ in range(args.repeats))
    copy = work / f"scale{n}-publish-copy"
    publishes = []
    for _ in range(args.repeats):  # publishing changes the store: each run on a fresh copy
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(store, copy)
        publishes.append(run_phase("in_process", copy, new_file))
    shutil.rmtree(copy, ignore_errors=True)
    for key in ("load_seconds", "presubmit_median_seconds", "publish_seconds", "peak_mb", "bytes_written"):
        result[key] = statistics.median(p[key] for p in publishes)
    result["files_written"] = publishes[0]["files_written"]
    result["duel_rows"] = publishes[0]["duel_rows"]
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--samples", type=int, default=40, help="samples per task")
    parser.add_argument("--synthetic-duels", action="store_true")
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs of each measurement (median)")
    parser.add_argument("--phase")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(PHASES[args.phase](*args.args)))
        return
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    print(json.dumps([measure(n, args) for n in args.models], indent=1))


if __name__ == "__main__":
    main()
