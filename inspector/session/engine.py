"""The GUI's only door to the verification engine (no Qt: also imported by worker processes).

Everything here runs on a worker thread, never on the GUI thread: :func:`ensure_worker`
raises if it is called there, and ``tests/gui/test_threads.py`` proves the engine functions
are only ever entered off the GUI thread. Engine functions are looked up on the
``inspector.checkpoint`` module at call time (``checkpoint.verify``), so a test can replace them.

Why worker *processes* for large payloads: a C call that holds the GIL (orjson on 256 MiB,
a regular expression over a long string) blocks every Python thread, the GUI thread
included, for as long as it runs; measured on a 256 MiB payload, ``verify`` on a thread
froze the event loop for up to 2.7 s. Above :data:`PROCESS_THRESHOLD` bytes, verification
and tree indexing therefore run in two spawned processes (in parallel, at lower priority),
and the worker thread only waits for them; Cancel terminates them.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import stat
import threading
import time
from dataclasses import replace

from inspector import checkpoint

from inspector.checkpoint.artifact import InputFile, detect_role
from inspector.checkpoint.jsontext.reader import RECURSION_LIMIT_EXCEEDED
from inspector.checkpoint.pairing import find_sibling
from inspector.checkpoint.safeopen import open_file

from inspector.session.filebytes import FileBytes, file_identity
from inspector.checkpoint.jsontext.lazyjson import BIG, ScanError, SpanIndex, build_index
from inspector.session.documents import Analysis, Cancelled, Side, UserError
from inspector.session.staged import StagedLoad
from inspector.session.workers import (
    DIGEST_FOLLOWS, ChildTask, Digest, WorkerError, child_analyse, child_index, prewarm,
)

# Sandbox edits are in .edits and folder scans in .folderscan (they import this module; it no longer
# re-exports them, which made `import inspector.session.edits` fail alone on the import cycle).
__all__ = ["PROCESS_THRESHOLD", "EDIT_LIMIT", "Side", "Analysis", "Cancelled", "UserError", "WorkerError", "ChildTask",
           "ensure_worker", "load_paths", "analyse_bytes", "prewarm"]

#: Payloads larger than this (bytes) are verified and indexed in worker processes.
PROCESS_THRESHOLD = 4 * 1024 * 1024
#: Payloads up to this size (bytes) can be edited in the sandbox.
EDIT_LIMIT = 16 * 1024 * 1024


def ensure_worker() -> None:
    """Raise ``RuntimeError`` when called on the GUI (main) thread."""
    if threading.current_thread() is threading.main_thread():
        raise RuntimeError("the engine must not run on the GUI thread")


# ----------------------------------------------------------------------------------------------
# Small documents: engine on this (worker) thread.

def _index_small(side: Side) -> None:
    """Validate JSON with the engine's serde-exact parser, then index spans (worker thread)."""
    if side.data is None:
        return
    try:
        checkpoint.parse_value(side.data)
    except checkpoint.SerdeError as e:
        if e.message != RECURSION_LIMIT_EXCEEDED:
            located = e.locate(side.data)
            side.parse_error = (str(located), e.offset if e.offset is not None else e.index)
            side.index = None
            return
        # Nested deeper than serde's 127 levels: a verdict for the rules, but still JSON the
        # trees can show (the index is built without recursion, at any depth).
    try:
        side.index = build_index(side.data, big=BIG)
    except ScanError as e:  # not expected after a successful engine parse
        side.parse_error = (str(e), e.offset)
        side.index = None


def analyse_bytes(payload: Side | None, descriptor: Side | None, *, cancel=None) -> Analysis:
    """Verify both sides and index them for the trees, all on the calling (worker) thread.

    Used for inputs up to :data:`PROCESS_THRESHOLD` and for every sandbox recompute. The payload is read
    once: its verdicts and its trees' index come from the same read
    (:func:`~inspector.checkpoint.verify.verify_indexed`). A payload that read gave no index for (CRLF line
    ends, a file only the exact decoder reads, one serde rejects) is read as before: the exact parser says
    whether it is JSON at all (the located message of a JSON error, also inside a value the typed read skips),
    then the tokenizer indexes it (:func:`_index_small`). The descriptor, a few hundred bytes, is read the same way.
    """
    ensure_worker()
    for side in (payload, descriptor):
        if side is not None and side.data is not None:
            side.sha256 = "sha256:" + hashlib.sha256(side.data).hexdigest()
    if descriptor is not None:
        _index_small(descriptor)
    if cancel is not None and cancel():
        raise Cancelled()
    t0 = time.perf_counter()
    done = checkpoint.verify_indexed(payload.data if payload else None, descriptor.data if descriptor else None,
                                     payload_size=payload.size if payload else None, views=True,
                                     payload_digest=payload.sha256 if payload else None)
    seconds = time.perf_counter() - t0
    if done.views_error is not None:
        done.report.internal_errors.append(done.views_error)
    if payload is not None and payload.data is not None:
        if done.index is not None:
            payload.index = done.index
        else:
            _index_small(payload)
    return Analysis(payload, descriptor, done.report, verify_seconds=seconds)


