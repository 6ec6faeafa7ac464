"""The board's scores and reference panel (leaderboard/engine/panel.py): field scores and
the panel of the best models, checked against hand-worked boards, slow loops over pairs
and simulated models whose abilities are known."""
from __future__ import annotations

from support.stores import SMALL_TASKS, publish_all

from support.cli import cli as run_cli

import dataclasses
import itertools
import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.config.tasks import load_benchmark
from leaderboard.engine import panel as panel_module, ranking
from leaderboard.engine.panel import settle
from leaderboard.engine.tournament import DuelRows, ModelResults, Tournament
from leaderboard.submission.demo import demo_model, task_design
from leaderboard.storage.local import LocalStore
from leaderboard.strict_json import dump_json
from leaderboard.views.markdown import escape_markdown
from leaderboard.views.submission import preview_summary
from panel_simulation import (accuracy_benchmark, accuracy_tasks_file, publish_top_of_its_day, publish_under_panel,
                              ranks, share_within, simulated_results, simulated_submissions, two_orders)


def slow_win_scores(tournament: Tournament, members) -> np.ndarray:
    """Per model and task, wins over the members it dueled there / members dueled, pair by pair."""
    out = np.full((len(tournament.model_ids), len(tournament.task_ids)), np.nan)
    for i, model in enumerate(tournament.model_ids):
        won, fought = np.zeros(len(tournament.task_ids)), np.zeros(len(tournament.task_ids))
        for member in members:
            row = tournament.pair(model, member) if member != model else None
            if row is not None:
                won += row.significant[0] & row.fought[0]
                fought += row.fought[0]
        with np.errstate(invalid="ignore"):
            out[i] = np.where(fought > 0, won / np.where(fought > 0, fought, 1), np.nan)
    return out


def answers(accuracy: float, seed_text: str, items: int = 40) -> np.ndarray:
    """Right (1) and wrong (0) answers with this accuracy, in an order of their own per model."""
    right = np.arange(items) < round(accuracy * items)
    return np.random.default_rng(sum(map(ord, seed_text))).permutation(right).astype(float)


def slow_field_scores(benchmark, results: dict, ids: list[str], flagged=()) -> pd.Series:
    """Overall field scores pair by pair (no near-copies): per task the share of the other
    models not flagged whose score is lower, an equal one half; category means, then their mean."""
    per_task = {}
    for t in benchmark.tasks:
        value = {m: t.metric.sign * results[m].aggregates[t.id] for m in ids}
        per_task[t.id] = {m: np.mean([(value[o] < value[m]) + 0.5 * (value[o] == value[m])
                                      for o in ids if o != m and o not in flagged]) for m in ids}
    return pd.Series({m: np.mean([np.mean([per_task[t.id][m] for t in benchmark.tasks_in(c)])
                                  for c in benchmark.categories]) for m in ids})


def hand_board(ids: list[str], wins: set[tuple[str, str]], aggregates: dict[str, float], top: int):
    """One accuracy task; every ordered pair dueled; a beats b exactly when (a, b) is in `wins`."""
    benchmark = accuracy_benchmark(1, 1, top)
    pairs = [(a, b) for a, b in itertools.permutations(ids, 2)]
    index = {m: i for i, m in enumerate(ids)}
    rows = DuelRows([index[a] for a, _ in pairs], [index[b] for _, b in pairs], np.ones((len(pairs), 1)),
                    [[(a, b) in wins] for a, b in pairs], [[0.01 if (a, b) in wins else 0.5] for a, b in pairs],
                    np.zeros((len(pairs), 1)), ["hand"] * len(pairs))
    results = {m: ModelResults({benchmark.task_ids[0]: aggregates[m]}, {benchmark.task_ids[0]: answers(aggregates[m], m)})
               for m in ids}
    return benchmark, Tournament(benchmark.task_ids, ids, rows), results


def test_win_scores_against_a_panel_equal_a_loop_over_pairs():
    """Random sparse duels (some pairs one way only, some tasks unfought), in two parts,
    against the panel of 8 that simulated results seat."""
    rng = np.random.default_rng(5)
    n, t = 30, 4
    benchmark = accuracy_benchmark(t, 2, 8)
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b and rng.random() < 0.5]
    fought = rng.random((len(pairs), t)) < 0.9
    rows = DuelRows([a for a, _ in pairs], [b for _, b in pairs], fought, rng.random((len(pairs), t)) < 0.4,
                    np.full((len(pairs), t), 0.5), np.zeros((len(pairs), t)), ["x"] * len(pairs))
    results = simulated_results(benchmark, n, seed=5)
    tournament = Tournament(benchmark.task_ids, list(results), rows.take(slice(0, 200)))
    tournament.add_rows(rows.take(slice(200, None)))
    panel = settle(benchmark, tournament, results, backfill=False)
    assert len(panel.members) == 8
    measured = panel.win_scores
    slow = slow_win_scores(tournament, panel.members)
    np.testing.assert_array_equal(np.isnan(measured), np.isnan(slow))
    np.testing.assert_allclose(measured, slow)


