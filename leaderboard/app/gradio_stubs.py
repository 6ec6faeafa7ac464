"""Gradio writes the type stubs (.pyi) of its own components again each time it is
imported: for each of some 80 component classes it parses the class's module and its stub
and renders a template (`gradio.component_meta.create_or_modify_pyi`), to find that the
installed stubs are already right. That is 0.7 s of the 1.8 s of CPU its import takes on
this project's machine, in every process that serves the app. `skip_stub_writing()`,
called before Gradio is imported, makes that step do nothing; the stubs serve editors
and type checkers only, never a running app.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys

STUB_WRITER_MODULE = "gradio.component_meta"


def _write_no_stub(*_args, **_kwargs) -> None:
    return None


class _StubWriterSkipper(importlib.abc.MetaPathFinder):
    """Finds STUB_WRITER_MODULE as Python would, and replaces its stub writer once the
    module has run (before any component class is made); then steps aside."""

    def find_spec(self, name, path, target=None):
        if name != STUB_WRITER_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            module.create_or_modify_pyi = _write_no_stub

        spec.loader.exec_module = exec_module
        return spec


def skip_stub_writing() -> None:
    """Gradio, when next imported, writes no type stubs (see the module's note). Only
    before its import: later, its components have been made already."""
    if STUB_WRITER_MODULE not in sys.modules:
        sys.meta_path.insert(0, _StubWriterSkipper())
