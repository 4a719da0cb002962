"""Go ▸ Back / Forward (Alt+Left / Alt+Right) through the selections the relay forwarded (issue 9, item 4)."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.checkpoint import Location
from inspector.gui.history import SelectionHistory
from inspector.gui.roles import LocationRole

from inspector.gui.document import sample_paths

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
