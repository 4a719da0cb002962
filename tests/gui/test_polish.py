"""Defects a newcomer trial left open: run event rows, the Field column, transcript numbering,
docks on a larger window. Driven by real input (key clicks, mouse clicks)."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui.roles import PointerRole  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
PINNED = ROOT / "tests" / "data" / "fixtures" / "cases-pinned"
CASE_056 = [PINNED / "056-toolend-binding-null.payload.json", PINNED / "056-toolend-binding-null.descriptor.json"]


def go_to(qtbot, window, pointer):
    """Ctrl+G, type ``pointer``, Enter (as a user would); returns the current tree index."""
    QTest.keyClick(window, Qt.Key.Key_G, CTRL)
    field = window.find_bar.pointer
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    field.clear()
    QTest.keyClicks(field, pointer)
    QTest.keyClick(field, Qt.Key.Key_Return)
    view = window.snap_pane.view
    assert view.currentIndex().data(PointerRole) == pointer
    return view.currentIndex()


def test_run_event_rows_show_sequence_type_and_tool_call(qtbot, window):
    open_and_wait(qtbot, window, CASE_056)
    idx = go_to(qtbot, window, "/snapshot/run_records/1/events/12")
    assert idx.siblingAtColumn(1).data() == "#12 tool_end (tool toolu_1)"
    idx = go_to(qtbot, window, "/snapshot/run_records/1/events/9")
    assert idx.siblingAtColumn(1).data() == "#9 turn_end (turn 1)"
    # the rows that were only "{3 keys}" before: every event of the run says what it is
    parent = idx.parent()
    texts = [parent.model().index(r, 1, parent).data() for r in range(parent.model().rowCount(parent))]
    assert texts[0].startswith("#0 ") and not any(t.startswith("{") for t in texts), texts


def _depth(index):
    d = 0
    while index.parent().isValid():
        index, d = index.parent(), d + 1
    return d


def test_field_column_grows_to_show_a_deep_key(qtbot, window):
    from inspector.gui.widgets.field_column import DEFAULT_WIDTH

    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    assert view.columnWidth(0) == DEFAULT_WIDTH  # shallow rows: the default width
    open_and_wait(qtbot, window, CASE_056)
    window.resize(1800, 1000)
    window.resizeDocks([window.trees_dock], [620], Qt.Orientation.Horizontal)  # a Trees pane with room for the key
    qtbot.waitUntil(lambda: view.viewport().width() > 560)
    pointer = "/snapshot/run_records/1/events/12/event/metadata/a3s_tool_result_transform_binding"
    idx = go_to(qtbot, window, pointer)
    # the key and its indentation (depth 7), its rule icon and margins fit in the column: not "a3…"
    need = (view.indentation() * (_depth(idx) + 1) + view.iconSize().width()
            + view.fontMetrics().horizontalAdvance("a3s_tool_result_transform_binding"))
    qtbot.waitUntil(lambda: view.columnWidth(0) >= need, timeout=3000)
    assert view.columnWidth(0) <= view.viewport().width() * 3 // 4
    assert idx.data(Qt.ItemDataRole.ToolTipRole).startswith(f"payload {pointer}\n")
    # moving up to a shallow row leaves the width alone (no jumping while reading)
    width = view.columnWidth(0)
    for _ in range(3):
        QTest.keyClick(view, Qt.Key.Key_Left)
    qtbot.wait(50)
    assert view.currentIndex().data(PointerRole) == "/snapshot/run_records/1/events/12/event"
    assert view.columnWidth(0) == width
    # in a pane too narrow for it, a key is cut in the middle (its start and end both show)
    assert type(view.itemDelegateForColumn(0)).__name__ == "MiddleElideDelegate"


def test_docks_keep_their_share_when_the_window_grows(qtbot, window):
    open_and_wait(qtbot, window, CASE_056)
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000 and window.height() == 700, timeout=1000)
    qtbot.wait(50)
    before = (window.trees_dock.width(), window.bytes_dock.width(), window.resume_panes.dock.height())
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    qtbot.wait(50)
    after = (window.trees_dock.width(), window.bytes_dock.width(), window.resume_panes.dock.height())
    # QMainWindow alone gives all 600 px to the verdicts: Trees and Bytes/Digests kept their width
    # (digests "2…9") and the Resume dock its height (the top timeline lane half hidden)
    assert abs(after[0] - before[0] * 1.6) <= 3 and abs(after[1] - before[1] * 1.6) <= 3, (before, after)
    assert abs(after[2] - before[2] * 1000 / 700) <= 3, (before, after)
