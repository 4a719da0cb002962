"""Expand All without freezing the window: rows are made and expanded a time slice at a time.

Tree rows are Qt model rows, so they are made on the GUI thread; :class:`TreeExpander` first makes
the rows (nothing expanded yet, so no relayout grows), then expands them parents first, both in
slices of at most :data:`SLICE_MS` milliseconds between event-loop turns (with progress and
Cancel in the status bar; Esc is File ▸ Stop Loading while it runs), walks with an explicit
stack (any depth), and stops after :data:`MAX_ROWS` rows, saying so.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QModelIndex, QObject, QTimer, Signal

from .jobs import gc_paused
from .qtcompat import emit

__all__ = ["TreeExpander", "MAX_ROWS", "SLICE_MS"]

#: Expand All stops after making this many rows (a view of millions of rows helps nobody).
MAX_ROWS = 200_000
#: Longest slice of work between two event-loop turns (milliseconds).
SLICE_MS = 25
#: Rows expanded between two looks at the clock in the expansion phase.
BATCH = 64
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
        self.expand: list[QModelIndex] = []  # rows to expand, parents first
        self.next = 0
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
        self.next = 0
        self.rows = 0
        self.capped = False
        self.doc.set_busy(True, "Expanding… (Esc: cancel)", -1)
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
        # No collector pass inside a slice: with 100,000s of rows alive, each full pass held the
        # GUI thread for 0.2-0.5 s. (Rows are freed without it: see JsonTreeModel.set_document.)
        with gc_paused():
            self._work()
            # The rows made live as long as the document: moved out of the collector's sight
            # before it resumes (else its next full pass scans them all, 0.4 s, right here).
            gc.freeze()

    def _work(self) -> None:
        """Phase 1 (slices): make the rows, nothing expanded yet, so a relayout stays cheap.
        Phase 2 (slices): mark the rows expanded while one relayout is pending, so each expansion
        only records the row; the view lays out all of them once, at the end."""
        view = self.view
        if view is None:
            return
        model = view.model()
        t_end = time.perf_counter() + SLICE_MS / 1000
        stack = self.stack
        first = True  # each slice makes progress, however late it starts
        while stack and (first or time.perf_counter() < t_end):
            first = False
            idx, depth = stack.pop()
            if model.canFetchMore(idx):
                model.fetchMore(idx, batch=1024)
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
        if stack:
            self.doc.set_busy(True, f"Expanding… {self.rows:,} rows made (Esc: cancel)", -1)
            self.timer.start(0)
            return
        if self.next < len(self.expand):
            # Parents before children (the order they were found in): each expansion lays out
            # just that row's children below a row already on screen, a slice at a time. (Marking
            # them all at once would leave one layout of every row for a single event-loop turn.)
            t_end = time.perf_counter() + SLICE_MS / 1000
            expand, pending = view.expand, self.expand
            first = True
            while self.next < len(pending) and (first or time.perf_counter() < t_end):
                first = False
                stop = min(len(pending), self.next + BATCH)
                for k in range(self.next, stop):
                    expand(pending[k])
                self.next = stop
            if self.next < len(pending):
                self.doc.set_busy(True, f"Expanding… {len(pending) - self.next:,} rows to go (Esc: cancel)", -1)
                self.timer.start(0)
                return
        self.view = None
        self.doc.set_busy(False)
        if self.capped:
            self.doc.say("info", "info", f"Expand All stopped after {self.rows:,} rows; expand further "
                         "by hand, or use Find and Go to JSON Pointer.")
        emit(self.finished, self.rows)
