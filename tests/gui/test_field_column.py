"""The trees' Field column (inspector/gui/widgets/field_column.py), driven by real input.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from inspector.gui.roles import PointerRole  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P, go_to, open_and_wait  # noqa: E402
from tests.conftest import ROOT  # noqa: E402


PINNED = ROOT / "tests" / "data" / "fixtures" / "cases-pinned"
CASE_056 = [PINNED / "056-toolend-binding-null.payload.json", PINNED / "056-toolend-binding-null.descriptor.json"]


def _depth(index):
    d = 0
    while index.parent().isValid():
        index, d = index.parent(), d + 1
    return d


def test_field_column_grows_to_show_a_deep_key(qtbot, window):
    from inspector.gui.widgets.field_column import DEFAULT_WIDTH

    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    # a narrow Trees pane (the compact layout of the 760 px test window): the Value column keeps a quarter
    qtbot.waitUntil(lambda: view.columnWidth(0) == min(DEFAULT_WIDTH, view.viewport().width() * 3 // 4), timeout=1000)
    window.resize(1400, 900)
    qtbot.waitUntil(lambda: view.viewport().width() * 3 // 4 > DEFAULT_WIDTH, timeout=1000)
    qtbot.waitUntil(lambda: view.columnWidth(0) == DEFAULT_WIDTH, timeout=1000)  # shallow rows: the default width
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
