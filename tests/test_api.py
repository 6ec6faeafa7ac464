"""The public read API of a real started app, through gradio_client as an API caller uses
it: exactly the documented read-only endpoints are listed, each answers, bad arguments
get their message, and no endpoint that changes state can be called."""
from __future__ import annotations

import os
import shutil

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import content
from conftest import tree_digest
from leaderboard.board import Leaderboard
from leaderboard.store import LocalStore
from test_e2e import free_port, start_app

PUBLIC = {"/leaderboard_table", "/model_details"}


@pytest.fixture(scope="module")
def served(tmp_path_factory, full_store_template):
    """The app on a 5-model store whose second model is flagged; (client, store, flagged id)."""
    store = tmp_path_factory.mktemp("api") / "store"
    shutil.copytree(full_store_template, store)
    board = Leaderboard(LocalStore(store))
    flagged = board.ranked().index[1]
    board.flag(flagged, "test set in the training data", "https://example.com/report")
    port = free_port()
    env = {**os.environ, "LEADERBOARD_STORE": str(store), "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    process = start_app(env, tmp_path_factory.mktemp("log") / "app.log")
    try:
        yield Client(f"http://127.0.0.1:{port}/", verbose=False), store, flagged
    finally:
        process.terminate()
        process.wait(timeout=30)


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
    assert marked[0]["Flag reason"] == "test set in the training data"
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
    assert model["flag"]["reason"] == "test set in the training data"
    assert model["flag"]["link"] == "https://example.com/report"
    assert len(model["categories"]) == 9 and len(model["tasks"]) == len(model["metric_values"]) == 50
    assert 0 <= model["overall"] <= 100
    assert {d["Category"] for d in model["duels"]} == {"NER"}
    assert len(model["duels"]) == 4 * len({d["task_id"] for d in model["duels"]})  # 4 competitors
    assert {"competitor_id", "Result", "p (this model better)", "p (competitor better)", "Δ"} <= set(model["duels"][0])
    other = client.predict(submission_id=model["duels"][0]["competitor_id"], api_name="/model_details")
    assert other["flag"] is None and len(other["duels"]) == 4 * 50
    with pytest.raises(AppError, match="no published model 'nobody'"):
        client.predict("nobody", api_name="/model_details")