# ----------------------------------------------------------------------------------------------
# Loading files.

def _side(f, source: str) -> Side:
    # how the role was chosen when the content did not decide (pair_inputs) is shown with the hints
    hint = "; ".join(x for x in (f.role_note, f.hint) if x) or None
    return Side(source, f.path, f.data, f.size, f.mtime_ns, hint, form=f.form)


def _read_input(path: str):
    """``checkpoint.read_input``, except that a file over :data:`PROCESS_THRESHOLD` bytes (up to the
    ceiling) is opened, not read: its ``data`` is a :class:`.filebytes.FileBytes` (read on access
    with ``os.pread``; never a mapping, which a file truncated meanwhile turns into SIGBUS), so the
    partial verdict (:func:`_load_large`) waits for no fresh buffer of the
    file's size (page faults: 0.1-0.7 s for 247 MiB). The role comes from the same
    ``detect_role`` (a file over 1 MiB is a payload unless its first bytes say gzip); anything
    unusual falls back to ``read_input``, which says what is wrong.
    """
    try:
        st = os.stat(path)
        if not (stat.S_ISREG(st.st_mode) and PROCESS_THRESHOLD < st.st_size <= checkpoint.MAX_CONTENT_BYTES):
            return checkpoint.read_input(path)
        lazy = FileBytes(path, st.st_size)
    except (OSError, ValueError):
        return checkpoint.read_input(path)
    # small enough to hold a descriptor: the role is read from the keys (orjson needs bytes)
    role, hint, doubt = detect_role(lazy if len(lazy) > _SMALL_DOCUMENT else lazy[:])
    if role != "payload" or lazy.changed:  # only a payload is worth reading lazily
        lazy.close()
        return checkpoint.read_input(path)
    return InputFile(path, len(lazy), lazy, role, hint, st.st_mtime_ns, doubt)


#: Files up to this size (bytes) may be descriptors; their role is read from their keys.
_SMALL_DOCUMENT = 1 << 20


def read_paths(paths: list[str]) -> tuple[Side | None, Side | None]:
    """Read one or two files and tell payload from descriptor by content.

    Raises:
        checkpoint.UnreadableInput: a path cannot be read. checkpoint.PairingError: the files are not one payload
        and one descriptor. UserError: the files are not checkpoint files. (All three are
        :class:`~inspector.checkpoint.diagnostic.InspectorError`: the window shows their ``diagnostics()``.)
    """
    ensure_worker()
    files = [_read_input(p) for p in paths]
    reason = checkpoint.not_a_checkpoint(files)
    if reason:  # not a failed checkpoint: no verdict at all
        from inspector.checkpoint.rules.catalogue import plain_texts

        raise UserError(f"{reason.replace(chr(10), '; ')}. {plain_texts()['what_checkpoints_look_like']}")
    payload, descriptor = checkpoint.pair_inputs(files)  # (UnreadableInput: a wrapper's content cannot be taken out)
    return (_side(payload, "payload") if payload else None,
            _side(descriptor, "descriptor") if descriptor else None)


