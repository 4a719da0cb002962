"""Timeline, transcript, integrity lint and the resumability line, driven with real input."""

from __future__ import annotations

import orjson
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QColor, QTextCursor  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from inspector.checkpoint import Verdict, build_descriptor, encode  # noqa: E402
from inspector.gui import style  # noqa: E402
from inspector.checkpoint.jsontext.lazyjson import find_span, scan_children  # noqa: E402
from inspector.gui.roles import PointerRole  # noqa: E402
from tests.conftest import CASES_PINNED, SCENARIOS  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

RICH = [CASES_PINNED / "001-valid-rich-resume.payload.json", CASES_PINNED / "001-valid-rich-resume.descriptor.json"]
TERMINAL = [CASES / "39-p-source-completed.payload.json", CASES / "39-p-source-completed.descriptor.json"]
NO_LOOP = [GOLDEN_P.parent / "payload-semantic-only.json", GOLDEN_P.parent / "descriptor-semantic-only.json"]
MISSING_PASS = [SCENARIOS / "07-missing-pass-end.payload.json", SCENARIOS / "07-missing-pass-end.descriptor.json"]
GREEN = QColor("#2e7d32")


def _show_tab(window, i):
    panes = window.resume_panes
    window.resume_panes.dock.show()
    window.resume_panes.dock.raise_()  # (below 1100 px it is a tab beside the Digests)
    panes.tabs.setCurrentIndex(i)
    QTest.qWait(30)
    return panes


def _tree_pointer(window):
    v = window.snap_pane.view
    return v.model().data(v.currentIndex(), PointerRole)


def _click(widget, point):
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(int(point.x()), int(point.y())))


def _detail_text(qtbot, pane) -> str:
    """The transcript's message pane once it shows the selected message (written out in a turn of its own)."""
    qtbot.waitUntil(lambda: not pane._detail_timer.isActive(), timeout=2000)
    return pane.detail.toPlainText()


def _click_tree_row(window, pointer):
    view = window.snap_pane.view
    idx = window.snap_model.index_for_pointer(pointer)
    parent = idx.parent()
    while parent.isValid():
        view.expand(parent)
        parent = parent.parent()
    view.scrollTo(idx)
    QTest.qWait(30)
    r = view.visualRect(idx)
    assert r.left() + 4 < view.viewport().width()
    _click(view.viewport(), QPoint(r.left() + 4, r.center().y()))


def _near(c1: QColor, c2: QColor) -> bool:
    return abs(c1.red() - c2.red()) + abs(c1.green() - c2.green()) + abs(c1.blue() - c2.blue()) < 40


def test_boundary_drawn_after_the_last_event_of_the_checkpoints_pass(qtbot, window):
    """FORMAT.md 4.17: the boundary follows the last event of pass logical_resume.turn (its tools
    included), by event order; the passes are bands with their model call inside."""
    open_and_wait(qtbot, window, RICH)
    tl = _show_tab(window, 0).timeline
    assert [(x.id, x.status, x.source, len(x.seq)) for x in tl.timeline.lanes] == [
        ("run-legacy", "completed", False, 5), ("run-source", "executing", True, 57)]
    lane = tl.timeline.lanes[1]
    assert list(lane.iter_rounds()) == [(1, 2, 12), (2, 13, 56)]
    assert list(lane.iter_models()) == [(2, 9), (13, 50)]
    assert lane.boundary == 56 and tl.timeline.boundary_turn == 2
    bx = tl.boundary_x()
    last = tl.event_point(1, 56).x()
    assert last < bx <= last + max(4.0, tl._scale / 2) + 0.01
    # the boundary is painted there: a green rule across the source lane
    img = tl.viewport().grab().toImage()
    y = tl.lane_top(1) + 20
    assert _near(img.pixelColor(int(bx), y), GREEN)
    assert not _near(img.pixelColor(int(bx), tl.lane_top(0) + 20), GREEN)  # not on the other run


