"""Command line: `python -m leaderboard COMMAND ...`.

Exit codes: 0 success, 2 bad input (specific messages on stderr), 1 internal failure.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import shlex
import sys
import threading
import traceback
from typing import NoReturn

import stats
from stats import duel_tests
from leaderboard import blas
from leaderboard.storage.kept_counts import CountsFolder
from leaderboard.storage.kept_draws import DrawsFolder
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import SNAPSHOT_FILE
from leaderboard.strict_json import dump_json
from leaderboard.errors import BadInput, StoreConflict, StoreFailure, StoreNotFound
from leaderboard.submission.alignment import TaskReference
from leaderboard.submission.parsing import parse_submission, summarize
from leaderboard.config.settings import Settings
from leaderboard.config.tasks import load_benchmark

# The board (pandas), the Hub client, the views (plotly) and the demo generator are
# imported by the commands that use them: `validate` and `--help` start in a blink.

EXIT_BAD_INPUT, EXIT_INTERNAL = 2, 1
# A pre-submission (or publication) prints a board of at most WHOLE_BOARD_ROWS rows whole; of a
# larger one the top TOP_ROWS and the AROUND_ROWS either side of the model (`table` prints it all).
WHOLE_BOARD_ROWS, TOP_ROWS, AROUND_ROWS = 25, 10, 5
PREVIEW_DEFAULTS = {"model_type": "pretrained", "parameters": 1.0, "input_length": 2048,
                    "precision": "bfloat16", "link_to_model": "https://example.com/preview-only"}


class Bar:
    """A tqdm progress bar behind the engine's progress(fraction, message) callback, on a
    terminal; elsewhere the callback does nothing and tqdm is not imported (30-60 ms of a
    cold command's CPU)."""

    def __init__(self, description: str):
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=1000, desc=description, file=sys.stderr, leave=False,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix}")

    def __call__(self, fraction: float, message: str) -> None:
        if self.bar is not None:
            self.bar.n = int(1000 * min(max(fraction, 0.0), 1.0))
            self.bar.set_postfix_str(message[:50])

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _store(args):
    """--repo (a Hub dataset repo, token from HF_TOKEN), --store (a folder), or the
    LEADERBOARD_REPO / LEADERBOARD_STORE environment variables, in that order."""
    from leaderboard.board.configured import open_configured_store
    if getattr(args, "repo", None):
        from leaderboard.storage.hub import HubStore
        return HubStore(args.repo, token=Settings.from_environment().hf_token,
                        benchmark_name=load_benchmark(args.tasks).name)
    if getattr(args, "store", None):
        return LocalStore(args.store, load_benchmark(args.tasks).name)
    store = open_configured_store(load_benchmark(args.tasks).name)
    if store is None:
        raise BadInput("name the leaderboard: --store FOLDER or --repo OWNER/NAME "
                       "(or set LEADERBOARD_STORE / LEADERBOARD_REPO)")
    return store


def _open_board(args, must_exist: bool = True):
    """The Leaderboard of the store the arguments name."""
    from leaderboard.board.state import Leaderboard
    store = _store(args)
    if must_exist and not store.exists():
        raise BadInput(f"no leaderboard store at {store} (expected a folder with data/ or a dataset repo); "
                       f"create a local one with: python -m leaderboard demo --store FOLDER")
    bar = Bar("loading the store")
    try:
        with _out_of_the_collectors_sight(args.own_process):
            board = Leaderboard(store, load_benchmark(args.tasks), progress=bar, counts_kept=CountsFolder.configured())
    finally:
        bar.close()
    for problem in board.load_problems:
        _say(f"warning: {problem}", sys.stderr)
    return board


