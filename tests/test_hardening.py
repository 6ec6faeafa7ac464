"""A public leaderboard under attack or clumsy use: hostile metadata, look-alike names,
killed processes mid-write, simultaneous duplicate publications, spreadsheet and
terminal injection, an unreachable Hub, a board of one model."""
from __future__ import annotations

from support.cli import cli
from support.stores import publish_all, tree_digest

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import stats
from leaderboard.board.administration import Administration
from leaderboard.board.state import Leaderboard
from leaderboard.cli import main
from leaderboard.submission.demo import demo_model
from leaderboard.storage.local import JOURNAL_FILE, LocalStore
from leaderboard.storage.store import DUELS_DIR, SNAPSHOT_FILE
from leaderboard.storage.snapshot import SnapshotBoard
from leaderboard.strict_json import dump_json
from leaderboard.submission.bounds import MAX_LINK_LENGTH

ROOT = Path(__file__).resolve().parent.parent
FORM = {"--team": "Tester", "--model": "Hostile-1", "--type": "chat", "--params": "7", "--input-length": "4096",
        "--precision": "bfloat16", "--link": "https://example.com/m", "--description": ""}


def form_args(**changes) -> list[str]:
    form = {**FORM, **{f"--{k.replace('_', '-')}": v for k, v in changes.items()}}
    return [x for kv in form.items() for x in kv]


HOSTILE_METADATA = [
    ({"team": ""}, "Team name: required"),
    ({"team": " \t "}, "Team name: required"),
    ({"team": "\u200b\u200b"}, "Team name: invisible or text-direction characters are not allowed (U+200B ZERO WIDTH SPACE)"),
    ({"model": "Model\u202eevil"}, "Model name: invisible or text-direction characters are not allowed (U+202E RIGHT-TO-LEFT OVERRIDE)"),
    ({"model": "Mo\u200ddel"}, "Model name: invisible or text-direction characters are not allowed (U+200D ZERO WIDTH JOINER)"),
    ({"team": "red\x1b[31mteam"}, "Team name: invisible or text-direction characters are not allowed (U+001B"),
    ({"team": "\u3164"}, "Team name: invisible or text-direction characters are not allowed (U+3164 HANGUL FILLER)"),
    ({"model": "\u3164\u3164"}, "Model name: invisible or text-direction characters are not allowed (U+3164 HANGUL FILLER)"),
    ({"model": "\u2800"}, "Model name: needs a letter or digit (got only U+2800 BRAILLE PATTERN BLANK)"),
    ({"team": "\u2800 \u2800"}, "Team name: needs a letter or digit (got only U+2800 BRAILLE PATTERN BLANK)"),
    ({"team": "x" * 101}, "Team name: at most 100 characters, got 101"),
    ({"model": "m" * 5000}, "Model name: at most 100 characters, got 5000"),
    ({"type": "instruct"}, "Model type: choose one of chat, pretrained, ensemble"),
    ({"params": "0"}, "Parameters: a number of billions greater than 0 and at most 100,000, got 0"),
    ({"params": ""}, "Parameters: required, a number of billions greater than 0"),
    ({"params": "-7"}, "Parameters: a number of billions greater than 0"),
    ({"params": "nan"}, "Parameters: a number of billions greater than 0"),
    ({"params": "inf"}, "Parameters: a number of billions greater than 0"),
    ({"params": "1e30"}, "Parameters: a number of billions greater than 0 and at most 100,000, got 1e30"),
    ({"params": "seven"}, "Parameters: a number of billions greater than 0"),
    ({"input_length": "1e30"}, "Input length: a whole number of tokens from 1 to 100,000,000, got 1e30"),
    ({"input_length": "12.5"}, "Input length: a whole number of tokens from 1 to 100,000,000, got 12.5"),
    ({"input_length": "0"}, "Input length: a whole number of tokens from 1 to 100,000,000, got 0"),
    ({"input_length": "9" * 50}, "Input length: a whole number of tokens from 1 to 100,000,000"),
    ({"precision": "bfloat32"}, "Precision: choose one of float32, float16, bfloat16, 8bit, 4bit"),
    ({"link": "javascript:alert(1)"}, "Link to model: an http:// or https:// address"),
    ({"link": "ftp://example.com/m"}, "Link to model: an http:// or https:// address"),
    ({"link": "https://"}, "Link to model: an http:// or https:// address"),
    ({"link": "http://[::1"}, "Link to model: an http:// or https:// address"),
    ({"link": "https://example.com/a b"}, "Link to model: an http:// or https:// address"),
    ({"link": "https://example.com/" + "a" * 5_000_000}, f"Link to model: at most {MAX_LINK_LENGTH} characters, got 5,000,020"),
    ({"description": "d" * 5_000_000}, "Description: at most 2000 characters, got 5,000,000"),
]


