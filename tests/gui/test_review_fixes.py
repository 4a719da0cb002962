"""Fixes from the GUI review at a71e677 and the newcomer trial: failed opens in the verdict bar,
folder scans, cancelled loads, quick successive edits, internal errors, Save As, Ctrl+R, the sample."""

import multiprocessing
import os
import shutil
import sys
import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QMessageBox  # noqa: E402

import inspector.checkpoint as checkpoint  # noqa: E402
from inspector.session import engine
from inspector.session import folderscan
from inspector.session import workers  # noqa: E402
from inspector.gui.jobs import Job, internal_error_text  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait  # noqa: E402

VERIFIED = "VERIFIED: the reference accepts this checkpoint"


# -- 1. the verdict bar after a failed open ---------------------------------------------------

def test_failed_open_with_nothing_open_says_so_in_the_verdict_bar(qtbot, window, tmp_path):
    missing = tmp_path / "nonexistent.json"
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(missing)])
    assert window.header.title.text() == "Nothing open — nonexistent.json could not be opened"
    assert window.header.subtitle.text() == (
        "Use File ▸ Open, File ▸ Open Sample, or drop a payload and its descriptor here.")
    assert window.status_label.text() == "Nothing open: nonexistent.json could not be opened"
    assert window.banner_text("error") == f"{missing}: no such file"  # the why: said once, there


def test_failed_open_keeps_the_previous_verdict_and_says_the_open_failed(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    missing = tmp_path / "gone.descriptor.json"
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(GOLDEN_P), str(missing)])
    what = "payload-with-resume.json + gone.descriptor.json"
    assert window.header.title.text() == VERIFIED  # the panes still show the golden pair
    assert window.banner_text("error") == f"{missing}: no such file. Still showing the checkpoint below."
    assert window.status_label.text() == f"Could not open {what}; still showing: {VERIFIED}"
    assert window.payload.path == str(GOLDEN_P)
    # a successful open clears the error state
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    assert window.status_label.text().startswith("NOT VERIFIED")
    assert window.header.title.text().startswith("NOT VERIFIED: The payload file is not the one the descriptor was made for")
    assert window.header.reference.text().startswith("Reference: X-BYTES failed")


