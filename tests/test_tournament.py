"""Tournament, scores and the local store through the Leaderboard API, on real files."""
from __future__ import annotations

from support.reference_layout import reference_layout_store
from support.stores import duel_frame, publish_all, tree_digest

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.board.publishing import Publishing
from leaderboard.board.administration import Administration
from leaderboard.board import state as board_state
from leaderboard.engine import ranking
from leaderboard.board.state import Leaderboard
from leaderboard.storage import duel_files, local, model_index, store_index
from leaderboard.storage.local import JOURNAL_FILE, LocalStore
from leaderboard.storage.store import DUELS_DIR, TOURNAMENT_FILE
from leaderboard.strict_json import dump_json
from leaderboard.config.tasks import Benchmark, Task
from leaderboard.engine.tournament import DuelRows, ModelResults, SummaryRows, Tournament
from leaderboard.errors import StoreFailure, UnfinishedWrite
from support.reference_layout import tournament_from_json

ROOT = Path(__file__).resolve().parent.parent


# --- scores against hand-computed examples ------------------------------------------------

def tiny_benchmark():
    tasks = tuple(Task(id=f"t{i}", abbreviation=f"T{i}", short_name=f"T{i}", name=f"Task {i}", category=category,
                       metric_name="acc", dataset_url="") for i, category in ((1, "A"), (2, "A"), (3, "B")))
    return Benchmark(name="Tiny", categories=("A", "B"), tasks=tasks)


def test_win_scores_category_and_overall_by_hand():
    bench = tiny_benchmark()
    wins = {  # (task, a, b): significant
        ("t1", "x", "y"): True, ("t1", "x", "z"): True, ("t1", "y", "x"): False, ("t1", "y", "z"): True,
        ("t1", "z", "x"): False, ("t1", "z", "y"): False,
        ("t2", "x", "y"): False, ("t2", "x", "z"): True, ("t2", "y", "x"): False, ("t2", "y", "z"): False,
        ("t2", "z", "x"): False, ("t2", "z", "y"): False,
        ("t3", "x", "y"): False, ("t3", "x", "z"): False, ("t3", "y", "x"): True, ("t3", "y", "z"): True,
        ("t3", "z", "x"): False, ("t3", "z", "y"): False,
    }
    stored = {}
    for (task, a, b), won in wins.items():
        stored.setdefault(a, {}).setdefault(b, {})[task] = {"significant": won, "p_value": 0.01 if won else 0.5,
                                                            "delta": 0.1}
    tour = tournament_from_json(stored, bench.task_ids, ["x", "y", "z"])
    table = ranking.scores_table(tour, bench)
    # x: t1 2/2, t2 1/2, t3 0/2 -> A = (1 + .5)/2 = .75, B = 0, overall .375
    # y: t1 1/2, t2 0/2, t3 2/2 -> A = .25, B = 1, overall .625
    # z: all 0
    assert table.loc["x", ["t1", "t2", "t3", "A", "B", "overall"]].tolist() == [1.0, 0.5, 0.0, 0.75, 0.0, 0.375]
    assert table.loc["y", ["A", "B", "overall"]].tolist() == [0.25, 1.0, 0.625]
    assert table.loc["z", "overall"] == 0.0
    ranked = ranking.ranked(table, pd.Series({"x": 1.0, "y": 2.0, "z": 3.0}))
    assert list(ranked.index) == ["y", "x", "z"] and ranked["rank"].tolist() == [1, 2, 3]


def test_ties_share_a_rank():
    scores = pd.Series({"a": 0.5, "b": 0.7, "c": 0.5, "d": 0.1 + 0.2, "e": 0.3, "f": np.nan})
    assert ranking.competition_rank(scores).to_dict() == {"a": 2, "b": 1, "c": 2, "d": 4, "e": 4, "f": 6}


def test_tournament_json_round_trip_and_old_bare_bool_entries(small_benchmark):
    data = {"a": {"b": {"t_acc": True, "t_em": {"significant": False, "p_value": 0.3}}},
            "b": {"a": {"t_acc": {"significant": False, "p_value": 1.0, "delta": -0.1}}},
            "gone": {"a": {"t_acc": True}}}
    tour = tournament_from_json(data, small_benchmark.task_ids, ["a", "b"])
    out = tour.to_json()
    assert out["a"]["b"]["t_acc"] == {"significant": True, "p_value": None, "delta": None}
    assert out["a"]["b"]["t_em"]["p_value"] == 0.3
    assert "gone" not in out
    assert tournament_from_json(out, small_benchmark.task_ids, ["a", "b"]).to_json() == out


