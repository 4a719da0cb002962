"""Copy what the user means: Ctrl+C and the context menus of trees, verdicts, digests and bytes.

Item views answer Ctrl+C themselves with the *display text of the current cell* (a key name,
a verdict label, a row label) before any window shortcut sees the key. :class:`CopyService`
filters that key on each view and copies instead:

* a tree row: its value (strings unquoted, containers and numbers as JSON text from the file);
* a verdict: ``RULE-ID: message``;
* a digest row: the recomputed digest (else the stated one);
* the bytes: the value of the node at the cursor (the highlighted span).

Each of these views also has a context menu (right click or the Menu key): Copy Value, Copy
JSON Pointer, Copy JSON of the Subtree, Copy as jq Path (plus the rule line for a verdict, the
stated and recomputed digest for a digest). A value or subtree larger than
:data:`BACKGROUND_BYTES` is decoded on a worker thread, so the window never waits for it.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

import re

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from inspector.checkpoint import Location

from .jobs import start_job
from inspector.checkpoint.jsontext.lazyjson import load_value
from .roles import LocationRole, ObjectRole

__all__ = ["CopyService", "jq_path", "pointer_tokens", "BACKGROUND_BYTES"]

#: Values and subtrees larger than this (bytes) are decoded for the clipboard off the GUI thread.
BACKGROUND_BYTES = 1 << 20
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped tokens of a JSON Pointer (RFC 6901): ``/a~1b/0`` -> ``["a/b", "0"]``."""
    if not pointer:
        return []
    return [unescape_token(t) for t in pointer[1:].split("/")]


def jq_path(pointer: str, array_tokens: set[int] | None = None) -> str:
    """The ``jq`` path of ``pointer``: ``/snapshot/messages/0/a b`` -> ``.snapshot.messages[0]["a b"]``.

    ``array_tokens``: positions of tokens that index an array (written ``[n]``); by default every
    all-digit token is taken as an array index.
    """
    out = []
    for i, tok in enumerate(pointer_tokens(pointer)):
        is_index = (i in array_tokens) if array_tokens is not None else tok.isdigit()
        if is_index:
            out.append(f"[{tok}]")
        elif _IDENT.match(tok):
            out.append(f".{tok}")
        else:
            esc = tok.replace("\\", "\\\\").replace('"', '\\"')
            esc = "".join(c if ord(c) >= 0x20 else f"\\u{ord(c):04x}" for c in esc)
            out.append(f'["{esc}"]')
    text = "".join(out)
    if not text.startswith("."):
        text = "." + text
    return text


