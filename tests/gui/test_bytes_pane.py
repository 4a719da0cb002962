"""Bytes pane: Go to Offset (Ctrl+L) and invalid UTF-8 marks, driven by real keys and mouse."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog  # noqa: E402

from inspector.gui.roles import PointerRole  # noqa: E402
from inspector.gui.widgets.hex_view import parse_offset  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_parse_offset_decimal_hex_and_out_of_range():
    assert parse_offset("1234", 2000) == (1234, "")
    assert parse_offset(" 0x4D2 ", 2000) == (1234, "")
    assert parse_offset("1999", 2000) == (1999, "")
    assert parse_offset("2000", 2000) == (None, "offset 2000 (0x7d0) is out of range: the file has 2000 bytes "
                                                "(last is 1999)")
    assert parse_offset("zz", 10) == (None, "not an offset: 'zz' (use decimal or 0x hex)")


def _type_offset(hexv, text):
    QTest.keyClick(hexv, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert hexv.goto_edit.isVisible() and hexv.goto_edit.hasFocus()
    QTest.keyClicks(hexv.goto_edit, text)
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Return)


def test_ctrl_l_goes_to_offset_and_tree_follows(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    data = GOLDEN_P.read_bytes()
    at = data.index(b'"max_output_bytes":102400') + len(b'"max_output_bytes":')
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    hexv.setFocus()
    QApplication.processEvents()
    _type_offset(hexv, hex(at + 2))
    assert not hexv.goto_edit.isVisible()
    assert hexv.cursor_offset == at + 2
    view = window.snap_pane.view
    assert view.model().data(view.currentIndex(), PointerRole) == \
        "/snapshot/session/config/tool_result_transform_policy/max_output_bytes"
    assert hexv.highlighted == (at, at + 6)
    first = hexv.verticalScrollBar().value()
    assert first <= (at + 2) // hexv._row < first + hexv.verticalScrollBar().pageStep()
    # decimal, in the resume boundary: that tree selects the node
    turn = data.index(b'"turn":3') + 7
    _type_offset(hexv, str(turn))
    rv = window.resume_pane.view
    assert rv.model().data(rv.currentIndex(), PointerRole) == "/logical_resume/turn"
    assert hexv.cursor_offset == turn and hexv.highlighted == (turn, turn + 1)


def test_out_of_range_offset_is_said_in_place(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    n = len(GOLDEN_P.read_bytes())
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    hexv.setFocus()
    before = hexv.cursor_offset
    for _ in range(3):
        _type_offset(hexv, str(n))
        assert hexv.goto_edit.isVisible()
        assert hexv.goto_message.text() == (f"offset {n} (0x{n:x}) is out of range: the file has {n} bytes "
                                            f"(last is {n - 1})")
        hexv.goto_edit.clear()
    assert not [t for t in QApplication.topLevelWidgets() if isinstance(t, QDialog) and t.isVisible()]
    assert hexv.cursor_offset == before
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Escape)
    assert not hexv.goto_edit.isVisible() and hexv.hasFocus()


def test_invalid_utf8_offsets_exact():
    from inspector.gui.widgets.hex_view import invalid_utf8_offsets

    data = b'ab\xffc\xe2\x82\xac d\xe2\x82e\xc0\xaf' + "é".encode() + b"\x80"
    # 0xff at 2; euro sign 4..6 valid; truncated e2 82 at 9,10; c0 af (overlong) at 12,13; é 14,15; lone 80 at 16
    assert invalid_utf8_offsets(data, 0, len(data)) == {2, 9, 10, 12, 13, 16}
    # a window that starts inside a valid sequence gives the same answer as the whole file
    assert invalid_utf8_offsets(data, 5, 8) == set()
    assert invalid_utf8_offsets(data, 10, 15) == {10, 12, 13}


def test_invalid_byte_has_glyph_and_tooltip(qtbot):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    from inspector.gui.widgets.hex_view import HexView

    v = HexView()
    qtbot.addWidget(v)
    v.resize(700, 200)
    v.show()
    v.set_data(b'{"a":"x\xffy"}')
    pos = v.offset_position(7)
    QTest.mouseMove(v.viewport(), pos)
    QApplication.sendEvent(v.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos, v.viewport().mapToGlobal(pos)))
    assert QToolTip.text() == "Invalid UTF-8: byte 0xff at offset 7 (0x7) is not part of a valid UTF-8 sequence"
    QTest.mouseClick(v.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, v.offset_position(6))
    assert v.cursor_offset == 6
    pos6 = v.offset_position(6)
    QApplication.sendEvent(v.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos6, v.viewport().mapToGlobal(pos6)))
    assert not QToolTip.isVisible()  # a valid byte has no such tooltip


def test_parse_needle_and_find_all():
    from inspector.session.hex_search import find_all, parse_needle

    assert parse_needle("hex: 7b 22ff") == (b'{"\xff', "")
    assert parse_needle("hex: 7") == (None, "hex: needs pairs of hex digits, e.g. hex: 7b 22 ff")
    assert parse_needle("turn") == (b"turn", "")
    assert find_all(b"aaaa", b"aa") == ([0, 1, 2], False)
    assert find_all(b"aaaa", b"aa", limit=2) == ([0, 1], True)


def _find(hexv, text, shift=False):
    mods = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    if text is not None:
        QTest.keyClick(hexv, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        assert hexv.goto_edit.hasFocus() and hexv.goto_label.text() == "Find:"
        hexv.goto_edit.clear()
        QTest.keyClicks(hexv.goto_edit, text)
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Return, mods)


def test_ctrl_shift_b_finds_text_and_hex_next_previous(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    data = GOLDEN_P.read_bytes()
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    hexv.setFocus()
    QApplication.processEvents()
    hits = [i for i in range(len(data)) if data.startswith(b"102400", i)]
    assert len(hits) >= 2
    _find(hexv, "102400")
    assert hexv.matches == hits and hexv.highlighted == (hits[0], hits[0] + 6)
    assert hexv.goto_message.text() == f"match 1 of {len(hits)} at offset {hits[0]} (0x{hits[0]:x})"
    _find(hexv, None)
    assert hexv.highlighted == (hits[1], hits[1] + 6)
    _find(hexv, None, shift=True)
    _find(hexv, None, shift=True)  # wraps to the last
    assert hexv.highlighted == (hits[-1], hits[-1] + 6)
    at = data.index(b'"turn":3')
    _find(hexv, 'hex: 22 74 75 72 6e 22 3a 33')
    assert hexv.highlighted == (at, at + 8) and hexv.matches == [at]
    _find(hexv, "no such text here")
    assert hexv.goto_message.text() == "no match"


def test_large_file_is_searched_off_the_gui_thread(qtbot):
    from inspector.gui.widgets.hex_view import HexView

    v = HexView()
    qtbot.addWidget(v)
    v.resize(700, 300)
    v.show()
    data = bytearray(6 * 1024 * 1024)
    for off in (5, 4 * 1024 * 1024 - 2, 6 * 1024 * 1024 - 4):  # one straddles the 4 MiB search window
        data[off:off + 4] = b"NEED"
    v.set_data(bytes(data))
    v.activateWindow()
    v.setFocus()
    qtbot.waitUntil(v.hasFocus, timeout=2000)
    _find(v, "NEED")
    assert v._search_job is not None  # the search runs as a job
    qtbot.waitUntil(lambda: v._search_job is None, timeout=10000)
    assert v.matches == [5, 4 * 1024 * 1024 - 2, 6 * 1024 * 1024 - 4]
    assert v.highlighted == (5, 9)
    _find(v, None)
    assert v.highlighted == (4 * 1024 * 1024 - 2, 4 * 1024 * 1024 + 2)


def drag_bytes(qtbot, window, needle: bytes, steps):
    """Open the golden pair, show the payload's bytes and drag with the left button over the bytes
    ``needle``'s offset + each of ``steps`` (pressed at the first, released at the last); returns
    (hex view, payload bytes, needle's offset)."""
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    data = GOLDEN_P.read_bytes()
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    hexv.setFocus()
    QApplication.processEvents()
    a = data.index(needle)
    vp = hexv.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, hexv.offset_position(a + steps[0]))
    for s in steps[1:]:
        QTest.mouseMove(vp, hexv.offset_position(a + s))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       hexv.offset_position(a + steps[-1]))
    return hexv, data, a


