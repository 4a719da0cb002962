"""Opening files and what the verdict bar says about it (inspector/gui/controllers/loading.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import os
import shutil
import sys
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait
pytest.importorskip("PySide6")
from .conftest import SAMPLES  # noqa: E402


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


VERIFIED = "VERIFIED: the reference accepts this checkpoint"


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
