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

import hashlib
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass, field, replace

from inspector import checkpoint

from inspector.checkpoint.jsontext import RECURSION_LIMIT_EXCEEDED

from .lazyjson import BIG, Children, ScanError, build_index, fast_index, find_span

__all__ = ["PROCESS_THRESHOLD", "EDIT_LIMIT", "Side", "Analysis", "Cancelled", "UserError", "WorkerError", "ChildTask",
           "ensure_worker", "load_paths", "analyse_bytes", "apply_edit", "apply_edits", "Edit", "scan_folder",
           "FolderRow"]

#: Payloads larger than this (bytes) are verified and indexed in worker processes.
PROCESS_THRESHOLD = 4 * 1024 * 1024
#: Payloads up to this size (bytes) can be edited in the sandbox.
EDIT_LIMIT = 16 * 1024 * 1024


class Cancelled(Exception):
    """The user cancelled the job."""


class UserError(Exception):
    """A problem to show the user as one sentence (unreadable file, bad pairing, bad edit)."""


class WorkerError(Exception):
    """A worker process failed. ``error_type`` names the child's exception type (or its exit code);
    the exception's text is never sent back: it may quote payload content."""

    def __init__(self, error_type: str):
        super().__init__(error_type)
        self.error_type = error_type


def ensure_worker() -> None:
    """Raise ``RuntimeError`` when called on the GUI (main) thread."""
    if threading.current_thread() is threading.main_thread():
        raise RuntimeError("the engine must not run on the GUI thread")


@dataclass
class Side:
    """One input document as the window shows it.

    Attributes:
        source: ``payload`` or ``descriptor``.
        path: the file it was read from (``None`` for a sandbox-only document).
        data: the bytes (the sandbox copy once edited); ``None`` when over the ceiling.
        size: size in bytes. mtime_ns: file modification time when read (0 if none).
        hint: the engine's sentence about an obvious problem (gzip, BOM...), or ``None``.
        index: ``{container_start: Children}`` for large containers, or ``None`` when the bytes
            are not JSON (then ``parse_error`` says why).
        parse_error: ``(message, byte_offset_or_None)`` when the bytes are not JSON.
        sha256: ``sha256:`` digest of ``data`` when computed.
    """

    source: str
    path: str | None
    data: bytes | None
    size: int
    mtime_ns: int = 0
    hint: str | None = None
    index: dict | None = None
    parse_error: tuple | None = None
    sha256: str | None = None

    @property
    def tree_ok(self) -> bool:
        """True when a tree can be shown."""
        return self.data is not None and self.index is not None


@dataclass
class Analysis:
    """Result of loading or recomputing: both sides and the engine's report.

    ``report`` is ``None`` in a partial result (trees ready, verification still running).
    ``warnings`` are sentences for the user (e.g. the file changed while it was read).
    """

    payload: Side | None
    descriptor: Side | None
    report: object = None
    warnings: list = field(default_factory=list)
    verify_seconds: float = 0.0
    #: Sandbox recomputes: which documents the edits changed, and the edits that were skipped (messages).
    edited_sources: set = field(default_factory=set)
    edit_errors: list = field(default_factory=list)
    #: Set by the window once a partial result is on screen (``threading.Event`` or ``None``).
    shown: object = None
    #: In a partial result: the engine's latest partial verdict (``checkpoint.Stage``), or ``None``.
    stage: object = None


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
    """Index both sides and verify them, all on the calling (worker) thread.

    Used for inputs up to :data:`PROCESS_THRESHOLD` and for every sandbox recompute.
    """
    ensure_worker()
    for side in (payload, descriptor):
        if side is not None:
            _index_small(side)
            if side.data is not None:
                side.sha256 = "sha256:" + hashlib.sha256(side.data).hexdigest()
    if cancel is not None and cancel():
        raise Cancelled()
    t0 = time.perf_counter()
    report = checkpoint.verify(payload.data if payload else None, descriptor.data if descriptor else None,
                               payload_size=payload.size if payload else None, views=True)
    return Analysis(payload, descriptor, report, verify_seconds=time.perf_counter() - t0)


# ----------------------------------------------------------------------------------------------
# Loading files.

