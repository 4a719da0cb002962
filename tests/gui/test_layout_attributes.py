"""The window declares the panes the layout builds (``layout.WindowPanes``, which ``MainWindow`` is): every
attribute ``gui/layout.py`` sets on the window is one the window names, with its type, and it exists once the
window is made."""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from inspector.gui import layout  # noqa: E402
from inspector.gui.layout import WindowPanes  # noqa: E402
from inspector.gui.window import MainWindow  # noqa: E402


def _set_by_layout() -> set[str]:
    tree = ast.parse(Path(layout.__file__).read_text(encoding="utf-8"))
    return {t.attr for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "w"}


def _namespace() -> dict:
    """The names the window's annotations use (its ``TYPE_CHECKING`` imports), for evaluating them."""
    from PySide6 import QtCore, QtWidgets

    from inspector.gui.models import digests, findings, folder, json_tree, sessions
    from inspector.gui.widgets import hex_view, panes, sessions_view

    ns: dict = {}
    for module in (QtCore, QtWidgets, digests, findings, folder, json_tree, sessions, hex_view, panes, sessions_view):
        ns.update({n: getattr(module, n) for n in dir(module) if n[:1].isupper()})
    return ns


def test_every_attribute_the_layout_sets_is_declared_by_the_window(window):
    set_here = _set_by_layout()
    assert len(set_here) == 48
    assert issubclass(MainWindow, WindowPanes)
    declared = WindowPanes.__annotations__
    assert sorted(set_here - set(declared)) == []
    assert sorted(set(declared) - set_here) == []  # and the window declares nothing the layout does not set
    ns = _namespace()
    for name in sorted(set_here):
        value, hint = getattr(window, name), eval(declared[name], ns)  # noqa: S307 - our own annotations
        kinds = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        assert any(isinstance(value, k) for k in kinds), (name, type(value), declared[name])
