"""Open Folder, Save As and Compare With in a folder whose name is not valid UTF-8 (kind 1;
File ▸ Open is in test_open_dialog.py).

A ``str`` holding such a name (``surrogateescape``) loses those code points on the way to a
``QString``: Save As suggested ``…/dj/café.payload.edited.json`` for a file in ``…/déjà/`` (a
folder that does not exist, or another one), and the name Qt hands back (U+FFFD in place of the
bytes) names no file: "no such file". The stand-ins below answer as Qt's dialogs do, with the
QString Qt holds; everything else is driven with keys.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QFileInfo, Qt, QUrl  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QMessageBox  # noqa: E402

from inspector.session.pathnames import resolve_new_path  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P  # noqa: E402
from inspector.gui import dialogs  # noqa: E402
from .conftest import SAMPLES, open_and_wait  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def latin1(tmp_path):
    """``déjà/café.payload.json`` and ``déjà/café.descriptor.json``, every é and à one Latin-1 byte."""
    folder = os.path.join(os.fsencode(str(tmp_path)), b"d\xe9j\xe0")
    os.mkdir(folder)
    shutil.copyfile(GOLDEN_P, os.path.join(folder, b"caf\xe9.payload.json"))
    shutil.copyfile(GOLDEN_D, os.path.join(folder, b"caf\xe9.descriptor.json"))
    return os.fsdecode(folder)


def as_qt_returns(path: str) -> str:
    """The path a Qt dialog returns for ``path`` (chosen in the platform's dialog, which hands Qt
    a ``file:`` URI): Qt decodes the name as UTF-8, U+FFFD for each byte it cannot."""
    raw = os.fsencode(path)
    enc = b"".join(bytes([c]) if c < 0x80 else b"%%%02X" % c for c in raw)
    return QUrl.fromEncoded(b"file://" + enc).toLocalFile()


def qt_holds(text: str) -> str:
    """``text`` after a trip through a QString (what a dialog was really given)."""
    return QFileInfo(text).filePath()


def test_open_folder_save_as_and_compare_with_in_a_latin1_folder(qtbot, window, latin1, monkeypatch):
    assert "\ufffd" in as_qt_returns(latin1)  # (the stand-in is lossy as Qt is)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: as_qt_returns(latin1)))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as scan:
        QTest.keyClick(window, Qt.Key.Key_O, CTRL_SHIFT)  # File ▸ Open Folder…
    assert scan.args == [1]  # was: "no such file" for the U+FFFD name
    assert window.folder_dock.windowTitle() == f"Folder — {latin1.encode('utf-8', 'surrogateescape').decode('utf-8', 'backslashreplace')}"
    window.folder_view.setFocus()
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClick(window.folder_view, Qt.Key.Key_Return)
    assert window.payload.path == os.path.join(latin1, os.fsdecode(b"caf\xe9.payload.json"))

    # File ▸ Save Payload As: the user keeps the suggested name, then types one of their own
    given = []
    answers = [None, os.path.join(qt_holds(as_qt_returns(latin1)), "caf\\xe9 copy.json")]

    def save(parent, caption="", dir="", *a, **k):  # noqa: A002 (Qt's name)
        given.append(qt_holds(dir))
        answer = answers[len(given) - 1]
        return (qt_holds(dir) if answer is None else answer), "JSON files (*.json)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.No))
    with qtbot.waitSignal(window.saved, timeout=20000) as saved:
        QTest.keyClick(window, Qt.Key.Key_S, CTRL_SHIFT)  # Save Payload As…
    # the dialog was shown the right folder (as Qt shows it: not ".../dj/")
    assert given[0] == as_qt_returns(os.path.join(latin1, os.fsdecode(b"caf\xe9.payload.edited.json")))
    kept = os.path.join(os.fsencode(latin1), b"caf\xe9.payload.edited.json")
    assert saved.args[0] == [os.fsdecode(kept)]
    with open(kept, "rb") as f:
        assert f.read() == GOLDEN_P.read_bytes()
    with qtbot.waitSignal(window.saved, timeout=20000) as saved:
        QTest.keyClick(window, Qt.Key.Key_S, CTRL_SHIFT)
    typed = os.path.join(os.fsencode(latin1), b"caf\xe9 copy.json")
    assert saved.args[0] == [os.fsdecode(typed)] and os.path.exists(typed)

    # File ▸ Compare With…: the open payload against the copy picked in the dialog
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (as_qt_returns(
        os.fsdecode(kept)), "JSON files (*.json)")))
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as opened:
        QTest.keyClick(window, Qt.Key.Key_D, CTRL_SHIFT)
    win = opened.args[0]
    qtbot.addWidget(win)
    assert "caf\\xe9.payload.json ↔ caf\\xe9.payload.edited.json" in win.windowTitle()
    with qtbot.waitSignal(win.ready, timeout=30000):
        pass
    win.close()


def test_resolve_new_path_keeps_the_folder_and_the_suggested_name(latin1):
    suggested = os.path.join(latin1, os.fsdecode(b"caf\xe9.x.json"))
    shown = as_qt_returns(suggested)
    assert resolve_new_path(shown, suggested) == suggested  # kept as suggested
    assert resolve_new_path(os.path.join(os.path.dirname(shown), "new.json"), suggested) == \
        os.path.join(latin1, "new.json")  # typed: the folder's bytes kept
    assert resolve_new_path(os.path.join(os.path.dirname(shown), "n\\xe9.json"), suggested) == \
        os.path.join(latin1, os.fsdecode(b"n\xe9.json"))  # typed as the window shows bytes
    plain = os.path.join(os.path.dirname(latin1), "plain.json")
    assert resolve_new_path(plain, None) == plain


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
