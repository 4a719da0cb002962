"""The small-window layout (inspector/gui/compact.py): below 1100 px the Resume dock
is a tab beside the Digests, the trees and the bytes keep the height; widening restores the wide
arrangement (the default or the user's own, from the settings); rule ids are never cut."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QTabBar  # noqa: E402

from inspector.gui import style  # noqa: E402
from inspector.gui.document import sample_paths  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402
from .test_layout import CASE_056  # noqa: E402
from inspector.gui.widgets.timeline_paint import _AXIS_H  # noqa: E402

BOTTOM = Qt.DockWidgetArea.BottomDockWidgetArea


def click_dock_tab(qtbot, window, title: str) -> None:
    """Click the tab ``title`` of a group of tabbed docks (the tab bar QMainWindow puts under them)."""
    for bar in window.findChildren(QTabBar):
        if bar.isVisible() and bar.parent() is window:
            for i in range(bar.count()):
                if bar.tabText(i) == title:
                    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
                    return
    raise AssertionError(f"no dock tab {title!r}")


def rows_visible(view) -> int:
    """Rows of tree ``view`` wholly inside its viewport, from the top one down."""
    idx, n, height = view.indexAt(QPoint(2, 2)), 0, view.viewport().height()
    while idx.isValid() and view.visualRect(idx).bottom() < height:
        n += 1
        idx = view.indexBelow(idx)
    return n


def byte_rows_visible(hexv) -> int:
    """Whole lines of bytes the bytes view shows."""
    return hexv.viewport().height() // (hexv.fontMetrics().height() + 2)


def _resize(qtbot, window, w, h):
    window.resize(w, h)
    qtbot.waitUntil(lambda: window.width() == w and window.height() == h, timeout=2000)
    qtbot.wait(30)  # (the layout is switched once the resize is handled)


def test_at_1024x700_the_resume_dock_is_a_tab_and_trees_and_bytes_keep_their_rows(qtbot, window_1024):
    """The Resume dock along the bottom left the snapshot tree 10 whole rows and the bytes 4 lines at
    1024x700; tabbed beside the Digests, 16 and 7 (measured on the golden pair)."""
    window = window_1024
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    dock = window.resume_panes.dock
    assert window.compact.compact
    assert window.digests_dock in window.tabifiedDockWidgets(dock)
    assert dock.windowTitle() == "Resume"
    assert dock.toggleViewAction().text() == "Resume (timeline, transcript, lint)"  # the View menu's words
    assert rows_visible(window.snap_pane.view) >= 15
    assert byte_rows_visible(window.hex_payload) >= 7
    # the tab shows the timeline, the trees keep their height
    trees_h = window.snap_pane.view.height()
    click_dock_tab(qtbot, window, "Resume")
    qtbot.waitUntil(lambda: window.resume_panes.timeline.isVisible(), timeout=1000)
    assert window.snap_pane.view.height() == trees_h
    assert window.digests_view.visibleRegion().isEmpty()
    click_dock_tab(qtbot, window, "Digests")
    qtbot.waitUntil(lambda: not window.digests_view.visibleRegion().isEmpty(), timeout=1000)


def test_alt_0_raises_the_tabbed_resume_dock(qtbot, window_1024):
    window = window_1024
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert not window.resume_panes.events.isVisible()
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.resume_panes.events.isVisible(), timeout=1000)


def test_widening_restores_the_wide_layout_and_narrowing_compacts_it_again(qtbot, window):
    _resize(qtbot, window, 1600, 1000)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    dock = window.resume_panes.dock
    assert not window.compact.compact and window.dockWidgetArea(dock) == BOTTOM
    wide = (dock.height(), window.trees_dock.width(), window.bytes_dock.width())
    _resize(qtbot, window, 1024, 700)
    qtbot.waitUntil(lambda: window.digests_dock in window.tabifiedDockWidgets(dock), timeout=1000)
    _resize(qtbot, window, 1600, 1000)
    qtbot.waitUntil(lambda: window.dockWidgetArea(dock) == BOTTOM and not window.tabifiedDockWidgets(dock),
                    timeout=1000)
    qtbot.wait(30)
    assert dock.isVisible() and dock.windowTitle().startswith("Resume — timeline")
    now = (dock.height(), window.trees_dock.width(), window.bytes_dock.width())
    assert all(abs(a - b) <= 4 for a, b in zip(now, wide)), (wide, now)
    # the threshold is the window's width: 1099 compacts, 1100 does not
    _resize(qtbot, window, 1100, 1000)
    assert not window.compact.compact
    _resize(qtbot, window, 1099, 1000)
    qtbot.waitUntil(lambda: window.compact.compact, timeout=1000)


def _window_at(qtbot, path: str, w: int, h: int):
    """A main window with the settings file ``path``, shown at ``w`` x ``h`` px (its layout settled)."""
    from inspector.gui.window import MainWindow

    win = MainWindow(settings=QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    win.resize(w, h)
    win.show()
    qtbot.waitUntil(lambda: win.width() == w, timeout=2000)
    return win


def test_the_users_own_arrangement_is_saved_and_restored_when_wide(qtbot, tmp_path):
    """A taller Resume dock the user dragged, saved in the settings: a window opened at 1024x700
    compacts it, the settings keep the user's (not the compact one), and widening shows it again."""
    path = str(tmp_path / "s.ini")
    first = _window_at(qtbot, path, 1600, 1000)
    dock = first.resume_panes.dock
    first.resizeDocks([dock], [420], Qt.Orientation.Vertical)  # (what a drag of its edge does)
    qtbot.waitUntil(lambda: abs(dock.height() - 420) <= 2, timeout=1000)
    mine = dock.height()
    first.close()

    second = _window_at(qtbot, path, 1024, 700)
    qtbot.waitUntil(lambda: second.compact.compact, timeout=2000)
    dock = second.resume_panes.dock
    assert second.digests_dock in second.tabifiedDockWidgets(dock)
    second.save_settings()  # the compact layout is never what is remembered
    second.close()

    third = _window_at(qtbot, path, 1024, 700)
    qtbot.waitUntil(lambda: third.compact.compact, timeout=2000)
    _resize(qtbot, third, 1600, 1000)
    dock = third.resume_panes.dock
    qtbot.waitUntil(lambda: third.dockWidgetArea(dock) == BOTTOM and not third.tabifiedDockWidgets(dock),
                    timeout=1000)
    qtbot.wait(30)
    assert abs(dock.height() - mine) <= 4, (dock.height(), mine)
    third.close()


