"""How the engine scales with the number of published models (issues 12, 20, 21 and 24).

    python bench/bench_scale.py --models 50 200 1000 [--samples 40] [--workdir bench/out]
    python bench/bench_scale.py --models 10000 --settled
    python bench/bench_scale.py --models 1000 10000 --samples 0 --settled --workdir /tmp/scale
    python bench/bench_scale.py --models 1000 --samples 0 --settled --distinct-files --port 7970

Stores are synthetic, in the project's own layout, on the full 50-task benchmark with
`--samples` samples per task, or with `--samples 0` the demo generator's real task sizes
(200-2,500 samples per task, 2.7-3.6 MB per file: full-size submissions). Models are
written as the store lays them out (submission file, per-model cache stamped by content,
titles) without duels, then either `rebuild` runs every duel (its time is the rebuild
curve) or, with `--settled`, the duels are computed once per pair of contents and
written as `rebuild` writes them (minutes at 10,000 models instead of hours).

The models are demo models picked so that the reference panel is known (`store_contents`):
the `top_opponents` best of a pool by their worst category skill, at random places in
publication order, and the others from the same pool's models at least SKILL_GAP below
every member in every category, so the panel settles at its start, in one round, and a
store holds what the rule expects: every model's duels with every member, both
directions, with the real verdicts (`settled_duels`; `panel.settle` runs on them before
they are written and the build reports what it had to add, and a fresh load then finds
no duel missing, `missing_duels_after_load`). The same pool gives the new submissions of
the publication bench: one that enters the panel and one that stays out.

Full-size stores reuse files so that 10,000 models build in minutes on a few GB of disk:
the panel's 50 contents and `--distinct` other contents (predictions) are generated and
summarized once each, every model takes one of them under its own name, and the models
of one content share one data file (hard links: its `submission_metadata` is the first
such model's; nothing measured here reads a published data file, each model's cache
being current). Each model's cache file is its own (it holds the model's metadata).
With `--distinct-files` every model writes its own data file (its content's predictions
under its own `submission_metadata`, 2.7-4.1 MB each): the store's disk figure is then a
real one (about 4 GB at 1,000 models, 41 GB at 10,000). 40-sample stores give every model
its own content.

Every measurement runs a first time, reported apart (`first_*`: a first call pays what a
process or a board has not warmed yet), then `--repeats` times more (at least 5), whose
median is reported. The app listens on `--port` (default: one the OS picks).

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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
INDEX_FILE = "index.jsonl"  # model_index.INDEX_FILE (not imported: the bench also runs on trees without it)
OWN_FILES = {INDEX_FILE, ".lock"}  # a linked copy's own, not links (`linked_copy`): the store's and the index's lock
REPEATS = 5  # warm runs of each measurement after the first, unless --repeats says otherwise


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


PANEL_POOL = range(200_000, 260_000)  # demo model indices the stores' contents are picked from
SKILL_GAP = 1.0  # the others' best category skill at least this far below every panel member's worst


@dataclass(frozen=True)
class Contents:
    """Which demo models a store is made of (demo model indices, `demo.demo_model`):
    `members`, the panel's, the `top_opponents` best of PANEL_POOL by their worst category
    skill; `others`, models whose best category skill lies SKILL_GAP below all of the
    members' worst; `enters` and `stays_out`, two models of the same pool for a new
    submission, the pool's best (it beats most members) and one more of the others."""

    members: tuple[int, ...]
    others: tuple[int, ...]
    enters: int
    stays_out: int


def store_contents(benchmark, n_others: int) -> Contents:
    import numpy as np

    from leaderboard.submission.demo import demo_profile
    pool = np.array(PANEL_POOL)
    skills = np.array([list(demo_profile(benchmark, int(i), seed=1)[1].values()) for i in pool])  # [1]: per category
    worst, best = skills.min(axis=1), skills.max(axis=1)
    order = np.argsort(-worst, kind="stable")
    k = benchmark.top_opponents
    others = pool[best <= worst[order[k]] - SKILL_GAP]
    if len(others) <= n_others:
        raise SystemExit(f"PANEL_POOL holds {len(others)} models below the panel, {n_others + 1} are needed")
    return Contents(tuple(int(i) for i in pool[order[1:k + 1]]), tuple(int(i) for i in others[:n_others]),
                    int(pool[order[0]]), int(others[-1]))


