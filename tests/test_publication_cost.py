"""What keeps a publication cheap without changing what it computes: the duels of one
model against many read each opponent's arrays once for every task (in groups), each
model's bootstrap replicates are kept between board versions, and the rank and score
intervals are computed after the publication's commit (the page, the table and the API
say "being refreshed" meanwhile), equal to those of a board loaded afresh."""
from __future__ import annotations

from support.stores import publish_all

import os
import threading

import numpy as np
import pandas as pd
import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.reader import follow
from leaderboard.board.state import Leaderboard
from leaderboard.engine import panel, ranking, replay, tournament as engine
from leaderboard.engine.tournament import ModelResults, Tournament, duel_rows, task_seed
from leaderboard.storage.local import LocalStore
from leaderboard.storage.snapshot import SnapshotBoard, snapshot_table
from leaderboard.strict_json import dump_json
from leaderboard.submission import metadata
from leaderboard.views import table as views
from leaderboard.views.api import ReadApi
import stats
from stats import duel_tests, evidence


def test_one_against_many_in_groups_gives_each_pair_its_own_duel(small_store, monkeypatch):
    board = small_store
    ids = list(board.models)
    results = {sid: board.models[sid].results for sid in ids}
    duels = Tournament(board.benchmark.task_ids, ids)
    width = sum(np.size(results[ids[0]].summaries[task]) for task in board.benchmark.task_ids)
    monkeypatch.setattr(engine, "SUMMARY_BYTES_AT_ONCE", 2 * 8 * width)  # 4 opponents: two groups
    rows = duel_rows(board.benchmark, duels, ids[0], ids[1:], results, board.rules)
    for k, opponent in enumerate(ids[1:]):  # each pair alone, through the registry's test
        for t, task in enumerate(board.benchmark.tasks):
            mine, theirs = results[ids[0]], results[opponent]
            forward = stats.duel(task.metric, mine.aggregates[task.id], np.asarray(mine.summaries[task.id])[None],
                                 theirs.aggregates[task.id], np.asarray(theirs.summaries[task.id])[None],
                                 board.benchmark.alpha)
            backward = stats.duel(task.metric, theirs.aggregates[task.id], np.asarray(theirs.summaries[task.id])[None],
                                  mine.aggregates[task.id], np.asarray(mine.summaries[task.id])[None],
                                  board.benchmark.alpha)
            assert rows.p_value[k, t] == pytest.approx(float(np.ravel(forward.p_value)[0]), abs=1e-12)
            assert rows.p_value[len(ids) - 1 + k, t] == pytest.approx(float(np.ravel(backward.p_value)[0]), abs=1e-12)
            assert rows.delta[k, t] == pytest.approx(float(np.ravel(forward.delta)[0]), abs=1e-12)
    assert rows.first.tolist() == [0] * 4 + [1, 2, 3, 4] and rows.second.tolist() == [1, 2, 3, 4] + [0] * 4


@pytest.mark.parametrize("what", ["summary", "aggregate"])
def test_a_non_finite_opponent_is_refused_by_name_and_task_in_any_group(small_store, monkeypatch, what):
    """The engine checks a group of opponents at once (not each task's slice): a NaN in the
    last opponent's summary or an infinite aggregate, in the second group, is refused as
    `stats.duel` refuses it, naming the model and the task."""
    board = small_store
    ids = list(board.models)
    results = {sid: board.models[sid].results for sid in ids}
    task = board.benchmark.task_ids[-1]
    bad = results[ids[-1]]
    summaries = {t: np.array(bad.summaries[t], dtype=float) for t in board.benchmark.task_ids}
    aggregates = dict(bad.aggregates)
    if what == "summary":
        summaries[task].flat[-1] = np.nan
    else:
        aggregates[task] = np.inf
    results[ids[-1]] = ModelResults(aggregates, summaries)
    width = sum(np.size(results[ids[0]].summaries[t]) for t in board.benchmark.task_ids)
    monkeypatch.setattr(engine, "SUMMARY_BYTES_AT_ONCE", 2 * 8 * width)  # 4 opponents: two groups
    with pytest.raises(ValueError, match=f"{ids[-1]}: its {what} of {task} is not finite"):
        duel_rows(board.benchmark, Tournament(board.benchmark.task_ids, ids), ids[0], ids[1:], results, board.rules)


