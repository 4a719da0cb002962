"""The window while a large pretty-printed payload's verdicts are shown and its trees' index is still being read
(or never comes: Esc between the two), and the verifier failing after its report (from the review of the
verdicts-first change: the hover, Reload and the kept selection were defects then; the rest held up).
"""

import time

import orjson
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.session import engine
from inspector.checkpoint.jsontext import lazyjson
from inspector.checkpoint.jsontext.lazyjson import BIG
from inspector.gui.roles import ObjectRole

from . import childhooks
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait, open_f2_editor
from .test_verdicts_first import _generated


def _generated_pretty(crlf: bool = False) -> bytes:
    """A small generated checkpoint (runs with events: a timeline to hover), pretty-printed (CRLF line ends:
    no index from the verifier, the indexing child reads it after the verdicts and their views)."""
    value = orjson.loads(_generated())
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return data.replace(b"\n", b"\r\n") if crlf else data


@pytest.fixture
def held_big(tmp_path, monkeypatch):
    """A CRLF pretty payload (~0.7 MiB) treated as large: its verdicts and timeline come from the verifier, its
    trees' index from the indexing child, held until released."""
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    p = tmp_path / "gen.payload.json"
    p.write_bytes(_generated_pretty(crlf=True))
    monkeypatch.setattr(engine, "child_index", childhooks.index_when_released)
    childhooks.arm(p)
    yield p
    childhooks.release(p)


