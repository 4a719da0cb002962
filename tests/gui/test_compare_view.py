"""The comparison window and the canonical diff window, driven by real input events."""

import copy
import json

import orjson
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from inspector.session import compare_loading as compare_engine  # noqa: E402
from inspector.gui.roles import PointerRole  # noqa: E402
from tests.checkpoint.analysis.compare_helpers import add_tool_rounds, export, spelled_pair  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait  # noqa: E402
from .test_window import _drop  # noqa: E402

BROKEN = SAMPLES / "broken.payload.json"


def _opened(qtbot, window, action):
    """Run ``action`` (real input) and return the window it opened, once it is ready."""
    window.activateWindow()  # a closed comparison window may have had the focus
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        action()
    win = sig.args[0]
    qtbot.addWidget(win)
    if win.job is not None:
        with qtbot.waitSignal(win.ready, timeout=30000):
            pass
    return win


def _click_row(qtbot, view, row, col=0):
    rect = view.visualRect(view.model().index(row, col))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())


def _pointer(tree):
    return tree.currentIndex().data(PointerRole)


@pytest.fixture
def rounds(tmp_path):
    """A (one tool round) and B (two more rounds and a message inserted at the front), exported."""
    g = orjson.loads(GOLDEN_P.read_bytes())
    a = add_tool_rounds(g, 1)
    b = copy.deepcopy(add_tool_rounds(g, 3))
    b["snapshot"]["session"]["messages"].insert(0, {"role": "user", "content": [{"type": "text", "text": "hello"}]})
    out = []
    for name, value in (("a", a), ("b", b)):
        path = tmp_path / f"{name}.payload.json"
        path.write_bytes(export(value)[0])
        out.append(path)
    return out


def test_dropping_two_payloads_opens_the_comparison(qtbot, window):
    win = _opened(qtbot, window, lambda: _drop(window, [GOLDEN_P, BROKEN]))
    assert win.summary.text().startswith("<b>1 message changed</b>")
    assert "payload-with-resume.json" in win.headers[0].text() and "PASS: no rule failed" in win.headers[0].text()
    assert win.change_model.rowCount() == 1
    # clicking the change selects it in both trees
    _click_row(qtbot, win.changes, 0)
    assert _pointer(win.trees[0]) == _pointer(win.trees[1]) == "/logical_resume/messages/0/content/0/text"
    assert win.trees[0].currentIndex().data().startswith("~ ")  # marked by a sign, not only a colour
    assert win.models[0].mark("/logical_resume") == "holds" and win.models[0].mark("/snapshot") is None
    win.close()


def test_escape_closes_the_comparison_and_the_canonical_diff(qtbot, window, rounds):
    def canonical_diff():
        open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)

    for action in (lambda: window.open_paths([str(p) for p in rounds]), canonical_diff):
        win = _opened(qtbot, window, action)
        win.activateWindow()
        qtbot.waitUntil(win.isActiveWindow, timeout=5000)
        assert win.isVisible()
        QTest.keyClick(win.focusWidget() or win, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)


def test_trees_kept_in_step_and_change_list(qtbot, window, rounds):
    win = _opened(qtbot, window, lambda: window.open_paths([str(p) for p in rounds]))
    assert win.summary.text().startswith(
        "<b>2 tool rounds added, 9 messages added, 1 run changed, 4 events added, 3 other values changed</b>")
    ta, tb = win.trees
    ta.setFocus()
    # select "snapshot" in A with the keyboard and expand it: B follows
    snap = win.models[0].index_for_pointer("/snapshot")
    ta.setCurrentIndex(snap)
    QTest.keyClick(ta, Qt.Key.Key_Right)
    assert ta.isExpanded(snap) and tb.isExpanded(win.models[1].index_for_pointer("/snapshot"))
    assert _pointer(tb) == "/snapshot"
    # A's first message is B's second (one was inserted before it): selection follows the alignment
    msg = win.models[0].index_for_pointer("/snapshot/session/messages/0")
    ta.scrollTo(msg)
    QTest.mouseClick(ta.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     ta.visualRect(msg).center())
    assert _pointer(ta) == "/snapshot/session/messages/0"
    assert _pointer(tb) == "/snapshot/session/messages/1"
    QTest.keyClick(ta, Qt.Key.Key_Down)
    assert (_pointer(ta), _pointer(tb)) == ("/snapshot/session/messages/1", "/snapshot/session/messages/2")
    # collapsing in B collapses in A
    tb.setFocus()
    sess_b = win.models[1].index_for_pointer("/snapshot/session/messages")
    assert tb.isExpanded(sess_b)
    tb.setCurrentIndex(sess_b)
    QTest.keyClick(tb, Qt.Key.Key_Left)
    assert not ta.isExpanded(win.models[0].index_for_pointer("/snapshot/session/messages"))
    # scrolling one tree (Page Down) scrolls the other to the matching row
    QTest.keyClick(tb, Qt.Key.Key_Right)  # expand the messages again (both sides)
    win.resize(900, 420)
    ta.setFocus()
    ta.setCurrentIndex(win.models[0].index_for_pointer("/logical_resume"))
    for _ in range(2):
        QTest.keyClick(ta, Qt.Key.Key_PageDown)
    assert ta.verticalScrollBar().value() > 0
    top_a = ta.indexAt(QPoint(4, 4)).data(PointerRole)
    top_b = tb.indexAt(QPoint(4, 4)).data(PointerRole)
    assert top_b == win._other(0, top_a) and top_a.startswith("/snapshot/session/")
    # F8 walks the change list; each change is selected on both sides (an addition: its container in A)
    _click_row(qtbot, win.changes, 0)
    row = win.change_model.rows[win.changes.currentIndex().row()]
    assert (row.op, row.a_pointer) == ("changed", "/logical_resume/checkpoint_ms")
    assert _pointer(ta) == _pointer(tb) == "/logical_resume/checkpoint_ms"
    QTest.keyClick(win.changes, Qt.Key.Key_F8)
    row = win.change_model.rows[win.changes.currentIndex().row()]
    assert (row.op, row.kind, row.b_pointer) == ("added", "message", "/logical_resume/messages/3")
    assert _pointer(tb) == "/logical_resume/messages/3" and _pointer(ta) == "/logical_resume/messages"
    win.close()


