"""Memory and time of parsing the largest files the bounds let through, and of a real one.

    python bench/bench_limits.py [--workdir bench/out/limits]

Each file is parsed in a fresh process (`parse_submission` against the full benchmark,
which refuses the synthetic ones after parsing: the parsing is what costs); the peak
RSS during parsing (VmHWM, reset after the imports) and the wall time are printed as
JSON, medians of 3.
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
from leaderboard.submission import SubmissionError, parse_submission
from leaderboard.tasks import load_benchmark

def status_mb(field):
    return int(re.search(field + r":\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) / 1024

benchmark = load_benchmark()
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here
base = status_mb("VmRSS")
t = time.perf_counter()
try:
    parse_submission(sys.argv[1], benchmark)
    outcome = "accepted"
except SubmissionError as e:
    outcome = e.problems[0][:80]
print(time.perf_counter() - t, status_mb("VmHWM"), base, outcome, sep="\\t")
"""


def files(workdir: Path) -> dict[str, Path]:
    from leaderboard.demo import demo_model
    from leaderboard.store import dump_json
    from leaderboard.submission import MAX_FILE_BYTES, MAX_JSON_OBJECTS, MAX_JSON_VALUES
    from leaderboard.tasks import load_benchmark
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default=ROOT / "bench" / "out" / "limits", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
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
