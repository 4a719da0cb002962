"""Large loads: the partial verdict before the parse, one parse for trees and verdicts.

Above ``PROCESS_THRESHOLD`` the window decides the descriptor's rules, the payload's size and its
content digest first (hash before parse) and shows them at once; one child process then parses
the payload once and returns the verdicts and, from the fast path's spans, the trees' index.
"""

import json

import orjson
import pytest

import inspector.checkpoint as checkpoint
from inspector.checkpoint import verify
from inspector.checkpoint.read.fastpath import NotFast, decode_fast
from inspector.gui import summary
from inspector.session import engine, workers
from inspector.checkpoint.jsontext.lazyjson import build_index, children_of

from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait


def _titles(window, subtitles=None, references=None):
    seen = []

    def record(p):
        v = summary.verdict_text(window.doc)
        seen.append((p.partial, v.title))
        if subtitles is not None:
            subtitles.append(v.subtitle)
        if references is not None:
            references.append(v.reference)
    window.doc.presented.connect(record)
    return seen


def test_bytes_stage_is_shown_first_then_the_same_verdict(qtbot, window, monkeypatch):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    calls = []
    for name in ("verify", "first_stage"):
        real = getattr(checkpoint, name)
        monkeypatch.setattr(checkpoint, name, lambda *a, _r=real, _n=name, **kw: calls.append(_n) or _r(*a, **kw))
    seen = _titles(window)
    report = open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D], timeout=60000)
    assert report.verified
    assert seen[0] == (True, "Bytes match the descriptor (size and content digest); checking structure…")
    assert seen[-1] == (False, "VERIFIED: the reference accepts this checkpoint")
    assert calls == ["first_stage"]  # only the bytes stage ran in the window's process: the full verify in the child
    # trees from the verifying child's spans, identical to a scan of the bytes
    assert window.doc.payload.index == build_index(GOLDEN_P.read_bytes())


def test_x_bytes_failure_is_shown_before_the_parse(qtbot, window, monkeypatch):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    subtitles, references = [], []
    seen = _titles(window, subtitles, references)
    p, d = CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"
    report = open_and_wait(qtbot, window, [p, d], timeout=60000)
    rc = report.root_cause
    assert rc.rule.id == "X-BYTES"
    # the plain meaning leads, as in the final verdict; the reference's words are on their own line
    # (one full stop: the meaning's own was followed by "; checking", ".;")
    assert rc.rule.plain.meaning.endswith(".")
    assert seen[0] == (True, f"NOT VERIFIED: {rc.rule.plain.meaning[:-1]}; checking the other rules…")
    assert seen[-1] == (False, f"NOT VERIFIED: {rc.rule.plain.meaning}")
    assert references[0] == references[-1] == f"Reference: X-BYTES failed — {rc.message}"
    assert "MISMATCH: content_digest" in subtitles[0] and "1 FAIL so far" in subtitles[0]


