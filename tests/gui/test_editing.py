"""Edits in the sandbox and Save As (inspector/gui/controllers/editing.py), driven by real input.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait
pytest.importorskip("PySide6")
from PySide6.QtWidgets import QMessageBox  # noqa: E402
from inspector.session import engine
from PySide6.QtWidgets import QApplication  # noqa: E402
from inspector.gui import dialogs  # noqa: E402
from .conftest import open_f2_editor, stale_now  # noqa: E402


def _start_slow_load(window, monkeypatch):

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # a load in worker processes (not instant)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible() and window.act_stop.isEnabled()


def test_esc_in_a_tree_editor_cancels_the_edit_while_a_load_runs(qtbot, window, monkeypatch):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    _start_slow_load(window, monkeypatch)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Home)
    QTest.keyClick(view, Qt.Key.Key_F2)
    if view.state() != view.State.EditingState:
        pytest.skip("the first row is not editable while loading")
    QTest.keyClick(view.focusWidget() or view, Qt.Key.Key_Escape)
    assert view.state() != view.State.EditingState
    assert window.act_stop.isEnabled() and window.banner_text("info") is None


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
    assert not stale_now(qtbot, window)


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


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _edit_name_with_f2(qtbot, window, text="renamed"):
    """Select config/name in the snapshot tree, press F2, type, press Enter; return the view's
    horizontal position while the editor was open."""
    view, editor = open_f2_editor(qtbot, window, "/snapshot/session/config/name")
    while_editing = view.horizontalScrollBar().value()
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor, text)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(editor, Qt.Key.Key_Return)
    return while_editing


def test_save_as_of_payload_and_descriptor_shows_the_new_pair(qtbot, window, copies, tmp_path, monkeypatch):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    _edit_name_with_f2(qtbot, window)
    assert window.report.root_cause.rule.id == "X-BYTES"
    asked = []
    answers = [str(tmp_path / "edited.payload.json"), None]

    def ask(w, title, suggestion):
        asked.append(suggestion)
        answers[1] = suggestion  # take the suggested descriptor name
        return answers[len(asked) - 1]
    monkeypatch.setattr(dialogs, "ask_new_file", ask)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_S, CTRL_SHIFT)  # File ▸ Save Payload As
    assert asked == [str(tmp_path / "payload-with-resume.edited.json"), str(tmp_path / "edited.descriptor.json")]
    assert [window.payload.path, window.descriptor.path] == answers
    assert window.report.verified  # the new pair, not the new payload beside the old descriptor
    assert window.report.root_cause is None
    assert window.windowTitle() == "edited.payload.json + edited.descriptor.json — Checkpoint Inspector"


def test_after_an_f2_edit_the_tree_scrolls_back(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    assert view.horizontalScrollBar().value() == 0
    while_editing = _edit_name_with_f2(qtbot, window)
    assert while_editing > 0  # the editor scrolled the view sideways (the tree is narrower than its columns)
    assert window.edited
    qtbot.waitUntil(lambda: view.horizontalScrollBar().value() == 0)
    QApplication.processEvents()
    assert view.horizontalScrollBar().value() == 0


def test_f2_where_nothing_can_be_edited_says_why(qtbot, window, monkeypatch):
    """F2 on a payload over the edit limit (16 MiB) did nothing but print Qt's "edit: editing
    failed" on stderr (seen with a 32 MiB export in the packaged app); on an object row likewise."""
    from inspector.gui import views

    monkeypatch.setattr(views, "EDIT_LIMIT", 1000)  # the golden payload is over this limit
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    window.focus_pane(view)
    view.setCurrentIndex(window.snap_model.index_for_pointer("/snapshot/session/config/name"))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    QTest.keyClick(view, Qt.Key.Key_F2)
    size = GOLDEN_P.stat().st_size
    assert window.statusBar().currentMessage() == (
        f"The payload is {size / 2**20:.1f} MiB: files up to 0 MiB can be edited (in a sandbox copy; "
        "the file is never changed).")
    assert QApplication.focusWidget() is view  # no editor opened
    monkeypatch.setattr(views, "EDIT_LIMIT", 16 * 2**20)
    window.desc_pane.view.setFocus()
    window.focus_pane(window.desc_pane.view)
    window.desc_pane.view.setCurrentIndex(window.desc_model.index_for_pointer("/snapshot"))
    QTest.keyClick(window.desc_pane.view, Qt.Key.Key_F2)
    assert window.statusBar().currentMessage() == (
        "Edit Value (F2) edits one value (a string, number, true, false or null): select one, or use "
        "Edit ▸ Edit Raw Text (Ctrl+E).")
