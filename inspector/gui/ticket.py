"""The window's ticket report: "Copy for ticket" and File ▸ Export Report….

Both use :mod:`inspector.ticket`, exactly as ``checkpoint-inspector report`` does, so the text the
button copies is the text ``report --format text`` prints for the same files. The report is built
in a background job (the redaction reads the whole payload); the verdict it states is the one
the window already shows, computed on the original bytes.
"""

from __future__ import annotations

import hashlib
import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QMessageBox,
    QPlainTextEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
)

from inspector.checkpoint import InputFile
from inspector.formats import family
from inspector.ticket import allowlist, build_ticket, gate_for, redact_payload, render

from inspector.session.writing import remove_if_ours, write_new_file

from .accessibility import announce
from .jobs import start_job

__all__ = ["ticket_inputs", "ticket_text", "copy_for_ticket", "ExportReportDialog", "export_dialog",
           "EXPORT_FORMATS", "write_export"]

#: (label, ``report --format`` name, file suffix), from the one registry of the report family (:mod:`inspector.formats`)
EXPORT_FORMATS = tuple((f"{f.label} ({f.suffix})", f.name, f.suffix) for f in family("report"))


def ticket_inputs(doc):
    """``(report, payload InputFile, descriptor InputFile)`` of what the window shows (the files'
    bytes as opened, or the sandbox copy once edited); ``None`` while nothing complete is shown."""
    if doc.report is None:
        return None
    files = {}
    for side in doc.sides():
        hint = side.hint
        if side.source in doc.unsaved:  # the sandbox copy: say so, its digest is not the customer's file's
            hint = "edited in Checkpoint Inspector and not saved: these are not the bytes of the file named"
        files[side.source] = InputFile(side.path or f"(edited {side.source})", side.size, side.data, side.source,
                                       hint)
    return doc.report, files.get("payload"), files.get("descriptor")


def ticket_text(report, payload, descriptor, fmt: str = "text", *, hash_prefix: bool = False,
                redacted: dict | None = None, gate=None) -> str:
    """The report in ``fmt``, exactly as ``checkpoint-inspector report --format FMT`` makes it (through
    the same gate: ``gate``, the redacted copy's when one was written, else one made for these files)."""
    return render(build_ticket(report, payload, descriptor, hash_prefix=hash_prefix, redacted_payload=redacted,
                               gate=gate), fmt)


def copy_for_ticket(w) -> None:
    """Verdict bar ▸ Copy for ticket (Edit ▸ Copy for Ticket): the ``report --format text`` text of
    the open checkpoint on the clipboard; the status bar says when it is there."""
    inputs = ticket_inputs(w.doc)
    if inputs is None:
        w.statusBar().showMessage("Nothing to copy yet: open a checkpoint (or wait for its verdict)", 5000)
        announce(w, "Nothing to copy yet: open a checkpoint (or wait for its verdict)")
        return
    job = w.doc.jobs.new(lambda ctx: ticket_text(*inputs), "making the ticket report", lane="ticket")

    def done(text, j=job):
        if w.doc.jobs.current(j):
            QApplication.clipboard().setText(text)
            w.ticket_copied = text
            said = f"Ticket text copied ({len(text.splitlines())} lines, no checkpoint content): paste it into the ticket"
            w.statusBar().showMessage(said, 8000)
            announce(w, said)

    job.signals.finished.connect(done)
    job.signals.failed.connect(lambda msg: (w.statusBar().showMessage(msg, 8000), announce(w, msg, error=True)))
    w.statusBar().showMessage("Making the ticket report…")
    start_job(job)


def _new_file(path: str, data: bytes) -> tuple[int, int]:
    """Write a file that must not exist (O_EXCL: an existing FIFO or device is refused, never opened),
    every byte, flushed to the disk (:func:`inspector.session.writing.write_new_file`); a write that does
    not complete (disk full, a close that fails, ...) removes the file it created: no partial file is
    left. Returns the file's ``(st_dev, st_ino)``. Raises FileExistsError, or OSError whose ``filename``
    is ``path``."""
    try:
        return write_new_file(path, data)
    except FileExistsError:
        raise
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from None


def _remove_new(written: list[tuple[str, tuple[int, int]]]) -> None:
    """Remove files this export created (O_EXCL: never one that existed before), each only if its name
    still names the file written (:func:`inspector.session.writing.remove_if_ours`); never raises."""
    for path, ident in written:
        remove_if_ours(path, ident)


