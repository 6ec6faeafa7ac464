"""Memory and time of parsing the largest files the bounds let through, and of a real one;
with --uploads, what the app's upload bounds let through.

    python bench/bench_limits.py [--workdir bench/out/limits]
    python bench/bench_limits.py --uploads [--bombs 8 --bomb-mb 1000 --temp-disk-mb 2048]

Each file is parsed in a fresh process (`parse_submission` against the full benchmark,
which refuses the synthetic ones after parsing: the parsing is what costs); the peak
RSS during parsing (VmHWM, reset after the imports) and the wall time are printed as
JSON, medians of 3.

--uploads starts the app (demo store of 5 models) with the given temporary-disk budget and
the default per-address bounds, has `--bombs` sessions (each its own address) upload a
zip bomb of `--bomb-mb` MB of zeros and compile it at the same moment, samples the size
of the unpacking folders every 2 ms for its peak, then sends 25 small uploads from one
address and 5 of 250 MB from another, and prints what was refused, as JSON.
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
    from leaderboard.storage.strict_json import dump_json
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
    from leaderboard.submission.demo import build_demo_store
    from test_app_limits import PageSession, UnpackingPeak, UploadRefused, zip_bomb
    from test_e2e import free_port, start_app

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default=ROOT / "bench" / "out" / "limits", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--uploads", action="store_true", help="measure the app's upload bounds instead")
    parser.add_argument("--bombs", type=int, default=8)
    parser.add_argument("--bomb-mb", type=int, default=1000)
    parser.add_argument("--temp-disk-mb", type=int, default=2048)
    args = parser.parse_args()
    if args.uploads:
        print(json.dumps(uploads(args), indent=1))
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
