"""The painted timeline (inspector/gui/widgets/timeline.py), driven by keys and the mouse.

Moved from the round-named test files (issue 24: tests mirror the code), assertions unchanged."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait
pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from inspector.session.lazyjson import find_span  # noqa: E402


def test_a_single_lane_fills_the_timeline_at_1600x1000_and_a_click_anywhere_in_it_selects_the_run(
        qtbot, window):

    from inspector.gui.widgets.timeline import _AXIS_H, _LANE_H

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    panes = window.resume_panes
    panes.tabs.setCurrentIndex(0)
    tl = panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None and tl.viewport().height() > _AXIS_H + 2 * _LANE_H, timeout=5000)
    assert len(tl.timeline.lanes) == 1
    vh = tl.viewport().height()
    # the lane takes the whole height under the axis (it left ~150 px empty under a 34 px lane)
    assert tl.lane_top(0) == _AXIS_H and tl.lane_top(0) + getattr(tl, "_lane_h", _LANE_H) == vh
    assert tl.verticalScrollBar().maximum() == 0
    QTest.mouseClick(tl.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(60, vh - 6))  # low in the lane
    assert tl.selected == (0, None)


ALT = Qt.KeyboardModifier.AltModifier


def test_alt_7_then_an_arrow_selects_an_event_in_the_timeline(qtbot, window):
    # Keyboard trial: Alt+7 (Go ▸ Resume Timeline), Right, Right, Right: nothing was selected (the arrows
    # moved only from an event already selected, which only a click or Up/Down made).
    from .test_resume_panes import RICH, _tree_pointer

    open_and_wait(qtbot, window, RICH)
    tl = window.resume_panes.timeline
    QTest.keyClick(window, Qt.Key.Key_7, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tl and tl.timeline is not None, timeout=5000)
    assert tl.selected is None
    QTest.keyClick(tl, Qt.Key.Key_Right)
    assert tl.selected == (0, 0)  # run-legacy, its first event
    assert _tree_pointer(window) == "/snapshot/run_records/0/events/0"
    QTest.keyClick(tl, Qt.Key.Key_Right)
    assert tl.selected == (0, 1)
    assert _tree_pointer(window) == "/snapshot/run_records/0/events/1"
    data = window.doc.payload.data
    assert window.hex_payload.highlighted == find_span(data, None, "/snapshot/run_records/0/events/1")


def test_left_with_nothing_selected_selects_the_last_event_of_the_first_run_with_events(qtbot, window):
    from .test_resume_panes import RICH

    open_and_wait(qtbot, window, RICH)
    tl = window.resume_panes.timeline
    QTest.keyClick(window, Qt.Key.Key_7, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tl and tl.timeline is not None, timeout=5000)
    QTest.keyClick(tl, Qt.Key.Key_Left)
    assert tl.selected == (0, 4)  # run-legacy has 5 events