def test_click_event_selects_it_in_tree_and_bytes(qtbot, window):
    report = open_and_wait(qtbot, window, RICH)
    tl = _show_tab(window, 0).timeline
    tl.zoom(3, tl.event_point(1, 12).x())
    _click(tl.viewport(), tl.event_point(1, 12))
    assert tl.selected == (1, 12)
    assert _tree_pointer(window) == "/snapshot/run_records/1/events/12"
    data = window.doc.payload.data
    span = find_span(data, None, "/snapshot/run_records/1/events/12")  # the scanner, without the index
    assert window.hex_payload.highlighted == span
    ev = orjson.loads(data[span[0]:span[1]])
    assert ev["sequence"] == 12 and ev["event"]["type"] == "tool_end" and ev["event"]["id"] == "toolu_1"
    lane = tl.timeline.lanes[1]
    assert lane.starts is None  # the engine leaves the events' spans out; the first hover finds them
    text = tl.event_text(1, 12)
    assert text.startswith("tool_end — event #12 of run run-source\n") and "id: toolu_1" in text
    events = scan_children(data, *find_span(data, None, "/snapshot/run_records/1/events"))
    assert (lane.starts, lane.ends) == (events.starts, events.ends) and len(lane.starts) == len(lane.seq)
    assert report.verified


def test_tree_selection_selects_event_and_message(qtbot, window):
    open_and_wait(qtbot, window, RICH)
    panes = _show_tab(window, 0)
    _click_tree_row(window, "/snapshot/run_records/0/events/2")
    assert _tree_pointer(window) == "/snapshot/run_records/0/events/2"
    assert panes.timeline.selected == (0, 2)
    _click_tree_row(window, "/snapshot/session/messages/1")
    assert panes.transcript.view.currentIndex().row() == 1
    # numbered from 0 as in the tree and the pointer (/messages/1); the text is shown once, not also as a heading
    detail = _detail_text(qtbot, panes.transcript)
    assert detail.startswith("[1] assistant\n") and detail.count("Running the tests first.") == 1, detail
    # the call, its input, then where its result is (the input came after "→ result in [2]")
    assert detail.endswith('⚙ bash(toolu_1)\n{"command":"cargo test -q"}\n→ result in [2]'), detail
    assert panes.transcript.caption.text() == ("5 message(s); resume boundary after message [4] (the first 5). "
                                               "Select a message to see it in full.")


def test_transcript_pairs_calls_and_selects_the_message(qtbot, window):
    open_and_wait(qtbot, window, RICH)
    tp = _show_tab(window, 1).transcript
    m = tp.model
    assert m.rowCount() == 6 and m.boundary_row() == 5
    # the call, its input, then where its result is (the input came after "result in [2]:")
    assert '⚙ bash(toolu_1) {"command":"cargo test -q"} → result in [2]' in m.data(m.index(1))
    assert "↳ result ERROR for toolu_1 (answers [1]): test result: FAILED." in m.data(m.index(2))
    assert m.data(m.index(5)).startswith("Resume boundary: the loop checkpoint holds the first 5 of these messages")
    rect = tp.view.visualRect(m.index(2))
    _click(tp.view.viewport(), rect.center())
    assert _tree_pointer(window) == "/snapshot/session/messages/2"
    span = window.hex_payload.highlighted
    assert orjson.loads(window.doc.payload.data[span[0]:span[1]])["role"] == "user"
    # the boundary row is painted green
    tp.view.scrollTo(m.index(5))
    QTest.qWait(30)
    img = tp.view.viewport().grab().toImage()
    r = tp.view.visualRect(m.index(5))
    assert _near(img.pixelColor(r.left() + 20, r.center().y()), GREEN)


