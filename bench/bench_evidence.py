"""Cost of the evidence views on a store (issue 11): head-to-head of a pair that never
dueled (run on demand), rank intervals, the Benjamini-Hochberg setting, the duel map.

    python -m leaderboard demo --store DIR --models 100
    python bench/bench_evidence.py --store DIR [--repeats 7]

One process; the store is loaded once. "cold" head-to-head pairs are pairs whose models
were not compared before in this process (their per-model arrays are read from the local
cache on first use); "warm" repeats one pair. Prints one JSON summary of medians.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(function, *args, **kwargs) -> float:
    start = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - start


def never_met(board, count: int) -> list[tuple[str, str]]:
    """`count` pairs that never dueled, each of two models not used by another pair."""
    ids, used, pairs = list(board.ranked().index), set(), []
    for a in ids:
        for b in reversed(ids):
            if len(pairs) < count and a != b and not used & {a, b} and not board.tournament.has_dueled(a, b):
                pairs.append((a, b))
                used |= {a, b}
    return pairs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    from leaderboard.engine import ranking
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    from leaderboard.views import compare

    board = Leaderboard(LocalStore(args.store))
    ranked, n = board.ranked(), args.repeats
    pairs = never_met(board, n)
    cold = [timed(compare.head_to_head, board, a, b) for a, b in pairs]
    warm = [timed(compare.head_to_head, board, *pairs[0]) for _ in range(n)]
    engine = [timed(board.pair_duels, *pairs[0]) for _ in range(n)]
    stored = list(ranked.index[:2])
    from_store = [timed(compare.head_to_head, board, *stored) for _ in range(n)]
    # a copy of the table each time: certainty_table reuses the last table's
    certainty = [timed(ranking.certainty_of, ranked.copy(), board.benchmark, board.models, board.flags)
                 for _ in range(n)]
    adjusted = [timed(lambda: ranking.ranked(ranking.scores_table(board.tournament.bh_adjusted(board.benchmark.alpha), board.benchmark),
                                             board.submitted)) for _ in range(n)]
    board.ranked(adjusted=True)
    on_demand_adjusted = [timed(compare.head_to_head, board, *pairs[0], adjusted=True) for _ in range(n)]
    duel_map = {scope: statistics.median(timed(compare.duel_map, board, scope, top=compare.MAP_MODELS)
                                         for _ in range(n))
                for scope in ("Overall", board.benchmark.categories[0], board.benchmark.task_ids[0])}
    figure = compare.duel_map(board, top=compare.MAP_MODELS)
    draw = statistics.median(timed(compare.duel_map_figure, figure) for _ in range(n))
    print(json.dumps({
        "models": len(board.models), "stored_duel_rows": len(board.tournament), "repeats": n,
        "pairs_never_met": len(pairs),
        "head_to_head_on_demand_cold_median_s": statistics.median(cold), "cold_max_s": max(cold),
        "head_to_head_on_demand_warm_median_s": statistics.median(warm),
        "pair_duels_on_demand_median_s": statistics.median(engine),
        "head_to_head_stored_pair_median_s": statistics.median(from_store),
        "head_to_head_on_demand_bh_adjusted_median_s": statistics.median(on_demand_adjusted),
        "rank_intervals_certainty_table_median_s": statistics.median(certainty),
        "bh_adjusted_duels_and_ranking_median_s": statistics.median(adjusted),
        "duel_map_data_median_s": duel_map, "duel_map_figure_median_s": draw}, indent=1))


if __name__ == "__main__":
    main()