@pytest.mark.parametrize("changes, expected", HOSTILE_METADATA, ids=[str(i) for i in range(len(HOSTILE_METADATA))])
def test_hostile_metadata_is_refused_by_field(changes, expected, new_model_file, full_store, capsys):
    before = tree_digest(full_store)
    assert main(["publish", str(new_model_file), "--store", str(full_store), *form_args(**changes)]) == 2
    err = capsys.readouterr().err
    assert expected in err, err
    assert all(len(line) < 600 for line in err.splitlines())
    assert "\x1b" not in err  # escape sequences are shown, not obeyed
    assert tree_digest(full_store) == before


CYRILLIC = dict(zip("aceopxyABCEHKMOPTX", "асеорхуАВСЕНКМОРТХ"))
GREEK = dict(zip("oABEHIKMNOTXZ", "οΑΒΕΗΙΚΜΝΟΤΧΖ"))


def look_alike(title: str, letters: dict[str, str]) -> str:
    """title with its first letter that has a look-alike in `letters` replaced by it."""
    i = next(i for i, c in enumerate(title) if c in letters)
    return title[:i] + letters[title[i]] + title[i + 1:]


def published_title(store: Path) -> str:
    return next(iter(LocalStore(store).read_titles().values()))


@pytest.mark.parametrize("disguise", [
    str.upper,                                                    # case
    lambda t: t.replace("/", " /", 0).replace(t[0], chr(0xFF21 + ord(t[0].upper()) - ord("A")), 1),  # full-width letter
    lambda t: t.replace(t.split("/")[1], "  " + t.split("/")[1] + "  "),  # spaces collapse
    lambda t: look_alike(t, CYRILLIC),
    lambda t: look_alike(t, GREEK),
], ids=["case", "full-width", "spaces", "Cyrillic", "Greek"])
def test_a_look_alike_of_a_published_title_is_refused(disguise, new_model_file, full_store, capsys):
    team, model = disguise(published_title(full_store)).split("/", 1)
    before = tree_digest(full_store)
    assert main(["publish", str(new_model_file), "--store", str(full_store), *form_args(team=team, model=model)]) == 2
    assert "is already published" in capsys.readouterr().err
    assert tree_digest(full_store) == before


def test_names_are_stored_nfkc_normalized(new_model_file, full_store, capsys):
    assert main(["publish", str(new_model_file), "--store", str(full_store),
                 *form_args(team="\uff34\uff45\uff41\uff4d", model="ﬁne-model")]) == 0  # full-width "Team", the fi ligature
    assert "Team/fine-model" in LocalStore(full_store).read_titles().values()


# --- the duel engine refuses what validation should have stopped -------------------------

def test_the_duel_engine_refuses_non_finite_inputs():
    metric = stats.METRICS["word_perplexity"]
    good = np.array([[1.0, 2.0, 3.0]])
    for a_agg, a_sum in ((np.nan, good), (5.0, np.array([[1.0, np.inf, 3.0]]))):
        with pytest.raises(ValueError, match="not finite"):
            stats.duel(metric, a_agg, a_sum, np.array([4.0]), good)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.5, -2.0, 3e38, -3e38, 1e308, np.nan, np.inf, -np.inf]),
                         min_size=3, max_size=3), min_size=1, max_size=5), st.sampled_from([np.float32, np.float64]))
def test_all_finite_says_which_rows_hold_only_finite_values(rows, dtype):
    """`stats.all_finite` (what a group of opponents is refused on) against a loop over the
    values, rows whose sums overflow or whose infinities cancel included."""
    with np.errstate(over="ignore"):
        values = np.array(rows, dtype=dtype)
    expected = [all(math.isfinite(v) for v in row) for row in values.tolist()]
    assert stats.all_finite(values).tolist() == expected


def test_stored_json_is_strict():
    with pytest.raises(ValueError):
        dump_json({"p_value": float("nan")})


# --- crashes mid-write -------------------------------------------------------------------

KILL_CHILD = textwrap.dedent("""
    # Publish or remove, and SIGKILL itself right after the K-th durable step of the write
    # (an fsync or a rename; K < 0: never). Each step is printed first, so the parent
    # knows whether the journal's rename, the commit point, happened before the kill.
    import json, os, signal, sys
    from leaderboard.board.administration import Administration
    from leaderboard.board.publishing import Publishing
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    from leaderboard.config.tasks import load_benchmark
    root, tasks, action, argument, kill_after = sys.argv[1:6]
    board = Leaderboard(LocalStore(root), load_benchmark(tasks))
    if action == "publish":
        form, document = json.loads(open(argument).read())
        preview = Publishing(board).presubmit(json.dumps(document).encode(), form)
    steps = 0

    def step(call, kind):
        def stepped(*args):
            global steps
            result = call(*args)
            steps += 1
            print(kind, os.path.basename(str(args[-1])) if kind == "rename" else "", flush=True)
            if steps == int(kill_after):
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        return stepped

    os.fsync, os.replace = step(os.fsync, "fsync"), step(os.replace, "rename")
    if action == "publish":
        Publishing(board).publish(preview)
    else:
        Administration(board).remove(argument, "kill test")
    print("done", flush=True)
""")