def test_replicates_of_batches_read_into_the_same_rows_are_each_models_own(small_store, monkeypatch):
    # each batch's summaries are read into the rows the batch before used: what is kept of a
    # model (a bootstrap metric's replicates are its summaries' first values) must be a copy
    board = small_store
    benchmark, ids = board.benchmark, list(board.models)
    width = sum(np.size(board.models[ids[0]].results.summaries[task]) for task in benchmark.task_ids)
    monkeypatch.setattr(ranking, "REPLICATES_BYTES_AT_ONCE", 2 * 4 * width)  # 5 models: batches of 2, 2, 1
    monkeypatch.setattr(ranking, "REPLICATES_MIN_WIDTH", 1)  # unpadded: the batch's rows themselves
    fresh = {sid: ModelResults(m.results.aggregates, m.results.summaries) for sid, m in board.models.items()}
    assert_registry_replicates(benchmark, fresh, ids, list(ranking.task_replicates(benchmark, fresh, ids)))


def test_the_starts_warming_waits_before_each_batch_and_keeps_the_same_replicates(small_store, monkeypatch):
    """`warm_in_background(before_batch=...)` (the app waits there while it serves
    visitors): called before each batch of replicates, which are the same, bit for bit, as
    those computed without waiting."""
    board = small_store
    benchmark, ids = board.benchmark, list(board.models)
    width = sum(np.size(board.models[ids[0]].results.summaries[task]) for task in benchmark.task_ids)
    monkeypatch.setattr(ranking, "REPLICATES_BYTES_AT_ONCE", 2 * 4 * width)  # 5 models: several batches
    fresh = {sid: ModelResults(m.results.aggregates, m.results.summaries) for sid, m in board.models.items()}
    expected = list(ranking.task_replicates(benchmark, fresh, ids))
    for model in board.models.values():
        model.results.replicates.clear()
    key = (benchmark.task_ids[0], evidence.CERTAINTY_RESAMPLES)
    waits = []
    board.warm_in_background(before_batch=lambda: waits.append(sum(key in board.models[m].results.replicates
                                                                   for m in ids))).join(60)
    # before each batch, none of its models computed yet: 0 first, more at each wait, not all
    assert len(waits) > 1 and waits[0] == 0 and waits == sorted(set(waits)) and waits[-1] < len(ids), waits
    got = list(ranking.task_replicates(benchmark, {m: board.models[m].results for m in ids}, ids))
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_array_equal(want, have)


def test_a_models_summaries_are_read_in_one_read_as_the_tasks_arrays(small_store):
    # a cache file stores a model's summaries end to end: one read fills a row of the
    # engine's matrix (`SummaryRows`); when it cannot, the caller reads task by task
    task_ids = small_store.benchmark.task_ids
    for sid, model in small_store.models.items():
        summaries = model.results.summaries
        layout = [(task, np.size(summaries[task])) for task in task_ids]
        expected = np.concatenate([np.ravel(summaries[task]) for task in task_ids])
        for dtype in (float, np.float32):
            row = np.full(expected.size, np.nan, dtype=dtype)
            assert summaries.read_joined(layout, row)
            np.testing.assert_array_equal(row, expected.astype(dtype))
        assert not summaries.read_joined(layout[::-1], row)  # not in the file's order
        assert not summaries.read_joined(layout[:-1], row[:-layout[-1][1]])  # not every task the file holds
    path = small_store.store.cache_dir / f"{sid}.npz"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))  # replaced since the model was read
    assert not summaries.read_joined(layout, np.empty(expected.size))


