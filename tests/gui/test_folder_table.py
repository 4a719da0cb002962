"""Folder table: clickable headers sort, the filter field filters, a Root cause column."""

import os

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from inspector.gui.roles import ObjectRole

from .conftest import open_mixed_folder
import multiprocessing
import shutil
import pytest
pytest.importorskip("PySide6")
from inspector.session import engine
from inspector.session import workers  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P, SAMPLES  # noqa: E402


def _column(view, col):
    m = view.model()
    return [m.data(m.index(r, col)) for r in range(m.rowCount())]


def _names(view):
    m = view.model()
    out = []
    for r in range(m.rowCount()):
        row = m.data(m.index(r, 0), ObjectRole)
        out.append(os.path.basename(row.payload or row.descriptor or row.other))
    return out


def _click_header(view, section):
    hh = view.horizontalHeader()
    x = hh.sectionViewportPosition(section) + hh.sectionSize(section) // 2
    QTest.mouseClick(hh.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(x, hh.height() // 2))


def test_folder_table_sorts_filters_and_shows_root_cause(qtbot, window, tmp_path):
    assert open_mixed_folder(qtbot, window, tmp_path / "f") == 3
    view = window.folder_view
    m = view.model()
    assert [m.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == [
        "Payload", "Descriptor", "Verdict", "Root cause"]
    rules = dict(zip(_names(view), _column(view, 3)))
    assert rules["broken.payload.json"] == "X-BYTES"
    assert rules["payload-with-resume.json"] == "" and rules["notes.txt"] == ""
    scan_order = _names(view)
    assert scan_order[-1] == "notes.txt"  # scan order until a header is clicked

    _click_header(view, 0)  # Payload, ascending
    assert _column(view, 0) == sorted(_column(view, 0), key=str.casefold)
    _click_header(view, 0)  # descending
    assert _column(view, 0) == sorted(_column(view, 0), key=str.casefold, reverse=True)
    _click_header(view, 3)  # Root cause ascending: the failing row (X-BYTES) comes last
    assert _names(view)[-1] == "broken.payload.json"
    assert _column(view, 3)[-1] == "X-BYTES"

    window.folder_filter.setFocus()
    QTest.keyClicks(window.folder_filter, "x-bytes")  # by rule id (case-insensitive)
    assert _names(view) == ["broken.payload.json"]
    window.folder_filter.clear()
    QTest.keyClicks(window.folder_filter, "notes")  # by file name
    assert _names(view) == ["notes.txt"]
    window.folder_filter.clear()
    QTest.keyClicks(window.folder_filter, "not a checkpoint")  # by verdict text
    assert _names(view) == ["notes.txt"]
    window.folder_filter.clear()
    assert sorted(_names(view)) == sorted(scan_order)

    # activating a sorted, filtered row opens that row's checkpoint
    QTest.keyClicks(window.folder_filter, "broken")
    assert _names(view) == ["broken.payload.json"]
    view.setFocus()
    view.setCurrentIndex(m.index(0, 0))
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert window.report.root_cause.rule.id == "X-BYTES"


def _show_files_tab(qtbot, window):
    """Click the Folder dock's Files tab (the flat table; the Sessions tab is shown first)."""
    bar = window.folder_tabs.tabBar()
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bar.tabRect(1).center())
    qtbot.waitUntil(lambda: window.folder_view.isVisible(), timeout=2000)


def _root_cause_visible(view):
    hh = view.horizontalHeader()
    x = hh.sectionViewportPosition(3)
    return 0 <= x and x + hh.sectionSize(3) <= view.viewport().width()


def test_folder_dock_opens_wide_enough_for_the_root_cause_and_keeps_the_users_width(qtbot, window, tmp_path,
                                                                                        settings):
    from PySide6.QtCore import QSettings

    from inspector.gui.window import MainWindow

    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=1000)
    open_mixed_folder(qtbot, window, tmp_path / "f")
    _show_files_tab(qtbot, window)
    view = window.folder_view
    dock = window.folder_dock
    hh = view.horizontalHeader()
    assert [hh.logicalIndex(v) for v in range(4)] == [0, 1, 3, 2]  # Root cause before the long verdict
    assert _root_cause_visible(view), (dock.width(), [hh.sectionSize(c) for c in range(4)])
    assert hh.sectionSize(2) >= 250  # and room for the verdict
    # the Resume dock beside it keeps room (400 px: the Root cause column fits the widest rule id now)
    assert window.resume_panes.dock.width() >= 400

    # the user drags the dock's edge (the separator between it and the Resume dock) 120 px left
    before = dock.width()
    edge = dock.geometry().right() + 1 + window.style().pixelMetric(window.style().PixelMetric.PM_DockWidgetSeparatorExtent) // 2
    y = dock.geometry().center().y()
    QTest.mousePress(window, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(edge, y))
    for dx in (-30, -60, -90, -120):
        QTest.mouseMove(window, QPoint(edge + dx, y))
        QTest.qWait(20)  # (QMainWindow moves its separators on a timer)
    QTest.mouseRelease(window, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(edge - 120, y))
    assert abs(dock.width() - (before - 120)) <= 4, (before, dock.width())
    dragged = dock.width()
    window.close()  # remembers it

    again = MainWindow(settings=QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    qtbot.waitUntil(lambda: again.width() == 1280, timeout=1000)
    with qtbot.waitSignal(again.folderScanned, timeout=30000):
        again.open_paths([str(tmp_path / "f")])
    assert abs(again.folder_dock.width() - dragged) <= 4, (dragged, again.folder_dock.width())
    again.cancel_load()


def _drag_header_edge(qtbot, view, col, dx):
    """Drag the right edge of column ``col``'s header ``dx`` px with the mouse."""
    hh = view.horizontalHeader()
    x, y = hh.sectionViewportPosition(col) + hh.sectionSize(col) - 1, hh.height() // 2
    QTest.mousePress(hh.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y))
    for k in range(1, 5):
        QTest.mouseMove(hh.viewport(), QPoint(x + dx * k // 4, y))
        qtbot.wait(20)
    QTest.mouseRelease(hh.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x + dx, y))


def test_column_widths_the_user_drags_stay_through_a_rescan_and_are_remembered(qtbot, window, tmp_path, settings):
    # fit_folder_columns ran again at every scan's end and when the dock opened: a Payload column
    # the user had widened went back to its fitted width, and the next session started fitted.
    from PySide6.QtCore import QSettings

    from inspector.gui.window import MainWindow

    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=1000)
    open_mixed_folder(qtbot, window, tmp_path / "f")
    _show_files_tab(qtbot, window)
    view = window.folder_view
    hh = view.horizontalHeader()
    fitted = [hh.sectionSize(c) for c in (0, 3)]
    _drag_header_edge(qtbot, view, 0, 60)
    _drag_header_edge(qtbot, view, 3, 30)
    assert [hh.sectionSize(c) for c in (0, 3)] == [fitted[0] + 60, fitted[1] + 30]
    with qtbot.waitSignal(window.folderScanned, timeout=30000):
        window.open_paths([str(tmp_path / "f")])  # the same folder again: rescanned
    assert [hh.sectionSize(c) for c in (0, 3)] == [fitted[0] + 60, fitted[1] + 30]
    window.close()  # remembers them

    again = MainWindow(settings=QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    with qtbot.waitSignal(again.folderScanned, timeout=30000):
        again.open_paths([str(tmp_path / "f")])
    hh2 = again.folder_view.horizontalHeader()
    assert [hh2.sectionSize(c) for c in (0, 3)] == [fitted[0] + 60, fitted[1] + 30]
    assert hh2.sectionSize(1) == hh.sectionSize(1)  # the column not dragged is fitted as before
    again.cancel_load()


def test_folder_names_that_are_not_utf8_read_as_elsewhere_in_the_window(qtbot, window, tmp_path):
    """A folder and file names with bytes that are not UTF-8 are shown as ``\\xNN`` (as in the
    title, the trees' captions and Open Recent), not as Qt's lossy U+FFFD (was ``caf�.payload.json``
    in the table and ``…/d�p�t`` in the banner while the title said ``caf\\xe9.payload.json``)."""
    import shutil


    folder = os.path.join(os.fsencode(tmp_path), b"d\xe9p\xf4t")
    os.mkdir(folder)
    for src, name in ((SAMPLES / "broken.payload.json", b"caf\xe9.payload.json"),
                      (SAMPLES / "broken.descriptor.json", b"caf\xe9.descriptor.json")):
        shutil.copyfile(src, os.path.join(folder, name))
    with qtbot.waitSignal(window.folderScanned, timeout=30000):
        window.open_paths([os.fsdecode(folder)])
    view = window.folder_view
    m = view.model()
    assert [m.data(m.index(0, c)) for c in (0, 1, 3)] == [
        "caf\\xe9.payload.json", "caf\\xe9.descriptor.json", "X-BYTES"]
    shown = f"{tmp_path}/d\\xe9p\\xf4t"
    assert m.data(m.index(0, 0), Qt.ItemDataRole.ToolTipRole).splitlines()[:2] == [
        f"{shown}/caf\\xe9.payload.json", f"{shown}/caf\\xe9.descriptor.json"]
    assert window.banner_text("info") == (f"1 checkpoint(s) in {shown}: 0 verified, 1 not verified. "
                                          "Double-click one to open it.")
    window.folder_filter.setFocus()
    QTest.keyClicks(window.folder_filter, "\\xe9")  # the name as shown can be typed in the filter
    assert m.rowCount() == 1
    view.setFocus()
    view.setCurrentIndex(m.index(0, 0))
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert window.report.root_cause.rule.id == "X-BYTES"
    assert window.windowTitle().startswith("caf\\xe9.payload.json + caf\\xe9.descriptor.json")


def _golden_folder(tmp_path):
    """A folder holding a copy of the golden pair."""
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copyfile(GOLDEN_P, folder / GOLDEN_P.name)
    shutil.copyfile(GOLDEN_D, folder / GOLDEN_D.name)
    return folder


def test_open_folder_cancels_a_running_load(qtbot, window, monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # worker processes, as for a large payload
    folder = _golden_folder(tmp_path)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    load = window.loader.job
    assert window.header.title.text() == "Opening payload-with-resume.json + descriptor-with-resume.json…"
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as blocker:
        window.open_paths([str(folder)])
        assert load.is_cancelled
        assert window.header.title.text().startswith("No checkpoint open")  # not "Opening …" for good
    assert blocker.args == [1]
    qtbot.waitUntil(lambda: load not in window.doc.jobs.running, timeout=20000)
    # only the warm worker waiting for the next open is left (the load's verifier was stopped)
    qtbot.waitUntil(lambda: set(multiprocessing.active_children()) <= {workers.waiting_process()}, timeout=20000)
    assert window.payload is None and window.report is None  # the cancelled load never showed


def test_a_load_already_finished_but_not_yet_shown_is_not_shown_after_open_folder(qtbot, window, tmp_path):
    """The race a loaded machine showed: the load's result is queued when Open Folder cancels it.

    The worker has finished (its ``finished`` signal waits in the event queue) when the folder is
    opened; the cancelled load must end as cancelled and never present its checkpoint.
    """
    from PySide6.QtCore import QThreadPool

    folder = _golden_folder(tmp_path)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    load = window.loader.job
    assert QThreadPool.globalInstance().waitForDone(20000)  # done on the worker; not yet delivered
    assert window.payload is None
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as blocker:
        window.open_paths([str(folder)])
    assert load.is_cancelled and blocker.args == [1]
    qtbot.waitUntil(lambda: load not in window.doc.jobs.running, timeout=20000)
    assert window.payload is None and window.report is None
