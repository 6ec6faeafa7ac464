"""The settings: every documented environment variable is read, with the README's default."""
import ast
import re
from dataclasses import fields
from pathlib import Path

from leaderboard.config.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
# The variables the leaderboard reads (the table also lists Gradio's and uvicorn's own).
FIELD_OF = {"LEADERBOARD_REPO": "repo", "HF_TOKEN": "hf_token", "HF_HOME": "hf_home", "LEADERBOARD_STORE": "store",
            "LEADERBOARD_TASKS": "tasks_file", "LEADERBOARD_POLL_SECONDS": "poll_seconds",
            "LEADERBOARD_READ_ONLY": "read_only", "LEADERBOARD_CACHE_SECONDS": "cache_seconds",
            "LEADERBOARD_TEMP_DISK_MB": "temp_disk_mb", "LEADERBOARD_UPLOADS_PER_HOUR": "uploads_per_hour",
            "LEADERBOARD_UPLOAD_MB_PER_HOUR": "upload_mb_per_hour",
            "LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "presubmissions_per_hour",
            "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "presubmissions_per_day", "LEADERBOARD_PAGE_ROWS": "page_rows",
            "LEADERBOARD_API_PER_MINUTE": "api_per_minute", "LEADERBOARD_IDLE_SESSION_SECONDS": "idle_session_seconds",
            "LEADERBOARD_CACHE_DIR": "cache_dir", "LEADERBOARD_LOG_LEVEL": "log_level",
            "LEADERBOARD_DEBUG": "debug", "OPENID_PROVIDER_URL": "openid_provider_url",
            "OAUTH_CLIENT_ID": "oauth_client_id", "OAUTH_CLIENT_SECRET": "oauth_client_secret",
            "OAUTH_SCOPES": "oauth_scopes"}
# Defaults the code resolves elsewhere (the shipped tasks file, the demo store, huggingface_hub's folder, the
# command line's cache under the home folder).
RESOLVED_ELSEWHERE = {"LEADERBOARD_STORE", "LEADERBOARD_TASKS", "HF_HOME", "LEADERBOARD_CACHE_DIR"}


def readme_defaults() -> dict[str, str]:
    table = (ROOT / "README.md").read_text().split("Configuration (environment variables")[1].split("\n\n")[1]
    return {m[1]: m[2].strip() for m in re.finditer(r"^\| `([A-Z_]+)` \| .* \| ([^|]+) \|$", table, re.M)}


def test_every_setting_is_documented_with_its_default():
    documented = readme_defaults()
    assert set(FIELD_OF) <= set(documented)
    assert sorted(FIELD_OF.values()) == sorted(f.name for f in fields(Settings))
    unset = Settings.from_environment({})
    for name, field in FIELD_OF.items():
        value, default = getattr(unset, field), documented[name].strip("`")
        if name in RESOLVED_ELSEWHERE or default == "unset":
            assert value is None, name
        elif default == "off":
            assert value is False, name
        elif re.fullmatch(r"[\d.]+", default):
            assert value == float(default), name
        else:
            assert value == default, name


def test_every_variable_is_read_from_the_environment():
    unset = Settings.from_environment({})
    given = {"LEADERBOARD_POLL_SECONDS": "7.5", "LEADERBOARD_READ_ONLY": "Yes", "LEADERBOARD_CACHE_SECONDS": "31",
             "LEADERBOARD_TEMP_DISK_MB": "9", "LEADERBOARD_UPLOADS_PER_HOUR": "3", "LEADERBOARD_UPLOAD_MB_PER_HOUR": "5",
             "LEADERBOARD_PRESUBMISSIONS_PER_HOUR": "4", "LEADERBOARD_PRESUBMISSIONS_PER_DAY": "6",
             "LEADERBOARD_PAGE_ROWS": "7", "LEADERBOARD_API_PER_MINUTE": "8", "LEADERBOARD_IDLE_SESSION_SECONDS": "2",
             "LEADERBOARD_LOG_LEVEL": "debug", "LEADERBOARD_DEBUG": "1"}
    environ = {name: given.get(name, f"value of {name}") for name in FIELD_OF}
    settings = Settings.from_environment(environ)
    for name, field in FIELD_OF.items():
        assert getattr(settings, field) != getattr(unset, field), name
    assert (settings.poll_seconds, settings.read_only, settings.cache_seconds, settings.log_level) == (7.5, True, 31,
                                                                                                       "DEBUG")
    assert Settings.from_environment({"LEADERBOARD_READ_ONLY": "no", "HF_TOKEN": ""}) == unset  # empty is unset


def reads_at_import(path: Path) -> list[str]:
    """What a module reads of the environment when it is imported: the calls of
    `Settings.from_environment` and the uses of `os.environ`/`os.getenv` outside function
    bodies (a default argument and a decorator run at import, so they count)."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            for part in [*arguments.defaults, *arguments.kw_defaults, *getattr(node, "decorator_list", [])]:
                if part is not None:
                    visit(part)
            return
        if isinstance(node, ast.Attribute) and node.attr in ("from_environment", "environ", "getenv"):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def test_the_app_reads_no_setting_at_import():
    """The web app's modules read the settings when an app is built (`build_app`), so one
    process can build apps of different settings (the tests do, in process)."""
    modules = [ROOT / "app.py", *sorted((ROOT / "leaderboard" / "app").rglob("*.py"))]
    assert len(modules) > 10
    assert [read for module in modules for read in reads_at_import(module)] == []


def test_a_read_at_import_is_found(tmp_path):
    """The scan above sees a read at module level, in a default or a class body, not one in a function's body."""
    module = tmp_path / "module.py"
    module.write_text("import os\nfrom leaderboard.config.settings import Settings\n"
                      "A = Settings.from_environment()\n"
                      "def f(home=os.environ.get('HOME')):\n    return os.getenv('X'), Settings.from_environment()\n"
                      "class C:\n    level = os.environ['LEVEL']\n")
    assert reads_at_import(module) == ["module.py:3 Settings.from_environment", "module.py:4 os.environ",
                                       "module.py:7 os.environ"]
