"""The report card's per-model table as the About tab shows it: the models found by name, at
most a bounded number (each visitor's table stays in the server's memory with the session),
against the card's full table filtered by a loop."""
import hashlib
import json
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
