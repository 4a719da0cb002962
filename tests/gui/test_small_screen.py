"""The window at 1024x700, as the screenshots showed it."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.gui.document import sample_paths

from inspector.gui.widgets.panes import plain_tooltip  # noqa: E402
from .conftest import open_and_wait
import pytest
pytest.importorskip("PySide6")
from PySide6.QtWidgets import QApplication  # noqa: E402
from .conftest import CASES, GOLDEN_D, GOLDEN_P  # noqa: E402
from inspector.gui.roles import PointerRole  # noqa: E402
from .test_find import _find  # noqa: E402  (Ctrl+F, type, Enter; waits for the move)


def test_digests_table_shows_most_rows_at_1024x700(qtbot, window_1024):
    """The digests table showed two of its nine rows at 1024x700 (the rest went to the bytes pane
    and an empty "What was hashed"); now at least five, and the detail keeps its lines."""
    window = window_1024
    open_and_wait(qtbot, window, sample_paths("broken"))
    view = window.digests_view
    qtbot.waitUntil(lambda: view.viewport().height() > 0, timeout=1000)
    m = window.digests_model
    assert m.rowCount() == 9
    whole = [r for r in range(m.rowCount()) if view.visualRect(m.index(r, 0)).bottom() < view.viewport().height()]
    assert len(whole) >= 5, (len(whole), view.viewport().height())
    assert window.digest_detail.height() >= 96
    assert window.hex_payload.height() >= 4 * window.hex_payload.fontMetrics().height()  # bytes: 4 rows at least
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Down)  # (the MISMATCH row) its detail fits: stated and recomputed
    assert view.currentIndex().row() == 1


def test_folder_dock_is_not_squeezed_at_1024_px(qtbot, window_1024, tmp_path):
    """Beside the folder table at 1024 px the Resume dock's tabs were pushed under the timeline's
    x-axis controls; in the compact layout the Resume dock is a tab beside the Digests,
    so the folder table has the window's width and shows its Root cause column whole; the Resume
    tab, clicked, shows its tabs whole with the x-axis controls still usable."""
    from inspector.gui import style

    from .conftest import open_mixed_folder
    from .test_compact_layout import click_dock_tab

    window = window_1024
    assert open_mixed_folder(qtbot, window, tmp_path / "f") == 3
    assert window.folder_dock.width() >= window.width() - 20  # the whole bottom: not shared
    hh = window.folder_view.horizontalHeader()
    assert hh.sectionViewportPosition(3) + hh.sectionSize(3) <= window.folder_view.viewport().width()
    assert hh.sectionSize(3) >= style.rule_id_width(window.folder_view.fontMetrics())
    panes = window.resume_panes
    click_dock_tab(qtbot, window, "Resume")
    bar = panes.tabs.tabBar()
    qtbot.waitUntil(lambda: bar.width() >= bar.sizeHint().width(), timeout=1000)  # every tab whole
    assert panes.timeline_controls.isVisible()
    QTest.mouseClick(panes.mode_time, Qt.MouseButton.LeftButton)  # still usable there
    assert panes.timeline.mode == "time"


def test_verdict_labels_and_rule_ids_are_not_cut_at_1024x700(qtbot, window_1024):
    """The failures-only verdicts showed "FAIL · consequ…"; the label and the rule id fit."""
    window = window_1024
    open_and_wait(qtbot, window, sample_paths("broken"))
    assert window.failures_only.isChecked()
    view, m = window.findings_view, window.findings_model
    fm = view.fontMetrics()
    icon = view.style().pixelMetric(view.style().PixelMetric.PM_SmallIconSize)
    labels = []
    for g in range(m.rowCount()):
        group = m.index(g, 0)
        view.expand(group)
        for r in range(m.rowCount(group)):
            idx = m.index(r, 0, group)
            text = m.data(idx)
            labels.append(text)
            assert view.visualRect(idx).width() >= icon + fm.horizontalAdvance(text) + 6, text
            rule = m.index(r, 1, group)
            assert view.visualRect(rule).width() >= fm.horizontalAdvance(m.data(rule)) + 6, m.data(rule)
    assert "FAIL · consequence" in labels and "FAIL · root cause" in labels


def test_failing_lane_header_is_framed_not_filled(qtbot, window_1024):
    """The screenshot of a terminal source run showed its lane header as a solid green block (the
    frame drawn with a brush left over from the boundary mark), hiding the run's name."""
    from PySide6.QtGui import QColor

    from inspector.gui.widgets.timeline import _LANE_H

    from .conftest import CASES

    window = window_1024
    open_and_wait(qtbot, window, [CASES / "39-p-source-completed.payload.json",
                                  CASES / "39-p-source-completed.descriptor.json"])
    tl = window.resume_panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None, timeout=5000)
    lane = next(i for i, x in enumerate(tl.timeline.lanes) if x.source)
    tl.ensure_lane_visible(lane)
    img = tl.viewport().grab().toImage()
    top = tl.lane_top(lane)
    background = tl.palette().color(tl.palette().ColorRole.Window)
    # inside the frame, right of the name and status text: the header's background
    px = QColor(img.pixel(200, top + _LANE_H // 2))
    assert abs(px.red() - background.red()) + abs(px.green() - background.green()) + abs(px.blue() - background.blue()) < 30, px.name()


def test_long_headline_is_elided_and_the_window_fits_1024x700(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    window.resize(1024, 700)
    window.reset_layout()
    qtbot.waitUntil(lambda: window.width() == 1024)
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= 1024
    title = window.header.title
    full = title.text()
    assert full.startswith("NOT VERIFIED: The payload file is not the one the descriptor was made for")
    assert title.toolTip() == plain_tooltip(full)
    shown = title.displayed_text()
    # at most two lines (broken between words), each within the label's width; the rest elided
    lines = shown.split("\n")
    assert 1 <= len(lines) <= 2
    assert all(title.fontMetrics().horizontalAdvance(line) <= title.width() for line in lines)
    assert " ".join(lines) == full or (lines[-1].endswith("…") and len(" ".join(lines)) <= len(full))
    sub = window.header.subtitle
    assert all(sub.fontMetrics().horizontalAdvance(line) <= sub.width() for line in sub.displayed_text().split("\n"))
    # the bytes view shows offset, hex and text without a cut
    hexv = window.hex_tabs.currentWidget()
    assert hexv.isVisible() and hexv.data is not None
    assert hexv.horizontalScrollBar().maximum() == 0
    # and the digests' Match column is on screen
    hh = window.digests_view.horizontalHeader()
    assert hh.sectionViewportPosition(1) + hh.sectionSize(1) <= window.digests_view.viewport().width()


CTRL = Qt.KeyboardModifier.ControlModifier


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