def test_failing_l_rule_marked_and_resumability_in_verdict_bar(qtbot, window):
    report = open_and_wait(qtbot, window, TERMINAL)
    assert report.root_cause.rule.id == "L-SOURCE-TERMINAL"
    panes = _show_tab(window, 0)
    tl = panes.timeline
    assert tl.rule_marks[1] == {None: ["L-SOURCE-TERMINAL"]}
    assert window.header.resume.text() == ('Resumability: Not resumable (L-SOURCE-TERMINAL) — invalid session checkpoint '
                                           'payload: logical resume source run "run-1-0751" is already terminal')
    assert "host must confirm" not in window.header.resume.toolTip()
    img = tl.viewport().grab().toImage()
    top = tl.lane_top(1)
    assert _near(img.pixelColor(1, top + 15), QColor("#c62828"))  # the failing run's header is framed in red
    assert not _near(img.pixelColor(1, tl.lane_top(0) + 15), QColor("#c62828"))
    assert "✖ rule L-SOURCE-TERMINAL fails here" in tl.event_text(1, None)
    # the lane header click selects the run record
    _click(tl.viewport(), QPoint(40, top + 10))
    assert _tree_pointer(window) == "/snapshot/run_records/1"


def test_lint_list_selects_location(qtbot, window):
    """scenarios/07: the loop checkpoint claims pass 2, which the run's events do not show."""
    open_and_wait(qtbot, window, MISSING_PASS)
    panes = _show_tab(window, 2)
    assert panes.tabs.tabText(2) == "Integrity lint (1)"
    lst = panes.lint_list
    item = lst.item(0)
    assert item.text().startswith("! Resume boundary names a pass the run's events do not show: The loop checkpoint "
                                  "says pass 2 completed, but source run 'run-1' records only pass 1")
    _click(lst.viewport(), lst.visualItemRect(item).center())
    assert window.resume_pane.view.model().data(window.resume_pane.view.currentIndex(), PointerRole) == \
        "/logical_resume/turn"
    data = window.doc.payload.data
    start, end = window.hex_payload.highlighted
    assert data[start - len(b'"turn":'):end] == b'"turn":2'


def test_no_loop_checkpoint_says_so(qtbot, window):
    open_and_wait(qtbot, window, NO_LOOP)
    panes = _show_tab(window, 0)
    assert window.header.resume.text().startswith("Resumability: Not resumable (no-loop-checkpoint) — the payload has "
                                                  "no loop checkpoint")
    assert "still loadable as a session" in window.header.resume.toolTip()
    assert panes.timeline_caption.text() == "0 run(s), 0 event(s). No loop checkpoint: nothing to resume."
    assert panes.transcript.model.boundary_row() is None


def _golden_with_first_text(tmp_path, name: str, text: str) -> list:
    """The golden pair with its first message's text replaced by ``text`` (descriptor made anew): its paths."""
    pay = orjson.loads(GOLDEN_P.read_bytes())
    pay["snapshot"]["session"]["messages"][0]["content"][0]["text"] = text
    data = encode(pay)
    p, d = tmp_path / f"{name}.payload.json", tmp_path / f"{name}.descriptor.json"
    p.write_bytes(data)
    d.write_bytes(encode(build_descriptor(orjson.loads(data), data)))
    return [p, d]


def test_long_message_elided_until_show_all(qtbot, window, tmp_path):
    long_text = "line of text\n" * 400
    open_and_wait(qtbot, window, _golden_with_first_text(tmp_path, "long", long_text))
    tp = _show_tab(window, 1).transcript
    _click(tp.view.viewport(), tp.view.visualRect(tp.model.index(0)).center())
    text = _detail_text(qtbot, tp)
    assert "Show all" in text and f"… {len(long_text) - 600:,} more characters" in text
    assert long_text[:600] + "\n\n… 4,600 more characters" in text
    doc = tp.detail.document()
    cur = doc.find("Show all")
    assert not cur.isNull()
    cur.setPosition(cur.selectionStart() + 2, QTextCursor.MoveMode.MoveAnchor)
    _click(tp.detail.viewport(), tp.detail.cursorRect(cur).center())
    full = _detail_text(qtbot, tp)
    assert "Show all" not in full and long_text.rstrip("\n") in full and "more characters" not in full


