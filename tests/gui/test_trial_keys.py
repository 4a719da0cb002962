"""Defects found by trying the window keyboard-only under a real X server (issue 9, trial round two)."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.session.lazyjson import find_span  # noqa: E402
from tests.conftest import SAMPLES  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

ALT = Qt.KeyboardModifier.AltModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _menu(window, title: str):
    return next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == title)


def test_alt_f_opens_the_file_menu_at_the_first_press_and_the_failures_only_box_has_its_own_key(qtbot, window):
    # The box was "&Failures only": Alt+F was then ambiguous, and the first press only moved the focus to
    # the box (the File menu opened at the second press).
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    view = window.findings_view
    QTest.keyClick(window, Qt.Key.Key_4, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    file_menu = _menu(window, "File")
    QTest.keyClick(view, Qt.Key.Key_F, ALT)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is file_menu, timeout=2000)
    QTest.keyClick(file_menu, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)
    QTest.keyClick(window, Qt.Key.Key_Escape)  # leave the menu bar
    # the box's own key toggles it, and no top-level menu shares it
    box = window.failures_only
    assert box.text() == "Failures &only"
    menu_keys = {a.text()[a.text().index("&") + 1].lower() for a in window.menuBar().actions()}
    assert "o" not in menu_keys
    assert box.isChecked()
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_O, ALT)
    qtbot.waitUntil(lambda: not box.isChecked(), timeout=2000)


def test_expand_all_with_a_leaf_selected_expands_the_whole_tree(qtbot, window):
    # Keyboard trial: Go to JSON Pointer /snapshot/session/id, Alt+1, Ctrl+Shift+X: nothing was expanded
    # (the expansion started at the selected row, a string, which has nothing below it).
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view, model = window.snap_pane.view, window.snap_model
    QTest.keyClick(window, Qt.Key.Key_1, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    view.setCurrentIndex(model.index_for_pointer("/snapshot/session/id"))
    deep = "/snapshot/run_records/0/snapshot"
    assert not view.isExpanded(model.index_for_pointer(deep))
    with qtbot.waitSignal(window.expander.finished, timeout=20000) as done:
        QTest.keyClick(view, Qt.Key.Key_X, CTRL_SHIFT)
    assert done.args[0] > 50
    assert view.isExpanded(model.index_for_pointer(deep))
    assert view.isExpanded(model.index_for_pointer("/snapshot/session/config/tool_result_transform_policy"))
    # the selection stays where it was
    assert model.index_for_pointer("/snapshot/session/id") == view.currentIndex().siblingAtColumn(0)


def test_help_lists_the_failures_only_key(qtbot, window):
    from inspector.gui.menus import shortcut_sections

    panes = dict(shortcut_sections(window))["In the panes"]
    key = window.failures_only.text().split("&")[1][0].upper()
    assert ("Verdicts: failures only / every rule", f"Alt+{key}") in panes
    assert key == "O"


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


def test_compare_with_a_descriptor_while_a_pair_is_open_compares_the_descriptors(qtbot, window):
    # Mouse trial: File ▸ Compare With…, pick sample.descriptor.json while the broken pair is open:
    # "ERROR: Compare two payloads or two descriptors; got ….payload.json (payload) and ….descriptor.json
    # (descriptor)", and both panes kept saying "comparing…".
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    window.comparer.pick_file = lambda title: str(SAMPLES / "sample.descriptor.json")  # the dialog's answer
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        QTest.keyClick(window, Qt.Key.Key_D, CTRL_SHIFT)
    win = sig.args[0]
    qtbot.waitUntil(lambda: win.result is not None, timeout=20000)
    assert [win.result.a.path, win.result.b.path] == [str(SAMPLES / "broken.descriptor.json"),
                                                     str(SAMPLES / "sample.descriptor.json")]
    assert not win.summary.text().startswith("ERROR")
    win.close()


def test_a_comparison_that_cannot_be_made_does_not_keep_saying_comparing(qtbot, window, tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"name": "not a checkpoint"}')
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json"])
    window.comparer.pick_file = lambda title: str(other)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        QTest.keyClick(window, Qt.Key.Key_D, CTRL_SHIFT)
    win = sig.args[0]
    qtbot.waitUntil(lambda: win.statusBar().currentMessage() == "The comparison could not be made.", timeout=20000)
    assert win.summary.text().startswith("ERROR: ")
    assert [h.text() for h in win.headers] == ["<b>broken.payload.json</b><br>not compared",
                                               "<b>notes.json</b><br>not compared"]
    win.close()


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


def test_a_right_click_inside_dragged_bytes_copies_them_not_the_field_under_the_pointer(qtbot, window):
    # Mouse trial: drag over bytes, right-click, Copy Bytes as Hex: the right click selected the field
    # under the pointer (its value "1732040265008"), and that was copied instead of the dragged bytes.
    from .test_bytes_pane import drag_bytes
    from .test_copy import _menu_pick

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
