"""Worker processes of the window's engine adapter (no Qt): :class:`ChildTask`, the warm worker, and
the functions the children run (verify and index one payload file).

Why processes: a C call that holds the GIL (a parse of 256 MiB, a regular expression over a long
string) would block the GUI thread for as long as it runs (see :mod:`.engine`).

The warm worker: a spawned process pays for the interpreter's start and the engine's imports
(0.2-0.5 s, more on a busy machine) before it can read a byte. :func:`prewarm` starts one process
ahead of need, which imports the engine and then waits; the verifier of the next large open
(``ChildTask(..., warm=True)``) takes it and sends it its job, so the verification starts at once.
Each worker runs one job and exits (its gigabytes go back to the system); the next one is started
after the open has finished, never while it competes with the verification for the CPU.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass

from inspector import checkpoint
from inspector.checkpoint.verify import verify_indexed
from inspector.checkpoint.analysis.views import PackedViews
from inspector.checkpoint.safeopen import open_file

from inspector.session.filebytes import file_identity
from inspector.checkpoint.jsontext.fastindex import fast_index
from inspector.checkpoint.jsontext.lazyjson import ScanError

__all__ = ["ChildTask", "WorkerError", "DIGEST_FOLLOWS", "prewarm", "warm_ready", "waiting_process", "child_verify",
           "child_analyse", "child_index", "read_file", "Job", "Ready", "Digest", "Progress", "StageReached",
           "ReportAhead", "Finished", "Failed", "Verdicts", "AfterReport", "Indexed"]


class WorkerError(Exception):
    """A worker process failed. ``error_type`` names the child's exception type (or its exit code);
    the exception's text is never sent back: it may quote payload content."""

    def __init__(self, error_type: str):
        super().__init__(error_type)
        self.error_type = error_type


# ----------------------------------------------------------------------------------------------
# The worker protocol: what crosses a pipe, one class per message (pickled; no Qt).

@dataclass(frozen=True)
class Job:
    """Window to a waiting warm worker: run ``fn(conn, *args)`` at priority ``nice`` (:func:`prewarm`)."""

    fn: object
    args: tuple
    nice: int = 10


@dataclass(frozen=True)
class Ready:
    """Warm worker to window: its imports are done; it waits for one :class:`Job`."""


@dataclass(frozen=True)
class Digest:
    """Window to the verifier: the payload file's ``sha256:`` content digest, or ``None`` when the window could not
    hash the bytes it opened (sent when the verifier was started with :data:`DIGEST_FOLLOWS`)."""

    digest: str | None


@dataclass(frozen=True)
class Progress:
    """Child to window: the fraction of its job done (0.0 to 1.0; an indexer's bytes read)."""

    fraction: float


@dataclass(frozen=True)
class StageReached:
    """Verifier to window: a partial verdict (``checkpoint.Stage``), before the report."""

    stage: object


@dataclass(frozen=True)
class ReportAhead:
    """Verifier to window, ahead of the job's end (:attr:`ChildTask.early`): the ``report`` as soon as the rules
    are decided, the trees' ``index`` when the read gave it at once (a canonical payload's
    :class:`~inspector.checkpoint.jsontext.spanindex.SpanIndex`; ``None``: it follows in :class:`AfterReport`, or
    the window indexes the bytes), and ``seen``, the :func:`file_identity` of the bytes verified (``None``: the
    file changed while it was read)."""

    report: object
    index: object = None
    seen: tuple | None = None


@dataclass(frozen=True)
class Finished:
    """Child to window: the job returned ``value`` (one of the results below, or the job's own value)."""

    value: object


@dataclass(frozen=True)
class Failed:
    """Child to window: the job raised; ``error_type`` names the exception's type (never its text, which may quote
    payload content)."""

    error_type: str


@dataclass(frozen=True)
class Verdicts:
    """:func:`child_analyse`'s result for a folder scan: the ``report`` (no views) and ``seen`` (as in
    :class:`ReportAhead`)."""

    report: object
    seen: tuple | None = None


@dataclass(frozen=True)
class AfterReport:
    """:func:`child_analyse`'s result for the window, after its :class:`ReportAhead`: the trees' ``index`` when it
    did not go with the report (a pretty-printed payload's; ``None`` otherwise), ``seen``, the ``views``
    (:class:`~inspector.checkpoint.analysis.views.PackedViews` or ``None``) and ``views_error`` (why they could
    not be built, or ``None``)."""

    index: object = None
    seen: tuple | None = None
    views: object = None
    views_error: str | None = None


@dataclass(frozen=True)
class Indexed:
    """:func:`child_index`'s result: the ``index`` (a :class:`~inspector.checkpoint.jsontext.spanindex.SpanIndex`)
    or the :class:`~inspector.checkpoint.jsontext.lazyjson.ScanError` that says why the bytes are not JSON, and ``seen`` (as in
    :class:`ReportAhead`)."""

    index: object
    seen: tuple | None = None


