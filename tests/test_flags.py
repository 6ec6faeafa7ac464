"""Flags on a real local store and on the Hub store (tests/fake_hub.py): one write each,
validated, read back by a new process's board, marked in the views and the snapshot; the
ranking without flagged models; flagged models are not opponents of new submissions."""
from __future__ import annotations

from support.hub_replicas import REPO, replica
from support.stores import tree_digest

import dataclasses

import io
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.storage.dataset_card import CARD_FILE
from leaderboard.board.state import Leaderboard
from leaderboard.storage.flags import FLAGS_FILE, MARKER
from leaderboard.storage.local import LocalStore
from leaderboard.storage.store import SNAPSHOT_FILE
from leaderboard.strict_json import dump_json
from leaderboard.errors import BadInput
from leaderboard.views import details, table as views

EVIDENCE = "https://example.com/contamination-report"


def reopened(board: Leaderboard) -> Leaderboard:
    return Leaderboard(LocalStore(board.store.root), board.benchmark)


def test_a_flag_is_one_write_read_back_with_its_reason_and_link(small_store):
    root = small_store.store.root
    top = small_store.ranked().index[0]
    before = {p.name: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != ".lock"}
    Administration(small_store).flag(top, "  test set   in the training data ", EVIDENCE)
    after = {p.name: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != ".lock"}
    changed = {name for name in after if before.get(name) != after[name]}
    # titles rewritten with the same bytes; duels untouched; the dataset card comes with the
    # first snapshot that a store written before the card existed gets
    assert changed - {CARD_FILE} == {FLAGS_FILE, SNAPSHOT_FILE}
    stored = json.loads((root / FLAGS_FILE).read_text())
    assert stored[top]["reason"] == "test set in the training data" and stored[top]["link"] == EVIDENCE
    board = reopened(small_store)
    assert board.flags[top].reason == "test set in the training data" and board.load_problems == []
    snapshot = pd.read_parquet(root / SNAPSHOT_FILE).set_index("submission_id")
    assert snapshot.loc[top, "flagged"] and snapshot.loc[top, "flag_reason"] == "test set in the training data"
    assert snapshot.loc[top, "flag_link"] == EVIDENCE
    assert snapshot["flagged"].sum() == 1 and snapshot["flag_reason"].isna().sum() == len(snapshot) - 1
    Administration(board).unflag(top, "the report was wrong")
    assert json.loads((root / FLAGS_FILE).read_text()) == {}
    assert reopened(small_store).flags == {}
    assert not pd.read_parquet(root / SNAPSHOT_FILE)["flagged"].any()


@pytest.mark.parametrize("sid, reason, link, message", [
    ("no-such-model", "leaked", None, "no published model 'no-such-model'"),
    (None, "   ", None, "Reason: required"),
    (None, "leaked", "javascript:alert(1)", "Link: an http:// or https:// address"),
    (None, "leaked", "example.com/report", "Link: an http:// or https:// address"),
    (None, "leaked\u202e", None, "Reason: invisible or text-direction characters are not allowed"),
    (None, "x" * 2001, None, "Reason: at most 2000 characters"),
    (None, "leaked", "https://example.com/" + "a" * 500, "Link: at most 500 characters"),
])
def test_bad_flags_are_refused_and_change_nothing(small_store, sid, reason, link, message):
    sid = sid or small_store.ranked().index[0]
    before = tree_digest(small_store.store.root)
    with pytest.raises(BadInput) as refused:
        Administration(small_store).flag(sid, reason, link)
    assert message in "\n".join(refused.value.problems)
    assert tree_digest(small_store.store.root) == before and small_store.flags == {}


def test_unflag_refuses_a_model_that_is_not_flagged(small_store):
    before = tree_digest(small_store.store.root)
    with pytest.raises(BadInput, match="is not flagged"):
        Administration(small_store).unflag(small_store.ranked().index[0])
    with pytest.raises(BadInput, match="no published model"):
        Administration(small_store).unflag("nobody")
    assert tree_digest(small_store.store.root) == before


def test_excluding_flagged_models_ranks_as_if_they_and_their_duels_were_gone(small_store, tmp_path):
    """The ranking without a flagged model equals the ranking of a copy of the store from
    which that model was removed (removal drops its duels from the stored ones)."""
    flagged = small_store.ranked().index[1]
    Administration(small_store).flag(flagged, "contaminated")
    copy = tmp_path / "copy"
    shutil.copytree(small_store.store.root, copy)
    without = Leaderboard(LocalStore(copy), small_store.benchmark)
    Administration(without).remove(flagged, "compare")
    excluded = small_store.ranked(exclude_flagged=True)
    assert flagged not in excluded.index and flagged in small_store.ranked().index
    pd.testing.assert_frame_equal(excluded, without.ranked())
    # by hand for one model and task: its duels won against the unflagged models only
    model, task = excluded.index[0], small_store.benchmark.task_ids[0]
    forward, _ = small_store.tournament.rows_of(model)
    t = small_store.tournament.task_ids.index(task)
    kept = [k for k, j in enumerate(forward.second) if small_store.tournament.model_ids[j] != flagged]
    won = forward.significant[kept, t] & forward.fought[kept, t]
    assert excluded.loc[model, task] == pytest.approx(won.sum() / forward.fought[kept, t].sum())
    table = views.leaderboard_table(small_store, exclude_flagged=True)
    assert list(table.index) == list(excluded.index) and not table["Flagged"].any()
    assert "Left out as flagged" in views.flag_note(small_store, True)
    # with adjusted p-values too: the same as adjusting the copy without the model
    pd.testing.assert_frame_equal(small_store.ranked(adjusted=True, exclude_flagged=True),
                                  without.ranked(adjusted=True))
    Administration(small_store).unflag(flagged)  # a new flag state is a new ranking, not the cached one
    assert flagged in small_store.ranked(adjusted=True, exclude_flagged=True).index