@contextlib.contextmanager
def _out_of_the_collectors_sight(own_process: bool):
    """In a process of the command's own (`python -m leaderboard`), what is made inside
    (the board) is made without the garbage collector's passes and then frozen out of
    its sight (`gc.freeze`), as app.py does with its start: it lives until the process
    ends, and the passes that the making and the pre-submission set off walked it again
    and again (at 10,000 models 0.2 s of CPU, 0.06 s after). Not in a process that goes
    on after the command (the tests' `cli`): what is frozen is never collected."""
    if not own_process:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _form(args) -> dict:
    """The form fields; those a pre-submission may leave out (publish requires them) get placeholders."""
    given = {"team_name": args.team, "model_name": args.model, "model_type": args.type,
             "parameters": args.params, "input_length": args.input_length, "precision": args.precision,
             "link_to_model": args.link, "description": args.description or ""}
    return {k: PREVIEW_DEFAULTS[k] if v is None else v for k, v in given.items()}


def terminal_safe(text, keep: str = "") -> str:
    """Text for a terminal: control characters (escape sequences, bidirectional
    overrides) shown as \\x1b-style escapes instead of being obeyed; those in `keep` stay."""
    return "".join(c if c.isprintable() or c == " " or c in keep else c.encode("unicode_escape").decode("ascii")
                   for c in str(text))


def _say(text, file=None) -> None:
    """Print text that may hold user input (titles, names) without obeying its control characters."""
    print(terminal_safe(text), file=file)


def _print_warnings(warnings: list[str]) -> None:
    for w in warnings:
        _say(f"warning: {w}", sys.stderr)


def cmd_validate(args) -> None:
    benchmark = load_benchmark(args.tasks)
    references = _open_board(args).references() if args.store else None
    parsed = parse_submission(args.file, benchmark, references)
    _print_warnings(parsed.warnings)
    n = sum(TaskReference.of(s).n_samples for s in parsed.tasks.values())
    print(f"{args.file}: valid, {len(parsed.tasks)} tasks, {n} samples")


def cmd_duel(args) -> None:
    benchmark = load_benchmark(args.tasks)
    a = parse_submission(args.a, benchmark)
    b = parse_submission(args.b, benchmark, {t: TaskReference.of(s) for t, s in a.tasks.items()})
    ra, rb = summarize(a, benchmark), summarize(b, benchmark)
    out = {}
    for task in benchmark.tasks:
        r = stats.duel(task.metric, ra.aggregates[task.id], ra.summaries[task.id],
                       rb.aggregates[task.id], rb.summaries[task.id], benchmark.alpha)
        out[task.id] = {"significant": bool(r.significant), "p_value": float(r.p_value), "delta": float(r.delta)}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for task_id, r in out.items():
            print(f"{task_id:45s} {'WON ' if r['significant'] else '-   '} p one-sided={r['p_value']:.4f} "
                  f"A better by={r['delta']:+.4f}")
        print(f"A wins {sum(r['significant'] for r in out.values())} of {len(out)} tasks")


def _print_table(table, fmt: str) -> None:
    from leaderboard.views.table import spreadsheet_safe
    if fmt == "csv":
        # CSV has no escapes of its own: control characters are written as \\x1b-style text,
        # so neither a terminal nor `cat` of the file obeys them. Written to a file or pipe,
        # newlines and tabs stay data (CSV quoting carries them); --format json keeps every
        # character exactly (JSON escapes them).
        keep = "" if sys.stdout.isatty() else "\n\t"
        safe = spreadsheet_safe(table).map(lambda v: terminal_safe(v, keep) if isinstance(v, str) else v)
        safe.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        print(table.to_json(orient="records", indent=1, force_ascii=False))  # NaN (no duels yet) becomes null
    else:
        print(_text_table(table).to_string(index=False, na_rep="–"))


def _text_table(table):
    """The text format's columns, every string escaped for the terminal."""
    return table.drop(columns=["Description", "Link", "Flagged", "Flag link"]).map(
        lambda v: terminal_safe(v) if isinstance(v, str) else v)


def _rows_around(count: int, position: int) -> list[int]:
    """The row positions a `count`-row board prints around the row at `position`: every row
    of a small board, else the top rows and those either side of `position`, in order."""
    if count <= WHOLE_BOARD_ROWS:
        return list(range(count))
    around = range(max(0, position - AROUND_ROWS), min(count, position + AROUND_ROWS + 1))
    return sorted(set(range(min(TOP_ROWS, count))) | set(around))


