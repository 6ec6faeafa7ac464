"""Memory and time of parsing the largest files the bounds let through, and of a real one;
with --uploads, what the app's upload bounds let through; with --quotas, what the
per-requester quotas let through.

    python bench/bench_limits.py [--workdir bench/out/limits]
    python bench/bench_limits.py --uploads [--bombs 8 --bomb-mb 1000 --temp-disk-mb 2048]
    python bench/bench_limits.py --quotas

Each file is parsed in a fresh process (`parse_submission` against the full benchmark,
which refuses the synthetic ones after parsing: the parsing is what costs); the peak
RSS during parsing (VmHWM, reset after the imports) and the wall time are printed as
JSON, medians of 3.

--uploads starts the app (demo store of 5 models) with the given temporary-disk budget and
the default per-address bounds, has `--bombs` sessions (each its own address) upload a
zip bomb of `--bomb-mb` MB of zeros and compile it at the same moment, samples the size
of the unpacking folders every 2 ms for its peak, then sends 25 small uploads from one
address and 5 of 250 MB from another, and prints what was refused, as JSON.

--quotas starts the app (demo store of 5 models) with the default quotas and, through the
page's own HTTP routes, sends 25 uploads from one address and 15 pre-submissions from
another; then, in process on a copy of the store, 35 pre-submissions of one signed-in
account over 24 hours, each hour's within the hourly quota. It prints how many were
admitted, recorded and refused, the first refusal, and whether each refusal left the
store byte-identical.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = """
import re, sys, time
from leaderboard.submission.parsing import parse_submission
from leaderboard.errors import BadInput
from leaderboard.config.tasks import load_benchmark

