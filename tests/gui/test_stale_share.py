"""Never freeze on a slow or dead share (issue 33 item 3): the stale-file check that runs each time the user
returns to the window stats the files on a thread of its own. A share whose ``stat`` does not answer (here a
``stat`` that waits on an event, as a dead NFS or SMB mount does) freezes nothing: the window goes on, says
after a while that it is waiting, with Stop waiting, and asks no second ``stat`` while the first waits."""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest

import inspector.gui.document as document
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait, stale_now


def test_a_share_that_does_not_answer_freezes_nothing(qtbot, window, copies, monkeypatch):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    answer, asked = threading.Event(), []

    def dead_share_stat(path):
        asked.append(path)
        answer.wait(30)
        return os.stat(path)

    monkeypatch.setattr(document, "_stat", dead_share_stat)
    monkeypatch.setattr(document, "STALE_WAIT_MS", 200)
    # the user comes back to the window: the check starts, and the event loop goes on at once
    QCoreApplication.sendEvent(window, QEvent(QEvent.Type.WindowActivate))
    ticks = []
    window.startTimer(10)
    window.timerEvent = lambda _e: ticks.append(1)
    qtbot.waitUntil(lambda: window.banner_text("waiting") is not None, timeout=5000)
    assert len(ticks) >= 5  # timers fired while the stat waited
    assert window.banner_text("waiting") == (
        f"Waiting for the folder of {p.name}, {d.name} to answer (checking whether the files changed on disk); "
        "the window goes on meanwhile.")
    # returning again while it waits asks nothing more of the share
    QCoreApplication.sendEvent(window, QEvent(QEvent.Type.WindowActivate))
    QTest.qWait(100)
    assert asked == [str(p)]
    button = window._banners["waiting"].buttons["Stop waiting"]
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.banner_text("waiting") is None
    # the share answers at last: the given-up answer is dropped, the check asked meanwhile is made
    p.write_bytes(p.read_bytes() + b" ")
    with qtbot.waitSignal(window.doc.staleChecked, timeout=5000) as answered:
        answer.set()
    assert answered.args == [True] and "changed on disk" in window.banner_text("stale")
    monkeypatch.setattr(document, "_stat", os.stat)
    assert stale_now(qtbot, window) is True
