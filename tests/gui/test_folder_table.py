"""Folder table: clickable headers sort, the filter field filters, a Root cause column (issue 9, item 4)."""

import os

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from inspector.gui.roles import ObjectRole

from .conftest import open_mixed_folder


def _column(view, col):
    m = view.model()
    return [m.data(m.index(r, col)) for r in range(m.rowCount())]


def _names(view):
    m = view.model()
    out = []
    for r in range(m.rowCount()):
        row = m.data(m.index(r, 0), ObjectRole)
        out.append(os.path.basename(row.payload or row.descriptor or row.other))
    return out


def _click_header(view, section):
    hh = view.horizontalHeader()
    x = hh.sectionViewportPosition(section) + hh.sectionSize(section) // 2
    QTest.mouseClick(hh.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(x, hh.height() // 2))


def test_folder_table_sorts_filters_and_shows_root_cause(qtbot, window, tmp_path):
    assert open_mixed_folder(qtbot, window, tmp_path / "f") == 3
    view = window.folder_view
    m = view.model()
    assert [m.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == [
        "Payload", "Descriptor", "Verdict", "Root cause"]
    rules = dict(zip(_names(view), _column(view, 3)))
    assert rules["broken.payload.json"] == "X-BYTES"
    assert rules["payload-with-resume.json"] == "" and rules["notes.txt"] == ""
    scan_order = _names(view)
    assert scan_order[-1] == "notes.txt"  # scan order until a header is clicked

    _click_header(view, 0)  # Payload, ascending
    assert _column(view, 0) == sorted(_column(view, 0), key=str.casefold)
    _click_header(view, 0)  # descending
    assert _column(view, 0) == sorted(_column(view, 0), key=str.casefold, reverse=True)
    _click_header(view, 3)  # Root cause ascending: the failing row (X-BYTES) comes last
    assert _names(view)[-1] == "broken.payload.json"
    assert _column(view, 3)[-1] == "X-BYTES"

    window.folder_filter.setFocus()
    QTest.keyClicks(window.folder_filter, "x-bytes")  # by rule id (case-insensitive)
    assert _names(view) == ["broken.payload.json"]
    window.folder_filter.clear()
    QTest.keyClicks(window.folder_filter, "notes")  # by file name
    assert _names(view) == ["notes.txt"]
    window.folder_filter.clear()
    QTest.keyClicks(window.folder_filter, "not a checkpoint")  # by verdict text
    assert _names(view) == ["notes.txt"]
    window.folder_filter.clear()
    assert sorted(_names(view)) == sorted(scan_order)

    # activating a sorted, filtered row opens that row's checkpoint
    QTest.keyClicks(window.folder_filter, "broken")
    assert _names(view) == ["broken.payload.json"]
    view.setFocus()
    view.setCurrentIndex(m.index(0, 0))
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert window.report.root_cause.rule.id == "X-BYTES"