def test_pretty_printed_large_payload_gets_trees_and_the_in_thread_verdict(qtbot, window, monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    pretty = orjson.dumps(orjson.loads(GOLDEN_P.read_bytes()), option=orjson.OPT_INDENT_2)
    p = tmp_path / "pretty.payload.json"
    p.write_bytes(pretty)
    report = open_and_wait(qtbot, window, [p, GOLDEN_D], timeout=60000)
    plain = verify(pretty, GOLDEN_D.read_bytes())
    assert [(f.rule.id, f.verdict, f.message) for f in report.findings] == [
        (f.rule.id, f.verdict, f.message) for f in plain.findings]
    assert report.root_cause.rule.id == "X-BYTES"
    assert window.doc.payload.index == build_index(pretty)


def _canonical_cases():
    rows = [json.loads(line) for line in (CASES / "cases.jsonl").read_bytes().split(b"\n") if line.strip()]
    return [r["payload"] for r in rows]


@pytest.mark.parametrize("name", _canonical_cases())
def test_fast_path_spans_are_the_scanners_index(name):
    data = (CASES / name).read_bytes()
    for big in (0, 64, 4096):
        spans = {}
        try:
            decode_fast(data, spans=spans, big=big)
        except NotFast:
            continue
        _assert_spans_are_the_index(data, spans, build_index(data, big=big), big)


def _assert_spans_are_the_index(data: bytes, spans: dict, index, big: int, label: str = "") -> None:
    """The fast path's spans hold every container the scanner's index records (those of two children or more)
    and give the children the index gives for every large one (a lone child is read from its span)."""
    root = min(spans)
    assert set(index) == {s for s, rec in spans.items() if rec[1] - s >= big and len(rec[2]) >= 2}, (label, big)
    for start, (kind, end, starts, ends, key_starts, keys) in spans.items():
        if end - start < big:
            assert start == root, (label, big)
            continue
        ch = children_of(data, index, start, end)
        assert (ch.kind, ch.starts, ch.ends, ch.key_starts, ch.keys) == (
            kind, starts, ends, key_starts, keys), (label, big, start)


@pytest.mark.parametrize("name", _canonical_cases()[::4])
def test_fast_path_spans_of_pretty_and_reordered_payloads_are_the_scanners_index(name):
    """NotCanonical files (pretty-printed, reordered, one final newline) get their spans from the
    printing's arithmetic: the same index the byte scanner builds."""
    from tests.checkpoint.read.test_relaid import _variants

    data = (CASES / name).read_bytes()
    try:
        variants = _variants(data)
    except orjson.JSONDecodeError:
        pytest.skip("not JSON")
    checked = 0
    for label, variant in variants.items():
        if b"\r" in variant:
            continue  # CRLF: offsets differ from the printing's; indexed by the scanner instead
        for big in (0, 64, 4096):
            spans = {}
            try:
                decode_fast(variant, spans=spans, big=big)
            except NotFast:
                pass
            if not spans:
                continue
            _assert_spans_are_the_index(variant, spans, build_index(variant, big=big), big, label)
            checked += 1
    if name.startswith("01-valid"):
        assert checked >= 9  # four layouts x three sizes (a compact newline variant: not canonical)


def test_large_open_stages_from_a_streamed_hash_of_the_open_file(qtbot, window, monkeypatch):
    """The bytes stage needs no file-sized buffer: the payload is opened (not read, not mapped), hashed by
    streaming the file, and the stage gets that digest; with the verdicts the window keeps the
    file's bytes (not the lazy reader) for its panes."""
    import hashlib

    from inspector.session.filebytes import FileBytes

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    staged = []
    real = checkpoint.first_stage
    monkeypatch.setattr(checkpoint, "first_stage", lambda p, d, **kw: staged.append((type(p), kw)) or real(p, d, **kw))
    kinds = []
    window.doc.presented.connect(lambda p: kinds.append((p.partial, type(p.analysis.payload.data))))
    report = open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D], timeout=60000)
    data = GOLDEN_P.read_bytes()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    assert staged == [(FileBytes, {"payload_digest": digest})]
    # every stage is shown from the open file (the window reads its copy meanwhile and adopts it with the verdicts)...
    assert len(kinds) >= 3 and all(k == (True, FileBytes) for k in kinds[:-2])
    assert kinds[-2:] == [(True, bytes), (False, bytes)]  # ...and the verdicts (then their views) with the file's bytes
    assert window.doc.payload.data == data and window.doc.payload.sha256 == digest
    assert report.verified
    assert {r.label: r.recomputed for r in report.digests}["payload content_digest"] == digest


def test_a_warm_worker_verifies_the_open_and_the_next_one_waits(qtbot, window, monkeypatch):
    """The verifier of a large open is the process started ahead of it (imports done); once the
    open is finished another one waits for the next open."""
    from inspector.session import workers

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    workers.prewarm()
    assert workers.warm_ready(60)
    first = workers.waiting_process()
    started = []
    real_start = workers.ChildTask.start
    monkeypatch.setattr(workers.ChildTask, "start", lambda self: real_start(self) or started.append(self))
    report = open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D], timeout=60000)
    assert report.verified
    assert [(t.warm, t.was_warm) for t in started] == [(True, True)]
    assert not first.is_alive()  # its one job done, it was stopped
    nxt = workers.waiting_process()
    assert nxt is not None and nxt is not first and nxt.is_alive()
    # the next open is verified by that one
    started.clear()
    assert workers.warm_ready(60)
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"],
                  timeout=60000)
    assert window.report.root_cause.rule.id == "X-BYTES"
    assert [t.was_warm for t in started] == [True] and not nxt.is_alive()


