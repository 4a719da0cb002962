"""``CompareController``: the ways into the comparison and canonical diff views.

* two payloads (or two descriptors) opened or dropped together open a comparison window instead
  of being refused;
* File ▸ Compare With… compares the open payload (or descriptor) with a file the user picks;
* a folder row's context menu: Compare with Open Payload / Compare with…;
* View ▸ Canonical Diff shows the open payload beside the canonical bytes (P-CANONICAL).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMenu

from inspector.session import compare_loading as compare_engine
from ..jobs import start_job
from ..roles import ObjectRole

__all__ = ["CompareController"]


class CompareController(QObject):
    """Opens :class:`~inspector.gui.compare_view.CompareWindow` and
    :class:`~inspector.gui.canon_view.CanonicalDiffWindow` for the main window ``w``.

    Attributes:
        windows: the comparison and canonical diff windows opened so far (kept alive here).
        pick_file: ``callable(title) -> path or None`` asking for a file (a file dialog; tests
            replace it).

    Signals:
        opened(QMainWindow): a comparison or canonical diff window was opened.
    """

    opened = Signal(object)

    def __init__(self, w, parent=None):
        super().__init__(parent or w)
        self.w = w
        self.windows: list = []
        self.pick_file = self._dialog
        view = w.folder_view
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self.folder_menu)
        view.installEventFilter(self)
        self.menu: QMenu | None = None

    def eventFilter(self, obj, event):
        # the keyboard's context menu (Menu key, Shift+F10) on every platform
        if obj is self.w.folder_view and event.type() == QEvent.Type.KeyPress and (
                event.key() == Qt.Key.Key_Menu
                or (event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier)):
            view = self.w.folder_view
            cur = view.currentIndex()
            self.folder_menu(view.visualRect(cur).center() if cur.isValid() else QPoint(8, 8))
            return True
        return super().eventFilter(obj, event)

    def _dialog(self, title: str) -> str | None:
        from inspector.session.pathnames import qt_holdable, resolve_chosen_path

        start = qt_holdable(os.path.dirname(self.w.doc.paths[0])) if self.w.doc.paths else ""
        path, _ = QFileDialog.getOpenFileName(self.w, title, start, "JSON files (*.json);;All files (*)")
        return (resolve_chosen_path(path) or path) if path else None  # exact bytes of the name (see pathnames)

    # -- comparison ---------------------------------------------------------------------------------
    def compare(self, paths: list[str]):
        """Open a comparison window on ``paths`` (A, B); returns it."""
        from ..compare_view import CompareWindow

        win = CompareWindow()
        win.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.windows.append(win)
        win.show()
        win.start(paths)
        self.opened.emit(win)
        return win

    def _open_path(self) -> str | None:
        doc = self.w.doc
        side = doc.payload if doc.payload is not None and doc.payload.path else doc.descriptor
        return side.path if side is not None and side.path else None

    def compare_with(self) -> None:
        """File ▸ Compare With…: the open payload (or descriptor) against a file the user picks;
        with nothing open, two files picked one after the other."""
        first = self._open_path() or self.pick_file("Compare: choose the first (old) file")
        if not first:
            return
        second = self.pick_file("Compare with: choose the second (new) file")
        if second:
            self._compare_with_same_kind(first, second)

    def _compare_with_same_kind(self, first: str, second: str) -> None:
        """Compare ``second`` with the open file of its kind (:func:`.compare_loading.same_kind_as`, which reads
        both files: on a worker, never on the GUI thread): a descriptor picked while a pair is open is compared
        with the open descriptor, not refused as "payload and descriptor"."""
        doc = self.w.doc
        others = [s.path for s in (doc.descriptor, doc.payload) if s is not None and s.path]
        job = doc.jobs.new(lambda ctx: compare_engine.same_kind_as(first, second, others),
                           "choosing the file to compare with", lane="route")
        cur = doc.jobs.current
        job.signals.finished.connect(lambda a, j=job: cur(j) and self.compare([a, second]))
        job.signals.failed.connect(lambda _msg, j=job: cur(j) and self.compare([first, second]))
        start_job(job)

    def folder_menu(self, pos) -> None:
        """The folder table's context menu at ``pos`` (a right click or the Menu key)."""
        view = self.w.folder_view
        idx = view.indexAt(pos)
        if idx.isValid() and idx != view.currentIndex():
            view.setCurrentIndex(idx)
        row = view.model().data(view.currentIndex(), ObjectRole) if view.currentIndex().isValid() else None
        path = getattr(row, "payload", None) or getattr(row, "descriptor", None)
        if not path:
            return
        menu = QMenu(view)
        menu.setObjectName("folderMenu")
        mine = self._open_path()
        a = menu.addAction("Compare with Open Checkpoint", lambda: self.compare([mine, path]))
        a.setEnabled(bool(mine) and mine != path)
        menu.addAction("Compare with…", lambda: self._compare_row_with(path))
        self.menu = menu
        menu.exec(view.viewport().mapToGlobal(pos))
        self.menu = None
        menu.deleteLater()

    def _compare_row_with(self, path: str) -> None:
        other = self.pick_file("Compare with: choose the second (new) file")
        if other:
            self.compare([path, other])

    # -- canonical diff -----------------------------------------------------------------------------
    def canonical_diff(self):
        """View ▸ Canonical Diff: the open payload beside its canonical bytes; returns the window
        (``None`` when no payload file is open)."""
        from ..canon_view import CanonicalDiffWindow

        doc = self.w.doc
        if doc.payload is None or not doc.payload.path:
            self.w.doc.say("canon", "info", "Open a payload first: the canonical diff shows a payload file beside "
                                            "the canonical bytes the reference would write.")
            return None
        win = CanonicalDiffWindow()
        self.windows.append(win)
        win.show()
        win.start(doc.payload.path)
        self.opened.emit(win)
        return win