def test_compare_with_menu_and_folder_row(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.comparer.pick_file = lambda title: str(BROKEN)  # the file dialog's answer
    win = _opened(qtbot, window, lambda: QTest.keyClick(window, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier
                                                        | Qt.KeyboardModifier.ShiftModifier))
    assert win.change_model.rowCount() == 1
    win.close()
    # a folder row's context menu: compare with the open checkpoint
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "x.payload.json").write_bytes(BROKEN.read_bytes())
    with qtbot.waitSignal(window.folderScanned, timeout=20000):
        window.open_paths([str(folder)])
    view = window.folder_view
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, 0))

    def choose():
        menu = window.comparer.menu
        assert [a.text() for a in menu.actions()] == ["Compare with Open Checkpoint", "Compare with…"]
        QTest.keyClick(menu, Qt.Key.Key_Down)
        QTest.keyClick(menu, Qt.Key.Key_Return)
    QTimer.singleShot(200, choose)
    win = _opened(qtbot, window, lambda: QTest.keyClick(view, Qt.Key.Key_Menu))
    assert win.result.a.path == str(GOLDEN_P) and win.result.b.path == str(folder / "x.payload.json")
    assert win.change_model.rowCount() == 1
    win.close()


def test_two_descriptors_and_bad_pairs(qtbot, window, tmp_path):
    win = _opened(qtbot, window, lambda: window.open_paths([str(GOLDEN_D), str(SAMPLES / "broken.descriptor.json")]))
    assert win.summary.text().startswith("Same values: the files are byte-identical.")
    win.close()
    bad = tmp_path / "bad.payload.json"  # clearly a payload, but nested past serde_json's 127 levels
    bad.write_bytes(GOLDEN_P.read_bytes()[:-1] + b',"x":' + b"[" * 130 + b"]" * 130 + b"}")
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        window.open_paths([str(GOLDEN_P), str(bad)])
    win = sig.args[0]
    with qtbot.waitSignal(win.failed, timeout=20000) as failed:
        pass
    assert failed.args[0].startswith("B is not JSON the reference reads: recursion limit exceeded")
    assert win.summary.text().startswith("ERROR: B is not JSON")
    win.close()


def test_large_comparison_runs_in_worker_processes_and_cancels(qtbot, window, monkeypatch, rounds):
    monkeypatch.setattr(compare_engine, "PROCESS_THRESHOLD", 0)
    win = _opened(qtbot, window, lambda: window.open_paths([str(p) for p in rounds]))
    assert win.change_model.rowCount() == 18 and win.result.a.index is not None
    win.start([str(p) for p in rounds])
    assert win.cancel_button.isVisibleTo(win)
    with qtbot.waitSignal(win.jobs.latest["document"].signals.cancelled, timeout=20000):
        QTest.mouseClick(win.cancel_button, Qt.MouseButton.LeftButton)
    assert win.summary.text() == "The comparison was cancelled." and not win.cancel_button.isVisibleTo(win)
    win.close()


