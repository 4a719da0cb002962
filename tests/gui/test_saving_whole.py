"""Every save in the window writes its files whole or leaves none of them (inspector/session/writing.py):
Save Payload As (with and without its matching descriptor), Save Descriptor As, Export Report and Restore
Original, on a real nearly full or full disk (a tmpfs mounted for the test, :mod:`tests.fulldisk`), and a
FIFO where a new file would go is refused without being opened. Save Payload As used to leave the part of
the payload that fitted (8 KiB of 242 KB) while the window said "Not saved"."""

from __future__ import annotations

import json
import os
import stat

import orjson
import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox  # noqa: E402

from inspector.checkpoint import encode  # noqa: E402
from inspector.gui import dialogs  # noqa: E402
from inspector.gui import ticket as gui_ticket  # noqa: E402
from inspector.session.engine import UserError  # noqa: E402
from tests.builders import golden, rebind  # noqa: E402
from tests.fulldisk import PAGE, small_disk  # noqa: E402,F401 (a fixture)

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait, open_f2_editor  # noqa: E402

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
NOTHING_LEFT = "Nothing was saved (no part of the file was left)."


@pytest.fixture
def big(tmp_path):
    """A verified pair whose payload is 23,618 bytes (six pages): the golden pair with 300 messages."""
    p, d = golden()
    p["snapshot"]["session"]["messages"] = p["snapshot"]["session"]["messages"] * 300
    payload = encode(p)
    pp, dd = tmp_path / "big.payload.json", tmp_path / "big.descriptor.json"
    pp.write_bytes(payload)
    dd.write_bytes(rebind(payload, d, components=True))
    return pp, dd


def _edit_name(qtbot, window, text="renamed"):
    """Select config/name in the snapshot tree, press F2, type, press Enter (the edit is recomputed)."""
    _view, editor = open_f2_editor(qtbot, window, "/snapshot/session/config/name")
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor, text)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(editor, Qt.Key.Key_Return)


def _save_payload_as(window, monkeypatch, path, descriptor_path=None):
    """File ▸ Save Payload As (Ctrl+Shift+S), the file dialogs answered with ``path`` (and, when
    ``descriptor_path`` is given, Yes to the matching descriptor and that name)."""
    answers = [str(path), str(descriptor_path)]
    monkeypatch.setattr(dialogs, "ask_new_file", lambda w, title, suggestion: answers.pop(0))
    yes_no = QMessageBox.StandardButton.Yes if descriptor_path else QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: yes_no)
    QTest.keyClick(window, Qt.Key.Key_S, CTRL_SHIFT)


@pytest.mark.parametrize("free", [1, 0], ids=["nearly-full", "full"])
def test_save_payload_as_that_does_not_fit_leaves_nothing(qtbot, window, big, small_disk, monkeypatch, free):
    open_and_wait(qtbot, window, list(big))
    _edit_name(qtbot, window)
    assert len(window.doc.payload.data) > PAGE
    disk = small_disk(free)
    target = disk / "edited.payload.json"
    _save_payload_as(window, monkeypatch, target)
    assert window.banner_text("error") == (f"Not saved: {target} could not be written: No space left on device. "
                                           + NOTHING_LEFT)
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]
    assert window.edited  # still the unsaved edit, as the window says
    assert window.doc.payload.path == str(big[0])


def test_save_payload_as_whose_descriptor_does_not_fit_removes_the_payload_too(qtbot, window, big, small_disk,
                                                                              monkeypatch):
    """Room for the payload (six pages) but not for its matching descriptor after it: neither stays."""
    open_and_wait(qtbot, window, list(big))
    _edit_name(qtbot, window)
    assert 5 * PAGE < len(window.doc.payload.data) <= 6 * PAGE
    disk = small_disk(6)
    target, desc = disk / "edited.payload.json", disk / "edited.descriptor.json"
    _save_payload_as(window, monkeypatch, target, desc)
    assert window.banner_text("error") == (f"Not saved: {desc} could not be written: No space left on device. "
                                           + NOTHING_LEFT)
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]
    assert window.edited


