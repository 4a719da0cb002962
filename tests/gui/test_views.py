"""The tree and list views' scrolling behaviour (inspector/gui/views.py), driven by the mouse.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from tests.conftest import SAMPLES  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_a_click_on_a_value_does_not_scroll_the_tree_sideways(qtbot, window_1024):
    # Mouse trial at 1024x700: a click on the value of /schema scrolled the snapshot tree so
    # far right that the Field column (every key name) left the view.
    window = window_1024
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view, model = window.snap_pane.view, window.snap_model
    bar = view.horizontalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0  # the tree is narrower than its columns
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.findings_view.setFocus()  # the click moves the focus into the tree, as a user's does
    idx = model.index_for_pointer("/schema").siblingAtColumn(1)
    rect = view.visualRect(idx)
    assert rect.left() < view.viewport().width()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.topLeft() + QPoint(8, rect.height() // 2))
    assert view.currentIndex() == idx
    qtbot.wait(300)  # the selection relay (bytes, verdicts, history) runs after the click
    assert bar.value() == 0
    # keys move along the rows without scrolling sideways either
    QTest.keyClick(view, Qt.Key.Key_Down)
    QApplication.processEvents()
    assert view.currentIndex().row() == idx.row() + 1 and bar.value() == 0


def test_a_click_on_a_rule_does_not_scroll_the_verdicts_sideways(qtbot, window_1024):
    # Mouse trial at 1024x700: a click on the Rule cell of D-PARSE scrolled the verdicts list so that the
    # Verdict column's header and the group arrows left the view.
    window = window_1024
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    view = window.findings_view
    QTest.mouseClick(window.failures_only, Qt.MouseButton.LeftButton)  # every rule
    qtbot.waitUntil(lambda: not window.failures_only.isChecked())
    bar = view.horizontalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0  # the list is wider than its pane
    model = view.model()
    group = next(model.index(r, 0) for r in range(model.rowCount()) if model.rowCount(model.index(r, 0)) > 20)
    idx = model.index(0, 1, group)  # a rule id cell (the Description column is out of view)
    view.scrollTo(idx.siblingAtColumn(0))
    assert bar.value() == 0
    rect = view.visualRect(idx)
    assert view.viewport().rect().contains(rect.topLeft() + QPoint(4, rect.height() // 2))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.topLeft() + QPoint(4, rect.height() // 2))
    assert view.currentIndex().row() == 0 and view.currentIndex().parent() == group
    qtbot.wait(100)
    assert bar.value() == 0
    QTest.keyClick(view, Qt.Key.Key_Down)
    QApplication.processEvents()
    assert view.currentIndex().row() == 1 and bar.value() == 0
