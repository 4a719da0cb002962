"""Background jobs: a function run on the thread pool, reporting back through queued signals.

A :class:`Job` wraps ``fn(ctx)``; ``ctx`` offers ``progress(percent, text)``,
``partial(obj)`` and ``cancelled()`` as plain callables, so the job functions in
:mod:`.engine` stay Qt-free. Signals are delivered on the GUI thread (queued connections).
Each job has a generation number; the window ignores results of superseded jobs.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
import threading
import traceback

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from inspector.checkpoint.diagnostic import InspectorError
from inspector.session.engine import Cancelled
from .qtcompat import emit

__all__ = ["Job", "JobRunner", "JobSignals", "start_job", "internal_error_text"]

log = logging.getLogger(__name__)


#: How often (seconds) a thread holding the GIL is asked to hand it over. Python's 5 ms default
#: is paid by the GUI thread at *each* call from Qt into Python (every model ``data()`` while
#: painting) whenever a job runs Python code: dozens of such calls per repaint made the window
#: stall for 100-300 ms during a search or an index build. 1 ms kept each handover short, but the
#: window's first paint (hundreds of such calls) beside a document parsed on a thread still stalled
#: 145-220 ms; 0.2 ms brings it to 40-55 ms (``benchmarks/bench_gui_stalls.py``).
#: Still needed for those jobs (searches, index builds, small documents verified on a thread).
#: It costs the engine nothing measurable in-process (benchmarks/README.md: the same
#: verify time at 1 ms and 5 ms, with the GUI thread idle or busy), and the verification of a
#: large payload runs in a worker process (:mod:`.workers`), which never imports this module:
#: neither this setting nor :func:`gc_paused` applies there (``verify`` pauses the collector itself).
SWITCH_INTERVAL = 0.0002
sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))

_gc_lock = threading.Lock()
_gc_users = 0


@contextlib.contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector while a job runs (re-entrant across threads).

    A job that builds many objects (the span index of a document nested 100,000 levels deep,
    a search's path stack) triggers full collections; each one holds the GIL for 100 ms and
    more, and so freezes the GUI thread. Reference counting still frees what the job drops;
    the collector resumes when the last job ends.
    """
    global _gc_users
    with _gc_lock:
        _gc_users += 1
        if _gc_users == 1:
            was = gc.isenabled()
            gc.disable()
            _gc_state[0] = was
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_state[0]:
                gc.enable()


_gc_state = [True]


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
        # A file name that is not UTF-8 reaches Qt as \xNN (Qt would drop its lone surrogates).
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        emit(self._signals.progress, int(percent), shown)

    def partial(self, obj) -> None:
        emit(self._signals.partial, obj)

    def cancelled(self) -> bool:
        return self._event.is_set()


class Job(QRunnable):
    """Runs ``fn(ctx)`` on a pool thread; exactly one of finished/failed/cancelled is emitted.

    ``failed`` carries one sentence for the user; unexpected exceptions are reported by their
    type and the job's ``name`` only: an exception's text can quote the payload (a key, a decoded
    snippet), so it is neither shown nor logged (the debug log gets the type and the stack frames).
    """

    def __init__(self, fn, generation: int = 0, name: str = "background job"):
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.name = name
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
            with gc_paused():
                result = self.fn(ctx)
        except Cancelled:
            emit(self.signals.cancelled)
            return
        except InterruptedError:
            emit(self.signals.cancelled)
            return
        except InspectorError as e:  # (an unreadable file, a bad pairing, a source that cannot be listed...)
            emit(self.signals.failed, e.diagnostics())
            return
        except MemoryError:
            emit(self.signals.failed, "Not enough memory to load these files.")
            return
        except Exception as e:  # noqa: BLE001 - shown to the user as one line
            kind = getattr(e, "error_type", None) or type(e).__name__
            log.debug("job %s failed: %s\n%s", self.name, kind, "".join(traceback.format_tb(e.__traceback__)))
            emit(self.signals.failed, internal_error_text(kind, self.name))
            return
        if self._event.is_set():
            emit(self.signals.cancelled)
        else:
            emit(self.signals.finished, result)


def internal_error_text(kind: str, where: str) -> str:
    """The user's sentence for an unexpected exception: its type and where, never its text."""
    return (f"Internal error ({kind}) while {where}. This is a bug in the inspector; please report it with "
            "the error type and what you did. The details are not shown because they may quote the "
            "checkpoint's content.")


def start_job(job: Job, pool: QThreadPool | None = None) -> Job:
    """Start ``job`` on ``pool`` (the global pool by default) and return it."""
    (pool or QThreadPool.globalInstance()).start(job)
    return job


class JobRunner:
    """The running jobs of one window, in lanes: a new job supersedes the previous one of its lane.

    Lanes: ``document`` (loads and edit recomputes: each replaces what the window shows),
    ``folder`` (folder scans), ``find`` (searches). Results of a superseded job are ignored by
    the callers, which check :meth:`current` in their slots.
    """

    def __init__(self):
        self.generation = 0
        self.latest: dict[str, Job] = {}
        self.running: set[Job] = set()

    def new(self, fn, name: str = "background job", lane: str = "document") -> Job:
        """A job (not yet started) that supersedes the previous one of ``lane``."""
        self.generation += 1
        job = Job(fn, self.generation, name)
        job.lane = lane
        self.latest[lane] = job
        self.running.add(job)
        job.signals.finished.connect(lambda *_: self.running.discard(job))
        job.signals.failed.connect(lambda *_: self.running.discard(job))
        job.signals.cancelled.connect(lambda *_: self.running.discard(job))
        return job

    def current(self, job: Job) -> bool:
        """True while ``job`` is the newest of its lane."""
        return self.latest.get(job.lane) is job

    def lane_generation(self, lane: str = "document") -> int:
        """Generation of the newest job of ``lane`` (0 before any)."""
        job = self.latest.get(lane)
        return job.generation if job is not None else 0

    def cancel(self, job: Job | None) -> bool:
        """Cancel ``job`` if it is still running; True if it was."""
        if job is not None and job in self.running:
            job.cancel()
            return True
        return False
