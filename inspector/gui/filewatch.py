"""``FileWatch``: the open files watched for changes on disk, with no file-system call on the GUI thread.

``QFileSystemWatcher.addPath`` looks the path up (``inotify_add_watch`` on Linux, ``stat`` elsewhere), and a
path on a share that stopped answering blocks in that call for as long as the share does (20 s a ``stat`` on
a dead NFS mount). So the watcher lives on a thread of its own (a ``QThread`` with its own event loop: the
watcher's notifications need one), the GUI thread only sends it the paths to watch (queued signals, which never
wait), and it reports back the paths it watches and each change. A path that is not a regular file when the
thread looks (``_stat``) is not watched. The thread stops when its owner is destroyed or the application quits;
one still blocked on a dead share is left to the operating system (it holds no data of the user's).
"""

from __future__ import annotations

import atexit
import os
import stat

import shiboken6
from PySide6.QtCore import QCoreApplication, QFileSystemWatcher, QMetaObject, QObject, Qt, QThread, Signal, Slot

from .qtcompat import emit

__all__ = ["FileWatch"]

#: The ``stat`` the watch thread checks a path with before watching it (tests stand in a share that does not
#: answer here).
_stat = os.stat
#: Every watch thread with its watcher half: kept referenced for the life of the
#: application (a QThread destroyed while it runs aborts the process; a few small objects per window).
_LIVE: dict = {}
#: Watch threads already asked to stop.
_ASKED: set = set()


class _Watcher(QObject):
    """The half that lives on the watch thread: owns the ``QFileSystemWatcher``."""

    changed = Signal(str)
    watching = Signal(list)

    def __init__(self):
        super().__init__()
        self.watcher: QFileSystemWatcher | None = None

    def _ensure(self) -> QFileSystemWatcher:
        if self.watcher is None:  # (made on the watch thread, so its notifications arrive there)
            self.watcher = QFileSystemWatcher(self)
            self.watcher.fileChanged.connect(self.changed)
        return self.watcher

    @Slot()
    def shut(self) -> None:
        """Drop the watcher (on this thread, where it was made) and end this thread's event loop."""
        if self.watcher is not None:
            shiboken6.delete(self.watcher)
            self.watcher = None
        QThread.currentThread().quit()

    @Slot(list, bool)
    def set_paths(self, paths: list, replace: bool) -> None:
        w = self._ensure()
        if replace and w.files():
            w.removePaths(w.files())
        for p in paths:
            try:
                regular = stat.S_ISREG(_stat(p).st_mode)
            except (OSError, ValueError):
                regular = False
            if regular and p not in w.files():
                w.addPath(p)
        emit(self.watching, list(w.files()))


class FileWatch(QObject):
    """Watches files for changes on a thread of its own (see the module's text).

    Signals:
        fileChanged(str): a watched file changed (or was removed or replaced).
        watching(list): the paths now watched, after each :meth:`watch` or :meth:`add` was carried out.
    """

    fileChanged = Signal(str)
    watching = Signal(list)
    _send = Signal(list, bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._files: list[str] = []
        self._thread = QThread()
        self._thread.setObjectName("file watch")
        self._worker = _Watcher()
        self._worker.moveToThread(self._thread)
        self._send.connect(self._worker.set_paths)
        self._worker.changed.connect(self.fileChanged)
        self._worker.watching.connect(self._watching)
        self._thread.start()
        _LIVE[self._thread] = self._worker
        thread = self._thread
        self.destroyed.connect(lambda *_: _end(thread))
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def files(self) -> list[str]:
        """The paths the watch thread last said it watches (no file-system call)."""
        return list(self._files)

    def watch(self, paths: list[str]) -> None:
        """Watch ``paths`` and only them (the thread drops the others; what is not a regular file is skipped)."""
        emit(self._send, [os.fspath(p) for p in paths], True)

    def add(self, path: str) -> None:
        """Watch ``path`` too (an editor that saves by renaming drops the watch on the old file)."""
        emit(self._send, [os.fspath(path)], False)

    def stop(self, wait_ms: int = 2000) -> None:
        """Stop the watch thread, waiting at most ``wait_ms`` milliseconds for it (one blocked on a dead share
        is kept until it finishes)."""
        _end(self._thread, wait_ms)

    def _watching(self, files: list) -> None:
        self._files = list(files)
        emit(self.watching, list(files))


def _end(thread: QThread, wait_ms: int = 0) -> None:
    """Ask the watch ``thread`` to drop its watcher and stop, waiting at most ``wait_ms`` milliseconds; the
    thread and its watcher stay referenced (:data:`_LIVE`)."""
    if not shiboken6.isValid(thread):  # Qt deleted it already (a window taken apart at interpreter exit)
        return
    worker = _LIVE.get(thread)
    if worker is not None and thread.isRunning() and thread not in _ASKED:
        _ASKED.add(thread)
        # (queued: carried out on the watch thread, after the paths sent before it)
        QMetaObject.invokeMethod(worker, "shut", Qt.ConnectionType.QueuedConnection)
    if wait_ms:
        thread.wait(wait_ms)


@atexit.register
def _stop_all() -> None:
    """At exit, every watch thread is stopped before Python takes the objects apart (a QThread destroyed while
    it runs aborts the process); one still blocked on a dead share after 2 s is terminated."""
    for thread in list(_LIVE):
        _end(thread, 2000)
        if shiboken6.isValid(thread) and thread.isRunning():
            thread.terminate()
            thread.wait(500)
