"""The house in stages is enforced (../shared/DESIGN.md 4): import-linter's contracts in
pyproject.toml (the engine's floors, gui -> session -> checkpoint, Qt only in the window, the fast readers
only behind the read door), no import cycle anywhere in the package (function-level imports included),
and every module imports alone in a fresh interpreter, those outside the window where PySide6 cannot load."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT


def _graph_tool():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "tools" / "import_graph.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_import_linter_contracts_are_kept():
    importlinter = pytest.importorskip("importlinter", reason="import-linter is a dev dependency")
    assert importlinter
    p = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                        "sys.argv = ['lint-imports']; lint_imports_command()"],
                       cwd=ROOT, capture_output=True, text=True)
    assert "Contracts: 5 kept, 0 broken." in p.stdout, p.stdout[-3000:]
    assert p.returncode == 0


def test_no_import_cycle_function_level_imports_included():
    figures = _graph_tool().figures()
    assert figures["modules"] > 120
    assert figures["cycles"] == []


def test_the_graph_tool_finds_a_cycle_and_a_function_level_import(tmp_path):
    tool = _graph_tool()
    assert tool.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert tool.cycles({"a": {"b"}, "b": set()}) == []


_BLOCK_QT = (
    "import sys\n"
    "class _NoQt:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'PySide6' or name.startswith('PySide6.'):\n"
    "            raise ImportError('PySide6 is blocked in this test')\n"
    "sys.meta_path.insert(0, _NoQt())\n"
    "import {name}\n"
    "assert not any(m == 'PySide6' or m.startswith('PySide6.') for m in sys.modules)\n"
)


def test_every_module_imports_alone_and_outside_the_window_without_qt():
    """One fresh interpreter per module of the package: the window's modules import alone (an import cycle
    hidden by the usual import order raised ImportError: ``inspector.session.edits``), every other module
    imports alone where PySide6 cannot load and loads none of it. (Two tests did this, one with Qt and one
    without, in a fifth of the suite's time; the window's modules need only the first, the others the second.)"""
    tool = _graph_tool()
    names = tool.modules()
    window = [n for n in names if n == "inspector.gui" or n.startswith("inspector.gui.")]
    assert "inspector.session.engine" in names and "inspector.checkpoint.read.door" in names and len(window) > 40
    qt = importlib.util.find_spec("PySide6") is not None

    def load(name: str):
        in_window = name in window
        if in_window and not qt:
            return name, 0, []  # (a headless install: the window's modules cannot load)
        code = f"import {name}" if in_window else _BLOCK_QT.format(name=name)
        env = {"PATH": "/usr/bin:/bin", **({"QT_QPA_PLATFORM": "offscreen"} if in_window else {})}
        p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
        return name, p.returncode, p.stderr.strip().splitlines()[-1:] if p.returncode else []

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [(n, err) for n, code, err in pool.map(load, names) if code]
    assert failed == []


def test_ruff_finds_nothing():
    """The package, the tests, the tools and the benchmarks pass ruff's checks as ``pyproject.toml`` configures them
    (pyflakes and pycodestyle: unused imports and variables, undefined names, redefinitions)."""
    pytest.importorskip("ruff", reason="ruff is a dev dependency")
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                        "inspector", "tests", "tools", "benchmarks"], cwd=ROOT, capture_output=True, text=True)
    assert (p.returncode, p.stdout.strip().splitlines()[-1:]) == (0, ["All checks passed!"]), p.stdout[-3000:]
