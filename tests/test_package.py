"""The package model teams install: the wheel built from pyproject.toml, installed with pip
into a fresh virtual environment, gives the `duel-leaderboard` command, which compiles
harness logs, validates the file and pre-submits it from a folder outside the repository,
with the app's packages (Gradio, Playwright, PyICU, plotly) not importable there.

The fresh environment gets the light dependencies from this test environment's
site-packages (a path file; nothing downloaded), and an import hook that refuses the app's
packages, so that a command that needs one fails here as it would on a cluster where they
are not installed. The wheel's own metadata must not require them outside the `app` extra."""
from __future__ import annotations

from support.paths import ROOT

import email
import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from harness_logs import DATE_A, MODEL, write_run
from leaderboard.board.publishing import Publishing
from leaderboard.submission.demo import demo_model
from leaderboard.errors import BadInput
from leaderboard.strict_json import dump_json
from leaderboard.submission import metadata
from leaderboard.submission.metadata import LOOKALIKES_UNCHECKED

# What only the web app (and publication's look-alike title check) imports.
APP_PACKAGES = ("gradio", "gradio_client", "playwright", "icu", "plotly", "starlette", "authlib")
SHIPPED_TASKS_FILES = ("tasks_metadata.json", "czechsuite_tasks.json", "open_llm_leaderboard_v2_tasks.json",
                       "euroeval_czech_tasks.json")
REFUSE_APP_PACKAGES = f"""
import importlib.abc, sys
class RefuseAppPackages(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {APP_PACKAGES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (not in a light install)")
sys.meta_path.insert(0, RefuseAppPackages())
"""


def run(*args, cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{args}: {result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the sources (a build writes into the tree it builds),
    with this environment's setuptools: no download."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("leaderboard", "stats"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
        "--wheel-dir", out, source, cwd=source)
    return next(out.glob("duel_leaderboard-*.whl"))


@pytest.fixture(scope="module")
def light_venv(tmp_path_factory, wheel) -> Path:
    """A fresh virtual environment with the wheel installed by pip (no dependencies), the
    light dependencies from this environment and the app's packages refused."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=venv.parent)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel,
        cwd=venv.parent)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=venv).stdout.strip())
    (site / "refuse_app_packages.py").write_text(REFUSE_APP_PACKAGES)
    # path files run in name order: the hook first, then the dependencies' folder
    (site / "a_refuse_app_packages.pth").write_text("import refuse_app_packages\n")
    (site / "b_light_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv


def test_the_wheel_requires_only_the_light_packages_and_ships_the_tasks_files(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = email.message_from_bytes(archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    for name in SHIPPED_TASKS_FILES:
        assert f"leaderboard/data/{name}" in names
    assert "duel-leaderboard = leaderboard.cli:run" in entry_points
    required = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    app_only = [r for r in metadata.get_all("Requires-Dist") if 'extra == "app"' in r]
    assert required and not [r for r in required if r.lower().startswith(("gradio", "pyicu", "playwright", "plotly"))]
    assert {r.split(">")[0].split("[")[0].lower() for r in app_only} >= {"gradio", "pyicu", "plotly"}


def test_compile_validate_presubmit_from_another_folder(light_venv, full_benchmark, full_store, tmp_path):
    """A model team's two commands and a pre-submission against a copy of the board, run by
    the installed command in a folder that is not the repository."""
    work = tmp_path / "cluster"
    logs = work / "harness_out"
    document = demo_model(full_benchmark, 7, seed=0)[1]
    write_run(logs, full_benchmark, full_benchmark.task_ids, document, DATE_A)
    command = light_venv / "bin" / "duel-leaderboard"

    compiled = run(command, "compile", "-i", logs, "-o", "submission.json", cwd=work)
    assert "50 tasks" in compiled.stdout and MODEL in compiled.stdout
    validated = run(command, "validate", "submission.json", cwd=work)
    assert "submission.json: valid, 50 tasks" in validated.stdout
    presubmitted = run(command, "presubmit", "submission.json", "--store", full_store, "--team", "Brno-NLP",
                       "--model", "Buk-9B-v1", "--json", cwd=work)
    preview = json.loads(presubmitted.stdout)
    assert preview["published"] is False and preview["of"] == 6 and 1 <= preview["rank"] <= 6
    assert LOOKALIKES_UNCHECKED in preview["warnings"]  # said, since PyICU is refused here
    where = run(light_venv / "bin" / "python", "-c", "import leaderboard; print(leaderboard.__file__)", cwd=work)
    assert Path(where.stdout.strip()).is_relative_to(light_venv)  # the installed package, not the repository


def test_without_pyicu_a_presubmission_says_what_it_left_unchecked_and_publication_is_refused(
        small_store, small_documents, monkeypatch):
    monkeypatch.setattr(metadata, "_SPOOF_CHECKER", None)
    monkeypatch.setattr(metadata, "icu", None)
    form, document, _ = small_documents[6]
    published = dict(small_store.models)
    preview = Publishing(small_store).presubmit(dump_json(document), form)
    assert LOOKALIKES_UNCHECKED in preview.warnings
    with pytest.raises(BadInput, match="publishing needs PyICU"):
        Publishing(small_store).publish(preview)
    assert small_store.models.keys() == published.keys()
    team, model = next(iter(published.values())).title.split("/", 1)
    with pytest.raises(BadInput, match="is already published"):  # a title differing in case still is the same
        Publishing(small_store).presubmit(dump_json(small_documents[7][1]),
                                         {**form, "team_name": team, "model_name": model.upper()})