def test_large_message_read_with_the_views_and_shown_bounded(qtbot, window, tmp_path, monkeypatch):
    """Issue 25: a message of at least LARGE_MESSAGE bytes is read when the views are built (its blocks
    cut to SHOWN_CHARS characters), never decoded on the GUI thread, and Show all shows at most
    SHOWN_CHARS characters with where the rest is."""
    from types import SimpleNamespace

    import inspector.gui.widgets.transcript as transcript_module
    from inspector.checkpoint.analysis.views import LARGE_MESSAGE, SHOWN_CHARS

    long_text = "0123456789" * 30_000  # 300,000 characters
    open_and_wait(qtbot, window, _golden_with_first_text(tmp_path, "large", long_text))
    tp = _show_tab(window, 1).transcript
    tr = tp.model.tr
    assert tr.ends[0] - tr.starts[0] >= LARGE_MESSAGE and sorted(tr.previews) == [0]
    (block,) = tr.previews[0]
    assert (block.kind, block.whole_chars, block.text) == ("text", 300_000, long_text[:SHOWN_CHARS])

    def no_decode(_data):
        raise AssertionError("a large message was decoded on the GUI thread")

    monkeypatch.setattr(transcript_module, "orjson", SimpleNamespace(loads=no_decode,
                                                                      JSONDecodeError=orjson.JSONDecodeError))
    _click(tp.view.viewport(), tp.view.visualRect(tp.model.index(0)).center())
    text = _detail_text(qtbot, tp)
    assert long_text[:600] + "\n\n… 299,400 more characters" in text
    cur = tp.detail.document().find("Show all")
    cur.setPosition(cur.selectionStart() + 2, QTextCursor.MoveMode.MoveAnchor)
    _click(tp.detail.viewport(), tp.detail.cursorRect(cur).center())
    full = _detail_text(qtbot, tp)
    assert long_text[:SHOWN_CHARS] + ("\n\n… 200,000 more characters are not shown here: the whole text is in the "
                                      "snapshot tree (Copy Value)") in full
    assert long_text[:SHOWN_CHARS + 1] not in full