def _side(f, source: str) -> Side:
    # how the role was chosen when the content did not decide (pair_inputs) is shown with the hints
    hint = "; ".join(x for x in (f.role_note, f.hint) if x) or None
    return Side(source, f.path, f.data, f.size, f.mtime_ns, hint)


def read_paths(paths: list[str]) -> tuple[Side | None, Side | None]:
    """Read one or two files and tell payload from descriptor by content.

    Raises:
        UserError: a path cannot be read, or the files are not one payload and one descriptor.
    """
    ensure_worker()
    files = []
    for p in paths:
        try:
            files.append(checkpoint.read_input(p))
        except checkpoint.UnreadableInput as e:
            raise UserError(str(e)) from None
    reason = checkpoint.not_a_checkpoint(files)
    if reason:  # not a failed checkpoint: no verdict at all (issue 8)
        from inspector.checkpoint.catalogue import plain_texts

        raise UserError(f"{reason.replace(chr(10), '; ')}. {plain_texts()['what_checkpoints_look_like']}")
    try:
        payload, descriptor = checkpoint.pair_inputs(files)
    except checkpoint.PairingError as e:
        raise UserError(str(e)) from None
    return (_side(payload, "payload") if payload else None,
            _side(descriptor, "descriptor") if descriptor else None)


def load_paths(paths: list[str], *, progress=None, partial=None, cancel=None) -> Analysis:
    """Read, index and verify the given files (worker thread).

    Args:
        paths: one or two file paths.
        progress: ``callable(percent: int, text: str)``; percent -1 means unknown.
        partial: ``callable(Analysis)`` called once the trees can be shown, before the
            report exists (large payloads only).
        cancel: ``callable() -> bool``.

    Returns:
        the complete :class:`Analysis`.

    Raises:
        UserError: unreadable input or bad pairing. Cancelled: the user cancelled.
    """
    ensure_worker()
    cancel = cancel or (lambda: False)
    progress = progress or (lambda pct, text: None)
    progress(0, "Reading files…")
    payload, descriptor = read_paths(paths)
    if cancel():
        raise Cancelled()
    if payload is None or payload.data is None or payload.size <= PROCESS_THRESHOLD:
        progress(30, "Verifying…")
        result = analyse_bytes(payload, descriptor, cancel=cancel)
        if payload is not None and payload.data is None:
            payload.parse_error = (payload.hint or "the file is over the 256 MiB ceiling and was not read", None)
        return result
    return _load_large(payload, descriptor, progress, partial, cancel)