def test_the_bytes_pane_reads_the_file_while_verifying(qtbot, window, monkeypatch):
    """While the verifier runs the bytes pane reads the open file: keys move through it (Ctrl+End
    reaches the last byte), and the verdicts bring the same bytes as ``bytes``."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from inspector.session.filebytes import FileBytes

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    data = GOLDEN_P.read_bytes()
    seen = []

    def during(p):
        hexv = window.hex_payload
        if p.partial and not seen:
            QTest.keyClick(hexv, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
            seen.append((type(hexv.data), hexv.cursor_offset, hexv.data[hexv.cursor_offset:hexv.cursor_offset + 1]))
    window.doc.presented.connect(during)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D], timeout=60000)
    assert seen == [(FileBytes, len(data) - 1, data[-1:])]
    assert type(window.hex_payload.data) is bytes and window.hex_payload.data == data


def test_a_payload_truncated_while_verifying_never_kills_the_window(qtbot, window, monkeypatch, tmp_path):
    """A large payload truncated in place while the window verifies it: the bytes pane read a
    mapping of it, and Ctrl+End there killed the window (SIGBUS on a vanished page). The pane
    reads the file with ``pread`` instead: the keys still work, the pane says the file changed,
    and the verdicts come with the 'file changed' warning (the verifier's ScanError of the emptied
    file once failed to unpickle in the window: "Internal error (TypeError)").

    The verifier reads the file only once it is empty (``childhooks.read_once_emptied``): with a warm
    verifier it used to read the whole file first, and the test failed (VERIFIED) whenever the warm
    worker left by the previous test had finished its imports. The window reads the file again."""
    import os
    import shutil

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from inspector.gui.widgets.hex_view import FILE_CHANGED

    from . import childhooks

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    p, d = tmp_path / GOLDEN_P.name, tmp_path / GOLDEN_D.name
    shutil.copyfile(GOLDEN_P, p)
    shutil.copyfile(GOLDEN_D, d)
    monkeypatch.setattr(engine, "child_analyse", childhooks.read_once_emptied)
    childhooks.arm(p)
    size = p.stat().st_size
    seen = []

    def during(pr):
        hexv = window.hex_payload
        if pr.partial and not seen:
            os.truncate(p, 0)  # in place: same file, no bytes left
            QTest.keyClick(hexv, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
            hexv.viewport().grab()  # paint the last rows now
            at_end = hexv.cursor_offset
            QTest.keyClick(hexv, Qt.Key.Key_PageUp)
            hexv.viewport().grab()
            seen.append((len(hexv.data), at_end, hexv.data[size - 1], hexv.data[size - 16:size],
                         getattr(hexv.data, "changed", None)))
    notices = []
    window.doc.presented.connect(during)
    window.doc.notice.connect(lambda key, _kind, text, _actions: notices.append((key, text)))
    report = open_and_wait(qtbot, window, [p, d], timeout=60000)
    assert report.root_cause.rule.id == "X-BYTES"  # the verifier read what the file holds now: nothing
    assert seen == [(size, size - 1, 0, b"", True)]
    assert FILE_CHANGED == "file changed on disk: reload to see it"
    assert ("stale", "The payload file changed while it was being read; it was read again.") in notices
    assert window.hex_payload.data == b""  # the window's own copy: what the file holds now


def test_cancel_before_the_trees_arrive_says_they_were_not_read(qtbot, window, monkeypatch):
    """Esc while a large payload was being read (its bytes stage shown, its trees not yet): the
    verdict bar said "the trees show the file" while both payload trees said "Reading the
    payload…", the rule detail and the Resume dock "Verifying…", for ever (seen on the 247 MiB
    export in the packaged app; same from source)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])  # a checkpoint is open; now a large load
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    stage = []

    def first_stage(p):  # press Esc as soon as the bytes stage is on screen, before the trees
        if p.partial and not stage:
            stage.append(window.snap_pane.placeholder.text())
            QTest.keyClick(window, Qt.Key.Key_Escape)
    window.doc.presented.connect(first_stage)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=20000)
    assert stage == ["Reading the payload…"]
    assert summary.verdict_text(window.doc).title == (
        "Loading cancelled before the payload was read: not verified (Reload, F5, starts again)")
    for pane in (window.snap_pane, window.resume_pane):
        assert pane.stack.currentIndex() == 1
        assert pane.placeholder.text() == ("Loading was cancelled before the payload's tree was read. "
                                           "Reload (F5) reads and verifies it again.")
    waiting = ("Loading was cancelled before the verification finished: nothing was verified. "
               "Reload (F5) reads and verifies it again.")
    assert window.detail.toPlainText() == waiting  # was "Verifying…"
    assert window.resume_panes.timeline.message == waiting  # was "Verifying… the timeline appears with…"
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F5)
    assert window.report.verified and window.snap_pane.stack.currentIndex() == 0