def model_contents(benchmark, n_models: int, full_size: bool, distinct: int) -> tuple[Contents, list[int]]:
    """The store's contents and, per model in publication order, its demo model: the
    members at random places (seeded), the others in turn (full size: `distinct` of
    them shared by all; else each model its own)."""
    import numpy as np
    k = benchmark.top_opponents
    if n_models <= k:
        raise SystemExit(f"a scale store needs more models than the panel's {k}")
    contents = store_contents(benchmark, distinct if full_size else n_models - k)
    at_member = np.zeros(n_models, dtype=bool)
    at_member[np.random.default_rng(0).choice(n_models, size=k, replace=False)] = True
    members, others = iter(contents.members), iter(contents.others * (n_models // len(contents.others) + 1))
    return contents, [next(members) if here else next(others) for here in at_member]


def phase_build(store: str, n_models: str, samples: str, duels: str, distinct: str, own_files: str = "") -> dict:
    """`phase_models`, then `phase_duels` (two phases, so that each can run alone)."""
    return {**phase_models(store, n_models, samples, distinct, own_files),
            **phase_duels(store, samples, duels, distinct)}


def phase_models(store: str, n_models: str, samples: str, distinct: str, own_files: str = "") -> dict:
    """Write `n_models` models (data file, per-model cache, titles) without duels.
    `samples` 0: real task sizes, contents shared (the module's note); `own_files`
    non-empty: every model its own data file, not a hard link to its content's first."""
    from leaderboard.submission.demo import FIRST_TIMESTAMP, demo_model, task_design
    from leaderboard.storage.local import LocalStore
    from leaderboard.storage.store import PublishedModel, titles_files
    from leaderboard.strict_json import dump_json
    from leaderboard.submission.alignment import TaskReference
    from leaderboard.submission.parsing import parse_submission, summarize
    from leaderboard.submission.metadata import submission_id, validate_metadata
    from leaderboard.config.tasks import load_benchmark
    benchmark = load_benchmark()
    full_size = int(samples) == 0
    designs = ({t.id: task_design(t, seed=1) for t in benchmark.tasks} if full_size
               else small_designs(benchmark, int(samples)))
    t = time.perf_counter()
    contents, demo_of = model_contents(benchmark, int(n_models), full_size, int(distinct))
    store_obj = LocalStore(store)
    store_obj.data_dir.mkdir(parents=True, exist_ok=True)
    (Path(store) / "duels").mkdir(exist_ok=True)
    titles, ids = {}, []
    made = {}  # demo index -> [form, parsed, results, references, JSON body, its first data file, that file's stamp]
    for i, demo in enumerate(demo_of):
        if demo not in made:
            form, document, _ = demo_model(benchmark, demo, seed=1, designs=designs)
            parsed = parse_submission(dump_json(document), benchmark)
            body = dump_json({k: v for k, v in parsed.document.items() if k != "submission_metadata"})
            made[demo] = [form, parsed, summarize(parsed, benchmark),
                          {k: TaskReference.of(s) for k, s in parsed.tasks.items()}, body, None, None]
        form, parsed, results, references, body, shared_file, stamp = made[demo]
        form = {**form, "model_name": f"m{i:05d}-{form['model_name']}"}  # its own name: m00042-<the content's>
        metadata = validate_metadata(**form)
        sid = submission_id(metadata, parsed)
        stored = {**metadata.to_dict(), "submission_id": sid, "submission_timestamp": FIRST_TIMESTAMP + 600 * i,
                  "model_predictions_sha256": parsed.predictions_sha256,
                  "model_results_sha256": parsed.results_sha256}
        titles[sid] = metadata.title
        ids.append(sid)
        path = store_obj.data_dir / f"{sid}.json"
        if shared_file is None or own_files:  # the content's JSON with this model's metadata as its last member
            path.write_bytes(body[:-1] + b',"submission_metadata":' + dump_json(stored) + b"}")
            stamp = store_obj._stamp(sid)
            made[demo][5:] = [path, stamp]
        else:
            os.link(shared_file, path)
        store_obj.save_cached(PublishedModel(sid, stored, results, references), stamp)
    for part, data in titles_files(titles, titles).items():
        (Path(store) / part).parent.mkdir(exist_ok=True)
        (Path(store) / part).write_bytes(data)
    data_bytes = sum(p.stat().st_size for p in {p.stat().st_ino: p for p in store_obj.data_dir.iterdir()}.values())
    return {"write_models_seconds": time.perf_counter() - t, "distinct_contents": len(made),
            "data_files_on_disk_gb": data_bytes / 2**30}


def phase_duels(store: str, samples: str, duels: str, distinct: str) -> dict:
    """The duels of the models `phase_models` wrote: `duels` "rebuild" runs `rebuild`
    (timed), "settled" computes the settled panel's duels once per pair of contents
    (`settled_duels`) and writes them as `rebuild` would."""
    from leaderboard.board.administration import Administration
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    if duels == "rebuild":
        report = Administration(board).rebuild()
        return {"rebuild_seconds": time.perf_counter() - t, "dueled": report.dueled, "rebuild_peak_mb": peak_mb()}
    ids = sorted(board.models, key=lambda sid: board.models[sid].submitted)  # as phase_models wrote them
    contents, demo_of = model_contents(board.benchmark, len(ids), int(samples) == 0, int(distinct))
    results = {}  # demo index -> the results of its first model
    for sid, demo in zip(ids, demo_of):
        results.setdefault(demo, board.models[sid].results)
    result = write_settled_duels(board, ids, demo_of, results, contents)
    result["settled_duels_seconds"] = time.perf_counter() - t
    t = time.perf_counter()
    result["missing_duels_after_load"] = missing_after_load(store)
    result["check_seconds"] = time.perf_counter() - t
    result["build_peak_mb"] = peak_mb()
    return result


def settled_duels(benchmark, ids: list[str], demo_of: list[int], results: dict, members: tuple[int, ...],
                  rules: str):
    """The duels of a store whose panel is the models of `members`' contents: every model
    (ids[i], of demo model demo_of[i]) against every member, both directions, as
    `tournament.duel_rows` computes them. A duel depends only on the two models'
    contents, so each pair of contents is dueled once and its rows copied to the models
    that share them. `results`: demo index -> ModelResults. Returns DuelRows with
    indices into `ids`."""
    import numpy as np

    from leaderboard.engine.tournament import DuelRows, Tournament, duel_rows
    demos = list(results)
    position = {demo: k for k, demo in enumerate(demos)}
    named = {str(demo): results[demo] for demo in demos}
    contents = Tournament(benchmark.task_ids, list(named))
    parts = [duel_rows(benchmark, contents, str(member), [str(d) for d in demos if d not in members[:k + 1]],
                       named, rules) for k, member in enumerate(members)]  # each pair of contents once
    pairs = DuelRows.concat(parts, len(benchmark.task_ids))
    content = np.array([position[d] for d in demo_of], dtype=np.int64)
    n, width = len(ids), len(demos)
    member_models = np.flatnonzero(np.isin(demo_of, members))
    outside = np.setdiff1d(np.arange(n), member_models)
    first, second = [], []
    for j in member_models:  # every model against member j, and j against those outside the panel
        others = np.delete(np.arange(n), j)
        first += [others, np.full(len(outside), j)]
        second += [np.full(len(others), j), outside]
    first, second = np.concatenate(first), np.concatenate(second)
    keys = pairs.first.astype(np.int64) * width + pairs.second
    order = np.argsort(keys)
    wanted = content[first] * width + content[second]
    found = order[np.searchsorted(keys[order], wanted)]
    assert (keys[found] == wanted).all()
    rows = pairs.take(found)
    return DuelRows(first, second, rows.fought, rows.significant, rows.p_value, rows.delta, rows.rules)


def write_settled_duels(board, ids: list[str], demo_of: list[int], results: dict, contents: Contents) -> dict:
    """`settled_duels` settled by the board's own rule (`panel.settle`, running any duel
    it lacks, which there should be none of) and written as `rebuild` writes duels: one
    file per model, in one commit with the ranking snapshot."""
    from leaderboard.board.writing import rewrite
    from leaderboard.engine.replay import board_panel
    from leaderboard.engine.tournament import Tournament
    rows = settled_duels(board.benchmark, ids, demo_of, results, contents.members, board.rules)
    tournament = Tournament(board.benchmark.task_ids, ids, rows)
    t = time.perf_counter()
    panel = board_panel(tournament, board.models, {}, board.benchmark, board.rules, backfill=True)
    settle = time.perf_counter() - t
    expected = {ids[i] for i, demo in enumerate(demo_of) if demo in contents.members}
    with board.write_lock, board.store.lock():
        rewrite(board, tournament, board.models, "Scale benchmark store: the settled panel's duels")
    return {"duel_rows": len(rows), "settle_seconds": settle,
            "panel_is_the_members": set(panel.members) == expected,
            "backfilled_pairs": sum(len(v) for v in panel.backfilled.values())}


def missing_after_load(store: str) -> int:
    """Pairs the board's rule expects and the store lacks, as `check` finds them after a
    fresh load (0: a publication's backfill is only what its own panel change brings)."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.engine.replay import missing_duels
    from leaderboard.storage.local import LocalStore
    board = Leaderboard(LocalStore(store))
    return sum(len(v) for _, v in missing_duels(board.tournament, board.models, board.flags, board.benchmark))


def phase_in_process(store: str, new_file: str, repeats: str = str(REPEATS)) -> dict:
    """Load, pre-submit (a first call, then `repeats` more) and publish in one process;
    bytes one publication wrote."""
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    form = json.loads(Path(new_file).with_suffix(".form.json").read_text())
    t = time.perf_counter()
    board = Leaderboard(LocalStore(store))
    board.ranked()
    load = time.perf_counter() - t
    times = []
    for _ in range(1 + int(repeats)):
        t = time.perf_counter()
        preview = Publishing(board).presubmit(Path(new_file), form)
        times.append(time.perf_counter() - t)
    before = {p: p.stat() for p in Path(store).rglob("*") if p.is_file()}
    t = time.perf_counter()
    Publishing(board).publish(preview)
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
    return {"load_seconds": load, "first_presubmit_seconds": times[0],
            "presubmit_median_seconds": statistics.median(times[1:]), "presubmit_all": times,
            "publish_seconds": publish, "peak_mb": peak_mb(), "duel_rows": duels,
            "bytes_written": sum(changed.values()), "files_written": changed}


PHASES = {"build": phase_build, "models": phase_models, "duels": phase_duels, "in_process": phase_in_process}


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


def app_start(store: Path, log: Path, port: int = 0) -> tuple[float, float]:
    """Seconds from `python app.py` until the page answers, and the app's peak MB then;
    on `port` (0: one the OS picks)."""
    if not port:
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
    10,000-model store takes seconds, not minutes and gigabytes. An index (appended to)
    and the lock files are the copy's own: flock locks a file, not a name, so a linked
    lock would make each copy's writers wait for every other copy's (benchmarks running
    side by side on copies of one store did)."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy, copy_function=lambda source, target: (
        shutil.copy2 if Path(source).name in OWN_FILES else os.link)(source, target))


def built_store(work: Path, n: int, samples: int, settled: bool, distinct: int,
                own_files: bool = False) -> tuple[Path, dict | None]:
    """The store of `n` models under `work` (built by the `build` phase unless it exists)
    and the build's summary (None when it existed); `own_files`: every model its own data file."""
    store = work / f"scale{n}-{samples}-{'settled' if settled else 'rebuilt'}{'-files' if own_files else ''}"
    if store.exists():
        return store, None
    return store, run_phase("build", store, n, samples, "settled" if settled else "rebuild", distinct,
                            "own" if own_files else "")


def write_probe(new_file: Path, store: Path, model_name: str) -> None:
    """A new model's submission file that `store`'s board accepts, and beside it
    (.form.json) its form for team Bench, model `model_name`."""
    from leaderboard.board.state import Leaderboard
    from leaderboard.submission.demo import sample_document
    from leaderboard.storage.local import LocalStore
    from leaderboard.strict_json import dump_json
    board = Leaderboard(LocalStore(store))
    new_file.write_bytes(dump_json(sample_document(board.benchmark, board.references(), seed=7)))
    new_file.with_suffix(".form.json").write_text(json.dumps(
        {"team_name": "Bench", "model_name": model_name, "model_type": "chat", "parameters": 7,
         "input_length": 4096, "precision": "bfloat16", "link_to_model": "https://example.com/probe",
         "description": f"{model_name} benchmark probe"}))


def measure(n: int, args) -> dict:
    work = Path(args.workdir)
    result = {"models": n, "load_average_at_start": os.getloadavg()}
    store, result["build"] = built_store(work, n, args.samples, args.settled, args.distinct, args.distinct_files)
    if args.build_only:
        return result
    new_file = work / f"scale-new-{args.samples}.json"
    if not new_file.exists():
        write_probe(new_file, store, "scale-probe")
    cli = [sys.executable, "-m", "leaderboard"]
    form = [str(new_file), "--team", "Bench", "--model", "scale-probe", "--type", "chat", "--params", "7",
            "--input-length", "4096", "--precision", "bfloat16", "--link", "https://example.com/probe"]

    def medians(name: str, run) -> None:
        """`run` (-> (seconds, peak MB)) once, reported as first_<name>, then --repeats times: medians."""
        result[f"first_{name}_seconds"], result[f"first_{name}_peak_mb"] = run()
        runs = [run() for _ in range(args.repeats)]
        result[f"{name}_seconds"] = statistics.median(r[0] for r in runs)
        result[f"{name}_peak_mb"] = statistics.median(r[1] for r in runs)
    # the first reader of a store indexes its caches (model_index.py): the first `table`
    medians("cold_table_process", lambda: timed_process([*cli, "table", "--store", str(store), "--format", "csv"]))
    medians("cold_presubmit_process", lambda: timed_process([*cli, "presubmit", *form, "--store", str(store)]))
    medians("validate_process", lambda: timed_process([*cli, "validate", str(new_file)]))
    try:
        medians("app_start", lambda: app_start(store, work / "scale_app.log", args.port))
    except AppDidNotStart as e:
        result["app_start_failed"] = str(e)
    print(json.dumps(result), file=sys.stderr, flush=True)  # what is measured so far
    copy = work / f"scale{n}-publish-copy"
    publishes, cold_publishes, tables_after_publication = [], [], []
    for _ in range(1 + args.repeats):  # publishing changes the store: each run on a fresh copy
        linked_copy(store, copy)
        cold_publishes.append(timed_process([*cli, "publish", *form, "--store", str(copy)]))
        # the publication wrote a current snapshot, which `table` prints
        tables_after_publication.append(timed_process([*cli, "table", "--store", str(copy), "--format", "csv"]))
        linked_copy(store, copy)
        publishes.append(run_phase("in_process", copy, new_file, args.repeats))
    shutil.rmtree(copy, ignore_errors=True)
    for name, runs in (("cold_publish_process", cold_publishes),
                       ("cold_table_after_publication_process", tables_after_publication)):
        medians(name, iter(runs).__next__)
    for key in ("load_seconds", "first_presubmit_seconds", "presubmit_median_seconds", "publish_seconds", "peak_mb",
                "bytes_written"):
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
    parser.add_argument("--settled", action="store_true", help="duels computed once per pair of contents, not "
                                                                   "by `rebuild` (see the module's note)")
    parser.add_argument("--distinct-files", action="store_true", help="every model its own data file (full size: "
                                                                       "no hard links, the real disk figure)")
    parser.add_argument("--port", type=int, default=0, help="the app's port (default: one the OS picks)")
    parser.add_argument("--build-only", action="store_true", help="build the stores, measure nothing")
    parser.add_argument("--workdir", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--repeats", type=int, default=REPEATS, help="warm runs of each measurement after the "
                                                                      "first (median)")
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