def status_mb(field):
    return int(re.search(field + r":\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) / 1024

benchmark = load_benchmark()
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here
base = status_mb("VmRSS")
t = time.perf_counter()
try:
    parse_submission(sys.argv[1], benchmark)
    outcome = "accepted"
except BadInput as e:
    outcome = e.problems[0][:80]
print(time.perf_counter() - t, status_mb("VmHWM"), base, outcome, sep="\\t")
"""


def files(workdir: Path) -> dict[str, Path]:
    from leaderboard.submission.demo import demo_model
    from leaderboard.strict_json import dump_json
    from leaderboard.submission.reading import MAX_FILE_BYTES, MAX_JSON_OBJECTS, MAX_JSON_VALUES
    from leaderboard.config.tasks import load_benchmark
    workdir.mkdir(parents=True, exist_ok=True)
    out = {}
    _, document, _ = demo_model(load_benchmark(), 0)
    out["real-sized file (demo, 50 tasks)"] = dump_json(document)
    n = MAX_JSON_OBJECTS - 10
    out[f"{n:,} tiny samples (the object bound)"] = (
        '{"predictions": {"benczechmark_hellaswag": [' + ",".join(['{"acc":1}'] * n) + "]}}").encode()
    k = MAX_JSON_VALUES - 10
    out[f"{k:,} numbers in one sample (the value bound)"] = (
        '{"predictions": {"benczechmark_snli": [{"avg_mcauroc": [0, [' + ",".join(["0"] * k) + "]]}]}}").encode()
    text = "x" * (MAX_FILE_BYTES - 200)
    out["one string filling the size bound"] = ('{"predictions": {}, "metadata": {"notes": "' + text + '"}}').encode()
    paths = {}
    for name, data in out.items():
        path = workdir / (name.split(" ")[0].replace(",", "") + ".json")
        path.write_bytes(data)
        paths[name] = path
    return paths


def uploads(args) -> dict:
    import os
    import time
    from concurrent.futures import ThreadPoolExecutor

    sys.path.insert(0, str(ROOT / "tests"))
    from leaderboard.board.configured import build_demo_store
    from support.page_sessions import PageSession, UploadRefused
    from support.archives import UnpackingPeak, zip_bomb
    from support.servers import free_port, start_app

    workdir = args.workdir / "uploads"
    unpacking, cache, store = workdir / "tmp", workdir / "gradio", workdir / "store"
    for folder in (unpacking, cache):
        folder.mkdir(parents=True, exist_ok=True)
    if not store.exists():
        build_demo_store(store, 5, seed=0)
    bomb = workdir / f"bomb{args.bomb_mb}.zip"
    if not bomb.exists():
        zip_bomb(bomb, args.bomb_mb)
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port), "TMPDIR": str(unpacking),
           "GRADIO_TEMP_DIR": str(cache), "GRADIO_ANALYTICS_ENABLED": "False",
           "LEADERBOARD_TEMP_DISK_MB": str(args.temp_disk_mb)}
    app = start_app(env, workdir / "app.log")
    url = f"http://127.0.0.1:{port}/"
    try:
        sessions = [PageSession(url, f"10.1.0.{k}") for k in range(args.bombs)]
        files = [s.upload(bomb) for s in sessions]
        t = time.perf_counter()
        with UnpackingPeak(unpacking) as peak, ThreadPoolExecutor(args.bombs) as pool:
            answers = list(pool.map(lambda s, f: s.call("uploaded", [f, "", "", None, None, "bfloat16"])[0],
                                    sessions, files))
        seconds = time.perf_counter() - t

        def refused(address: str, count: int, megabytes: float) -> dict:
            session, path = PageSession(url, address), workdir / f"upload{megabytes}.json"
            path.write_bytes(os.urandom(int(megabytes * 2**20)))
            messages = []
            for _ in range(count):
                try:
                    session.upload(path)
                except UploadRefused as e:
                    messages.append(str(e))
            return {"sent": count, "mb_each": megabytes, "refused": len(messages),
                    "first_refusal": messages[0] if messages else None}

        return {"bombs": {"count": args.bombs, "unpacks_to_mb": args.bomb_mb, "zip_kb": bomb.stat().st_size // 1024,
                          "temp_disk_budget_mb": args.temp_disk_mb, "unpacking_peak_mb": round(peak.bytes / 2**20),
                          "unpacked": sum("no harness results" in a for a in answers),
                          "told_to_retry": sum("try again" in a for a in answers), "seconds": round(seconds, 1)},
                "uploads_by_count": refused("10.1.1.1", 25, 1),
                "uploads_by_volume": refused("10.1.1.2", 5, 250)}
    finally:
        app.terminate()
        app.wait(timeout=30)


def quotas(args) -> dict:
    import os
    import shutil

    sys.path.insert(0, str(ROOT / "tests"))
    from support.stores import tree_digest
    from leaderboard.app.limits import PresubmissionQuota
    from leaderboard.temp_disk import LimitReached
    from leaderboard.board.state import Leaderboard
    from leaderboard.config.settings import Settings
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.storage.local import LocalStore
    from leaderboard.storage.presubmissions import PRESUBMISSIONS_DIR, PresubmissionRecord, requester_key
    from leaderboard.strict_json import dump_json
    from leaderboard.board.configured import build_demo_store
    from leaderboard.submission.demo import demo_model
    from support.page_sessions import PageSession, UploadRefused, presubmit, shown
    from support.servers import free_port, start_app

    workdir = args.workdir / "quotas"
    shutil.rmtree(workdir, ignore_errors=True)
    store = workdir / "store"
    build_demo_store(store, 5, seed=0)
    pristine = workdir / "pristine"
    shutil.copytree(store, pristine)
    benchmark, defaults = load_benchmark(), Settings()
    files = []
    for k in range(15):
        files.append(workdir / f"model{k}.json")
        files[-1].write_bytes(dump_json(demo_model(benchmark, 100 + k, seed=0)[1]))
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    app = start_app(env, workdir / "app.log")
    url = f"http://127.0.0.1:{port}/"

    def records() -> int:
        return sum(len(f.read_text().splitlines()) for f in (store / PRESUBMISSIONS_DIR).glob("*.jsonl"))

    try:
        uploader, sent, refusals, unchanged = PageSession(url, "10.2.0.1"), 25, [], True
        for _ in range(sent):
            before = tree_digest(store)
            try:
                uploader.upload(files[0])
            except UploadRefused as e:
                refusals.append(str(e))
                unchanged &= tree_digest(store) == before
        by_upload = {"limit_per_hour": defaults.uploads_per_hour, "sent": sent, "stored": sent - len(refusals),
                     "refused": len(refusals), "store_unchanged_by_refusals": unchanged,
                     "first_refusal": refusals[0] if refusals else None}
        refusals, unchanged = [], True
        for path in files:
            before = tree_digest(store)
            answer = shown(presubmit(PageSession(url, "10.2.0.2"), path))
            if "would rank" not in answer:
                refusals.append(answer.strip().splitlines()[0])
                unchanged &= tree_digest(store) == before
        by_presubmission = {"limit_per_hour": defaults.presubmissions_per_hour, "sent": len(files),
                            "recorded": records(), "refused": len(refusals),
                            "store_unchanged_by_refusals": unchanged,
                            "first_refusal": refusals[0] if refusals else None}
    finally:
        app.terminate()
        app.wait(timeout=30)

    board = Leaderboard(LocalStore(pristine), benchmark)
    now = 1_800_000_000.0
    clock = [now]
    quota = PresubmissionQuota(defaults.presubmissions_per_hour, defaults.presubmissions_per_day,
                               clock=lambda: clock[0])
    attempts, admitted, refusals, unchanged = 35, 0, [], True
    for k in range(attempts):  # spread over 24 hours: at most 2 an hour, under the hourly quota
        clock[0] = now + k * (23 * 3600 / attempts)
        before = tree_digest(pristine)
        try:
            with quota.admitted(board.presubmissions, requester_key("alice", "10.2.0.3"), signed_in=True):
                board.presubmissions.record(PresubmissionRecord(clock[0], "alice", None, "alice", "0" * 64, 1, 6))
                admitted += 1
        except LimitReached as e:
            refusals.append(str(e))
            unchanged &= tree_digest(pristine) == before
    by_account = {"limit_per_day": defaults.presubmissions_per_day, "sent": attempts, "recorded": admitted,
                  "refused": len(refusals), "store_unchanged_by_refusals": unchanged,
                  "first_refusal": refusals[0] if refusals else None}
    return {"uploads_one_address": by_upload, "presubmissions_one_address": by_presubmission,
            "presubmissions_one_account_24h": by_account}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default=ROOT / "bench" / "out" / "limits", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--uploads", action="store_true", help="measure the app's upload bounds instead")
    parser.add_argument("--quotas", action="store_true", help="measure the per-requester quotas instead")
    parser.add_argument("--bombs", type=int, default=8)
    parser.add_argument("--bomb-mb", type=int, default=1000)
    parser.add_argument("--temp-disk-mb", type=int, default=2048)
    args = parser.parse_args()
    if args.uploads or args.quotas:
        print(json.dumps(uploads(args) if args.uploads else quotas(args), indent=1))
        return
    results = {}
    for name, path in files(args.workdir).items():
        runs = []
        for _ in range(args.repeats):
            done = subprocess.run([sys.executable, "-c", CHILD, str(path)], cwd=ROOT, capture_output=True, text=True,
                                  check=True)
            seconds, peak, base, outcome = done.stdout.strip().split("\t")
            runs.append((float(seconds), float(peak), float(base), outcome))
        results[name] = {"file_mb": round(path.stat().st_size / 2**20, 1),
                         "seconds_median": round(statistics.median(r[0] for r in runs), 2),
                         "peak_rss_mb_median": round(statistics.median(r[1] for r in runs)),
                         "rss_before_parsing_mb": round(statistics.median(r[2] for r in runs)),
                         "outcome": runs[0][3]}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