def _print_excerpt(table, position: int) -> None:
    """The text table's rows `_rows_around` the row at `position`, a line for each run of
    rows left out, and how many were left out in all."""
    shown = _rows_around(len(table), position)
    header, *lines = _text_table(table.iloc[shown]).to_string(index=False, na_rep="–").splitlines()
    print(header)
    for before, row, line in zip([-1, *shown], shown, lines):
        if row > before + 1:
            print(f"  … {row - before - 1:,} rows")
        print(line)
    left_out = len(table) - len(shown)
    if shown[-1] < len(table) - 1:
        print(f"  … {len(table) - 1 - shown[-1]:,} rows")
    if left_out:
        print(f"{left_out:,} of {len(table):,} rows left out: `table` prints the whole board")


def cmd_presubmit(args, publish: bool = False) -> None:
    from leaderboard.board.publishing import Publishing
    import pandas as pd
    from leaderboard.views.table import leaderboard_table, percent
    board = _open_board(args, must_exist=False)  # publishing into a new folder creates the store
    bar = Bar("pre-submission")
    try:
        preview = Publishing(board).presubmit(args.file, _form(args), progress=bar)
        if publish:
            Publishing(board).publish(preview, progress=bar)
            bar(1.0, "computing the rank and score intervals")  # after the commit, then written with the snapshot
            try:
                Publishing(board).refresh_intervals()
            except StoreFailure as e:  # the model is published all the same: only the snapshot is behind
                preview.warnings.append(f"{preview.submission_id} is published, but writing the ranking snapshot "
                                        f"after it failed ({e}); the ranking snapshot will be refreshed on the next "
                                        f"write, or now by `{_repair(board.store)}`")
    finally:
        bar.close()
    _print_warnings(preview.warnings)
    row = preview.table.loc[preview.submission_id]

    def score(column):  # None: no duels yet (the first model)
        return None if pd.isna(row[column]) else round(100 * row[column], 2)
    categories = {c: score(c) for c in board.benchmark.categories}
    if args.json:
        print(json.dumps({"submission_id": preview.submission_id, "published": publish, "rank": preview.rank,
                          "of": len(preview.table), "overall": score("overall"), "categories": categories,
                          "tasks": {t: score(t) for t in board.benchmark.task_ids},
                          "opponents": len(preview.opponents), "warnings": preview.warnings},
                         indent=1, ensure_ascii=False))
        return
    verb = "published as" if publish else "would rank"
    _say(f"{preview.model.title}: {verb} {preview.submission_id if publish else ''}".rstrip())
    print(f"rank {preview.rank} of {len(preview.table)}, overall win score {percent(row['overall'])} "
          f"({len(preview.opponents)} opponents)")
    for c in categories:
        print(f"  {c:32s} {percent(row[c]):>12s}")
    print()
    table = leaderboard_table(board, None, preview=preview if not publish else None)
    _print_excerpt(table, table.index.get_loc(preview.submission_id))


def cmd_table(args) -> None:
    from leaderboard.board.publishing import Publishing
    from leaderboard.storage.snapshot import SnapshotBoard
    from leaderboard.views.table import leaderboard_table
    board = None
    default_view = not (args.bh_adjusted or args.exclude_flagged)  # what the snapshot holds
    if default_view:
        store = _store(args)
        board = store.exists() and SnapshotBoard.of_store(store, load_benchmark(args.tasks))
    snapshot_read = bool(board)
    board = board or _open_board(args)
    try:
        table = leaderboard_table(board, args.category, adjusted=args.bh_adjusted,
                                  exclude_flagged=args.exclude_flagged)
    except ValueError as e:
        raise BadInput(str(e)) from None
    _print_table(table, args.format)
    if default_view and not snapshot_read and board.models and isinstance(board.store, LocalStore):
        # no current snapshot (a publication's commit leaves it): this reader computed what it
        # holds, so it writes it for the next (a Hub repo's gets it from the app, which commits it)
        with contextlib.suppress(OSError, StoreFailure):  # a store this user cannot write: only speed lost
            Publishing(board).refresh_intervals()