def test_drag_selects_a_byte_range_and_copies_it_as_hex(qtbot, window):
    from .test_copying import _menu_pick

    hexv, data, a = drag_bytes(qtbot, window, b'"turn":3', [7, 3, 0])
    assert hexv.highlighted == (a, a + 8)
    text, _labels = _menu_pick(qtbot, hexv, lambda: QTest.keyClick(hexv, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier),
                               "Copy Bytes as Hex")
    assert text == "22 74 75 72 6e 22 3a 33"  # "turn":3


def test_bytes_per_row_follow_the_width(qtbot):
    from inspector.gui.widgets.hex_view import HexView

    v = HexView()
    qtbot.addWidget(v)
    v.set_data(bytes(range(256)))
    v.show()
    for width, row in ((900, 16), (v.narrow_width(), 8), (900, 16)):
        v.resize(width, 300)
        qtbot.waitUntil(lambda: v.viewport().width() > 0)
        QApplication.processEvents()
        v.viewport().update()
        QTest.mouseClick(v.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         v.offset_position(37))
        assert (v._row, v.cursor_offset) == (row, 37)
        assert v.verticalScrollBar().maximum() == max(0, 256 // row - v.verticalScrollBar().pageStep())


def _start_slow_load(window, monkeypatch):
    from inspector.session import engine

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # a load in worker processes (not instant)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible() and window.act_stop.isEnabled()


def test_esc_in_the_bytes_go_to_field_closes_it_while_a_load_runs(qtbot, window, monkeypatch):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _start_slow_load(window, monkeypatch)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)  # Go ▸ Go to Offset…
    hexv = window.hex_tabs.currentWidget()
    assert hexv.goto_edit.hasFocus()
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Escape)
    assert not hexv._goto_bar.isVisible()
    assert window.act_stop.isEnabled() and window.banner_text("info") is None


