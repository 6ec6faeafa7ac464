"""The import graph of the product's code: no circles, and no import running up a layer.

The graph is read from the source with the stdlib's `ast`, every `import` and `from ... import`
wherever it stands (module level, inside functions, under `TYPE_CHECKING`): an import placed
in a function to dodge a circle is still an arrow. An import of a package's name resolves to
its `__init__`, `from package import module` to the module.
"""
from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The layers, lowest first: a module may import its own layer's modules and any lower layer's,
# never a higher one's. A module's layer is that of the longest prefix naming it: a new module
# of `leaderboard/` not listed is a plain utility until it is, so its imports from above fail here.
LAYERS = [
    ["stats"],
    ["leaderboard", "leaderboard.errors", "leaderboard.strict_json", "leaderboard.temp_disk", "leaderboard.blas",
     "leaderboard.freed_memory"],  # plain utilities
    ["leaderboard.config"],
    ["leaderboard.engine"],
    ["leaderboard.submission"],
    ["leaderboard.storage"],
    ["leaderboard.board"],
    ["leaderboard.views"],
    ["content"],
    ["leaderboard.app", "leaderboard.cli", "leaderboard.__main__"],
    ["app"],  # the Space's entry point, app.py
]


def module_files() -> dict[str, Path]:
    paths = [*ROOT.glob("leaderboard/**/*.py"), *ROOT.glob("stats/**/*.py"), ROOT / "app.py", ROOT / "content.py"]
    names = {}
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The project's modules that `name` imports, resolved to the longest known module name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
                break
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imported_modules(name, path, set(files)) for name, path in files.items()}


def layer_of(module: str) -> int:
    matches = [(len(prefix), index) for index, layer in enumerate(LAYERS) for prefix in layer
               if module == prefix or module.startswith(prefix + ".")]
    assert matches, f"{module} is in no layer: add it to LAYERS"
    return max(matches)[1]


def test_the_resolver_sees_function_level_relative_and_from_package_imports(tmp_path):
    """The walk itself: an arrow hidden in a function, a relative import and `from package
    import module` are each found (so a clean graph is not a blind one)."""
    source = tmp_path / "m.py"
    source.write_text("from . import b\nfrom pkg import c\n\ndef f():\n    from pkg.d import thing\n")
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"}
    assert imported_modules("pkg.a", source, known) == {"pkg.b", "pkg.c", "pkg.d"}


def test_the_import_graph_has_no_circle():
    try:
        graphlib.TopologicalSorter(import_graph()).prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"an import circle: {' -> '.join(error.args[1])}")


def test_no_import_runs_up_a_layer():
    upward = [f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
              for module, targets in sorted(import_graph().items()) for target in sorted(targets)
              if layer_of(target) > layer_of(module)]
    assert upward == [], "\n".join(upward)


def imports_of_tests(path: Path) -> list[str]:
    """Where `path` imports a test module or conftest ("line: module"), anywhere in it: test
    modules share helpers through tests/support, and conftest holds fixtures only."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            modules = [node.module or ""]
        else:
            continue
        found += [f"{node.lineno}: {m}" for m in modules
                  if m.removeprefix("tests.").split(".")[0] == "conftest" or m.removeprefix("tests.").startswith("test_")]
    return sorted(found, key=lambda hit: int(hit.split(":")[0]))


def test_the_test_import_check_finds_an_import_from_a_test_module_or_conftest(tmp_path):
    source = tmp_path / "test_m.py"
    source.write_text("import conftest\nfrom support.pages import rows\n\ndef f():\n    from test_e2e import serve\n"
                      "    from tests.conftest import cli\n")
    assert imports_of_tests(source) == ["1: conftest", "5: test_e2e", "6: tests.conftest"]


def test_no_test_or_benchmark_imports_from_a_test_module_or_conftest():
    found = [f"{path.relative_to(ROOT)}:{hit}" for path in sorted([*ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/*.py")])
             for hit in imports_of_tests(path)]
    assert found == [], "\n".join(found)