def load_paths(paths: list[str], *, progress=None, partial=None, cancel=None, find_pair: bool = True) -> Analysis:
    """Read, index and verify the given files (worker thread).

    Args:
        paths: one or two file paths.
        progress: ``callable(percent: int, text: str)``; percent -1 means unknown.
        partial: ``callable(Analysis)`` called once the trees can be shown, before the
            report exists, and with each partial verdict (large payloads only); then with the
            report, before its views (and a pretty-printed payload's trees' index) exist.
        cancel: ``callable() -> bool``.
        find_pair: a payload or descriptor given alone is read with its other half when a file beside it
            matches (:func:`inspector.checkpoint.pairing.find_sibling`); the result says which (``pairing``).

    A large payload that changes while it is read (so that the verdicts, the trees and the window's
    bytes would not be of the same bytes, :func:`_load_large`) is read again from the start, once; the
    result then warns :data:`READ_AGAIN`.

    Returns:
        the complete :class:`Analysis`.

    Raises:
        UserError: unreadable input, bad pairing, or a payload that changed again while it was read
        again. Cancelled: the user cancelled.
    """
    ensure_worker()
    cancel = cancel or (lambda: False)
    progress = progress or (lambda pct, text: None)
    for attempt in range(_READS):
        progress(0, "Reading files…" if not attempt else "The payload changed while it was read; reading it again…")
        payload, descriptor = read_paths(paths)
        pairing = None
        if find_pair and len(paths) == 1 and (payload is None) != (descriptor is None) \
                and not (payload or descriptor).form:
            paths, payload, descriptor, pairing = _with_sibling(paths, payload, descriptor)
        if cancel():
            raise Cancelled()
        # (a payload taken out of an SDK export wrapper is in memory: the worker processes read files)
        if payload is None or payload.data is None or payload.size <= PROCESS_THRESHOLD or payload.path == (
                descriptor.path if descriptor is not None else None):
            progress(30, "Verifying…")
            result = analyse_bytes(payload, descriptor, cancel=cancel)
            if payload is not None and payload.data is None:
                payload.parse_error = (payload.hint or "the file is over the 256 MiB ceiling and was not read", None)
        else:
            try:
                result = _load_large(payload, descriptor, progress, partial, cancel)
            except _Changed:
                continue
        if attempt:
            result.warnings.insert(0, READ_AGAIN)
        result.paths, result.pairing = list(paths), pairing
        return result
    raise UserError(f"{checkpoint.display_path(payload.path)}: the file kept changing while it was being read; "
                    "open it again once it has been written")


def _with_sibling(paths: list[str], payload: Side | None, descriptor: Side | None) -> tuple:
    """A file opened alone: its other half found beside it (by digest, then by name), and both read;
    ``(paths, payload, descriptor, sentence)``, the sentence saying which file was paired or that none was."""
    alone = payload or descriptor
    sibling = find_sibling(alone.path, alone.source, alone.data, alone.size)
    name = os.path.basename(alone.path)
    if sibling is None:
        other = "descriptor" if payload is not None else "payload"
        return paths, payload, descriptor, f"No {other} that matches {name} was found beside it."
    pair = [paths[0], sibling.path]
    payload, descriptor = read_paths(pair)
    return pair, payload, descriptor, f"Opened {name} with {sibling.sentence(alone.source)}."


#: How many times :func:`load_paths` reads a large payload that changes while it is being read.
_READS = 2
#: The open's warning when the payload was read again (:func:`load_paths`).
READ_AGAIN = "The payload file changed while it was being read; it was read again."


class _Changed(Exception):
    """The payload file changed while :func:`_load_large` read it: the verdicts, the trees' index and the
    window's copy of the bytes are not of the same bytes (:func:`load_paths` reads it again)."""


