"""Drops of every shape, invisible characters and file names that are not UTF-8."""

import os
import shutil
import sys

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.session.drops import path_from_uri, paths_from_text  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def _send_drop(window, md):
    """Deliver a drag-enter and a drop to the window, as Qt's drag and drop does."""
    pos = QPoint(40, 40).toPointF()
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


def test_drop_of_file_localhost_uris(qtbot, window):
    md = QMimeData()
    md.setUrls([QUrl("file://localhost" + str(GOLDEN_P)), QUrl("file://localhost" + str(GOLDEN_D))])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)
    assert window.report.verified
    assert (window.payload.path, window.descriptor.path) == (str(GOLDEN_P), str(GOLDEN_D))


def test_drop_of_text_plain_paths_and_uris(qtbot, window):
    md = QMimeData()
    md.setText(f"{GOLDEN_P}\r\nfile://{GOLDEN_D}\n")
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)
    assert window.report.verified


def test_a_mix_of_local_and_remote_opens_the_local_and_says_why_for_the_rest(qtbot, window):
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(GOLDEN_P)), QUrl("https://example.com/run.descriptor.json"),
                QUrl.fromLocalFile(str(GOLDEN_D))])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)
    assert window.report.verified
    assert window.banner_text("drop") == ("Not opened: https://example.com/run.descriptor.json is not a file on "
                                          "this computer (https URL); download it first.")


def test_a_drop_of_only_remote_urls_says_why(qtbot, window):
    md = QMimeData()
    md.setUrls([QUrl("https://example.com/a.json"), QUrl("file://fileserver/share/b.json")])
    with qtbot.waitSignal(window.loadFailed, timeout=5000):
        _send_drop(window, md)
    assert window.banner_text("error") == (
        "Nothing was opened: https://example.com/a.json is not a file on this computer (https URL); download it "
        "first; file://fileserver/share/b.json is on another computer (fileserver); copy it here first.")


def test_uri_and_text_parsing():
    assert path_from_uri("file:///tmp/a%20b.json") == ("/tmp/a b.json", None)
    assert path_from_uri("file://localhost/tmp/x.json") == ("/tmp/x.json", None)
    assert path_from_uri("file:///tmp/caf%E9.json")[0] == os.fsdecode(b"/tmp/caf\xe9.json")
    assert paths_from_text("  '/tmp/q.json'  \nnotes.txt\n") == (["/tmp/q.json"], ["“notes.txt” is not a file path"])


def test_invisible_characters_are_shown_in_the_tree_and_its_tooltip(qtbot, window, tmp_path):
    g = GOLDEN_P.read_bytes()
    edited = g.replace(b'"name":"checkpoint fixture"', '"name":"line\u2028sep\\u0007bell\\ttab"'.encode())
    assert edited != g
    p = tmp_path / "invisible.payload.json"
    p.write_bytes(edited)
    open_and_wait(qtbot, window, [p, GOLDEN_D])
    idx = window.snap_model.index_for_pointer("/snapshot/session/config/name")
    shown = window.snap_model.data(idx.siblingAtColumn(1))
    # (escapes: control pictures only where the fonts draw them, tests/session/test_visible.py)
    assert shown == "“line\\u2028sep\\x07bell\\ttab”"
    assert "line\\u2028sep\\x07bell\\ttab" in window.snap_model.data(idx, Qt.ItemDataRole.ToolTipRole)
    # the copied value is the exact text, not the visible form
    assert window.snap_model.data(idx, 0x0100 + 6) == "line\u2028sep\u0007bell\ttab"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
def test_a_file_name_that_is_not_utf8_opens_and_is_shown_with_an_escape(qtbot, window, tmp_path):
    name = os.fsdecode(b"caf\xe9.payload.json")
    p = os.path.join(os.fsdecode(bytes(tmp_path)) if isinstance(tmp_path, bytes) else str(tmp_path), name)
    shutil.copyfile(GOLDEN_P, p)
    d = tmp_path / "descriptor.json"
    shutil.copyfile(GOLDEN_D, d)
    md = QMimeData()
    md.setUrls([QUrl.fromEncoded(b"file://" + os.fsencode(p).replace(b"\xe9", b"%E9")),
                QUrl.fromLocalFile(str(d))])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)
    assert window.report.verified
    assert window.payload.path == p
    assert window.windowTitle() == "caf\\xe9.payload.json + descriptor.json — Checkpoint Inspector"
    assert "payload caf\\xe9.payload.json (2,090 bytes)" in window.header.subtitle.text()
    assert window.snap_pane.caption.text().startswith("<b>Snapshot</b> — caf\\xe9.payload.json")
    # remembered exactly, shown escaped
    assert window.recent()[0] == [p, str(d)]
    assert window.recent_menu.actions()[0].text() == "&1 caf\\xe9.payload.json + descriptor.json"
    window.save_settings()
    from inspector.session.recent import RecentFiles
    assert RecentFiles(window.settings).items()[0] == [p, str(d)]