# ----------------------------------------------------------------------------------------------
# The warm worker (one per window process).

_warm_lock = threading.Lock()
_warm: list = []  # [(process, connection, ready flag holder)] : at most one


def prewarm() -> None:
    """Start a warm worker process unless one is already waiting (any thread; returns at once).

    The process imports the engine and waits for one job (:meth:`ChildTask.start` with ``warm=True``);
    it exits with the window (its pipe closes) and is never given a job that is not the window's.
    """
    with _warm_lock:
        if _warm and _warm[0][0].is_alive():
            return
        _warm.clear()
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe(duplex=True)
        proc = ctx.Process(target=_warm_main, args=(child,), daemon=True, name="inspector-warm-worker")
        proc.start()
        child.close()
        _warm.append((proc, parent, [False]))


def warm_ready(timeout: float = 0.0) -> bool:
    """True when a warm worker has finished its imports (waits up to ``timeout`` seconds for it)."""
    with _warm_lock:
        if not _warm:
            return False
        proc, conn, ready = _warm[0]
        if not ready[0] and conn.poll(timeout):
            try:
                ready[0] = isinstance(conn.recv(), Ready)
            except (EOFError, OSError):
                return False
        return ready[0] and proc.is_alive()


def waiting_process():
    """The warm worker process still waiting for a job (``multiprocessing.Process``), or ``None``."""
    with _warm_lock:
        return _warm[0][0] if _warm else None


def _take_warm():
    """The waiting warm worker ``(process, connection)``, or ``None``; it is no longer waiting after this."""
    with _warm_lock:
        if not _warm:
            return None
        proc, conn, ready = _warm.pop()
        if not proc.is_alive():
            conn.close()
            return None
        return proc, conn, ready[0]


def _warm_main(conn) -> None:
    """The warm worker: the imports are done (this module); say so, then run the one job sent."""
    try:
        conn.send(Ready())
        job = conn.recv()
    except (EOFError, OSError, BrokenPipeError):
        return  # the window went away before giving a job
    _child_main(conn, job.fn, job.args, job.nice)


# ----------------------------------------------------------------------------------------------
# One job in a child process.

