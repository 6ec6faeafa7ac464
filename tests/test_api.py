"""The public read API of a real started app, through gradio_client as an API caller uses
it: exactly the documented read-only endpoints are listed, each answers, bad arguments
get their message, and no endpoint that changes state can be called."""
from __future__ import annotations

from support.servers import EVIDENCE, REASON
from support.stores import tree_digest

import hashlib
import os

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import content
from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore
from leaderboard.config.tasks import load_benchmark
from leaderboard.engine import ranking
from leaderboard.views import compare, item_matrix, report_card

PUBLIC = {"/leaderboard_table", "/model_details", "/head_to_head", "/duel_map", "/report_card", "/item_matrix"}


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
    about = content.about(load_benchmark(), "http://127.0.0.1/")
    for name, endpoint in api["named_endpoints"].items():  # the About tab documents each and its parameters
        assert f"`{name}`" in about
        assert all(f"`{p['parameter_name']}`" in about for p in endpoint["parameters"]), endpoint
    before = tree_digest(store)
    for hidden in ("/presubmit", "/publish", "/cancel", "/board_view", "/restore_view", "/render_model", "/render_pair",
                   "/render_map", "/uploaded"):
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
    assert {"competitor_id", "Result", "p one-sided (this model better)", "p one-sided (competitor better)", "Δ"} <= set(model["duels"][0])
    other = client.predict(submission_id=model["duels"][0]["competitor_id"], api_name="/model_details")
    assert other["flag"] is None and len(other["duels"]) == 4 * 50
    with pytest.raises(AppError, match="no published model 'nobody'"):
        client.predict("nobody", api_name="/model_details")


def test_the_table_endpoint_follows_the_p_value_setting(served):
    client, store, _ = served
    raw = {r["submission_id"]: r for r in client.predict(api_name="/leaderboard_table")}
    adjusted = client.predict(adjusted=True, api_name="/leaderboard_table")
    board = Leaderboard(LocalStore(store))
    assert [r["submission_id"] for r in adjusted] == list(board.ranked(adjusted=True).index)
    for row in adjusted:  # adjusted p-values are never below the raw ones: never more wins
        assert row["Overall score %"] <= raw[row["submission_id"]]["Overall score %"] + 1e-9
        assert row["Rank 95% low"] <= row["Rank 95% high"] and row["Tie group"]  # the rank interval is by panel score


def test_the_head_to_head_endpoint_answers_as_the_tab(served):
    client, store, _ = served
    board = Leaderboard(LocalStore(store))
    a, b = board.ranked().index[0], board.ranked().index[3]
    answer = client.predict(a, b, "NER", api_name="/head_to_head")
    expected = compare.head_to_head(board, a, b, "NER")
    assert (answer["model_a"], answer["model_b"], answer["category"], answer["on_demand"]) == (a, b, "NER", False)
    assert [t["task_id"] for t in answer["tasks"]] == list(expected.tasks["task_id"])
    assert [t["Verdict"] for t in answer["tasks"]] == list(expected.tasks["Verdict"])
    for got, want in zip(answer["tasks"], expected.tasks.to_dict("records")):
        for column in ("p one-sided (A better)", "p one-sided (B better)", "p two-sided", "A − B", "A better by"):
            assert got[column] == pytest.approx(want[column], nan_ok=True)
        assert (got["Better"], got["Better when"], got["Δ unit"]) == (want["Better"], want["Better when"],
                                                                      want["Δ unit"])
    assert answer["record"][-1]["Category"] == "Total"
    sign = expected.sign
    assert (answer["ahead"], answer["behind"], answer["sign_leader"]) == (sign.ahead, sign.behind,
                                                                          sign.leader(expected.alpha))
    assert [answer[k] for k in ("sign_p_two_sided", "sign_p_a_ahead", "sign_p_b_ahead")] == pytest.approx(
        [sign.p_two_sided, sign.p_a_ahead, sign.p_b_ahead])
    with pytest.raises(AppError, match="pick two different models"):
        client.predict(a, a, api_name="/head_to_head")
    with pytest.raises(AppError, match="no published model 'nobody'"):
        client.predict(a, "nobody", api_name="/head_to_head")