def test_a_resume_dock_the_user_floated_stays_floating_when_narrow(qtbot, window):
    _resize(qtbot, window, 1600, 1000)
    dock = window.resume_panes.dock
    dock.setFloating(True)  # (the dock's float button)
    _resize(qtbot, window, 1024, 700)
    qtbot.wait(30)
    assert dock.isFloating() and not window.compact.compact


def _widest_rule_fits(view, col: int, prefix: str = "") -> int:
    """Column ``col`` of ``view`` is at least as wide as the widest rule id (with ``prefix``) and wholly on screen."""
    hh = view.header() if hasattr(view, "header") else view.horizontalHeader()
    need = style.rule_id_width(view.fontMetrics(), prefix)
    assert hh.sectionSize(col) >= need + 6, (hh.sectionSize(col), need)
    assert hh.sectionViewportPosition(col) + need <= view.viewport().width(), (
        hh.sectionViewportPosition(col), need, view.viewport().width())
    return hh.sectionSize(col)


@pytest.mark.parametrize("size", [(1024, 700), (1920, 1080)])
def test_rule_ids_are_never_cut(qtbot, window, size):
    """The widest rule id of the catalogue fits the verdicts' Rule column (on screen, not scrolled to),
    the folder's Root cause column and the Sessions tab's verdict column, at 1024x700 and 1920x1080;
    the timeline writes a failing event's rule id whole, beside its mark."""
    widest = style.widest_rule_id(window.findings_view.fontMetrics())
    assert widest == "S-TOOLEND-EVIDENCE-MISMATCH"
    _resize(qtbot, window, *size)
    window.reset_layout()
    open_and_wait(qtbot, window, CASE_056)
    qtbot.waitUntil(lambda: window.findings_view.viewport().width() > 0, timeout=1000)
    _widest_rule_fits(window.findings_view, 1)
    hh = window.folder_view.horizontalHeader()  # (the Folder dock is hidden: its width only)
    assert hh.sectionSize(3) >= style.rule_id_width(window.folder_view.fontMetrics()) + 6
    em = window.sessions_view.fontMetrics().horizontalAdvance("M")
    assert window.sessions_view.header().sectionSize(3) >= max(
        14 * em, style.rule_id_width(window.sessions_view.fontMetrics(), "FAIL ") + 6)
    # the root cause's row: the rule id in full
    m = window.findings_model
    root = m.index(0, 1, m.index(0, 0))
    assert m.data(root) == "S-TOOLEND-BINDING-PARSE"
    assert window.findings_view.visualRect(root).width() >= window.findings_view.fontMetrics().horizontalAdvance(
        m.data(root)) + 6