# --- publication, incremental duels, rebuild ----------------------------------------------

def stored_duels(root) -> pd.DataFrame:
    """Every stored duel row, read with pandas straight from the duel files."""
    return pd.concat([pd.read_parquet(p) for p in sorted((root / DUELS_DIR).glob("*.parquet"))], ignore_index=True)


def test_publishing_writes_only_the_new_models_duels(small_store, small_documents):
    root = small_store.store.root
    before = small_store.tournament
    old_ids = list(before.model_ids)
    old_files = {p.name: p.read_bytes() for p in (root / DUELS_DIR).glob("*.parquet")}
    form, document, ts = small_documents[5]
    sid = Publishing(small_store).publish(Publishing(small_store).presubmit(dump_json(document), form), submitted_at=ts)
    assert small_store.tournament.subset(old_ids).to_json() == before.subset(old_ids).to_json()
    for other in old_ids:
        assert small_store.tournament.has_dueled(sid, other)
    assert {p.name: p.read_bytes() for p in (root / DUELS_DIR).glob("*.parquet") if p.stem != sid} == old_files
    mine = pd.read_parquet(root / DUELS_DIR / f"{sid}.parquet")
    assert sorted(mine["second"][mine["first"] == sid]) == sorted(old_ids)
    assert sorted(mine["first"][mine["second"] == sid]) == sorted(old_ids)
    assert set(mine["rules"]) == {small_store.rules}
    assert all(len(v) == len(small_store.benchmark.task_ids) and v.all() for v in mine["fought"])


def test_scores_are_win_shares_of_stored_duels(small_store):
    rows = stored_duels(small_store.store.root)
    table = small_store.ranked().attrs["duel_wins"]  # every model is in the panel of this small board
    for sid, mine in rows.groupby("first"):
        won = np.stack(mine["significant"].to_numpy())
        for t, task in enumerate(small_store.benchmark.task_ids):
            assert table.loc[sid, task] == pytest.approx(won[:, t].mean())


def test_rebuild_from_scratch_reproduces_every_duel(small_store):
    root = small_store.store.root
    original = small_store.tournament.to_json()
    assert Administration(small_store).rebuild().dueled == 0  # nothing missing
    shutil.rmtree(root / DUELS_DIR)
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    assert Administration(board).rebuild().dueled == 10  # model pairs: the k-th model duels the k-1 earlier ones
    assert Leaderboard(LocalStore(root), small_store.benchmark).tournament.to_json() == original


def test_new_model_duels_only_the_benchmarks_number_of_top_models(small_store, small_documents):
    small_store.benchmark = dataclasses.replace(small_store.benchmark, top_opponents=2)
    top2 = list(small_store.ranked().index[:2])
    form, document, _ = small_documents[6]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    assert preview.opponents == top2
    assert sorted(preview.tournament.opponents(preview.submission_id)) == sorted(top2)


def test_presubmission_writes_nothing_and_shows_rank_changes(small_store, small_documents):
    root = small_store.store.root
    before = tree_digest(root)
    form, document, _ = small_documents[7]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    assert tree_digest(root) == before
    table = preview.table
    assert preview.submission_id in table.index and len(table) == 6
    assert np.isnan(table.loc[preview.submission_id, "previous_rank"])
    incumbents = table.drop(index=preview.submission_id)
    assert (incumbents["rank_change"] == incumbents["previous_rank"] - incumbents["rank"]).all()


def test_publishing_a_stale_preview_duels_models_published_since(small_store, small_documents):
    form6, doc6, ts6 = small_documents[6]
    form7, doc7, ts7 = small_documents[7]
    preview = Publishing(small_store).presubmit(dump_json(doc6), form6)
    other = Publishing(small_store).publish(Publishing(small_store).presubmit(dump_json(doc7), form7), submitted_at=ts7)
    sid = Publishing(small_store).publish(preview, submitted_at=ts6)
    assert small_store.tournament.has_dueled(sid, other)
    assert len(small_store.tournament.opponents(sid)) == 6


