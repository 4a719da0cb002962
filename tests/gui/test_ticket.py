"""The window's ticket report: the verdict bar leads with plain language, "Copy for
ticket" (button and Ctrl+Shift+T) copies exactly `report --format text`, File ▸ Export Report…
lets the user choose a format and a redacted payload and shows what leaves this machine, and a
file that is not a checkpoint is said to be one."""

import json
import subprocess
import sys

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from inspector.gui.ticket import ExportReportDialog, ticket_inputs, write_export
from inspector.ticket import allowlist, check_report
from tests.conftest import GOLDEN, SAMPLES
from tests.gui.conftest import open_and_wait
from tests.ticket.test_report_cli import pinned_form

BROKEN = [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"]
GOLDEN_PAIR = [GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"]
EPOCH = "1767225600"


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _cli_text(paths) -> str:
    """What `checkpoint-inspector report` prints for the same files, in a separate process."""
    import os

    return subprocess.run([sys.executable, "-m", "inspector", "report", *map(str, paths)], capture_output=True,
                          env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH}).stdout.decode("utf-8")


def _clipboard_after(qtbot, window, action):
    QApplication.clipboard().setText("")
    window.ticket_copied = None
    action()
    qtbot.waitUntil(lambda: getattr(window, "ticket_copied", None) is not None, timeout=15000)
    return QApplication.clipboard().text()


@pytest.mark.parametrize("paths", [BROKEN, GOLDEN_PAIR], ids=["broken", "golden"])
def test_copy_for_ticket_button_copies_exactly_the_cli_report(qtbot, window, paths):
    open_and_wait(qtbot, window, paths)
    button = window.header.ticket_button
    assert button.isVisible() and button.text() == "Copy for ticket"
    text = _clipboard_after(qtbot, window, lambda: QTest.mouseClick(button, Qt.MouseButton.LeftButton))
    assert pinned_form(text) == pinned_form(_cli_text(paths))  # (tags: a random key per report)
    assert check_report(text.encode()) is True
    assert check_report(text.encode()) is True
    assert "Ticket text copied" in window.statusBar().currentMessage()


def test_copy_for_ticket_shortcut_and_edit_menu(qtbot, window):
    open_and_wait(qtbot, window, BROKEN)
    window.findings_view.setFocus()
    text = _clipboard_after(qtbot, window, lambda: QTest.keyClick(
        window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
    assert pinned_form(text) == pinned_form(_cli_text(BROKEN))
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    assert "Copy for &Ticket" in [a.text().split("\t")[0] for a in edit.actions()]
    assert ("Copy for Ticket", "Ctrl+Shift+T") in window.shortcut_rows()


def test_verdict_bar_leads_with_plain_language_and_keeps_the_reference_beside_it(qtbot, window):
    open_and_wait(qtbot, window, BROKEN)
    assert window.header.title.text() == ("NOT VERIFIED: The payload file is not the one the descriptor was made "
                                          "for: it was changed after export, or the two files come from different "
                                          "checkpoints.")
    assert window.header.reference.text() == ("Reference: X-BYTES failed — session checkpoint content drift: "
                                              "descriptor does not match the exact supplied bytes")
    assert window.header.reference.isVisible()
    open_and_wait(qtbot, window, GOLDEN_PAIR)
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    assert not window.header.reference.isVisible() and window.header.ticket_button.isVisible()


def test_a_file_that_is_not_a_checkpoint_is_said_to_be_one(qtbot, window, tmp_path):
    p = tmp_path / "package.json"
    p.write_bytes(b'{"name": "my-app", "version": "1.0.0"}')
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(p)])
    assert window.header.title.text() == "Nothing open — package.json could not be opened"
    assert window.banner_text("error").startswith(
        "package.json: this is not a checkpoint file (a JSON object, but not a checkpoint payload or descriptor). "
        "An A3S Code checkpoint is two JSON files exported together")
    assert "P-PARSE" not in window.header.subtitle.text() and "0 of 0" not in window.header.subtitle.text()
    assert not window.header.ticket_button.isVisible()


def test_export_dialog_lists_what_leaves_and_every_replacement(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, BROKEN)
    dlg = ExportReportDialog(*ticket_inputs(window.doc), parent=window)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    # "What leaves this machine": the allow-list's groups, as data
    groups = [dlg.allow.topLevelItem(i).text(0) for i in range(dlg.allow.topLevelItemCount())]
    assert groups == [f"{g.source}: {g.what}" for g in allowlist().groups] + [
        f"{d.source}: never shown, a tagged marker instead ({d.kind}): {d.digests}"
        if d.treatment == "tag" else f"{d.source}: a tagged marker unless the box above is ticked ({d.kind}): {d.digests}"
        for d in allowlist().digests if d.treatment in ("tag", "file")]
    assert len(groups) == len(allowlist().groups) + 8
    assert sum(g.startswith("descriptor: a tagged marker unless the box above is ticked (digest of the files)")
               for g in groups) == 1
    assert not dlg.replacements.isVisible()
    QTest.mouseClick(dlg.redacted, Qt.MouseButton.LeftButton, pos=QPoint(8, dlg.redacted.height() // 2))
    assert dlg.redacted.isChecked() and dlg.replacements.isVisible()
    assert dlg.replacements.toPlainText().splitlines() == [
        "5 replacements:",
        "/logical_resume/messages/0/content/0/text: value (message text, 18 bytes)",
        "/snapshot/run_records/0/snapshot/prompt: value (prompt, 8 bytes)",
        "/snapshot/session/config/name: value (text, 18 bytes)",
        "/snapshot/session/config/workspace: value (workspace path, 10 bytes)",
        "/snapshot/session/messages/0/content/0/text: value (message text, 18 bytes)",
    ]
    dlg.format.setCurrentIndex(2)
    assert dlg.accepted_choice() == ("html", True, False, False)
    fmt, redacted, prefixes, _file_digests = dlg.accepted_choice()
    out, red = tmp_path / "t.report.html", tmp_path / "t.redacted-payload.json"
    assert write_export(*ticket_inputs(window.doc), fmt, str(out), redacted_path=str(red)) == [str(out), str(red)]
    html = out.read_text("utf-8")
    assert html.startswith("<!DOCTYPE html>") and check_report(html.encode()) is True
    assert "t.redacted-payload.json" in html and "Retain exact state" not in html
    assert "7f8ca8cf" not in html and "digest of the files" in html  # the payload's SHA-256: tagged by default
    assert json.loads(red.read_bytes())["snapshot"]["session"]["config"]["workspace"] == \
        "[redacted: workspace path, 10 bytes]"
    with pytest.raises(FileExistsError):  # never over an existing file
        write_export(*ticket_inputs(window.doc), "text", str(out))
    assert out.read_text("utf-8") == html


def test_file_export_report_end_to_end_by_keyboard_and_clicks(qtbot, window, tmp_path, monkeypatch):
    """Ctrl+Shift+E opens the dialog (window-modal, not blocking); ticking the redacted payload and
    clicking Save writes both new files; an existing name is refused, the file kept."""
    import inspector.gui.ticket as gui_ticket
    from PySide6.QtWidgets import QDialogButtonBox

    target = tmp_path / "case-123.report.md"
    monkeypatch.setattr(gui_ticket, "ask_export_path", lambda w, suggested: str(target))
    open_and_wait(qtbot, window, BROKEN)
    QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: getattr(window, "export_dialog_widget", None) is not None
                    and window.export_dialog_widget.isVisible(), timeout=5000)
    dlg = window.export_dialog_widget
    dlg.format.setCurrentIndex(1)  # Markdown
    QTest.mouseClick(dlg.redacted, Qt.MouseButton.LeftButton, pos=QPoint(8, dlg.redacted.height() // 2))
    QTest.mouseClick(dlg.file_digests, Qt.MouseButton.LeftButton, pos=QPoint(8, dlg.file_digests.height() // 2))
    assert dlg.file_digests.isChecked()
    save = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    QTest.mouseClick(save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(window, "exported", None) is not None, timeout=10000)
    red = tmp_path / "case-123.report.redacted-payload.json"
    assert window.exported == [str(target), str(red)]
    text = target.read_text("utf-8")
    assert text.startswith("# Checkpoint Inspector report") and check_report(text.encode()) is True
    # the files' digests in clear, as ticked
    assert "sha256:7f8ca8cf0480a02b136a0795e4cd17797065a7d4846dd724d17c23b44b34dd0f" in text
    assert "Retain exact state" not in red.read_text("utf-8")
    # again with the same name: refused, nothing overwritten
    window.exported = None
    QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.export_dialog_widget is not dlg and window.export_dialog_widget.isVisible(),
                    timeout=5000)
    dlg2 = window.export_dialog_widget
    QTest.mouseClick(dlg2.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save),
                     Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "never overwrites" in window.statusBar().currentMessage(), timeout=5000)
    assert target.read_text("utf-8") == text and window.exported is None


def test_export_of_the_bundled_sample_starts_in_the_documents_folder(qtbot, window, monkeypatch):
    """Export Report… on the bundled sample (what the window shows at first start) suggested a file
    inside the installation's samples folder (/usr/lib/checkpoint-inspector/_internal/... from the
    .deb, which the user cannot write); Save As already started in the documents folder. A user's
    checkpoint: beside its files, as before."""
    import os

    import inspector.gui.ticket as gui_ticket
    from PySide6.QtWidgets import QDialogButtonBox

    from inspector.gui.dialogs import documents_dir

    asked = []
    monkeypatch.setattr(gui_ticket, "ask_export_path", lambda w, suggested: asked.append(suggested) or "")

    def export():
        window.export_dialog_widget = None
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: getattr(window, "export_dialog_widget", None) is not None
                        and window.export_dialog_widget.isVisible(), timeout=5000)
        buttons = window.export_dialog_widget.findChild(QDialogButtonBox)
        n = len(asked)
        QTest.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(asked) == n + 1, timeout=5000)
        return asked[-1]

    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()
    assert export() == os.path.join(documents_dir(), "sample.payload.report.txt")
    open_and_wait(qtbot, window, GOLDEN_PAIR)
    assert export() == str(GOLDEN / "payload-with-resume.report.txt")


def test_the_export_dialog_lists_the_report_family_of_the_one_registry(qtbot, window):
    """Ctrl+Shift+E: the formats offered are ``report --format``'s, in its order, each with its suffix
    (inspector/formats.py), so the dialog and the command line cannot drift apart."""
    from inspector import formats

    open_and_wait(qtbot, window, BROKEN)
    QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: getattr(window, "export_dialog_widget", None) is not None
                    and window.export_dialog_widget.isVisible(), timeout=5000)
    combo = window.export_dialog_widget.format
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Text (.txt)", "Markdown (.md)", "HTML, self-contained (.html)", "JSON (.json)", "SARIF 2.1.0 (.sarif)"]
    assert [combo.itemData(i) for i in range(combo.count())] == list(formats.names("report"))
    window.export_dialog_widget.reject()
