"""The resident memory of a process that pre-submits as the app does, pre-submission after
pre-submission (issue 35's memory target, <= 4 GB at 10,000 full-size models; the served
app's own peak is `bench_web.py`'s `app_peak_memory_gb`). In process, no Gradio.

    python bench/bench_memory.py --store DIR --enters FILE --stays-out FILE [--presubmits 24] [--before DIR]

One fresh process per tree, started as the app starts (one BLAS thread, the tree's
allocator settings when it has them, the store loaded, its intervals from the snapshot,
the start's warming waited for). Then pre-submissions two at a time, each pair on two new
threads (Gradio runs handlers on a pool of threads), the files alternating (staying off
the panel, entering it). Each is read, pre-submitted, its summary, neighbourhood, duels
grid and whole ranking made, and kept as the app keeps them: the newest 8 previews with
their rankings and the newest 8 read files; an entering one's duels run ahead on one
worker, as if each submitter asked to publish (the app runs them from that click since
session 19, with every preview before it), then the tree's trim of freed memory when it has
one (`freed_memory.give_back`, as its app runs after each pre-submission). After each pair,
once the duels ahead ran: the process's peak and resident memory (VmHWM, VmRSS), in GB.
Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("BENCH_CODE", ROOT))  # the tree whose leaderboard package a phase measures
sys.path.insert(0, str(ROOT))
from bench.process_memory import memory_gb  # noqa: E402 - this checkout's, whatever the tree
from bench.trees import in_each_tree, parse_or_run_phase  # noqa: E402
sys.path.insert(0, str(CODE))


def phase(store: str, enters: str, stays_out: str, presubmits: str) -> dict:
    from leaderboard import blas
    blas.one_thread()
    try:
        from leaderboard import freed_memory
        freed_memory.fewer_arenas()
        give_back = freed_memory.give_back
    except ImportError:  # a tree from before session 19
        give_back = None
    from leaderboard.app.previews import PreviewShelf
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    from leaderboard.views import details, submission, table as board_views
    board = Leaderboard(LocalStore(store))
    board.certainty_from_snapshot()
    board.warm_in_background().join()
    out: dict = {"warmed": memory_gb(), "after_pairs": [], "pair_s": []}
    background = ThreadPoolExecutor(1)
    kept = PreviewShelf().total  # as many previews, and read uploads, as the app keeps
    previews, reads = deque(maxlen=kept), deque(maxlen=kept)
    lock = threading.Lock()

    def presubmit(k: int) -> None:
        path = Path(enters if k % 2 else stays_out)
        form = json.loads(path.with_suffix(".form.json").read_text())
        form["model_name"] = f"{form['model_name']}-{k}"  # another model each time
        publishing = Publishing(board)
        read = publishing.read(path)
        preview = publishing.presubmit(read, form)
        submission.preview_summary(board, preview)
        submission.preview_table(board, preview, board_views.rows_around(preview.table, preview.submission_id, 7).index)
        duels = details.model_duels(board, preview.submission_id, None, preview.tournament, preview.table.index)
        details.duel_frame(board, duels, {**board.models, preview.submission_id: preview.model},
                           details.GRID_COMPETITORS)
        ranking = submission.preview_table(board, preview)
        publishing.duel_ahead(preview, background)
        if give_back is not None:
            background.submit(give_back)
        with lock:
            previews.append((preview, ranking))
            reads.append(read)

    for k in range(0, int(presubmits), 2):
        t = time.perf_counter()
        with ThreadPoolExecutor(2) as pair:
            list(pair.map(presubmit, [k, k + 1]))
        out["pair_s"].append(time.perf_counter() - t)
        background.submit(lambda: None).result()  # the duels ahead (and the trim) done
        out["after_pairs"].append(memory_gb())
    out["pair_median_s"] = statistics.median(out["pair_s"])
    out["cpu_s"] = time.process_time()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", help="a settled store (bench_scale.py --settled); read only")
    parser.add_argument("--enters", help="a file entering the panel (bench_publication.new_files)")
    parser.add_argument("--stays-out", help="a file staying off the panel, its form beside it")
    parser.add_argument("--presubmits", type=int, default=24)
    args = parse_or_run_phase(parser, phase)
    if args is None:
        return
    if not (args.store and args.enters and args.stays_out):
        parser.error("--store, --enters and --stays-out are required")
    result: dict = {"presubmits": args.presubmits, "load_average_at_start": os.getloadavg()}
    result.update(in_each_tree(__file__, args.before, args.store, args.enters, args.stays_out, args.presubmits))
    result["load_average_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
