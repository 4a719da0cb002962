"""Background jobs: a function run on the thread pool, reporting back through queued signals.

A :class:`Job` wraps ``fn(ctx)``; ``ctx`` offers ``progress(percent, text)``,
``partial(obj)`` and ``cancelled()`` as plain callables, so the job functions in
:mod:`.engine` stay Qt-free. Signals are delivered on the GUI thread (queued connections).
Each job has a generation number; the window ignores results of superseded jobs.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from .engine import Cancelled, UserError

__all__ = ["Job", "JobSignals", "start_job"]

log = logging.getLogger(__name__)


class JobSignals(QObject):
    """Signals of one :class:`Job` (emitted from the worker thread, received on the GUI thread)."""

    progress = Signal(int, str)
    partial = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()


class JobContext:
    """What a job function may call: ``progress``, ``partial``, ``cancelled``."""

    def __init__(self, signals: JobSignals, event: threading.Event):
        self._signals = signals
        self._event = event

    def progress(self, percent: int, text: str) -> None:
        self._signals.progress.emit(int(percent), text)

    def partial(self, obj) -> None:
        self._signals.partial.emit(obj)

    def cancelled(self) -> bool:
        return self._event.is_set()


class Job(QRunnable):
    """Runs ``fn(ctx)`` on a pool thread; exactly one of finished/failed/cancelled is emitted.

    ``failed`` carries one sentence for the user; unexpected exceptions are reported by type
    and message only (never a traceback, never file content) and logged at debug level.
    """

    def __init__(self, fn, generation: int = 0):
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.generation = generation
        self.signals = JobSignals()
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop (it checks between steps; child processes are terminated)."""
        self._event.set()

    @property
    def is_cancelled(self) -> bool:
        return self._event.is_set()

    def run(self) -> None:  # noqa: D401 (Qt override)
        ctx = JobContext(self.signals, self._event)
        try:
            result = self.fn(ctx)
        except Cancelled:
            self.signals.cancelled.emit()
            return
        except InterruptedError:
            self.signals.cancelled.emit()
            return
        except UserError as e:
            self.signals.failed.emit(str(e))
            return
        except MemoryError:
            self.signals.failed.emit("Not enough memory to load these files.")
            return
        except Exception as e:  # noqa: BLE001 - shown to the user as one line
            log.debug("job failed", exc_info=True)
            self.signals.failed.emit(f"Internal error ({type(e).__name__}): {e}")
            return
        if self._event.is_set():
            self.signals.cancelled.emit()
        else:
            self.signals.finished.emit(result)


def start_job(job: Job, pool: QThreadPool | None = None) -> Job:
    """Start ``job`` on ``pool`` (the global pool by default) and return it."""
    (pool or QThreadPool.globalInstance()).start(job)
    return job
