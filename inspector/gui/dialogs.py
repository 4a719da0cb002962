"""The window's modal dialogs: open, save as (payload, descriptor), confirm discard, about, shortcuts.

Each function takes the :class:`~.window.MainWindow` and acts through its controllers.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from inspector.checkpoint.rules.catalogue import plain_texts
from inspector.session import edits, engine
from inspector.session.pathnames import qt_holdable, resolve_chosen_path, resolve_new_path

from .jobs import start_job

__all__ = ["open_dialog", "open_folder_dialog", "open_url_dialog", "save_dialog", "save_descriptor_dialog", "confirm_discard", "save_start",
           "about", "no_dialogs"]


def no_dialogs() -> bool:
    """True where no modal dialog may be shown (offscreen tests, ``CHECKPOINT_INSPECTOR_NO_DIALOGS``)."""
    return QApplication.platformName() == "offscreen" or bool(os.environ.get("CHECKPOINT_INSPECTOR_NO_DIALOGS"))


class OpenDialog(QFileDialog):
    """File ▸ Open: one or two files. A name the dialog returns that does not exist as given (a
    byte that is not valid UTF-8: Qt shows it as U+FFFD, the window as ``\\xNN``, which the user
    may type) is mapped back to the file on disk (:func:`~.pathnames.resolve_chosen_path`).

    Attributes:
        chosen: the paths to open (exact bytes of each name), set when accepted.
    """

    def __init__(self, parent, start: str):
        super().__init__(parent, "Open checkpoint payload and/or descriptor", start,
                         "JSON files (*.json);;All files (*)")
        self.setObjectName("openDialog")
        self.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        self.chosen: list[str] = []

    def typed_names(self) -> list[str]:
        """The names in the file name field (``"a" "b"`` for several), as full paths; Qt's own
        list (``selectedFiles``) leaves out a typed name it cannot find."""
        import re

        from PySide6.QtWidgets import QLineEdit

        edit = self.findChild(QLineEdit, "fileNameEdit")
        text = edit.text().strip() if edit is not None else ""
        if not text:
            return self.selectedFiles()
        # "a" "b" for several names (Qt's completer may have eaten the first quote: a" "b")
        names = [n.strip().strip('"') for n in re.split(r'"\s+"', text)] if '"' in text else [text]
        names = [n for n in names if n]
        folder = self.directory().absolutePath()
        return [os.path.join(folder, os.path.expanduser(n)) for n in names]

    def accept(self):
        names = self.typed_names()
        found = [resolve_chosen_path(n) for n in names]
        if names and all(found) and not any(os.path.isdir(p) for p in found):
            self.chosen = found
            QDialog.accept(self)  # (QFileDialog's own check would say "file not found")
            return
        super().accept()  # a folder to go into, or a name that is really not there: Qt says so

    def done(self, result):
        if result == QDialog.DialogCode.Accepted and not self.chosen:  # accepted by QFileDialog or a native dialog
            self.chosen = [resolve_chosen_path(n) or n for n in self.selectedFiles()]
        super().done(result)


def open_dialog(w) -> None:
    """File ▸ Open…: the dialog opens over the window (not blocking it); the chosen files open."""
    start = os.path.dirname(w.doc.paths[0]) if w.doc.paths else ""
    if start and (not os.path.isdir(start) or start != start.encode("utf-8", "replace").decode("utf-8")):
        start = ""  # (a folder name Qt cannot hold: start where Qt does)
    dlg = OpenDialog(w, start)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    if no_dialogs():
        dlg.setOption(QFileDialog.Option.DontUseNativeDialog)
    # a payload chosen alone opens with the descriptor beside it that matches, as the command line and a drop do
    # the pairing notice says which file was taken
    dlg.accepted.connect(lambda: dlg.chosen and w.open_paths(dlg.chosen))
    dlg.open()


def open_url_dialog(w) -> None:
    """File ▸ Open URL… (Ctrl+Shift+U): one file by URL (``https://``, ``s3://``, ``gs://``, ``az://``,
    ``memory://`` …, through fsspec, the ``sources`` extra); the window reads it off the GUI thread into a local
    copy and opens that (:func:`inspector.session.routing.fetch_url`). The dialog opens window-modal, not
    blocking; a value that is not a URL is opened as a path."""
    from PySide6.QtWidgets import QInputDialog, QLineEdit

    dlg = QInputDialog(w)
    dlg.setObjectName("openUrlDialog")
    dlg.setWindowTitle("Open URL")
    dlg.setLabelText("The URL of a payload or an SDK export wrapper (https://, s3://, gs://, az://; credentials "
                     "come from the usual places of each store, never from this box):")
    dlg.setTextEchoMode(QLineEdit.EchoMode.Normal)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    w.open_url_widget = dlg
    dlg.textValueSelected.connect(lambda text: text.strip() and w.open_paths([text.strip()]))
    dlg.open()


def open_folder_dialog(w) -> None:
    """File ▸ Open Folder: the folder chosen is mapped back to its exact bytes on disk (see OpenDialog)."""
    start = qt_holdable(os.path.dirname(w.doc.paths[0])) if w.doc.paths else ""
    folder = QFileDialog.getExistingDirectory(w, "Open a folder of checkpoints", start)
    if folder:
        w.open_paths([resolve_chosen_path(folder) or folder])


def confirm_discard(w) -> bool:
    """Ask before unsaved edits are dropped; True to go on."""
    if no_dialogs():
        return True
    r = QMessageBox.question(w, "Discard edits?", "The edited checkpoint has not been saved. Discard it?",
                             QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
    return r == QMessageBox.StandardButton.Discard


def documents_dir() -> str:
    """The user's documents folder (else the home folder): where saving a bundled sample starts."""
    from PySide6.QtCore import QStandardPaths

    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs if docs and os.path.isdir(docs) else os.path.expanduser("~")


def descriptor_name_for(payload_path: str) -> str:
    """The suggested name of the descriptor saved beside ``payload_path``: ``payload`` in the file
    name becomes ``descriptor`` (``edited.payload.json`` -> ``edited.descriptor.json``), else
    ``.descriptor.json`` replaces the extension (``run7.json`` -> ``run7.descriptor.json``)."""
    folder, name = os.path.split(payload_path)
    k = name.lower().rfind("payload")
    if k >= 0:
        return os.path.join(folder, name[:k] + "descriptor" + name[k + len("payload"):])
    return os.path.join(folder, os.path.splitext(name)[0] + ".descriptor.json")


def save_start(w, name: str) -> str:
    """Where a save dialog for ``name`` starts (an absolute path): beside the open files, or in the
    user's documents folder for the bundled sample (never inside the installed package, which an
    installed app cannot write: /usr/lib/checkpoint-inspector/... from the .deb)."""
    doc = w.doc
    if doc.is_sample() or not doc.paths:
        return os.path.join(documents_dir(), os.path.basename(name))
    return os.path.join(os.path.dirname(os.path.abspath(doc.paths[0])), os.path.basename(name))


def ask_new_file(w, title: str, suggestion: str, filters: str = "JSON files (*.json);;All files (*)") -> str | None:
    """A save dialog for a new file starting at ``suggestion``; the path chosen, with the exact bytes
    of its folder (and of the suggested name, if kept) even where they are not valid UTF-8."""
    path, _ = QFileDialog.getSaveFileName(w, title, qt_holdable(suggestion), filters,
                                          options=QFileDialog.Option.DontConfirmOverwrite)
    return resolve_new_path(path, suggestion) if path else None


def save_dialog(w) -> None:
    """File ▸ Save Payload As: a new payload file and, if wanted, the descriptor that matches it."""
    doc, editor = w.doc, w.editor
    if doc.payload is None:
        return
    base = doc.payload.path or "checkpoint.payload.json"
    stem = os.path.splitext(os.path.basename(base))[0]
    path = ask_new_file(w, "Save payload as a new file", save_start(w, stem + ".edited.json"))
    if not path:
        return
    try:  # refuse an input or existing file now, before asking about the descriptor
        editor.check_new_path(path)
    except engine.UserError as e:
        doc.say("error", "error", f"Not saved: {e}")
        return
    desc_path = None
    if doc.report is not None and doc.report.expected_descriptor is not None:
        r = QMessageBox.question(w, "Also save a matching descriptor?",
                                 "Also write the descriptor that matches this payload (recomputed digests)?",
                                 QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        if r == QMessageBox.StandardButton.Yes:
            desc_path = ask_new_file(w, "Save matching descriptor as a new file", descriptor_name_for(path))
    try:
        editor.save_payload_as(path, desc_path)  # says "Saved …" and shows the saved pair
    except (engine.UserError, OSError) as e:
        doc.say("error", "error", f"Not saved: {e}")


def what_verified_proves(w) -> None:
    """The verdict bar's What VERIFIED proves…: the full text (``plain.toml`` ``not_proven``), one click away."""
    box = QMessageBox(QMessageBox.Icon.Information, "What VERIFIED proves",
                      "VERIFIED proves integrity, not authenticity.", QMessageBox.StandardButton.Close, w)
    box.setObjectName("whatVerifiedProvesDialog")
    box.setInformativeText("\n\n".join(plain_texts()["not_proven"]))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def restore_dialog(w) -> None:
    """Restore Original…: ask for a new file, write the proven original there off the GUI thread
    (:func:`inspector.session.edits.restore_to`), then open it with its descriptor."""
    doc = w.doc
    if not doc.can_restore():
        doc.say("error", "error", "Nothing to restore: the original of this payload cannot be proven from its "
                                  "descriptor (restore needs an X-BYTES failure whose canonical re-encoding matches).")
        return
    stem = os.path.splitext(os.path.basename(doc.payload.path))[0]
    path = ask_new_file(w, "Restore the original payload to a new file", save_start(w, stem + ".restored.json"))
    if not path:
        return
    try:
        w.editor.check_new_path(path)
    except engine.UserError as e:
        doc.say("error", "error", f"Not restored: {e}")
        return
    payload, descriptor, desc_path = doc.payload.data, doc.descriptor.data, doc.descriptor.path
    job = doc.jobs.new(lambda ctx: edits.restore_to(payload, descriptor, path), "restoring the original", lane="save")
    job.signals.finished.connect(lambda written: (doc.unsay("restore"), w.open_paths([written, desc_path])))
    job.signals.failed.connect(lambda msg: doc.say("error", "error", f"Not restored: {msg}"))
    start_job(job)


def save_descriptor_dialog(w) -> None:
    """File ▸ Save Descriptor As: the current descriptor, or the one matching the payload."""
    doc = w.doc
    matching = False
    if doc.report is not None and doc.report.expected_descriptor is not None:
        box = QMessageBox(QMessageBox.Icon.Question, "Save descriptor", "Which descriptor do you want to save?",
                          parent=w)
        m = box.addButton("The one matching the payload", QMessageBox.ButtonRole.AcceptRole)
        c = box.addButton("The current descriptor", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() not in (m, c):
            return
        matching = box.clickedButton() is m
    name = descriptor_name_for(doc.payload.path) if doc.payload is not None and doc.payload.path else \
        "checkpoint.descriptor.json"
    path = ask_new_file(w, "Save descriptor as a new file", save_start(w, name))
    if not path:
        return
    try:
        w.editor.save_descriptor_as(path, matching=matching)
    except (engine.UserError, OSError) as e:
        doc.say("error", "error", f"Not saved: {e}")


def about(w) -> None:
    from .about import show_about

    show_about(w)  # version, licence, and a Licences… button (the full texts)
