"""Go ▸ Back / Forward (Alt+Left / Alt+Right) through the selections the relay forwarded."""

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from inspector.checkpoint import Location
from inspector.session.history import SelectionHistory
from inspector.gui.roles import LocationRole, ObjectRole

from inspector.gui.document import sample_paths

from tests.conftest import CASES_PINNED

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait


def _pointer(view):
    return view.model().data(view.currentIndex(), LocationRole).pointer


def test_history_bounded_merges_duplicates_and_drops_forward_on_push():
    h = SelectionHistory(limit=3)
    for p in ("/a", "/a", "/b", "/c", "/d"):
        h.push(Location("payload", p))
    assert [e.pointer for e in h.entries] == ["/b", "/c", "/d"]
    assert h.back().pointer == "/c" and h.back().pointer == "/b" and h.back() is None
    h.push(Location("descriptor", "/b"))  # same pointer, other file: a new entry; "/c", "/d" dropped
    assert [(e.source, e.pointer) for e in h.entries] == [("payload", "/b"), ("descriptor", "/b")]
    assert h.forward() is None and h.back().source == "payload"


def test_alt_left_right_reselect_tree_then_verdict_selection(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, 0))
    first = _pointer(view)
    QTest.keyClick(view, Qt.Key.Key_Down)
    second = _pointer(view)
    QTest.keyClick(view, Qt.Key.Key_Down)
    third = _pointer(view)
    assert len({first, second, third}) == 3
    h = window.selection.history
    assert [e.pointer for e in h.entries[-3:]] == [first, second, third]
    n = len(h.entries)

    QTest.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert _pointer(view) == second
    QTest.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert _pointer(view) == first
    assert len(h.entries) == n  # going back pushes nothing
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert _pointer(view) == second
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert _pointer(view) == third
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)  # at the newest: stays
    assert _pointer(view) == third
    assert window.statusBar().currentMessage() == "No later selection."

    # a descriptor selection from the digests, then back to the snapshot tree's node
    dv = window.digests_view
    dv.setFocus()
    dv.setCurrentIndex(dv.model().index(0, 0))
    assert h.entries[-1].source == "descriptor"
    QTest.keyClick(dv, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert _pointer(view) == third
    assert window.selection.last_tree() is view


def test_opening_another_checkpoint_clears_history(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, 0))
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert len(window.selection.history.entries) >= 2
    open_and_wait(qtbot, window, sample_paths("broken"))
    h = window.selection.history
    # only what the new checkpoint selected itself (its root cause) is there
    assert not h.can_back() and len(h.entries) == 1
    loc = window.report.root_cause.locations[0]
    assert (h.entries[0].source, h.entries[0].pointer) == (loc.source, loc.pointer)


def test_back_forward_listed_in_go_menu_and_shortcuts(window):
    rows = dict(window.shortcut_rows())
    assert rows["Back"] == "Alt+Left" and rows["Forward"] == "Alt+Right"
    keys = [k for _, k in window.shortcut_rows()]
    for k in ("Alt+Left", "Alt+Right"):
        assert sum(k in x.split(", ") for x in keys) == 1  # no collision


RICH = [CASES_PINNED / "001-valid-rich-resume.payload.json", CASES_PINNED / "001-valid-rich-resume.descriptor.json"]


def _click(widget, point):
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(int(point.x()), int(point.y())))


def _click_digest(window, row):
    dv = window.digests_view
    dv.scrollTo(dv.model().index(row, 0))
    _click(dv.viewport(), dv.visualRect(dv.model().index(row, 1)).center())
    assert dv.currentIndex().row() == row


def _click_event(window, lane, e):
    tl = window.resume_panes.timeline
    window.resume_panes.tabs.setCurrentIndex(0)
    tl.ensure_event_visible(lane, e)
    _click(tl.viewport(), tl.event_point(lane, e))
    assert tl.selected == (lane, e)


def _alt(window, key):
    QTest.keyClick(window.focusWidget() or window, key, Qt.KeyboardModifier.AltModifier)


