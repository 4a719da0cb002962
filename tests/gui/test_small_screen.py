"""The window at 1024x700, as the screenshots showed it (issue 9, item 6)."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.gui.document import sample_paths

from .conftest import open_and_wait


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


def test_folder_and_resume_docks_share_1024_px(qtbot, window_1024, tmp_path):
    """Beside the folder table at 1024 px the Resume dock's tabs were pushed under the timeline's
    x-axis controls (in the tab bar's corner): those now go to the caption row, and the folder
    table shows its Root cause column."""
    from .conftest import open_mixed_folder

    window = window_1024
    assert open_mixed_folder(qtbot, window, tmp_path / "f") == 3
    panes = window.resume_panes
    bar = panes.tabs.tabBar()
    qtbot.waitUntil(lambda: bar.width() >= bar.sizeHint().width(), timeout=1000)  # every tab whole
    controls = panes.timeline_controls
    assert controls.isVisible() and panes.timeline_row.isAncestorOf(controls)
    assert panes.dock.width() >= 380
    hh = window.folder_view.horizontalHeader()
    assert hh.sectionViewportPosition(3) + hh.sectionSize(3) <= window.folder_view.viewport().width()
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
