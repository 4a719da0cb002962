"""F6 / Shift+F6 step through the panes in the Go menu's order whatever the keyboard layout (Alt+1...Alt+0 need
unshifted digits, which AZERTY and Czech layouts do not have)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_f6_and_shift_f6_step_through_the_panes(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.snap_pane.view, timeout=2000)
    order = [lambda: window.resume_pane.view, lambda: window.desc_pane.view, lambda: window.findings_view,
             lambda: window.digests_view, lambda: window.hex_tabs.currentWidget(),
             lambda: window.resume_panes.timeline]
    for want in order:
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6)
        qtbot.waitUntil(lambda w=want: QApplication.focusWidget() is w(), timeout=2000)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.hex_tabs.currentWidget(), timeout=2000)
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)  # Events, the last
    events = window.resume_panes.events.view
    qtbot.waitUntil(lambda: QApplication.focusWidget() is events, timeout=2000)
    QTest.keyClick(events, Qt.Key.Key_F6)  # wraps to the first
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.snap_pane.view, timeout=2000)


def test_f6_knows_the_pane_from_any_of_its_controls(qtbot, window):
    """From the Events filter box (not the table), Shift+F6 goes to the pane before Events, not to Events."""
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    pane = window.resume_panes.events
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.view, timeout=2000)
    pane.text.setFocus()
    qtbot.waitUntil(pane.text.hasFocus, timeout=2000)
    QTest.keyClick(pane.text, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.resume_panes.lint_list, timeout=2000)
