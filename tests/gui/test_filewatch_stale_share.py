"""Never freeze on a slow or dead share: the stale-file check that runs each time the user
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


def test_files_on_a_share_that_does_not_answer_open_and_are_watched_off_the_gui_thread(qtbot, window, copies,
                                                                                    monkeypatch):
    """Watching the opened files looks them up (``QFileSystemWatcher.addPath``, a ``stat`` or
    ``inotify_add_watch``): that happens on the watch thread, so a share that does not answer there delays only
    the watch, never the window; the files are watched once it answers."""
    import inspector.gui.filewatch as filewatch

    p, d = copies(GOLDEN_P, GOLDEN_D)
    answer, on_gui_thread = threading.Event(), []

    def dead_share_stat(path):
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        answer.wait(30)
        return os.stat(path)

    monkeypatch.setattr(filewatch, "_stat", dead_share_stat)
    open_and_wait(qtbot, window, [p, d])  # (the verdicts are shown while the watch thread waits)
    assert window.report.verified
    assert window.doc.watcher.files() == [] and on_gui_thread == [False]
    answer.set()
    qtbot.waitUntil(lambda: sorted(window.doc.watcher.files()) == sorted([str(p), str(d)]), timeout=5000)
    assert on_gui_thread == [False, False]
    p.write_bytes(p.read_bytes() + b" ")  # a change of a watched file is noticed (the watch works on its thread)
    qtbot.waitUntil(lambda: window.banner_text("stale") is not None, timeout=5000)
    assert window.banner_text("stale").startswith(f"STALE — {p.name} changed on disk")


def test_waiting_names_the_files_the_check_waits_for_not_files_opened_since(qtbot, window, copies, monkeypatch,
                                                                            tmp_path):
    """A stale check that waits for a share is about the files it was asked for: when other files are opened
    meanwhile, the window does not say it waits for the folder of the new ones."""
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    answer = threading.Event()
    monkeypatch.setattr(document, "_stat", lambda path: (answer.wait(30), os.stat(path))[1])
    monkeypatch.setattr(document, "STALE_WAIT_MS", 400)
    QCoreApplication.sendEvent(window, QEvent(QEvent.Type.WindowActivate))  # a check of p and d starts, and waits
    monkeypatch.setattr(document, "_stat", os.stat)
    other = tmp_path / "elsewhere"
    other.mkdir()
    lone = other / "lone.payload.json"
    lone.write_bytes(p.read_bytes())
    open_and_wait(qtbot, window, [lone])  # another checkpoint, opened while the check of p and d waits
    QTest.qWait(700)
    assert window.banner_text("waiting") is None
    answer.set()


def test_a_watch_left_to_interpreter_exit_stops_without_a_traceback(tmp_path):
    """A window (here a bare widget) holding a file watch, left for Python to take apart at exit: the watch
    thread is stopped at exit, and the watch's own ``destroyed`` afterwards finds its thread deleted by Qt
    already and does nothing (it raised "Internal C++ object (PySide6.QtCore.QThread) already deleted")."""
    import subprocess
    import sys

    watched = tmp_path / "watched.json"
    watched.write_bytes(b"{}")
    script = (
        "import os\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6.QtWidgets import QApplication, QWidget\n"
        "from inspector.gui.filewatch import FileWatch\n"
        "app = QApplication([])\n"
        "w = QWidget()\n"
        "fw = FileWatch(w)\n"
        f"fw.watch([{str(watched)!r}])\n"
        "app.processEvents()\n"
        "print('watching')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "watching\n", "")
