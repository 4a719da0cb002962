"""What a newcomer trying the window keyboard-only tripped over (user trial of the whole product)."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui.document import sample_paths  # noqa: E402
from inspector.gui.roles import PointerRole  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402
from .test_find import _find  # noqa: E402  (Ctrl+F, type, Enter; waits for the move)

CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier


def test_find_and_go_to_fields_keep_room_for_text_at_1024x700(qtbot, window):
    # At 1024x700 the Trees dock is ~400 px wide; with Find, its count, Previous, Next, Go to and the
    # close button on one row, the two fields shrank to about four characters ("lice", "ts/3").
    window.resize(1024, 700)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _find(qtbot, window, "source-run")
    edit, pointer = window.find_bar.edit, window.find_bar.pointer
    assert window.find_bar.status.text() == "1 of 3 matches"
    fm = edit.fontMetrics()
    assert edit.width() >= fm.horizontalAdvance("x" * 12)
    assert pointer.width() >= fm.horizontalAdvance("x" * 12)
    # and the bar does not widen the Trees dock at the expense of the Bytes and Digests docks
    assert window.find_bar.minimumSizeHint().width() <= 340
    # Go to, by keyboard, from the same bar
    QTest.keyClick(window, Qt.Key.Key_G, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pointer)
    QTest.keyClicks(pointer, "/snapshot/session/config/name")
    QTest.keyClick(pointer, Qt.Key.Key_Return)
    view = window.snap_pane.view
    qtbot.waitUntil(lambda: view.model().data(view.currentIndex(), PointerRole) == "/snapshot/session/config/name")


def test_resume_dock_is_reachable_by_keyboard_and_can_be_shown_again_from_view(qtbot, window):
    # The Go menu had Alt+1..6 for the other panes but no way to the Resume dock's tabs, and View
    # listed every dock but Resume: once closed with its x it could only come back by Reset Layout.
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    rp = window.resume_panes
    rp.dock.close()
    assert not rp.dock.isVisible()
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_8, ALT)
    qtbot.waitUntil(lambda: rp.dock.isVisible())
    assert rp.tabs.currentIndex() == 1
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.transcript.view)
    QTest.keyClick(window, Qt.Key.Key_7, ALT)
    assert rp.tabs.currentIndex() == 0
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.timeline)
    QTest.keyClick(window, Qt.Key.Key_9, ALT)
    assert rp.tabs.currentIndex() == 2
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.lint_list)
    # View ▸ Resume toggles the dock like the other docks
    view_menu = next(m for m in window.menuBar().findChildren(type(window.recent_menu)) if m.title() == "&View")
    toggle = next(a for a in view_menu.actions() if a.text() == "Resume (timeline, transcript, lint)")
    assert toggle is rp.dock.toggleViewAction() and toggle.isChecked()
    toggle.trigger()
    assert not rp.dock.isVisible()


def test_digest_and_rule_counts_under_the_verdict_are_not_cut_at_1024x700(qtbot, window):
    # The line under the verdict ends with "digests: 5 of 9 match, 4 MISMATCH — 3 FAIL · 68 PASS · 4 n/a";
    # on one line (with the bundled-sample hint first) that was the part elided, even at 1280 px.
    window.resize(1024, 700)
    window.reset_layout()
    qtbot.waitUntil(lambda: window.width() == 1024)
    open_and_wait(qtbot, window, list(sample_paths("broken")))
    QApplication.processEvents()
    sub = window.header.subtitle
    assert sub.text().startswith("bundled sample — File ▸ Open or drop your own files")
    shown = sub.displayed_text()
    assert "…" not in shown
    assert " ".join(shown.split("\n")) == sub.text()
    assert sub.text().endswith("digests: 5 of 9 match, 4 MISMATCH   —   3 FAIL · 68 PASS · 4 n/a")
    assert all(sub.fontMetrics().horizontalAdvance(line) <= sub.width() for line in shown.split("\n"))


def test_find_count_of_the_previous_checkpoint_is_not_left_showing(qtbot, window):
    # "1 of 3 matches" stayed beside the Find field after another checkpoint was opened, though the
    # matches were forgotten (Enter searches the new one).
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _find(qtbot, window, "source-run")
    edit = window.find_bar.edit
    assert window.find_bar.status.text() == "1 of 3 matches"
    open_and_wait(qtbot, window, list(sample_paths("broken")))
    assert window.find_bar.isVisible() and edit.text() == "source-run"
    assert window.find_bar.status.text() == ""
    with qtbot.waitSignal(window.finder.moved, timeout=30000):
        QTest.keyClick(edit, Qt.Key.Key_Return)
    assert window.find_bar.status.text() == "1 of 3 matches"


def test_a_banner_is_as_tall_as_its_text_and_the_verdict_is_not_stretched(qtbot, window):
    # In the tool bar at the top, a wrapped banner asked for its text's height at a guessed narrow
    # width (101 px for a 42 px three-line note at 1024 px; ~90 px for the one-line EDITED banner), and
    # the verdict under it was stretched to fill the bar, its lines pulled apart.
    from .test_trial import _edit_name_with_f2

    window.resize(1024, 700)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _edit_name_with_f2(qtbot, window)
    banner = window._banners["edited"]
    qtbot.waitUntil(lambda: banner.isVisible())
    QApplication.processEvents()
    label = banner.label
    m = banner.layout().contentsMargins()
    text_h = label.heightForWidth(label.width())
    assert text_h < 3 * label.fontMetrics().lineSpacing()  # the sentence fits on a line or two at 1024 px
    buttons = max(b.sizeHint().height() for b in banner.buttons.values())
    assert banner.height() <= max(text_h, buttons) + m.top() + m.bottom() + 2
    assert window.header.height() <= window.header.sizeHint().height() + 2