def test_save_payload_as_with_room_is_whole(qtbot, window, big, small_disk, monkeypatch):
    """The baseline: with room (40 pages) both files are written whole and the saved pair verifies."""
    open_and_wait(qtbot, window, list(big))
    _edit_name(qtbot, window)
    edited = bytes(window.doc.payload.data)
    disk = small_disk(40)
    target, desc = disk / "edited.payload.json", disk / "edited.descriptor.json"
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _save_payload_as(window, monkeypatch, target, desc)
    assert target.read_bytes() == edited
    assert json.loads(desc.read_bytes())["size_bytes"] == len(edited)
    assert window.report.verified


def test_save_payload_as_onto_a_fifo_is_refused_without_opening_it(qtbot, window, big, tmp_path, monkeypatch):
    open_and_wait(qtbot, window, list(big))
    _edit_name(qtbot, window)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    _save_payload_as(window, monkeypatch, fifo)
    assert window.banner_text("error") == (f"Not saved: {fifo} already exists; choose a new file name (nothing is "
                                           "ever overwritten).")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_save_descriptor_as_on_a_full_disk_leaves_nothing(qtbot, window, big, small_disk):
    open_and_wait(qtbot, window, list(big))
    disk = small_disk(0)
    target = disk / "copy.descriptor.json"
    with pytest.raises(UserError) as e:
        window.save_descriptor_as(str(target))
    assert str(e.value) == f"{target} could not be written: No space left on device. " + NOTHING_LEFT
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]


@pytest.mark.parametrize("free", [1, 0], ids=["nearly-full", "full"])
def test_export_report_that_does_not_fit_leaves_nothing(qtbot, window, big, small_disk, monkeypatch, free):
    """File ▸ Export Report… (Ctrl+Shift+E) with the redacted payload ticked, clicked Save: the redacted
    copy (28 KB) does not fit; the status bar says so and no part of either file stays."""
    disk = small_disk(free)
    target = disk / "case.report.md"
    monkeypatch.setattr(gui_ticket, "ask_export_path", lambda w, suggested: str(target))
    open_and_wait(qtbot, window, list(big))
    QTest.keyClick(window, Qt.Key.Key_E, CTRL_SHIFT)
    qtbot.waitUntil(lambda: getattr(window, "export_dialog_widget", None) is not None
                    and window.export_dialog_widget.isVisible(), timeout=5000)
    dlg = window.export_dialog_widget
    QTest.mouseClick(dlg.redacted, Qt.MouseButton.LeftButton, pos=QPoint(8, dlg.redacted.height() // 2))
    QTest.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save),
                     Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Could not export"), timeout=10000)
    assert window.statusBar().currentMessage() == (
        f"Could not export: {disk / 'case.report.redacted-payload.json'} could not be written: No space left on "
        "device. Nothing was saved (no part of the files was left).")
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]
    assert getattr(window, "exported", None) is None


def test_restore_original_on_a_full_disk_leaves_nothing(qtbot, window, tmp_path, small_disk, monkeypatch):
    """Restore Original… (the notice's button) onto a disk with no page free: "Not restored", nothing left."""
    crlf = tmp_path / "received.payload.json"
    crlf.write_bytes(orjson.dumps(orjson.loads(GOLDEN_P.read_bytes()), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n"))
    report = open_and_wait(qtbot, window, [crlf, GOLDEN_D])
    assert report.restoration is not None
    disk = small_disk(0)
    target = disk / "restored.payload.json"
    monkeypatch.setattr(dialogs, "ask_new_file", lambda w, title, suggestion: str(target))
    QTest.mouseClick(window._banners["restore"].buttons["Restore Original…"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: (window.banner_text("error") or "").startswith("Not restored"), timeout=10000)
    assert window.banner_text("error") == (f"Not restored: {target} could not be written: No space left on device. "
                                           + NOTHING_LEFT)
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]