def test_a_right_click_inside_dragged_bytes_copies_them_not_the_field_under_the_pointer(qtbot, window):
    # Mouse trial: drag over bytes, right-click, Copy Bytes as Hex: the right click selected the field
    # under the pointer (its value "1732040265008"), and that was copied instead of the dragged bytes.
    from .test_bytes_pane import drag_bytes
    from .test_copying import _menu_pick

    hexv, data, a = drag_bytes(qtbot, window, b'"turn":3', [0, 4, 7])
    vp = hexv.viewport()
    qtbot.wait(100)
    assert hexv.highlighted == (a, a + 8)

    def right_click():
        QTest.mousePress(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, hexv.offset_position(a + 7))
        QTest.mouseRelease(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier,
                           hexv.offset_position(a + 7))
        qtbot.wait(100)  # the selection relay runs
        QTest.keyClick(hexv, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    text, _labels = _menu_pick(qtbot, hexv, right_click, "Copy Bytes as Hex")
    assert text == "22 74 75 72 6e 22 3a 33"  # "turn":3
    # outside the selection a right click still moves to the byte under the pointer
    b = data.index(b'"schema_version"')
    QTest.mousePress(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, hexv.offset_position(b + 2))
    QTest.mouseRelease(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, hexv.offset_position(b + 2))
    qtbot.waitUntil(lambda: hexv.highlighted != (a, a + 8))
    start, end = hexv.highlighted  # the field under the pointer: its value
    assert start == b + len(b'"schema_version":') and data[start:end] == b"1"