def test_the_bundled_broken_sample_at_1024x700_shows_its_rules_whole(qtbot, window_1024):
    window = window_1024
    open_and_wait(qtbot, window, sample_paths("broken"))
    _widest_rule_fits(window.findings_view, 1)


def test_a_dock_closed_in_a_narrow_window_stays_closed_next_time(qtbot, tmp_path):
    """A screen always under 1100 px: what the user changes while compact is theirs and is kept (it was lost:
    the settings only ever kept the wide arrangement from before compacting)."""
    from PySide6.QtWidgets import QAbstractButton

    path = str(tmp_path / "s.ini")

    def narrow():
        w = _window_at(qtbot, path, 1024, 700)
        qtbot.wait(30)
        return w

    first = narrow()
    assert first.compact.compact
    assert not first.compact.user_rearranged()
    close = first.bytes_dock.findChild(QAbstractButton, "qt_dockwidget_closebutton")
    QTest.mouseClick(close, Qt.MouseButton.LeftButton)  # the Bytes dock's close button
    qtbot.waitUntil(lambda: first.bytes_dock.isHidden(), timeout=1000)
    assert first.compact.user_rearranged()
    first.close()

    second = narrow()  # the arrangement as the user left it: Bytes closed, Resume a tab beside the Digests
    assert second.bytes_dock.isHidden() and second.digests_dock.isVisible()
    assert second.digests_dock in second.tabifiedDockWidgets(second.resume_panes.dock)
    second.close()


def test_tab_at_1024x700_stops_only_on_controls_on_screen_and_each_has_a_name(qtbot, window_1024):
    """Tab walked through the Resume dock's controls while it lay behind the Digests tab: four stops with
    nothing on screen (a newcomer trial). A covered dock is off the Tab chain; raising its tab brings it back."""
    window = window_1024
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert window.compact.compact
    window.activateWindow()
    window.snap_pane.view.setFocus()
    seen = []
    for _ in range(22):
        f = QApplication.focusWidget()
        seen.append((type(f).__name__, f.accessibleName(), not f.visibleRegion().isEmpty()))
        QTest.keyClick(f, Qt.Key.Key_Tab)
    assert [s for s in seen if not s[2]] == []
    assert ("TimelineView", "Timeline of runs and events", True) not in seen
    assert ("QTabBar", "Docked panes", True) in seen
    click_dock_tab(qtbot, window, "Resume")  # raised: its controls are reachable again
    qtbot.waitUntil(lambda: window.resume_panes.timeline.isEnabled(), timeout=2000)
    assert not window.digests_view.isEnabled()


def test_at_1024x700_the_timeline_gives_the_plot_most_of_its_width_and_a_click_lands_on_the_event(qtbot,
                                                                                                   window_1024):
    """In the tabbed Resume dock the timeline's view is about 373 px wide; its lane labels took 230 of them and left the
    plot 115. They now take 30 % of a narrow view (at least 110 px, at most 230), and painting and clicking
    share that edge: a click on an event's x selects that event's pointer."""
    from inspector.gui.widgets.timeline_paint import header_width

    window = window_1024
    scen = GOLDEN_P.parents[1] / "scenarios"
    open_and_wait(qtbot, window, [scen / "02-stream-retry.payload.json", scen / "02-stream-retry.descriptor.json"])
    click_dock_tab(qtbot, window, "Resume")
    tl = window.resume_panes.timeline
    qtbot.waitUntil(lambda: tl.isVisible() and tl.timeline is not None, timeout=3000)
    vw = tl.viewport().width()
    assert vw < 500  # the narrow pane this is about
    assert tl._left == max(110, min(230, vw * 3 // 10)) < 230
    assert tl._plot_width() >= 0.6 * vw
    lane = tl.timeline.lanes[0]
    e = len(lane.seq) // 2
    x = round(tl.x_of(lane.seq[e]))
    assert tl._left < x < vw
    pointers = []
    tl.pointerActivated.connect(pointers.append)
    y = _AXIS_H + tl._lane_h // 2 + 6
    QTest.mouseClick(tl.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    assert tl.hit(QPoint(x, y)) == (0, e)
    qtbot.waitUntil(lambda: bool(pointers), timeout=2000)
    assert pointers[-1] == f"/snapshot/run_records/0/events/{e}"
    # a wide window keeps the full label column
    _resize(qtbot, window, 1600, 1000)
    qtbot.waitUntil(lambda: tl.viewport().width() > 1000, timeout=2000)
    assert tl._left == header_width(tl.viewport().width()) == 230