def test_publication_order_moves_no_model_under_the_panel_unlike_the_original_rule():
    """A smaller design than issue 20's (30 models, 8 tasks, 10 opponents; the 45-model one
    runs through the board below, the 80-model one in bench/bench_panel.py), published in
    two random orders: under the panel every rank is the same; under the original rule
    (each model duels the top models of its day) fewer than 95% end within 2 places, so
    the design can tell the two apart."""
    benchmark = accuracy_benchmark(8, 4, 10)
    results = simulated_results(benchmark, 30, seed=4)
    orders = two_orders(list(results), seed=5)
    submitted = pd.Series(0.0, index=list(results))
    boards = [publish_under_panel(benchmark, results, order) for order in orders]
    first, second = (ranks(panel.scores(benchmark), submitted) for _, panel in boards)
    assert (first == second.reindex(first.index)).all()
    assert boards[0][1].members == boards[1][1].members
    first, second = (ranks(ranking.scores_table(publish_top_of_its_day(benchmark, results, order), benchmark),
                           submitted) for order in orders)
    assert share_within(first, second, places=2) < 0.95


def near_copy_submissions(form: dict, document: dict, count: int, seed: int) -> list[tuple[dict, dict]]:
    """`count` near-copies of a simulated submission: 2% of its answers on each task
    flipped (at least one), a model name of their own."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        copy = json.loads(json.dumps(document))
        for task, samples in copy["predictions"].items():
            for j in rng.choice(len(samples), max(1, len(samples) // 50), replace=False):
                samples[j]["acc"] = 1.0 - samples[j]["acc"]
            copy["results"][task]["acc"] = float(np.mean([x["acc"] for x in samples]))
        out.append(({**form, "model_name": f"{form['model_name']}-copy{k}"}, copy))
    return out


@pytest.mark.integration  # a whole-board scenario: 96 publications into two stores
def test_publication_order_moves_no_model_through_the_board(tmp_path):
    """Issue 20's design (45 models, 12 tasks, 20 opponents) and three near-copies of its
    first model through the real publication path: pre-submission and publication into
    local stores in two random orders, each store then read by a new board. Not one rank,
    score, duel win or family differs between the orders, in the raw view and in the BH
    view (the original rule moved 38% of the models more than 2 places on this design,
    bench/RESULTS.md)."""
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(accuracy_tasks_file(12, 4, 20)))
    benchmark = load_benchmark(path)
    submissions = simulated_submissions(benchmark, 45, seed=0, items=100)
    submissions += near_copy_submissions(*submissions[0], count=3, seed=2)
    boards = []
    for k, order in enumerate(two_orders(list(range(len(submissions))), seed=1)):
        publish_all(Leaderboard(LocalStore(tmp_path / str(k)), benchmark),
                    [(*submissions[i], 1_700_000_000 + 86_400 * day) for day, i in enumerate(order)])
        boards.append(Leaderboard(LocalStore(tmp_path / str(k)), benchmark))
    for adjusted in (False, True):
        first, second = (board.ranked(adjusted=adjusted) for board in boards)  # ids from the files: the same
        second = second.reindex(first.index)
        pd.testing.assert_series_equal(first["rank"], second["rank"])
        pd.testing.assert_frame_equal(first.drop(columns="rank"), second.drop(columns="rank"))
        pd.testing.assert_frame_equal(first.attrs["duel_wins"].reindex(first.index),
                                      second.attrs["duel_wins"].reindex(first.index))
        family = first.attrs["family"]
        assert family.value_counts().max() == 4  # the copies and their model: one family
        assert (np.equal.outer(family.values, family.values)
                == np.equal.outer(*[second.attrs["family"].reindex(family.index).values] * 2)).all()
    assert all(Administration(board).check() == [] for board in boards)


def test_the_panel_is_the_top_k_by_field_score_and_everyone_dueled_it():
    """On a simulated board: field scores recomputed pair by pair; the k best by them
    (ties to the smaller id) are the panel; duel wins equal the wins over the members
    counted pair by pair; every model has dueled every member both ways."""
    benchmark = accuracy_benchmark(6, 3, 8)
    results = simulated_results(benchmark, 20, seed=11, task_spread=0.1)
    tournament, panel = publish_under_panel(benchmark, results, list(results))
    overall = slow_field_scores(benchmark, results, tournament.model_ids)
    np.testing.assert_allclose(panel.scores(benchmark)["overall"], overall[tournament.model_ids])
    assert list(panel.members) == sorted(overall.index, key=lambda m: (-round(overall[m], 9), m))[:8]
    np.testing.assert_allclose(panel.win_scores, slow_win_scores(tournament, panel.members))
    assert all(tournament.has_dueled(m, p) and tournament.has_dueled(p, m)
               for m in tournament.model_ids for p in panel.members if m != p)


def test_duels_decide_no_score_and_no_seat():
    """Rock-paper-scissors among A, B, C (and all three beat D), k = 2: the panel and the
    scores come from the task scores alone (D, then A), whatever the duels say, in every
    order the models are known in; the duel wins are counted against that panel."""
    wins = {("A", "B"), ("B", "C"), ("C", "A"), ("A", "D"), ("B", "D"), ("C", "D")}
    for ids in itertools.permutations(["A", "B", "C", "D"]):
        benchmark, tournament, results = hand_board(list(ids), wins, {"A": 0.9, "B": 0.8, "C": 0.7, "D": 0.95}, top=2)
        panel = settle(benchmark, tournament, results, backfill=False)
        assert panel.members == ("D", "A")
        assert dict(zip(tournament.model_ids, panel.scores(benchmark)["overall"])) == {
            "D": 1.0, "A": 2 / 3, "B": 1 / 3, "C": 0.0}
        assert dict(zip(tournament.model_ids, panel.win_scores[:, 0])) == {"A": 1.0, "B": 0.5, "C": 1.0, "D": 0.0}


def test_ties_go_to_the_smaller_id():
    """k = 2; p, r and s have equal task scores below q's: the panel is q and p, whatever
    the order the models are known in."""
    aggregates = {"s": 0.5, "r": 0.5, "q": 0.6, "p": 0.5, "z": 0.1}
    for ids in (["s", "r", "q", "p", "z"], ["z", "p", "q", "r", "s"], ["r", "z", "s", "p", "q"]):
        benchmark, tournament, results = hand_board(ids, {(m, "z") for m in "pqrs"}, aggregates, top=2)
        assert settle(benchmark, tournament, results, backfill=False).members == ("q", "p")


def test_one_seat_per_family_of_near_copies():
    """k = 3. "a2" answers as "a" does but for one item (a near-copy): it is the second
    best yet takes no seat. The copy weighs nothing as an opponent (its family counts as
    "a"), so the others' scores are those of a board without it."""
    ids = ["a", "a2", "b", "b2", "c", "d"]
    aggregates = dict(zip(ids, [0.9, 0.875, 0.8, 0.75, 0.7, 0.6]))
    benchmark, tournament, results = hand_board(ids, set(), aggregates, top=3)
    task = benchmark.task_ids[0]
    copied = results["a"].summaries[task].copy()
    copied[np.flatnonzero(copied)[0]] = 0.0
    results["a2"] = ModelResults({task: copied.mean()}, {task: copied})
    panel = settle(benchmark, tournament, results, backfill=False)
    assert panel.members == ("a", "b", "b2")
    family = dict(zip(panel.model_ids, panel.family))
    assert [m for m in panel.model_ids if family[m] == family["a"]] == ["a", "a2"]
    without = slow_field_scores(benchmark, results, ["a", "b", "b2", "c", "d"])
    scores = panel.scores(benchmark)["overall"]
    for m in ["b", "b2", "c", "d"]:
        assert scores[m] == pytest.approx(without[m])