def test_the_duel_map_endpoint_gives_every_pair_of_the_best_models(served):
    client, store, _ = served
    board = Leaderboard(LocalStore(store))
    task = board.benchmark.task_ids[0]
    answer = client.predict(task, 3, api_name="/duel_map")
    assert answer["model_ids"] == compare.duel_map(board, task, top=3).model_ids and len(answer["model_ids"]) == 3
    cells = {(c["model_id"], c["opponent_id"]): c for c in answer["cells"]}
    assert len(cells) == 9
    for (m, o), cell in cells.items():  # a duel seen from both sides
        mirror = {"won": "lost", "lost": "won"}.get(cell["Verdict"], cell["Verdict"])
        assert cells[(o, m)]["Verdict"] == mirror
        if m != o:
            assert cell["p one-sided (model better)"] == pytest.approx(cells[(o, m)]["p one-sided (opponent better)"], nan_ok=True)
    overall = client.predict(api_name="/duel_map")
    assert len(overall["cells"]) == 25 and overall["scope_name"] == "Overall"
    with pytest.raises(AppError, match="top must be between 1 and 200"):
        client.predict(top=0, api_name="/duel_map")
    with pytest.raises(AppError, match="unknown scope .Poetry."):
        client.predict(scope="Poetry", api_name="/duel_map")


def test_the_report_card_endpoint_gives_who_could_be_first_and_last(served):
    """Per scope the figures of the board's own rank sets, and the hash of the matrix the
    tab offers for download."""
    client, store, _ = served
    board = Leaderboard(LocalStore(store))
    answer = client.predict(api_name="/report_card")
    certainty = board.certainty()[ranking.OVERALL]
    overall = answer["scopes"][0]
    assert overall["scope"] == "Overall" and overall["models"] == len(board.models)
    assert overall["could_be_first"] == int((certainty["set_low"] == 1).sum()) >= 1
    assert overall["could_be_last"] == int((certainty["set_high"] == len(board.models)).sum()) >= 1
    assert [s["scope"] for s in answer["scopes"]] == ["Overall", *board.benchmark.categories]
    assert answer["matrix_sha256"] == hashlib.sha256(report_card.matrix_csv(board)).hexdigest()
    assert answer["matrix_file"] == os.path.basename(report_card.exports(board)["matrix"])  # the file hashed
    assert set(answer["item_matrices"]) == {t.id for t in board.benchmark.tasks if t.metric.item_values}
    assert set(answer["definitions"]) == set(overall) - {"scope"}
    shown = answer["overall_models"]
    assert [m["Rank set (all at once) 95%"] for m in shown] == [
        f"{lo}" if lo == hi else f"{lo}–{hi}" for lo, hi in zip(certainty["set_low"], certainty["set_high"])]


def test_the_item_matrix_endpoint_downloads_a_task_s_models_x_items_file(served):
    """The file a caller downloads is the board's matrix of that task, byte for byte, and
    its folder is named by its SHA-256; a task without a value per item gets the reason."""
    client, store, _ = served
    board = Leaderboard(LocalStore(store))
    task = next(t for t in board.benchmark.tasks if t.metric.item_values)
    path = client.predict(task_id=task.id, api_name="/item_matrix")
    data = open(path, "rb").read()
    assert data == open(item_matrix.item_matrix(board, task.id).path, "rb").read()
    assert data.startswith(b"submission_id,") and data.count(b"\n") == 1 + len(board.models)
    other = next(t for t in board.benchmark.tasks if not t.metric.item_values)
    with pytest.raises(AppError, match=f"task '{other.id}' .* has no models x items matrix"):
        client.predict(task_id=other.id, api_name="/item_matrix")


MEGABYTE = "x" * 1_000_000


