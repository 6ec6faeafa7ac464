"""The command line run in the test process, as a process would run it."""
from __future__ import annotations

from pathlib import Path
import contextlib
import io
import os
import subprocess
import sys
from leaderboard.cli import main as cli_main
from support.paths import ROOT


def _pipe(stream) -> io.TextIOWrapper:
    """An in-memory stand-in for a child's stdout or stderr on a pipe: bytes, with the
    encoding and error handler this interpreter gave its own stream (so what a real pipe
    cannot take fails alike), and not a terminal."""
    return io.TextIOWrapper(io.BytesIO(), encoding=stream.encoding, errors=stream.errors)


def _as_subprocess_reads(pipe: io.TextIOWrapper) -> str:
    """The pipe's bytes decoded as subprocess.run(text=True) decodes them: strict, with
    universal newlines."""
    pipe.flush()
    return io.TextIOWrapper(io.BytesIO(pipe.buffer.getvalue()), encoding=sys.__stdout__.encoding).read()


def cli(*args, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m leaderboard *args` run as `__main__` runs it (its `main`, SystemExit's
    code), in this process: the exit code and the output as
    `subprocess.run(capture_output=True, text=True)` gives them, without a fresh
    interpreter's start and imports (0.7-1 s of CPU per command). `env`, when given, is
    the whole environment during the call; `cwd` the working directory. For tests of what
    a command does; the tests of the process itself (a cold start's imports, a terminal,
    arguments that are not UTF-8, SIGKILL, huggingface_hub's settings read at its import,
    several processes at once) start real ones."""
    argv = [str(a) for a in args]
    stdout, stderr = _pipe(sys.__stdout__), _pipe(sys.__stderr__)
    saved_environment, saved_cwd = dict(os.environ), os.getcwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = cli_main(argv)
            except SystemExit as e:  # argparse's errors and --help
                code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
                if not isinstance(e.code, (int, type(None))):
                    print(e.code, file=sys.stderr)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environment)
    return subprocess.CompletedProcess(["python", "-m", "leaderboard", *argv], code,
                                       _as_subprocess_reads(stdout), _as_subprocess_reads(stderr))
