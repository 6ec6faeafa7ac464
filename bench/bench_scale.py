"""How the engine scales with the number of published models (issues 12 and 21).

    python bench/bench_scale.py --models 50 200 1000 [--samples 40] [--workdir bench/out]
    python bench/bench_scale.py --models 10000 --synthetic-duels
    python bench/bench_scale.py --models 1000 10000 --samples 0 --synthetic-duels --workdir /tmp/scale

Stores are synthetic, in the project's own layout, on the full 50-task benchmark with
`--samples` samples per task, or with `--samples 0` the demo generator's real task sizes
(200-2,500 samples per task, 2.7-3.6 MB per file: full-size submissions). Models are
written as the store lays them out (submission file, per-model cache stamped by content,
titles) without duels, then `rebuild` runs every duel (its time is the rebuild curve).
With `--synthetic-duels` the duel files are written directly with random verdicts
against 50 earlier models each (a 10,000-model rebuild takes too long to repeat; the
files and everything that reads them are the real ones).

Full-size stores reuse files so that 10,000 models build in minutes on a few GB of disk:
`--distinct` model contents (predictions) are generated and summarized once each, every
model takes one of them under its own name, and the models of one content share one
data file (hard links: its `submission_metadata` is the first such model's; nothing
measured here reads a published data file, each model's cache being current). Each
model's cache file is its own (it holds the model's metadata).

Each measurement runs in a fresh process, so peak memory (max RSS) is its own; wall
times of whole processes include Python's start-up. Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
INDEX_FILE = "index.jsonl"  # model_index.INDEX_FILE (not imported: the bench also runs on trees without it)
REPEATS = 3  # runs of each measurement unless --repeats says otherwise


def peak_mb() -> float:
    """This process's peak RSS since it started (VmHWM: its rusage would also count the
    process it was forked from)."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


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


def phase_build(store: str, n_models: str, samples: str, synthetic: str, distinct: str) -> dict:
    """Write `n_models` models (data file, per-model cache) without duels, then either
    rebuild (timed) or write random duel files. `samples` 0: real task sizes, `distinct`
    contents shared by the models (see the module's note)."""
    import numpy as np

    from leaderboard.board.state import Leaderboard
    from leaderboard.submission.demo import demo_model, task_design
    from leaderboard.storage.local import LocalStore, PublishedModel, titles_files
    from leaderboard.storage.strict_json import dump_json
    from leaderboard.submission.alignment import TaskReference
    from leaderboard.submission.parsing import parse_submission
    from leaderboard.submission.metadata import submission_id, validate_metadata
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine.tournament import DuelRows, summarize
    from leaderboard.storage import duel_files
    benchmark = load_benchmark()
    full_size = int(samples) == 0
    designs = ({t.id: task_design(t, seed=1) for t in benchmark.tasks} if full_size
               else small_designs(benchmark, int(samples)))
    store_obj = LocalStore(store)
    store_obj.data_dir.mkdir(parents=True, exist_ok=True)
    (Path(store) / "duels").mkdir(exist_ok=True)
    t = time.perf_counter()
    titles, ids, contents = {}, [], []  # contents: (form, parsed, results, references, timestamp, data file, stamp)
    for i in range(int(n_models)):
        content = i % int(distinct) if full_size else i
        if content == len(contents):
            form, document, submitted_at = demo_model(benchmark, i, seed=1, designs=designs)
            parsed = parse_submission(dump_json(document), benchmark)
            contents.append([form, parsed, summarize(parsed, benchmark),
                             {k: TaskReference.of(s) for k, s in parsed.tasks.items()}, submitted_at, None, None])
        form, parsed, results, references, submitted_at, shared_file, stamp = contents[content]
        if full_size:  # its own name and time: m00042-<the content's model name>
            form = {**form, "model_name": f"m{i:05d}-{form['model_name']}"}
            submitted_at = submitted_at + i * 60
        metadata = validate_metadata(**form)
        sid = submission_id(metadata, parsed)
        stored = {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": submitted_at,
                  "model_predictions_sha256": parsed.predictions_sha256,
                  "model_results_sha256": parsed.results_sha256}
        titles[sid] = metadata.title
        ids.append(sid)
        path = store_obj.data_dir / f"{sid}.json"
        if shared_file is None:
            path.write_bytes(dump_json({**parsed.document, "submission_metadata": stored}))
            if full_size:
                contents[content][5:] = [path, store_obj._stamp(sid)]
        else:
            os.link(shared_file, path)
        store_obj.save_cached(PublishedModel(sid, stored, results, references), stamp)
    for part, data in titles_files(titles, titles).items():
        (Path(store) / part).parent.mkdir(exist_ok=True)
        (Path(store) / part).write_bytes(data)
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
    before = {p: p.stat() for p in Path(store).rglob("*") if p.is_file()}
    t = time.perf_counter()
    board.publishing.publish(preview)
    publish = time.perf_counter() - t
    changed = {}  # file -> bytes written: a new or replaced file's size, what an appended one grew by
    for p in Path(store).rglob("*"):
        st, old = p.stat(), before.get(p)
        if not p.is_file() or (old and (old.st_ino, old.st_size, old.st_mtime_ns) == (st.st_ino, st.st_size,
                                                                                       st.st_mtime_ns)):
            continue
        grown = old is not None and old.st_ino == st.st_ino and st.st_size >= old.st_size
        changed[str(p.relative_to(store))] = st.st_size - old.st_size if grown else st.st_size
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
    """(wall seconds, peak MB) of a whole process. The peak is GNU time's (%M): a child's
    own rusage also counts the pages of this process it was forked from."""
    with tempfile.NamedTemporaryFile() as peak, tempfile.TemporaryFile() as errors:
        t = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name, *command], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=errors)
        wall = time.perf_counter() - t
        if out.returncode not in (0, 1):
            errors.seek(0)
            raise SystemExit(f"{command} failed:\n{errors.read().decode()[-3000:]}")
        return wall, int(Path(peak.name).read_text().split()[-1]) / 1024


