"""The last defects of the newcomer trial (issue 9, brief "leftovers"), each driven by real input:
a failed open's message said once, Esc acting on what has focus, the digests header at 1024x700,
the Resume dock with one lane."""

import os
import shutil
import sys

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

LONG_DIR = "a-rather-long-folder-name-from-the-trial/another-long-sub-folder-name-for-the-checkpoints"
NAME = b"checkpoint-2026-11-30-session-caf\xe9-abcdef0123456789.payload.json"


def _labels_saying(window, text):
    """Every visible label of the window whose text contains ``text``."""
    return [lab for lab in window.findChildren(QLabel) if lab.isVisibleTo(window) and text in lab.text()]


def _reopen_recent(qtbot, w):
    menu = w.recent_menu
    menu.popup(w.mapToGlobal(w.rect().center()))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    with qtbot.waitSignal(w.loadFailed, timeout=10000):
        QTest.keyClick(menu, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: w._banners["error"].label.isVisibleTo(w), timeout=2000)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
def test_a_failed_open_says_its_long_message_once_in_full_with_the_path_escaped(qtbot, window, tmp_path, settings):
    folder = tmp_path / LONG_DIR
    folder.mkdir(parents=True)
    p = os.path.join(str(folder), os.fsdecode(NAME))
    shutil.copyfile(GOLDEN_P, p)
    open_and_wait(qtbot, window, [p, GOLDEN_D])
    os.remove(p)  # deleted after it was opened: File ▸ Open Recent ▸ 1 fails
    shown = f"{folder}/checkpoint-2026-11-30-session-caf\\xe9-abcdef0123456789.payload.json"
    _reopen_recent(qtbot, window)
    # something stays open: one message, in the banner, in full; the verdict bar keeps the verdict
    assert window.banner_text("error") == f"{shown}: no such file. Still showing the checkpoint below."
    assert _labels_saying(window, "no such file") == [window._banners["error"].label]
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    what = "checkpoint-2026-11-30-session-caf\\xe9-abcdef0123456789.payload.json + descriptor-with-resume.json"
    assert window.status_label.toolTip() == (
        f"Could not open {what}; still showing: VERIFIED: the reference accepts this checkpoint")

    # nothing open (a new window, the same recent entry): the banner says why, the verdict bar what
    window.save_settings()
    from inspector.gui.window import MainWindow

    w2 = MainWindow(settings=QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(w2)
    w2.resize(1024, 700)
    w2.show()
    _reopen_recent(qtbot, w2)
    assert w2.banner_text("error") == f"{shown}: no such file"
    assert _labels_saying(w2, "no such file") == [w2._banners["error"].label]
    assert w2.header.title.text() == f"Nothing open — {what} could not be opened"
    assert w2.header.subtitle.text() == (
        "Use File ▸ Open, File ▸ Open Sample, or drop a payload and its descriptor here.")
    # in full: the banner wraps (no elision) and fits the 1024 px window
    label = w2._banners["error"].label
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()), timeout=2000)
    assert label.wordWrap() and "…" not in label.text()
    assert label.geometry().right() < w2.width()


# -- 2. Esc acts on what has the focus; Stop Loading only when nothing closer takes it ----------

def _start_slow_load(window, monkeypatch):
    from inspector.session import engine

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # a load in worker processes (not instant)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible() and window.act_stop.isEnabled()


def test_esc_in_the_find_bar_closes_it_while_a_load_runs_and_only_then_stops_the_load(qtbot, window, monkeypatch):
    _start_slow_load(window, monkeypatch)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.isVisible() and window.find_bar.edit.hasFocus()
    QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible()
    assert window.act_stop.isEnabled() and window.banner_text("info") is None  # the load goes on
    # the go-to-pointer field of the same bar (Ctrl+G) too
    QTest.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.pointer.hasFocus()
    QTest.keyClick(window.find_bar.pointer, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible() and window.act_stop.isEnabled()
    # nothing closer takes Esc now: it stops the load
    QTest.keyClick(window.snap_pane.view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=20000)
    assert not window.act_stop.isEnabled()
    # Help ▸ Keyboard Shortcuts says so (it lists both meanings of Esc)
    from inspector.gui.menus import shortcut_sections

    rows = dict(sum((r for _, r in shortcut_sections(window)), []))
    assert rows["Stop Loading"] == "Esc"
    assert rows["Find bar, go-to-offset field, a value being edited: close (first; Esc is Stop Loading only when "
                "none of them has the focus)"] == "Esc"


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


def test_esc_in_a_tree_editor_cancels_the_edit_while_a_load_runs(qtbot, window, monkeypatch):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    _start_slow_load(window, monkeypatch)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Home)
    QTest.keyClick(view, Qt.Key.Key_F2)
    if view.state() != view.State.EditingState:
        pytest.skip("the first row is not editable while loading")
    QTest.keyClick(view.focusWidget() or view, Qt.Key.Key_Escape)
    assert view.state() != view.State.EditingState
    assert window.act_stop.isEnabled() and window.banner_text("info") is None


# -- 3. the digests header at 1024x700 ------------------------------------------------------------

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


# -- 4. the Resume dock with a single lane at 1600x1000 -------------------------------------------

def test_a_single_lane_fills_the_timeline_at_1600x1000_and_a_click_anywhere_in_it_selects_the_run(
        qtbot, window):
    from PySide6.QtCore import QPoint

    from inspector.gui.widgets.timeline import _AXIS_H, _LANE_H

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    panes = window.resume_panes
    panes.tabs.setCurrentIndex(0)
    tl = panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None and tl.viewport().height() > _AXIS_H + 2 * _LANE_H, timeout=5000)
    assert len(tl.timeline.lanes) == 1
    vh = tl.viewport().height()
    # the lane takes the whole height under the axis (it left ~150 px empty under a 34 px lane)
    assert tl.lane_top(0) == _AXIS_H and tl.lane_top(0) + getattr(tl, "_lane_h", _LANE_H) == vh
    assert tl.verticalScrollBar().maximum() == 0
    QTest.mouseClick(tl.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(60, vh - 6))  # low in the lane
    assert tl.selected == (0, None)
