"""``EditController``: sandbox edits (recomputed off the GUI thread) and Save As (never over a file)."""

from __future__ import annotations

import dataclasses
import os

from PySide6.QtCore import QObject, Signal

from inspector.session import edits as sandbox
from inspector.session import engine
from ..document import Document, display_name
from inspector.session.engine import Analysis
from inspector.session.writing import remove_if_ours, write_new_file
from ..jobs import start_job
from ..qtcompat import emit

__all__ = ["EditController"]


class EditController(QObject):
    """Edits of the open documents and saving them to new files.

    Signals:
        editFailed(str): an edit was not applied (the reason is also a notice).
        saved(list): Save As wrote these new files.
        status(str): a one-line progress message for the status bar.
        openPair(list): a payload and its matching descriptor were saved: open them.
    """

    editFailed = Signal(str)
    saved = Signal(object)  # list of paths (object: exact bytes of every name)
    status = Signal(str)
    openPair = Signal(object)

    def __init__(self, doc: Document, parent=None):
        super().__init__(parent)
        self.doc = doc
        #: Sandbox edits requested since the documents on screen were computed (applied in order).
        self.pending: list[sandbox.Edit] = []
        doc.opening.connect(lambda *_: self._void_pending())
        #: The :class:`~.loading.LoadController` (set by the window): an edit made while its load still runs
        #: waits for the load's end (:meth:`load_ended`).
        self.loader = None
        #: The status text of edits waiting for the running load to end, or ``None``.
        self._waiting: str | None = None
        #: Said once the saved pair is shown.
        self._after_open: str | None = None
        doc.analysed.connect(self._pair_shown)
        doc.failed.connect(lambda *_: setattr(self, "_after_open", None))

    # -- editing ---------------------------------------------------------------------------------
    def request_edit(self, source: str, pointer: str, span, kind: str, text: str) -> None:
        """Replace one scalar in the sandbox copy; recomputed off the GUI thread.

        ``span`` is the value's span in the document on screen. Edits requested before the
        previous recompute landed are kept: every recompute applies all pending edits in order.
        """
        self._queue(sandbox.Edit("value", source, pointer, tuple(span), kind, text),
                    f"Recomputing after editing {source} {pointer}…")

    def request_raw_edit(self, source: str, text: str) -> None:
        """Replace a whole document with the raw editor's text; recomputed off the GUI thread."""
        data = text.encode("utf-8")
        current = self.doc.side(source)
        if not self.pending and current is not None and current.data == data:
            return
        self._queue(sandbox.Edit("raw", source, data=data), "Recomputing…")

    def _queue(self, edit: sandbox.Edit, text: str) -> None:
        """Add ``edit`` to the pending ones and recompute them all from the documents on screen
        (the engine encodes values, so even a small edit is applied off the GUI thread). A newer
        request supersedes this job, but not its edits: they are part of the newer one."""
        self.pending.append(edit)
        if self.loader is not None and self.loader.job is not None:
            # a large payload's timeline (or trees) still follow its verdicts: a recompute now would supersede
            # that load unfinished; the edit is applied on the same documents once it has ended
            self._waiting = text
            emit(self.status, "The edit is applied once the checkpoint has finished loading…")
            return
        self._recompute(text)

    def load_ended(self) -> None:
        """The running load ended (shown, failed or cancelled): apply the edits that waited for it."""
        text, self._waiting = self._waiting, None
        if text is not None and self.pending:
            self._recompute(text)

    def _void_pending(self) -> None:
        self.pending.clear()
        self._waiting = None

    def _recompute(self, text: str) -> None:
        """Recompute the documents on screen with every pending edit (a job superseding the previous one)."""
        doc = self.doc
        edits = list(self.pending)
        payload, descriptor = doc.payload, doc.descriptor
        # The raw editor keeps its text for a document whose last edit came from it (the user is typing there).
        last = {e.source: e.op for e in edits}
        from_raw = {src for src, op in last.items() if op == "raw"}
        job = doc.jobs.new(lambda ctx: sandbox.apply_edits(payload, descriptor, edits), "recomputing after an edit")
        cur = doc.jobs.current
        job.signals.finished.connect(lambda a, j=job: cur(j) and self._done(a, from_raw))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._failed(msg))
        emit(self.status, text)
        start_job(job)

    def _done(self, a: Analysis, from_raw):
        self.pending.clear()
        self.doc.edited_sources |= a.edited_sources
        self.doc.unsaved |= a.edited_sources
        self.doc.unsay("error")
        self.doc.present(a, None, edited=True, keep_view=True, from_raw=from_raw)
        for msg in a.edit_errors:
            self._failed(msg)

    def _failed(self, msg):
        self.pending.clear()
        self.doc.say("error", "error", f"The edit was not applied: {msg}")
        emit(self.editFailed, msg)

    # -- saving (never over an input file, never over any existing file) --------------------------
    def check_new_path(self, path: str) -> None:
        """Raise :class:`engine.UserError` unless ``path`` is a new file (not an input, not existing)."""
        doc = self.doc
        inputs = [s.path for s in doc.sides() if s.path] + list(doc.paths)
        if os.path.exists(path):
            for p in inputs:
                if os.path.exists(p) and os.path.samefile(p, path):
                    raise engine.UserError(f"{path} is an input file; the inspector never overwrites its inputs. "
                                           "Choose a new file name.")
            raise engine.UserError(f"{path} already exists; choose a new file name (nothing is ever overwritten).")

    def _no_descriptor(self, short: bool = False) -> engine.UserError:
        if short:
            return engine.UserError("No descriptor can be produced: the payload does not decode.")
        why = ""
        report = self.doc.report
        if report is not None and report.root_cause is not None:
            rc = report.root_cause
            why = f" ({rc.rule.id}: {rc.message})"
        return engine.UserError("No descriptor can be produced: the payload does not decode as a "
                                f"checkpoint payload{why}. Fix the payload first.")

    def save_payload_as(self, path: str, descriptor_path: str | None = None) -> list[str]:
        """Write the current payload bytes (edited or not) to a new file, and optionally the descriptor
        that matches them (the engine's ``expected_descriptor``).

        Both files are written whole or not at all (:func:`inspector.session.writing.write_new_file`):
        a payload that cannot be written whole (disk full, a close that fails) is removed, and so is
        the payload when its descriptor cannot be written.

        Raises:
            engine.UserError: the path exists or is an input, no matching descriptor can be
            produced because the payload does not decode, or a file could not be written whole
            (the message says which and why, and that nothing was left).
        """
        doc = self.doc
        if doc.payload is None or doc.payload.data is None:
            raise engine.UserError("There is no payload to save.")
        if not isinstance(doc.payload.data, (bytes, bytearray)):  # a large payload still read on demand
            raise engine.UserError("The payload is still being verified; save it once the verdicts are shown.")
        self.check_new_path(path)
        desc = None
        if descriptor_path is not None:
            self.check_new_path(descriptor_path)
            if os.path.abspath(descriptor_path) == os.path.abspath(path):
                raise engine.UserError("Choose two different file names for the payload and the descriptor.")
            desc = doc.report.expected_descriptor if doc.report is not None else None
            if desc is None:
                raise self._no_descriptor()
        written = [_write_whole(path, doc.payload.data)]
        if desc is not None:
            try:
                written.append(_write_whole(descriptor_path, desc))
            except BaseException:
                remove_if_ours(path, written[0][1])  # all or nothing: not a payload without its descriptor
                raise
        written = [p for p, _ident in written]
        self._after_save(written, {"payload": path}, matching=descriptor_path if desc is not None else None)
        emit(self.saved, written)
        return written

    def save_descriptor_as(self, path: str, *, matching: bool = False) -> str:
        """Write the current descriptor (or, with ``matching``, the one the payload should have) to a new file.

        Raises:
            engine.UserError: the path exists or is an input, there is nothing to save, or the file
            could not be written whole (nothing is left of it).
        """
        doc = self.doc
        self.check_new_path(path)
        if matching:
            data = doc.report.expected_descriptor if doc.report is not None else None
            if data is None:
                raise self._no_descriptor(short=True)
        else:
            if doc.descriptor is None or doc.descriptor.data is None:
                raise engine.UserError("There is no descriptor to save.")
            data = doc.descriptor.data
        _write_whole(path, data)
        self._after_save([path], {} if matching else {"descriptor": path})
        emit(self.saved, [path])
        return path

    def _after_save(self, written: list[str], sandbox: dict[str, str], matching: str | None = None) -> None:
        """After Save As: drop a stale "Not saved" message, mark each saved edited document as
        saved to its new file, and show the saved pair (payload with its matching descriptor).

        ``sandbox``: source -> new path for documents written as the window shows them;
        ``matching``: the path of a descriptor recomputed to match the payload (not the one shown).
        When every edit is saved, the window shows the new file(s) as opened files (title, reload,
        stale check and recent files follow them); the originals are unchanged either way.
        """
        doc = self.doc
        doc.unsay("error")
        for source, path in sandbox.items():
            side = doc.side(source)
            if side is None or source not in doc.edited_sources:
                continue
            st = os.stat(path)
            doc.mark_saved(source, dataclasses.replace(side, path=path, mtime_ns=st.st_mtime_ns, size=st.st_size))
        if doc.edited and not doc.unsaved:
            doc.edited = False
            doc.paths = [s.path for s in doc.sides() if s.path]
            doc.watch(doc.paths)
            emit(doc.opened, list(doc.paths))
            doc.unsay("edited", "stale")
        shows = " + ".join(display_name(s.path) for s in doc.sides() if s.path)
        text = "Saved " + " and ".join(written) + ". The original files are unchanged."
        if not doc.edited:
            text += f" The window now shows {shows}."
        if matching is not None:
            # The descriptor shown is not the one saved: show the saved pair (verified), not the
            # new payload beside the old descriptor.
            pair = [sandbox.get("payload") or written[0], matching]
            self._after_open = ("Saved " + " and ".join(written) + ". The original files are unchanged. "
                                "The window now shows the saved pair.")
            emit(self.openPair, pair)
            return
        doc.say("info", "info", text)
        emit(doc.changed)

    def _pair_shown(self, *_):
        if self._after_open is not None:
            text, self._after_open = self._after_open, None
            self.doc.say("info", "info", text)


def _write_whole(path: str, data: bytes) -> tuple[str, tuple[int, int]]:
    """Write the new file ``path`` whole or leave nothing (:func:`inspector.session.writing.write_new_file`);
    returns ``(path, (st_dev, st_ino))``, the identity a later undo removes only if unchanged.

    Raises:
        engine.UserError: ``path`` exists (a FIFO or device included: never opened), or it could not
        be created or written whole (``"PATH could not be written: No space left on device. Nothing
        was saved."``).
    """
    try:
        ident = write_new_file(path, data)
    except FileExistsError:
        raise engine.UserError(f"{path} already exists; choose a new file name (nothing is ever overwritten).") from None
    except OSError as e:
        raise engine.UserError(f"{path} could not be written: {e.strerror or type(e).__name__}. "
                               "Nothing was saved (no part of the file was left).") from None
    return path, ident