def _load_large(payload: Side, descriptor: Side | None, progress, partial, cancel) -> Analysis:
    """Verify and index a large payload in a worker process while this thread waits.

    Hash before parse: the descriptor's rules, the payload's size and its content digest are
    decided here first (one SHA-256 pass, which releases the GIL) and shown at once as a partial
    verdict (``Analysis.stage``). Then one child process parses the payload once: the engine's
    fast path verifies it and, while comparing the re-encoding of a canonical payload, records the
    child spans the trees need (``verify(spans=...)``), so verdicts and trees come together with no
    second parse or hash. Any other payload the verifier cannot index (the fast path did not read it,
    or a CRLF one) is indexed by a second child after the verdicts; the
    verifying child sends the structure stage as soon as it is known, then its report as soon as the rules
    are decided (:attr:`.workers.ChildTask.early`), with the index when it has it: shown at once as a
    partial result with the verdicts (its :class:`.staged.StagedLoad` says the views follow); the Resume
    dock's timeline and transcript (``report.views``, about 0.2 s on the bench files) follow, and the final
    result carries the same report with them. A payload that does not start as a canonical printing does
    (pretty-printed, re-saved by an editor) is verified as ``verify`` alone verifies it, without recording
    spans, and its index follows the verdicts too (the fast path's layout comparison, about 0.45 s on the
    242 MiB pretty bench file): its trees say "Reading…" until then.

    Order: the payload is opened, not read (:func:`_read_input`). The verifier starts first
    (the warm worker when one waits, :func:`.workers.prewarm`: imports done) and reads the file while
    this thread hashes it through a small reused buffer, with no other work before it; the bytes
    stage is shown at once and the digest sent to the verifier (:data:`.workers.DIGEST_FOLLOWS`),
    which parses meanwhile and takes it when its first rule needs it (``verify(parse_first=True)``:
    it no longer waits idle for the hash, about 0.2 s on the 247 MiB bench file). Then, while the
    verifier parses (on the other core), this thread reads the window's own copy of the bytes, which the trees, find and edits need and which
    replaces the open file with the verdicts; until then the bytes pane reads the open file. Both copies and the verifier's parsed value then add
    up (about 4.3x the payload, all processes, on the 247 MiB bench file; the target is 6x), for
    verdicts about 0.4 s sooner than reading and hashing one after the other.

    One file, one set of bytes: the hash, the window's copy (read from the file the lazy reader opened),
    the verifier's read and the indexer's must each have seen the file as it was opened, unchanged while
    they read it (:func:`_matches`; the file's device, inode, size and modification time); else the
    verdicts, the trees' spans and the bytes pane could describe different bytes (a tree indexing past
    the end of a file truncated after the verifier read it). Raises :class:`_Changed` then
    (:func:`load_paths` reads the file again), :class:`Cancelled`, or :class:`WorkerError`.
    """
    return _LargeLoad(payload, descriptor, progress, partial, cancel).run()


