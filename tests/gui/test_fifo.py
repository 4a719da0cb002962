"""A FIFO opened with a file never freezes the window (inspector/session/routing.py, checkpoint/safeopen.py).

A FIFO nobody writes to blocks ``open()`` for good. Dropped onto the window with a payload, given on the command
line, or handed over by a second instance, it is left out with its reason ("... is a FIFO (named pipe), not a
file") while the payload opens; the event loop keeps turning meanwhile (a timer keeps firing).

If the GUI thread ever blocked in ``open()`` on the FIFO, no test could wake it: a rescuer thread opens the FIFO
for writing after a while (which lets a blocked ``open()`` return) and records that it had to, and the test fails
on that record instead of hanging."""

import os
import subprocess
import sys
import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QMimeData, QTimer, QUrl  # noqa: E402

from inspector.gui import single_instance as si  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, SAMPLES, copies  # noqa: E402,F401
from .test_inputs import _send_drop  # noqa: E402
from .test_single_instance import _client_send, name  # noqa: E402,F401

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


class _Rescuer:
    """After ``after`` seconds, keeps opening ``path`` for writing (non-blocking: it succeeds only while a reader
    waits in ``open()``), so a reader stuck on the FIFO is let go; :attr:`rescued` says whether one was."""

    def __init__(self, path: str, after: float = 8.0):
        self.path, self.after = path, after
        self.rescued = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        if self._stop.wait(self.after):
            return
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader waiting (as it should be)
                self._stop.wait(0.05)
                continue
            self.rescued = True
            os.close(fd)

    def stop(self):
        self._stop.set()
        self._thread.join(5)


@pytest.fixture
def fifo(tmp_path):
    """A FIFO nobody writes to, beside a copy of the golden payload: ``(payload, fifo)`` as ``str``."""
    payload = tmp_path / "run.payload.json"
    payload.write_bytes(GOLDEN_P.read_bytes())
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    rescuer = _Rescuer(str(path))
    yield str(payload), str(path)
    rescuer.stop()
    assert not rescuer.rescued, "a reader blocked in open() on the FIFO (the window froze)"


class _Ticks:
    """A timer on the GUI thread counting its turns: it fires only while the event loop runs."""

    def __init__(self):
        self.count = 0
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self):
        self.count += 1


def _said(fifo_path: str) -> str:
    return f"Not opened: {fifo_path}: is a FIFO (named pipe), not a file."


def test_a_drop_of_a_payload_and_a_fifo_opens_the_payload_and_names_the_fifo(qtbot, window, fifo):
    payload, pipe = fifo
    ticks = _Ticks()
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(payload), QUrl.fromLocalFile(pipe)])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)  # (returns: the drop handler touched no file)
        before = ticks.count
        qtbot.waitUntil(lambda: window.banner_text("drop") == _said(pipe), timeout=10000)
    assert ticks.count > before  # the event loop turned while the files were looked at and read
    assert window.banner_text("drop") == _said(pipe)
    assert window.payload.path == payload and window.descriptor is None
    assert window.doc.paths == [payload]
    assert window.banner_text("error") is None
    ticks.timer.stop()


def test_a_drop_of_a_fifo_first_and_a_descriptor_opens_the_descriptor_as_if_alone(qtbot, window, fifo):
    """The descriptor opens as one given alone: with the payload found beside it."""
    _payload, pipe = fifo
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(pipe), QUrl.fromLocalFile(str(GOLDEN_D))])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _send_drop(window, md)
    assert window.banner_text("drop") == _said(pipe)
    assert (window.payload.path, window.descriptor.path) == (str(GOLDEN_P), str(GOLDEN_D))
    assert window.report.verified


def test_a_drop_of_a_fifo_alone_says_what_it_is(qtbot, window, fifo):
    _payload, pipe = fifo
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(pipe)])
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        _send_drop(window, md)
    assert window.banner_text("error") == f"{pipe}: is a FIFO (named pipe), not a file"
    assert window.status_label.text() == "Nothing open: pipe.json could not be opened"


def test_two_payloads_and_a_fifo_still_open_the_comparison(qtbot, window, fifo):
    payload, pipe = fifo
    broken = str(SAMPLES / "broken.payload.json")
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(payload), QUrl.fromLocalFile(pipe), QUrl.fromLocalFile(broken)])
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as sig:
        _send_drop(window, md)
    win = sig.args[0]
    qtbot.addWidget(win)
    if win.job is not None:
        with qtbot.waitSignal(win.ready, timeout=30000):
            pass
    assert window.banner_text("drop") == _said(pipe)


def test_a_payload_and_a_fifo_handed_over_by_a_second_instance(qtbot, window, name, fifo):  # noqa: F811
    payload, pipe = fifo
    server = si.InstanceServer(name, window)
    assert server.listen()
    collector = si.PathCollector(window.open_paths, window)
    server.pathsReceived.connect(collector.add)
    ticks = _Ticks()
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        assert _client_send(qtbot, name, si.encode_request([payload, pipe])) == b"OK\n"
        before = ticks.count
        qtbot.waitUntil(lambda: window.banner_text("drop") == _said(pipe), timeout=10000)
    assert ticks.count > before
    assert window.payload.path == payload and window.doc.paths == [payload]
    ticks.timer.stop()
    server.close()


_LAUNCH = r"""
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from inspector import entry
from inspector.gui import window as gui_window

class Watched(gui_window.MainWindow):
    # the window of the real start, watched from its own event loop: once the payload is shown, print what
    # the window says and quit (the timer's turns count the event loop's)
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.turns = 0
        self.poll = QTimer(self, interval=20)
        self.poll.timeout.connect(self.look)
        self.poll.start()

    def look(self):
        self.turns += 1
        if self.report is not None and self.banner_text("drop"):
            print(repr((self.banner_text("drop"), self.payload.path, self.turns > 1)))
            QApplication.quit()

gui_window.MainWindow = Watched  # (gui.app imports the window when it shows one)
sys.exit(entry.main(sys.argv[1:]))
"""


def test_a_payload_and_a_fifo_on_the_command_line(tmp_path, fifo):
    payload, pipe = fifo
    env = {k: v for k, v in os.environ.items() if k not in (si.ENV_INSTANCE,)}
    home = tmp_path / "home"
    home.mkdir()
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), HOME=str(home), XDG_CONFIG_HOME=str(home),
               **{si.ENV_NEW_WINDOW: "1"})
    r = subprocess.run([sys.executable, "-c", _LAUNCH, payload, pipe], env=env, capture_output=True, timeout=90,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().strip() == repr((_said(pipe), payload, True))