def _fail_replace_into(monkeypatch, target: str):
    """os.replace raises (as on a dying disk) when it would write a path containing `target`."""
    real_replace = os.replace

    def replace(src, dst):
        if target in str(dst):
            raise OSError("disk failure")
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)


def test_a_write_failing_before_the_commit_point_publishes_nothing(small_store, small_documents, monkeypatch):
    root = small_store.store.root
    ranked_before, files_before = small_store.ranked().copy(), tree_digest(root)
    form, document, _ = small_documents[5]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    _fail_replace_into(monkeypatch, JOURNAL_FILE)
    with pytest.raises(StoreFailure, match="nothing was published: writing the store failed: disk failure"):
        Publishing(small_store).publish(preview)
    monkeypatch.undo()
    reopened = Leaderboard(LocalStore(root), small_store.benchmark)
    assert preview.submission_id not in reopened.models
    pd.testing.assert_frame_equal(reopened.ranked(), ranked_before)
    assert tree_digest(root) == files_before  # no temporaries left
    assert Administration(reopened).check() == []


def test_a_write_failing_after_the_commit_point_is_completed_on_the_next_load(small_store, small_documents,
                                                                             monkeypatch):
    root = small_store.store.root
    form, document, _ = small_documents[5]
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    _fail_replace_into(monkeypatch, "/data/")
    with pytest.raises(UnfinishedWrite, match="the change is committed, and the next command or app start") as e:
        Publishing(small_store).publish(preview)
    monkeypatch.undo()
    assert "nothing was published" not in str(e.value)
    assert (root / JOURNAL_FILE).exists()
    reopened = Leaderboard(LocalStore(root), small_store.benchmark)
    assert preview.submission_id in reopened.models
    assert set(LocalStore(root).read_titles()) == set(reopened.models)
    assert not (root / JOURNAL_FILE).exists() and not list(root.rglob(".*.tmp"))
    assert Administration(reopened).check() == []


def test_cache_is_rebuildable_from_data(small_store):
    root = small_store.store.root
    ranked = small_store.ranked()
    shutil.rmtree(root / ".cache")
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    pd.testing.assert_frame_equal(board.ranked(), ranked)
    for sid, model in small_store.models.items():
        for task, summary in model.results.summaries.items():
            np.testing.assert_array_equal(board.models[sid].results.summaries[task], summary)
    (root / ".cache" / f"{sid}.npz").write_bytes(b"garbage")
    assert Leaderboard(LocalStore(root), small_store.benchmark).models[sid].results.aggregates == \
        model.results.aggregates


def test_caches_of_the_first_format_are_still_read(small_store, monkeypatch):
    """Hub repos hold arrays/<id>.npz in the first format (one member per task and kind):
    they are read as they are, nothing is parsed again."""
    root = small_store.store.root
    for sid, model in small_store.models.items():
        stamp = json.loads(str(np.load(root / ".cache" / f"{sid}.npz")["info"]))["stamp"]
        arrays = {f"summary/{t}": np.asarray(s) for t, s in model.results.summaries.items()}
        refs = {}
        for t, r in model.references.items():
            refs[t] = {"n": r.n_samples, "doc_ids": r.doc_ids is not None, "n_classes": r.n_classes}
            arrays.update({f"{kind}/{t}": v for kind, v in (("doc_ids", r.doc_ids), ("gold", r.gold)) if v is not None})
        info = {"version": 1, "stamp": stamp, "metadata": model.metadata, "aggregates": model.results.aggregates,
                "references": refs}
        written = root / ".cache" / f"{sid}.tmp.npz"  # then renamed over the old file, as the stores write
        np.savez(written, info=np.array(json.dumps(info)), **arrays)
        written.replace(root / ".cache" / f"{sid}.npz")
    monkeypatch.setattr(board_state, "parse_submission", lambda *a, **k: pytest.fail("parsed a file"))
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    for sid, model in small_store.models.items():
        for task, summary in model.results.summaries.items():
            np.testing.assert_array_equal(board.models[sid].results.summaries[task], summary)
            for kind in ("doc_ids", "gold"):
                expected = getattr(model.references[task], kind)
                got = getattr(board.models[sid].references[task], kind)
                assert (got is None) == (expected is None) and (expected is None or np.array_equal(got, expected))
    pd.testing.assert_frame_equal(board.ranked(), small_store.ranked())