def bad_calls(a: str, b: str) -> list[tuple[str, dict, str]]:
    """(endpoint, arguments, the message's start): wrong types, out-of-range numbers and
    over-long text for every parameter of every endpoint."""
    return [
        ("/leaderboard_table", {"category": 5}, "category must be text, not a number (5)"),
        ("/leaderboard_table", {"category": ["x"]}, "category must be text, not a list"),
        ("/leaderboard_table", {"category": None}, "category must be text, not null"),
        ("/leaderboard_table", {"category": MEGABYTE}, "category is 1,000,000 characters long; at most 500"),
        ("/leaderboard_table", {"category": "Nonsense"}, "unknown category 'Nonsense'"),
        ("/leaderboard_table", {"values": 3}, "values must be text, not a number (3)"),
        ("/leaderboard_table", {"values": "raw"}, "unknown values 'raw'"),
        ("/leaderboard_table", {"exclude_flagged": "yes"}, "exclude_flagged must be true or false, not text ('yes')"),
        ("/leaderboard_table", {"exclude_flagged": 1}, "exclude_flagged must be true or false, not a number (1)"),
        ("/leaderboard_table", {"adjusted": None}, "adjusted must be true or false, not null"),
        ("/model_details", {"submission_id": ["x"]}, "submission_id must be text, not a list"),
        ("/model_details", {"submission_id": {"a": 1}}, "submission_id must be text, not an object"),
        ("/model_details", {"submission_id": 5}, "submission_id must be text, not a number (5)"),
        ("/model_details", {"submission_id": MEGABYTE}, "submission_id is 1,000,000 characters long; at most 500"),
        ("/model_details", {"submission_id": "nobody"}, "submission_id: no published model 'nobody'"),
        ("/head_to_head", {"model_a": a, "model_b": "nobody"}, "model_b: no published model 'nobody'"),
        ("/head_to_head", {"model_a": a, "model_b": a}, "model_a and model_b are the same model"),
        ("/model_details", {"submission_id": a, "category": 7}, "category must be text, not a number (7)"),
        ("/model_details", {"submission_id": a, "adjusted": "x"}, "adjusted must be true or false, not text ('x')"),
        ("/head_to_head", {"model_a": None, "model_b": b}, "model_a must be text, not null"),
        ("/head_to_head", {"model_a": a, "model_b": [1]}, "model_b must be text, not a list"),
        ("/head_to_head", {"model_a": a, "model_b": MEGABYTE}, "model_b is 1,000,000 characters long; at most 500"),
        ("/head_to_head", {"model_a": a, "model_b": b, "category": {}}, "category must be text, not an object"),
        ("/head_to_head", {"model_a": a, "model_b": b, "adjusted": 2}, "adjusted must be true or false, not a number (2)"),
        ("/duel_map", {"top": "5"}, "top must be a whole number, not text ('5')"),
        ("/duel_map", {"top": 5.5}, "top must be a whole number, not a number (5.5)"),
        ("/duel_map", {"top": True}, "top must be a whole number, not true or false (True)"),
        ("/duel_map", {"top": None}, "top must be a whole number, not null"),
        ("/duel_map", {"top": 0}, "top must be between 1 and 200, not 0"),
        ("/duel_map", {"top": 10**30}, "top must be between 1 and 200, not 1000000000000000000000000000000"),
        ("/duel_map", {"scope": 3}, "scope must be text, not a number (3)"),
        ("/duel_map", {"scope": MEGABYTE}, "scope is 1,000,000 characters long; at most 500"),
        ("/duel_map", {"scope": "Poetry"}, "unknown scope 'Poetry'; choose Overall, a category"),
        ("/duel_map", {"adjusted": "true"}, "adjusted must be true or false, not text ('true')"),
    ]


def test_every_bad_argument_gets_a_message_naming_the_parameter(served):
    client, store, _ = served
    a, b = [r["submission_id"] for r in client.predict(api_name="/leaderboard_table")[:2]]
    before = tree_digest(store)
    for endpoint, arguments, message in bad_calls(a, b):
        with pytest.raises(AppError) as refused:
            client.predict(**arguments, api_name=endpoint)
        assert str(refused.value).startswith(message), (endpoint, str(arguments)[:80], str(refused.value)[:300])
        assert len(str(refused.value)) < 600  # an over-long argument is not echoed back
    assert tree_digest(store) == before


API_PER_MINUTE = 3


@pytest.fixture(scope="module")
def rate_bounded(tmp_path_factory, full_store_template):
    """The app answering each address at most API_PER_MINUTE read-API requests a minute."""
    from support.servers import serve_in_process
    with serve_in_process(tmp_path_factory, full_store_template, api_per_minute=API_PER_MINUTE) as (url, *_):
        yield url


def test_the_read_api_answers_a_client_within_its_rate_and_one_request_at_a_time(rate_bounded):
    """A flood from one address is refused past its rate, saying when to retry; another
    address is still answered."""
    flooding = Client(rate_bounded, verbose=False, headers={"X-Forwarded-For": "10.0.5.1"})
    for _ in range(API_PER_MINUTE):
        assert flooding.predict(api_name="/leaderboard_table")
    with pytest.raises(AppError, match=r"^Too many read-API requests from your address: 3 in the last minute "
                                       r"\(at most 3\); try again in \d+ seconds$"):
        flooding.predict(api_name="/leaderboard_table")
    assert Client(rate_bounded, verbose=False, headers={"X-Forwarded-For": "10.0.5.2"}).predict(
        api_name="/leaderboard_table")


def test_the_read_endpoints_share_one_request_at_a_time(small_store):
    """Apart from the page's events: a flood of API requests waits in its own line
    (bench/bench_read_flood.py measures a page load during one)."""
    from leaderboard.app.page import build_app
    endpoints = [f for f in build_app(small_store).fns.values() if f"/{f.api_name}" in PUBLIC]
    assert len(endpoints) == len(PUBLIC)
    assert {(f.concurrency_limit, f.concurrency_id) for f in endpoints} == {(1, "read_api")}