class ChildTask:
    """One function run in a spawned process; results come back through a pipe.

    The child runs at lower priority (``nice``, 10 unless given) so the window gets the CPU as soon as it needs
    it; the verifier of an open runs at the window's own priority (nice 0): at nice 10 on a busy machine it got
    a fraction of a core and the verdicts took twice the engine's own time. With ``warm=True`` the waiting
    warm worker (:func:`prewarm`) runs the job when there is one (no start-up cost), else a new process.
    The child sends :class:`Progress`, :class:`StageReached`, :class:`ReportAhead` (a result ahead of the job's
    end: :attr:`early`), then :class:`Finished` or :class:`Failed`; a warm worker first sends :class:`Ready`.
    """

    def __init__(self, fn, args, nice: int = 10, warm: bool = False):
        self.fn, self.args, self.nice, self.warm = fn, args, nice, warm
        self.started = False
        self.done = False
        self.progress: float | None = None
        self.seconds = 0.0
        #: True when the job ran in a warm worker whose imports were already done.
        self.was_warm = False
        self._value = None
        self._error = None
        self._stages: list = []
        #: The :class:`ReportAhead` the child sent ahead of its result (``child_analyse``), else ``None``.
        self.early = None

    def stages(self) -> list:
        """Partial verdicts (``checkpoint.Stage``) received since the last call."""
        out, self._stages = self._stages, []
        return out

    def start(self) -> None:
        """Start the child (or hand the job to the warm worker)."""
        self._t0 = time.perf_counter()
        taken = _take_warm() if self.warm else None
        if taken is not None:
            self._proc, self._conn, self.was_warm = taken
            try:
                self._conn.send(Job(self.fn, self.args, self.nice))
            except (BrokenPipeError, OSError):
                taken = None
                self._conn.close()
        if taken is None:
            ctx = multiprocessing.get_context("spawn")
            self._conn, child = ctx.Pipe(duplex=True)  # duplex: the parent may send the digest after the job
            self._proc = ctx.Process(target=_child_main, args=(child, self.fn, self.args, self.nice), daemon=True)
            self._proc.start()
            child.close()
        self.started = True

    def send(self, msg) -> None:
        """Send ``msg`` to the running child (the content digest it waits for: :data:`DIGEST_FOLLOWS`); a child
        that has gone away is not an error here (its end shows as :attr:`done` with an error)."""
        try:
            self._conn.send(msg)
        except (BrokenPipeError, EOFError, OSError):
            pass

    def pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for messages from the child (releases the GIL)."""
        if self.done:
            time.sleep(timeout)
            return
        try:
            while self._conn.poll(timeout):
                msg = self._conn.recv()
                timeout = 0
                if isinstance(msg, Ready):  # a warm worker's imports finished
                    continue
                if isinstance(msg, Progress):
                    self.progress = msg.fraction
                    continue
                if isinstance(msg, StageReached):
                    self._stages.append(msg.stage)
                    continue
                if isinstance(msg, ReportAhead):  # the verdicts, ahead of the job's end (the views, maybe the index, follow)
                    self.early = msg
                    continue
                self.done = True
                self.seconds = time.perf_counter() - self._t0
                if isinstance(msg, Finished):
                    self._value = msg.value
                else:
                    self._error = msg.error_type  # the exception's type name only (never its text)
                # No join here: a child freeing gigabytes takes a while to exit; terminate() reaps it.
                return
        except (EOFError, OSError):
            pass
        if not self._proc.is_alive() and not self.done:
            self.done = True
            self._error = f"exit code {self._proc.exitcode}"

    def result(self):
        """The child's return value; raises :class:`WorkerError` naming the child's exception type."""
        if self._error is not None:
            raise WorkerError(self._error)
        return self._value

    def terminate(self) -> None:
        """Stop the child if it is still running."""
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.is_alive():
            proc.terminate()
            proc.join(5)
        if proc is not None and not getattr(self, "_closed", False):
            self._closed = True
            self._conn.close()


def _child_main(conn, fn, args, nice: int = 10) -> None:
    # One job, then exit: no cyclic garbage worth collecting, and a collection over a parsed payload kept
    # alive (millions of objects, ``_KEPT``) would cost about 0.3 s before the report is sent.
    global _ONE_JOB
    _ONE_JOB = True
    gc.disable()
    try:
        if nice:
            os.nice(nice)
    except (AttributeError, OSError):
        pass
    try:
        try:
            value = fn(conn, *args)
            conn.send(Finished(value))
        except (BrokenPipeError, EOFError):
            pass  # the window went away or cancelled: nobody is listening
        except BaseException as e:  # reported to the parent by type only: its text may quote the payload
            conn.send(Failed(type(e).__name__))
    except (BrokenPipeError, EOFError, OSError):
        pass
    finally:
        conn.close()


# ----------------------------------------------------------------------------------------------
# What the children run.

def child_verify(conn, path: str, descriptor: bytes | None, size: int):
    """Verify the payload file in a child process (folder scans); returns the report (no views)."""
    return child_analyse(conn, path, descriptor, size, None, None, None).report


#: ``child_analyse``'s ``digest`` when the parent is still hashing the file: the child reads the file meanwhile,
#: then waits for a :class:`Digest` on its pipe (:meth:`ChildTask.send`).
DIGEST_FOLLOWS = "follows"


#: The verifier's parsed payload (its ``Context``), kept after ``verify`` returns: freeing a 256 MiB payload's
#: objects takes about 0.2 s, which would come before the report is sent. The child exits after its one job
#: (the parent terminates it), and the value with it. Only in a worker process (:data:`_ONE_JOB`): a
#: ``child_analyse`` called in another process (a test) keeps nothing.
_KEPT: list = []
#: True in a worker process running its one job (set by ``_child_main``), never in the window's process.
_ONE_JOB = False


def read_file(path: str) -> tuple[bytes, tuple | None]:
    """The file's bytes (never more than the ceiling plus one) and its :func:`file_identity` (device, inode,
    size in bytes, modification time in ns), ``None`` when the file changed while it was read (a worker's
    read, compared with the window's). Raises ``OSError`` when it cannot be read (also
    :class:`~inspector.checkpoint.safeopen.NotAFile`: never a FIFO or device, which would block the worker)."""
    fh, _st = open_file(path)
    with fh:
        before = file_identity(os.fstat(fh.fileno()))
        data = fh.read(checkpoint.MAX_CONTENT_BYTES + 1)  # never more than the ceiling
        after = file_identity(os.fstat(fh.fileno()))
    return data, (before if before == after and before[2] == len(data) else None)


def child_analyse(conn, path: str, descriptor: bytes | None, size: int, mtime_ns: int | None, digest: str | None,
                  big: int | None):
    """Verify the payload file (one parse); returns :class:`Verdicts` without ``big``, else sends each stage
    and the report ahead and returns :class:`AfterReport` (below).

    ``digest`` is the parent's SHA-256 of the file (``sha256:`` form), or :data:`DIGEST_FOLLOWS` when the
    parent sends it once it has it (the child reads and parses the file meanwhile, and takes it when the
    first rule needs it): reused only when the file still has the size and modification time it had then.
    ``big`` is the window's index threshold (:data:`inspector.checkpoint.jsontext.lazyjson.BIG`, the engine's ``read.door.INDEX_BIG``, which
    the engine's index always uses), or ``None``. Without ``big`` (a folder scan: verdicts only) nothing else is sent, and the report has no views. With
    ``big`` (the window's verifier) the report is sent ahead, as soon as the rules are decided, as a
    :class:`ReportAhead` (:attr:`ChildTask.early`), its views not built yet; the job then returns an
    :class:`AfterReport`: the trees' index when it was not sent with the report, the views (:class:`~inspector.checkpoint.analysis.views.PackedViews` or ``None``) and why
    they could not be built, or ``None`` (:func:`~inspector.checkpoint.verify.attach_views`; the verdicts
    do not depend on them, as ``verify`` alone never builds them). The index (a
    :class:`~inspector.checkpoint.jsontext.spanindex.SpanIndex`) is the one the engine's read of the payload
    filled (:func:`~inspector.checkpoint.verify.verify_indexed`): a canonical payload's goes with the report;
    a pretty-printed or re-saved one's is found after it; ``None`` when no fast reader proved the payload
    (then the window's indexing child scans the bytes).

    ``seen`` is the :func:`file_identity` of the bytes verified, ``None`` when the file changed while it was
    read: the window keeps its own copy only when it read the same file (:func:`.engine._load_large`). The
    canonical re-encoding (as large as the file) is not sent back: the window does not show it. Raises
    ``OSError`` when the file cannot be read.
    """
    data, seen = read_file(path)
    follows = digest == DIGEST_FOLLOWS
    got: list = []  # [the parent's digest or None], once asked for
    gone = []

    def parent_digest():
        """The parent's digest of these very bytes, or ``None`` (then the engine hashes them): asked for
        when a rule first needs it, after the parse (``parse_first``), so this process never waits idle
        for the parent's hash while it could parse."""
        if not got:
            d = digest
            if follows:
                try:
                    msg = conn.recv()
                except (EOFError, OSError):  # the window went away or cancelled: nobody is listening
                    gone.append(True)
                    msg = None
                d = msg.digest if isinstance(msg, Digest) else None
            if seen is None or seen[2:] != (size, mtime_ns):
                d = None  # not the bytes the parent hashed
            got.append(d)
        return got[0]

    # The window's verifier (``big``) sends the verdicts ahead of the views (the Resume dock's timeline and
    # transcript, about 0.2 s on the bench files) and, for a payload that does not start as a canonical
    # printing does (pretty-printed, re-saved), of the trees' index too (``verify_indexed``'s ``on_report``).
    window = big is not None
    sent = [0]

    def send_stage(stage) -> None:
        sent[0] += 1
        if sent[0] > 1 or parent_digest() is None:  # the parent showed the bytes stage already
            conn.send(StageReached(stage))

    keep = _KEPT if _ONE_JOB else None
    if keep is not None:
        keep.clear()
    if not window:
        report = checkpoint.verify(data, descriptor, payload_size=len(data), views=False,
                                   payload_digest=parent_digest, keep=keep, parse_first=follows)
        if gone:
            raise EOFError  # nobody is listening (_child_main sends nothing)
        report.canonical_bytes = None
        return Verdicts(report, seen)

    def send_report(report, index) -> None:
        if gone:
            raise EOFError  # nobody is listening (_child_main sends nothing)
        report.canonical_bytes = None
        early.append(index is not None)
        conn.send(ReportAhead(report, index, seen))

    early: list = []  # [the index went with the report]
    done = verify_indexed(data, descriptor, payload_size=len(data), views=True, on_stage=send_stage,
                          on_report=send_report, payload_digest=parent_digest, parse_first=follows, keep=keep)
    views = PackedViews(done.report.views) if done.report.views is not None else None  # unpacked on the loading thread
    return AfterReport(None if early[0] else done.index, seen, views, done.views_error)


def child_index(conn, path: str, big: int):
    """Index the payload file's large containers in a child: an :class:`Indexed` (the index, a
    :class:`~inspector.checkpoint.jsontext.spanindex.SpanIndex`, or the :class:`~inspector.checkpoint.jsontext.lazyjson.ScanError`); ``seen`` is the :func:`file_identity` of the bytes indexed (``None``: the file
    changed while it was read). Raises ``OSError`` when the file cannot be read."""
    data, seen = read_file(path)
    last = [0.0]

    def progress(done, total):
        now = time.perf_counter()
        if now - last[0] > 0.2:
            last[0] = now
            conn.send(Progress(done / max(total, 1)))

    try:
        return Indexed(fast_index(data, big=big, progress=progress), seen)
    except ScanError as e:
        return Indexed(e, seen)