def test_a_store_copied_with_cp_r_keeps_its_cache(small_store, tmp_path, monkeypatch):
    """cp -r gives every file a new time: the cache is matched by content instead, once."""
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(small_store.store.root), str(copy)], check=True)
    parsed = []
    real_parse = board_state.parse_submission
    monkeypatch.setattr(board_state, "parse_submission", lambda *a, **k: parsed.append(1) or real_parse(*a, **k))
    board = Leaderboard(LocalStore(copy), small_store.benchmark)
    pd.testing.assert_frame_equal(board.ranked(), small_store.ranked())
    assert parsed == []  # no submission file parsed
    stamps_after = {p.name: p.stat().st_mtime_ns for p in (copy / ".cache").glob("*.npz")}
    Leaderboard(LocalStore(copy), small_store.benchmark)
    assert {p.name: p.stat().st_mtime_ns for p in (copy / ".cache").glob("*.npz")} == stamps_after  # hashed once
    edited = sorted((copy / "data").glob("*.json"))[0]
    document = json.loads(edited.read_text())
    document["submission_metadata"]["description"] = "edited by hand"
    edited.write_text(json.dumps(document))
    board = Leaderboard(LocalStore(copy), small_store.benchmark)
    assert parsed == [1] and board.models[edited.stem].metadata["description"] == "edited by hand"