@pytest.fixture
def held(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(orjson.dumps(orjson.loads(GOLDEN_P.read_bytes()), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    monkeypatch.setattr(engine, "child_analyse", childhooks.hold_after_report)
    childhooks.arm(p)
    yield p
    childhooks.release(p)


def _wait_verdicts(qtbot, window):
    seen = []
    window.verdictsShown.connect(lambda: seen.append(1))
    qtbot.waitUntil(lambda: bool(seen), timeout=60000)
    # the Resume dock shows the report one event-loop turn later
    qtbot.waitUntil(lambda: window.resume_panes._report is window.doc.report, timeout=10000)


@pytest.mark.parametrize("cancel", [False, True], ids=["trees-pending", "esc-after-verdicts"])
def test_timeline_hover_while_trees_are_missing_scans_nothing(qtbot, window, held_big, monkeypatch, cancel):
    """ResumePanes._lane_spans promises that only containers under 64 KiB are ever scanned in Python on the GUI
    thread (the trees' index covers the rest). While the verdicts and the timeline are shown before the index
    (a CRLF payload's comes from the indexing child; and for good after Esc meanwhile), payload.index is None:
    hovering a run scanned the root, then /snapshot, then /snapshot/run_records in Python (1.8 s for the root
    alone of a 14.7 MiB pretty payload; ~30 s for the 242 MiB bench copy), on the GUI thread. Now the hover
    says the fields come with the trees."""
    window.loader.start([str(held_big), str(GOLDEN_D)])
    _wait_verdicts(qtbot, window)
    # the timeline follows the verdicts; the trees wait for the (held) indexing child
    qtbot.waitUntil(lambda: window.doc.report.views is not None and window.resume_panes.timeline.timeline
                    is not None, timeout=30000)
    assert window.doc.payload.index is None  # the trees are still pending
    if cancel:
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        QTest.keyClick(window, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=30000)
        assert window.doc.report is not None and window.doc.payload.index is None
    scanned = []
    real = lazyjson.scan_children

    def spy(data, start, end):
        scanned.append(end - start)
        return real(data, start, end)

    monkeypatch.setattr(lazyjson, "scan_children", spy)
    tl = window.doc.report.views[0]
    lane = next(ln for ln in tl.lanes if ln.event_count)
    t = time.perf_counter()
    lines = window.resume_panes._describe(lane, 0)  # what the timeline's hover calls (TimelineView.describe)
    took = time.perf_counter() - t
    size = len(window.doc.payload.data)
    assert lines == ["(the event's fields show once the trees are read)"]
    assert lane.starts is None  # found later, once there is an index
    assert max(scanned, default=0) <= BIG, (
        f"hover scanned {len(scanned)} container(s) on the GUI thread, the largest {max(scanned):,} bytes "
        f"of a {size:,}-byte payload ({took:.2f} s)")


def test_reload_while_verdicts_are_shown_reloads_the_file_shown(qtbot, window, held):
    """F5 while a large pretty payload's verdicts are shown (trees pending) reloaded the file shown *before*
    it (doc.paths was only set by the final result), although the title, verdicts, Resume dock and Copy for
    ticket all describe the new file. Now the verdicts make it the open file (as after Esc)."""
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.loader.start([str(held), str(GOLDEN_D)])
    _wait_verdicts(qtbot, window)
    assert window.doc.payload.path == str(held)
    assert window.act_reload.isEnabled()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_F5)  # View ▸ Reload
    assert window.doc.pending_paths == [str(held), str(GOLDEN_D)], \
        f"F5 reloads {window.doc.pending_paths} while {held.name}'s verdicts are on screen"


def test_what_the_user_selected_while_the_trees_were_read_stays_selected(qtbot, window, held):
    """A click in the verdicts list while the trees are read: the final result (the same verdicts, now with the
    trees) keeps that selection and its Back history, instead of clearing them and going to the root cause."""
    window.loader.start([str(held), str(GOLDEN_D)])
    _wait_verdicts(qtbot, window)
    view, model = window.findings_view, window.findings_model
    fails = model.failure_indexes()
    assert len(fails) >= 2 and fails[0] == view.currentIndex()  # the root cause, selected with the verdicts
    other = fails[-1]
    view.scrollTo(other)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.visualRect(other).center())
    assert view.currentIndex() == other
    picked = model.data(other, ObjectRole).rule.id
    history = list(window.selection.history.entries)
    assert history
    with qtbot.waitSignal(window.analysisReady, timeout=30000):
        childhooks.release(held)
    assert window.doc.payload.index is not None  # the trees came
    assert model.data(view.currentIndex(), ObjectRole).rule.id == picked
    assert view.currentIndex().row() == other.row() and view.currentIndex().parent() == other.parent()
    assert window.selection.history.entries == history


# -- the verifier failing after it sent its report ahead: the indexer takes over ---------------------------------

@pytest.mark.parametrize("hook", [childhooks.die_after_report, childhooks.oom_after_report],
                         ids=["killed", "MemoryError"])
def test_verifier_failing_after_its_report_falls_back_to_the_indexer(qtbot, tmp_path, monkeypatch, hook):
    from .test_verdicts_first import _in_worker, _pretty

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    monkeypatch.setattr(engine, "child_analyse", hook)
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(_pretty())
    partials = []
    result = _in_worker(qtbot, lambda: engine.load_paths([str(p), str(GOLDEN_D)], partial=partials.append))
    early = [a for a in partials if a.report is not None]
    assert early[0].views_follow and all(a.report is result.report for a in early)
    # the verdicts stand (no internal error: they were decided); the timeline is missing, and the window says why
    assert result.report.views is None and result.report.internal_errors == []
    assert result.views_error == "the worker process stopped (" + (
        "exit code 9" if hook is childhooks.die_after_report else "MemoryError") + ")"
    assert result.payload.index == lazyjson.build_index(p.read_bytes())


def change_then_index(conn, path, big):
    """The indexer (after the verdicts of a CRLF payload were shown): the file replaced first, once."""
    import os
    from inspector.session import workers
    if childhooks._once(path):
        data = open(path, "rb").read()
        with open(path + ".next", "wb") as fh:
            fh.write(data.replace(b'"turn": 1', b'"turn": 2', 1) if b'"turn": 1' in data else data + b" ")
        os.replace(path + ".next", path)
    return workers.child_index(conn, path, big)


def test_crlf_payload_changed_before_its_indexer_reads_it(qtbot, window, tmp_path, monkeypatch):
    """A CRLF pretty payload (no layout index: the indexing child reads it after the verdicts), replaced after
    its verdicts were shown: the load reads it again; the window ends with the new file's verdicts and trees."""
    from .test_verdicts_first import _pretty

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    monkeypatch.setattr(engine, "child_index", change_then_index)
    p = tmp_path / "crlf.payload.json"
    p.write_bytes(_pretty(crlf=True))
    childhooks.arm(p)
    verdicts = []
    window.verdictsShown.connect(lambda: verdicts.append(window.doc.report))
    with qtbot.waitSignal(window.analysisReady, timeout=60000):
        window.loader.start([str(p), str(GOLDEN_D)])
    data = p.read_bytes()
    assert window.doc.payload.data == data
    assert window.doc.payload.index == lazyjson.build_index(data)
    assert window.doc.report.payload_size == len(data)
    assert engine.READ_AGAIN in [window.banner_text("stale")] or engine.READ_AGAIN in (window.banner_text("stale") or "")
    assert len(verdicts) >= 2


# -- an edit while a large load's timeline (or trees) still follow its verdicts (from the second review) ---------

@pytest.fixture
def held_canonical(tmp_path, monkeypatch):
    """A canonical payload treated as large: verdicts and trees together, its views held until released."""
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    p = tmp_path / "canon.payload.json"
    p.write_bytes(GOLDEN_P.read_bytes())
    monkeypatch.setattr(engine, "child_analyse", childhooks.hold_after_report)
    childhooks.arm(p)
    yield p
    childhooks.release(p)


def _open_until_trees_and_verdicts(qtbot, window, p):
    verdicts, trees = [], []
    window.verdictsShown.connect(lambda: verdicts.append(1))
    window.treesReady.connect(lambda: trees.append(1))
    window.loader.start([str(p), str(GOLDEN_D)])
    qtbot.waitUntil(lambda: bool(verdicts) and bool(trees), timeout=30000)
    qtbot.waitUntil(lambda: window.resume_panes._report is window.doc.report, timeout=10000)
    assert window.doc.views_follow and window.doc.payload.tree_ok
    assert window.resume_panes.timeline.timeline is None
    assert window.resume_panes.timeline.message == "Reading the timeline…"


def _f2_type(qtbot, window, pointer, text):
    """F2 on the snapshot tree's row ``pointer``, ``text`` typed over its value, Enter."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    _, editor = open_f2_editor(qtbot, window, pointer)
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor, text)
    QTest.keyClick(editor, Qt.Key.Key_Return)


def _idle(window) -> bool:
    return window.progress.isHidden() and window.cancel_button.isHidden() and not window.act_stop.isEnabled()


def test_an_edit_while_the_timeline_follows_waits_for_the_load(qtbot, window, held_canonical):
    """F2 while a canonical large payload's views follow its verdicts: the edit superseded the load, whose end
    then never reset the busy state (progress bar, Cancel, Esc for ever). Now it waits for the load's end and
    is applied then, on the same bytes; the window ends idle, edited, with the edit's timeline."""
    _open_until_trees_and_verdicts(qtbot, window, held_canonical)
    statuses = []
    window.editor.status.connect(statuses.append)
    _f2_type(qtbot, window, "/snapshot/session/config/name", "renamed")
    qtbot.waitUntil(lambda: bool(statuses), timeout=10000)
    assert statuses == ["The edit is applied once the checkpoint has finished loading…"]
    assert not window.edited and b'"name":"renamed"' not in window.doc.payload.data
    childhooks.release(held_canonical)
    qtbot.waitUntil(lambda: window.edited, timeout=30000)
    assert b'"name":"renamed"' in window.doc.payload.data
    qtbot.waitUntil(lambda: window.resume_panes.timeline.timeline is not None, timeout=10000)
    assert _idle(window) and not window.doc.views_follow


def test_a_refused_edit_while_the_timeline_follows_leaves_the_loads_timeline(qtbot, window, held_canonical):
    """A refused edit ("abc" for a timestamp) made while the views follow: it superseded the load, so its views
    never reached the window ("Reading the timeline…" for ever). Now the load ends first (its timeline shown),
    then the edit is refused; nothing else changes."""
    _open_until_trees_and_verdicts(qtbot, window, held_canonical)
    report = window.doc.report
    failed = []
    window.editFailed.connect(failed.append)
    _f2_type(qtbot, window, "/snapshot/session/created_at", "abc")
    childhooks.release(held_canonical)
    qtbot.waitUntil(lambda: bool(failed), timeout=30000)
    assert "not a JSON value" in failed[0]
    assert window.doc.report is report and not window.edited and report.views is not None
    qtbot.waitUntil(lambda: window.resume_panes.timeline.timeline is not None, timeout=10000)
    assert _idle(window) and not window.doc.views_follow


def test_a_raw_edit_while_the_trees_are_read_waits_for_the_load(qtbot, window, held_big):
    """A CRLF payload's verdicts and timeline shown, its trees waiting for the indexing child (seconds on a large
    file): an edit from the raw editor meanwhile left the window busy for good. Now it is applied once the trees
    are read."""
    window.loader.start([str(held_big), str(GOLDEN_D)])
    _wait_verdicts(qtbot, window)
    qtbot.waitUntil(lambda: window.resume_panes.timeline.timeline is not None, timeout=30000)
    assert window.doc.payload.index is None
    window.request_raw_edit("payload", GOLDEN_P.read_text())
    assert not window.edited
    childhooks.release(held_big)
    qtbot.waitUntil(lambda: window.edited, timeout=30000)
    assert window.doc.payload.data == GOLDEN_P.read_bytes() and window.doc.payload.tree_ok
    assert _idle(window)