def test_a_flagged_model_is_never_in_the_panel_and_weighs_nothing_but_is_scored():
    """The best model flagged: not in the panel, its own score 1; the others' scores are
    those of a board without it."""
    ids = ["best", "a", "b", "c", "d"]
    benchmark, tournament, results = hand_board(ids, set(), dict(zip(ids, [0.9, 0.8, 0.7, 0.6, 0.5])), top=2)
    assert settle(benchmark, tournament, results, backfill=False).members[0] == "best"
    panel = settle(benchmark, tournament, results, flagged={"best"}, backfill=False)
    assert panel.members == ("a", "b")
    scores = panel.scores(benchmark)["overall"]
    assert scores["best"] == 1.0 and scores["a"] == 1.0 and scores["d"] == 0.0


def test_backfill_duels_new_members_and_duels_with_former_members_stop_counting():
    """Models published one by one: after each publication every model has dueled every
    member, and the scores equal the wins over the current members only, although the
    duels with models that left the panel stay stored."""
    benchmark = accuracy_benchmark(4, 2, 5)
    results = simulated_results(benchmark, 14, seed=2, spread=0.3)
    tournament, members_ever = Tournament(benchmark.task_ids), set()
    for sid in results:
        tournament.add_models([sid])
        stored = len(tournament)
        panel = settle(benchmark, tournament, results)
        assert len(tournament) >= stored  # nothing dropped
        assert all(tournament.has_dueled(m, p) for m in tournament.model_ids for p in panel.members if m != p)
        np.testing.assert_allclose(panel.win_scores, slow_win_scores(tournament, panel.members))
        members_ever |= set(panel.members)
    assert members_ever - set(panel.members), "no member ever left the panel: this board tests nothing"
    former = members_ever - set(panel.members)
    assert all(sum(tournament.has_dueled(m, f) for m in tournament.model_ids) >= benchmark.top_opponents
               for f in former)  # their duels stay stored ...
    counted_too = slow_win_scores(tournament, sorted(members_ever))
    assert not np.allclose(counted_too, panel.win_scores, equal_nan=True)  # ... and would change scores if counted