def test_a_load_reads_the_index_not_each_models_cache_file(small_store, small_tasks_file):
    """A board's load reads each model's small part (metadata, aggregates) from the cache
    folder's index, which the first load writes: a fresh process opens none of the
    per-model files, whose arrays are read only when a duel needs them."""
    root = small_store.store.root
    shutil.rmtree(root / ".cache")
    Leaderboard(LocalStore(root), small_store.benchmark)  # caches written again, then indexed by a reader
    saved = {p: p.stat() for p in (root / ".cache").glob("*.npz")}
    for path, st in saved.items():  # unreadable now, at the same size and time
        path.write_bytes(bytes(st.st_size))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    script = ("import json, sys\nfrom leaderboard.board.state import Leaderboard\n"
              "from leaderboard.storage.local import LocalStore\nfrom leaderboard.config.tasks import load_benchmark\n"
              "board = Leaderboard(LocalStore(sys.argv[1]), load_benchmark(sys.argv[2]))\n"
              "print(json.dumps({'titles': board.titles(), 'ranks': board.ranked()['rank'].to_dict(),\n"
              "                  'problems': board.load_problems}))\n")
    loaded = subprocess.run([sys.executable, "-c", script, str(root), str(small_tasks_file)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr
    result = json.loads(loaded.stdout)
    assert result == {"titles": small_store.titles(), "ranks": small_store.ranked()["rank"].to_dict(), "problems": []}
    assert [p.name for p, st in saved.items() if p.read_bytes() != bytes(st.st_size)] == []  # neither read nor rewritten


def test_the_model_index_reads_a_line_as_json_reads_it(tmp_path):
    """The cache folder's index (`model_index`) gives back a model's info as json reads the
    line written: the same floats to the last bit, and an integer beyond 64 bits, which
    orjson reads as a float."""
    floats = [0.1, 1e-05, 5e-324, 1.7976931348623157e308, 0.30000000000000004, -2.5e-17, 1 / 3]
    info = {"version": 2, "stamp": [7, 1_700_000_000_123_456_789, "c0ffee"], "aggregates": {"t": floats},
            "metadata": {"parameters": 2 ** 70 + 1, "model_name": "Žluťoučký kůň \u2028 12345678901234567890"},
            "references": {"t": {"n": 3}}, "summary_shapes": {"t": [3, 2]}}
    written, read = tmp_path / "written", tmp_path / "read"
    written.mkdir()
    read.mkdir()
    model_index.remember_info(written / "m.npz", [1, 2], info)
    shutil.copy(written / model_index.INDEX_FILE, read / model_index.INDEX_FILE)  # read by an index that wrote nothing
    got = model_index.cached_info(read / "m.npz", [1, 2])
    assert got == json.loads(json.dumps(info))
    assert [float.hex(x) for x in got["aggregates"]["t"]] == [float.hex(x) for x in floats]


def index_segments(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".cache" / "index").glob("*.zip"))


def no_duel_file_read(monkeypatch):
    def refused(source):
        raise AssertionError(f"a duel file was read: {source}")
    monkeypatch.setattr(duel_files, "read_table", refused)


def test_a_load_reads_the_duel_rows_from_the_index_a_reader_wrote(small_store, small_documents, monkeypatch):
    """The first load of a store written before the index reads each duel file and indexes
    them; the next loads read the rows from the index alone, the same rows, and a new
    publication's file is read on its own once, then indexed too."""
    root = small_store.store.root
    assert index_segments(root) == []  # fewer files than are worth an index (INDEX_MIN_FILES)
    monkeypatch.setattr(local, "INDEX_MIN_FILES", 1)
    by_file = Leaderboard(LocalStore(root), small_store.benchmark)
    assert len(index_segments(root)) == 1
    with monkeypatch.context() as patched:
        no_duel_file_read(patched)
        indexed = Leaderboard(LocalStore(root), small_store.benchmark)
    pd.testing.assert_frame_equal(duel_frame(indexed), duel_frame(by_file))
    pd.testing.assert_frame_equal(indexed.ranked(), by_file.ranked())
    publish_all(by_file, small_documents[5:7])  # rewrites earlier models' files (their panel rows) too
    Leaderboard(LocalStore(root), small_store.benchmark)
    assert len(index_segments(root)) <= 2  # segments merged as a binary counter
    no_duel_file_read(monkeypatch)
    after = Leaderboard(LocalStore(root), small_store.benchmark)
    pd.testing.assert_frame_equal(duel_frame(after), duel_frame(by_file))


def test_an_index_entry_of_a_file_changed_since_is_not_used(small_store, monkeypatch):
    """A duel file rewritten by hand after it was indexed is read, not its entry; the
    index then holds its new rows. A file in the index's folder that is not a segment is
    ignored and deleted."""
    root = small_store.store.root
    monkeypatch.setattr(local, "INDEX_MIN_FILES", 1)
    Leaderboard(LocalStore(root), small_store.benchmark)
    owner = max((root / DUELS_DIR).glob("*.parquet"), key=lambda p: p.stat().st_size)
    table = pq.read_table(owner)
    pq.write_table(table.slice(0, 2), owner)
    (root / ".cache" / "index" / "00000099-1.zip").write_bytes(b"not a zip")
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    assert len(board.tournament) == len(small_store.tournament) - (table.num_rows - 2)
    assert "00000099-1.zip" not in index_segments(root)
    no_duel_file_read(monkeypatch)
    again = Leaderboard(LocalStore(root), small_store.benchmark)
    pd.testing.assert_frame_equal(duel_frame(again), duel_frame(board))


def test_a_load_from_the_index_keeps_the_p_values_in_the_mapped_segment(small_store, monkeypatch):
    """A local index segment holds its rows in one record batch, so a load takes the
    p-values and deltas as the file's mapped pages (read-only, the page cache's), not a
    copy in the process (at 10,000 models 800 MB); the board is the one of the files."""
    root = small_store.store.root
    monkeypatch.setattr(local, "INDEX_MIN_FILES", 1)
    by_file = Leaderboard(LocalStore(root), small_store.benchmark)
    [segment] = index_segments(root)
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    mapped = [line for line in Path("/proc/self/maps").read_text().splitlines() if line.endswith(segment)]
    [rows] = board.tournament.parts()
    assert mapped and not rows.p_value.flags.writeable and not rows.delta.flags.writeable
    pd.testing.assert_frame_equal(duel_frame(board), duel_frame(by_file))
    pd.testing.assert_frame_equal(board.ranked(), by_file.ranked())


def test_an_index_segment_damaged_inside_its_rows_is_not_used(small_store, monkeypatch):
    """A local index's rows are mapped from its file, not read (`store_index._mapped_member`),
    and checked as a read checks them: a segment with a byte of its rows changed is not
    used: its files are read, and indexed again, and the board is the one of the files."""
    root = small_store.store.root
    monkeypatch.setattr(local, "INDEX_MIN_FILES", 1)
    by_file = Leaderboard(LocalStore(root), small_store.benchmark)
    [segment] = index_segments(root)
    path = root / ".cache" / "index" / segment
    with zipfile.ZipFile(path) as archive:
        [rows] = [info for info in archive.infolist() if info.filename.startswith("duels-")]
    assert rows.compress_type == zipfile.ZIP_STORED  # what is mapped
    data = bytearray(path.read_bytes())
    start = data.index(b"ARROW1", rows.header_offset)  # the member's first bytes
    middle = start + rows.file_size // 2
    data[middle] ^= 0x01
    path.write_bytes(bytes(data))
    read = []
    real_read = duel_files.read_table
    monkeypatch.setattr(duel_files, "read_table", lambda source: read.append(source) or real_read(source))
    board = Leaderboard(LocalStore(root), small_store.benchmark)
    assert read and path.read_bytes() != bytes(data)  # the files read, and indexed again
    pd.testing.assert_frame_equal(duel_frame(board), duel_frame(by_file))
    pd.testing.assert_frame_equal(board.ranked(), by_file.ranked())
    damaged = root / ".cache" / "damaged.zip"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="not an index segment"):
        store_index.read_segment(damaged)