def test_timeline_usable_at_1024x700_whole_lanes_caption_and_controls(qtbot, window_1024):
    """At 1024x700 the Resume dock cut the top lane in half (scrolled to the source lane by a
    third of a lane height); now it shows the axis and both lanes whole, the caption uncut, and
    scrolling (keys, scroll bar) moves by whole lanes."""
    from inspector.gui.widgets.timeline import _AXIS_H, _LANE_H
    window = window_1024
    open_and_wait(qtbot, window, RICH)
    panes = _show_tab(window, 0)
    tl = panes.timeline
    qtbot.waitUntil(lambda: tl.timeline is not None, timeout=5000)
    assert len(tl.timeline.lanes) == 2
    vsb = tl.verticalScrollBar()
    assert tl.viewport().height() >= _AXIS_H + 2 * _LANE_H, tl.viewport().height()
    assert vsb.maximum() == 0 and tl.lane_top(0) == _AXIS_H  # both lanes, the top one whole
    cap = panes.timeline_caption
    assert cap.text() == "2 run(s), 62 event(s). Loop checkpoint: source run 'run-source', resumes after pass 2."
    # not cut: on as many lines as the tab's width needs (below 1100 px the dock is a tab beside the Digests)
    qtbot.waitUntil(lambda: cap.height() >= cap.heightForWidth(cap.width()), timeout=1000)
    assert not panes.timeline_legend.isVisible()  # (no room for the legend too at 1024 px)
    assert panes.timeline_controls.isVisible() and panes.mode_time.isVisible()

    # a shorter dock (along the bottom of a wider window: at 1024 px it is a tab beside the Digests,
    # as tall as they are): one lane at a time, and never half a lane at the top
    window.resize(1280, 700)
    qtbot.waitUntil(lambda: not window.compact.compact and window.width() == 1280, timeout=1000)
    window.resizeDocks([panes.dock], [panes.dock.minimumSizeHint().height()], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: tl.viewport().height() < _AXIS_H + 2 * _LANE_H, timeout=1000)
    tl.setFocus()
    QTest.keyClick(tl, Qt.Key.Key_Down)  # the first lane
    QTest.keyClick(tl, Qt.Key.Key_Down)  # the second
    assert tl.selected == (1, None)
    assert vsb.value() % _LANE_H == 0 and tl.lane_top(1) >= _AXIS_H
    assert tl.lane_top(1) + _LANE_H <= tl.viewport().height()
    QTest.keyClick(tl, Qt.Key.Key_Up)
    assert tl.selected == (0, None) and tl.lane_top(0) == _AXIS_H
    vsb.setValue(_LANE_H // 2 + 3)  # a dragged scroll bar lands on a whole lane
    assert vsb.value() % _LANE_H == 0
    assert not panes.timeline_controls.isHidden()
    panes.tabs.setCurrentIndex(1)  # the x-axis controls belong to the Timeline tab
    assert panes.timeline_controls.isHidden()


@pytest.mark.parametrize("layout", ["canonical", "pretty"])
def test_a_runs_event_spans_on_first_hover_take_no_python_scan_of_large_containers(monkeypatch, layout):
    """A run of 2,000 events (over 64 KiB: in the trees' index) in a canonical and a pretty-printed payload:
    the first hover's spans come from the index or msgspec's slices, never from scanning the run in Python
    on the GUI thread (a 14 MB pretty payload's 40,000-event run took 3.5 s that way), and equal the
    scanner's."""
    import json
    from types import SimpleNamespace

    from inspector.checkpoint.jsontext import lazyjson
    from inspector.checkpoint.jsontext.lazyjson import build_index
    from inspector.gui.resume import ResumePanes

    v = json.loads((CASES / "02-valid.payload.json").read_bytes())
    ev = v["snapshot"]["run_records"][0]["events"]
    v["snapshot"]["run_records"][0]["events"] = [ev[i % len(ev)] for i in range(2000)]
    data = encode(v) if layout == "canonical" else json.dumps(v, indent=2, sort_keys=True, ensure_ascii=False).encode()
    index = build_index(data, big=1 << 16)
    expected = scan_children(data, *find_span(data, None, "/snapshot/run_records/0/events"))
    assert len(expected) == 2000 and expected.ends[-1] - expected.starts[0] >= 1 << 16
    monkeypatch.setattr(lazyjson, "scan_children", lambda *a: pytest.fail("a Python scan on the GUI thread"))
    lane = SimpleNamespace(index=0, starts=None, ends=None)
    assert ResumePanes._lane_spans(lane, SimpleNamespace(data=data, index=index))
    assert (lane.starts, lane.ends) == (expected.starts, expected.ends)


ALT = Qt.KeyboardModifier.AltModifier


def test_resume_dock_is_reachable_by_keyboard_and_can_be_shown_again_from_view(qtbot, window):
    # The Go menu had Alt+1..6 for the other panes but no way to the Resume dock's tabs, and View
    # listed every dock but Resume: once closed with its x it could only come back by Reset Layout.
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    rp = window.resume_panes
    rp.dock.close()
    assert not rp.dock.isVisible()
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_8, ALT)
    qtbot.waitUntil(lambda: rp.dock.isVisible())
    assert rp.tabs.currentIndex() == 1
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.transcript.view)
    QTest.keyClick(window, Qt.Key.Key_7, ALT)
    assert rp.tabs.currentIndex() == 0
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.timeline)
    QTest.keyClick(window, Qt.Key.Key_9, ALT)
    assert rp.tabs.currentIndex() == 2
    qtbot.waitUntil(lambda: QApplication.focusWidget() is rp.lint_list)
    # View ▸ Resume toggles the dock like the other docks
    view_menu = next(m for m in window.menuBar().findChildren(type(window.recent_menu)) if m.title() == "&View")
    toggle = next(a for a in view_menu.actions() if a.text() == "Resume (timeline, transcript, lint)")
    assert toggle is rp.dock.toggleViewAction() and toggle.isChecked()
    toggle.trigger()
    assert not rp.dock.isVisible()


def test_a_tool_name_holding_an_arrow_keeps_the_call_its_input_and_where_its_result_is():
    from inspector.checkpoint.analysis.views import Block
    from inspector.gui.widgets.transcript import _summary

    class Tr:
        calls = {"toolu_1": (0, 2)}

    block = Block("tool_use", '{"cmd":"ls"}', "/m/0", tool_id="toolu_1", name="a →b")
    assert _summary(Tr, 0, block) == '⚙ a →b(toolu_1) {"cmd":"ls"} → result in [2]'