class Unreadable(dict):
    def __getitem__(self, key):
        raise AssertionError("the summaries were read again")


def assert_registry_replicates(benchmark, results: dict, ids: list[str], replicates: list[np.ndarray]) -> None:
    """`replicates` (`ranking.task_replicates`'s) equal the registry's replicates of all
    models in one call, to float32 rounding: BLAS may sum 5 rows in another order than a
    padded batch (bit-identity is claimed only between batches of the engine's own width)."""
    for task, values in zip(benchmark.tasks, replicates):
        summaries = np.stack([results[m].summaries[task.id] for m in ids], dtype=np.float32)
        aggregates = np.array([results[m].aggregates[task.id] for m in ids])
        np.testing.assert_allclose(values, task.metric.replicates(summaries, aggregates, task_seed(task.id),
                                                                  values.shape[0]), rtol=1e-6, atol=0)


def test_replicates_are_kept_and_equal_those_computed_for_the_whole_board_at_once(small_store):
    board = small_store
    benchmark, ids = board.benchmark, list(board.models)
    fresh = {sid: ModelResults(m.results.aggregates, m.results.summaries) for sid, m in board.models.items()}
    whole = list(ranking.task_replicates(benchmark, fresh, ids))
    assert_registry_replicates(benchmark, fresh, ids, whole)
    kept = {sid: ModelResults(m.results.aggregates, m.results.summaries) for sid, m in board.models.items()}
    list(ranking.task_replicates(benchmark, kept, ids[:1]))  # one model first, the others later
    later = list(ranking.task_replicates(benchmark, kept, ids))
    for a, b in zip(whole, later):
        np.testing.assert_array_equal(a, b)
    for sid in ids:  # kept: a later board version does not read the summaries again
        kept[sid].summaries = Unreadable()
    for a, b in zip(whole, ranking.task_replicates(benchmark, kept, ids)):
        np.testing.assert_array_equal(a, b)


def test_the_panel_a_pre_submission_counts_its_model_into_is_settled_after_a_publication(small_store,
                                                                                        small_documents, monkeypatch):
    """The app's refresh after a publication settles the new board's panel before its
    intervals, so that the next pre-submission finds it (none settles the board again)."""
    board = small_store
    form, document, submitted = small_documents[5]
    Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=submitted)
    Publishing(board).refresh_intervals_in_background().join(120)
    settled = []
    board_panel = replay.board_panel  # what the board settles its panel with
    monkeypatch.setattr(replay, "board_panel", lambda *a, **k: settled.append(1) or board_panel(*a, **k))
    form, document, _ = small_documents[6]
    preview = Publishing(board).presubmit(dump_json(document), form)
    assert settled == [] and preview.panel_before == board.panel()


def test_a_loaded_board_keeps_the_panel_it_ranked_by_for_its_first_pre_submission(small_store, small_documents,
                                                                                   monkeypatch):
    """A board settles its panel once at its load, to rank, and keeps it: its first
    pre-submission counts its model into that panel instead of settling the board again
    (at 10,000 models 0.3-0.7 s of a cold `presubmit`)."""
    settled, members = [], small_store.panel()
    board_panel = replay.board_panel
    monkeypatch.setattr(replay, "board_panel", lambda *a, **k: settled.append(k.get("base")) or board_panel(*a, **k))
    board = Leaderboard(LocalStore(small_store.store.root), small_store.benchmark)
    form, document, _ = small_documents[6]
    preview = Publishing(board).presubmit(dump_json(document), form)
    assert preview.panel_before == board.panel() == members
    assert settled == [None]  # the load's (the preview counts its model into it: publishing's own call)
    pd.testing.assert_frame_equal(board.ranked(), small_store.ranked())


