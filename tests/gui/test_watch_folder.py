"""View ▸ Watch Folder (Ctrl+Shift+W): the Sessions view stays live while exports are written into the
folder; each new export is said, a failing one with its rule; the watch stops when asked, or when another
folder is opened. A real folder, real files, keys pressed as a user does."""

from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from tests.conftest import GOLDEN  # noqa: E402

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _banner(window, key="watch"):
    b = window._banners.get(key)
    return b.label.text() if b is not None else ""


def test_watching_a_folder_shows_new_exports_as_they_are_written(qtbot, window, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(GOLDEN / "payload-semantic-only.json", folder / "a.payload.json")
    with qtbot.waitSignal(window.folderScanned, timeout=60000):
        window.open_paths([str(folder)])
    window.watch.every_s, window.watch.settle_s = 0.2, 0.3
    window.activateWindow()
    window.findings_view.setFocus()
    QTest.keyClick(window.findings_view, Qt.Key.Key_W, CTRL_SHIFT)
    assert window.watch.watching and window.act_watch.isChecked()
    qtbot.waitUntil(lambda: _banner(window).startswith("Watching "), timeout=5000)

    # a writer's temporary file, renamed when whole: judged under its real name, with its descriptor
    (folder / "b.payload.json.part").write_bytes((GOLDEN / "payload-with-resume.json").read_bytes())
    os.rename(folder / "b.payload.json.part", folder / "b.payload.json")
    shutil.copy(GOLDEN / "descriptor-with-resume.json", folder / "b.descriptor.json")
    qtbot.waitUntil(lambda: "b.payload.json: VERIFIED" in _banner(window), timeout=20000)
    model = window.sessions_model
    session = model.index(0, 0)
    names = [model.index(r, 0, session).data() for r in range(model.rowCount(session))]
    assert names == ["1. a.payload.json", "2. b.payload.json"]
    assert ".part" not in _banner(window)

    # a damaged copy: announced with its rule
    data = bytearray((GOLDEN / "payload-with-resume.json").read_bytes())
    data[-3] ^= 1
    (folder / "c.payload.json").write_bytes(bytes(data))
    qtbot.waitUntil(lambda: "c.payload.json: NOT VERIFIED (" in _banner(window), timeout=20000)
    assert window._banners["watch"].kind == "error"

    QTest.keyClick(window.findings_view, Qt.Key.Key_W, CTRL_SHIFT)  # stop
    assert not window.watch.watching and not window.act_watch.isChecked()


def test_watch_folder_without_a_folder_says_what_to_do(qtbot, window):
    window.findings_view.setFocus()
    QTest.keyClick(window.findings_view, Qt.Key.Key_W, CTRL_SHIFT)
    assert not window.watch.watching and not window.act_watch.isChecked()
    assert window.statusBar().currentMessage() == "Open a folder first (File ▸ Open Folder…), then watch it."