def test_canonical_diff_of_a_pretty_payload_and_an_f32(qtbot, window, tmp_path):
    pretty = tmp_path / "pretty.payload.json"
    pretty.write_text(json.dumps(json.loads(GOLDEN_P.read_bytes()), indent=2))
    open_and_wait(qtbot, window, [pretty, GOLDEN_D])
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    win = _opened(qtbot, window, lambda: QTest.keyClick(window, Qt.Key.Key_K, keys))
    text = win.summary.text()
    assert "<b>whitespace</b>: whitespace between tokens (the reference writes compact JSON) (215 places)" in text
    assert "Only whitespace between tokens differs" in text
    assert win.model.rowCount() == 123 and win.position.text() == "0 differences to step through"
    assert win.model.data(win.model.index(1, 5)) == "whitespace"
    win.close()
    open_and_wait(qtbot, window, [CASES / "44-p-f32-08.payload.json", CASES / "44-p-f32-08.descriptor.json"])
    win = _opened(qtbot, window, lambda: QTest.keyClick(window, Qt.Key.Key_K, keys))
    assert win.position.text() == "Difference 1 of 1: f32-not-exact"
    row = win.table.currentIndex().row()
    m = win.model
    assert [m.data(m.index(row, c)) for c in range(6)] == [
        "934", '        "auto_compact_threshold": 0.8,', "~", "934",
        '        "auto_compact_threshold": 0.800000011920929,', "f32-not-exact"]
    win.table.setCurrentIndex(m.index(0, 0))
    win.table.setFocus()
    QTest.keyClick(win.table, Qt.Key.Key_F8)
    assert win.table.currentIndex().row() == row
    QTest.mouseClick(win.prev_button, Qt.MouseButton.LeftButton)
    assert win.table.currentIndex().row() == row  # the only difference: wraps to itself
    win.close()


def test_file_names_that_are_not_utf8(qtbot, window, tmp_path):
    import os

    name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.payload.json")
    with open(name, "wb") as fh:
        fh.write(BROKEN.read_bytes())
    win = _opened(qtbot, window, lambda: window.open_paths([str(GOLDEN_P), os.fsdecode(name)]))
    assert "caf\\xe9.payload.json" in win.headers[1].text()
    assert win.windowTitle() == "payload-with-resume.json ↔ caf\\xe9.payload.json — Compare"
    assert win.change_model.rowCount() == 1
    win.close()


def test_canonical_diff_in_a_worker_process_keeps_canonical_and_sizes(qtbot, window, tmp_path, monkeypatch):
    """Above PROCESS_THRESHOLD the alignment runs in a worker process, which drops the canonical
    bytes before sending the result back: a canonical payload was then said to differ from
    "the canonical bytes (0 bytes); first differing byte: None", and a pretty one to sit beside
    0 canonical bytes (seen on every file over 4 MiB, e.g. a 40 MiB export)."""
    from inspector.session import engine

    monkeypatch.setattr(compare_engine, "PROCESS_THRESHOLD", 100)
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    win = _opened(qtbot, window, lambda: QTest.keyClick(window, Qt.Key.Key_K, keys))
    size = len(GOLDEN_P.read_bytes())
    assert win.summary.text() == (f"payload-with-resume.json is canonical: its {size:,} bytes are exactly "
                                  "what the reference writes.")
    assert win.model.rowCount() == 0 and win.position.text() == "0 differences to step through"
    win.close()
    pretty = tmp_path / "pretty.payload.json"
    pretty.write_text(json.dumps(json.loads(GOLDEN_P.read_bytes()), indent=2))
    open_and_wait(qtbot, window, [pretty, GOLDEN_D])
    win = _opened(qtbot, window, lambda: QTest.keyClick(window, Qt.Key.Key_K, keys))
    assert win.summary.text().startswith(f"<b>pretty.payload.json</b> ({pretty.stat().st_size:,} bytes) beside "
                                         f"the canonical bytes ({size:,} bytes); first differing byte: 1.<br>")
    assert win.model.rowCount() == 123
    win.close()


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_compare_with_a_descriptor_while_a_pair_is_open_compares_the_descriptors(qtbot, window):
    # Mouse trial: File ▸ Compare With…, pick sample.descriptor.json while the broken pair is open:
    # "ERROR: Compare two payloads or two descriptors; got ….payload.json (payload) and ….descriptor.json
    # (descriptor)", and both panes kept saying "comparing…".
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    window.comparer.pick_file = lambda title: str(SAMPLES / "sample.descriptor.json")  # the dialog's answer
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        QTest.keyClick(window, Qt.Key.Key_D, CTRL_SHIFT)
    win = sig.args[0]
    qtbot.waitUntil(lambda: win.result is not None, timeout=20000)
    assert [win.result.a.path, win.result.b.path] == [str(SAMPLES / "broken.descriptor.json"),
                                                     str(SAMPLES / "sample.descriptor.json")]
    assert not win.summary.text().startswith("ERROR")
    win.close()