def _load_large(payload: Side, descriptor: Side | None, progress, partial, cancel) -> Analysis:
    """Verify and index a large payload in a worker process while this thread waits.

    Hash before parse: the descriptor's rules, the payload's size and its content digest are
    decided here first (one SHA-256 pass, which releases the GIL) and shown at once as a partial
    verdict (``Analysis.stage``). Then one child process parses the payload once: the engine's
    fast path verifies it and, while comparing the re-encoding, records the child spans the
    trees need (``verify(spans=...)``), so verdicts and trees come together with no second parse
    or hash (also for a pretty-printed, CRLF or reordered payload the fast path reads). Any other
    payload (the fast path gives no spans) is indexed by a second child after the verdicts; the
    verifying child sends the structure stage as soon as it is known.
    """
    if descriptor is not None:
        _index_small(descriptor)
    t0 = time.perf_counter()
    progress(5, "Checking the descriptor and hashing the payload…")
    stage = checkpoint.first_stage(payload.data, descriptor.data if descriptor else None)
    digest = next((r.recomputed for r in stage.digests if r.label == "payload content_digest"), None) if stage else None
    payload.sha256 = digest
    if partial is not None:
        partial(Analysis(replace(payload), descriptor, None, stage=stage))
    if cancel():
        raise Cancelled()
    verifier = ChildTask(_child_analyse, (payload.path, descriptor.data if descriptor else None, payload.size,
                                         payload.mtime_ns, digest, BIG), nice=0)
    # The verifier's fast path gives the spans of a canonical payload and of a pretty-printed or
    # reordered one; only for anything else does a second child index the bytes, after the verdicts.
    indexer = None
    verifier.start()
    # Rough rate measured here (verify of a 247 MiB payload: about 5 s), for an honest estimate.
    est_verify = max(1.0, payload.size / 50e6)
    index_done = report = None
    last_progress = -1.0
    last_stage = stage
    try:
        while index_done is None or report is None:
            if cancel():
                raise Cancelled()
            running = [t for t in (indexer, verifier) if t is not None and t.started and not t.done]
            for t in running:
                t.pump(0.05 / len(running))
            if not running:
                time.sleep(0.01)
            if indexer is not None and index_done is None and indexer.done:
                index_done = indexer.result()
                indexer.terminate()
                _set_index(payload, index_done)
                if partial is not None and report is None:
                    partial(Analysis(replace(payload), descriptor, None, stage=last_stage))
            for st in verifier.stages():
                last_stage = st
                if partial is not None:
                    partial(Analysis(replace(payload), descriptor, None, stage=st))
            if report is None and verifier.done:
                report, spans_index = verifier.result()
                verifier.terminate()
                if index_done is None:
                    if spans_index is None:  # not canonical after all: index it now
                        indexer = ChildTask(_child_index, (payload.path, BIG))
                        indexer.start()
                    else:
                        index_done = spans_index
                        _set_index(payload, index_done)
                if isinstance(getattr(report, "views", None), PackedViews):
                    report.views = report.views.unpack()
            elapsed = time.perf_counter() - t0
            v_frac = 1.0 if report is not None else min(0.95, elapsed / est_verify)
            pct = int(5 + 95 * v_frac)
            if elapsed - last_progress >= 0.25:
                last_progress = elapsed
                what = "Verifying and reading the trees" if index_done is None else "Trees ready; verifying"
                progress(pct, f"{what}… {payload.size / 1048576:.0f} MiB, {elapsed:.0f} s")
    finally:
        if indexer is not None:
            indexer.terminate()
        verifier.terminate()
    result = Analysis(payload, descriptor, report, verify_seconds=verifier.seconds)
    try:
        st = os.stat(payload.path)
        if st.st_mtime_ns != payload.mtime_ns or st.st_size != payload.size:
            result.warnings.append("The payload file changed while it was being read; reload to see the current file.")
    except OSError:
        result.warnings.append("The payload file disappeared while it was being read.")
    return result


def _set_index(payload: Side, index) -> None:
    if isinstance(index, ScanError):
        payload.parse_error = (str(index), index.offset)
        payload.index = None
    else:
        payload.index = index


# ----------------------------------------------------------------------------------------------
# Worker processes.

