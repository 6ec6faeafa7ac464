"""Demo boards of the shipped benchmarks, scored and dueled by the engine, for the interval coverage checks."""
from __future__ import annotations

import numpy as np
from support.paths import ROOT


def demo_board(tasks_file: str, seed: int, n_models: int = 40) -> dict[str, list]:
    """One demo board of a shipped benchmark: `n_models` demo models
    (leaderboard.submission.demo) scored, paneled and dueled by the engine
    (`panel.settle`), intervals by `ranking.certainty_table`. Per model and scope:
    whether its displayed score lies in its own score interval ("score_inside") and its
    displayed rank in its own rank interval ("rank_inside"), and their widths; every
    scope's tie groups checked against disjoint rank intervals."""
    import pandas as pd
    from leaderboard.submission import demo
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import ranking
    from leaderboard.engine.panel import settle
    from leaderboard.engine.tournament import Tournament
    from leaderboard.submission.parsing import ParsedSubmission, summarize

    benchmark = load_benchmark(ROOT / "data" / tasks_file)
    designs = {t.id: demo.task_design(t, seed) for t in benchmark.tasks}
    ids = [f"m{i}" for i in range(n_models)]
    results = {}
    for i, sid in enumerate(ids):
        _, document, _, tasks = demo.demo_submission(benchmark, i, seed, designs)
        results[sid] = summarize(ParsedSubmission(tasks, document, "", ""), benchmark)
    tournament = Tournament(benchmark.task_ids, ids)
    ranked = ranking.ranked(settle(benchmark, tournament, results).scores(benchmark),
                            pd.Series(np.arange(n_models, dtype=float), index=ids))
    certainty = ranking.certainty_table(ranked, benchmark, results)
    out = {"score_inside": [], "rank_inside": [], "score_width": [], "rank_width": []}
    for scope in [ranking.OVERALL, *benchmark.categories]:
        c = certainty[scope]
        shown, rank = ranked[scope].to_numpy(), ranking.competition_rank(ranked[scope], ranked.attrs["family"])
        out["score_inside"] += ((c["score_low"] - 1e-9 <= shown) & (shown <= c["score_high"] + 1e-9)).tolist()
        out["rank_inside"] += ((c["rank_low"] <= rank) & (rank <= c["rank_high"])).tolist()
        out["score_width"] += (c["score_high"] - c["score_low"]).tolist()
        out["rank_width"] += (c["rank_high"] - c["rank_low"]).tolist()
        groups = c["group"].to_numpy()
        low, high = c["rank_low"].to_numpy(), c["rank_high"].to_numpy()
        assert not ((groups[:, None] == groups[None, :]) & ((high[:, None] < low[None, :])
                                                            | (high[None, :] < low[:, None]))).any(), scope
    return out