def test_a_run_of_arrow_keys_writes_the_message_pane_once_for_where_it_stops(qtbot, window):
    """The message pane is written in a turn of its own after the selection moved (not in the turn
    that repaints the window), once for keys pressed in a row."""
    open_and_wait(qtbot, window, RICH)
    tp = _show_tab(window, 1).transcript
    writes = []
    tp.detail.textChanged.connect(lambda: writes.append(tp.detail.toPlainText()[:4]))
    _click(tp.view.viewport(), tp.view.visualRect(tp.model.index(0)).center())
    assert _detail_text(qtbot, tp).startswith("[0] ")
    writes.clear()
    for _ in range(3):
        QTest.keyClick(tp.view, Qt.Key.Key_Down)  # three keys in one turn: nothing written yet
    assert writes == [] and tp.view.currentIndex().row() == 3
    assert _detail_text(qtbot, tp).startswith("[3] ") and writes == ["[3] "]


ORPHAN = [SCENARIOS / "09-orphan-result.payload.json", SCENARIOS / "09-orphan-result.descriptor.json"]
EARLIER_RUN = [SCENARIOS / "06-earlier-run-finished.payload.json", SCENARIOS / "06-earlier-run-finished.descriptor.json"]


def test_a_live_exports_transcript_is_the_resume_points_messages_with_the_lint_marked(qtbot, window):
    """scenarios/09 (a live export: the session holds no message, the loop checkpoint 3): Alt+8 lands on the
    transcript of the loop checkpoint's own messages, whose [2] carries the blocking orphan result, marked;
    Tab and Up show the session's (empty) list instead, and a click on the lint finding brings the resume
    point's list back with [2] selected."""
    open_and_wait(qtbot, window, ORPHAN)
    rp = window.resume_panes
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_8, ALT)
    tp = rp.transcript
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tp.view)
    assert tp.lists.isVisible() and tp.lists.currentText() == "Resume point messages (3), 1 lint mark(s)"
    assert [tp.lists.itemText(i) for i in range(tp.lists.count())] == [
        "Session messages (0)", "Resume point messages (3), 1 lint mark(s)"]
    assert tp.caption.text() == ("The loop checkpoint's own messages (logical_resume.messages): 3, what the resumed "
                                 "run sends first; the resume continues after the last, [2]. 1 lint finding(s) "
                                 "marked ⚠. Select a message to see it in full.")
    m = tp.model
    rows = [m.data(m.index(r)) for r in range(m.rowCount())]
    assert rows[0] == "[0] user: Parser errors should carry byte offsets."
    assert rows[2].endswith(" — ⚠ lint, blocks resume: Tool result without a tool call")
    assert "result for toolu_99 (NO MATCHING CALL)" in rows[2]
    assert rows[3].startswith("Resume boundary: the resume continues after the last of these 3 message(s)")
    assert [r for r in range(3) if m.marks.get(r)] == [2]
    # the keyboard: Tab from the list to Messages, Up to the session's list
    QTest.keyClick(tp.view, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tp.lists)
    QTest.keyClick(tp.lists, Qt.Key.Key_Up)
    assert tp.lists.currentIndex() == 0 and m.tr.base == "/snapshot/session/messages"
    assert tp.caption.text() == ("0 message(s); resume boundary before message [0] (a live export: the messages "
                                 "are the resume point's). 1 more in the other list (Messages). Select a message "
                                 "to see it in full.")
    assert m.rowCount() == 1  # (the boundary row alone)
    # the lint finding, clicked, brings its message back into view
    panes = _show_tab(window, 2)
    lst = panes.lint_list
    _click(lst.viewport(), lst.visualItemRect(lst.item(0)).center())
    assert tp.lists.currentIndex() == 1 and m.message_index(tp.view.currentIndex().row()) == 2


