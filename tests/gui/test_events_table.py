"""The Events tab: the runs' events as a table beside the timeline picture, filtered by kind
and text, linked both ways to the picture, the tree and the bytes; and a timeline zoom that sticks."""

from __future__ import annotations

import orjson
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from inspector.gui.roles import PointerRole  # noqa: E402
from tests.conftest import SCENARIOS  # noqa: E402

from .conftest import open_and_wait  # noqa: E402

RETRY = [SCENARIOS / "02-stream-retry.payload.json", SCENARIOS / "02-stream-retry.descriptor.json"]


def _events(qtbot, window):
    open_and_wait(qtbot, window, RETRY)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)  # Go > Events
    panes = window.resume_panes
    qtbot.waitUntil(lambda: panes.tabs.currentIndex() == 3)
    qtbot.waitUntil(lambda: panes.events.model.rowCount() > 0)  # the dock presents its views once shown
    return panes.events


def _cells(pane, row):
    m = pane.model
    return [m.data(m.index(row, c)) for c in range(m.columnCount())]


def test_rows_are_the_events_with_their_pass_and_summary(qtbot, window):
    pane = _events(qtbot, window)
    assert window.resume_panes.tabs.tabText(3) == "Events"
    assert pane.model.rowCount() == 20 and pane.count.text() == "19 events"  # and the resume boundary's row
    assert _cells(pane, 0) == ["0", "2026-08-29 10:40:00.010", "run-1", "–", "agent_start", ""]
    assert _cells(pane, 3) == ["3", "2026-08-29 10:40:00.040", "run-1", "P1", "turn_start", "turn 1"]  # the retry
    assert _cells(pane, 10) == ["10", "2026-08-29 10:40:00.110", "run-1", "P1", "tool_end", "bash(toolu_1) exit 0"]
    assert _cells(pane, 11)[3:5] == ["P2", "turn_start"]


def test_filter_by_kind_and_text(qtbot, window):
    pane = _events(qtbot, window)
    pane.kind.setFocus()
    index = pane.kind.findText("tool_end")
    pane.kind.setCurrentIndex(index)  # the combo's own keyboard search depends on the style; the choice is the test
    assert pane.model.rowCount() == 2 and pane.count.text() == "2 of 19 events"
    assert [_cells(pane, r)[0] for r in range(2)] == ["10", "18"]
    pane.kind.setCurrentIndex(0)
    pane.text.setFocus()
    QTest.keyClicks(pane.text, "p2")
    assert [_cells(pane, r)[0] for r in range(pane.model.rowCount())] == [str(s) for s in range(11, 19)]
    pane.text.clear()
    assert pane.model.rowCount() == 20  # the 19 events and the resume boundary's row


def test_a_row_selects_the_event_in_the_picture_the_tree_and_the_bytes(qtbot, window):
    pane = _events(qtbot, window)
    view = pane.view
    rect = view.visualRect(pane.model.index(7, 1))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert window.resume_panes.timeline.selected == (0, 7)
    tree = window.snap_pane.view
    assert tree.model().data(tree.currentIndex(), PointerRole) == "/snapshot/run_records/0/events/7"
    start, end = window.hex_payload.highlighted
    ev = orjson.loads(window.doc.payload.data[start:end])
    assert ev["sequence"] == 7 and ev["event"]["type"] == "turn_end"
    QTest.keyClick(view, Qt.Key.Key_Down)  # the keyboard moves through the rows and follows too
    assert window.resume_panes.timeline.selected == (0, 8)


def test_a_click_in_the_picture_selects_its_row(qtbot, window):
    pane = _events(qtbot, window)
    window.resume_panes.tabs.setCurrentIndex(0)
    tl = window.resume_panes.timeline
    QTest.qWait(30)
    p = tl.event_point(0, 15)
    QTest.mouseClick(tl.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(int(p.x()), int(p.y())))
    assert tl.selected == (0, 15)
    assert pane.view.currentIndex().row() == 15


