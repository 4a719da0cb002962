"""Ctrl+C and the context menus copy what the user means, driven by real key presses."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QTimer, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui.copying import jq_path  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

CONTENT = "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"


def _select(qtbot, window, view, idx):
    window.activateWindow()  # back from a closed context menu
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.focus_pane(view)
    view.setFocus()
    view.setCurrentIndex(idx)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)


def _ctrl_c(view):
    QApplication.clipboard().setText("")
    QTest.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    return QApplication.clipboard().text()


def test_ctrl_c_in_a_tree_copies_the_value_not_the_key(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    idx = window.snap_model.index_for_pointer("/snapshot/session/id")  # column 0: the key cell
    _select(qtbot, window, view, idx)
    assert _ctrl_c(view) == "session-checkpoint-1"
    desc = window.desc_pane.view
    window.lower_trees.setCurrentWidget(window.desc_pane)
    _select(qtbot, window, desc, window.desc_model.index_for_pointer("/content_digest"))
    assert _ctrl_c(desc) == CONTENT


def test_ctrl_c_in_the_verdicts_copies_rule_and_message(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    view = window.findings_view
    _select(qtbot, window, view, window.findings_model.index_for_rule("X-BYTES"))
    f = window.report.for_rule("X-BYTES")
    assert _ctrl_c(view) == f"X-BYTES: {f.message}"
    assert f.message.startswith("session checkpoint content drift")


def test_ctrl_c_in_the_digests_copies_the_digest(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.digests_view
    m = window.digests_model
    row = next(r for r in range(m.rowCount()) if m.row_object(r).label == "payload content_digest")
    _select(qtbot, window, view, m.index(row, 0))  # the label cell
    assert _ctrl_c(view) == CONTENT


def test_ctrl_c_in_the_bytes_copies_the_value_at_the_cursor(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    _select(qtbot, window, view, window.snap_model.index_for_pointer("/snapshot/session/id"))
    hexv = window.hex_payload
    hexv.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is hexv)
    assert _ctrl_c(hexv) == "session-checkpoint-1"


def _menu_pick(qtbot, view, open_menu, label):
    """Open the context menu with ``open_menu()``; choose ``label`` with the keyboard; return the
    clipboard and the menu's labels."""
    seen = []

    def choose():
        menu = QApplication.activePopupWidget()
        if menu is None:
            QTimer.singleShot(20, choose)
            return
        labels = [a.text() for a in menu.actions()]
        seen.append(labels)
        for _ in range(labels.index(label) + 1):
            QTest.keyClick(menu, Qt.Key.Key_Down)
        QTest.keyClick(menu, Qt.Key.Key_Return)
    QApplication.clipboard().setText("")
    QTimer.singleShot(20, choose)
    open_menu()
    qtbot.waitUntil(lambda: bool(seen))
    return QApplication.clipboard().text(), seen[0]


def test_tree_context_menu_by_the_menu_key(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    _select(qtbot, window, view, window.snap_model.index_for_pointer("/snapshot/session/messages/0/role"))
    menu_key = lambda: QTest.keyClick(view, Qt.Key.Key_Menu)  # noqa: E731
    text, labels = _menu_pick(qtbot, view, menu_key, "Copy as jq Path")
    assert labels == ["Copy Value", "Copy JSON Pointer", "Copy JSON of the Subtree", "Copy as jq Path"]
    assert text == ".snapshot.session.messages[0].role"
    text, _ = _menu_pick(qtbot, view, menu_key, "Copy JSON Pointer")
    assert text == "/snapshot/session/messages/0/role"
    _select(qtbot, window, view, window.snap_model.index_for_pointer("/snapshot/session/messages/0/content/0"))
    text, _ = _menu_pick(qtbot, view, menu_key, "Copy JSON of the Subtree")
    s, e = window.snap_model.data(view.currentIndex(), 0x0100 + 5)
    assert text == GOLDEN_P.read_bytes()[s:e].decode()
    assert text.startswith("{") and text.endswith("}")


def test_verdict_and_digest_context_menus(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    view = window.findings_view
    _select(qtbot, window, view, window.findings_model.index_for_rule("X-BYTES"))
    text, labels = _menu_pick(qtbot, view, lambda: QTest.keyClick(view, Qt.Key.Key_Menu), "Copy JSON Pointer")
    assert labels[0] == "Copy Rule and Message"
    assert text == window.report.for_rule("X-BYTES").locations[0].pointer
    dv = window.digests_view
    m = window.digests_model
    row = next(r for r in range(m.rowCount()) if m.row_object(r).label == "payload content_digest")
    _select(qtbot, window, dv, m.index(row, 0))
    # a right click (through the window, as the platform delivers it) selects the row under the pointer
    _select(qtbot, window, dv, m.index(0, 0))
    pt = dv.viewport().mapTo(window, dv.visualRect(m.index(row, 0)).center())
    right = lambda: QTest.mouseClick(window.windowHandle(), Qt.MouseButton.RightButton,  # noqa: E731
                                     Qt.KeyboardModifier.NoModifier, pt)
    text, labels = _menu_pick(qtbot, dv, right, "Copy Stated Digest")
    assert labels[:2] == ["Copy Recomputed Digest", "Copy Stated Digest"]
    assert text == m.row_object(row).stated != m.row_object(row).recomputed


def test_bytes_context_menu_copies_hex(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    _select(qtbot, window, view, window.snap_model.index_for_pointer("/snapshot/session/id"))
    hexv = window.hex_payload
    s, e = hexv.highlighted
    hexv.setFocus()
    text, labels = _menu_pick(qtbot, hexv, lambda: QTest.keyClick(hexv, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier),
                               "Copy Bytes as Hex")
    assert text == GOLDEN_P.read_bytes()[s:e].hex(" ")
    assert text.startswith("22 73 65 73 73 69 6f 6e")  # "session


def test_jq_path_quotes_keys_that_are_not_identifiers():
    assert jq_path("/snapshot/session/messages/3/content") == ".snapshot.session.messages[3].content"
    assert jq_path("/a~1b/c d/\"q\"/0", {3}) == '.["a/b"]["c d"]["\\"q\\""][0]'
    assert jq_path("/m/0", set()) == '.m["0"]'
    assert jq_path("") == "."