class _LargeLoad:
    """The state of one :func:`_load_large`: its two children, what they sent, and where the load stands
    (:attr:`load`, a :class:`.staged.StagedLoad` each partial result carries a copy of)."""

    def __init__(self, payload: Side, descriptor: Side | None, progress, partial, cancel):
        self.payload, self.descriptor = payload, descriptor
        self.progress, self.partial, self.cancel = progress, partial, cancel
        self.verifier = self.indexer = None
        self.index_done = self.report = None
        self.tail_follows = False  # the verifier sent its report ahead: its views (and maybe the index) follow
        self.views_error = None
        self.load = StagedLoad()
        self.opened = self.copy = None
        self.t0 = self.last_progress = 0.0

    def now(self) -> StagedLoad:
        """A copy of where the load stands, for a partial result."""
        self.load.trees_done = self.index_done is not None
        return replace(self.load)

    def _send(self, report) -> None:
        if self.partial is not None:
            self.partial(Analysis(replace(self.payload), self.descriptor, report, load=self.now()))

    def run(self) -> Analysis:
        """The load, start to end; returns the final :class:`Analysis`. Raises as :func:`_load_large` says."""
        payload, descriptor = self.payload, self.descriptor
        if descriptor is not None:
            _index_small(descriptor)
        self.t0 = time.perf_counter()
        self.last_progress = -1.0
        self.progress(5, "Checking the descriptor and hashing the payload…")
        self.verifier = ChildTask(child_analyse, (payload.path, descriptor.data if descriptor else None, payload.size,
                                                  payload.mtime_ns, DIGEST_FOLLOWS, BIG), nice=0, warm=True)
        self.verifier.start()
        # The verifier's fast path gives the spans of a canonical payload and of a pretty-printed or
        # reordered one; only for anything else does a second child index the bytes, after the verdicts.
        try:
            self._bytes_stage()
            while self.index_done is None or self.report is None or self.tail_follows:
                if self.cancel():
                    raise Cancelled()
                self._pump()
                self._take_index()
                for st in self.verifier.stages():
                    self.load.stage = st
                    self._send(None)
                self._take_report()
                self._take_tail()
                self._say_progress()
        finally:
            if self.indexer is not None:
                self.indexer.terminate()
            self.verifier.terminate()
            if not self.cancel():  # (a cancelled open may have been superseded: not while the next one verifies)
                prewarm()  # the next open's verifier (this one is spent), now that this open is done
        return self._result()

    def _bytes_stage(self) -> None:
        """Hash the payload (no other work before it), send the bytes stage and the digest, then read the
        window's own copy of the bytes while the verifier parses."""
        payload, descriptor = self.payload, self.descriptor
        # payload.data reads the file on demand (_read_input): hashed by reading the file through a small
        # reused buffer, none of it read here (only its length is used for the stage)
        self.opened = _opened_identity(payload)
        digest = _file_digest(payload.path, self.opened)
        if digest is None:  # the file changed (or went) since it was opened: read it again (load_paths)
            raise _Changed()
        stage = checkpoint.first_stage(payload.data, descriptor.data if descriptor else None, payload_digest=digest)
        self.verifier.send(Digest(digest))
        payload.sha256 = digest
        self.load.stage = stage
        self._send(None)
        if self.cancel():
            raise Cancelled()
        self.copy, copy_seen = _read_copy(payload)  # the window's own copy, while the verifier parses
        if not _matches(copy_seen, self.opened):
            raise _Changed()

    def _pump(self) -> None:
        running = [t for t in (self.indexer, self.verifier) if t is not None and t.started and not t.done]
        for t in running:
            t.pump(0.05 / len(running))
        if not running:
            time.sleep(0.01)

    def _take_index(self) -> None:
        if self.indexer is not None and self.index_done is None and self.indexer.done:
            indexed = _result(self.indexer)
            self.index_done, seen = indexed.index, indexed.seen
            self.indexer.terminate()
            if not _matches(seen, self.opened):  # it indexed other bytes than the window's copy
                raise _Changed()
            _set_index(self.payload, self.index_done)
            if self.report is None:
                self._send(None)

    def _take_report(self) -> None:
        verifier, payload = self.verifier, self.payload
        if self.report is not None or (verifier.early is None and not verifier.done):
            return
        if verifier.early is None:  # only a verifier that failed before its report ends without one: raises here
            _result(verifier)
            raise WorkerError("no report")
        # the verdicts ahead of the views (and of a pretty payload's index)
        report, spans_index, seen = verifier.early.report, verifier.early.index, verifier.early.seen
        self.tail_follows = True
        self.report = self.load.report = report
        # the window keeps its copy with the verdicts only when both read the bytes hashed for the
        # bytes stage: else the trees, the bytes pane and the verdicts would describe different bytes
        if not _matches(seen, self.opened) or len(self.copy) != report.payload_size:
            raise _Changed()
        _adopt_copy(payload, self.copy)
        if spans_index is not None and self.index_done is None:
            self.index_done = spans_index
            _set_index(payload, self.index_done)
        self._send(report)  # the verdicts now; the timeline, and any trees still unread, next

    def _take_tail(self) -> None:
        if not (self.tail_follows and self.verifier.done):
            return
        self.tail_follows = False
        views, self.views_error, spans_index = _tail(self.verifier)
        self.verifier.terminate()
        self.load.views_done, self.load.views_error = True, self.views_error
        self.report.views = views.unpack() if views is not None else None
        if self.index_done is None and self.indexer is None:
            self.indexer, self.index_done = _index_or_indexer(self.payload, spans_index)
        if self.index_done is None:  # the timeline now, the trees after the indexer
            self._send(self.report)

    def _say_progress(self) -> None:
        elapsed = time.perf_counter() - self.t0
        # Rough rate measured here (verify of a 247 MiB payload: about 5 s), for an honest estimate.
        est_verify = max(1.0, self.payload.size / 50e6)
        v_frac = 1.0 if self.report is not None else min(0.95, elapsed / est_verify)
        if elapsed - self.last_progress >= 0.25:
            self.last_progress = elapsed
            self.progress(int(5 + 95 * v_frac), self.now().progress_text(self.payload.size, elapsed))

    def _result(self) -> Analysis:
        load = self.load
        load.views_done, load.views_error, load.trees_done = True, self.views_error, True
        result = Analysis(self.payload, self.descriptor, self.report, verify_seconds=self.verifier.seconds, load=load)
        try:
            if not _matches(file_identity(os.stat(self.payload.path)), self.opened):  # the window holds the bytes opened
                result.warnings.append("The payload file changed while it was being read; reload to see the current file.")
        except OSError:
            result.warnings.append("The payload file disappeared while it was being read.")
        return result


def _index_or_indexer(payload: Side, index: SpanIndex | None) -> tuple:
    """After the verdicts: ``(None, index)`` with the payload's index set, when the verifier gave one;
    else ``(indexer, None)``, a child started to index the bytes (the fast path did not read them)."""
    if index is None:
        indexer = ChildTask(child_index, (payload.path, BIG))
        indexer.start()
        return indexer, None
    _set_index(payload, index)
    return None, index