# --- the board under the panel: publication, flags, removal, check, rebuild -----------------

@pytest.fixture(scope="module")
def two_member_tasks(tmp_path_factory) -> dict[str, Path]:
    """The small benchmark with a panel of 2, under each rule."""
    folder = tmp_path_factory.mktemp("two")
    paths = {}
    for rule in ("panel", "top-of-its-day"):
        paths[rule] = folder / f"{rule}.json"
        paths[rule].write_text(json.dumps({**SMALL_TASKS, "top_opponents": 2, "opponents": rule}))
    return paths


@pytest.fixture(scope="module")
def eight_documents(two_member_tasks):
    benchmark = load_benchmark(two_member_tasks["panel"])
    designs = {t.id: task_design(t, 0) for t in benchmark.tasks}
    return [demo_model(benchmark, i, 0, designs) for i in range(8)]


def stored_pairs(board) -> set[tuple[str, str]]:
    rows = board.tournament.rows()
    return {(board.tournament.model_ids[a], board.tournament.model_ids[b]) for a, b in zip(rows.first, rows.second)}


def duel_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (root / "duels").glob("*.parquet")}


def everyone_dueled_the_panel(board) -> bool:
    return all(board.tournament.has_dueled(m, p) and board.tournament.has_dueled(p, m)
               for m in board.models for p in board.panel() if m != p)


@pytest.mark.integration  # a whole-board scenario: 14 publications, the store read afresh after each
def test_a_preview_shows_the_board_after_publication_and_the_publication_writes_all_its_duels(tmp_path):
    """14 simulated models published one by one with a panel of 3 (members leave it and two
    come back, so models published while they were out duel them then): each preview's ranks
    and scores are the board's after publishing it; a preview runs only the new model's
    duels with the panel and says how many the publication adds; the duels the panel's changes bring
    are stored (a board read afresh holds the same duels and `check` is clean), including
    rows in earlier models' files; every model has dueled every member."""
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(accuracy_tasks_file(6, 3, 3)))
    benchmark = load_benchmark(path)
    board = Leaderboard(LocalStore(tmp_path / "store"), benchmark)
    earlier_files_changed = panel_changes = entered = 0
    for day, (form, document) in enumerate(simulated_submissions(benchmark, 30, seed=12, items=60)[:14]):
        before, panel_before = duel_files(board.store.root), board.panel()
        preview = Publishing(board).presubmit(dump_json(document), form)
        said = preview_summary(board, preview)
        sid = Publishing(board).publish(preview, submitted_at=1_700_000_000 + 86_400 * day)
        after = duel_files(board.store.root)
        earlier_files_changed += sum(after[name] != data for name, data in before.items())
        read = Leaderboard(LocalStore(board.store.root), benchmark)
        pd.testing.assert_frame_equal(read.ranked().drop(columns="rank"),
                                      preview.table.drop(columns=["rank", "previous_rank", "rank_change"]),
                                      check_like=True)
        assert read.ranked()["rank"].to_dict() == preview.table["rank"].to_dict()
        assert stored_pairs(read) == stored_pairs(board) and Administration(read).check() == []
        assert everyone_dueled_the_panel(read) and sid in read.models
        assert read.ranked().attrs["panel"] == read.panel()  # what the intervals are computed against
        joining, leaving = preview.panel_change  # the preview says how the panel changes
        rows = preview.tournament.rows_involving(sid)
        partners = {preview.tournament.model_ids[i] for i in np.r_[rows.first, rows.second]} - {sid}
        if sid in joining and len(read.models) > len(read.panel()):  # the preview ran its duels with the panel only
            entered += 1
            off_panel = len(read.models) - len(read.panel())
            assert partners <= set(preview.panel) and preview.duels_at_publication == off_panel
            models = "model off the panel duels" if off_panel == 1 else "models off the panel duel"
            assert f"the {off_panel:,} {models} your model at publication" in said
        else:
            assert preview.duels_at_publication == 0 and "at publication" not in said
        assert (set(joining), set(leaving)) == (set(read.panel()) - set(panel_before),
                                                set(panel_before) - set(read.panel()))
        if day == 0:  # the board's first model: said so instead of a panel that it alone joins (issue 32)
            assert "the board's first model" in said and "The reference panel would change" not in said
        else:
            assert ("The reference panel would change" in said) == bool(joining or leaving)
        panel_changes += bool(leaving)
    assert panel_changes, "no publication took a model off the panel: this board tests nothing"
    assert entered, "no model entered a panel with models off it: this board tests nothing"
    assert earlier_files_changed, "no publication changed the panel for earlier models: this board tests nothing"


@pytest.fixture(scope="module")
def panel_store_template(tmp_path_factory, two_member_tasks, eight_documents) -> Path:
    """A store of 8 demo models published under a panel of 2 (copy it before use)."""
    root = tmp_path_factory.mktemp("panel") / "store"
    publish_all(Leaderboard(LocalStore(root), load_benchmark(two_member_tasks["panel"])), eight_documents)
    return root