def test_back_forward_reselect_digest_rows_timeline_events_and_messages(qtbot, window):
    """Every selectable place is a navigation stop: a digests row, a timeline event, a transcript
    message, a verdict; Back/Forward select it there again (was: only the trees followed)."""
    window.resize(1600, 1000)  # digests and timeline side by side (below 1100 px they are tabs of one dock)
    qtbot.waitUntil(lambda: not window.compact.compact, timeout=2000)
    open_and_wait(qtbot, window, RICH)
    panes = window.resume_panes
    panes.dock.show()
    tl = panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None, timeout=5000)
    tl.zoom(3, tl.event_point(1, 11).x())
    dv = window.digests_view
    _click_digest(window, 1)
    _click_digest(window, 3)
    _click_event(window, 1, 11)
    _click_event(window, 1, 20)
    n = len(window.selection.history.entries)
    panes.tabs.setCurrentIndex(1)
    tv = panes.transcript.view
    # the focus moves to the transcript, which makes its first row current: that is not a selection
    assert window.focusWidget() is tv and len(window.selection.history.entries) == n
    _click(tv.viewport(), tv.visualRect(tv.model().index(1, 0)).center())
    QTest.keyClick(tv, Qt.Key.Key_Down)  # a key selects as a click does
    message = panes.transcript.model.message_index(tv.currentIndex().row())
    assert message is not None and message == panes.transcript.model.message_index(2)
    assert window.selection.history.entries[-1].pointer == f"/snapshot/session/messages/{message}"
    _click_digest(window, 0)
    places = [e.place for e in window.selection.history.entries]
    assert places[-7:] == [("digest", 1), ("digest", 3), ("timeline",), ("timeline",), ("transcript",),
                           ("transcript",), ("digest", 0)]

    _alt(window, Qt.Key.Key_Left)  # to the message: the Transcript tab, the message selected and focused
    assert panes.tabs.currentIndex() == 1 and window.focusWidget() is tv
    assert panes.transcript.model.message_index(tv.currentIndex().row()) == message
    assert _pointer(window.snap_pane.view) == f"/snapshot/session/messages/{message}"
    _alt(window, Qt.Key.Key_Left)  # to the message clicked before the key
    assert panes.transcript.model.message_index(tv.currentIndex().row()) == panes.transcript.model.message_index(1)
    _alt(window, Qt.Key.Key_Left)  # to event 20: the Timeline tab, the event selected and focused
    assert panes.tabs.currentIndex() == 0 and tl.selected == (1, 20) and window.focusWidget() is tl
    assert _pointer(window.snap_pane.view) == "/snapshot/run_records/1/events/20"
    _alt(window, Qt.Key.Key_Left)
    assert tl.selected == (1, 11)
    _alt(window, Qt.Key.Key_Left)  # to digests row 3, then row 1
    assert dv.currentIndex().row() == 3 and window.focusWidget() is dv
    _alt(window, Qt.Key.Key_Left)
    assert dv.currentIndex().row() == 1
    row1 = window.digests_model.row_object(1)
    assert _pointer(window.desc_pane.view) == row1.pointer
    assert window.selection.history.entries[-1].place == ("digest", 0)  # going back pushed nothing

    _alt(window, Qt.Key.Key_Right)
    assert dv.currentIndex().row() == 3
    _alt(window, Qt.Key.Key_Right)
    assert tl.selected == (1, 11) and panes.tabs.currentIndex() == 0
    _alt(window, Qt.Key.Key_Right)
    _alt(window, Qt.Key.Key_Right)
    _alt(window, Qt.Key.Key_Right)
    assert panes.tabs.currentIndex() == 1 and panes.transcript.model.message_index(tv.currentIndex().row()) == message
    _alt(window, Qt.Key.Key_Right)
    assert dv.currentIndex().row() == 0


def test_back_reselects_the_verdict_row_it_came_from(qtbot, window):
    open_and_wait(qtbot, window, sample_paths("broken"))
    fv = window.findings_view
    window.failures_only.setChecked(False)
    rows = [window.findings_model.index_for_rule(r) for r in ("X-DESCRIPTOR", "D-PARSE")]
    for idx in rows:
        fv.scrollTo(idx)
        _click(fv.viewport(), fv.visualRect(idx).center())
    assert window.findings_model.data(fv.currentIndex(), ObjectRole).rule.id == "D-PARSE"
    _click_digest(window, 2)
    _alt(window, Qt.Key.Key_Left)
    assert window.findings_model.data(fv.currentIndex(), ObjectRole).rule.id == "D-PARSE"
    _alt(window, Qt.Key.Key_Left)
    assert window.findings_model.data(fv.currentIndex(), ObjectRole).rule.id == "X-DESCRIPTOR"
    assert window.focusWidget() is fv
