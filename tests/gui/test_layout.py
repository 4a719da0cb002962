"""The window's docks and panes at every size (inspector/gui/layout.py), driven by real input.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from .conftest import open_and_wait  # noqa: E402
from tests.conftest import ROOT  # noqa: E402


PINNED = ROOT / "tests" / "data" / "fixtures" / "cases-pinned"


CASE_056 = [PINNED / "056-toolend-binding-null.payload.json", PINNED / "056-toolend-binding-null.descriptor.json"]


def test_docks_keep_their_share_when_the_window_grows(qtbot, window):
    open_and_wait(qtbot, window, CASE_056)
    window.resize(1100, 700)  # (the wide layout: below 1100 px the Resume dock is a tab)
    qtbot.waitUntil(lambda: window.width() == 1100 and window.height() == 700, timeout=1000)
    qtbot.wait(50)
    before = (window.trees_dock.width(), window.bytes_dock.width(), window.resume_panes.dock.height())
    window.resize(1760, 1000)
    qtbot.waitUntil(lambda: window.width() == 1760)
    qtbot.wait(50)
    after = (window.trees_dock.width(), window.bytes_dock.width(), window.resume_panes.dock.height())
    # QMainWindow alone gives all 600 px to the verdicts: Trees and Bytes/Digests kept their width
    # (digests "2…9") and the Resume dock its height (the top timeline lane half hidden)
    assert abs(after[0] - before[0] * 1.6) <= 3 and abs(after[1] - before[1] * 1.6) <= 3, (before, after)
    assert abs(after[2] - before[2] * 1000 / 700) <= 3, (before, after)


def _header_fits(view):
    hh = view.horizontalHeader()
    for c in range(hh.count()):
        text = view.model().headerData(c, Qt.Orientation.Horizontal)
        assert hh.sectionSize(c) >= hh.fontMetrics().horizontalAdvance(text) + 8, (text, hh.sectionSize(c))
    assert hh.sectionViewportPosition(3) + hh.sectionSize(3) <= view.viewport().width()  # no sideways scroll


def test_the_digests_header_is_readable_at_1024x700_and_the_values_keep_their_room(qtbot, window_1024):
    from inspector.gui.document import sample_paths

    window = window_1024
    open_and_wait(qtbot, window, sample_paths("broken"))
    view = window.digests_view
    qtbot.waitUntil(lambda: view.viewport().width() > 0, timeout=1000)
    _header_fits(view)  # "Recomputed" was cut to "comput"
    m = window.digests_model
    assert m.headerData(3, Qt.Orientation.Horizontal) == "Recomp."
    assert m.headerData(3, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == (
        "Recomputed: as recomputed from the payload bytes")
    hh, fm = view.horizontalHeader(), view.fontMetrics()
    assert min(hh.sectionSize(2), hh.sectionSize(3)) >= fm.horizontalAdvance("12…e0") + 12  # values still shown
    m = window.digests_model
    labels = [m.data(m.index(r, 0)) for r in range(m.rowCount())]
    shown = [fm.elidedText(t, Qt.TextElideMode.ElideMiddle, hh.sectionSize(0) - 8) for t in labels]
    # the elided labels still tell the rows apart (content_digest from evidence_digest); all in the tooltip
    assert len(set(shown)) == len(shown), shown
    # a row chosen by key: its whole label in the detail below
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Home)
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert m.data(view.currentIndex().siblingAtColumn(0), Qt.ItemDataRole.ToolTipRole).startswith(labels[1])


def test_the_digests_columns_stretch_again_at_the_default_size(qtbot, window):
    from inspector.gui.document import sample_paths
    from PySide6.QtWidgets import QHeaderView

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, sample_paths("broken"))
    view = window.digests_view
    hh = view.horizontalHeader()
    assert view.viewport().width() >= 520
    assert [hh.sectionResizeMode(c) for c in range(4)] == [QHeaderView.ResizeMode.ResizeToContents] * 2 + \
        [QHeaderView.ResizeMode.Stretch] * 2
    _header_fits(view)
    assert window.digests_model.headerData(3, Qt.Orientation.Horizontal) == "Recomputed"
    assert hh.sectionSize(3) >= view.fontMetrics().horizontalAdvance(window.digests_model.data(
        window.digests_model.index(0, 3))) + 8  # the recomputed value is shown whole
