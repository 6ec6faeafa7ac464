"""The public read API of a real started app, through gradio_client as an API caller uses
it: exactly the documented read-only endpoints are listed, each answers, bad arguments
get their message, and no endpoint that changes state can be called."""
from __future__ import annotations

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import content
from conftest import tree_digest
from leaderboard.board import Leaderboard
from leaderboard.store import LocalStore
from test_e2e import serve

PUBLIC = {"/leaderboard_table", "/model_details"}
REASON, EVIDENCE = "test set in the training data", "https://example.com/report"


@pytest.fixture(scope="module")
def flagged_server(tmp_path_factory, full_store_template):
    """The app on a 5-model store whose second model is flagged while it runs (as the
    command line does it): (url, store, flagged id, its title)."""
    with serve(tmp_path_factory, full_store_template) as (url, store, _, _):
        board = Leaderboard(LocalStore(store))
        flagged = board.ranked().index[1]
        board.flag(flagged, REASON, EVIDENCE)
        yield url, store, flagged, board.models[flagged].title


@pytest.fixture(scope="module")
def served(flagged_server):
    """(client, store, flagged id)"""
    url, store, flagged, _ = flagged_server
    return Client(url, verbose=False), store, flagged


def test_only_the_read_endpoints_are_public(served):
    client, store, _ = served
    api = client.view_api(return_format="dict", print_info=False)
    assert set(api["named_endpoints"]) == PUBLIC
    assert api["unnamed_endpoints"] == {}
    for name, endpoint in api["named_endpoints"].items():  # the About tab documents each and its parameters
        assert f"`{name}`" in content.ABOUT
        assert all(f"`{p['parameter_name']}`" in content.ABOUT for p in endpoint["parameters"]), endpoint
    before = tree_digest(store)
    for hidden in ("/presubmit", "/publish", "/cancel", "/board_view", "/restore_view", "/render_model"):
        with pytest.raises(ValueError, match="Cannot find a function"):
            client.predict(api_name=hidden)
    for index, endpoint in client.endpoints.items():  # by number too: every other one is refused
        if endpoint.api_name not in PUBLIC:
            with pytest.raises(ValueError, match="Invalid function index"):
                client.predict(fn_index=index)
    assert tree_digest(store) == before


def test_the_table_endpoint_marks_and_can_exclude_flagged_models(served):
    client, _, flagged = served
    rows = client.predict(api_name="/leaderboard_table")
    assert len(rows) == 5 and [r["Rank"] for r in rows] == sorted(r["Rank"] for r in rows)
    marked = [r for r in rows if r["Flagged"]]
    assert [r["submission_id"] for r in marked] == [flagged]
    assert marked[0]["Flag reason"] == REASON
    without = client.predict("Overall", "win_score", True, api_name="/leaderboard_table")
    assert len(without) == 4 and flagged not in {r["submission_id"] for r in without}
    assert [r["Rank"] for r in without] == [1, 2, 3, 4]
    ner = client.predict(category="NER", values="metric", api_name="/leaderboard_table")
    assert "NER rank" in ner[0] and "Overall rank" in ner[0]
    with pytest.raises(AppError, match="unknown category 'Nonsense'; choose Overall or one of"):
        client.predict(category="Nonsense", api_name="/leaderboard_table")
    with pytest.raises(AppError, match="unknown values 'raw'"):
        client.predict(values="raw", api_name="/leaderboard_table")


def test_the_model_endpoint_gives_scores_flag_and_duels(served):
    client, _, flagged = served
    model = client.predict(flagged, "NER", api_name="/model_details")
    assert model["submission_id"] == flagged and model["rank"] == 2 and model["models"] == 5
    assert model["flag"]["reason"] == REASON and model["flag"]["link"] == EVIDENCE
    assert len(model["categories"]) == 9 and len(model["tasks"]) == len(model["metric_values"]) == 50
    assert 0 <= model["overall"] <= 100
    assert {d["Category"] for d in model["duels"]} == {"NER"}
    assert len(model["duels"]) == 4 * len({d["task_id"] for d in model["duels"]})  # 4 competitors
    assert {"competitor_id", "Result", "p (this model better)", "p (competitor better)", "Δ"} <= set(model["duels"][0])
    other = client.predict(submission_id=model["duels"][0]["competitor_id"], api_name="/model_details")
    assert other["flag"] is None and len(other["duels"]) == 4 * 50
    with pytest.raises(AppError, match="no published model 'nobody'"):
        client.predict("nobody", api_name="/model_details")