# One process per KILL_CHILD run, forked from a process that has made a publication's
# imports already (a fresh interpreter spends 0.9 s of CPU on them, the run itself 0.15 s):
# each line of its input names the child's output file and its arguments; it answers with
# the child's exit code as subprocess reports it (-9 for SIGKILL).
FORKER = textwrap.dedent("""
    import json, os, sys, traceback
    import pyarrow.pandas_compat, scipy.special  # what a publication imports when it first needs it
    from leaderboard.board.state import Leaderboard
    from leaderboard.storage.local import LocalStore
    from leaderboard.config.tasks import load_benchmark
    child = sys.argv[1]
    for line in sys.stdin:
        output, arguments = json.loads(line)
        pid = os.fork()
        if pid == 0:
            with open(output, "wb") as out, open(output + ".err", "wb") as err:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
            sys.argv = ["-c", *arguments]
            try:
                exec(child, {"__name__": "__main__"})
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
            sys.stdout.flush()
            os._exit(0)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
""")


class Forker:
    """The FORKER process: `run(arguments, output)` runs KILL_CHILD with those arguments in
    a child of its own and returns (exit code, what it printed, its error output)."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-c", FORKER, KILL_CHILD], cwd=ROOT, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, arguments: list[str], output: Path) -> tuple[int, str, str]:
        self.process.stdin.write(json.dumps([str(output), arguments]) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the forker exited"
        return int(answer), output.read_text(), Path(f"{output}.err").read_text()

    def close(self):
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0


def _store_invariants(root: Path, benchmark) -> Leaderboard:
    """The store as a fresh process sees it, after its recovery: titles and duels describe
    exactly the published models, and so does the snapshot unless readers find it not
    current (a publication's commit leaves it); nothing is left half-written."""
    board = Leaderboard(LocalStore(root), benchmark)
    published = set(LocalStore(root).submission_ids())
    assert set(board.models) == published
    assert set(LocalStore(root).read_titles()) == published
    if (root / SNAPSHOT_FILE).exists() and set(pd.read_parquet(root / SNAPSHOT_FILE)["submission_id"]) != published:
        assert SnapshotBoard.of_store(LocalStore(root), benchmark) is None
    assert {p.stem for p in (root / DUELS_DIR).glob("*.parquet")} <= published
    assert board.orphan_duels == set()
    assert Administration(board).check() == []
    assert not (root / JOURNAL_FILE).exists()
    assert not [p for p in root.rglob("*.tmp")]
    return board


def test_kills_at_every_step_of_publish_and_remove_land_whole_or_not_at_all(tmp_path, small_benchmark,
                                                                          small_tasks_file, small_documents):
    """SIGKILL after each durable step (fsync or rename) of a publication or removal in
    turn, LEADERBOARD_KILLS times (30 by default), each on a copy of one 4-model store so
    that every run takes the same steps: killed before the journal's rename the store is
    unchanged, killed after it the change lands whole; both happen."""
    base = tmp_path / "base"
    publish_all(Leaderboard(LocalStore(base), small_benchmark), small_documents[:4])
    published = sorted(LocalStore(base).submission_ids())
    kills = int(os.environ.get("LEADERBOARD_KILLS", "30"))
    outcomes = {"publish": {"landed whole": 0, "not at all": 0}, "remove": {"landed whole": 0, "not at all": 0}}

    def run(action: str, k: int, kill_after: int) -> tuple[list[str], bool]:
        root = tmp_path / f"store{k}"
        shutil.copytree(base, root)
        if action == "publish":
            form, document, _ = demo_model(small_benchmark, 100 + k, 0)
            argument = tmp_path / f"model{k}.json"
            argument.write_text(json.dumps([form, document]))
        else:
            argument = published[k % len(published)]
        returncode, stdout, stderr = forker.run([str(root), str(small_tasks_file), action, str(argument),
                                                 str(kill_after)], tmp_path / f"output{k}")
        lines = stdout.split("\n")[:-1]
        assert (returncode == -signal.SIGKILL) == (lines[-1] != "done"), stderr[-2000:]
        after = set(_store_invariants(root, small_benchmark).models)
        changed = len(set(published) ^ after) == 1
        assert changed or after == set(published)
        shutil.rmtree(root)
        return lines, changed

    forker = Forker()
    steps = {}  # action -> its durable steps, from an unkilled run
    for action in outcomes:
        lines, changed = run(action, -1, -1)
        assert changed and lines[-1] == "done"
        steps[action] = len(lines) - 1
    counts = {"publish": kills - kills // 3, "remove": kills // 3}
    for k in range(kills):
        action = "remove" if k % 3 == 2 else "publish"
        nth = k // 3 if action == "remove" else k - k // 3
        kill_after = 1 + nth * steps[action] // counts[action]  # spread over every step, first to last
        lines, changed = run(action, k, kill_after)
        assert lines[-1] != "done" and len(lines) == kill_after  # killed right after that step
        committed = f"rename {JOURNAL_FILE}" in lines
        assert changed == committed, (action, kill_after, lines)
        outcomes[action]["landed whole" if changed else "not at all"] += 1
    forker.close()
    print(f"kills: {kills}; {outcomes}; durable steps: {steps}")
    assert all(count > 0 for outcome in outcomes.values() for count in outcome.values()), outcomes


# --- simultaneous duplicates --------------------------------------------------------------

def publish_at_once(store: Path, publications: list[tuple[Path, list[str]]]) -> str:
    """Start one `publish` process per (file, form arguments) at the same moment; assert
    that exactly one succeeds and return the refused one's error output."""
    runs = [subprocess.Popen([sys.executable, "-m", "leaderboard", "publish", str(path), "--store", str(store), *form],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for path, form in publications]
    results = [(r.wait(timeout=300), r.stderr.read()) for r in runs]
    assert sorted(code for code, _ in results) == [0, 2], results
    return next(err for code, err in results if code == 2)


def test_the_same_predictions_published_at_once_under_two_names_land_once(new_model_file, full_store):
    """Two processes publish one file under two team names at the same moment: the
    duplicate check runs under the publication lock, so exactly one lands."""
    before = set(LocalStore(full_store).submission_ids())
    refused = publish_at_once(full_store, [(new_model_file, form_args(team=f"Team {k}")) for k in range(2)])
    assert "these predictions are already published as Team" in refused
    assert len(set(LocalStore(full_store).submission_ids()) - before) == 1


def test_one_title_published_at_once_with_two_files_lands_once(tmp_path, full_benchmark, full_store):
    paths = []
    for k in range(2):
        _, document, _ = demo_model(full_benchmark, 20 + k, seed=0)
        paths.append(tmp_path / f"m{k}.json")
        paths[-1].write_bytes(dump_json(document))
    refused = publish_at_once(full_store, [(p, form_args(team="Same", model="Name")) for p in paths])
    assert "Same/Name is already published" in refused


# --- what the command line prints -----------------------------------------------------------

def _plant_title(store: Path, team: str) -> str:
    """Give a stored submission a hostile team name, as an old or hand-edited file could."""
    path = sorted((store / "data").glob("*.json"))[0]
    document = json.loads(path.read_text())
    document["submission_metadata"]["team_name"] = team
    path.write_bytes(dump_json(document))
    return path.stem


def test_csv_neutralises_formulas_and_text_does_not_obey_escapes(full_store):
    _plant_title(full_store, '=HYPERLINK("http://evil","x")')
    csv = cli("table", "--store", full_store, "--format", "csv")
    assert csv.returncode == 0, csv.stderr
    assert "'=HYPERLINK" in csv.stdout and ",=HYPERLINK" not in csv.stdout
    _plant_title(full_store, "bad\x1b[2J\x1b]0;owned\x07team")
    text = cli("table", "--store", full_store)
    assert text.returncode == 0 and "\x1b" not in text.stdout and "\\x1b[2J" in text.stdout


def test_an_id_starting_with_a_dash_can_be_removed(new_model_file, full_store):
    assert main(["publish", str(new_model_file), "--store", str(full_store), *form_args(team="-dash team")]) == 0
    sid = next(s for s in LocalStore(full_store).submission_ids() if s.startswith("-"))
    removed = cli("remove", sid, "--reason", "test", "--store", full_store)
    assert removed.returncode == 0, removed.stderr
    assert sid not in LocalStore(full_store).submission_ids()


def test_an_unreachable_hub_is_not_called_a_missing_store(tmp_path):
    env = {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "leaderboard", "table", "--repo", "owner/board"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 1  # a store failure, not bad input
    assert "cannot reach http://127.0.0.1:9" in result.stderr and "no leaderboard store" not in result.stderr


def test_a_board_of_one_model_shows_no_nan(tmp_path, new_model_file):
    store = tmp_path / "store"
    published = cli("publish", new_model_file, "--store", store, *form_args())
    assert published.returncode == 0, published.stderr
    assert "no duels yet" in published.stdout and "nan" not in published.stdout.lower()
    table = cli("table", "--store", store)
    assert table.returncode == 0 and "nan" not in table.stdout.lower() and "–" in table.stdout
    as_json = cli("table", "--store", store, "--format", "json")
    row = json.loads(as_json.stdout)[0]
    assert row["Overall score %"] is None
