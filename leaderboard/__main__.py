from leaderboard import blas

blas.one_thread()  # before the command's imports load numpy

from leaderboard.cli import run  # noqa: E402

run()
