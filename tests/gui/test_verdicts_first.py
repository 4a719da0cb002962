"""A large pretty-printed payload's verdicts before its trees (window verdicts within 1.2x the
engine's own verify time).

The window's verifier verifies such a payload as ``verify`` alone does (its whitespace removed, no index),
sends its report ahead, and only then finds the trees' index (the fast path's layout comparison): the
window shows the verdicts at once and fills the trees when the index comes.
"""

import hashlib
import os
import pickle

import orjson
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.checkpoint.analysis.story import plain_of  # noqa: E402
from inspector.checkpoint import verify
from inspector.checkpoint.read.relaid import layout_spans
from inspector.gui import summary
from inspector.session import engine
from inspector.session import workers
from inspector.checkpoint.jsontext.lazyjson import BIG, build_index

from . import childhooks
from .conftest import GOLDEN_D, GOLDEN_P

READING = "Reading the payload…"


class _Pipe:
    """A verifier's pipe: records what the child sends (no parent digest follows: ``digest`` is ``None``)."""

    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(pickle.loads(pickle.dumps(msg)))  # as a pipe does: the object as it was when sent

    def recv(self):  # pragma: no cover - never asked: the digest does not follow
        raise AssertionError("no message was due")


def _pretty(crlf=False) -> bytes:
    data = orjson.dumps(orjson.loads(GOLDEN_P.read_bytes()), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return data.replace(b"\n", b"\r\n") if crlf else data


def _generated(size: int = 600_000) -> bytes:
    """A generated canonical checkpoint of about ``size`` bytes (runs with events, large containers)."""
    import importlib.util
    import sys
    from pathlib import Path

    from inspector.checkpoint import encode

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "gen_checkpoint.py"
    spec = importlib.util.spec_from_file_location("_gen_checkpoint", path)
    mod = sys.modules.get("_gen_checkpoint")
    if mod is None:
        mod = importlib.util.module_from_spec(spec)
        sys.modules["_gen_checkpoint"] = mod
        spec.loader.exec_module(mod)
    return encode(mod.build(size, 3))


def _child(path, big=64):
    st = os.stat(path)
    pipe = _Pipe()
    value = workers.child_analyse(pipe, str(path), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns, None, big)
    return pipe.sent, value


def _after(sent, value):
    """``(sent, (index, seen, views, views_error))`` of a window verifier's job, whose result is an ``AfterReport``."""
    assert isinstance(value, workers.AfterReport)
    return sent, (value.index, value.seen, value.views, value.views_error)


def _rows(report):
    return [(f.rule.id, f.verdict, f.message) for f in report.findings]


def _views(data: bytes):
    return verify(data, GOLDEN_D.read_bytes(), views=True).views


def test_the_verifier_sends_a_pretty_payloads_report_ahead_then_its_views_and_index(tmp_path):
    pretty = orjson.dumps(orjson.loads(_generated()), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(pretty)
    sent, (index, seen, views, views_error) = _after(*_child(p, big=BIG))
    # the bytes stage (no digest was given: the child's own), the structure stage, then the verdicts
    assert [type(m).__name__ for m in sent] == ["StageReached", "StageReached", "ReportAhead"]
    early, early_index, early_seen = sent[2].report, sent[2].index, sent[2].seen
    assert early_index is None and early_seen == seen and seen[2] == len(pretty)
    assert _rows(early) == _rows(verify(pretty, GOLDEN_D.read_bytes()))
    assert early.root_cause.rule.id == "X-BYTES"
    assert "P-CANONICAL" in [f.rule.id for f in early.failed()]
    assert early.canonical_bytes is None and early.views is None  # (the views follow; the re-encoding never)
    # then the views verify(views=True) builds, and the index: the byte scanner's, container for container
    assert views.unpack() == _views(pretty) and views_error is None
    assert index == build_index(pretty, big=BIG) and len(index) >= 3  # (the engine indexes containers of 64 KiB or more)


def test_a_canonical_payload_gets_its_index_with_the_report_and_its_views_after(tmp_path):
    data = _generated()
    p = tmp_path / "gen.payload.json"
    p.write_bytes(data)
    # (the fast path records containers of 64 KiB or more whatever ``big`` says: the window's BIG)
    sent, (index, seen, views, views_error) = _after(*_child(p, big=BIG))
    assert [type(m).__name__ for m in sent] == ["StageReached", "StageReached", "ReportAhead"]
    early, early_index, early_seen = sent[2].report, sent[2].index, sent[2].seen
    assert _rows(early) == _rows(verify(data, GOLDEN_D.read_bytes())) and early.views is None
    assert early_index == build_index(data, big=BIG) and len(early_index) >= 3  # the spans came with the parse
    assert index is None and early_seen == seen and seen[2] == len(data)
    assert views.unpack() == _views(data) and views_error is None


def test_a_crlf_pretty_payload_gets_its_report_ahead_and_no_index(tmp_path):
    """CRLF line ends: the printing's offsets are not the file's, so no index from the layout comparison
    (the window's indexing child scans the bytes); the verdicts still come first."""
    data = _pretty(crlf=True)
    p = tmp_path / "crlf.payload.json"
    p.write_bytes(data)
    sent, (index, seen, views, views_error) = _after(*_child(p))
    assert [type(m).__name__ for m in sent] == ["StageReached", "StageReached", "ReportAhead"]
    assert index is None and sent[2].index is None
    assert _rows(sent[2].report) == _rows(verify(data, GOLDEN_D.read_bytes()))
    assert views.unpack() == _views(data)
    assert layout_spans(orjson.loads(data), data, 64) is None


def test_layout_spans_refuse_a_value_that_is_not_the_files():
    pretty = _pretty()
    value = orjson.loads(pretty)
    assert layout_spans(value, pretty, 64) is not None
    value["snapshot"]["session"]["id"] = "another"
    assert layout_spans(value, pretty, 64) is None


def test_load_paths_gives_the_verdicts_then_the_same_report_with_the_trees(tmp_path, monkeypatch, qtbot):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    pretty = _pretty()
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(pretty)
    partials = []
    result = _in_worker(qtbot, lambda: engine.load_paths([str(p), str(GOLDEN_D)], partial=partials.append))
    with_report = [a for a in partials if a.report is not None]
    assert len(with_report) == 1
    first = with_report[0]
    assert first.payload.index is None and type(first.payload.data) is bytes
    assert first.report is result.report  # the same verdicts, now with the trees
    assert result.payload.index == build_index(pretty)
    assert result.payload.sha256 == "sha256:" + hashlib.sha256(pretty).hexdigest()


def _in_worker(qtbot, fn):
    """Run ``fn`` on a worker thread (the engine refuses the GUI thread) and return its value."""
    import threading

    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    qtbot.waitUntil(lambda: not t.is_alive(), timeout=60000)
    return out[0]


@pytest.fixture
def held(tmp_path, monkeypatch):
    """A large pretty-printed payload whose verifier holds its index until :func:`childhooks.release`."""
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(_pretty())
    monkeypatch.setattr(engine, "child_analyse", childhooks.hold_after_report)
    childhooks.arm(p)
    yield p
    childhooks.release(p)


def test_the_window_shows_the_verdicts_while_the_trees_are_read(qtbot, window, held):
    seen = []

    def on_verdicts():
        if not seen:
            seen.append((summary.verdict_text(window.doc).title, window.doc.payload.index,
                         window.snap_pane.placeholder.text(), window.snap_pane.stack.currentIndex(),
                         window.findings_model.rowCount() > 0, window.act_copy_ticket.isEnabled()))
    window.verdictsShown.connect(on_verdicts)
    trees = []
    window.treesReady.connect(lambda: trees.append(window.doc.payload.index is not None))
    window.loader.start([str(held), str(GOLDEN_D)])
    qtbot.waitUntil(lambda: bool(seen), timeout=30000)
    title, index, placeholder, page, findings, ticket = seen[0]
    assert index is None and placeholder == READING and page == 1 and findings and ticket
    assert not trees  # the trees wait for their index
    final_title = "NOT VERIFIED: " + plain_of(window.doc.report.root_cause, window.doc.report).meaning
    assert title == final_title
    with qtbot.waitSignal(window.analysisReady, timeout=30000):
        childhooks.release(held)
    assert trees == [True]
    assert window.doc.payload.index == build_index(held.read_bytes())
    assert window.snap_pane.stack.currentIndex() == 0  # the tree, not the placeholder
    assert summary.verdict_text(window.doc).title == final_title


def test_esc_after_the_verdicts_says_the_trees_were_not_read(qtbot, window, held):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    pressed = []

    def on_verdicts():
        if not pressed:
            pressed.append(1)
            QTest.keyClick(window, Qt.Key.Key_Escape)
    window.verdictsShown.connect(on_verdicts)
    window.loader.start([str(held), str(GOLDEN_D)])
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=30000)
    report = window.doc.report
    assert report is not None and report.root_cause.rule.id == "X-BYTES"  # the verdicts stay
    assert summary.verdict_text(window.doc).title == "NOT VERIFIED: " + plain_of(report.root_cause, report).meaning
    for pane in (window.snap_pane, window.resume_pane):
        assert pane.stack.currentIndex() == 1
        assert pane.placeholder.text() == ("Loading was cancelled before the payload's tree was read. "
                                           "Reload (F5) reads and verifies it again.")
    assert window.doc.paths == [str(held), str(GOLDEN_D)]  # F5 reads this file again
    childhooks.release(held)  # (the next verifier is not held)
    with qtbot.waitSignal(window.analysisReady, timeout=30000):
        QTest.keyClick(window, Qt.Key.Key_F5)
    assert window.doc.payload.index == build_index(held.read_bytes())


# -- the early verdicts are the CLI's, for payloads of every form --------------------------------------------

def _variants():
    """The golden payload in eleven forms a user may drop (canonical, pretty, CRLF, BOM, broken...)."""
    canon = GOLDEN_P.read_bytes()
    value = orjson.loads(canon)
    pretty = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return {
        "canonical": canon,
        "pretty": pretty,
        "crlf": pretty.replace(b"\n", b"\r\n"),
        "bom": b"\xef\xbb\xbf" + canon,
        "bom-pretty": b"\xef\xbb\xbf" + pretty,
        "duplicate-key": b'{"logical_resume":null,' + canon[1:],
        "truncated": canon[: len(canon) // 2],
        "not-json": b"hello, this is not JSON at all " * 10,
        "leading-space": b" " + canon,
        "trailing-newline": canon + b"\n",
        "empty-object": b"{}" + b" " * 200,
    }


def _summary(r):
    return dict(rows=[(f.rule.id, f.verdict, f.message, f.expected, f.actual) for f in r.findings],
                ok=r.ok, verified=r.verified, inconclusive=r.inconclusive,
                root=r.root_cause.rule.id if r.root_cause else None, internal=list(r.internal_errors),
                lint=[(x.kind, x.title, x.blocks_resume) for x in r.lint],
                res=repr(r.resumability), notes=list(r.notes),
                digests=[repr(d) for d in r.digests], expected=r.expected_descriptor,
                generation=repr(r.generation))


@pytest.mark.parametrize("name", list(_variants()))
def test_early_report_is_the_clis_verdict(tmp_path, name):
    """The report the verifier sends ahead of its views is ``verify``'s (the CLI's), row for row, for every form;
    the views that follow are ``verify(views=True)``'s (second review of the verdicts-first change)."""
    data = _variants()[name]
    p = tmp_path / f"{name}.payload.json"
    p.write_bytes(data)
    st = os.stat(p)
    pipe = _Pipe()
    value = workers.child_analyse(pipe, str(p), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns, None, 64)
    reports = [m.report for m in pipe.sent if isinstance(m, workers.ReportAhead)]
    cli = verify(data, GOLDEN_D.read_bytes(), payload_size=len(data))
    assert len(reports) == 1, [type(m).__name__ for m in pipe.sent]
    early = reports[0]
    assert early.views is None
    assert _summary(early) == _summary(cli)
    assert isinstance(value, workers.AfterReport)
    views, views_error = value.views, value.views_error
    assert views_error is None
    full = verify(data, GOLDEN_D.read_bytes(), payload_size=len(data), views=True)
    assert (views.unpack() if views is not None else None) == full.views


@pytest.mark.parametrize("name", ["canonical", "pretty", "crlf", "bom", "duplicate-key", "truncated", "not-json"])
def test_window_partial_and_final_verdicts_agree(qtbot, tmp_path, monkeypatch, name):
    """Through engine.load_paths: the verdicts of the first partial with a report (snapshotted when it was
    sent) are the final result's and the CLI's."""
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    data = _variants()[name]
    p = tmp_path / f"{name}.payload.json"
    p.write_bytes(data)
    snaps = []

    def partial(a):
        if a.report is not None:
            snaps.append((a.views_follow, _summary(a.report), a.report.views is None))
    final = _in_worker(qtbot, lambda: engine.load_paths([str(p), str(GOLDEN_D)], partial=partial))
    cli = verify(data, GOLDEN_D.read_bytes(), payload_size=len(data))
    assert _summary(final.report) == _summary(cli)
    assert snaps and snaps[0][0]  # the first with a report: its views follow
    for follow, s, _ in snaps:
        assert s == _summary(cli)
