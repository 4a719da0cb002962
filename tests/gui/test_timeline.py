"""The painted timeline (inspector/gui/widgets/timeline.py), driven by keys and the mouse.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait
pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from inspector.checkpoint.jsontext.lazyjson import find_span  # noqa: E402


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


def test_a_failing_events_rule_id_is_written_whole_at_its_event(qtbot, window):
    """The rule ids of a lane were drawn right-aligned at the lane's end, far from their event:
    S-TOOLEND-BINDING-PARSE, failing at event 12 of run-source, is written under its mark, whole, and
    nothing red is written at the lane's end."""
    from .test_layout import CASE_056

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600 and not window.compact.compact, timeout=2000)
    open_and_wait(qtbot, window, CASE_056)
    tl = window.resume_panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None and tl.viewport().width() > 800, timeout=5000)
    lane = next(i for i, x in enumerate(tl.timeline.lanes) if x.id == "run-source")
    assert tl.rule_marks[lane] == {12: ["S-TOOLEND-BINDING-PARSE"]}
    tl.ensure_lane_visible(lane)
    qtbot.wait(30)
    at = tl.event_point(lane, 12)
    fm = tl.fontMetrics()
    tw = fm.horizontalAdvance("✖ S-TOOLEND-BINDING-PARSE")
    img = tl.viewport().grab().toImage()
    dpr = img.devicePixelRatio()
    top, bottom = tl.lane_top(lane), tl.lane_top(lane) + tl._lane_h

    def red(x0, x1, y0, y1):
        n = 0
        for x in range(int(x0), int(x1)):
            for y in range(int(y0), int(y1)):
                c = img.pixelColor(int(x * dpr), int(y * dpr))
                # the error red (#c62828), not the tools' orange (#e65100)
                n += c.red() > 150 and c.green() < 90 and c.blue() < 90 and abs(c.green() - c.blue()) < 25
        return n

    below = at.y() + 8 + 2  # under the event's circle (radius 8)
    assert red(at.x() - 8, at.x() - 8 + tw, below, bottom) > 40  # the label's glyphs
    assert red(at.x() + tw, at.x() + tw + 40, below, bottom) == 0  # and it ends where its text ends
    w = tl.viewport().width()
    assert red(w - tw - 10, w - 2, below, bottom) == 0  # not at the lane's end any more
    assert top < below < bottom