def test_a_session_with_messages_shows_them_first_and_the_resume_points_on_request(qtbot, window):
    """scenarios/06: the session holds 4 messages and the loop checkpoint 3 of its own; the session's are shown
    first (no lint marks either), the resume point's are one Down away."""
    open_and_wait(qtbot, window, EARLIER_RUN)
    tp = _show_tab(window, 1).transcript
    assert tp.lists.currentText() == "Session messages (4)" and tp.model.rowCount() == 5
    tp.lists.setFocus()
    QTest.keyClick(tp.lists, Qt.Key.Key_Down)
    assert tp.lists.currentText() == "Resume point messages (3)" and tp.model.tr.base == "/logical_resume/messages"
    assert tp.model.rowCount() == 4 and tp.model.boundary_row() == 3


def test_a_resumable_answer_with_a_lint_warning_says_so_and_the_keyboard_reaches_its_details(qtbot, window):
    """scenarios/07 is resumable and holds one lint warning (boundary-rounds) and three host facts: the line says all
    three in words (not a green pass), and Tab + Space open the details in the bar, which a screen reader reads too."""
    open_and_wait(qtbot, window, MISSING_PASS)
    header = window.header
    assert header.resume.text() == ("Resumability: Resumable — 1 integrity-lint warning (boundary-rounds); if the host "
                                    "confirms 3 fact(s) the artifact cannot prove")
    assert header.resume.palette().color(header.resume.foregroundRole()) == style.colour(Verdict.NOT_REACHED)
    assert style.colour(Verdict.NOT_REACHED) != style.colour(Verdict.PASS)
    assert not header.resume_details.isVisible()
    window.activateWindow()
    header.resume.setFocus(Qt.FocusReason.OtherFocusReason)  # (the line itself is a Tab stop)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is header.resume_more
    QTest.keyClick(header.resume_more, Qt.Key.Key_Space)
    assert header.resume_details.isVisible() and header.resume_more.text() == "Hide details"
    lines = header.resume_details.text().split("\n")
    assert lines[0].startswith("• Integrity lint: Resume boundary names a pass the run's events do not show: The loop "
                               "checkpoint says pass 2 completed, but source run 'run-1' records only pass 1")
    assert [x.split(":")[0] for x in lines] == ["• Integrity lint"] + ["• Host must confirm"] * 3
    assert lines[1] == ("• Host must confirm: whether source run 'run-1' is still non-terminal in the host's run store "
                        "(the artifact records it as it was when exported)")
    assert header.resume.accessibleDescription() == "\n".join(x[2:] for x in lines)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)  # the details are a Tab stop of their own
    assert QApplication.focusWidget() is header.resume_details
    QTest.keyClick(header.resume_more, Qt.Key.Key_Space)
    assert not header.resume_details.isVisible()


def test_markup_in_a_run_id_is_shown_as_typed_in_the_resumability_details(qtbot, window, tmp_path):
    """A run id ``<h1>HUGE</h1><img src=x>`` is text: the details and the line's tooltip show it as typed (the details
    label took it for rich text: a heading and a broken image, the host facts' line breaks lost)."""
    marked = "<h1>HUGE</h1><img src=x>"
    data = encode(orjson.loads(GOLDEN_P.read_bytes().replace(b'"source-run"', orjson.dumps(marked))))
    p, d = tmp_path / "m.payload.json", tmp_path / "m.descriptor.json"
    p.write_bytes(data)
    d.write_bytes(encode(build_descriptor(orjson.loads(data), data)))
    report = open_and_wait(qtbot, window, [p, d])
    assert report.verified and report.resumability.answer == "Resumable"
    header = window.header
    header.resume.setFocus()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    QTest.keyClick(header.resume_more, Qt.Key.Key_Space)
    assert header.resume_details.textFormat() == Qt.TextFormat.PlainText
    assert f"• Host must confirm: whether source run '{marked}' is still non-terminal" in header.resume_details.text()
    tip = header.resume.toolTip()
    assert "&lt;h1&gt;HUGE&lt;/h1&gt;" in tip and "<h1>" not in tip
    assert header.resume.textFormat() == Qt.TextFormat.PlainText