def test_a_board_s_task_scores_look_each_model_s_results_up_once(small_store):
    """The task scores a panel is settled from (`panel.signed_task_scores`) look each
    model's results up once, not once a task: a board's are a lazy mapping (`replay`'s),
    500,000 lookups of a cold load at 10,000 models on 50 tasks."""
    board = small_store
    looked_up = []

    class Counted(dict):
        def __getitem__(self, sid):
            looked_up.append(sid)
            return super().__getitem__(sid)
    ids, task_ids = list(board.models), board.benchmark.task_ids
    results = Counted({sid: ModelResults(dict(m.results.aggregates), m.results.summaries)
                       for sid, m in board.models.items()})  # nothing kept from earlier tests
    scores = panel.signed_task_scores(board.benchmark, task_ids, results, ids)
    assert sorted(looked_up) == sorted(ids)
    signs = np.array([board.benchmark.task(t).metric.sign for t in task_ids])
    np.testing.assert_array_equal(scores, np.array([[board.models[m].results.aggregates.get(t, np.nan)
                                                     for t in task_ids] for m in ids]) * signs)


def test_a_commit_that_moves_only_the_revision_keeps_what_the_board_made(small_store):
    """A pre-submission's record committed to the Hub moves the store's revision, not the
    board (`follow`): the settled panel, the near-copy candidates, the names and the page's
    table made before it serve after it (at 10,000 models they took 0.2 s, 0.05 s, 0.05 s
    and seconds to make again)."""
    board = small_store
    def made():
        return board.settled_panel(), board.near_copy_candidates(), board.state.names, views.current_table(board)
    before = made()
    follow(board, board.revision, "a-record-s-commit")
    assert board.revision == "a-record-s-commit"
    assert all(a is b for a, b in zip(before, made()))


def test_intervals_are_refreshed_after_the_commit_and_marked_until_then(small_store, small_documents, monkeypatch):
    board = small_store
    root = board.store.root
    form, document, submitted = small_documents[5]
    Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=submitted)
    assert SnapshotBoard.of_store(board.store, board.benchmark) is None  # committed without its intervals
    gate, computing = threading.Event(), threading.Event()
    certainty_of = ranking.certainty_of

    def held(*args, **kwargs):  # hold the computation until the test has looked at the page
        computing.set()
        gate.wait(60)
        return certainty_of(*args, **kwargs)
    monkeypatch.setattr(ranking, "certainty_of", held)
    thread = Publishing(board).refresh_intervals_in_background()
    try:
        computing.wait(60)
        assert board.intervals_pending()
        assert "Intervals are being computed" in views.as_of_note(board)
        table = views.leaderboard_table(board)
        assert set(table["Tie group"]) == {views.INTERVALS_PENDING}
        assert table["Rank 95% low"].isna().all() and table["Overall score % 95% high"].isna().all()
        assert set(views.current_table(board)["Tie group"]) == {views.INTERVALS_PENDING}  # the page's, kept per state
        records = ReadApi(board).leaderboard_table()
        assert {r["Tie group"] for r in records} == {views.INTERVALS_PENDING}
        assert all(r["Rank 95% high"] is None for r in records)
    finally:
        gate.set()
        thread.join(60)
    assert not board.intervals_pending()
    cold = Leaderboard(LocalStore(root), board.benchmark)  # a new board: every replicate computed afresh
    pd.testing.assert_frame_equal(board.certainty(), cold.certainty())
    table = views.leaderboard_table(board)
    assert views.INTERVALS_PENDING not in set(table["Tie group"])
    pd.testing.assert_frame_equal(views.current_table(board), table)  # the page's table is made again with them
    snapshot = SnapshotBoard.of_store(board.store, board.benchmark)  # the refresh wrote them with the snapshot
    assert snapshot is not None
    written = snapshot.certainty()
    expected = snapshot_table(cold.models, cold.ranked(), cold.benchmark, cold.flags).set_index("submission_id")
    for (scope, field), values in written.items():
        assert values.tolist() == expected[f"{scope}_{field}"].tolist()