class CopyService(QObject):
    """Ctrl+C and context menus for the views of ``window`` (a MainWindow)."""

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.menu: QMenu | None = None
        views = [p.view for p in window.tree_panes()] + [window.findings_view, window.digests_view,
                                                         window.hex_payload, window.hex_descriptor]
        self._views = set(views)
        for v in views:
            v.installEventFilter(self)
            v.viewport().installEventFilter(self)

    # -- what a view's selection means -------------------------------------------------------------
    def location(self, view) -> Location | None:
        """The location the current item of ``view`` stands for (a tree node, a verdict's first
        location, a digest's descriptor field, the node at the bytes cursor)."""
        w = self.w
        if view in (w.hex_payload, w.hex_descriptor):
            source = "payload" if view is w.hex_payload else "descriptor"
            if view.data is None:
                return None
            offset = view.highlighted[0] if view.highlighted else view.cursor_offset
            models = (w.desc_model,) if source == "descriptor" else (w.resume_model, w.snap_model)
            for m in models:
                idx = m.index_for_offset(offset)
                if idx.isValid():
                    return m.data(idx, LocationRole)
            return None
        idx = view.currentIndex()
        if not idx.isValid():
            return None
        if view is w.digests_view:
            row = w.digests_model.row_object(idx.row())
            return self._with_span(Location("descriptor", row.pointer, None))
        if view is w.findings_view:
            f = w.findings_model.data(idx, ObjectRole)
            return self._with_span(f.locations[0]) if f is not None and f.locations else None
        return view.model().data(idx, LocationRole)

    def _with_span(self, loc: Location) -> Location:
        if loc.span is not None:
            return loc
        pane = self.w.selection.tree_for(loc.source, loc.pointer)
        idx = pane.model.index_for_pointer(loc.pointer)
        if idx.isValid():
            return pane.model.data(idx, LocationRole)
        return loc

    def _array_tokens(self, loc: Location) -> set[int] | None:
        """Which tokens of ``loc.pointer`` index arrays, from the tree rows along the way."""
        pane = self.w.selection.tree_for(loc.source, loc.pointer)
        idx = pane.model.index_for_pointer(loc.pointer)
        if not idx.isValid():
            return None
        arrays = set()
        depth = len(pointer_tokens(loc.pointer))
        i = depth - 1
        while idx.isValid():
            item = idx.internalPointer()
            if item.kind != "range":  # range rows ("[1000 … 1999]") are not pointer tokens
                if isinstance(item.key, int):
                    arrays.add(i)
                i -= 1
            idx = idx.parent()
        return arrays

    # -- copying ---------------------------------------------------------------------------------
    def copy_default(self, view) -> bool:
        """What Ctrl+C copies in ``view``; False when nothing is selected."""
        w = self.w
        if view is w.findings_view:
            f = w.findings_model.data(view.currentIndex(), ObjectRole)
            if f is None:
                return False
            self.set_text(self.rule_line(f))
            return True
        if view is w.digests_view:
            idx = view.currentIndex()
            if not idx.isValid():
                return False
            row = w.digests_model.row_object(idx.row())
            value = row.recomputed if row.recomputed is not None else row.stated
            self.set_text("" if value is None else str(value))
            return True
        loc = self.location(view)
        if loc is None:
            return False
        self.copy_value(loc)
        return True

    @staticmethod
    def rule_line(f) -> str:
        return f"{f.rule.id}: {f.message or f.rule.title}"

    def set_text(self, text: str) -> None:
        QApplication.clipboard().setText(text)
        self.w.statusBar().showMessage(f"Copied {len(text):,} characters.", 3000)

    def _bytes(self, loc: Location) -> bytes | None:
        side = self.w.doc.side(loc.source)
        if side is None or side.data is None or loc.span is None:
            return None
        return side.data

    def copy_value(self, loc: Location) -> None:
        """The value at ``loc``: a string unquoted, anything else as its JSON text from the file."""
        data = self._bytes(loc)
        if data is None:
            return
        s, e = loc.span

        def value():
            if data[s:s + 1] == b'"':
                v = load_value(data, s, e, limit=1 << 62)
                if isinstance(v, str):
                    return v
            return data[s:e].decode("utf-8", "replace")
        self._deliver(value, e - s, "the value")

    def copy_subtree(self, loc: Location) -> None:
        """The JSON text of the value at ``loc``, exactly as in the file."""
        data = self._bytes(loc)
        if data is None:
            return
        s, e = loc.span
        self._deliver(lambda: data[s:e].decode("utf-8", "replace"), e - s, "the subtree")

    def _deliver(self, fn, size: int, what: str) -> None:
        if size <= BACKGROUND_BYTES:
            self.set_text(fn())
            return
        job = self.w.doc.jobs.new(lambda ctx: fn(), f"copying {what}", "copy")
        doc = self.w.doc
        job.signals.finished.connect(lambda text, j=job: doc.jobs.current(j) and (doc.set_busy(False),
                                                                                 self.set_text(text)))
        job.signals.failed.connect(lambda msg, j=job: doc.jobs.current(j) and (doc.set_busy(False),
                                                                               doc.say("error", "error", msg)))
        job.signals.cancelled.connect(lambda j=job: doc.jobs.current(j) and doc.set_busy(False))
        doc.set_busy(True, f"Copying {what} ({size:,} bytes)…", -1)
        self.w.copy_job = job
        start_job(job)

    # -- context menus ---------------------------------------------------------------------------
    def menu_actions(self, view) -> list[tuple[str, object]]:
        """(label, callable) for the context menu of ``view`` at its current item."""
        w = self.w
        out = []
        loc = self.location(view)
        if view is w.findings_view:
            f = w.findings_model.data(view.currentIndex(), ObjectRole)
            if f is not None:
                out.append(("Copy Rule and Message", lambda: self.set_text(self.rule_line(f))))
        if view is w.digests_view and view.currentIndex().isValid():
            row = w.digests_model.row_object(view.currentIndex().row())
            if row.recomputed is not None:
                out.append(("Copy Recomputed Digest", lambda: self.set_text(str(row.recomputed))))
            if row.stated is not None:
                out.append(("Copy Stated Digest", lambda: self.set_text(str(row.stated))))
        if loc is not None:
            if loc.span is not None:
                out.append(("Copy Value", lambda: self.copy_value(loc)))
            out.append(("Copy JSON Pointer", lambda: self.set_text(loc.pointer)))
            if loc.span is not None:
                out.append(("Copy JSON of the Subtree", lambda: self.copy_subtree(loc)))
            out.append(("Copy as jq Path", lambda: self.set_text(jq_path(loc.pointer, self._array_tokens(loc)))))
        if view in (w.hex_payload, w.hex_descriptor) and view.highlighted is not None and view.data is not None:
            s, e = view.highlighted
            out.append(("Copy Bytes as Hex", lambda: self.set_text(view.data[s:e].hex(" "))))
        return out

    def show_menu(self, view, pos, *, mouse: bool = True) -> None:
        """The context menu of ``view`` at viewport position ``pos``: a right click first selects
        the item under the pointer; from the keyboard (Menu key, Shift+F10) the menu opens at the
        current item."""
        if hasattr(view, "indexAt"):
            if mouse:
                idx = view.indexAt(pos)
                if idx.isValid() and idx != view.currentIndex():
                    view.setCurrentIndex(idx)
            elif view.currentIndex().isValid():
                pos = view.visualRect(view.currentIndex()).center()
        elif not mouse:
            pos = view.offset_position(view.highlighted[0]) if view.highlighted is not None else None
        if pos is None:
            pos = QPoint(8, 8)
        actions = self.menu_actions(view)
        if not actions:
            return
        menu = QMenu(view)
        menu.setObjectName("copyMenu")
        for label, fn in actions:
            menu.addAction(label, fn)
        self.menu = menu
        menu.exec(view.viewport().mapToGlobal(pos))
        self.menu = None
        menu.deleteLater()

    # -- Ctrl+C ----------------------------------------------------------------------------------
    def eventFilter(self, obj, event):
        t = event.type()
        if t == QEvent.Type.ContextMenu:
            view = obj if obj in self._views else obj.parent()
            if view in self._views:
                mouse = event.reason() == event.Reason.Mouse
                pos = event.pos() if obj is not view else view.viewport().mapFrom(view, event.pos())
                self.show_menu(view, pos, mouse=mouse)
                return True
        if t == QEvent.Type.KeyPress and obj in self._views and (
                event.key() == Qt.Key.Key_Menu
                or (event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier)):
            self.show_menu(obj, None, mouse=False)  # the keyboard's context menu, on every platform
            return True
        if t == QEvent.Type.KeyPress and event.matches(QKeySequence.StandardKey.Copy):
            self.copy_default(obj)
            return True
        if t == QEvent.Type.ShortcutOverride and event.matches(QKeySequence.StandardKey.Copy):
            event.accept()  # the view gets the key, and this filter copies
            return True
        return super().eventFilter(obj, event)