def write_export(report, payload, descriptor, fmt: str, path: str, *, redacted_path: str | None = None,
                 hash_prefix: bool = False, file_digests: bool = False) -> list[str]:
    """Write the report (and, with ``redacted_path``, a redacted copy of the payload) to new files.

    ``file_digests``: the files' own digests in clear (``report --file-digests``); by default each is a
    tagged marker (allowlist.toml ``[[digest]]`` treatment ``file``).

    An export either completes or leaves nothing behind: if anything fails once the redacted copy
    is written (the report cannot be rendered or written, a crash, an interrupt), the copy and any
    part of the report file are removed before the exception goes on. Only files this call
    created (O_EXCL) are removed, never one that existed before.

    Returns:
        the paths written. Raises FileExistsError when a target exists (nothing is overwritten),
        ValueError when no redacted copy can be made (the payload is not JSON), OSError (``filename``:
        the file) when a file cannot be written whole (disk full, ...; nothing is left).
    """
    for target in (path, redacted_path):
        if target and os.path.lexists(target):
            raise FileExistsError(target)
    facts = None
    written = []
    gate = gate_for(payload.data if payload else None, descriptor.data if descriptor else None, tags=hash_prefix,
                    file_digests=file_digests)
    try:
        if redacted_path:
            data, reps = redact_payload(payload.data, hash_prefix=hash_prefix, gate=gate)
            written.append((redacted_path, _new_file(redacted_path, data)))
            facts = {"name": os.path.basename(redacted_path), "size_bytes": len(data),
                     "sha256": "sha256:" + hashlib.sha256(data).hexdigest(), "replacements": len(reps)}
        _new_file(path, ticket_text(report, payload, descriptor, fmt, hash_prefix=hash_prefix,
                                    redacted=facts, gate=gate).encode("utf-8"))
    except BaseException:
        _remove_new(written)
        raise
    return [path] + [p for p, _ident in written]