def app_start(store: Path, log: Path) -> tuple[float, float]:
    """Seconds from `python app.py` until the page answers, and the app's peak MB then."""
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
                started = time.perf_counter() - t
                status = Path(f"/proc/{app.pid}/status").read_text()
                return started, int(status.split("VmHWM:")[1].split()[0]) / 1024
            except OSError:
                if app.poll() is not None or time.perf_counter() - t > 600:
                    raise AppDidNotStart(f"the app did not start; see {log}: {log.read_text()[-300:]}")
                time.sleep(0.2)
    finally:
        app.terminate()
        app.wait(timeout=30)


class AppDidNotStart(Exception):
    pass


def linked_copy(store: Path, copy: Path) -> None:
    """A copy of `store` whose files are hard links: a publication replaces files (it
    writes new ones and renames them), so the original is never changed, and copying a
    10,000-model store takes seconds, not minutes and gigabytes."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy, copy_function=lambda source, target: (
        shutil.copy2 if Path(source).name == INDEX_FILE else os.link)(source, target))  # an index is appended to


def write_probe(new_file: Path, store: Path, model_name: str) -> None:
    """A new model's submission file that `store`'s board accepts, and beside it
    (.form.json) its form for team Bench, model `model_name`."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.submission.demo import sample_document
    from leaderboard.storage.local import LocalStore
    from leaderboard.storage.strict_json import dump_json
    board = Leaderboard(LocalStore(store))
    new_file.write_bytes(dump_json(sample_document(board.benchmark, board.references(), seed=7)))
    new_file.with_suffix(".form.json").write_text(json.dumps(
        {"team_name": "Bench", "model_name": model_name, "model_type": "chat", "parameters": 7,
         "input_length": 4096, "precision": "bfloat16", "link_to_model": "https://example.com/probe",
         "description": f"{model_name} benchmark probe"}))


def measure(n: int, args) -> dict:
    work = Path(args.workdir)
    kind = "synthetic" if args.synthetic_duels else "rebuilt"
    store = work / f"scale{n}-{args.samples}-{kind}"
    result = {"models": n, "load_average_at_start": os.getloadavg()}
    if not store.exists():
        result["build"] = run_phase("build", store, n, args.samples, "1" if args.synthetic_duels else "0",
                                    args.distinct)
    new_file = work / f"scale-new-{args.samples}.json"
    if not new_file.exists():
        write_probe(new_file, store, "scale-probe")
    cli = [sys.executable, "-m", "leaderboard"]
    form = [str(new_file), "--team", "Bench", "--model", "scale-probe", "--type", "chat", "--params", "7",
            "--input-length", "4096", "--precision", "bfloat16", "--link", "https://example.com/probe"]

    def medians(name: str, runs: list[tuple[float, float]]) -> None:
        result[f"{name}_seconds"] = statistics.median(r[0] for r in runs)
        result[f"{name}_peak_mb"] = statistics.median(r[1] for r in runs)
    # the first reader of a store indexes its caches (model_index.py): once, timed apart
    result["first_table_process_seconds"], result["first_table_process_peak_mb"] = timed_process(
        [*cli, "table", "--store", str(store), "--format", "csv"])
    medians("cold_presubmit_process", [timed_process([*cli, "presubmit", *form, "--store", str(store)])
                                       for _ in range(args.repeats)])
    medians("cold_table_process", [timed_process([*cli, "table", "--store", str(store), "--format", "csv"])
                                   for _ in range(args.repeats)])
    medians("validate_process", [timed_process([*cli, "validate", str(new_file)]) for _ in range(args.repeats)])
    try:
        medians("app_start", [app_start(store, work / "scale_app.log") for _ in range(args.repeats)])
    except AppDidNotStart as e:
        result["app_start_failed"] = str(e)
    print(json.dumps(result), file=sys.stderr, flush=True)  # what is measured so far
    copy = work / f"scale{n}-publish-copy"
    publishes, cold_publishes, tables_after_publication = [], [], []
    for _ in range(args.repeats):  # publishing changes the store: each run on a fresh copy
        linked_copy(store, copy)
        cold_publishes.append(timed_process([*cli, "publish", *form, "--store", str(copy)]))
        # the publication wrote a current snapshot, which `table` prints
        tables_after_publication.append(timed_process([*cli, "table", "--store", str(copy), "--format", "csv"]))
        linked_copy(store, copy)
        publishes.append(run_phase("in_process", copy, new_file))
    shutil.rmtree(copy, ignore_errors=True)
    medians("cold_publish_process", cold_publishes)
    medians("cold_table_after_publication_process", tables_after_publication)
    for key in ("load_seconds", "presubmit_median_seconds", "publish_seconds", "peak_mb", "bytes_written"):
        result[key] = statistics.median(p[key] for p in publishes)
    result["files_written"] = publishes[0]["files_written"]
    result["duel_rows"] = publishes[0]["duel_rows"]
    result["load_average_at_end"] = os.getloadavg()
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--samples", type=int, default=40, help="samples per task; 0: the real task sizes")
    parser.add_argument("--distinct", type=int, default=20, help="model contents a full-size store shares")
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