def test_a_comparison_that_cannot_be_made_does_not_keep_saying_comparing(qtbot, window, tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"name": "not a checkpoint"}')
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json"])
    window.comparer.pick_file = lambda title: str(other)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        QTest.keyClick(window, Qt.Key.Key_D, CTRL_SHIFT)
    win = sig.args[0]
    qtbot.waitUntil(lambda: win.statusBar().currentMessage() == "The comparison could not be made.", timeout=20000)
    assert win.summary.text().startswith("ERROR: ")
    assert [h.text() for h in win.headers] == ["<b>broken.payload.json</b><br>not compared",
                                               "<b>notes.json</b><br>not compared"]
    win.close()


def test_the_change_list_shows_the_files_spelling_of_each_value(qtbot, window, tmp_path):
    """The list of changes shows a value as its file spells it (``1.0e2``, ``-0``, ``"\\u00e9"``) and the decoded
    value only when it differs, as ``diff`` prints it (it showed ``100.0 -> 100.5``)."""
    a, b = spelled_pair(tmp_path)
    win = _opened(qtbot, window, lambda: _drop(window, [a, b]))
    m = win.change_model
    assert [(m.index(r, 2).data(), m.index(r, 3).data()) for r in range(m.rowCount())] == [
        ("/snapshot/session/config/auto_compact_threshold  0.800000011920929",
         "/snapshot/session/config/auto_compact_threshold  1E+2 (= 100.0)"),
        ('/snapshot/session/config/name  "checkpoint fixture"',
         '/snapshot/session/config/name  "checkpoint fixtur\\u00e9" (= "checkpoint fixturé")'),
        ("/snapshot/session/context_usage/percent  1.0e2 (= 100.0)",
         "/snapshot/session/context_usage/percent  100.50 (= 100.5)"),
        ("/snapshot/session/total_cost  0.0", "/snapshot/session/total_cost  -0 (= -0.0)")]
    # the tree beside it spells the changed value the same way
    _click_row(qtbot, win.changes, 2)
    assert _pointer(win.trees[1]) == "/snapshot/session/context_usage/percent"
    assert "100.50" in win.trees[1].currentIndex().siblingAtColumn(1).data()
    win.close()


SERIES = __import__("pathlib").Path(__file__).resolve().parents[1] / "session" / "data" / "series"


def test_the_earlier_export_is_a_whichever_was_dropped_first(qtbot, window):
    """FORMAT.md 4.18: order is history, never a clock. clock-skew's p3 was written by a host whose clock ran
    behind (an earlier checkpoint_ms than p2's); dropped first, it is still B, the later, and p2 is A."""
    p2, p3 = SERIES / "clock-skew" / "p2.payload.json", SERIES / "clock-skew" / "p3.payload.json"
    lr = [orjson.loads(p.read_bytes())["logical_resume"] for p in (p2, p3)]
    assert lr[1]["checkpoint_ms"] < lr[0]["checkpoint_ms"] and lr[1]["turn"] > lr[0]["turn"]
    win = _opened(qtbot, window, lambda: _drop(window, [p3, p2]))
    assert win.headers[0].text().startswith("<b>A (earlier): p2.payload.json</b>")
    assert win.headers[1].text().startswith("<b>B (later): p3.payload.json</b>")
    assert win.windowTitle() == "p2.payload.json ↔ p3.payload.json — Compare"
    summary = win.summary.text()
    assert "added" in summary.split("<br>")[0] and "removed" not in summary.split("<br>")[0]
    assert __import__("html").unescape(summary).endswith(
        "B is later than A in the session's history (its runs' last event sequences).")
    win.close()


def test_a_fork_has_no_earlier_side(qtbot, window):
    x, y = SERIES / "diverged-runs" / "x.payload.json", SERIES / "diverged-runs" / "y.payload.json"
    win = _opened(qtbot, window, lambda: _drop(window, [y, x]))
    assert win.headers[0].text().startswith("<b>A: y.payload.json</b>")  # as dropped: neither is older
    assert "A and B have diverged: neither is later than the other (a fork of the session)." in win.summary.text()
    win.close()


def test_two_different_exports_with_one_history_are_a_fork(qtbot, window, tmp_path):
    """FORMAT.md 4.18 "Forks": two different exports at the same point are a fork, not "the same history"."""
    p2 = SERIES / "clock-skew" / "p2.payload.json"
    other = tmp_path / "p2-other.payload.json"
    v = orjson.loads(p2.read_bytes())
    v["snapshot"]["session"]["model_name"] = "another-model"  # (a different export; the runs' sequences alike)
    other.write_bytes(export(v)[0])
    win = _opened(qtbot, window, lambda: _drop(window, [p2, other]))
    assert "A and B record the same history but hold different content: a fork of the session at the same point" \
        in __import__("html").unescape(win.summary.text())
    assert win.headers[0].text().startswith("<b>A: p2.payload.json</b>")
    win.close()