@pytest.fixture
def panel_board(tmp_path, two_member_tasks, panel_store_template):
    """The board of a copy of the 8-model store."""
    shutil.copytree(panel_store_template, tmp_path / "store")
    return Leaderboard(LocalStore(tmp_path / "store"), load_benchmark(two_member_tasks["panel"]))


def read_after(board, change) -> Leaderboard:
    """`change(board)` done; the store read afresh, checked: the new panel's newcomers
    lacked duels before (so the change had some to run), now everyone has dueled every
    member, `check` is clean, and the fresh read holds the duels the board holds."""
    panel, before = board.panel(), board.tournament
    change(board)
    read = Leaderboard(LocalStore(board.store.root), board.benchmark)
    newcomers = set(read.panel()) - set(panel)
    assert newcomers and not all(before.has_dueled(m, n) for m in read.models for n in newcomers if m != n)
    assert everyone_dueled_the_panel(read) and Administration(read).check() == []
    assert stored_pairs(read) == stored_pairs(board)
    return read


def test_flagging_a_member_brings_in_the_next_with_its_duels_in_the_same_write(panel_board):
    leader = panel_board.panel()[0]
    read = read_after(panel_board, lambda board: Administration(board).flag(leader, "leaked answers"))
    assert leader not in read.panel() and len(read.panel()) == 2
    # the flagged model is still scored, and its duel wins are counted against the panel without it
    won = [read.tournament.pair(leader, m).significant[0, read.benchmark.task_ids.index("t_acc")]
           for m in read.panel()]
    assert read.ranked().attrs["duel_wins"].loc[leader, "t_acc"] == pytest.approx(np.mean(won))
    assert read.ranked().loc[leader, "t_acc"] == panel_board.ranked().loc[leader, "t_acc"]  # its own score: unchanged
    Administration(panel_board).unflag(leader)
    assert leader in Leaderboard(LocalStore(panel_board.store.root), panel_board.benchmark).panel()


def test_removing_a_member_brings_in_the_next_with_its_duels_in_the_same_write(panel_board):
    gone = panel_board.panel()[0]
    read = read_after(panel_board, lambda board: Administration(board).remove(gone, "withdrawn"))
    assert gone not in read.models and gone not in read.panel()


def test_rebuild_recompute_moves_a_store_from_the_original_rule_to_the_panel(tmp_path, two_member_tasks,
                                                                             eight_documents):
    """A store published under top-of-its-day, opened under the panel: `check` names the
    missing panel duels; `rebuild --recompute` runs them, reports the ranks that moved from
    the original ranking, and gives the ranking of a store published under the panel."""
    original = Leaderboard(LocalStore(tmp_path / "store"), load_benchmark(two_member_tasks["top-of-its-day"]))
    publish_all(original, eight_documents)
    old_ranks = original.ranked()["rank"]
    moved_board = Leaderboard(LocalStore(tmp_path / "store"), load_benchmark(two_member_tasks["panel"]))
    assert any("missing duels" in problem for problem in Administration(moved_board).check())
    report = Administration(moved_board).rebuild(recompute=True)
    assert Administration(moved_board).check() == [] and report.dueled > 0
    direct = Leaderboard(LocalStore(tmp_path / "direct"), load_benchmark(two_member_tasks["panel"]))
    publish_all(direct, eight_documents)
    new_ranks = direct.ranked()["rank"]
    assert moved_board.ranked()["rank"].to_dict() == new_ranks.to_dict()
    expected = sorted((sid, int(old_ranks[sid]), int(new_ranks[sid])) for sid in new_ranks.index
                      if old_ranks[sid] != new_ranks[sid])
    assert expected and sorted(report.moved) == expected


# --- the original rule reproduces a reference-layout store's old ranking ---------------------

def cli(tasks: Path, *args):
    """The command on the benchmark of `tasks` (`support.cli.cli`)."""
    return run_cli("--tasks", tasks, *args)


def reference_ranks(root: Path, tasks_file: dict) -> dict[str, int]:
    """The original leaderboard's ranking of a reference-layout store, computed here from
    its files as the original does (BEHAVIOUR.md section 4), not by the code under test:
    WS(m, task) = share of m's duels in tournament.json won (significant) on that task; a
    category's score the mean of its tasks' WS, the overall the mean of the categories';
    competition ranks (ties share the best rank)."""
    tournament = json.loads((root / "tournament.json").read_text())
    ids = [json.loads(p.read_text())["submission_metadata"]["submission_id"] for p in (root / "data").glob("*.json")]
    categories = {}
    for task in tasks_file["tasks"]:
        categories.setdefault(task["category"], []).append(task["id"])
    overall = {}
    for model in ids:
        category_scores = []
        for tasks in categories.values():
            task_scores = []
            for task in tasks:
                duels = [entry[task] for entry in tournament.get(model, {}).values() if task in entry]
                won = [d["significant"] if isinstance(d, dict) else d for d in duels]
                task_scores.append(sum(won) / len(won))
            category_scores.append(sum(task_scores) / len(task_scores))
        overall[model] = round(sum(category_scores) / len(category_scores), 9)
    return {m: 1 + sum(other > score for other in overall.values()) for m, score in overall.items()}


