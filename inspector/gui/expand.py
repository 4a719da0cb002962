"""Expand All without freezing the window: rows are made and expanded a time slice at a time.

Tree rows are Qt model rows, so they are made on the GUI thread; :class:`TreeExpander` does it in
slices of at most :data:`SLICE_MS` milliseconds between event-loop turns (with progress and
Cancel in the status bar), walks with an explicit stack (any depth), and stops after
:data:`MAX_ROWS` rows, saying so.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QObject, QTimer, Signal

from .qtcompat import emit

__all__ = ["TreeExpander", "MAX_ROWS", "SLICE_MS"]

#: Expand All stops after making this many rows (a view of millions of rows helps nobody).
MAX_ROWS = 200_000
#: Longest slice of work between two event-loop turns (milliseconds).
SLICE_MS = 25
#: Expand All goes at most this deep.
MAX_DEPTH = 256


class TreeExpander(QObject):
    """Expands every row below an index of a tree view, in time slices.

    Signals:
        finished(int): the expansion ended with this many rows made visible (-1: cancelled).
    """

    finished = Signal(int)

    def __init__(self, doc, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.view = None
        self.stack: list[tuple[QModelIndex, int]] = []
        self.expand: list[QModelIndex] = []
        self.rows = 0
        self.capped = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._slice)
        doc.presented.connect(lambda *_: self.cancel())

    @property
    def running(self) -> bool:
        return self.view is not None

    def start(self, view, index: QModelIndex | None = None) -> None:
        """Expand ``index`` (None: the whole tree) and everything below it in ``view``."""
        self.cancel()
        self.view = view
        root = index if index is not None and index.isValid() else QModelIndex()
        self.stack = [(root, 0)]
        self.expand = []
        self.rows = 0
        self.capped = False
        self.doc.set_busy(True, "Expanding…", -1)
        self.timer.start(0)

    def cancel(self) -> bool:
        if self.view is None:
            return False
        self.timer.stop()
        self.view = None
        self.stack = []
        self.expand = []
        self.doc.set_busy(False)
        emit(self.finished, -1)
        return True

    def _slice(self) -> None:
        view = self.view
        if view is None:
            return
        model = view.model()
        t_end = time.perf_counter() + SLICE_MS / 1000
        stack = self.stack
        while stack and time.perf_counter() < t_end:
            idx, depth = stack.pop()
            if model.canFetchMore(idx):
                model.fetchMore(idx)
                stack.append((idx, depth))
                continue
            n = model.rowCount(idx)
            if idx.isValid():
                self.expand.append(idx)
            self.rows += n
            if self.rows >= MAX_ROWS:
                self.capped = True
                stack.clear()
                break
            if depth >= MAX_DEPTH:
                continue
            for r in range(n - 1, -1, -1):
                child = model.index(r, 0, idx)
                if model.hasChildren(child):
                    stack.append((child, depth + 1))
        # Expanding is cheap while a relayout is pending: ask for one, then mark the rows.
        if self.expand:
            view.scheduleDelayedItemsLayout()
            t_end2 = time.perf_counter() + SLICE_MS / 1000
            while self.expand and time.perf_counter() < t_end2:
                view.expand(self.expand.pop())
        if stack or self.expand:
            self.doc.set_busy(True, f"Expanding… {self.rows:,} rows", -1)
            self.timer.start(0)
            return
        self.view = None
        self.doc.set_busy(False)
        if self.capped:
            self.doc.say("info", "info", f"Expand All stopped after {self.rows:,} rows; expand further "
                         "by hand, or use Find and Go to JSON Pointer.")
        emit(self.finished, self.rows)
