"""The folder's Sessions tab: each session's checkpoints in order, stepped through with Alt+Left /
Alt+Right (previous / next checkpoint of the series, opened at once), opened with Enter or a double-click,
and compared with the previous checkpoint from the context menu (the Menu key or Shift+F10 too)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTreeView

from .. import style
from ..models.sessions import SessionsModel

__all__ = ["SessionsView"]

_STEP = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: +1}


class SessionsView(QTreeView):
    """A tree of sessions and their checkpoints in order.

    Signals:
        openRequested(FolderRow): open this checkpoint (Enter, double-click, Alt+Left/Right).
        compareRequested(list): compare these two files (the previous checkpoint's, this one's).
    """

    openRequested = Signal(object)
    compareRequested = Signal(object)

    def __init__(self, model: SessionsModel, parent=None):
        super().__init__(parent)
        self.setObjectName("sessionsView")
        self.setAccessibleName("Checkpoints by session, in order")
        self.setModel(model)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self.context_menu)
        # fixed widths from the font (sizing columns to their contents measures every row: seconds for 10,000)
        self.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.header().setStretchLastSection(True)
        # Pass, Verdict, Resumable and Notes in view without scrolling at 1024 px: each column
        # as wide as the longest text it holds, measured on samples (the time, "no single latest (fork)"), not rows
        fm = self.fontMetrics()
        em, pad = fm.horizontalAdvance("M"), 2 * fm.horizontalAdvance("  ")
        widths = (24 * em, fm.horizontalAdvance("Pass") + pad, fm.horizontalAdvance("2026-08-29 10:40:00.250") + pad,
                  # the verdict column fits "FAIL " and the widest rule id of the catalogue
                  max(fm.horizontalAdvance("NOT VERIFIED") + pad, style.rule_id_width(fm, "FAIL ") + 16),
                  fm.horizontalAdvance("no single latest (fork)") + pad)
        for col, width in enumerate(widths):
            self.header().resizeSection(col, width)
        self.activated.connect(self._open)
        model.modelReset.connect(self.expandAll)
        self.menu: QMenu | None = None

    def _open(self, index) -> None:
        entry = self.model().entry(index)
        if entry is not None:
            self.openRequested.emit(entry.row)

    def step(self, delta: int) -> bool:
        """Select and open the checkpoint ``delta`` places after the current one in its series; False at an end."""
        nxt = self.model().neighbour(self.currentIndex().siblingAtColumn(0), delta)
        if not nxt.isValid():
            return False
        self.setCurrentIndex(nxt)
        self._open(nxt)
        return True

    def event(self, e):
        # Alt+Left/Right step through the series here (elsewhere they are Go > Back / Forward)
        if e.type() == QEvent.Type.ShortcutOverride and e.modifiers() == Qt.KeyboardModifier.AltModifier \
                and e.key() in _STEP:
            e.accept()
            return True
        return super().event(e)

    def keyPressEvent(self, e):  # noqa: N802 (Qt)
        if e.modifiers() == Qt.KeyboardModifier.AltModifier and e.key() in _STEP:
            self.step(_STEP[e.key()])
            return
        if e.key() == Qt.Key.Key_Menu or (e.key() == Qt.Key.Key_F10
                                         and e.modifiers() == Qt.KeyboardModifier.ShiftModifier):
            cur = self.currentIndex()
            self.context_menu(self.visualRect(cur).center() if cur.isValid() else QPoint(8, 8))
            return
        super().keyPressEvent(e)

    def context_menu(self, pos) -> None:
        """Open, and Compare with Previous (the checkpoint before it in its series, files of the same kind)."""
        idx = self.indexAt(pos)
        if idx.isValid() and idx != self.currentIndex():
            self.setCurrentIndex(idx)
        model = self.model()
        entry = model.entry(self.currentIndex())
        if entry is None:
            return
        prev_index = model.neighbour(self.currentIndex().siblingAtColumn(0), -1)
        prev = model.entry(prev_index)
        menu = QMenu(self)
        menu.setObjectName("sessionsMenu")
        menu.addAction("Open", lambda: self.openRequested.emit(entry.row))
        pair = _same_kind(prev.row, entry.row) if prev is not None else None
        a = menu.addAction("Compare with Previous" + (f" ({prev.name})" if prev else ""),
                           lambda: self.compareRequested.emit(pair))
        a.setEnabled(pair is not None)
        self.menu = menu
        menu.exec(self.viewport().mapToGlobal(pos))
        self.menu = None
        menu.deleteLater()


def _same_kind(a, b) -> list[str] | None:
    """Two payloads (else two descriptors) of two folder rows: the comparison's A and B."""
    for kind in ("payload", "descriptor"):
        pa, pb = getattr(a, kind), getattr(b, kind)
        if pa and pb and pa != pb:
            return [pa, pb]
    return None
