"""Defects a user trial found in the window (issue 9), driven by keys and the mouse where a user would."""

import os

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from inspector.gui import dialogs  # noqa: E402
from inspector.session.recent import recent_labels  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait, open_f2_editor  # noqa: E402

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


def test_descriptor_name_follows_the_payload_name():
    assert dialogs.descriptor_name_for("/t/edited.payload.json") == "/t/edited.descriptor.json"
    assert dialogs.descriptor_name_for("/t/run-7-payload.edited.json") == "/t/run-7-descriptor.edited.json"
    assert dialogs.descriptor_name_for("/t/run7.json") == "/t/run7.descriptor.json"


def test_saving_the_bundled_sample_starts_in_the_documents_folder(qtbot, window, monkeypatch):
    open_and_wait(qtbot, window, [SAMPLES / "sample.payload.json", SAMPLES / "sample.descriptor.json"])
    asked = []
    monkeypatch.setattr(dialogs, "ask_new_file", lambda w, title, suggestion: asked.append(suggestion))
    QTest.keyClick(window, Qt.Key.Key_S, CTRL_SHIFT)
    assert asked == [os.path.join(dialogs.documents_dir(), "sample.payload.edited.json")]
    assert not asked[0].startswith(str(SAMPLES.parent.parent))


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


def test_title_when_nothing_is_open(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.loadFailed, timeout=20000):
        window.open_paths([str(tmp_path / "missing.json")])
    assert window.windowTitle() == "Checkpoint Inspector"


def test_counts_in_the_summary_line_have_one_order(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    failing = window.header.subtitle.text().split("   —   ")[-1]
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    passing = window.header.subtitle.text().split("   —   ")[-1]
    words = [w for w in ("FAIL", "PASS", "not reached", "n/a", "not evaluated")]

    def order(text):
        return sorted((text.index(" " + w), w) for w in words if f" {w}" in text)
    assert [w for _, w in order(failing)][:2] == ["FAIL", "PASS"]
    assert failing.split(" ")[1] == "FAIL"  # "3 FAIL · 57 PASS · 15 not evaluated"
    assert [w for _, w in order(passing)][0] == "PASS"


def test_recent_files_with_the_same_name_are_told_apart(window, tmp_path):
    a = [str(tmp_path / "a" / "p.json"), str(tmp_path / "a" / "d.json")]
    b = [str(tmp_path / "b" / "p.json"), str(tmp_path / "b" / "d.json")]
    c = [str(tmp_path / "c.json")]
    assert recent_labels([a, b, c]) == ["a/p.json + a/d.json", "b/p.json + b/d.json", "c.json"]
    window.recent_files.add(a)
    window.recent_files.add(b)
    from inspector.gui import menus
    menus.rebuild_recent_menu(window)
    texts = [x.text() for x in window.recent_menu.actions()][:2]
    assert texts == ["&1 b/p.json + b/d.json", "&2 a/p.json + a/d.json"]


def test_digests_pane_shows_both_digests_and_what_was_hashed_at_the_default_size(qtbot, window):
    window.resize(1560, 960)
    window.reset_layout()
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    qtbot.waitUntil(lambda: window.digests_view.viewport().width() > 200)
    view = window.digests_view
    hh = view.horizontalHeader()
    right = hh.sectionViewportPosition(3) + hh.sectionSize(3)
    assert right <= view.viewport().width()
    fm = view.fontMetrics()
    m = window.digests_model
    for row in range(m.rowCount()):
        for col in (2, 3):
            text = m.data(m.index(row, col))
            assert hh.sectionSize(col) >= fm.horizontalAdvance(text) + 6, text  # not elided
    assert window.digest_detail.height() >= 140


def test_long_headline_is_elided_and_the_window_fits_1024x700(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    window.resize(1024, 700)
    window.reset_layout()
    qtbot.waitUntil(lambda: window.width() == 1024)
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= 1024
    title = window.header.title
    full = title.text()
    assert full.startswith("NOT VERIFIED: The payload file is not the one the descriptor was made for")
    assert title.toolTip() == full
    shown = title.displayed_text()
    # at most two lines (broken between words), each within the label's width; the rest elided
    lines = shown.split("\n")
    assert 1 <= len(lines) <= 2
    assert all(title.fontMetrics().horizontalAdvance(line) <= title.width() for line in lines)
    assert " ".join(lines) == full or (lines[-1].endswith("…") and len(" ".join(lines)) <= len(full))
    sub = window.header.subtitle
    assert all(sub.fontMetrics().horizontalAdvance(line) <= sub.width() for line in sub.displayed_text().split("\n"))
    # the bytes view shows offset, hex and text without a cut
    hexv = window.hex_tabs.currentWidget()
    assert hexv.isVisible() and hexv.data is not None
    assert hexv.horizontalScrollBar().maximum() == 0
    # and the digests' Match column is on screen
    hh = window.digests_view.horizontalHeader()
    assert hh.sectionViewportPosition(1) + hh.sectionSize(1) <= window.digests_view.viewport().width()


def test_failures_only_is_on_when_something_failed_and_a_click_shows_every_rule(qtbot, window):
    from inspector.gui.roles import ObjectRole

    def shown(m):
        out = []
        for g in range(m.rowCount()):
            gi = m.index(g, 0)
            out += [m.data(m.index(r, 0, gi), ObjectRole) for r in range(m.rowCount(gi))]
        return [f for f in out if f is not None]

    report = open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json",
                                           CASES / "25-p-flip-byte.descriptor.json"])
    m = window.findings_model
    assert window.failures_only.isChecked()
    rows = shown(m)
    assert {f.verdict.value for f in rows} == {"fail"}
    assert len({f.rule.id for f in rows}) == sum(1 for f in report.findings if f.failed)
    box = window.failures_only
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert not box.isChecked()
    assert len(shown(m)) == len(report.findings) + 1  # every rule, and the root cause section
    assert window.findings_model.data(window.findings_view.currentIndex(), ObjectRole) is report.root_cause
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert not window.failures_only.isChecked()  # nothing failed: every rule


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
