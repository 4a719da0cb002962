"""What a screen reader user hears (inspector/gui/accessibility.py ``Announcer``): each verdict, a failed open, Copy
for ticket, Find's count, Go to Offset's errors, a folder scan's result and a long load said through an element
whose accessible role is Notification (Orca 43.1 speaks one when it is shown: the transcript in docs/screen-reader.md),
each time it is said, even in the same words; a row expanded or collapsed; Ctrl+F8 lands on the rule."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtGui import QAccessible  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui import accessibility  # noqa: E402
from inspector.gui import window as window_module  # noqa: E402
from inspector.gui.roles import ObjectRole  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

R, T = QAccessible.Role, QAccessible.Text
BROKEN = [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"]


class _Shows(QObject):
    """Counts the Show events of the announcer (each one an AT-SPI showing event a screen reader speaks)."""

    def __init__(self):
        super().__init__()
        self.texts = []

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Show:
            self.texts.append(obj.text())
        return False


def _announcer(window):
    a = accessibility.announcer(window)
    shows = _Shows()
    a.installEventFilter(shows)
    return a, shows


def test_the_announcer_is_a_notification_shown_anew_for_each_verdict(qtbot, window):
    a, shows = _announcer(window)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    verified = "VERIFIED: the reference accepts this checkpoint"
    qtbot.waitUntil(lambda: verified in shows.texts, timeout=3000)
    iface = QAccessible.queryAccessibleInterface(a)
    assert (iface.role(), iface.text(T.Name)) == (R.Notification, verified)
    assert a.isVisible() and a.width() == 1
    open_and_wait(qtbot, window, [CASES / "01-valid.payload.json", CASES / "01-valid.descriptor.json"])
    qtbot.waitUntil(lambda: shows.texts.count(verified) == 2, timeout=3000)  # the same words: shown again


def test_ctrl_f8_lands_on_the_rule_and_says_it(qtbot, window):
    open_and_wait(qtbot, window, BROKEN)
    view = window.findings_view
    QTest.keyClick(window, Qt.Key.Key_F8)  # the next failure: away from the root cause
    assert view.model().data(view.currentIndex(), ObjectRole).rule.id != "X-BYTES"
    QTest.keyClick(window, Qt.Key.Key_F8, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is view
    f = view.model().data(view.currentIndex(), ObjectRole)
    assert f is not None and f.rule.id == "X-BYTES"  # the rule's row, not the "Root cause" group's
    cell = QAccessible.queryAccessibleInterface(view).focusChild()
    assert cell is not None and "X-BYTES" in cell.text(T.Name) + cell.text(T.Description)


def test_expanding_and_collapsing_a_row_is_said(qtbot, window):
    a, shows = _announcer(window)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    window.focus_pane(view)
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    model = view.model()
    snapshot = next(model.index(r, 0) for r in range(model.rowCount()) if model.data(model.index(r, 0)) == "snapshot")
    view.setCurrentIndex(snapshot)
    view.collapse(snapshot)
    shows.texts.clear()
    QTest.keyClick(view, Qt.Key.Key_Right)
    n = model.rowCount(snapshot)
    assert shows.texts == [f"snapshot: expanded, {n} rows"] and n == 8
    QTest.keyClick(view, Qt.Key.Key_Left)
    assert shows.texts[-1] == "snapshot: collapsed"


def test_copy_for_ticket_find_and_go_to_offset_are_said(qtbot, window):
    a, shows = _announcer(window)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    QTest.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: any(t.startswith("Ticket text copied (") for t in shows.texts), timeout=10000)
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(window.find_bar.edit, "session")
    QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(t.endswith(" matches") for t in shows.texts), timeout=10000)
    assert next(t for t in shows.texts if t.endswith(" matches")) == window.find_bar.status.text()
    hexv = window.hex_payload
    window.hex_tabs.setCurrentWidget(hexv)
    window.focus_pane(hexv)
    qtbot.waitUntil(hexv.hasFocus, timeout=2000)
    QTest.keyClick(hexv, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(hexv.goto_edit, "99999999")
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Return)
    assert shows.texts[-1] == hexv.goto_message.text() and shows.texts[-1]


def test_a_failed_open_is_an_error_banner_with_the_notification_role(qtbot, window, tmp_path):
    missing = tmp_path / "gone.payload.json"
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(missing)])
    qtbot.waitUntil(lambda: "error" in window._banners and window._banners["error"].isVisible(), timeout=3000)
    banner = window._banners["error"]
    iface = QAccessible.queryAccessibleInterface(banner)
    assert iface.role() == R.Notification
    assert iface.text(T.Name) == window.banner_text("error") and "gone.payload.json" in iface.text(T.Name)


def test_a_folder_scans_result_is_said(qtbot, window, tmp_path):
    a, shows = _announcer(window)
    shutil.copyfile(GOLDEN_P, tmp_path / "a.payload.json")
    shutil.copyfile(GOLDEN_D, tmp_path / "a.descriptor.json")
    with qtbot.waitSignal(window.folders.scanned, timeout=20000):
        window.open_paths([str(tmp_path)])
    qtbot.waitUntil(lambda: any("checkpoint(s) in" in t for t in shows.texts), timeout=3000)
    said = next(t for t in shows.texts if "checkpoint(s) in" in t)
    assert said.startswith("1 checkpoint(s) in ") and said.endswith(": 1 verified, 0 not verified. Double-click one "
                                                                     "to open it.")


def test_collapsing_a_verdict_group_is_said(qtbot, window):
    a, shows = _announcer(window)
    open_and_wait(qtbot, window, BROKEN)
    view = window.findings_view
    QTest.keyClick(window, Qt.Key.Key_F8, Qt.KeyboardModifier.ControlModifier)
    n = len(shows.texts)
    QTest.keyClick(view, Qt.Key.Key_Left)  # a leaf: nothing to collapse, nothing said
    assert len(shows.texts) == n
    QTest.keyClick(view, Qt.Key.Key_Left)  # from the rule to its group
    group = view.currentIndex().siblingAtColumn(0)
    assert view.isExpanded(group) and not group.parent().isValid()
    QTest.keyClick(view, Qt.Key.Key_Left)
    name = " ".join(str(t) for t in (view.model().data(group.siblingAtColumn(1)), view.model().data(group)) if t)
    assert shows.texts[-1] == f"{name}: collapsed" and name.startswith("Root cause")
    QTest.keyClick(view, Qt.Key.Key_Right)
    assert shows.texts[-1] == f"{name}: expanded, 1 row"


RICH = [CASES.parent / "cases-pinned" / "001-valid-rich-resume.payload.json",
        CASES.parent / "cases-pinned" / "001-valid-rich-resume.descriptor.json"]


def test_expand_all_and_a_reload_expand_quietly(qtbot, window):
    """Only the user's own key or click is said: Expand All (Ctrl+Shift+X) expanded 261 rows of the rich
    checkpoint, each one said; a reload's remembered rows were said too."""
    a, shows = _announcer(window)
    open_and_wait(qtbot, window, RICH)
    view = window.snap_pane.view
    window.focus_pane(view)
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    shows.texts.clear()
    QTest.keyClick(window, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.cancel_button.isHidden(), timeout=20000)
    QTest.qWait(50)
    assert not any(t.endswith(" rows") or t.endswith(" row") or t.endswith("collapsed") for t in shows.texts), \
        shows.texts[:5]
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F5)  # reload: the rows come back expanded, quietly
    assert not any("expanded" in t for t in shows.texts)