def cli_ranks(tasks: Path, store: Path) -> dict[str, int]:
    """Submission id -> rank, as `table --format json` shows it (by title; the stored titles map them)."""
    shown = cli(tasks, "table", "--store", store, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    by_title = {title: sid for sid, title in LocalStore(store).read_titles().items()}
    return {by_title[row["Model"]]: row["Rank"] for row in json.loads(shown.stdout)}


@pytest.mark.integration  # command-line scenarios
def test_the_original_rule_reproduces_a_reference_stores_old_ranking_and_rebuild_moves_it_to_the_panel(tmp_path):
    """12 simulated models published under "top-of-its-day" (3 opponents each), exported in
    the reference layout (tournament.json, data/): opened under that rule, before and after
    `migrate`, the CLI's ranking is the one computed from tournament.json as the original
    computes it; under the panel it differs; `rebuild --recompute` runs the panel's duels
    and prints every model whose rank moved, with its old and new rank."""
    files = {rule: tmp_path / f"{rule}.json" for rule in ("top-of-its-day", "panel")}
    for rule, path in files.items():
        path.write_text(json.dumps(accuracy_tasks_file(6, 3, 3, opponents=rule)))
    original = load_benchmark(files["top-of-its-day"])
    board = Leaderboard(LocalStore(tmp_path / "store"), original)
    publish_all(board, [(form, document, 1_700_000_000 + 86_400 * day) for day, (form, document)
                        in enumerate(simulated_submissions(original, 12, seed=3, items=60))])
    exported = cli(files["top-of-its-day"], "export", "--store", tmp_path / "store", "--reference-layout",
                   "-o", tmp_path / "ref")
    assert exported.returncode == 0, exported.stderr
    ref = tmp_path / "ref"
    old = reference_ranks(ref, json.loads(files["top-of-its-day"].read_text()))
    assert cli_ranks(files["top-of-its-day"], ref) == old
    migrated = cli(files["top-of-its-day"], "migrate", "--store", ref)
    assert migrated.returncode == 0 and not (ref / "tournament.json").exists(), migrated.stderr
    assert cli_ranks(files["top-of-its-day"], ref) == old
    assert cli(files["panel"], "check", "--store", ref).returncode == 2  # the panel's duels are missing
    rebuilt = cli(files["panel"], "rebuild", "--recompute", "--store", ref)
    assert rebuilt.returncode == 0, rebuilt.stderr
    new = cli_ranks(files["panel"], ref)
    moved = {m for m in old if old[m] != new[m]}
    assert moved, "the two rules rank these models alike: this board tests nothing"
    assert f"{len(moved)} models changed rank" in rebuilt.stdout
    said = rebuilt.stdout + rebuilt.stderr
    for model in moved:
        assert f"({model}): rank {old[model]} -> {new[model]}" in said
    assert cli(files["panel"], "check", "--store", ref).returncode == 0


def test_a_near_copy_is_named_at_pre_submission_and_its_link_is_kept_with_its_publication(
        tmp_path, small_benchmark, small_documents):
    """A copy of a published demo model with one answer changed: the preview names the
    model it copies; the publication keeps the link (and its standard errors) in the
    stored metadata, so a board loaded afresh has the family without reading any arrays;
    the independent demo models are linked to nobody."""
    root = tmp_path / "store"
    board = Leaderboard(LocalStore(root), small_benchmark)
    publish_all(board, small_documents[:4])
    form, document, _ = small_documents[1]
    original = next(sid for sid, m in board.models.items() if m.metadata["model_name"] == form["model_name"])
    copy = json.loads(dump_json(document))
    sample = copy["predictions"]["t_acc"][0]
    sample["acc"] = 1 - sample["acc"]
    copy["results"].pop("t_acc")  # its score is computed from the samples
    preview = Publishing(board).presubmit(dump_json(copy), {**form, "model_name": "Copied-9B"})
    assert list(preview.model.metadata["near_copies"]) == [original]
    summary = preview_summary(board, preview)
    assert "A near-copy" in summary and escape_markdown(board.models[original].title) in summary
    sid = Publishing(board).publish(preview)
    stored = json.loads((root / "data" / f"{sid}.json").read_text())["submission_metadata"]
    assert list(stored["near_copies"]) == [original] and 0 <= stored["near_copies"][original] <= 0.2
    assert set(stored["task_noise"]) == set(small_benchmark.task_ids)
    copy["predictions"]["t_acc"][1]["acc"] = 1 - copy["predictions"]["t_acc"][1]["acc"]  # a copy of both
    again = Publishing(board).presubmit(dump_json(copy), {**form, "model_name": "Copied-10B"})
    assert set(again.model.metadata["near_copies"]) == {original, sid}  # the board's candidates after the publication
    shutil.rmtree(root / ".cache")  # no per-model arrays to read
    family = Leaderboard(LocalStore(root), small_benchmark).ranked().attrs["family"]
    assert family[sid] == family[original]
    assert family.drop([sid, original]).is_unique and family[original] not in family.drop([sid, original]).values


def test_the_duels_a_preview_leaves_to_its_publication_run_ahead_and_are_stored_the_same(tmp_path, monkeypatch):
    """A model entering a panel with models off it: its preview runs its duels with the
    members only, `duel_ahead` runs the rest in a pool while the preview is read, and its
    publication then runs no duel (it takes the pool's) and stores the same duels, p-values
    included, as the publication of a preview that ran none ahead, on a copy of the store.
    Duels ahead still queued at publication are cancelled and run by the publication; the
    board's sample file, never published, runs none ahead."""
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(accuracy_tasks_file(6, 3, 3)))
    benchmark = load_benchmark(path)
    submissions = simulated_submissions(benchmark, 30, seed=12, items=60)
    board = Leaderboard(LocalStore(tmp_path / "ahead"), benchmark)
    for day, (form, document) in enumerate(submissions[:8]):
        Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form),
                                  submitted_at=1_700_000_000 + 86_400 * day)
    shutil.copytree(tmp_path / "ahead", tmp_path / "plain")
    shutil.copytree(tmp_path / "ahead", tmp_path / "queued")
    previews = ((form, document) for form, document in submissions[8:])
    form, document = next((f, d) for f, d in previews
                          if Publishing(board).presubmit(dump_json(d), f).duels_at_publication)
    duels_run = []
    real_duel_rows = panel_module.duel_rows
    monkeypatch.setattr(panel_module, "duel_rows", lambda *a, **k: duels_run.append(a[2]) or real_duel_rows(*a, **k))

    def published(name: str, pool: ThreadPoolExecutor | None) -> tuple[Leaderboard, list[str]]:
        store = Leaderboard(LocalStore(tmp_path / name), benchmark)
        preview = Publishing(store).presubmit(dump_json(document), form)
        if pool is not None:
            Publishing(store).duel_ahead(preview, pool)
        duels_run.clear()
        Publishing(store).publish(preview, submitted_at=1_700_000_000 + 86_400 * 9)
        return Leaderboard(LocalStore(tmp_path / name), benchmark), list(duels_run)

    with ThreadPoolExecutor(1) as pool:
        sample = dataclasses.replace(Publishing(board).presubmit(dump_json(document), form), is_sample=True)
        Publishing(board).duel_ahead(sample, pool)  # the board's sample file is never published: nothing to run
        assert sample.duels_at_publication and sample.duels_ahead is None
        ahead, run_ahead = published("ahead", pool)
    plain, run_plain = published("plain", None)
    with ThreadPoolExecutor(1) as pool:
        busy = threading.Event()
        pool.submit(busy.wait, 30)  # the pool's one worker is taken: the duels ahead stay queued
        queued, run_queued = published("queued", pool)
        busy.set()
    assert run_ahead == [] and run_plain and run_queued == run_plain
    assert everyone_dueled_the_panel(ahead) and Administration(ahead).check() == []
    for other in (plain, queued):
        assert stored_pairs(ahead) == stored_pairs(other)
        assert duel_files(tmp_path / "ahead") == duel_files(tmp_path / other.store.root.name)


