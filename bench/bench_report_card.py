"""The report card's per-task discordance (`report_card.task_rows`, what About's first open
after a start or a publication waits for), in process, on a full-size store, for one or two
trees of the code in one run (each in a fresh process, after this one).

    python bench/bench_report_card.py --store /work/scratch/s17/k10/scale10000-0-settled \
        --workdir W [--before /path/to/old/tree] [--repeats 2]

Per tree: wall seconds of the first call in a fresh process (every model's arrays file read;
the files' pages in the OS cache as the previous run left them), then of `--repeats` calls
more, each after forgetting the cached rows (as a publication makes it), their median; the
process's peak resident memory before and after the calls (GB).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("BENCH_CODE", str(ROOT)))
sys.path.insert(1, str(ROOT))

from bench.trees import in_each_tree, parse_or_run_phase  # noqa: E402


def peak_gb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 3)


def phase(store: str, repeats: str) -> dict:
    from leaderboard.board.configured import open_configured_board
    from leaderboard.views import report_card

    os.environ["LEADERBOARD_STORE"] = store
    board = open_configured_board()
    board.ranked()
    before = peak_gb()
    seconds = []
    for _ in range(1 + int(repeats)):
        report_card._last_task_rows = (None, None)
        start = time.perf_counter()
        rows = report_card.task_rows(board)
        seconds.append(time.perf_counter() - start)
    return {"models": len(board.models), "tasks": len(rows), "first_s": round(seconds[0], 2),
            "again_median_s": round(statistics.median(seconds[1:]), 2), "peak_gb_before": before,
            "peak_gb_after": peak_gb(), "rows": rows.to_dict(orient="records")}


def main() -> None:
    from bench.bench_scale import linked_copy

    parser = argparse.ArgumentParser()
    parser.add_argument("--store", help="the store (required; optional only for a phase's own call)")
    parser.add_argument("--workdir", default="bench/out")
    parser.add_argument("--repeats", type=int, default=2)
    args = parse_or_run_phase(parser, phase)
    if args is None:
        return
    if not args.store:
        parser.error("--store is required")
    served = Path(args.workdir) / f"card-{Path(args.store).name}"
    linked_copy(Path(args.store), served)
    try:
        result: dict = {"load_average_at_start": os.getloadavg(),
                        **in_each_tree(__file__, args.before, served, args.repeats),
                        "load_average_at_end": os.getloadavg()}
    finally:
        shutil.rmtree(served, ignore_errors=True)
    if "before" in result:  # the same figures, computed another way
        result["same_rows"] = result["before"].pop("rows") == result["after"]["rows"]
    result["after"].pop("rows")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
