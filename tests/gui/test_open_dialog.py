"""File ▸ Open with a file name that is not valid UTF-8 (kind 1): Qt's file dialog cannot
list such a name (it decodes names as UTF-8); typed as the window shows it (``\\xNN``) or as Qt
shows it (U+FFFD), it opens the file with its exact bytes, shown escaped, remembered and reopened."""

import os
import shutil
import sys

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from inspector.gui.dialogs import OpenDialog
from inspector.session.pathnames import resolve_chosen_path, unescape_name

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")


def _make(tmp_path):
    folder = os.fsdecode(bytes(tmp_path)) if isinstance(tmp_path, bytes) else str(tmp_path)
    p = os.path.join(folder, os.fsdecode(b"caf\xe9.payload.json"))
    shutil.copyfile(GOLDEN_P, p)
    d = os.path.join(folder, "descriptor.json")
    shutil.copyfile(GOLDEN_D, d)
    return folder, p, d


def test_resolve_chosen_path_maps_escapes_and_replacement_characters_to_the_bytes(tmp_path):
    folder, p, d = _make(tmp_path)
    assert resolve_chosen_path(d) == d
    assert resolve_chosen_path(os.path.join(folder, "caf\\xe9.payload.json")) == p
    assert resolve_chosen_path(os.path.join(folder, "caf\ufffd.payload.json")) == p
    assert resolve_chosen_path(os.path.join(folder, "caf\\xe8.payload.json")) is None
    assert resolve_chosen_path(os.path.join(folder, "nothing.json")) is None
    assert unescape_name("a\\x41\\xff") == "a\\x41\udcff"  # only bytes that are not ASCII
    # a folder that is not UTF-8 either
    sub = os.path.join(folder, os.fsdecode(b"d\xff"))
    os.mkdir(sub)
    inner = os.path.join(sub, os.fsdecode(b"x\xfe.json"))
    shutil.copyfile(GOLDEN_D, inner)
    assert resolve_chosen_path(os.path.join(folder, "d\ufffd", "x\ufffd.json")) == inner
    assert resolve_chosen_path(os.path.join(folder, "d\\xff", "x\\xfe.json")) == inner
    # two names Qt shows alike: the dialog cannot tell which one was meant, so neither is chosen
    shutil.copyfile(GOLDEN_D, os.path.join(sub, os.fsdecode(b"x\xfd.json")))
    assert resolve_chosen_path(os.path.join(folder, "d\ufffd", "x\ufffd.json")) is None


def _dialog_type(qtbot, window, text):
    dlg = window.findChild(OpenDialog)
    assert dlg is not None and dlg.isVisible()
    edit = dlg.findChild(QLineEdit, "fileNameEdit")
    edit.setFocus()
    for ch in text:  # (keyClicks types ASCII only)
        if ch.isascii():
            QTest.keyClick(edit, ch)
        else:
            QTest.sendKeyEvent(QTest.KeyAction.Click, edit, Qt.Key.Key_unknown, ch, Qt.KeyboardModifier.NoModifier)
    assert edit.text().strip('"').endswith(text.strip('"'))
    QTest.keyClick(edit, Qt.Key.Key_Return)
    return dlg


def test_open_dialog_opens_a_name_that_is_not_utf8_typed_as_the_window_shows_it(qtbot, window, tmp_path, settings):
    folder, p, d = _make(tmp_path)
    plain = os.path.join(folder, "plain.payload.json")
    shutil.copyfile(GOLDEN_P, plain)
    open_and_wait(qtbot, window, [plain, d])  # a checkpoint from that folder is open
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)  # File ▸ Open…
    dlg = window.findChild(OpenDialog)
    assert dlg is not None and dlg.isVisible()
    assert dlg.directory().absolutePath() == folder  # it starts beside the open files
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _dialog_type(qtbot, window, '"descriptor.json" "caf\\xe9.payload.json"')
    assert window.report.verified
    assert window.payload.path == p and window.descriptor.path == d  # the exact bytes
    assert window.windowTitle() == "caf\\xe9.payload.json + descriptor.json — Checkpoint Inspector"
    assert sorted(window.recent()[0]) == sorted([p, d])  # remembered with the exact bytes
    assert "caf\\xe9.payload.json" in window.recent_menu.actions()[0].text()

    # Qt's own form of the name (U+FFFD) opens it too
    qtbot.waitUntil(lambda: window.findChild(OpenDialog) is None, timeout=3000)  # (closed and gone)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert window.findChild(OpenDialog).directory().absolutePath() == folder
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _dialog_type(qtbot, window, "caf\ufffd.payload.json")
    # chosen alone, the payload opens with the matching descriptor beside it, as on the command line
    assert window.payload.path == p and window.descriptor.path == d and window.report.verified

    # remembered across runs, and reopened from File ▸ Open Recent with the keyboard
    window.save_settings()
    from inspector.gui.window import MainWindow

    w2 = MainWindow(settings=QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(w2)
    w2.show()
    assert p in w2.recent()[0]
    menu = w2.recent_menu
    menu.popup(w2.mapToGlobal(w2.rect().center()))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    with qtbot.waitSignal(w2.analysisReady, timeout=20000):
        QTest.keyClick(menu, Qt.Key.Key_1)
    assert w2.payload.path == p and w2.report is not None
    assert w2.windowTitle().startswith("caf\\xe9.payload.json")
    w2.cancel_load()


def test_a_payload_opened_alone_after_a_pair_leaves_no_descriptor_caption(qtbot, window, tmp_path):
    """File ▸ Open of a lone payload after a pair: the Descriptor tab said "No descriptor open"
    under the previous pair's caption ("Descriptor — caf\\xe9.descriptor.json, 1,185 bytes")."""
    folder, p, d = _make(tmp_path)
    open_and_wait(qtbot, window, [p, d])
    assert window.desc_pane.caption.text() == "<b>Descriptor</b> — descriptor.json, 1,185 bytes"
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    os.remove(d)  # (a descriptor beside it would be paired:)
    QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _dialog_type(qtbot, window, "caf\\xe9.payload.json")
    assert window.descriptor is None
    assert window.desc_pane.caption.text() == "Descriptor (outer identity and both evidence blocks)"
    assert window.snap_pane.caption.text() == "<b>Snapshot</b> — caf\\xe9.payload.json, 2,090 bytes"
