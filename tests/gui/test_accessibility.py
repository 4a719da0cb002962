"""Usable with a screen reader and the keyboard alone (issue 25 item 6): every interactive control of the main
window has a name, no table row reads the same text in every cell, the bytes view and the timeline describe the
byte under the cursor and the selected event, Tab leaves the tables, and a new verdict is announced."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QAccessible  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui import accessibility  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait  # noqa: E402

R, T = QAccessible.Role, QAccessible.Text
INTERACTIVE = {R.PushButton, R.CheckBox, R.RadioButton, R.EditableText, R.ComboBox, R.PageTab, R.Table, R.Tree,
               R.List, R.SpinBox, R.Slider}


def _walk(iface, out, depth=0):
    if iface is None or not iface.isValid() or iface.state().invisible:
        return
    out.append(iface)
    if depth < 40 and iface.role() not in (R.Table, R.Tree, R.List):
        for i in range(iface.childCount()):
            _walk(iface.child(i), out, depth + 1)


def _rows(table) -> list[list[str]]:
    """The cells' accessible names of a table or tree interface, row by row (headers left out)."""
    kids = [table.child(i) for i in range(table.childCount())]
    cols = sum(1 for k in kids if k is not None and k.role() == R.ColumnHeader)
    cells = [k.text(T.Name) for k in kids if k is not None and k.role() in (R.Cell, R.TreeItem)]
    return [cells[i:i + cols] for i in range(0, len(cells) - cols + 1, cols)] if cols > 1 else []


def test_every_control_is_named_and_no_row_reads_one_text_in_every_cell(qtbot, window):
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    found: list = []
    _walk(QAccessible.queryAccessibleInterface(window), found)
    assert len(found) > 80
    unnamed = [(i.role(), i.object().objectName() if i.object() else None) for i in found
               if i.role() in INTERACTIVE and not i.text(T.Name)]
    assert unnamed == []
    tables = [i for i in found if i.role() in (R.Table, R.Tree)]
    names = {t.object().objectName() for t in tables}
    assert {"digestsView", "findingsView", "snapshotTree"} <= names
    same = [(t.object().objectName(), row[0]) for t in tables for row in _rows(t)[:20] if len(set(row)) == 1]
    assert same == []


def test_the_bytes_view_and_the_timeline_say_what_is_under_the_cursor(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    hexv = window.hex_payload
    window.focus_pane(hexv)
    qtbot.waitUntil(hexv.hasFocus, timeout=2000)
    QTest.keyClick(hexv, Qt.Key.Key_Right)  # the cursor moves; the trees follow, and the field's span is selected
    off = hexv.cursor_offset
    byte = GOLDEN_P.read_bytes()[off]
    assert hexv.accessibleDescription().startswith(f"byte {off} of 2090: 0x{byte:02x}, '{chr(byte)}'; selected bytes ")
    assert "; field /" in hexv.accessibleDescription()
    QTest.keyClick(window, Qt.Key.Key_7, Qt.KeyboardModifier.AltModifier)
    tl = window.resume_panes.timeline
    qtbot.waitUntil(lambda: tl.hasFocus() and tl.timeline is not None, timeout=5000)  # (the views come after)
    assert tl.accessibleDescription() == "1 run; no event selected (arrow keys select one)"
    QTest.keyClick(tl, Qt.Key.Key_Down)
    assert tl.accessibleDescription() == "1 run; selected: run source-run, executing, 0 events retained of 0"


def test_tab_leaves_the_digests_table_for_the_next_pane(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.digests_view
    window.focus_pane(view)
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    row = view.currentIndex().row()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert not view.hasFocus()  # (it used to move cell by cell and wrap around: 36 cells, never out)
    assert view.currentIndex().row() == row


def test_a_new_verdict_is_announced_once(qtbot, window, monkeypatch):
    said = []
    monkeypatch.setattr(QAccessible, "isActive", staticmethod(lambda: True))
    monkeypatch.setattr(accessibility.QAccessible, "updateAccessibility", staticmethod(
        lambda e: said.append((type(e).__name__, e.message(), e.politeness()))))
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window._update_verdict_display()  # the same verdict again: not said twice
    assert said == [("QAccessibleAnnouncementEvent", "VERIFIED: the reference accepts this checkpoint",
                     QAccessible.AnnouncementPoliteness.Polite)]
    assert window.status_label.accessibleName() == "VERIFIED: the reference accepts this checkpoint"