def cmd_rebuild(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    bar = Bar("rebuild")
    try:
        report = Administration(board).rebuild(progress=bar, recompute=args.recompute)
    finally:
        bar.close()
    print(f"rebuilt {board.store}: {len(board.models)} models, {report.dueled} missing model pairs dueled")
    if args.recompute:
        print(f"recomputed {report.recomputed_pairs} model pairs under rules {board.rules}: "
              f"{len(report.changed)} verdicts changed")
        by_task = {}
        for task, *_ in report.changed:
            by_task[task] = by_task.get(task, 0) + 1
        for task, count in sorted(by_task.items(), key=lambda kv: -kv[1]):
            _say(f"  {task}: {count} changed")
        for task, a, b, before, after in report.changed[:args.show_changes]:
            _say(f"  {task}: {a} vs {b}: {'won' if before else 'not won'} -> {'won' if after else 'not won'}")
        print(f"{len(report.moved)} models changed rank (from the stored duels' own rule to the "
              f"{board.benchmark.opponents!r} rule)")
        for sid, before, after in sorted(report.moved, key=lambda m: m[2])[:args.show_changes]:
            _say(f"  {board.models[sid].title} ({sid}): rank {before} -> {after}")


def cmd_migrate(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    files = Administration(board).migrate()
    print(f"migrated {board.store}: tournament.json -> {files} duel files in duels/ "
          f"({len(board.tournament)} duel rows, {len(board.models)} models); ranking unchanged. "
          f"Run `rebuild --recompute` to bring duels of unrecorded rules under {board.rules}")


def cmd_export(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    folder = Administration(board).export_reference_layout(args.output)
    print(f"wrote {len(board.models)} submissions, tournament.json and the titles file to {folder}")


def cmd_remove(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    title = board.models[args.submission_id].title if args.submission_id in board.models else args.submission_id
    Administration(board).remove(args.submission_id, args.reason)
    _say(f"removed {title} ({args.submission_id}) from {board.store}: {len(board.models)} models left")


def cmd_flag(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    Administration(board).flag(args.submission_id, args.reason, args.link)
    flagged = board.flags[args.submission_id]
    _say(f"flagged {board.models[args.submission_id].title} ({args.submission_id}) on {board.store}: "
         f"{flagged.reason}{f' ({flagged.link})' if flagged.link else ''}; new submissions will not duel it")


def cmd_unflag(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    flag = board.flags.get(args.submission_id)
    Administration(board).unflag(args.submission_id, args.reason or "")
    skipped = sum(m.submitted >= flag.flagged_at for m in board.models.values())
    _say(f"unflagged {board.models[args.submission_id].title} ({args.submission_id}) on {board.store}"
         + (f"; {skipped} models published while it was flagged did not duel it: `check` lists the missing "
            f"duels, `rebuild` runs them" if skipped else ""))


def _repair(store) -> str:
    """The command that writes the ranking snapshot of `store` again."""
    where = f"--store {shlex.quote(str(store.root))}" if isinstance(store, LocalStore) else f"--repo {store.repo_id}"
    return f"python -m leaderboard refresh-snapshot {where}"


def cmd_check(args) -> None:
    from leaderboard.board.administration import Administration
    board = _open_board(args)
    problems = Administration(board).check()
    stale = Administration(board).stale_snapshot()
    if stale is not None:
        problems.append(f"{SNAPSHOT_FILE} is stale: it ranks {stale} models of {len(board.models)}; "
                        f"run `{_repair(board.store)}` (the app's next start and the board's next write do too)")
    for note in board.store.recovered:  # repaired when the store was opened, so not problems
        _say(f"repaired: {note}")
    for problem in problems:
        _say(f"problem: {problem}")
    print(f"{board.store}: {len(board.models)} models, "
          f"{'no problems' if not problems else f'{len(problems)} problems'}")
    if problems:
        raise SystemExit(EXIT_BAD_INPUT)


def cmd_refresh_snapshot(args) -> None:
    from leaderboard.board.publishing import Publishing
    from leaderboard.storage.snapshot import stale_rows
    board = _open_board(args)
    stored = board.store.read_snapshot_file()
    if stored is not None and stale_rows(stored, board.models, board.flags, board.benchmark) is None:
        print(f"{board.store}: {SNAPSHOT_FILE} is current ({len(board.models)} models); nothing written")
        return
    if not Publishing(board).refresh_intervals():  # another write came first, with its own snapshot
        raise StoreFailure(f"{board.store} changed while the intervals were computed; {SNAPSHOT_FILE} was not "
                           f"written: run `check` to see whether it is stale now")
    print(f"{board.store}: wrote {SNAPSHOT_FILE}, the ranking of {len(board.models)} models with their intervals")


def cmd_sample_file(args) -> None:
    """A valid submission file for the store: the demo generator on the store's own sample
    counts, doc_ids and gold labels, so a pre-submission of it is accepted."""
    board = _open_board(args)
    try:
        with open(args.output, "wb") as f:
            f.write(dump_json(board.sample_document()))
    except OSError as e:
        raise BadInput(f"cannot write {args.output}: {e.strerror or e}") from None
    print(f"{args.output}: a sample submission for {board.store} ({len(board.models)} models)")


def cmd_compile(args) -> None:
    """Harness output folders -> one submission file (written only when it is valid)."""
    from leaderboard.submission.harness import compile_runs
    benchmark = load_benchmark(args.tasks)
    bar = Bar("compiling")
    try:
        document, notes = compile_runs(args.input, benchmark, newest=args.newest, strict=args.strict, progress=bar)
    finally:
        bar.close()
    for note in notes:
        _say(f"note: {note}", sys.stderr)
    data = dump_json(document)
    temporary = f"{args.output}.partial"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, args.output)
    except OSError as e:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise BadInput(f"cannot write {args.output}: {e.strerror or e}") from None
    n = sum(len(samples) for samples in document["predictions"].values())
    _say(f"{args.output}: {len(document['predictions'])} tasks, {n} samples of "
         f"{document['metadata'].get('model_name')} ({len(data) / 2**20:.1f} MB); "
         f"check it with: python -m leaderboard validate {args.output}")


def cmd_demo(args) -> None:
    from leaderboard.board.configured import build_demo_store
    if args.models < 1:
        raise BadInput(f"--models must be at least 1, got {args.models}")
    if LocalStore(args.store).submission_ids():
        raise BadInput(f"{args.store} already holds submissions; demo builds a new store")
    bar = Bar("demo")
    try:
        board = build_demo_store(args.store, args.models, args.seed, load_benchmark(args.tasks), progress=bar)
    finally:
        bar.close()
    print(f"demo store at {args.store}: {len(board.models)} models")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m leaderboard", description="Duel-scoring leaderboard")
    parser.add_argument("--tasks", help="the benchmark's tasks file (default: $LEADERBOARD_TASKS, else "
                                        "data/tasks_metadata.json)")
    sub = parser.add_subparsers(dest="command", required=True)

    def store_arg(p, required=True):
        where = p.add_mutually_exclusive_group(required=False)
        where.add_argument("--store", help="leaderboard store folder (or set LEADERBOARD_STORE)")
        if required:
            where.add_argument("--repo", help="Hugging Face dataset repo OWNER/NAME; token from HF_TOKEN "
                                              "(or set LEADERBOARD_REPO)")

    p = sub.add_parser("validate", help="check a submission file")
    p.add_argument("file")
    store_arg(p, required=False)
    p.set_defaults(run=cmd_validate)

    p = sub.add_parser("duel", help="is A significantly better than B, task by task (one-sided tests; delta: "
                                    "A better by, in the metric, positive = A better)")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_duel)

    for name, publish in (("presubmit", False), ("publish", True)):
        p = sub.add_parser(name, help="preview the ranking (writes nothing)" if not publish
                           else "publish a submission")
        p.add_argument("file")
        store_arg(p)
        p.add_argument("--team", required=True)
        p.add_argument("--model", required=True)
        # a pre-submission fills these with placeholders; a publication stores them
        p.add_argument("--type", required=publish, help="chat, pretrained or ensemble")
        p.add_argument("--params", required=publish, help="parameters in billions")
        p.add_argument("--input-length", required=publish, help="input length in tokens")
        p.add_argument("--precision", required=publish, help="e.g. bfloat16")
        p.add_argument("--link", required=publish, help="http(s) link to the model")
        p.add_argument("--description")
        p.add_argument("--json", action="store_true")
        p.set_defaults(run=lambda a, publish=publish: cmd_presubmit(a, publish))

    p = sub.add_parser("compile", help="turn lm-evaluation-harness output into a submission file")
    p.add_argument("-i", "--input", action="extend", nargs="+", required=True, metavar="PATH",
                   help="run folders, parents of run folders, globs or results_*.json files (several after one "
                        "-i, as a shell glob gives them, or -i repeated)")
    p.add_argument("-o", "--output", required=True, help="the submission file to write")
    p.add_argument("--newest", action="store_true",
                   help="when several runs evaluated a task, keep the newest instead of stopping")
    p.add_argument("--strict", action="store_true",
                   help="stop at harness tasks no benchmark task maps instead of ignoring them with a note")
    p.add_argument("--tasks", default=argparse.SUPPRESS, help="tasks metadata file (as before the command)")
    p.set_defaults(run=cmd_compile)

    p = sub.add_parser("table", help="print the leaderboard")
    store_arg(p)
    p.add_argument("--category", default=None)
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument("--exclude-flagged", action="store_true",
                   help="leave flagged models out; scores recomputed without their duels")
    p.add_argument("--bh-adjusted", action="store_true",
                   help="duels judged by Benjamini-Hochberg adjusted p-values (one family per model)")
    p.set_defaults(run=cmd_table)

    p = sub.add_parser("rebuild", help="run every missing duel")
    store_arg(p)
    p.add_argument("--recompute", action="store_true",
                   help="also re-duel every pair whose duels were computed under other rules, and report changes")
    p.add_argument("--show-changes", type=int, default=20, help="changed verdicts and moved ranks to list (default 20)")
    p.set_defaults(run=cmd_rebuild)

    p = sub.add_parser("migrate", help="convert a reference-layout store (tournament.json) to duel files")
    store_arg(p)
    p.set_defaults(run=cmd_migrate)

    p = sub.add_parser("export", help="write the board in another layout")
    store_arg(p)
    p.add_argument("--reference-layout", action="store_true", required=True,
                   help="data/, tournament.json and the titles file, as the original leaderboard stores them")
    p.add_argument("-o", "--output", required=True, help="a new (or empty) folder")
    p.set_defaults(run=cmd_export)

    p = sub.add_parser("remove", help="take a model and its duels off the board (one commit)")
    p.add_argument("submission_id", nargs="?", help="the id (one starting with '-' is read as the id too)")
    p.add_argument("--reason", required=True, help="why; recorded in the commit message")
    store_arg(p)
    p.set_defaults(run=cmd_remove)

    p = sub.add_parser("flag", help="mark a model (e.g. contaminated): shown with the reason, no longer an "
                                    "opponent of new submissions (one commit)")
    p.add_argument("submission_id", nargs="?", help="the id (one starting with '-' is read as the id too)")
    p.add_argument("--reason", required=True, help="why; shown beside the model")
    p.add_argument("--link", help="http(s) address of the evidence")
    store_arg(p)
    p.set_defaults(run=cmd_flag)

    p = sub.add_parser("unflag", help="take a model's flag off (one commit)")
    p.add_argument("submission_id", nargs="?", help="the id (one starting with '-' is read as the id too)")
    p.add_argument("--reason", help="why; recorded in the commit message")
    store_arg(p)
    p.set_defaults(run=cmd_unflag)

    p = sub.add_parser("check", help="integrity report: missing or orphan duels, invalid files")
    store_arg(p)
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("refresh-snapshot", help=f"write the ranking snapshot ({SNAPSHOT_FILE}) again when it is "
                                                "stale or missing (`check` reports a stale one)")
    store_arg(p)
    p.set_defaults(run=cmd_refresh_snapshot)

    p = sub.add_parser("sample-file", help="write a valid sample submission file for the store")
    store_arg(p)
    p.add_argument("-o", "--output", required=True, help="file to write")
    p.set_defaults(run=cmd_sample_file)

    p = sub.add_parser("demo", help="build a demo store")
    p.add_argument("--store", required=True, help="leaderboard store folder")
    p.add_argument("--models", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=cmd_demo)
    return parser


ID_COMMANDS = ("remove", "flag", "unflag")  # commands taking a submission id


def _options(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """(every option string, those taking one value) of the parser and its subcommands."""
    every, valued = set(), set()
    for action in parser._actions:  # argparse has no public listing of its options
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub_every, sub_valued = _options(sub)
                every |= sub_every
                valued |= sub_valued
        every |= set(action.option_strings)
        if action.nargs is None:
            valued |= set(action.option_strings)
    return every, valued


def _attach_dash_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """argv with each value that begins with "-" joined to its option (`--team -2+3` ->
    `--team=-2+3`): argparse reads such a value as an unknown option. A word that is an
    option (or an abbreviation of one) stays an option, so a missing value is still an error."""
    every, valued = _options(parser)
    longs = [o for o in every if o.startswith("--")]

    def is_option(word: str) -> bool:
        name = word.split("=", 1)[0]
        return name in every or (name.startswith("--") and any(o.startswith(name) for o in longs))
    joined, words = [], iter(argv)
    for word in words:
        value = next(words, None) if word in valued else None
        if value is not None and value.startswith("-") and not is_option(value):
            joined.append(f"{word}={value}")
        else:
            joined += [word] + ([value] if value is not None else [])
    return joined


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """argparse, except that option values may begin with "-" (team and model names,
    reasons) and the ID_COMMANDS take an id starting with "-" (ids are made from team
    names) without needing "--" before it."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(_attach_dash_values(parser, sys.argv[1:] if argv is None else argv))
    if args.command in ID_COMMANDS and args.submission_id is None and len(unknown) == 1:
        args.submission_id = unknown[0]
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command in ID_COMMANDS and args.submission_id is None:
        parser.error(f"{args.command} needs the submission id of the model")
    return args


def main(argv: list[str] | None = None, own_process: bool = False) -> int:
    """`own_process`: the process ends with the command (`run`)."""
    blas.one_thread()
    args = _parse(argv)
    args.own_process = own_process
    try:
        with duel_tests.draws_kept_in(DrawsFolder.configured()):  # a fresh process would draw every task's again
            args.run(args)
    except BadInput as e:  # the input is wrong, or names a model that does not exist
        for problem in e.problems:
            _say(f"error: {problem}", sys.stderr)
        return EXIT_BAD_INPUT
    except StoreNotFound as e:  # the store named does not exist
        _say(f"error: {e}", sys.stderr)
        return EXIT_BAD_INPUT
    except (StoreFailure, StoreConflict) as e:  # the store failed (network, permissions), not the input
        _say(f"error: {e}", sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, not a traceback
        if Settings.from_environment().debug:
            traceback.print_exc()
        print(f"internal error: {type(e).__name__}: {e} (set LEADERBOARD_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL
    return 0


def run() -> NoReturn:
    """The command line as a program (`python -m leaderboard`, the `duel-leaderboard` script):
    the process ends with the command. What the command printed is written out, and the
    interpreter's teardown, which frees every module and the board object by object (0.04-0.08 s
    of a pre-submission that takes under a second, bench/RESULTS.md), is skipped; not while
    another thread runs, which a normal exit waits for."""
    code = main(own_process=True)
    if threading.active_count() > 1:
        sys.exit(code)
    logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (`| head`): nothing more to write
        pass
    os._exit(code)
