"""The canonical diff window: a payload file beside the canonical bytes the reference would write
(P-CANONICAL).

Both are pretty-printed token by token (:mod:`inspector.checkpoint.analysis.canondiff`): the file's tokens
keep their own bytes, each line shows the byte offset of its first token in its own bytes, and
the two sides are aligned row by row. A row that differs is marked by a sign (``−`` only in the
file, ``+`` only in the canonical form, ``~`` different) and a colour, and named by the difference
classes of the P-CANONICAL diagnosis that fall on it. Next / Previous Difference (F8 / Shift+F8)
jump between marked rows; whitespace between tokens, which the pretty-printed forms cannot show,
is named on every row that has it but is not a stop.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QLabel, QPushButton, QTableView, QVBoxLayout, QWidget,
)

from . import style
from inspector.session import compare_loading as compare_engine
from .jobwindow import JobWindow
from .models.table import RowsTableModel

__all__ = ["CanonicalDiffWindow", "CanonRowsModel"]

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_SIGNS = {"changed": "~", "removed": "−", "added": "+", "equal": " "}
_TINTS = {"changed": ("#fff1c2", "#5a4a12"), "removed": ("#fbdcdc", "#5a2323"), "added": ("#d8f5dd", "#1f4d2a"),
          "class": ("#eee6ff", "#3a2f5a")}


def _tint(name: str) -> QColor:
    light, dark = _TINTS[name]
    return QColor(dark if style.is_dark() else light)


class CanonRowsModel(RowsTableModel):
    """Rows of a :class:`~inspector.checkpoint.analysis.canondiff.CanonicalDiff` as a table: the file's
    offset and line, a sign, the canonical offset and line, and the classes on the row."""

    COLUMNS = ("File byte", "The file, as it is", "", "Canonical byte", "What the reference writes", "Class")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.diff = None
        self._mono = QFont("monospace")
        self._mono.setStyleHint(QFont.StyleHint.Monospace)

    @property
    def rows(self) -> list:
        """The rows shown, in order."""
        return self._rows

    def set_diff(self, diff) -> None:
        self.beginResetModel()
        self.diff = diff
        self._rows = list(diff.rows) if diff is not None else []
        self.endResetModel()

    def data(self, index, role=_DISPLAY):
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        col = index.column()
        role = int(role)
        if role == _DISPLAY:
            if col == 0:
                return "" if r.left is None else str(r.left.start)
            if col == 1:
                return "" if r.left is None else r.left.text
            if col == 2:
                return _SIGNS[r.tag] if r.tag != "equal" else ("*" if r.marked else "")
            if col == 3:
                return "" if r.right is None else str(r.right.start)
            if col == 4:
                return "" if r.right is None else r.right.text
            return ", ".join(r.classes)
        if role == _TOOLTIP:
            diffs = self.diff.differences_at(r) if self.diff is not None else []
            return "\n".join(f"{d.kind} at byte {d.offset} {d.pointer}: {d.text}" for d in diffs[:8]) or None
        if role == _BACKGROUND:
            if r.tag != "equal" and col in (1, 2, 4):
                return _tint(r.tag)
            if r.marked and col in (1, 2, 5):
                return _tint("class")
            return None
        if role == _FONT and col in (1, 4):
            return self._mono
        if role == _ALIGN and col in (0, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class CanonicalDiffWindow(JobWindow):
    """A payload file beside its canonical bytes.

    Signals:
        ready(): the rows are shown. failed(str): the file could not be read.
    """

    ready = Signal()
    failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("canonicalDiffWindow")
        self.setWindowTitle("Canonical Diff — Checkpoint Inspector")
        self.diff = None
        self.summary = QLabel("")
        self.summary.setObjectName("canonSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = CanonRowsModel(self)
        self.table = QTableView()
        self.table.setTabKeyNavigation(False)  # arrows move in the table; Tab leaves it
        self.table.setObjectName("canonRows")
        self.table.setAccessibleName("The file beside the canonical bytes")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 4)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((80, 440, 22, 110, 440)):
            self.table.setColumnWidth(col, width)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a line's value stays visible
        self.table.setWordWrap(False)
        self.next_button = QPushButton("Next Difference")
        self.next_button.setObjectName("nextDifference")
        self.next_button.clicked.connect(lambda: self.step(+1))
        self.prev_button = QPushButton("Previous Difference")
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.position = QLabel("")
        self.position.setObjectName("canonPosition")
        bar = QHBoxLayout()
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)
        bar.addWidget(self.position, 1)
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.summary)
        lay.addLayout(bar)
        lay.addWidget(self.table)
        self.setCentralWidget(box)
        for text, keys, delta in (("Next Difference", ["F8", "Ctrl+Down"], +1),
                                  ("Previous Difference", ["Shift+F8", "Ctrl+Up"], -1)):
            a = QAction(text, self)
            a.setShortcuts([QKeySequence(k) for k in keys])
            a.triggered.connect(lambda _=False, d=delta: self.step(d))
            self.addAction(a)
        close = QAction("Close", self)
        close.setShortcuts([QKeySequence(QKeySequence.StandardKey.Close), QKeySequence("Esc")])
        close.triggered.connect(self.close)
        self.addAction(close)
        self.fit_screen(1100, 700)

    def start(self, path: str) -> None:
        """Align the file at ``path`` with its canonical bytes, in the background."""
        from .document import display_name

        self.path = path
        self.setWindowTitle(f"{display_name(path)} — Canonical Diff")
        self.run(lambda ctx: compare_engine.canonical_path(path, progress=ctx.progress, cancel=ctx.cancelled),
                 "aligning the file", "Re-encoding…")

    def _failed(self, msg: str) -> None:
        self.statusBar().showMessage("The file could not be read.")
        self.summary.setText(f"ERROR: {msg}")
        self.failed.emit(msg)

    def _finished(self, diff) -> None:
        from inspector.checkpoint.diagnosis.diagnose import class_text

        from .document import display_name

        path = self.path
        self.statusBar().clearMessage()
        self.diff = diff
        self.model.set_diff(diff)
        name = display_name(path)
        if diff.error:
            text = f"{name}: {diff.error}"
        elif diff.equal:
            text = f"{name} is canonical: its {len(diff.data):,} bytes are exactly what the reference writes."
        else:
            lines = [f"<b>{_esc(name)}</b> ({len(diff.data):,} bytes) beside the canonical bytes "
                     f"({diff.canonical_size or 0:,} bytes); "
                     f"first differing byte: {diff.first_offset}."]
            if diff.diagnosis is not None:
                for kind in diff.diagnosis.classes:
                    n = sum(1 for d in diff.diagnosis.differences if d.kind == kind)
                    lines.append(f"<b>{kind}</b>: {_esc(class_text(kind))} ({n} place{'s' if n != 1 else ''})")
            if not any(r.marked for r in self.model.rows):
                lines.append("Only whitespace between tokens differs: the pretty-printed forms are the same.")
            text = "<br>".join(lines)
        self.summary.setText(text)
        stops = sum(1 for r in self.model.rows if r.marked)
        self.position.setText(f"{stops} difference{'s' if stops != 1 else ''} to step through")
        self.ready.emit()
        if stops:
            self.step(+1)

    def step(self, delta: int) -> None:
        """Select the next (``+1``) or previous (``-1``) marked row, wrapping around."""
        rows = self.model.rows
        stops = [i for i, r in enumerate(rows) if r.marked]
        if not stops:
            return
        cur = self.table.currentIndex().row()
        if delta > 0:
            nxt = next((i for i in stops if i > cur), stops[0])
        else:
            nxt = next((i for i in reversed(stops) if i < cur), stops[-1])
        idx = self.model.index(nxt, 1)
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)
        k = stops.index(nxt) + 1
        r = rows[nxt]
        self.position.setText(f"Difference {k} of {len(stops)}: {', '.join(r.classes) or r.tag}")



def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