def test_a_refresh_for_a_board_that_moved_on_writes_nothing(small_store, small_documents):
    board = small_store
    form, document, submitted = small_documents[5]
    Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=submitted)
    state = board.state
    publish_all(board, small_documents[6:7])  # another publication lands first, with its own snapshot
    assert not Publishing(board).refresh_intervals(state)
    assert Publishing(board).refresh_intervals()
    assert SnapshotBoard.of_store(board.store, board.benchmark) is not None


def test_a_new_board_takes_its_intervals_from_a_current_snapshot_only(small_store, small_documents, monkeypatch):
    board = small_store
    form, document, submitted = small_documents[5]
    Publishing(board).publish(Publishing(board).presubmit(dump_json(document), form), submitted_at=submitted)
    assert not Leaderboard(board.store, board.benchmark).certainty_from_snapshot()  # committed without them
    assert Publishing(board).refresh_intervals()
    computed = Leaderboard(board.store, board.benchmark).certainty()
    started = Leaderboard(board.store, board.benchmark)

    def not_computed(*args, **kwargs):
        raise AssertionError("the intervals were computed, not read")
    monkeypatch.setattr(ranking, "certainty_of", not_computed)
    assert started.certainty_from_snapshot()
    assert not started.intervals_pending()
    pd.testing.assert_frame_equal(started.certainty(), computed)
    assert views.INTERVALS_PENDING not in set(views.leaderboard_table(started)["Tie group"])


def test_after_the_warming_a_first_pre_submission_reads_no_member_column_and_no_title_again(
        small_store, small_documents, monkeypatch):
    """`warm_presubmission` makes what every pre-submission of the board reads: the panel
    members' duel columns over the board's rows (with room for the new model's one more
    row), each task's resample counts (which a perplexity task's summary draws) and the
    published titles' look-alike keys."""
    board = small_store
    duel_tests.resample_counts.cache_clear()
    duel_tests._drawn_counts.cache_clear()  # drawn by earlier tests of this process or not: drawn by the warming
    board.warm_presubmission()
    board_rows = board.tournament.parts()[0]
    searched = []
    monkeypatch.setattr(board_rows, "rows_of_second", lambda second: searched.append(second))
    keys, draws = metadata._title_keys.cache_info(), duel_tests._drawn_counts.cache_info()
    form, document, _ = small_documents[6]
    preview = Publishing(board).presubmit(dump_json(document), form)
    assert set(searched) <= {preview.tournament.index(preview.submission_id)} and preview.panel  # the new one's own
    assert metadata._title_keys.cache_info().misses - keys.misses <= 2  # the new title's own (its two cases)
    assert duel_tests._drawn_counts.cache_info().misses == draws.misses  # no task's resample counts drawn again


def test_a_board_started_from_its_snapshot_warms_what_its_first_publication_needs(small_store, small_documents):
    """The app's start from a current snapshot (`warm_in_background`): every model's
    replicates are computed meanwhile, so its first publication's intervals read no
    published model's arrays again and equal a freshly loaded board's."""
    board = small_store
    publish_all(board, small_documents[5:6])
    assert Publishing(board).refresh_intervals()  # the snapshot is current
    started = Leaderboard(board.store, board.benchmark)
    assert started.certainty_from_snapshot()
    started.warm_in_background().join(60)
    form, document, submitted = small_documents[6]
    Publishing(started).publish(Publishing(started).presubmit(dump_json(document), form), submitted_at=submitted)
    new = set(started.models) - set(board.models)
    for sid, model in started.models.items():
        if sid not in new:  # the new model's replicates were made by its pre-submission
            model.results.summaries = Unreadable()
    assert Publishing(started).refresh_intervals()
    pd.testing.assert_frame_equal(started.certainty(), Leaderboard(board.store, board.benchmark).certainty())
