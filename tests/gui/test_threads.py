"""The engine is never entered on the GUI thread: loading, editing, recomputing and folder scans
all call it from worker threads (or worker processes for large payloads)."""

import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QThread  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import inspector.checkpoint as checkpoint  # noqa: E402
from inspector.session import engine  # noqa: E402
from inspector.gui.roles import SpanRole  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

WATCHED = ("verify", "verify_indexed", "parse_value", "read_input", "pair_inputs", "encode")


@pytest.fixture
def engine_calls(monkeypatch):
    """Wrap the engine's public functions; record (name, on_gui_thread) for every call."""
    calls = []
    app = QApplication.instance()
    for name in WATCHED:
        real = getattr(checkpoint, name)

        def wrapper(*a, _real=real, _name=name, **kw):
            calls.append((_name, QThread.currentThread() is app.thread(),
                          threading.current_thread() is threading.main_thread()))
            return _real(*a, **kw)
        monkeypatch.setattr(checkpoint, name, wrapper)
    return calls


def test_engine_is_never_called_on_the_gui_thread(qtbot, window, engine_calls, tmp_path):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    open_and_wait(qtbot, window, [CASES / "54-p-truncated.payload.json", CASES / "54-p-truncated.descriptor.json"])
    open_and_wait(qtbot, window, [GOLDEN_D, GOLDEN_P])
    idx = window.resume_model.index_for_pointer("/logical_resume/turn").siblingAtColumn(1)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.resume_model.setData(idx, "4")
    assert window.report.root_cause.rule.id == "X-BYTES"
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.request_raw_edit("payload", window.raw_editor.text("payload").replace('"turn":4', '"turn":5'))
    with qtbot.waitSignal(window.folderScanned, timeout=20000):
        window.open_paths([str(GOLDEN_P.parent)])
    names = {c[0] for c in engine_calls}
    assert names == set(WATCHED)
    assert len(engine_calls) >= 15
    on_gui = [c for c in engine_calls if c[1] or c[2]]
    assert on_gui == []


def test_engine_adapter_refuses_the_gui_thread():
    with pytest.raises(RuntimeError, match="GUI thread"):
        engine.analyse_bytes(None, None)
    with pytest.raises(RuntimeError, match="GUI thread"):
        engine.load_paths([str(GOLDEN_P)])


def test_large_payload_path_uses_worker_processes(qtbot, window, monkeypatch, engine_calls):
    """Above the threshold, verification and indexing run in spawned processes; the trees
    appear before the verdicts, and the result equals the in-thread one."""
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    order = []
    window.treesReady.connect(lambda: order.append("trees"))
    window.analysisReady.connect(lambda: order.append("verdicts"))
    report = open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D], timeout=60000)
    assert report.verified
    assert order == ["trees", "verdicts"]  # trees first; the verdicts do not reset them
    assert [c[0] for c in engine_calls if c[0] in ("verify", "verify_indexed")] == []  # verify ran in a child process
    assert report.canonical_bytes is None  # not shipped back over the pipe
    rows = {r.label: r for r in report.digests}
    assert rows["descriptor_digest"].recomputed == (
        "sha256:8492af9da1760810869d7e0e25e8b3f7850e31152056596fed3c74872efa1b44")
    idx = window.snap_model.index_for_pointer("/snapshot/session/messages/0/content/0/text")
    data = GOLDEN_P.read_bytes()
    at = data.index(b'"retain exact state"', data.index(b'"snapshot"'))
    assert window.snap_model.data(idx, SpanRole) == (at, at + 20)


def test_cancel_stops_a_large_load(qtbot, window, monkeypatch):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()
    assert window.cancel_button.isVisible() is False
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible()
    window.cancel_load()
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=20000)
    assert not window.cancel_button.isVisible()