def test_duel_rows_read_from_tables_cut_anywhere_are_the_rows_written():
    """`duel_files.rows_from_tables` gives back the rows of a duel file whose columns come in
    chunks cut at any row (an index's record batches, slices): the verdicts' bits unpacked
    at each chunk's offset, a task the file lacks not fought."""
    rng = np.random.default_rng(5)
    n, tasks, ids = 37, ["a", "b", "c"], [f"m{k}" for k in range(9)]
    written = DuelRows(rng.integers(0, 9, n), rng.integers(0, 9, n), rng.random((n, 3)) < 0.6,
                       rng.random((n, 3)) < 0.3, rng.random((n, 3)), rng.normal(size=(n, 3)), ["v2"] * n)
    table = duel_files.read_table(duel_files.duel_file(written, ids, tasks, {}))
    chunked = pa.concat_tables([table.slice(0, 3), table.slice(3, 11), table.slice(14, 1), table.slice(15)])
    assert chunked["fought"].num_chunks == 4
    index = {sid: k for k, sid in enumerate(ids)}
    rows, unknown = duel_files.rows_from_tables([chunked], [*tasks, "d"], index)
    assert unknown == set()
    for field in ("first", "second", "p_value", "delta"):
        np.testing.assert_array_equal(getattr(rows, field)[:, :3] if field in ("p_value", "delta")
                                      else getattr(rows, field), getattr(written, field))
    for field in ("fought", "significant"):
        np.testing.assert_array_equal(getattr(rows, field), np.column_stack([getattr(written, field), np.zeros(n, bool)]))


@pytest.mark.parametrize("largest", [9, 70_000])  # sorted as 16-bit integers, and beyond them
def test_the_rows_against_a_model_are_those_a_loop_finds_in_row_order(largest):
    """`DuelRows.rows_of_second` and `against` (a panel member's column) give the rows whose
    second model is that one, in row order, as a pass over the rows finds them, whether
    the board's model indices fit in 16 bits or not; a model no row is against has none."""
    rng = np.random.default_rng(7)
    n_rows, n_tasks = 300, 3
    models = np.array([0, 1, 2, 5, largest - 1, largest])
    first, second = rng.choice(models, n_rows), rng.choice(models[:-1], n_rows)  # none is against `largest`
    fought, significant = rng.random((n_rows, n_tasks)) < 0.7, rng.random((n_rows, n_tasks)) < 0.4
    rows = DuelRows(first, second, fought, significant, np.zeros((n_rows, n_tasks)), np.zeros((n_rows, n_tasks)),
                    np.full(n_rows, "r", dtype=object))
    for model in [*models, 3]:
        at = [i for i in range(n_rows) if second[i] == model]
        np.testing.assert_array_equal(rows.rows_of_second(int(model)), at)
        against, won, met = rows.against(int(model))
        np.testing.assert_array_equal(against, first[at])
        np.testing.assert_array_equal(won, (fought & significant)[at])
        np.testing.assert_array_equal(met, fought[at])


