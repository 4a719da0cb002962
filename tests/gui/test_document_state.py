"""State per document: the notices, the trees' and bytes' scroll positions, the selected
node and the selection history belong to the checkpoint they were made for. Another checkpoint starts afresh;
coming back to one shown earlier in this window (Sessions tab Alt+Left/Right, Open Recent) gives them back."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui.roles import LocationRole, PointerRole  # noqa: E402
from tests.session.test_series import build_folder  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _expand_all(qtbot, window, view):
    window.focus_pane(view)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view, timeout=3000)
    with qtbot.waitSignal(window.expander.finished, timeout=10000):
        QTest.keyClick(view, Qt.Key.Key_X, CTRL_SHIFT)


def _page_down(view, times):
    for _ in range(times):
        QTest.keyClick(view, Qt.Key.Key_PageDown)


def _state(window):
    """What the user sees: each tree's selected pointer and scroll position, the bytes views' scroll positions."""
    out = {}
    for name, pane in (("snapshot", window.snap_pane), ("descriptor", window.desc_pane)):
        v = pane.view
        out[name] = (v.currentIndex().data(PointerRole), v.verticalScrollBar().value())
    out["payload bytes"] = window.hex_payload.verticalScrollBar().value()
    out["descriptor bytes"] = window.hex_descriptor.verticalScrollBar().value()
    return out


def _step(qtbot, window, view, key):
    view.setFocus()
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(view, key, Qt.KeyboardModifier.AltModifier)
    qtbot.wait(100)  # (anything the window does after: nothing moves the views)


def test_sessions_alt_left_gives_back_the_scroll_positions_selection_and_history(qtbot, window, tmp_path):
    folder = build_folder(tmp_path / "f")
    with qtbot.waitSignal(window.folderScanned, timeout=60000):
        window.open_paths([str(folder)])
    sessions, model = window.sessions_view, window.sessions_model
    alpha = model.index(0, 0)
    sessions.setCurrentIndex(model.index(1, 0, alpha))  # alpha-2; Alt+Left opens alpha-1
    _step(qtbot, window, sessions, Qt.Key.Key_Left)
    assert window.doc.paths[0] == str(folder / "alpha-1.payload.json")

    # in alpha-1: expand the snapshot tree and page down it (selecting as it goes), the same in the descriptor
    # tree, then page down the payload's bytes
    snap, desc, hexp = window.snap_pane.view, window.desc_pane.view, window.hex_payload
    _expand_all(qtbot, window, snap)
    snap.setCurrentIndex(snap.model().index(0, 0))
    _page_down(snap, 3)
    window.lower_trees.setCurrentWidget(window.desc_pane)
    _expand_all(qtbot, window, desc)
    desc.setCurrentIndex(desc.model().index(0, 0))
    _page_down(desc, 2)
    window.focus_pane(snap)
    QTest.keyClick(snap, Qt.Key.Key_Down)  # the snapshot tree worked in last
    window.hex_tabs.setCurrentWidget(hexp)
    hexp.setFocus()
    _page_down(hexp, 4)
    left = _state(window)
    assert left["snapshot"][0] == "/snapshot/run_records/0/events/3/timestamp_ms"
    assert left["descriptor"][0] == "/logical_resume/evidence_digest"
    assert left["snapshot"][1] > 0 and left["descriptor"][1] > 0 and left["payload bytes"] > 0
    history = list(window.selection.history.entries)
    assert [(e.source, e.pointer) for e in history[-2:]] == [
        ("descriptor", "/logical_resume/evidence_digest"),
        ("payload", "/snapshot/run_records/0/events/3/timestamp_ms")]

    # alpha-2 (Alt+Right in the Sessions tab): its own state, none of alpha-1's; no history of alpha-1
    _step(qtbot, window, sessions, Qt.Key.Key_Right)
    assert window.doc.paths[0] == str(folder / "alpha-2.payload.json")
    other = _state(window)
    assert other["snapshot"][0] != left["snapshot"][0] and other["payload bytes"] != left["payload bytes"]
    assert [e.pointer for e in window.selection.history.entries if e.source] == ["/size_bytes"]  # its root cause
    QTest.keyClick(window.findings_view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # Go > Back
    assert window.statusBar().currentMessage() == "No earlier selection."

    # back to alpha-1: everything as it was left, and Back goes to the selection before
    _step(qtbot, window, sessions, Qt.Key.Key_Left)
    assert window.doc.paths[0] == str(folder / "alpha-1.payload.json")
    assert _state(window) == left
    assert window.selection.history.entries == history
    window.focus_pane(snap)
    QTest.keyClick(snap, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # Go > Back: the descriptor's node
    assert window.lower_trees.currentWidget() is window.desc_pane
    assert desc.currentIndex().data(PointerRole) == "/logical_resume/evidence_digest"


def _pair_and_lone_descriptor(tmp_path):
    """A pair in one folder (opened together) and a lone descriptor in another (opened alone)."""
    (tmp_path / "pair").mkdir()
    (tmp_path / "lone").mkdir()
    p, d = tmp_path / "pair" / "a.payload.json", tmp_path / "pair" / "a.descriptor.json"
    shutil.copyfile(GOLDEN_P, p)
    shutil.copyfile(GOLDEN_D, d)
    lone = tmp_path / "lone" / "b.descriptor.json"
    shutil.copyfile(GOLDEN_D, lone)
    return p, d, lone


def _open_recent(qtbot, window, n):
    """File > Open Recent > ``n`` from the keyboard; waits until it is shown."""
    menu = window.recent_menu
    menu.popup(window.mapToGlobal(window.rect().center()))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(menu, getattr(Qt.Key, f"Key_{n}"))
    qtbot.wait(100)


ONLY_DESCRIPTOR = ("No payload that matches b.descriptor.json was found beside it. Only a descriptor was given: its "
                   "own fields are checked; open the payload too to verify.")
OPEN_A_PAYLOAD = ("Open a payload first: the canonical diff shows a payload file beside the canonical bytes the "
                  "reference would write.")


def test_notices_belong_to_their_document_through_open_recent(qtbot, window, tmp_path):
    """The canonical diff's "Open a payload first" stayed over the next checkpoint opened; the hint of a
    lone descriptor goes with it and is said again when it is opened again."""
    p, d, lone = _pair_and_lone_descriptor(tmp_path)
    open_and_wait(qtbot, window, [p, d])
    open_and_wait(qtbot, window, [lone])
    assert window.banner_text("hint") == ONLY_DESCRIPTOR
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_K, CTRL_SHIFT)  # View > Canonical Diff, with no payload open
    assert window.banner_text("canon") == OPEN_A_PAYLOAD

    _open_recent(qtbot, window, 2)  # the pair
    assert window.doc.paths == [str(p), str(d)]
    assert window.banner_text("canon") is None and window.banner_text("hint") is None

    _open_recent(qtbot, window, 2)  # the lone descriptor again: its hint, not the canonical diff's request
    assert window.doc.paths == [str(lone)]
    assert window.banner_text("hint") == ONLY_DESCRIPTOR and window.banner_text("canon") is None


def test_a_drops_notice_stays_with_the_document_the_drop_opened(qtbot, window, tmp_path):
    """A drop's "Not opened: ..." is about the drop that opened the document shown: it stays with that document
    (said after the load started, it is not the previous document's), and goes when another is opened."""
    from PySide6.QtCore import QMimeData, QPoint, QUrl
    from PySide6.QtGui import QDropEvent

    p, d, lone = _pair_and_lone_descriptor(tmp_path)
    open_and_wait(qtbot, window, [lone])
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(p)), QUrl.fromLocalFile(str(d)), QUrl("https://example.com/c.payload.json")])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.dropEvent(QDropEvent(QPoint(20, 20).toPointF(), Qt.DropAction.CopyAction, md,
                                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    assert window.doc.paths == [str(p), str(d)]
    assert window.banner_text("drop") == ("Not opened: https://example.com/c.payload.json is not a file on this "
                                          "computer (https URL); download it first.")
    assert window.banner_text("hint") is None  # (the lone descriptor's)
    _open_recent(qtbot, window, 2)  # the lone descriptor
    assert window.banner_text("drop") is None and window.banner_text("hint") == ONLY_DESCRIPTOR


def test_open_recent_gives_back_the_selected_node_scroll_and_find_text(qtbot, window, tmp_path):
    """Coming back to a checkpoint through Open Recent: its selected node, its snapshot tree's scroll position and
    its Find text; the other checkpoint shown meanwhile had none of them."""
    from .conftest import go_to

    p, d, lone = _pair_and_lone_descriptor(tmp_path)
    open_and_wait(qtbot, window, [lone])
    open_and_wait(qtbot, window, [p, d])
    snap = window.snap_pane.view
    _expand_all(qtbot, window, snap)
    go_to(qtbot, window, "/snapshot/session/tool_names/0")
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(window.find_bar.edit, "retain")
    scroll = snap.verticalScrollBar().value()
    assert scroll > 0

    _open_recent(qtbot, window, 2)  # the lone descriptor
    assert window.find_bar.edit.text() == "" and not snap.currentIndex().isValid()
    assert snap.verticalScrollBar().value() == 0

    _open_recent(qtbot, window, 2)  # the pair again
    assert snap.currentIndex().data(PointerRole) == "/snapshot/session/tool_names/0"
    assert snap.verticalScrollBar().value() == scroll
    assert window.find_bar.edit.text() == "retain"
    assert window.hex_payload.highlighted == snap.currentIndex().data(LocationRole).span  # (its bytes too)
