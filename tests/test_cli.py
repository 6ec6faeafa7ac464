"""The command line as a user runs it: real files, exit codes, what it prints. Each command
runs through `main` as `python -m leaderboard` runs it (`support.cli.cli`, in this process);
the tests of the process itself start real ones: exit codes, a cold start's imports, a
terminal, the Hub's address from the environment."""
from __future__ import annotations

from support.cli import cli
from support.stores import tree_digest

import gc
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd


from leaderboard.board.state import Leaderboard
from leaderboard.storage.local import LocalStore

ROOT = Path(__file__).resolve().parent.parent
FORM = ["--team", "CLI Team", "--model", "cli-model", "--type", "chat", "--params", "7", "--input-length",
        "4096", "--precision", "bfloat16", "--link", "https://example.com/cli"]


def process(*args):
    """The command in a fresh `python -m leaderboard` process."""
    return subprocess.run([sys.executable, "-m", "leaderboard", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_validate(new_model_file, full_store, tmp_path):
    """In real processes: the exit codes `python -m leaderboard` ends with."""
    ok = process("validate", new_model_file, "--store", full_store)
    assert ok.returncode == 0 and "valid, 50 tasks" in ok.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"predictions": {}}')
    result = process("validate", bad)
    assert result.returncode == 2
    assert "error: missing tasks (50 of 50)" in result.stderr and "Traceback" not in result.stderr


def test_duel_json_contract(full_store):
    a, b = sorted((full_store / "data").glob("*.json"))[:2]
    result = cli("duel", a, b, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert len(out) == 50
    for entry in out.values():
        assert set(entry) == {"significant", "p_value", "delta"}
        assert isinstance(entry["significant"], bool) and 0 <= entry["p_value"] <= 1
        assert entry["significant"] == (entry["p_value"] <= 0.05)
    same = json.loads(cli("duel", a, a, "--json").stdout)
    assert not any(e["significant"] for e in same.values())  # identical models never win
    text = cli("duel", a, b).stdout.splitlines()  # the text form says what p and delta are
    assert len(text) == 51 and all(" p one-sided=" in line and " A better by=" in line for line in text[:50])


def test_a_presubmit_prints_the_same_whether_its_board_is_frozen_or_not(new_model_file, full_store):
    """`python -m leaderboard` freezes the loaded board out of the garbage collector's sight
    (its process ends with the command) and prints what `main` prints in a process that
    goes on, which freezes nothing (these tests' `cli`)."""
    args = ["presubmit", str(new_model_file), "--store", str(full_store), *FORM]
    frozen = gc.get_freeze_count()
    assert cli(*args).returncode == 0
    assert gc.get_freeze_count() <= frozen  # frozen objects freed since leave it; a board frozen would add thousands
    alone = process(*args)
    going_on = subprocess.run([sys.executable, "-c", "import sys; from leaderboard.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
    assert alone.returncode == going_on.returncode == 0, alone.stderr + going_on.stderr
    assert alone.stdout == going_on.stdout


def test_presubmit_previews_and_writes_nothing_then_publish(new_model_file, full_store):
    before = tree_digest(full_store)
    result = cli("presubmit", new_model_file, "--store", full_store, "--team", "CLI Team", "--model", "cli-model",
                 "--json")
    assert result.returncode == 0, result.stderr
    preview = json.loads(result.stdout)
    assert preview["published"] is False and preview["of"] == 6 and 1 <= preview["rank"] <= 6
    assert len(preview["categories"]) == 9 and len(preview["tasks"]) == 50
    assert tree_digest(full_store) == before

    missing = cli("publish", new_model_file, "--store", full_store, "--team", "CLI Team", "--model", "cli-model")
    assert missing.returncode == 2
    assert "required: --type, --params, --input-length, --precision, --link" in missing.stderr
    published = cli("publish", new_model_file, "--store", full_store, *FORM, "--json")
    assert published.returncode == 0, published.stderr
    sid = json.loads(published.stdout)["submission_id"]
    assert (full_store / "data" / f"{sid}.json").exists()
    stored = json.loads((full_store / "data" / f"{sid}.json").read_text())["submission_metadata"]
    assert stored["team_name"] == "CLI Team" and stored["submission_id"] == sid

    table = json.loads(cli("table", "--store", full_store, "--format", "json").stdout)
    assert len(table) == 6 and "CLI Team/cli-model" in [row["Model"] for row in table]
    assert [row["Rank"] for row in table] == sorted(row["Rank"] for row in table)
    assert cli("publish", new_model_file, "--store", full_store, *FORM).returncode == 2  # already published


def test_table_formats_and_category(full_store):
    csv = cli("table", "--store", full_store, "--category", "NER", "--format", "csv")
    assert csv.returncode == 0
    header = csv.stdout.splitlines()[0].split(",")
    assert header[:12] == ["NER rank", "Model", "NER score %", "NER score % 95% low", "NER score % 95% high",
                           "NER rank 95% low", "NER rank 95% high", "NER tie group", "NER duel wins %",
                           "Overall rank", "CNEC score %", "CCDNER score %"]  # the web app's: ranked by the category
    assert len(csv.stdout.splitlines()) == 6
    raw = pd.read_csv(io.StringIO(csv.stdout), index_col="Model")
    adjusted = cli("table", "--store", full_store, "--category", "NER", "--format", "csv", "--bh-adjusted")
    bh = pd.read_csv(io.StringIO(adjusted.stdout), index_col="Model")
    assert adjusted.returncode == 0 and set(bh.index) == set(raw.index)
    assert (bh["NER score %"] == raw.loc[bh.index, "NER score %"]).all()  # the scores are not the duels'
    assert (bh["NER duel wins %"] <= raw.loc[bh.index, "NER duel wins %"]).all()  # adjusted p >= raw: fewer wins
    bad = cli("table", "--store", full_store, "--category", "Poetry")
    assert bad.returncode == 2 and "unknown category 'Poetry'" in bad.stderr


def test_rebuild_and_demo(tmp_path, full_store):
    shutil.rmtree(full_store / "duels")
    result = cli("rebuild", "--store", full_store)
    assert result.returncode == 0 and "10 missing model pairs dueled" in result.stdout
    demo = cli("demo", "--store", tmp_path / "demo", "--models", "3", "--seed", "5")
    assert demo.returncode == 0 and "3 models" in demo.stdout
    assert len(list((tmp_path / "demo" / "data").glob("*.json"))) == 3
    again = cli("demo", "--store", tmp_path / "demo", "--models", "3")
    assert again.returncode == 2 and "already holds submissions" in again.stderr


def test_missing_store(tmp_path):
    result = process("table", "--store", tmp_path / "nowhere")
    assert result.returncode == 2 and "no leaderboard store at" in result.stderr


def test_check_remove_and_rebuild(full_store):
    ok = cli("check", "--store", full_store)
    assert ok.returncode == 0 and "5 models, no problems" in ok.stdout, ok.stderr
    sid = sorted(p.stem for p in (full_store / "data").glob("*.json"))[0]
    no_reason = cli("remove", sid, "--store", full_store, "--reason", " ")
    assert no_reason.returncode == 2 and "give a reason" in no_reason.stderr
    assert cli("remove", "no-such-model", "--store", full_store, "--reason", "x").returncode == 2
    removed = cli("remove", sid, "--store", full_store, "--reason", "duplicate")
    assert removed.returncode == 0 and "4 models left" in removed.stdout, removed.stderr
    assert not (full_store / "data" / f"{sid}.json").exists()
    assert not (full_store / "duels" / f"{sid}.parquet").exists()
    for path in (full_store / "duels").glob("*.parquet"):
        rows = pd.read_parquet(path)
        assert sid not in set(rows["first"]) | set(rows["second"])
    assert cli("check", "--store", full_store).returncode == 0
    max((full_store / "duels").glob("*.parquet"), key=lambda p: p.stat().st_size).unlink()  # lose some duels
    damaged = cli("check", "--store", full_store)
    assert damaged.returncode == 2 and "missing duels" in damaged.stdout
    assert cli("rebuild", "--store", full_store).returncode == 0
    assert cli("check", "--store", full_store).returncode == 0


def test_export_migrate_and_recompute_keep_the_ranking(tmp_path, full_store):
    table = cli("table", "--store", full_store, "--format", "json").stdout
    ref = tmp_path / "ref"
    exported = cli("export", "--store", full_store, "--reference-layout", "-o", ref)
    assert exported.returncode == 0, exported.stderr
    assert (ref / "tournament.json").exists() and not (ref / "duels").exists()
    assert len(list((ref / "data").glob("*.json"))) == 5
    assert cli("export", "--store", full_store, "--reference-layout", "-o", ref).returncode == 2  # not empty
    assert cli("table", "--store", ref, "--format", "json").stdout == table
    migrated = cli("migrate", "--store", ref)
    assert migrated.returncode == 0 and "4 duel files" in migrated.stdout, migrated.stderr
    assert not (ref / "tournament.json").exists()
    assert cli("table", "--store", ref, "--format", "json").stdout == table
    assert cli("migrate", "--store", ref).returncode == 2  # nothing left to migrate
    rules = set(pd.concat([pd.read_parquet(p) for p in (ref / "duels").glob("*.parquet")])["rules"])
    assert rules == {"unrecorded"}
    recomputed = cli("rebuild", "--store", ref, "--recompute")
    assert recomputed.returncode == 0, recomputed.stderr
    assert "recomputed 10 model pairs" in recomputed.stdout and "0 verdicts changed" in recomputed.stdout
    rules = set(pd.concat([pd.read_parquet(p) for p in (ref / "duels").glob("*.parquet")])["rules"])
    assert len(rules) == 1 and rules != {"unrecorded"}
    assert cli("table", "--store", ref, "--format", "json").stdout == table
    assert cli("check", "--store", ref).returncode == 0


def test_a_missing_hub_repo_is_a_clear_error(tmp_path):
    import os
    env = {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "leaderboard", "check", "--repo", "nobody/nothing"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 1 and "Traceback" not in result.stderr  # the store failed, not the input
    assert "error:" in result.stderr


def test_sample_file_is_accepted_by_its_store(full_store, tmp_path):
    sample = tmp_path / "sample.json"
    made = cli("sample-file", "--store", full_store, "-o", sample)
    assert made.returncode == 0 and "a sample submission for" in made.stdout, made.stderr
    preview = cli("presubmit", sample, "--store", full_store, "--team", "Try", "--model", "sample")
    assert preview.returncode == 0 and "would rank" in preview.stdout, preview.stderr
    header, *rows = preview.stdout.split("\n\n", 1)[1].splitlines()  # a small board is printed whole
    assert header.split()[:3] == ["Rank", "Previous", "rank"] and " of 6, " in preview.stdout
    assert [row.split()[0] for row in rows] == [str(r) for r in range(1, 7)] and "left out" not in preview.stdout


def test_a_large_board_prints_the_top_rows_and_those_around_the_model(capsys):
    """Of a board above 25 rows: the top 10, the 5 either side of the model, a line per
    run of rows left out and their count; `table` is named for the whole board."""
    from leaderboard.cli import _print_excerpt
    board = pd.DataFrame({"Rank": range(1, 101), "Model": [f"team/m{r}" for r in range(1, 101)],
                          "Description": "", "Link": "", "Flagged": False, "Flag link": ""})
    _print_excerpt(board, 49)  # the model ranked 50th
    header, *lines = capsys.readouterr().out.splitlines()
    assert header.split() == ["Rank", "Model"]
    shown = [*range(1, 11), *range(45, 56)]
    assert [line.split() for line in lines] == [
        *([str(r), f"team/m{r}"] for r in range(1, 11)), ["…", "34", "rows"],
        *([str(r), f"team/m{r}"] for r in range(45, 56)), ["…", "45", "rows"],
        f"{100 - len(shown)} of 100 rows left out: `table` prints the whole board".split()]
    _print_excerpt(board, 3)  # near the top: one run of rows
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[0] for line in lines[:10]] == [str(r) for r in range(1, 11)]
    assert lines[10:] == ["  … 90 rows", "90 of 100 rows left out: `table` prints the whole board"]
    _print_excerpt(board.iloc[:25], 24)  # a board of 25 rows is printed whole
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[1] for line in lines] == [f"team/m{r}" for r in range(1, 26)]


SAMPLE_PUBLISH = ["--team", "Try", "--model", "sample", "--type", "chat", "--params", "7", "--input-length", "4096",
                  "--precision", "bfloat16", "--link", "https://example.com/sample"]


def test_the_sample_file_is_never_published(full_store, tmp_path):
    """Published, it would make every visitor's sample a duplicate: pre-submission says it
    is the sample, publication is refused, also with its marker removed."""
    sample = tmp_path / "sample.json"
    assert cli("sample-file", "--store", full_store, "-o", sample).returncode == 0
    document = json.loads(sample.read_text())
    assert "cannot be published" in document["metadata"]["leaderboard_sample_file"]
    preview = cli("presubmit", sample, "--store", full_store, "--team", "Try", "--model", "sample")
    assert preview.returncode == 0 and "would rank" in preview.stdout, preview.stderr
    assert "this is the leaderboard's sample file: it can be pre-submitted, never published" in preview.stderr
    del document["metadata"]["leaderboard_sample_file"]
    unmarked = tmp_path / "unmarked.json"
    unmarked.write_text(json.dumps(document))
    before = tree_digest(full_store)
    for path in (sample, unmarked):
        published = cli("publish", path, "--store", full_store, *SAMPLE_PUBLISH)
        assert published.returncode == 2, published.stderr
        assert ("error: this is the leaderboard's sample file, which cannot be published: published, it would make "
                "every visitor's copy a duplicate") in published.stderr
    assert tree_digest(full_store) == before


def test_flag_unflag_and_the_table_without_flagged_models(full_store):
    board = Leaderboard(LocalStore(full_store))
    top, title = board.ranked().index[0], board.models[board.ranked().index[0]].title
    before = tree_digest(full_store)
    for args, message in (((top, "--reason", " "), "error: Reason: required"),
                          ((top, "--reason", "leaked", "--link", "javascript:alert(1)"),
                           "error: Link: an http:// or https:// address"),
                          (("no-such-model", "--reason", "leaked"), "error: no published model 'no-such-model'")):
        refused = cli("flag", *args, "--store", full_store)
        assert refused.returncode == 2 and message in refused.stderr and "Traceback" not in refused.stderr
    assert cli("unflag", top, "--store", full_store).returncode == 2
    assert tree_digest(full_store) == before
    flagged = cli("flag", top, "--reason", "test set leaked", "--link", "https://example.com/r", "--store", full_store)
    assert flagged.returncode == 0 and "test set leaked" in flagged.stdout, flagged.stderr
    shown = json.loads(cli("table", "--store", full_store, "--format", "json").stdout)
    # under the panel its rank may change: a flagged model leaves the panel, its duels count for no one
    assert [(r["Model"], r["Flag reason"]) for r in shown if r["Flagged"]] == [(title, "test set leaked")]
    assert "test set leaked" in cli("table", "--store", full_store).stdout
    without = json.loads(cli("table", "--store", full_store, "--format", "json", "--exclude-flagged").stdout)
    assert len(without) == 4 and title not in [r["Model"] for r in without]
    assert cli("check", "--store", full_store).returncode == 0
    unflagged = cli("unflag", top, "--reason", "cleared", "--store", full_store)
    assert unflagged.returncode == 0 and "unflagged" in unflagged.stdout, unflagged.stderr
    assert not any(r["Flagged"] for r in json.loads(cli("table", "--store", full_store, "--format", "json").stdout))


# --- argument handling and what the table prints (issue 18, item 17) --------------------------

PUBLICATION_FIELDS = ("--type", "--params", "--input-length", "--precision", "--link")


def test_publish_help_shows_the_fields_publication_needs_as_required():
    usage = " ".join(cli("publish", "--help").stdout.split("\n\n")[0].split())
    for flag in PUBLICATION_FIELDS:
        assert f"{flag} " in usage and f"[{flag} " not in usage, usage  # shown without brackets: required
    assert "[--description DESCRIPTION]" in usage
    for flag in PUBLICATION_FIELDS:  # a pre-submission fills them with placeholders: optional there
        assert f"[{flag} " in " ".join(cli("presubmit", "--help").stdout.split("\n\n")[0].split())


def test_publish_without_a_link_names_the_missing_argument(new_model_file, full_store):
    before = tree_digest(full_store)
    without_link = FORM[:FORM.index("--link")]
    result = cli("publish", new_model_file, "--store", full_store, *without_link)
    assert result.returncode == 2 and "the following arguments are required: --link" in result.stderr
    assert tree_digest(full_store) == before


def test_option_values_may_begin_with_a_dash(new_model_file, full_store):
    form = [*FORM, "--description", "-- a note"]
    form[form.index("--team") + 1], form[form.index("--model") + 1] = "-2+3", "-x"
    published = cli("publish", new_model_file, "--store", full_store, *form, "--json")
    assert published.returncode == 0, published.stderr
    sid = json.loads(published.stdout)["submission_id"]
    stored = json.loads((full_store / "data" / f"{sid}.json").read_text())["submission_metadata"]
    assert (stored["team_name"], stored["model_name"], stored["description"]) == ("-2+3", "-x", "-- a note")
    flagged = cli("flag", sid, "--reason", "-leaked test set", "--store", full_store)
    assert flagged.returncode == 0 and "-leaked test set" in flagged.stdout, flagged.stderr
    missing = cli("flag", sid, "--store", full_store, "--reason")  # a value that is missing is still an error
    assert missing.returncode == 2 and "expected one argument" in missing.stderr


HOSTILE_DESCRIPTION = "clear\x1b[2J title\x1b]0;owned\x07 bidi\u202egnp.exe\nsecond line"


def _publish_hostile_description(new_model_file, full_store) -> str:
    form = [*FORM, "--description", HOSTILE_DESCRIPTION, "--json"]
    published = cli("publish", new_model_file, "--store", full_store, *form)
    assert published.returncode == 0, published.stderr
    return json.loads(published.stdout)["submission_id"]


def test_csv_to_a_file_keeps_the_data_but_no_control_characters(new_model_file, full_store):
    _publish_hostile_description(new_model_file, full_store)
    csv = cli("table", "--store", full_store, "--format", "csv")
    assert csv.returncode == 0, csv.stderr
    assert "\x1b" not in csv.stdout and "\x07" not in csv.stdout and "\u202e" not in csv.stdout
    descriptions = pd.read_csv(io.StringIO(csv.stdout), keep_default_na=False)["Description"]
    # escape sequences written as text; the newline (CSV quotes it) kept as data
    assert "clear\\x1b[2J title\\x1b]0;owned\\x07 bidi\\u202egnp.exe\nsecond line" in list(descriptions)


def test_csv_to_a_terminal_escapes_control_characters_as_the_text_format_does(new_model_file, full_store):
    import os
    import pty
    _publish_hostile_description(new_model_file, full_store)
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "leaderboard", "table", "--store", str(full_store),
                                "--format", "csv"], cwd=ROOT, stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.wait(timeout=300) == 0, process.stderr.read()
    text = shown.decode()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "clear\\x1b[2J title\\x1b]0;owned\\x07 bidi\\u202egnp.exe\\nsecond line" in text  # one line, as in text


def modules_after(*commands) -> list[list[str]]:
    """For each CLI command run in turn in one fresh process (`main`, its output a pipe): which
    of pandas, scipy.stats and tqdm had been imported once it finished, and its exit code last."""
    script = ("import json, sys\nfrom leaderboard.cli import main\nout = []\n"
              f"for argv in {[list(map(str, c)) for c in commands]!r}:\n"
              "    code = main(argv)\n"
              "    out.append([m for m in ('pandas', 'scipy.stats', 'tqdm') if m in sys.modules] + [code])\n"
              "print(json.dumps(out))\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_cold_validate_and_presubmit_do_not_import_scipy_stats(new_model_file, full_store):
    # validate imports neither pandas nor scipy.stats; presubmit (its table is printed with
    # pandas) no scipy.stats: the duels need two distributions, which scipy.special has;
    # neither tqdm, whose bar shows only on a terminal
    validate, presubmit = modules_after(["validate", new_model_file],
                                        ["presubmit", new_model_file, "--store", full_store, *FORM])
    assert validate == [0] and presubmit == ["pandas", 0]


def test_table_prints_a_current_snapshot_without_reading_a_model(new_model_file, full_store):
    """A publication writes the ranking snapshot; `table` prints it (the same table the
    board computes) without loading models or duels. A snapshot the store no longer
    matches (flags.json edited by hand) or older than a submission file (edited by hand:
    test_hardening's planted titles) is not used."""
    from leaderboard.cli import _print_table
    from leaderboard.views.table import leaderboard_table
    assert cli("publish", new_model_file, "--store", full_store, *FORM).returncode == 0
    board = Leaderboard(LocalStore(full_store))
    expected = {}
    for category in (None, "NER"):
        out = io.StringIO()
        sys.stdout, saved = out, sys.stdout
        try:
            _print_table(leaderboard_table(board, category), "csv")
        finally:
            sys.stdout = saved
        expected[category] = out.getvalue()
    flagged = sorted(board.models)[0]
    (full_store / "flags.json").write_text(json.dumps({flagged: {"reason": "by hand", "link": None,
                                                                  "flagged_at": 0.0}}))
    stale = cli("table", "--store", full_store, "--format", "json")
    assert [row["Flag reason"] for row in json.loads(stale.stdout) if row["Flagged"]] == ["by hand"]
    (full_store / "flags.json").unlink()  # the snapshot that run wrote (with the flag) is not current now:
    assert cli("table", "--store", full_store).returncode == 0  # the board is loaded and its snapshot written
    for path in [*(full_store / "data").glob("*.json"), *(full_store / ".cache").glob("*")]:
        st = path.stat()
        path.write_text("not a model any more")  # a board load would skip every model
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # at its time: a file newer than the snapshot is an edit
    for category in (None, "NER"):
        table = cli("table", "--store", full_store, "--format", "csv", *(["--category", category] if category else []))
        assert table.returncode == 0 and table.stderr == "" and table.stdout == expected[category]


def test_the_readmes_command_blocks_run_in_the_projects_environment():
    """Each ```bash block of the README that runs `python` works as typed in a fresh shell
    after `make run` (nothing on PATH but the system's): its environment lines (`. ...`,
    `source ...`) make `python` the project's, with the app's packages and the CLI."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [body for _, body in re.findall(r"^( *)```bash\n(.*?)^\1```", readme, re.M | re.S)]
    runs_python = re.compile(r"^\s*(?:[A-Z_]+=\S+\s+)*python\s", re.M)
    assert len([b for b in blocks if runs_python.search(b)]) >= 5
    for block in filter(runs_python.search, blocks):
        setup = [line for line in block.splitlines() if line.strip().startswith((". ", "source "))]
        found = "import importlib.util as u, sys; sys.exit(not (u.find_spec('gradio') and u.find_spec('leaderboard')))"
        probe = subprocess.run(["bash", "-c", "\n".join([*setup, f'python -c "{found}"'])],
                               cwd=ROOT, env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
                               capture_output=True, text=True, timeout=120)
        assert probe.returncode == 0, (block, probe.stderr)
