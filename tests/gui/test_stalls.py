"""The event loop is never held by work that grows with the document: Expand All runs in
slices between event-loop turns and Esc cancels it; a 500,000-element array's rows are made in
chunks as the view scrolls. The mechanism is tested here; how long the loop waits is measured by
``benchmarks/bench_gui_stalls.py`` (timing belongs there, not in tests)."""

import json

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui import expand  # noqa: E402
from inspector.gui.models.json_tree import BATCH  # noqa: E402

from .conftest import GOLDEN_P, open_and_wait  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _long_conversation(tmp_path, n=400):
    doc = json.loads(GOLDEN_P.read_bytes())
    doc["snapshot"]["session"]["messages"] = [
        {"content": [{"text": f"m{i}", "type": "text"}], "role": "user"} for i in range(n)]
    p = tmp_path / "long.payload.json"
    p.write_bytes(json.dumps(doc, separators=(",", ":")).encode())
    return p


def test_expand_all_works_in_slices_and_esc_cancels_it(qtbot, window, tmp_path, monkeypatch):
    # One unit of work per slice (a slice always makes progress): the expansion must span many
    # event-loop turns, whatever the machine's speed.
    monkeypatch.setattr(expand, "SLICE_MS", 0)
    open_and_wait(qtbot, window, [_long_conversation(tmp_path)])
    m, view = window.snap_model, window.snap_pane.view
    msgs = m.index_for_pointer("/snapshot/session/messages")
    window.focus_pane(view)
    view.setCurrentIndex(msgs)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    QTest.keyClick(view, Qt.Key.Key_X, CTRL | SHIFT)
    assert window.expander.running  # not done inside the key press
    assert window.cancel_button.isVisible()
    assert "Esc: cancel" in window.progress_label.text()
    # the event loop turns while it works: rows get made and expanded a few at a time
    qtbot.waitUntil(lambda: view.isExpanded(m.index_for_pointer("/snapshot/session/messages/3")), timeout=20000)
    assert window.expander.running
    assert not view.isExpanded(m.index_for_pointer("/snapshot/session/messages/399/content/0"))
    with qtbot.waitSignal(window.expander.finished, timeout=5000) as done:
        QTest.keyClick(view, Qt.Key.Key_Escape)
    assert done.args == [-1]
    assert not window.expander.running
    assert not window.cancel_button.isVisible()
    expanded = window.expander.next
    for _ in range(20):  # nothing more is expanded once cancelled
        QApplication.processEvents()
    assert not view.isExpanded(m.index_for_pointer("/snapshot/session/messages/399/content/0"))
    assert window.expander.next == expanded
    # Esc in the tree does nothing special when no expansion runs; Expand All runs to its end
    QTest.keyClick(view, Qt.Key.Key_Escape)
    view.setCurrentIndex(msgs)
    with qtbot.waitSignal(window.expander.finished, timeout=60000) as done:
        QTest.keyClick(view, Qt.Key.Key_X, CTRL | SHIFT)
    # messages, 400 range-free message rows, each with role/content, content[0] with text/type
    assert done.args[0] == 400 + 400 * 2 + 400 * 1 + 400 * 2
    assert view.isExpanded(m.index_for_pointer("/snapshot/session/messages/399/content/0"))


def test_a_500000_element_array_is_shown_in_chunks_as_the_view_scrolls(qtbot, window, tmp_path):
    p = tmp_path / "big-array.json"
    p.write_bytes(json.dumps(list(range(500_000))).encode())
    with qtbot.waitSignal(window.analysisReady, timeout=60000):
        window.open_paths([str(p)])
    m, view = window.snap_model, window.snap_pane.view
    # 500 range rows of 1,000 items at the top, made BATCH at a time as the view asks
    first = m.rowCount()
    assert first % BATCH == 0 and BATCH <= first < 500
    assert m.data(m.index(0, 0)) == "[0 … 999]" and m.data(m.index(0, 1)) == "1,000 items"
    window.focus_pane(view)
    view.setCurrentIndex(m.index(0, 0))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    counts = [m.rowCount()]
    while m.rowCount() < 500:
        QTest.keyClick(view, Qt.Key.Key_End, CTRL)
        qtbot.waitUntil(lambda: m.rowCount() > counts[-1] or m.rowCount() == 500, timeout=5000)
        counts.append(m.rowCount())
    steps = [b - a for a, b in zip(counts, counts[1:])]
    assert max(steps) <= 2 * BATCH and len(steps) >= 3  # chunks, never the whole list at once
    assert m.data(m.index(499, 0)) == "[499,000 … 499,999]"
    # opening one range row makes its first chunk of items only
    last = m.index(499, 0)
    view.setCurrentIndex(last)
    QTest.keyClick(view, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: view.isExpanded(last))
    assert BATCH <= m.rowCount(last) < 1000
    assert m.data(m.index(0, 1, last)) == "499000"


def test_progress_never_paints_the_window_in_the_middle_of_a_slot(qtbot, window):
    """QProgressBar.setValue repaints at once (and with it every pending change of the window); the window's
    progress only schedules its paint, so the event loop paints in its own turn."""
    from PySide6.QtCore import QEvent, QObject

    class Paints(QObject):
        count = 0

        def eventFilter(self, obj, event):  # noqa: N802 (Qt override)
            if event.type() == QEvent.Type.Paint:
                Paints.count += 1
            return False

    window.show()
    qtbot.waitExposed(window)
    bar = window.progress
    counter = Paints()
    bar.installEventFilter(counter)
    window._set_busy(True, "Reading…", 10)  # what a load's progress report does (a worker's signal, not a user)
    QApplication.processEvents()
    Paints.count = 0
    window._set_busy(True, "Reading…", 55)
    assert (bar.value(), Paints.count) == (55, 0)
    qtbot.waitUntil(lambda: Paints.count > 0, timeout=2000)
    bar.removeEventFilter(counter)
