"""Usable with a screen reader and the keyboard alone: every interactive control of the main
window has a name, no table row reads the same text in every cell, the bytes view and the timeline describe the
byte under the cursor and the selected event and read it through their accessible text (and value) interfaces,
Tab leaves the tables and reaches every pane, and a new verdict is announced.

``tools/atspi_dump.sh`` shows the same through AT-SPI, as a screen reader on Linux sees it."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleTextCursorEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui import accessibility  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait  # noqa: E402
from .test_resume_panes import RICH  # noqa: E402

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
               if (i.role() in INTERACTIVE or i.state().focusable) and not i.text(T.Name)]
    assert unnamed == []
    # an icon that stands for something (the verdict's, a message's) is named too; an empty label is not an icon
    icons = [i for i in found if i.role() == R.Graphic and i.object() is not None
             and not i.object().pixmap().isNull()]
    assert icons and [i.text(T.Name) for i in icons if not i.text(T.Name)] == []
    assert "Verdict: FAIL" in [i.text(T.Name) for i in icons]
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


def test_every_new_verdict_is_said_even_when_its_words_repeat_and_never_twice(qtbot, window, monkeypatch):
    said = []
    monkeypatch.setattr(QAccessible, "isActive", staticmethod(lambda: True))
    monkeypatch.setattr(accessibility.QAccessible, "updateAccessibility", staticmethod(
        lambda e: said.append((type(e).__name__, e.message(), e.politeness()))
        if isinstance(e, QAccessibleAnnouncementEvent) else None))
    verified = "VERIFIED: the reference accepts this checkpoint"
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    qtbot.waitUntil(lambda: len(said) == 1, timeout=3000)
    assert said == [("QAccessibleAnnouncementEvent", verified, QAccessible.AnnouncementPoliteness.Polite)]
    window.resize(window.width() - 40, window.height())  # a relayout: nothing new to say
    QTest.qWait(accessibility.SETTLE_MS + 200)
    assert len(said) == 1
    # a second checkpoint with the same verdict line is said again (it used to be silent)
    open_and_wait(qtbot, window, [CASES / "01-valid.payload.json", CASES / "01-valid.descriptor.json"])
    qtbot.waitUntil(lambda: len(said) == 2, timeout=3000)
    assert said[1][1] == verified
    assert window.status_label.accessibleName() == verified


def _caret_line(iface) -> str:
    """The line of the text interface at its caret (what a screen reader reads after the caret moved)."""
    ti = iface.textInterface()
    text = ti.text(0, ti.characterCount())
    return text[ti.cursorPosition():].split("\n", 1)[0]


def test_the_arrow_keys_move_the_bytes_view_byte_by_byte_and_its_text_interface_reads_each_byte(
        qtbot, window, monkeypatch):
    carets = []
    monkeypatch.setattr(QAccessible, "isActive", staticmethod(lambda: True))
    monkeypatch.setattr(accessibility.QAccessible, "updateAccessibility", staticmethod(
        lambda e: carets.append((e.object().objectName(), e.cursorPosition()))
        if isinstance(e, QAccessibleTextCursorEvent) else None))
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    data = GOLDEN_P.read_bytes()
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    QTest.keyClick(window, Qt.Key.Key_6, Qt.KeyboardModifier.AltModifier)  # Go ▸ Bytes
    qtbot.waitUntil(hexv.hasFocus, timeout=2000)
    iface = QAccessible.queryAccessibleInterface(hexv)
    assert (iface.role(), iface.text(T.Name), iface.state().readOnly) == (R.EditableText, "Payload bytes", True)
    start = data.index(b"retain exact state")  # inside the string /logical_resume/messages/0/content/0/text
    hexv.go_to(start)
    for step in (1, 2, 3):
        carets.clear()
        QTest.keyClick(hexv, Qt.Key.Key_Right)
        off = start + step
        # one byte per key: the tree's selection used to pull the cursor back to the string's first byte (266)
        assert hexv.cursor_offset == off
        assert hexv.highlighted == (266, 286)
        assert _caret_line(iface) == (f"byte {off}: 0x{data[off]:02x}, '{chr(data[off])}', "
                                      "field /logical_resume/messages/0/content/0/text")
        assert carets == [("payloadBytes", iface.textInterface().cursorPosition())]  # said once per key
    assert _caret_line(iface) == "byte 270: 0x61, 'a', field /logical_resume/messages/0/content/0/text"
    ti = iface.textInterface()
    assert ti.selectionCount() == 0  # (not bound in PySide6: the span is said in each line instead)
    row = hexv._row
    first = (start + 3) - (start + 3) % row
    assert ti.text(0, ti.characterCount()).split("\n")[0].startswith(f"byte {first}: 0x{data[first]:02x}, ")
    assert len(ti.text(0, ti.characterCount()).split("\n")) == row


def test_the_timeline_reads_the_selected_event_as_text_and_value_when_an_arrow_key_selects_it(qtbot, window,
                                                                                             monkeypatch):
    said = []
    monkeypatch.setattr(QAccessible, "isActive", staticmethod(lambda: True))
    monkeypatch.setattr(accessibility.QAccessible, "updateAccessibility", staticmethod(
        lambda e: said.append((e.type(), e.object().objectName()))))
    open_and_wait(qtbot, window, RICH)
    tl = window.resume_panes.timeline
    QTest.keyClick(window, Qt.Key.Key_7, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: tl.hasFocus() and tl.timeline is not None, timeout=5000)
    iface = QAccessible.queryAccessibleInterface(tl)
    assert (iface.role(), iface.text(T.Name)) == (R.EditableText, "Timeline of runs and events")
    assert _caret_line(iface) == "2 runs; no event selected (arrow keys select one)"
    said.clear()
    QTest.keyClick(tl, Qt.Key.Key_Right)
    QTest.keyClick(tl, Qt.Key.Key_Right)
    assert tl.selected == (0, 1)
    line = "cognitive_context_bound, event #4 of run run-legacy, pass P1, at 10:39:00.010 UTC"
    assert _caret_line(iface) == line
    assert iface.text(T.Value) == line
    assert tl.accessibleDescription() == f"2 runs; selected: {line}"
    lines = iface.textInterface().text(0, 10_000).split("\n")
    assert lines[0] == "turn_start, event #3 of run run-legacy, pass P1, at 10:39:00.000 UTC" and len(lines) == 4
    value = iface.valueInterface()
    assert (value.currentValue(), value.minimumValue(), value.maximumValue()) == (4, 3, 7)
    kinds = [k for k, name in said if name == "timelineView"]
    E = QAccessible.Event
    assert kinds == [E.TextUpdated, E.TextCaretMoved, E.ValueChanged] * 2  # once per key


def test_tab_alone_reaches_every_pane_in_reading_order_and_comes_back(qtbot, window):
    window.resize(1600, 1000)  # the wide layout (below 1100 px the Resume dock is a tab: test_compact_layout)
    qtbot.waitUntil(lambda: not window.compact.compact, timeout=2000)
    open_and_wait(qtbot, window, RICH)
    window.focus_pane(window.findings_view)
    qtbot.waitUntil(window.findings_view.hasFocus, timeout=2000)
    seen = []
    for _ in range(40):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        w = QApplication.focusWidget()
        name = w.objectName() or w.accessibleName() or type(w).__name__
        if not seen or seen[-1] != name:
            seen.append(name)
        if w is window.findings_view:
            break
    panes = [n for n in seen if n in {"snapshotTree", "descriptorTree", "resumeTree", "payloadBytes",
                                      "descriptorBytes", "digestsView", "timelineView", "copyForTicket",
                                      "findingsView"}]
    # the verdict's details, then the trees, the bytes, the digests, the resume dock, the verdict bar, the verdicts
    assert panes[0] == "snapshotTree" and panes[-1] == "findingsView"
    order = ["snapshotTree", "payloadBytes", "digestsView", "timelineView", "copyForTicket", "findingsView"]
    assert [n for n in panes if n in order] == order


def test_the_views_can_be_read_before_their_constructor_has_run(qapp):
    """A screen reader may ask for a view's interface while Qt's own constructor runs (before ours sets the
    fields): it reads the empty view, not an AttributeError."""
    from inspector.gui.widgets.hex_view import HexView
    from inspector.gui.widgets.timeline import TimelineView

    assert HexView.accessible_lines(HexView.__new__(HexView)) == (["No file"], 0)
    half = TimelineView.__new__(TimelineView)
    assert (TimelineView.accessible_lines(half), TimelineView.accessible_value(half)) == (
        (["No checkpoint open."], 0), (0, 0, 0))