def test_a_long_load_is_said_once_for_itself_never_early_for_the_next(qtbot, window):
    a, shows = _announcer(window)
    window.doc.set_busy(True, "Loading A…")
    QTest.qWait(window_module.SAY_PROGRESS_AFTER_MS - 500)
    window.doc.set_busy(False)
    window.doc.set_busy(True, "Loading B…")
    QTest.qWait(700)  # past A's 1.5 s, not B's
    assert not any(t.startswith("Loading") for t in shows.texts)
    qtbot.waitUntil(lambda: "Loading B… Esc cancels." in shows.texts, timeout=3000)
    window.doc.set_busy(False)


def test_a_byte_search_says_its_result_not_its_progress(qtbot, window):
    a, shows = _announcer(window)
    hexv = window.hex_payload
    hexv.set_data(b"a" * (24 << 20) + b"NEEDLE")
    window.hex_tabs.setCurrentWidget(hexv)
    window.focus_pane(hexv)
    qtbot.waitUntil(hexv.hasFocus, timeout=2000)
    QTest.keyClick(hexv, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClicks(hexv.goto_edit, "NEEDLE")
    QTest.keyClick(hexv.goto_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(t.startswith("match 1 of 1") for t in shows.texts), timeout=20000)
    assert not any(t.startswith("Searching") for t in shows.texts)