def test_reference_layout_opens_unchanged(tmp_path, small_benchmark, small_documents):
    board, root = reference_layout_store(tmp_path, small_benchmark, small_documents[:3])
    assert not (root / DUELS_DIR).exists() and not (root / ".cache").exists()
    reopened = Leaderboard(LocalStore(root), small_benchmark)
    assert set(reopened.models) == set(board.models)
    pd.testing.assert_frame_equal(reopened.ranked(), board.ranked())


def test_migrate_keeps_the_ranking_and_recompute_reports_the_changed_verdicts(tmp_path, small_benchmark,
                                                                             small_documents):
    board, root = reference_layout_store(tmp_path, small_benchmark, small_documents[:4])
    tour = json.loads((root / TOURNAMENT_FILE).read_text())
    a = sorted(tour)[0]
    b = sorted(tour[a])[0]
    original = tour[a][b]["t_em"]["significant"]
    tour[a][b]["t_em"]["significant"] = not original  # as a miscalibrated test might have decided
    (root / TOURNAMENT_FILE).write_text(json.dumps(tour))
    reference = Leaderboard(LocalStore(root), small_benchmark)
    before = reference.ranked()
    assert Administration(reference).migrate() == 3
    assert not (root / TOURNAMENT_FILE).exists()
    migrated = Leaderboard(LocalStore(root), small_benchmark)
    pd.testing.assert_frame_equal(migrated.ranked(), before)
    report = Administration(migrated).rebuild(recompute=True)
    assert report.recomputed_pairs == 6 and report.dueled == 0
    assert report.changed == [("t_em", a, b, not original, original)]
    pd.testing.assert_frame_equal(Leaderboard(LocalStore(root), small_benchmark).ranked(), board.ranked())


def test_the_tasks_files_alpha_decides_every_verdict(tmp_path, small_benchmark, small_documents):
    """A benchmark declaring alpha = 0.2 wins duels at p <= 0.2 (not 0.05) and records it
    in the rules; the same submissions at 0.05 win fewer."""
    loose = dataclasses.replace(small_benchmark, alpha=0.2)
    board = Leaderboard(LocalStore(tmp_path / "loose"), loose)
    publish_all(board, small_documents[:5])
    rows = board.tournament.rows()
    tested = rows.fought & ~np.isnan(rows.p_value)
    assert (rows.significant[tested] == (rows.p_value[tested] <= 0.2)).all()
    assert ((rows.p_value > 0.05) & (rows.p_value <= 0.2) & rows.significant).any()  # wins only alpha 0.2 gives
    assert board.rules_description["alpha"] == 0.2
    strict = Leaderboard(LocalStore(tmp_path / "strict"), small_benchmark)
    publish_all(strict, small_documents[:5])
    assert strict.rules != board.rules
    assert (board.ranked().attrs["duel_wins"]["overall"].sum() > strict.ranked().attrs["duel_wins"]["overall"].sum())


@pytest.mark.parametrize("fought_share", [0.2, 0.97])  # fewer true cells, fewer false cells
def test_duels_are_counted_per_first_model_and_task_as_a_loop_counts_them(monkeypatch, fought_share):
    """Won and fought per (first model, task) against a loop over the rows, with the rows
    counted in several chunks and a model that is first in no row."""
    from leaderboard.engine import tournament
    monkeypatch.setattr(tournament, "COUNT_ROWS_AT_ONCE", 7)
    rng = np.random.default_rng(5)
    n_models, n_tasks, n_rows = 6, 4, 40
    first = rng.choice([0, 1, 2, 4, 5], n_rows)  # model 3 is never first
    second = (first + 1 + rng.integers(0, n_models - 1, n_rows)) % n_models
    fought = rng.random((n_rows, n_tasks)) < fought_share
    significant = rng.random((n_rows, n_tasks)) < 0.5
    board = Tournament([f"t{k}" for k in range(n_tasks)], [f"m{k}" for k in range(n_models)],
                       tournament.DuelRows(first, second, fought, significant, np.zeros((n_rows, n_tasks)),
                                           np.zeros((n_rows, n_tasks)), np.full(n_rows, "r", dtype=object)))
    won, met = np.zeros((n_models, n_tasks), int), np.zeros((n_models, n_tasks), int)
    for i in range(n_rows):
        for t in range(n_tasks):
            met[first[i], t] += fought[i, t]
            won[first[i], t] += fought[i, t] and significant[i, t]
    np.testing.assert_array_equal(board._fought, met)
    np.testing.assert_array_equal(board._won, won)
    assert not met[3].any()


