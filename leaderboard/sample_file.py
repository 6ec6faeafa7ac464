"""Write a valid sample submission file for a store (`python -m leaderboard.sample_file --store DIR -o FILE`).

Built from the demo generator on the store's own references (sample counts, doc_ids, gold
labels), so a pre-submission of it is accepted by that store.
"""
from __future__ import annotations

import argparse

from leaderboard.board import Leaderboard
from leaderboard.demo import sample_document
from leaderboard.store import LocalStore, dump_json


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m leaderboard.sample_file", description=__doc__)
    parser.add_argument("--store", required=True, help="leaderboard store folder")
    parser.add_argument("-o", "--output", required=True, help="file to write")
    args = parser.parse_args(argv)
    board = Leaderboard(LocalStore(args.store))
    with open(args.output, "wb") as f:
        f.write(dump_json(sample_document(board.benchmark, board.references())))
    print(f"{args.output}: a sample file for {args.store} ({len(board.models)} models)")


if __name__ == "__main__":
    main()
