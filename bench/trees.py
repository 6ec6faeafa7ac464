"""A bench's phase run in a fresh process on a tree of the code: this checkout, or another
commit's `git archive` (a bench's `--before DIR`), whose `leaderboard` package the phase
imports (`BENCH_CODE`, which each bench puts first on its path)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent


def phase_in_tree(script: str, code: Path, *args) -> dict:
    """`python script --phase *args` on the tree `code`: the JSON its last line prints."""
    done = subprocess.run([sys.executable, script, "--phase", *map(str, args)], cwd=ROOT,
                          env={**os.environ, "BENCH_CODE": str(code)}, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{Path(script).name} --phase {' '.join(map(str, args[:1]))} on {code} failed:\n"
                         f"{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_each_tree(script: str, before: str | None, *args) -> dict[str, dict]:
    """`phase_in_tree` on this checkout ("after") and then, when given, on the tree `before`."""
    trees = {"after": ROOT, **({"before": Path(before)} if before else {})}
    return {tree: phase_in_tree(script, code, *args) for tree, code in trees.items()}


def parse_or_run_phase(parser: argparse.ArgumentParser, phase: Callable[..., dict]) -> argparse.Namespace | None:
    """The command's arguments, with the trees' own added (`--before DIR`; `--phase ARGS...`,
    as `phase_in_tree` calls the script); None when this process ran `phase` (and printed
    its JSON)."""
    parser.add_argument("--before", help="another tree of the code (a commit's `git archive`), measured after this one")
    parser.add_argument("--phase", action="store_true")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(*args.args)))
        return None
    return args