# --- reading the opponents' summaries (SummaryRows) ----------------------------------------

class _Recorded(dict):
    """A model's summaries (task -> (1, n) array) that note when they are read, and can
    stand for a Hub replica's arrays, fetched (downloaded) before they are read."""

    def __init__(self, arrays, on_read=None, on_fetch=None):
        super().__init__(arrays)
        self.on_read, self.on_fetch = on_read, on_fetch

    def __getitem__(self, task):
        if self.on_read is not None:
            self.on_read()
        return super().__getitem__(task)

    def fetch(self):
        if self.on_fetch is not None:
            self.on_fetch()


def _models_of(n_models, lengths, **hooks):
    rng = np.random.default_rng(5)
    return {f"m{k}": ModelResults({}, _Recorded({f"t{i}": rng.random((1, n)) for i, n in enumerate(lengths)},
                                                **{h: (lambda f=f, k=k: f(k)) for h, f in hooks.items()}))
            for k in range(n_models)}


def test_the_next_group_of_summaries_is_read_while_the_caller_works_on_this_one():
    import threading
    lengths, n_models = [3, 5], 7
    next_group_read = threading.Event()
    matrix = SummaryRows(["t0", "t1"], lengths, n_models, bytes_at_once=4 * 8 * 8)  # a few rows a group
    results = _models_of(n_models, lengths, on_read=lambda k: k == matrix.group_size and next_group_read.set())
    ids = list(results)
    starts = []
    for start, rows in matrix.groups(results, ids):
        starts.append(start)
        if start == 0:  # without a read ahead, the next group would wait for the caller's next()
            assert next_group_read.wait(timeout=30), "the next group was not read while this one was worked on"
        expected = [np.concatenate([results[m].summaries[t].ravel() for t in ("t0", "t1")])
                    for m in ids[start:start + matrix.group_size]]
        np.testing.assert_array_equal(rows, expected)  # the group read ahead went into the other matrix
    assert len(starts) >= 3


def test_several_models_summaries_are_fetched_at_once():
    """A Hub replica downloads each model's arrays when a duel first needs them: several at
    once, not one after the other."""
    import threading
    together = threading.Barrier(3, timeout=30)
    fetched = []
    results = _models_of(6, [4], on_fetch=lambda k: (fetched.append(k), together.wait()))
    matrix = SummaryRows(["t0"], [4], 6)
    assert [start for start, _ in matrix.groups(results, list(results))] == [0]
    assert sorted(fetched) == list(range(6))


def test_a_file_read_before_the_board_changed_its_references_is_read_again(tmp_path, small_benchmark,
                                                                            small_documents):
    """The app reads an upload as it arrives (`Publishing.read`); its pre-submission uses that
    reading only while the board's references are the ones it was checked against."""
    from leaderboard.errors import BadInput
    board = Leaderboard(LocalStore(tmp_path / "store"), small_benchmark)
    form, document, _ = small_documents[1]
    task = small_benchmark.tasks[0].id
    shorter = {**document, "predictions": {**document["predictions"], task: document["predictions"][task][:-1]}}
    early = Publishing(board).read(dump_json(shorter))
    assert early.parsed is not None and not early.problems  # nothing published yet: nothing to match
    publish_all(board, small_documents[:1])
    with pytest.raises(BadInput, match=f"task {task}: has {len(shorter['predictions'][task])} samples"):
        Publishing(board).presubmit(early, form)
    current = Publishing(board).read(dump_json(document))
    read_ahead, read_now = Publishing(board).presubmit(current, form), Publishing(board).presubmit(dump_json(document), form)
    assert read_ahead.submission_id == read_now.submission_id and read_ahead.rank == read_now.rank
    pd.testing.assert_series_equal(read_ahead.table["rank"], read_now.table["rank"])