NEWCOMER = "m004-new"


def _random_board(seed: int):
    """A simulated board of 9-14 models with a few kept near-copy links and flags, and a
    newcomer (NEWCOMER, whose id sorts among theirs); returns what `settle` takes."""
    rng = np.random.default_rng(seed)
    benchmark = accuracy_benchmark(6, 3, int(rng.integers(2, 5)))
    n = int(rng.integers(9, 15))
    results = simulated_results(benchmark, n + 1, seed, items=30)  # few items: equal task scores are common
    results[NEWCOMER] = results.pop(f"m{n:03d}")
    ids = [f"m{i:03d}" for i in range(n)]
    links: dict[str, dict[str, float]] = {m: {} for m in ids}
    for _ in range(int(rng.integers(0, 4))):
        i, j = sorted(rng.choice(n, 2, replace=False))
        links[ids[j]][ids[i]] = float(rng.uniform(0, 0.2))
    flagged = frozenset(m for m in ids if rng.random() < 0.15)
    return benchmark, results, ids, links, flagged


@pytest.mark.parametrize("case", ["alone", "links to a model", "named by a link", "flagged"])
def test_a_newcomer_counted_into_the_board_s_panel_gets_the_panel_settled_afresh(case, monkeypatch):
    """A pre-submission's panel settled from the board's (`settle(base=...)`: the newcomer
    counted in alone, no sort of the field) against the panel settled from scratch, on 30
    random boards with ties, near-copy families and flags: every score, seat, family and
    duel win the same, to the bit. The shortcut is taken exactly when the newcomer is a
    family of its own and not flagged, and its duel wins alone are counted when the panel
    keeps its members; otherwise the panel is settled from scratch."""
    from_scratch, columns_read = [], []
    standing, read = panel_module._standing, panel_module._Columns.read
    monkeypatch.setattr(panel_module, "_standing", lambda *a: from_scratch.append(1) or standing(*a))
    monkeypatch.setattr(panel_module._Columns, "read", lambda *a: columns_read.append(1) or read(*a))
    shortcuts = 0
    for seed in range(30):
        benchmark, results, ids, links, flagged = _random_board(seed)
        if case == "links to a model":
            links[NEWCOMER] = {ids[seed % len(ids)]: 0.1}
        elif case == "named by a link":
            links[ids[seed % len(ids)]][NEWCOMER] = 0.1
        elif case == "flagged":
            flagged |= {NEWCOMER}
        tournament, _ = publish_under_panel(benchmark, {m: results[m] for m in ids}, ids)
        base = settle(benchmark, tournament, results, flagged, backfill=False, links=links)
        settled = []
        for given_base in (base, None):
            board = tournament.copy()
            board.add_models([NEWCOMER])
            from_scratch.clear()
            columns_read.clear()
            settled.append(settle(benchmark, board, results, flagged, links=links, backfill_only=[NEWCOMER],
                                  base=given_base))
            shortcut = given_base is not None and case == "alone"
            assert len(from_scratch) == (0 if shortcut else 1)
            assert len(columns_read) == (0 if shortcut and settled[-1].members == base.members else 1)
            shortcuts += shortcut and settled[-1].members == base.members
        counted_in, afresh = settled
        assert counted_in.members == afresh.members and counted_in.model_ids == afresh.model_ids
        assert counted_in.backfilled == afresh.backfilled
        for name in ("field_scores", "win_scores", "family"):
            np.testing.assert_array_equal(getattr(counted_in, name), getattr(afresh, name), err_msg=f"seed {seed}")
        for name in ("family", "representative", "pairs", "share"):
            np.testing.assert_array_equal(getattr(counted_in.copies, name), getattr(afresh.copies, name))
        for name in ("signed", "eligible", "id_order", "weights"):
            np.testing.assert_array_equal(getattr(counted_in.standing, name), getattr(afresh.standing, name))
    assert case != "alone" or shortcuts >= 10  # most newcomers leave the panel as it was


