import sys

from leaderboard import blas

blas.one_thread()  # before the command's imports load numpy

from leaderboard.cli import main  # noqa: E402

sys.exit(main(own_process=True))