def test_flagged_models_are_not_opponents_and_check_follows_the_flags(small_store, small_documents, monkeypatch):
    """Under the original rule (under the panel: tests/test_panel.py)."""
    monkeypatch.setattr(small_store, "benchmark", dataclasses.replace(small_store.benchmark, top_opponents=2,
                                                                      opponents="top-of-its-day"))
    top = list(small_store.ranked().index)
    Administration(small_store).flag(top[0], "leaked answers")
    form, document, _ = small_documents[6]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    assert preview.opponents == top[1:3]
    sid = Publishing(small_store).publish(preview)
    assert sorted(small_store.tournament.opponents(sid)) == sorted(top[1:3])
    assert Administration(small_store).check() == []  # the replay passes over models flagged by then
    Administration(small_store).unflag(top[0])
    problems = Administration(small_store).check()
    assert len(problems) == 1 and f"{sid}: 1 missing duels (with {top[0]})" in problems[0]


def test_removing_a_flagged_model_drops_its_flag(small_store):
    gone = small_store.ranked().index[2]
    Administration(small_store).flag(gone, "duplicate of another model")
    Administration(small_store).remove(gone, "duplicate")
    assert small_store.flags == {} and json.loads((small_store.store.root / FLAGS_FILE).read_text()) == {}
    assert reopened(small_store).load_problems == []


def test_a_flag_of_an_unpublished_model_or_a_broken_file_is_reported_not_fatal(small_store):
    root = small_store.store.root
    (root / FLAGS_FILE).write_text(json.dumps({"ghost": {"reason": "x", "flagged_at": 1}, "bad": "entry"}))
    board = reopened(small_store)
    assert board.flags == {}
    assert any("ghost, which is not published" in p for p in board.load_problems)
    assert any("entry of bad is skipped" in p for p in board.load_problems)
    (root / FLAGS_FILE).write_text("{not json")
    assert any("flags.json is skipped: not JSON" in p for p in reopened(small_store).load_problems)


def test_flagged_models_are_marked_in_the_table_details_and_exports(small_store):
    flagged = small_store.ranked().index[1]
    Administration(small_store).flag(flagged, 'scores "too good"', EVIDENCE)
    table = views.leaderboard_table(small_store)
    assert table.loc[flagged, "Flagged"] and table.loc[flagged, "Flag reason"] == 'scores "too good"'
    assert table["Flagged"].sum() == 1 and table.loc[flagged, "Flag link"] == EVIDENCE
    shown = views.with_model_links(table, small_store.models)
    assert not set(views.FLAG_COLUMNS) & set(shown.columns)
    assert shown.loc[flagged, "Model"].startswith(f"{MARKER} [")
    assert 'Flagged\\: scores \\"too good\\""' in shown.loc[flagged, "Model"]  # the reason on hover (":" escaped)
    assert sum(MARKER in m for m in shown["Model"]) == 1
    note = views.flag_note(small_store, False)
    assert MARKER in note and "scores \"too good\"" in note and f"]({EVIDENCE})" in note
    records = json.loads(open(views.export_table(table, "json")).read())
    assert [r["Flagged"] for r in records].count(True) == 1
    csv = pd.read_csv(views.export_table(table, "csv"))
    assert csv["Flagged"].sum() == 1 and (csv["Flag reason"] == 'scores "too good"').sum() == 1
    card = details.model_card(small_store, flagged)
    assert "Flagged by the maintainers" in card and "too good" in card
    assert (f"{MARKER} {small_store.models[flagged].title}", flagged) in details.model_choices(small_store)
    other = small_store.ranked().index[0]
    duels = details.duel_table(small_store, other)
    assert duels.loc[duels["competitor_id"] == flagged, "competitor_flagged"].all()
    assert duels["competitor_flagged"].sum() == len(small_store.benchmark.task_ids)
    grid = details.duel_grid(duels).data
    assert sum(MARKER in c for c in grid["Competitor"]) == 1


def test_flag_and_unflag_on_the_hub_are_one_commit_each(hub, tmp_path, small_benchmark, small_documents):
    from support.stores import publish_all
    hub.create_repo(REPO)
    board = replica(hub, tmp_path, small_benchmark, "a")
    publish_all(board, small_documents[:3])
    other = replica(hub, tmp_path, small_benchmark, "b")
    flagged = board.ranked().index[0]
    commits = hub.commits
    with pytest.raises(BadInput, match="Link: an http"):
        Administration(board).flag(flagged, "leaked", "ftp://example.com")
    assert hub.commits == commits
    Administration(board).flag(flagged, "leaked", EVIDENCE)
    assert hub.commits == commits + 1
    assert json.loads(hub.read(REPO, FLAGS_FILE))[flagged]["link"] == EVIDENCE
    snapshot = pd.read_parquet(io.BytesIO(hub.read(REPO, SNAPSHOT_FILE))).set_index("submission_id")
    assert snapshot.loc[flagged, "flagged"] and snapshot.loc[flagged, "flag_reason"] == "leaked"
    assert other.refresh(fresh=True) and other.flags[flagged].reason == "leaked"
    np.testing.assert_array_equal(other.ranked(exclude_flagged=True).index, board.ranked(exclude_flagged=True).index)
    Administration(board).unflag(flagged, "cleared")
    assert hub.commits == commits + 2 and json.loads(hub.read(REPO, FLAGS_FILE)) == {}
    assert other.refresh(fresh=True) and other.flags == {}
