"""File ▸ Open URL…: a checkpoint on an HTTP server the test starts on loopback, opened by
the keys a user presses. The window reads it off the GUI thread into a private local copy (through the source
seam: fsspec) and verifies that copy; a URL that cannot be read is refused with its reason."""

from __future__ import annotations

import os
import stat

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from inspector.checkpoint.sdk_export import wrap
from inspector.session import routing
from tests.conftest import GOLDEN
from tests.servers import http_folder, silent_server

pytest.importorskip("fsspec", reason="URLs need fsspec (the sources extra)")
pytest.importorskip("aiohttp", reason="http(s):// needs aiohttp (the sources extra)")


def _type_url(qtbot, window, url: str) -> None:
    QTest.keyClick(window, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: getattr(window, "open_url_widget", None) is not None
                    and window.open_url_widget.isVisible(), timeout=5000)
    edit = window.open_url_widget.findChild(QLineEdit)
    QTest.keyClicks(edit, url)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def test_open_url_reads_a_copy_off_the_gui_thread_and_verifies_it(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(routing.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    served = tmp_path / "served"
    served.mkdir()
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    (served / "golden.export.json").write_bytes(wrap(payload, (GOLDEN / "descriptor-with-resume.json").read_bytes()))
    with http_folder(served) as base:
        url = base + "/golden.export.json"
        with qtbot.waitSignal(window.analysisReady, timeout=30000):
            _type_url(qtbot, window, url + "?X-Amz-Signature=secret")
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    copy = window.paths[0]
    assert os.path.basename(copy) == "golden.export.json" and copy.startswith(str(tmp_path / "tmp"))
    assert stat.S_IMODE(os.stat(copy).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(copy)).st_mode) == 0o700
    said = window.banner_text("url")
    assert said == (f"{url} was read into a copy on this machine: {copy}. Its verdict is the copy's: the bytes "
                    "as read.")
    assert "secret" not in said and "secret" not in copy  # the query (where signatures live) is never shown


def test_open_url_of_a_lone_payload_pairs_it_with_the_descriptor_beside_it_on_the_server(qtbot, window, tmp_path,
                                                                                        monkeypatch):
    """As File ▸ Open of a lone payload pairs it with the descriptor beside it: the descriptor of the same name
    stem on the server (its content_digest the payload's SHA-256) is read too, and the pair verifies; another
    file of that stem that is no descriptor is passed over."""
    monkeypatch.setattr(routing.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    served = tmp_path / "served"
    served.mkdir()
    (served / "p2a.payload.json").write_bytes((GOLDEN / "payload-with-resume.json").read_bytes())
    (served / "p2a.descriptor.json").write_bytes((GOLDEN / "descriptor-with-resume.json").read_bytes())
    (served / "p2a.json").write_bytes(b"notes")
    with http_folder(served) as base:
        with qtbot.waitSignal(window.analysisReady, timeout=30000):
            _type_url(qtbot, window, base + "/p2a.payload.json?sig=secret")
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    assert [os.path.basename(p) for p in window.paths] == ["p2a.payload.json", "p2a.descriptor.json"]
    said = window.banner_text("url")
    assert f"the descriptor beside it, {base}/p2a.descriptor.json, was read too: " in said
    assert "secret" not in said


def test_a_url_that_cannot_be_read_is_refused_with_its_reason(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(routing.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    with http_folder(tmp_path) as base:
        pass  # stopped: nothing listens there now
    _type_url(qtbot, window, base + "/p.json")
    qtbot.waitUntil(lambda: window.banner_text("error") is not None, timeout=30000)
    assert f"{base}/p.json: cannot read (" in window.banner_text("error")
    assert not (tmp_path / "tmp").exists()


def test_a_url_whose_server_does_not_answer_says_it_waits_and_stop_waiting_gives_it_up(qtbot, window, tmp_path,
                                                                                      monkeypatch):
    """A server that accepts and never answers: after 2 s the window says it waits for it (the window goes on),
    with Stop waiting; clicking it gives the open up, and the answer (a timeout) is never shown."""
    monkeypatch.setattr(routing.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    monkeypatch.setenv("CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT", "3")
    with silent_server() as base:
        _type_url(qtbot, window, base + "/x.json?sig=secret")
        qtbot.waitUntil(lambda: window.banner_text("waiting-url") is not None, timeout=5000)
        assert window.banner_text("waiting-url") == (
            f"Waiting for {base}/x.json to answer (each try waits at most 3 s); the window goes on meanwhile.")
        QTest.mouseClick(window._banners["waiting-url"].buttons["Stop waiting"], Qt.MouseButton.LeftButton)
        assert window.banner_text("waiting-url") is None
        QTest.qWait(4500)  # (the read times out meanwhile: its refusal is not shown)
    assert window.banner_text("error") is None and window.banner_text("waiting-url") is None
    assert not (tmp_path / "tmp").exists()


@pytest.mark.parametrize("url, name", [
    ("https://h/exports/p.json?sig=x", "p.json"), ("https://h/exports/..", "download.json"),
    ("https://h/", "download.json"), ("https://h/a/.", "download.json"), ("https://h/a\\..\\b", "download.json")])
def test_a_copys_name_never_leaves_its_folder(url, name):
    from inspector.session.sources import shown_location

    assert routing.copy_name(shown_location(url)) == name