class ChildTask:
    """One function run in a spawned process; results come back through a pipe.

    The child runs at lower priority (``nice``, 10 unless given) so the window gets the CPU as soon as it needs
    it; the verifier of an open runs at the window's own priority (nice 0): at nice 10 on a busy machine it got
    a fraction of a core and the verdicts took twice the engine's own time. Messages are
    ``("progress", fraction)``, ``("stage", checkpoint.Stage)``, ``("ok", value)`` or ``("error", type_name)``.
    """

    def __init__(self, fn, args, nice: int = 10):
        self.fn, self.args, self.nice = fn, args, nice
        self.started = False
        self.done = False
        self.progress: float | None = None
        self.seconds = 0.0
        self._value = None
        self._error = None
        self._stages: list = []

    def stages(self) -> list:
        """Partial verdicts (``checkpoint.Stage``) received since the last call."""
        out, self._stages = self._stages, []
        return out

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe(duplex=False)
        self._t0 = time.perf_counter()
        self._proc = ctx.Process(target=_child_main, args=(child, self.fn, self.args, self.nice), daemon=True)
        self._proc.start()
        self.started = True
        child.close()

    def pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for messages from the child (releases the GIL)."""
        if self.done:
            time.sleep(timeout)
            return
        try:
            while self._conn.poll(timeout):
                msg = self._conn.recv()
                timeout = 0
                if msg[0] == "progress":
                    self.progress = msg[1]
                    continue
                if msg[0] == "stage":
                    self._stages.append(msg[1])
                    continue
                self.done = True
                self.seconds = time.perf_counter() - self._t0
                if msg[0] == "ok":
                    self._value = msg[1]
                else:
                    self._error = msg[1]  # the exception's type name only (never its text)
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
    try:
        if nice:
            os.nice(nice)
    except (AttributeError, OSError):
        pass
    try:
        try:
            value = fn(conn, *args)
            conn.send(("ok", value))
        except (BrokenPipeError, EOFError):
            pass  # the window went away or cancelled: nobody is listening
        except BaseException as e:  # reported to the parent by type only: its text may quote the payload
            conn.send(("error", type(e).__name__))
    except (BrokenPipeError, EOFError, OSError):
        pass
    finally:
        conn.close()


from inspector.checkpoint.views import PackedViews  # noqa: E402  (the views' transport)


def _child_verify(conn, path: str, descriptor: bytes | None, size: int):
    """Verify the payload file in a child process (folder scans); returns the report."""
    return _child_analyse(conn, path, descriptor, size, None, None, None)[0]


def _child_analyse(conn, path: str, descriptor: bytes | None, size: int, mtime_ns: int | None, digest: str | None,
                   big: int | None):
    """Verify the payload file (one parse), sending each stage; returns ``(report, index or None)``.

    ``digest`` is the parent's SHA-256 of the bytes it read: reused only when the file still has
    the size and modification time it had then. The index (``{start: Children}``) comes from the
    fast path's spans, ``None`` when the fast path did not read the payload (or ``big`` is ``None``:
    no index wanted, no stages sent).
    """
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        data = fh.read(checkpoint.MAX_CONTENT_BYTES + 1)  # never more than the ceiling
    if len(data) != size or st.st_mtime_ns != mtime_ns:
        digest = None  # not the bytes the parent hashed
    spans: dict | None = {} if big is not None else None
    sent = [0]

    def send_stage(stage) -> None:
        sent[0] += 1
        if sent[0] > 1 or digest is None:  # the parent showed the bytes stage already
            conn.send(("stage", stage))

    report = checkpoint.verify(data, descriptor, payload_size=len(data), views=True, payload_digest=digest,
                               spans=spans, on_stage=send_stage if big is not None else None)
    # The canonical re-encoding can be as large as the file; the window does not need it.
    report.canonical_bytes = None
    if report.views is not None:  # unpacked chunk by chunk on the loading thread (_load_large)
        report.views = PackedViews(report.views)
    # the fast path records the root container whenever it proved the file canonical
    index = {s: Children(kind, starts, ends, key_starts, keys) for s, (kind, e, starts, ends, key_starts, keys)
             in spans.items() if e - s >= big} if spans else None
    return report, index


def _child_index(conn, path: str, big: int):
    with open(path, "rb") as fh:
        data = fh.read(checkpoint.MAX_CONTENT_BYTES + 1)  # never more than the ceiling
    last = [0.0]

    def progress(done, total):
        now = time.perf_counter()
        if now - last[0] > 0.2:
            last[0] = now
            conn.send(("progress", done / max(total, 1)))

    try:
        return fast_index(data, big=big, progress=progress)
    except ScanError as e:
        return e


# ----------------------------------------------------------------------------------------------
# Sandbox edits.

@dataclass(frozen=True)
class Edit:
    """One sandbox edit, as the user asked for it.

    ``op``: ``value`` (replace one scalar: ``pointer``, ``span`` in the document the window
    showed when the edit was made, ``kind`` and ``text`` as for :func:`apply_edit`) or ``raw``
    (replace the whole ``source`` document with ``data``).
    """

    op: str
    source: str
    pointer: str = ""
    span: tuple = (0, 0)
    kind: str = ""
    text: str = ""
    data: bytes = b""


def _encode_edit(kind: str, text: str) -> bytes:
    if kind == "string":
        value = text
    else:
        try:
            value = checkpoint.parse_value(text.strip().encode("utf-8"))
        except checkpoint.SerdeError as e:
            raise UserError(f"{text!r} is not a JSON value ({e}); put quotes around text") from None
    return checkpoint.encode(value)


def apply_edits(payload: Side | None, descriptor: Side | None, edits: list[Edit]) -> Analysis:
    """Apply ``edits`` in order to the sandbox copies, then recompute once (worker thread).

    Every ``value`` edit's span refers to the document the window showed (``payload`` /
    ``descriptor`` as passed): spans after an earlier edit are shifted by its change in length,
    and editing the same value twice replaces the first new value. After a ``raw`` edit of a
    document its tree spans no longer apply, so later value edits of it are located by pointer.
    An edit that cannot be applied (not a JSON value, the value is gone) is skipped and its
    message returned in ``Analysis.edit_errors``; when none can be applied :class:`UserError`
    is raised with the first message.

    Returns:
        the recomputed :class:`Analysis`; ``edited_sources`` says which documents were changed.
    """
    ensure_worker()
    sides = {"payload": payload, "descriptor": descriptor}
    data = {k: (v.data if v is not None else None) for k, v in sides.items()}
    # Per document: [orig_start, orig_end, current_new_length] of each value replaced so far.
    done: dict[str, list[list[int]]] = {"payload": [], "descriptor": []}
    raw = {"payload": False, "descriptor": False}
    errors: list[str] = []
    changed: set[str] = set()
    for ed in edits:
        src = ed.source
        if ed.op == "raw":
            data[src] = ed.data
            raw[src] = True
            done[src] = []
            changed.add(src)
            continue
        try:
            if data[src] is None:
                raise UserError(f"there is no {src} to edit")
            new = _encode_edit(ed.kind, ed.text)
            cur = data[src]
            if raw[src]:
                try:
                    span = find_span(cur, build_index(cur), ed.pointer)
                except ScanError:
                    span = None
                if span is None:
                    raise UserError(f"{ed.pointer} is no longer in the edited {src}")
                s, e = span
            else:
                s0, e0 = ed.span
                same = next((r for r in done[src] if r[0] == s0 and r[1] == e0), None)
                if any(r is not same and r[0] < e0 and s0 < r[1] for r in done[src]):
                    raise UserError(f"{ed.pointer} overlaps an earlier edit")
                s = s0 + sum(r[2] - (r[1] - r[0]) for r in done[src] if r[1] <= s0)
                e = s + (same[2] if same is not None else e0 - s0)
                if same is not None:
                    same[2] = len(new)
                else:
                    done[src].append([s0, e0, len(new)])
            data[src] = cur[:s] + new + cur[e:]
            changed.add(src)
        except UserError as err:
            errors.append(str(err))
    if not changed:
        raise UserError(errors[0] if errors else "nothing to change")
    out = {}
    for src, side in sides.items():
        if src in changed:
            path = side.path if side is not None else None
            mtime = side.mtime_ns if side is not None else 0
            out[src] = Side(src, path, data[src], len(data[src]), mtime, None)
        else:
            out[src] = _fresh(side)
    result = analyse_bytes(out["payload"], out["descriptor"])
    result.edit_errors = errors
    result.edited_sources = changed
    return result


def apply_edit(payload: Side | None, descriptor: Side | None, source: str, span: tuple[int, int],
               kind: str, text: str) -> Analysis:
    """Replace one scalar value in the sandbox copy and recompute (worker thread).

    Args:
        source: ``payload`` or ``descriptor``: which document is edited.
        span: byte span of the value being replaced.
        kind: the value's JSON kind; for ``string`` the text is taken literally, otherwise it
            must be a JSON value (``42``, ``true``, ``null``, ``"text"``...).
        text: the new value.

    Returns:
        the recomputed :class:`Analysis`; the edited side's ``data`` holds the new bytes,
        with the new value written as canonical JSON (the engine's ``encode``).

    Raises:
        UserError: the text is not a JSON value.
    """
    return apply_edits(payload, descriptor, [Edit("value", source, "", tuple(span), kind, text)])


def replace_bytes(payload: Side | None, descriptor: Side | None, source: str, data: bytes) -> Analysis:
    """Recompute with one side's sandbox bytes replaced wholesale (raw text editor)."""
    return apply_edits(payload, descriptor, [Edit("raw", source, data=data)])


def _fresh(side: Side | None) -> Side | None:
    if side is None:
        return None
    return Side(side.source, side.path, side.data, side.size, side.mtime_ns, side.hint)


# Folder scans live in .folderscan (re-exported here for the window and the tests).
from .folderscan import FolderRow, scan_folder  # noqa: E402,F401
