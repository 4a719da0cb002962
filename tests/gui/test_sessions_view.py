"""The Folder dock's Sessions tab: each session's checkpoints in order, stepped through with
Alt+Left/Right from the keyboard, opened at once, and compared with the previous checkpoint."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from tests.session.test_series import build_folder  # noqa: E402


def _open_folder(qtbot, window, folder):
    with qtbot.waitSignal(window.folderScanned, timeout=60000) as blocker:
        window.open_paths([str(folder)])
    return blocker.args[0]


def test_the_sessions_tab_lists_each_series_in_order_and_alt_right_opens_the_next(qtbot, window, tmp_path):
    folder = build_folder(tmp_path / "f")
    assert _open_folder(qtbot, window, folder) == 8
    view, model = window.sessions_view, window.sessions_model
    assert window.folder_tabs.currentWidget() is view
    sessions = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert sessions == ["session alpha — 4 checkpoints, 3 verified", "session beta — 4 checkpoints, 4 verified"]
    alpha = model.index(0, 0)
    assert [model.index(r, 0, alpha).data() for r in range(model.rowCount(alpha))] == [
        "1. alpha-1.payload.json", "2. alpha-2.payload.json", "3. alpha-4.payload.json", "4. alpha-4b.payload.json"]
    assert model.index(0, 5).data() == "gap: pass 3 missing; fork at pass 4"
    assert model.index(1, 5, alpha).data() == "next pass missing: 3; restorable (re-saved copy)"
    view.setFocus()
    view.setCurrentIndex(model.index(0, 0, alpha))
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert window.doc.paths == [str(folder / "alpha-2.payload.json"), str(folder / "alpha-2.descriptor.json")]
    assert window.report.restoration is not None  # the re-saved copy, its original proven
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert window.doc.paths[0] == str(folder / "alpha-1.payload.json") and window.report.verified


def test_compare_with_previous_compares_the_two_payloads(qtbot, window, tmp_path, monkeypatch):
    folder = build_folder(tmp_path / "f")
    _open_folder(qtbot, window, folder)
    view, model = window.sessions_view, window.sessions_model
    compared = []
    monkeypatch.setattr(window.comparer, "compare", lambda paths: compared.append(paths))
    beta = model.index(1, 0)
    view.setFocus()
    view.setCurrentIndex(model.index(3, 0, beta))  # beta-3: the previous is the copy of beta-2
    seen = []

    def choose():  # while the menu runs: Down to the first action, Down to the second, Return
        menu = view.menu
        seen.extend((a.text(), a.isEnabled()) for a in menu.actions())
        QTest.keyClick(menu, Qt.Key.Key_Down)
        QTest.keyClick(menu, Qt.Key.Key_Down)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(200, choose)
    QTest.keyClick(view, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)  # the context menu, from the keyboard
    assert seen == [("Open", True), ("Compare with Previous (copy of beta-2.payload.json)", True)]
    assert compared == [[str(folder / "copy of beta-2.payload.json"), str(folder / "beta-3.payload.json")]]


def test_pass_verdict_resumable_and_notes_are_in_view_at_1024_px(qtbot, window):
    """Issue 33 item 5: in a 1024 px window with the default layout, the Sessions tab shows its Pass, Verdict,
    Resumable and Notes columns without scrolling, each as wide as its longest text."""
    from pathlib import Path

    window.setGeometry(0, 0, 1024, 768)
    window.reset_layout()
    folder = Path(__file__).resolve().parents[1] / "session" / "data" / "series" / "fork-at-head"
    _open_folder(qtbot, window, folder)
    view = window.sessions_view
    QTest.mouseClick(window.folder_tabs.tabBar(), Qt.MouseButton.LeftButton,
                     pos=window.folder_tabs.tabBar().tabRect(window.folder_tabs.indexOf(view)).center())
    assert window.folder_tabs.currentWidget() is view
    qtbot.waitUntil(lambda: view.model().rowCount() == 1, timeout=5000)
    header, fm = view.header(), view.fontMetrics()
    viewport = view.viewport().width()
    assert [header.model().headerData(c, Qt.Orientation.Horizontal) for c in range(6)] == [
        "Session / checkpoint", "Pass", "Time (UTC)", "Verdict", "Resumable", "Notes"]
    for col, longest in ((1, "Pass"), (3, "NOT VERIFIED"), (4, "no single latest (fork)"), (5, "fork at pass 2")):
        left = header.sectionViewportPosition(col)
        assert 0 <= left and left + fm.horizontalAdvance(longest) <= viewport, (col, left, viewport)
        assert header.sectionSize(col) >= fm.horizontalAdvance(longest) or col == 5
    session = view.model().index(0, 0)
    assert view.model().index(0, 4).data() == "no single latest (fork)"
    assert view.model().index(1, 5, session).data() == "fork at pass 2"
