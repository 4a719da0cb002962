"""Expand and collapse in the trees (inspector/gui/expand.py), driven by keys.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


ALT = Qt.KeyboardModifier.AltModifier


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_expand_all_with_a_leaf_selected_expands_the_whole_tree(qtbot, window):
    # Keyboard trial: Go to JSON Pointer /snapshot/session/id, Alt+1, Ctrl+Shift+X: nothing was expanded
    # (the expansion started at the selected row, a string, which has nothing below it).
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view, model = window.snap_pane.view, window.snap_model
    QTest.keyClick(window, Qt.Key.Key_1, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    view.setCurrentIndex(model.index_for_pointer("/snapshot/session/id"))
    deep = "/snapshot/run_records/0/snapshot"
    assert not view.isExpanded(model.index_for_pointer(deep))
    with qtbot.waitSignal(window.expander.finished, timeout=20000) as done:
        QTest.keyClick(view, Qt.Key.Key_X, CTRL_SHIFT)
    assert done.args[0] > 50
    assert view.isExpanded(model.index_for_pointer(deep))
    assert view.isExpanded(model.index_for_pointer("/snapshot/session/config/tool_result_transform_policy"))
    # the selection stays where it was
    assert model.index_for_pointer("/snapshot/session/id") == view.currentIndex().siblingAtColumn(0)