def _tail(verifier: ChildTask) -> tuple:
    """What a verifier sends after its report (:func:`.workers.child_analyse`): ``(views or None, views_error or
    None, index or None)``, the views packed; when it failed meanwhile (out of memory, killed), ``(None, "the
    worker process stopped (<error>)", None)``: its verdicts stand (they were decided), the Resume dock says
    why it has no timeline, and an indexing child reads the bytes for the trees."""
    try:
        after = verifier.result()
    except WorkerError as e:
        return None, f"the worker process stopped ({e.error_type})", None
    return after.views, after.views_error, after.index


def _opened_identity(payload: Side) -> tuple:
    """The payload file's identity (:func:`.filebytes.file_identity`) as the window opened it: its lazy
    reader's; ``(None, None, size, mtime_ns)`` for a payload read whole when it was opened."""
    lazy = payload.data
    if isinstance(lazy, FileBytes):
        return lazy.identity
    return None, None, payload.size, payload.mtime_ns


def _matches(identity: tuple | None, opened: tuple) -> bool:
    """True when a read of the payload file that saw ``identity`` (``None``: the file changed while it was
    read) read the file :func:`_opened_identity` describes, unchanged: so two such reads read the same
    bytes (the window's copy, the verifier's, the indexer's and the hash of the bytes stage)."""
    if identity is None:
        return False
    return identity == opened if opened[0] is not None else identity[2:] == opened[2:]


def _file_digest(path: str, opened: tuple) -> str | None:
    """``sha256:`` digest of the file, read through a small reused buffer (``hashlib.file_digest``:
    no buffer of the file's size, the GIL released while hashing); ``None`` when the file is not the one
    opened (:func:`_matches`) before and after the hash (or cannot be read)."""
    try:
        fh, _st = open_file(path)  # (never a FIFO or device: refused without blocking)
        with fh:
            before = file_identity(os.fstat(fh.fileno()))
            h = hashlib.file_digest(fh, "sha256")
            after = file_identity(os.fstat(fh.fileno()))
    except OSError:
        return None
    if before != after or not _matches(before, opened):
        return None
    return "sha256:" + h.hexdigest()


def _result(task: ChildTask):
    """``task.result()``; a child that could not read the payload file (an ``OSError``: it was deleted, or its
    permissions changed, since it was opened) raises :class:`_Changed` (:func:`load_paths` says why); one
    out of memory raises ``MemoryError`` (the job says so), one killed by a signal :class:`UserError`
    (the system's doing, most often for lack of memory: not a bug to report); else :class:`WorkerError`."""
    try:
        return task.result()
    except WorkerError as e:
        kind = getattr(builtins, e.error_type, None)
        if isinstance(kind, type) and issubclass(kind, OSError):
            raise _Changed() from None
        if kind is MemoryError:
            raise MemoryError() from None
        signum = e.error_type.removeprefix("exit code -")
        if signum != e.error_type and signum.isdigit():
            raise UserError(f"The worker process reading the payload was stopped by signal {signum}"
                            f"{' (killed: most often for lack of memory)' if signum == '9' else ''}; "
                            "nothing was verified") from None
        raise


def _read_copy(payload: Side) -> tuple[bytes | None, tuple | None]:
    """The window's own copy of a lazily read payload, read now from the file its lazy reader
    (:class:`.filebytes.FileBytes`) opened, which stays open for the bytes pane: ``(bytes, identity)``,
    the identity (:func:`.filebytes.file_identity`) the file had before and after the read (``None``
    when it changed meanwhile); ``(None, None)`` when it cannot be read. A payload read whole when it was
    opened is its own copy: ``(payload.data, its opened identity)``."""
    lazy = payload.data
    if not isinstance(lazy, FileBytes):
        return lazy, _opened_identity(payload)
    try:
        return lazy.read_all()
    except OSError:
        return None, None


def _adopt_copy(payload: Side, copy: bytes) -> None:
    """Replace a lazily read payload's ``data`` (:class:`.filebytes.FileBytes`) with ``copy``, the
    window's copy of the same bytes (:func:`_read_copy`), which the lazy reader then serves too, its
    file closed (:meth:`.filebytes.FileBytes.adopt`: a view still holding it reads the same bytes).

    The window keeps ``bytes`` once the verdicts are shown (the trees, find and edits need a
    buffer); the lazy reader only serves the bytes pane during the verification.
    """
    lazy = payload.data
    payload.data = copy
    if isinstance(lazy, FileBytes):
        lazy.adopt(copy)


def _set_index(payload: Side, index) -> None:
    if isinstance(index, ScanError):
        payload.parse_error = (str(index), index.offset)
        payload.index = None
    else:
        payload.index = index

