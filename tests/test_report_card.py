"""The report card's per-model table as the About tab shows it: the models found by name, at
most a bounded number (each visitor's table stays in the server's memory with the session),
against the card's full table filtered by a loop."""
import hashlib
import json
import threading
from pathlib import Path

import pandas as pd

from leaderboard.views import report_card


def test_the_shown_rows_are_the_first_found_in_rank_order_and_no_more(small_store):
    small_store.certainty()  # computed (the page shows None until it is)
    every = report_card.model_rows(small_store)
    limit = len(every) // 2
    pd.testing.assert_frame_equal(report_card.shown_model_rows(small_store, "", limit), every.head(limit))
    team = every["Model"].iloc[-1].split("/")[0]
    for search in (team.upper(), f"  {team} ", every["Model"].iloc[-1][-4:], "no such model"):
        found = [row for _, row in every.iterrows() if search.strip().lower() in row["Model"].lower()][:limit]
        expected = pd.DataFrame(found, columns=every.columns).reset_index(drop=True)
        # the values; an empty frame's text columns come out of numpy as object, the card's as str
        pd.testing.assert_frame_equal(report_card.shown_model_rows(small_store, search, limit), expected,
                                      check_dtype=False)
    assert len(report_card.shown_model_rows(small_store)) == min(len(every), report_card.SHOWN_MODEL_ROWS)


def test_the_card_downloaded_names_the_hash_of_the_matrix_downloaded_beside_it(small_store):
    small_store.certainty()
    files = report_card.exports(small_store)
    card = json.loads(Path(files["card"]).read_text())
    assert card["matrix_sha256"] == hashlib.sha256(Path(files["matrix"]).read_bytes()).hexdigest()
    assert card["matrix_file"] == Path(files["matrix"]).name


def test_the_discordance_is_computed_once_per_board_version_however_many_ask_at_once(small_store, monkeypatch):
    """A warming thread and a visitor's open at the same time: the visitor waits for the
    thread's computation and reads it; a new board version computes it again."""
    computed, started, go_on = [], threading.Event(), threading.Event()
    compute = report_card._compute_task_rows

    def counted(board, ranked):
        computed.append(ranked)
        started.set()
        assert go_on.wait(timeout=30)
        compute(board, ranked)
    monkeypatch.setattr(report_card, "_compute_task_rows", counted)
    warming = report_card.warm_task_rows(small_store)
    assert started.wait(timeout=30)
    opened: list = []
    visitor = threading.Thread(target=lambda: opened.append(report_card.task_rows(small_store)))
    visitor.start()
    go_on.set()
    warming.join(timeout=30)
    visitor.join(timeout=30)
    assert len(computed) == 1 and computed[0] is small_store.ranked()
    assert opened[0] is report_card.task_rows(small_store) and len(computed) == 1
    assert set(opened[0]["task"]) == {t.id for t in small_store.benchmark.tasks if t.metric.sample_kind == "binary"}
    monkeypatch.setattr(report_card, "_last_task_rows", (None, None))  # as a publication's new ranking leaves it
    report_card.task_rows(small_store)
    assert len(computed) == 2


def test_a_failed_warming_is_logged_and_the_next_open_computes(small_store, monkeypatch, caplog):
    def failing(board, ranked):
        raise OSError("an arrays file went missing")
    monkeypatch.setattr(report_card, "_compute_task_rows", failing)
    monkeypatch.setattr(report_card, "_last_task_rows", (None, None))
    report_card.warm_task_rows(small_store).join(timeout=30)
    assert "computing the report card's discordance failed: an arrays file went missing" in caplog.text
    monkeypatch.undo()
    assert len(report_card.task_rows(small_store)) > 0