class ExportReportDialog(QDialog):
    """File ▸ Export Report…: format, redacted payload (with every replacement listed before
    saving), opt-in tags (keyed per report), and the allow-list: "What leaves this machine".

    The dialog only chooses; :meth:`accepted_choice` gives ``(fmt, redacted, hash_prefix, file_digests)``.
    """

    def __init__(self, report, payload, descriptor, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export Report")
        self.setObjectName("exportReportDialog")
        self._inputs = (report, payload, descriptor)
        lay = QVBoxLayout(self)
        intro = QLabel("A report for a support ticket: the verdict, its root cause in plain words, file names "
                       "and sizes (the files' digests as tags, unless asked below). A value from the checkpoint is shown only where the list below allows "
                       "it and only when it is of its field's kind (an id, a number, a digest, a listed value); "
                       "everything else is redacted. Verification ran on the original files.")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.format = QComboBox()
        self.format.setObjectName("exportFormat")
        for label, name, _suffix in EXPORT_FORMATS:
            self.format.addItem(label, name)
        form.addRow("Format:", self.format)
        lay.addLayout(form)
        self.redacted = QCheckBox("Also save a redacted copy of the payload (a separate new file)")
        self.redacted.setObjectName("exportRedactedPayload")
        self.redacted.setEnabled(payload is not None and payload.data is not None)
        lay.addWidget(self.redacted)
        self.prefixes = QCheckBox("Tag each redacted value (equal values in this report share a tag; the tags are "
                                  "keyed with a random key that is never saved, so no tag reveals a value)")
        self.prefixes.setObjectName("exportPrefixes")
        lay.addWidget(self.prefixes)
        self.file_digests = QCheckBox("Show the files' own digests in clear (to match the report to the files; "
                                      "beside a redacted copy each one can test guesses at a short redacted value)")
        self.file_digests.setObjectName("exportFileDigests")
        lay.addWidget(self.file_digests)
        self.replacements = QPlainTextEdit()
        self.replacements.setObjectName("exportReplacements")
        self.replacements.setReadOnly(True)
        self.replacements.setVisible(False)
        self.replacements.setMaximumHeight(130)
        lay.addWidget(self.replacements)
        lay.addWidget(QLabel("<b>What leaves this machine</b> (only these fields may be shown, each value only if "
                             "it passes its field's check; the rest is replaced by [redacted: KIND, N bytes]):"))
        self.allow = QTreeWidget()
        self.allow.setObjectName("exportAllowList")
        self.allow.setHeaderHidden(True)
        for g in allowlist().groups:
            item = QTreeWidgetItem([f"{g.source}: {g.what}"])
            item.setToolTip(0, g.what)
            for p in g.paths:
                QTreeWidgetItem(item, [p or "(the document itself)"])
            self.allow.addTopLevelItem(item)
        for d in allowlist().digests:  # a digest or size over redacted content is that content: never shown
            if d.treatment not in ("tag", "file"):
                continue
            shown = ("a tagged marker unless the box above is ticked" if d.treatment == "file"
                     else "never shown, a tagged marker instead")
            item = QTreeWidgetItem([f"{d.source}: {shown} ({d.kind}): {d.digests}"])
            item.setToolTip(0, d.digests)
            for p in d.paths:
                QTreeWidgetItem(item, [p])
            self.allow.addTopLevelItem(item)
        lay.addWidget(self.allow, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.redacted.toggled.connect(self._preview)
        self.prefixes.toggled.connect(self._preview)
        self.resize(760, 560)

    def _preview(self, *_):
        """List every replacement the redacted copy would make (small files: at once)."""
        report, payload, _descriptor = self._inputs
        show = self.redacted.isChecked()
        self.replacements.setVisible(show)
        if not show:
            return
        if len(payload.data) > (8 << 20):
            self.replacements.setPlainText("The replacements are listed on saving (the payload is large).")
            return
        try:
            _data, reps = redact_payload(payload.data, hash_prefix=self.prefixes.isChecked())
        except ValueError as e:
            self.replacements.setPlainText(f"No redacted copy can be made: the payload is {e}.")
            return
        lines = [f"{len(reps)} replacements:"] + [f"{r.pointer}: {r.what} ({r.kind}, {r.size} bytes"
                                                 f"{', ' + r.digest if r.digest else ''})" for r in reps]
        self.replacements.setPlainText("\n".join(lines))

    def accepted_choice(self) -> tuple[str, bool, bool, bool]:
        """``(format name, write a redacted payload, tags, the files' digests in clear)``."""
        return (self.format.currentData(), self.redacted.isChecked(), self.prefixes.isChecked(),
                self.file_digests.isChecked())


def ask_export_path(w, suggested: str) -> str:
    """Ask where to save the report (a new file); ``""`` when cancelled. The inspector refuses an
    existing file itself, so the dialog does not ask to overwrite."""
    from .dialogs import ask_new_file

    return ask_new_file(w, "Export report", suggested, "All files (*)") or ""


def export_dialog(w) -> None:
    """File ▸ Export Report… (Ctrl+Shift+E): the dialog opens window-modal (not blocking); on Save,
    the report (and the redacted payload) go to new files, never over an existing one."""
    inputs = ticket_inputs(w.doc)
    if inputs is None:
        w.statusBar().showMessage("Nothing to export yet: open a checkpoint (or wait for its verdict)", 5000)
        return
    dlg = ExportReportDialog(*inputs, parent=w)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    w.export_dialog_widget = dlg
    dlg.accepted.connect(lambda: _save_export(w, inputs, *dlg.accepted_choice()))
    dlg.open()


def _save_export(w, inputs, fmt: str, redacted: bool, prefixes: bool, file_digests: bool = False) -> None:
    suffix = next(s for _l, n, s in EXPORT_FORMATS if n == fmt)
    from .dialogs import save_start

    first = inputs[1] or inputs[2]
    base = os.path.splitext(os.path.basename(first.path))[0]
    path = ask_export_path(w, save_start(w, f"{base}.report{suffix}"))
    if not path:
        return
    redacted_path = os.path.splitext(path)[0] + ".redacted-payload.json" if redacted else None
    try:
        written = write_export(*inputs, fmt, path, redacted_path=redacted_path, hash_prefix=prefixes,
                               file_digests=file_digests)
    except FileExistsError as e:
        _warn(w, f"{e.filename or e.args[0]} exists; the inspector never overwrites a file. Choose a new name.")
        return
    except OSError as e:
        _warn(w, f"Could not export: {e.filename or path} could not be written: {e.strerror or type(e).__name__}. "
                 "Nothing was saved (no part of the files was left).")
        return
    except ValueError as e:
        _warn(w, f"Could not export: {e}")
        return
    w.exported = written
    w.statusBar().showMessage("Report saved: " + ", ".join(os.path.basename(p) for p in written), 8000)


def _warn(w, text: str) -> None:
    from .dialogs import no_dialogs

    w.statusBar().showMessage(text, 10000)
    if not no_dialogs():
        QMessageBox.warning(w, "Export Report", text)