def test_zoom_sticks_through_a_resize_until_fit(qtbot, window):
    open_and_wait(qtbot, window, RETRY)
    panes = window.resume_panes
    panes.dock.show()
    panes.dock.raise_()  # (its tab, in the compact layout of this narrow window: a covered dock takes no input)
    panes.tabs.setCurrentIndex(0)
    tl = panes.timeline
    QTest.qWait(30)
    fitted = tl._scale
    tl.setFocus()
    QTest.keyClick(tl, Qt.Key.Key_Plus)
    QTest.keyClick(tl, Qt.Key.Key_Plus)
    zoomed = tl._scale
    assert zoomed == pytest.approx(fitted * 2.25)
    window.resize(window.width() - 120, window.height())
    QTest.qWait(50)
    assert tl._scale == pytest.approx(zoomed)  # a resize keeps the zoom (it re-fitted before)
    QTest.keyClick(tl, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # Ctrl+0: Fit
    assert tl._scale == pytest.approx(tl._plot_width() / (tl._hi - tl._lo + 1))
    QTest.keyClick(tl, Qt.Key.Key_Plus)
    fit_button = next(b for b in panes.timeline_controls.findChildren(QPushButton) if b.text() == "Fit")
    QTest.mouseClick(fit_button, Qt.MouseButton.LeftButton)
    assert tl._scale == pytest.approx(tl._plot_width() / (tl._hi - tl._lo + 1))


def test_each_word_of_the_filter_must_match_and_the_kind_list_has_the_kinds_present(qtbot, window):
    """``run-1 p2 tool`` is the tool events of pass 2 of run-1 (each word its own test, not one substring);
    the Kind list offers the kinds these events have, not every kind of the format."""
    pane = _events(qtbot, window)
    kinds = [pane.kind.itemText(i) for i in range(pane.kind.count())]
    lane_kinds = {pane.model.timeline.lanes[0].kind_name(e) for e in range(pane.model.timeline.event_total)}
    assert kinds[0] == "All kinds" and sorted(kinds[1:]) == sorted(lane_kinds) and len(kinds) - 1 < 20
    pane.text.setFocus()
    QTest.keyClicks(pane.text, "run-1 p2 tool")
    got = [(_cells(pane, r)[0], _cells(pane, r)[3], _cells(pane, r)[4]) for r in range(pane.model.rowCount())]
    assert got and all(p == "P2" and "tool" in k for _s, p, k in got)
    assert pane.count.text() == f"{len(got)} of 19 events"
    QTest.keyClicks(pane.text, " nothing-has-this")
    assert pane.model.rowCount() == 0


def test_a_filter_set_on_one_checkpoint_is_cleared_for_the_next(qtbot, window):
    pane = _events(qtbot, window)
    pane.text.setFocus()
    QTest.keyClicks(pane.text, "p2")
    assert pane.model.rowCount() == 8
    live = [SCENARIOS / "01-live-export-first-pass.payload.json", SCENARIOS / "01-live-export-first-pass.descriptor.json"]
    open_and_wait(qtbot, window, live)
    qtbot.waitUntil(lambda: pane.model.timeline is not None and pane.model.rowCount() > 0)
    assert pane.text.text() == "" and pane.kind.currentIndex() == 0
    assert pane.model.rowCount() == pane.model.timeline.event_total + 1  # (and the boundary's row)
    assert pane.count.text() == f"{pane.model.timeline.event_total} events"


def test_the_resume_boundary_has_its_row_after_the_last_event_of_its_pass(qtbot, window):
    """FORMAT.md 4.17: the boundary sits after the last event of pass ``logical_resume.turn`` of the source run
    (scenario 02: after sequence 18, the pane's last event). End reaches it; selecting it selects no event."""
    pane = _events(qtbot, window)
    pane.view.setFocus()
    QTest.keyClick(pane.view, Qt.Key.Key_Home)
    QTest.keyClick(pane.view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    row = pane.view.currentIndex().row()
    assert row == 19 and pane.model.is_boundary(row)
    assert _cells(pane, row) == ["", "", "run-1", "P2", "resume boundary",
                                 "▌ the resume continues here, after pass 2 of this run (the loop checkpoint)"]
    assert _cells(pane, row - 1)[0] == "18"  # scenarios.jsonl: boundary ["run-1", 18]
    assert pane.model.row_of(0, 18) == 18 and pane.model.event_at(18) == (0, 18)
    # a filter hides it (its rows are events)
    pane.text.setText("P2")
    assert not any(pane.model.is_boundary(r) for r in range(pane.model.rowCount()))


def test_a_boundary_before_later_events_shifts_their_rows(qtbot, window):
    open_and_wait(qtbot, window, [SCENARIOS / "06-earlier-run-finished.payload.json",
                                  SCENARIOS / "06-earlier-run-finished.descriptor.json"])
    pane = window.resume_panes.events
    window.resume_panes.dock.show()
    window.resume_panes.tabs.setCurrentIndex(3)
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0)
    m = pane.model
    row, lane = m.boundary
    assert m.timeline.lanes[lane].id == "run-2"  # scenarios.jsonl: boundary ["run-2", 8]
    assert _cells(pane, row - 1)[2] == "run-2" and _cells(pane, row - 1)[0] == "8"
    assert m.rowCount() == m._offsets[-1] + 1
    for r in (row - 1, row + 1, m.rowCount() - 1):
        if r < m.rowCount() and not m.is_boundary(r):
            lane_i, e = m.event_at(r)
            assert m.row_of(lane_i, e) == r