class _Pipe:
    """The child's end of its pipe, for calling a child function in this process."""

    def __init__(self, *incoming):
        self.incoming, self.sent = list(incoming), []

    def recv(self):
        if not self.incoming:
            raise EOFError
        return self.incoming.pop(0)

    def send(self, msg):
        self.sent.append(msg)

    def report(self):
        """The report the child sent ahead of its views (a ``workers.ReportAhead``)."""
        return next(m.report for m in self.sent if isinstance(m, workers.ReportAhead))


def test_the_verifier_reads_while_the_window_hashes_and_takes_its_digest(tmp_path):
    """The verifier reads the file while the window hashes it (``DIGEST_FOLLOWS``), then takes the digest the
    window sends instead of hashing the file again; a file that changed since (another length) is hashed by
    the verifier itself; a window gone before sending it ends the job (EOFError, nobody listening)."""
    import hashlib
    import os
    import shutil

    from inspector.checkpoint.jsontext.lazyjson import BIG
    from inspector.session.workers import DIGEST_FOLLOWS, child_analyse

    p = tmp_path / GOLDEN_P.name
    shutil.copyfile(GOLDEN_P, p)
    st = os.stat(p)
    real = "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
    sent = "sha256:" + "ab" * 32  # not the file's: the report shows whose digest was used
    pipe = _Pipe(workers.Digest(sent))
    seen = child_analyse(pipe, str(p), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns, DIGEST_FOLLOWS, BIG).seen
    report = pipe.report()
    digests = {r.label: r.recomputed for r in report.digests}
    assert digests["payload content_digest"] == sent
    assert report.root_cause.rule.id == "X-BYTES"
    assert seen == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)  # the file it read, unchanged meanwhile
    pipe = _Pipe(workers.Digest(sent))
    child_analyse(pipe, str(p), GOLDEN_D.read_bytes(), st.st_size + 1, st.st_mtime_ns, DIGEST_FOLLOWS, BIG)
    report = pipe.report()
    assert {r.label: r.recomputed for r in report.digests}["payload content_digest"] == real
    assert report.verified
    with pytest.raises(EOFError):
        child_analyse(_Pipe(), str(p), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns, DIGEST_FOLLOWS, BIG)


def test_the_verifiers_kept_payload_and_collector_stay_in_its_process(tmp_path):
    """``child_analyse`` keeps the parsed payload (``workers._KEPT``) and ``_child_main`` turns the cyclic
    collector off only in a worker process, which exits after its one job: called in another process
    (here, as a test does) it keeps nothing and leaves the collector as it was."""
    import gc
    import os
    import shutil

    from inspector.session import workers
    from inspector.checkpoint.jsontext.lazyjson import BIG

    p = tmp_path / GOLDEN_P.name
    shutil.copyfile(GOLDEN_P, p)
    st = os.stat(p)
    assert gc.isenabled()
    pipe = _Pipe()
    workers.child_analyse(pipe, str(p), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns, None, BIG)
    assert pipe.report().verified
    assert workers._KEPT == [] and gc.isenabled()
    report = workers.child_verify(_Pipe(), str(p), GOLDEN_D.read_bytes(), st.st_size)
    assert report.verified and workers._KEPT == [] and gc.isenabled()
