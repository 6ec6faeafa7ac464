"""The ranking rule's audit figures (issue 33), for the code of a given checkout, so that
the rule before and after can be measured in one run on one machine:

    git worktree add /tmp/before 18ccca8          # main before the field rule
    python bench/bench_rule_audit.py demo /tmp/before; python bench/bench_rule_audit.py demo .
    python bench/bench_rule_audit.py attack /tmp/before; python bench/bench_rule_audit.py attack .

- demo: both shipped benchmarks' demo boards (40 demo models, seed 0) through `settle`, the
  ranked table and `certainty_table`: the share of displayed scores inside the 95% interval
  printed beside them, and of displayed ranks inside their rank interval (every scope).
- attack: boards of simulated models (tests/panel_simulation.py; 40 models, 12 accuracy
  tasks in 4 categories, 200 items, K = 20, seeds 0-2): 20 near-copies (2% of answers
  flipped per task) of the strongest, the median or the weakest model, and the largest
  move of any other model's overall rank and score; then each model ranked K-1..K+2 gets
  5 wrong answers turned right on each task in turn: how often its rank or score fell.
"""
from __future__ import annotations

import inspect
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd


def demo(root: Path) -> dict:
    from leaderboard.config.tasks import load_benchmark
    from leaderboard.engine import ranking
    from leaderboard.engine.panel import settle
    from leaderboard.engine.tournament import Tournament
    from leaderboard.submission import demo as demo_models
    from leaderboard.submission.parsing import ParsedSubmission, summarize
    out = {}
    for tasks_file in ("tasks_metadata.json", "czechsuite_tasks.json"):
        t0 = time.perf_counter()
        benchmark = load_benchmark(root / "data" / tasks_file)
        designs = {t.id: demo_models.task_design(t, 0) for t in benchmark.tasks}
        ids = [f"m{i}" for i in range(40)]
        results = {}
        for i, sid in enumerate(ids):
            _, document, _, tasks = demo_models.demo_submission(benchmark, i, 0, designs)
            results[sid] = summarize(ParsedSubmission(tasks, document, "", ""), benchmark)
        tournament = Tournament(benchmark.task_ids, ids)
        panel = settle(benchmark, tournament, results)
        ranked = ranking.ranked(panel.scores(benchmark), pd.Series(np.arange(40, dtype=float), index=ids))
        if "panel" in inspect.signature(ranking.certainty_table).parameters:  # the old code's
            certainty = ranking.certainty_table(ranked, benchmark, results, list(panel.members))
        else:
            certainty = ranking.certainty_table(ranked, benchmark, results)
        score_in, rank_in = [], []
        for scope in [ranking.OVERALL, *benchmark.categories]:
            c = certainty[scope]
            shown = ranked[scope].to_numpy()
            family = ranked.attrs.get("family")  # the old rule has no families
            rank = ranking.competition_rank(ranked[scope], *([] if family is None else [family]))
            score_in += ((c["score_low"] - 1e-9 <= shown) & (shown <= c["score_high"] + 1e-9)).tolist()
            rank_in += ((c["rank_low"] <= rank) & (rank <= c["rank_high"])).tolist()
        o = ranking.OVERALL
        c, shown = certainty[o], ranked[o].to_numpy()
        overall_in = (c["score_low"] - 1e-9 <= shown) & (shown <= c["score_high"] + 1e-9)
        out[tasks_file] = {"scores inside (all scopes)": f"{np.mean(score_in):.1%}",
                           "ranks inside (all scopes)": f"{np.mean(rank_in):.1%}",
                           "overall scores inside": f"{np.mean(overall_in):.1%}",
                           "values": len(score_in), "seconds": round(time.perf_counter() - t0, 1)}
        print(tasks_file, out[tasks_file], flush=True)
    return out


def attack(root: Path) -> dict:
    from panel_simulation import accuracy_benchmark, simulated_answers

    from leaderboard.engine import ranking
    from leaderboard.engine.panel import settle
    from leaderboard.engine.tournament import ModelResults, Tournament

    def board(benchmark, answers):
        ids = [f"m{i:03d}" for i in range(len(answers))]
        results = {sid: ModelResults({t.id: float(answers[i, k].mean()) for k, t in enumerate(benchmark.tasks)},
                                     {t.id: answers[i, k] for k, t in enumerate(benchmark.tasks)}) for i, sid in enumerate(ids)}
        table = settle(benchmark, Tournament(benchmark.task_ids, ids), results).scores(benchmark)
        ranked = ranking.ranked(table, pd.Series(0.0, index=ids))
        return ranked["rank"].reindex(ids).to_numpy(), ranked["overall"].reindex(ids).to_numpy()

    benchmark = accuracy_benchmark(12, 4, 20)
    out = {"attack": {}, "improve": {"trials": 0, "rank lowered": 0, "score lowered": 0}}
    for seed in range(3):
        answers = simulated_answers(benchmark, 40, seed)
        rank0, score0 = board(benchmark, answers)
        order = np.argsort(rank0, kind="stable")
        for name, m in (("strong", order[0]), ("median", order[20]), ("weak", order[-1])):
            rng = np.random.default_rng(seed)
            copies = np.repeat(answers[m][None], 20, axis=0)
            for c in copies:
                for t in range(c.shape[0]):
                    at = rng.choice(c.shape[1], 4, replace=False)
                    c[t, at] = 1 - c[t, at]
            rank1, score1 = board(benchmark, np.concatenate([answers, copies]))
            others = np.setdiff1d(np.arange(40), [m])
            moved = (int(np.abs(rank1[others] - rank0[others]).max()), round(100 * float(np.abs(score1[others] - score0[others]).max()), 1))
            out["attack"].setdefault(name, []).append(moved)
        rng = np.random.default_rng(100 + seed)
        for m in order[[18, 19, 20, 21]]:
            for t in range(12):
                better = answers.copy()
                wrong = np.flatnonzero(better[m, t] == 0)
                better[m, t, rng.choice(wrong, min(5, len(wrong)), replace=False)] = 1
                rank1, score1 = board(benchmark, better)
                out["improve"]["trials"] += 1
                out["improve"]["rank lowered"] += int(rank1[m] > rank0[m])
                out["improve"]["score lowered"] += int(score1[m] < score0[m] - 1e-12)
        print(seed, json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    what, root = sys.argv[1], Path(sys.argv[2]).resolve()
    sys.path[:0] = [str(root), str(root / "tests")]  # the checkout's code, not this one's
    print(json.dumps({"demo": demo, "attack": attack}[what](root)))