def test_duel_rows_and_pairs_belong_to_the_later_published_model_as_a_loop_says():
    """Which model's duel file holds a duel (and so which files a publication rewrites):
    the later published of the two, by time, then submission id (ties in time are common
    in a batch), on random boards, against a loop over the pairs."""
    from leaderboard.engine.replay import duel_file_owners, owners_of_pairs
    rng = np.random.default_rng(11)
    for _ in range(20):
        ids = [f"m{k:02d}" for k in rng.permutation(12)]
        models = {m: SimpleNamespace(submitted=float(rng.integers(3))) for m in ids}
        tournament = Tournament(["t"], ids)
        first, second = rng.integers(12, size=40), rng.integers(12, size=40)
        keep = first != second
        rows = DuelRows(first[keep], second[keep], np.ones((keep.sum(), 1)), np.zeros((keep.sum(), 1), dtype=bool),
                        np.full((keep.sum(), 1), 0.5), np.zeros((keep.sum(), 1)), np.full(keep.sum(), "r", dtype=object))

        def later(a: str, b: str) -> str:
            return max(a, b, key=lambda m: (models[m].submitted, m))
        expected = [tournament.index(later(ids[a], ids[b])) for a, b in zip(first[keep], second[keep])]
        assert duel_file_owners(tournament, rows, models).tolist() == expected
        pairs = {ids[0]: tuple(ids[1:6]), ids[7]: tuple(ids[2:4])}
        owned: dict[str, int] = {}
        for a, others in pairs.items():
            for b in others:
                owned[later(a, b)] = owned.get(later(a, b), 0) + 1
        assert owners_of_pairs(pairs, models) == owned


def test_the_owners_of_a_few_pairs_are_found_without_the_rest_of_the_board():
    """A pre-submission staying off the panel brings few pairs or none: their owners are
    found from those models alone (ordering all 10,000 by time made its first call 0.4 s
    slower, session 16)."""
    from leaderboard.engine.replay import owners_of_pairs

    class OnlyThese(dict):
        def __iter__(self):
            raise AssertionError("the whole board was read")
    models = OnlyThese({m: SimpleNamespace(submitted=float(k)) for k, m in enumerate(["a", "b", "c", "d"])})
    assert owners_of_pairs({}, models) == {}
    assert owners_of_pairs({"a": ("c",), "d": ("b",)}, models) == {"c": 1, "d": 1}
