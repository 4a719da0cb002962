"""The last defects of the newcomer trial (issue 9, brief "leftovers"), each driven by real input:
a failed open's message said once, Esc acting on what has focus, the digests header at 1024x700,
the Resume dock with one lane."""

import os
import shutil
import sys

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

LONG_DIR = "a-rather-long-folder-name-from-the-trial/another-long-sub-folder-name-for-the-checkpoints"
NAME = b"checkpoint-2026-11-30-session-caf\xe9-abcdef0123456789.payload.json"


def _labels_saying(window, text):
    """Every visible label of the window whose text contains ``text``."""
    return [lab for lab in window.findChildren(QLabel) if lab.isVisibleTo(window) and text in lab.text()]


def _reopen_recent(qtbot, w):
    menu = w.recent_menu
    menu.popup(w.mapToGlobal(w.rect().center()))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    with qtbot.waitSignal(w.loadFailed, timeout=10000):
        QTest.keyClick(menu, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: w._banners["error"].label.isVisibleTo(w), timeout=2000)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
def test_a_failed_open_says_its_long_message_once_in_full_with_the_path_escaped(qtbot, window, tmp_path, settings):
    folder = tmp_path / LONG_DIR
    folder.mkdir(parents=True)
    p = os.path.join(str(folder), os.fsdecode(NAME))
    shutil.copyfile(GOLDEN_P, p)
    open_and_wait(qtbot, window, [p, GOLDEN_D])
    os.remove(p)  # deleted after it was opened: File ▸ Open Recent ▸ 1 fails
    shown = f"{folder}/checkpoint-2026-11-30-session-caf\\xe9-abcdef0123456789.payload.json"
    _reopen_recent(qtbot, window)
    # something stays open: one message, in the banner, in full; the verdict bar keeps the verdict
    assert window.banner_text("error") == f"{shown}: no such file. Still showing the checkpoint below."
    assert _labels_saying(window, "no such file") == [window._banners["error"].label]
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    what = "checkpoint-2026-11-30-session-caf\\xe9-abcdef0123456789.payload.json + descriptor-with-resume.json"
    assert window.status_label.toolTip() == (
        f"Could not open {what}; still showing: VERIFIED: the reference accepts this checkpoint")

    # nothing open (a new window, the same recent entry): the banner says why, the verdict bar what
    window.save_settings()
    from inspector.gui.window import MainWindow

    w2 = MainWindow(settings=QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(w2)
    w2.resize(1024, 700)
    w2.show()
    _reopen_recent(qtbot, w2)
    assert w2.banner_text("error") == f"{shown}: no such file"
    assert _labels_saying(w2, "no such file") == [w2._banners["error"].label]
    assert w2.header.title.text() == f"Nothing open — {what} could not be opened"
    assert w2.header.subtitle.text() == (
        "Use File ▸ Open, File ▸ Open Sample, or drop a payload and its descriptor here.")
    # in full: the banner wraps (no elision) and fits the 1024 px window
    label = w2._banners["error"].label
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()), timeout=2000)
    assert label.wordWrap() and "…" not in label.text()
    assert label.geometry().right() < w2.width()