def test_refused_drop_is_shown_in_the_verdict_bar_too(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    with qtbot.waitSignal(window.loadFailed, timeout=5000):
        window.open_paths([str(GOLDEN_P), str(GOLDEN_D), str(SAMPLES / "broken.payload.json")])
    assert window.header.title.text() == VERIFIED
    assert window.banner_text("error").startswith("3 files were given")
    assert window.banner_text("error").endswith("Still showing the checkpoint below.")
    assert window.status_label.text() == f"Could not open the dropped files; still showing: {VERIFIED}"


# -- 3. opening a folder cancels a running load -------------------------------------------------

def test_open_folder_cancels_a_running_load(qtbot, window, monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # worker processes, as for a large payload
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copyfile(GOLDEN_P, folder / GOLDEN_P.name)
    shutil.copyfile(GOLDEN_D, folder / GOLDEN_D.name)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    load = window.loader.job
    assert window.header.title.text() == "Opening payload-with-resume.json + descriptor-with-resume.json…"
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as blocker:
        window.open_paths([str(folder)])
        assert load.is_cancelled
        assert window.header.title.text().startswith("No checkpoint open")  # not "Opening …" for good
    assert blocker.args == [1]
    qtbot.waitUntil(lambda: load not in window.doc.jobs.running, timeout=20000)
    # only the warm worker waiting for the next open is left (the load's verifier was stopped)
    qtbot.waitUntil(lambda: set(multiprocessing.active_children()) <= {workers.waiting_process()}, timeout=20000)
    assert window.payload is None and window.report is None  # the cancelled load never showed


# -- 4. quick successive sandbox edits --------------------------------------------------------

def _wait_edits(qtbot, window):
    qtbot.waitUntil(lambda: not window.editor.pending and not any(
        j.lane == "document" for j in window.doc.jobs.running), timeout=20000)


def test_two_quick_edits_both_apply(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    name = window.snap_model.index_for_pointer("/snapshot/session/config/name").siblingAtColumn(1)
    turn = window.resume_model.index_for_pointer("/logical_resume/turn").siblingAtColumn(1)
    # Both before the first recompute lands; the second value is after the first in the file,
    # so its span must be shifted by the first edit's change in length.
    assert window.snap_model.setData(name, "edited")
    assert window.resume_model.setData(turn, "42")
    _wait_edits(qtbot, window)
    expected = GOLDEN_P.read_bytes().replace(b'"name":"checkpoint fixture"', b'"name":"edited"', 1) \
        .replace(b'"turn":3', b'"turn":42', 1)
    assert window.payload.data == expected
    assert window.edited and window.report.root_cause.rule.id == "X-BYTES"


def test_editing_the_same_value_twice_quickly_keeps_the_second(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.request_edit("payload", "/logical_resume/turn", _span(window, "/logical_resume/turn"), "number", "1234")
    window.request_edit("payload", "/logical_resume/turn", _span(window, "/logical_resume/turn"), "number", "5")
    _wait_edits(qtbot, window)
    assert window.payload.data == GOLDEN_P.read_bytes().replace(b'"turn":3', b'"turn":5', 1)


def _span(window, pointer):
    from inspector.gui.roles import SpanRole

    model = window.resume_model if pointer.startswith("/logical_resume") else window.snap_model
    return model.data(model.index_for_pointer(pointer), SpanRole)


def test_value_edit_after_a_quick_raw_edit_is_located_by_pointer(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    span = _span(window, "/logical_resume/turn")
    raw = window.raw_editor.text("payload").replace('"checkpoint fixture"', '"x"', 1)
    window.request_raw_edit("payload", raw)
    window.request_edit("payload", "/logical_resume/turn", span, "number", "7")
    _wait_edits(qtbot, window)
    assert window.payload.data == raw.encode().replace(b'"turn":3', b'"turn":7', 1)


def test_a_bad_value_does_not_drop_an_earlier_good_edit(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.request_edit("payload", "/logical_resume/turn", _span(window, "/logical_resume/turn"), "number", "9")
    window.request_edit("payload", "/snapshot/session/config/name", _span(window, "/snapshot/session/config/name"),
                        "number", "not json")
    _wait_edits(qtbot, window)
    assert window.payload.data == GOLDEN_P.read_bytes().replace(b'"turn":3', b'"turn":9', 1)
    assert window.banner_text("error").startswith("The edit was not applied: 'not json' is not a JSON value")


# -- 5. folder scans --------------------------------------------------------------------------

def _in_worker(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join(120)
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_cases_folder_lists_cases_jsonl_as_not_a_checkpoint(monkeypatch):
    events = []
    real_read, real_verify = checkpoint.read_input, checkpoint.verify

    def read(path, *a, **kw):
        events.append(("read", os.path.basename(path)))
        return real_read(path, *a, **kw)

    def verify(*a, **kw):
        events.append(("verify", None))
        return real_verify(*a, **kw)
    monkeypatch.setattr(checkpoint, "read_input", read)
    monkeypatch.setattr(checkpoint, "verify", verify)
    rows = _in_worker(lambda: folderscan.scan_folder(str(CASES)))
    checkpoints = [r for r in rows if r.checkpoint]
    others = [r for r in rows if not r.checkpoint]
    assert [os.path.basename(r.other) for r in others] == ["cases.jsonl"]
    assert others[0].summary == "not a checkpoint: neither a checkpoint payload nor a descriptor was recognised"
    assert len(checkpoints) == 54
    assert not any(r.payload and r.payload.endswith(".jsonl") for r in checkpoints)
    # each payload is read just before its own verification, never all up front
    kinds = [k for k, _ in events]
    assert kinds.count("verify") == 54
    for i, k in enumerate(kinds):
        if k == "read":
            assert kinds[i + 1] == "verify"


def test_large_files_are_classified_from_their_head_without_keeping_bytes(tmp_path):
    big = tmp_path / "payload-with-resume.json"  # pairs with the descriptor by name (its digest differs)
    data = GOLDEN_P.read_bytes()
    big.write_bytes(data[:-1] + b" " * (2 << 20) + data[-1:])  # 2 MiB of whitespace: non-canonical
    found = folderscan._classify_file(str(big))
    assert (found.role, found.data, found.size) == ("payload", None, big.stat().st_size)
    d = folderscan._classify_file(str(GOLDEN_D))
    assert d.role == "descriptor" and d.data == GOLDEN_D.read_bytes()
    p = folderscan._classify_file(str(GOLDEN_P))
    assert p.role == "payload" and p.data is None  # small payloads are read again when verified
    shutil.copyfile(GOLDEN_D, tmp_path / GOLDEN_D.name)
    rows = _in_worker(lambda: folderscan.scan_folder(str(tmp_path)))
    assert [(os.path.basename(r.payload or ""), os.path.basename(r.descriptor or ""), r.root_rule) for r in rows] == [
        ("payload-with-resume.json", "descriptor-with-resume.json", "X-BYTES")]


# -- 6. internal errors never show the exception's text ------------------------------------------

SECRET = "sk-live-SECRET-FROM-PAYLOAD"


def test_job_internal_error_shows_type_and_job_not_text(qtbot):
    def boom(ctx):
        raise KeyError(SECRET)
    job = Job(boom, name="opening the files")
    with qtbot.waitSignal(job.signals.failed, timeout=5000) as blocker:
        job.run()
    msg = blocker.args[0]
    assert msg == internal_error_text("KeyError", "opening the files")
    assert msg.startswith("Internal error (KeyError) while opening the files. This is a bug in the inspector; "
                          "please report it")
    assert SECRET not in msg


def _explode(conn):
    raise ValueError(SECRET)


def test_worker_process_error_sends_the_type_only():
    task = engine.ChildTask(_explode, ())
    task.start()
    try:
        while not task.done:
            task.pump(0.05)
    finally:
        task.terminate()
    with pytest.raises(engine.WorkerError) as info:
        task.result()
    assert info.value.error_type == "ValueError"
    assert SECRET not in str(info.value)
    job = Job(lambda ctx: task.result(), name="verifying")
    msgs = []
    job.signals.failed.connect(msgs.append)
    job.run()
    assert msgs == [internal_error_text("ValueError", "verifying")]


def test_unhandled_exception_banner_has_no_exception_text(qtbot, window):
    from inspector.gui import app

    old = sys.excepthook
    try:
        app._install_excepthook(window)
        sys.excepthook(KeyError, KeyError(SECRET), None)
    finally:
        sys.excepthook = old
    text = window.banner_text("error")
    assert text == internal_error_text("KeyError", "handling that action")
    assert SECRET not in text


# -- 7. Save As ---------------------------------------------------------------------------------

def _edit_name(qtbot, window, value="edited fixture"):
    idx = window.snap_model.index_for_pointer("/snapshot/session/config/name").siblingAtColumn(1)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        assert window.snap_model.setData(idx, value)


def test_save_as_refuses_an_input_file_before_asking_about_the_descriptor(qtbot, window, copies, monkeypatch):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    _edit_name(qtbot, window)
    asked = []
    from inspector.gui import dialogs
    monkeypatch.setattr(dialogs, "ask_new_file", lambda w, title, suggestion: asked.append(title) or str(p))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append("question"))
    before = p.read_bytes()
    window.save_dialog()
    assert asked == ["Save payload as a new file"]  # no descriptor question, no second picker
    assert window.banner_text("error").startswith(f"Not saved: {p} is an input file")
    assert p.read_bytes() == before


def test_after_saving_the_window_shows_the_saved_file_not_an_unsaved_edit(qtbot, window, copies, tmp_path):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    _edit_name(qtbot, window)
    # (c) only the payload was edited: only its trees say so
    assert window.snap_pane.caption.text().endswith("<i>(edited)</i>")
    assert "(edited)" not in window.desc_pane.caption.text()
    assert window.header.title.text().startswith("Edited artifact (unsaved): NOT VERIFIED: The payload file is not the one the descriptor was made for")
    assert window.header.reference.text().startswith("Reference: X-BYTES")
    window.show_banner("error", "error", "Not saved: an earlier attempt")
    out = tmp_path / "new.payload.json"
    assert window.save_payload_as(str(out)) == [str(out)]
    assert window.banner_text("error") is None  # the stale "Not saved" is gone
    assert not window.edited
    assert window.header.title.text().startswith("NOT VERIFIED: The payload file is not the one the descriptor was made for")  # still the edited bytes' verdict
    assert window.header.reference.text().startswith("Reference: X-BYTES")
    assert window.windowTitle() == "new.payload.json + descriptor-with-resume.json — Checkpoint Inspector"
    assert window.banner_text("edited") is None
    assert window.banner_text("info") == (f"Saved {out}. The original files are unchanged. "
                                          "The window now shows new.payload.json + descriptor-with-resume.json.")
    assert "(edited)" not in window.snap_pane.caption.text()
    assert window.paths == [str(out), str(d)]
    assert not window.check_stale()


def test_after_saving_a_matching_pair_the_window_shows_the_pair(qtbot, window, copies, tmp_path):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    _edit_name(qtbot, window)
    out_p, out_d = tmp_path / "new.payload.json", tmp_path / "new.descriptor.json"
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.save_payload_as(str(out_p), str(out_d))
    assert not window.edited
    assert window.report.verified
    assert (window.payload.path, window.descriptor.path) == (str(out_p), str(out_d))
    assert window.banner_text("info") == (f"Saved {out_p} and {out_d}. The original files are unchanged. "
                                          "The window now shows the saved pair.")


# -- 8. Ctrl+R -------------------------------------------------------------------------------------

def test_reload_lists_both_shortcuts_in_the_menu_and_the_shortcuts_dialog(window):
    keys = [k.toString() for k in window.act_reload.shortcuts()]
    assert keys == ["F5", "Ctrl+R"]
    assert window.act_reload.text() == "&Reload from Disk\tF5, Ctrl+R"
    assert ("Reload from Disk", "F5, Ctrl+R") in window.shortcut_rows()


# -- 9. the bundled sample says so ------------------------------------------------------------------

def test_the_bundled_sample_is_labelled_as_such(qtbot, window):
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()
    assert window.header.subtitle.text().startswith(
        "bundled sample — File ▸ Open or drop your own files   —   payload sample.payload.json (")
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert "bundled sample" not in window.header.subtitle.text()


# -- the binding: emit must not drain True's reference count --------------------------------------

def test_emit_keeps_true_alive():
    """PySide6 6.12.0 drops a reference to True on every emit(); after a few thousand the
    interpreter aborts (bool_dealloc). The GUI's emit() gives the reference back."""
    from PySide6.QtCore import QObject, Signal

    from inspector.gui.qtcompat import emit

    class S(QObject):
        sig = Signal(object)

    s = S()
    s.sig.connect(lambda v: None)
    before = sys.getrefcount(True)
    for _ in range(5000):
        emit(s.sig, 1)
    assert sys.getrefcount(True) >= before


def test_a_load_already_finished_but_not_yet_shown_is_not_shown_after_open_folder(qtbot, window, tmp_path):
    """The race a loaded machine showed: the load's result is queued when Open Folder cancels it.

    The worker has finished (its ``finished`` signal waits in the event queue) when the folder is
    opened; the cancelled load must end as cancelled and never present its checkpoint.
    """
    from PySide6.QtCore import QThreadPool

    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copyfile(GOLDEN_P, folder / GOLDEN_P.name)
    shutil.copyfile(GOLDEN_D, folder / GOLDEN_D.name)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    load = window.loader.job
    assert QThreadPool.globalInstance().waitForDone(20000)  # done on the worker; not yet delivered
    assert window.payload is None
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as blocker:
        window.open_paths([str(folder)])
    assert load.is_cancelled and blocker.args == [1]
    qtbot.waitUntil(lambda: load not in window.doc.jobs.running, timeout=20000)
    assert window.payload is None and window.report is None
