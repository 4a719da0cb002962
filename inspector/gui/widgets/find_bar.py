"""The find bar: find in the trees (the whole document) and go to a JSON Pointer."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from ..qtcompat import emit
from .keys import claims_escape

__all__ = ["FindBar"]



class FindBar(QWidget):
    """Find in the trees (Enter: next, Shift+Enter: previous) and go to a JSON Pointer; Esc closes it.

    Signals:
        search(str, bool): find this text (backwards when True).
        goto(str): go to this JSON Pointer.
    """

    search = Signal(str, bool)  # text, backwards
    goto = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        # Two rows (find; go to), so that in the Trees dock (about 400 px wide at 1024x700) each field
        # keeps room for what is typed in it: on one row, beside four buttons, both shrank to ~4 characters.
        lay = QGridLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setVerticalSpacing(2)
        lay.addWidget(QLabel("Find:"), 0, 0)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("key or value, whole document (Enter: next, Shift+Enter: previous)")
        self.edit.setClearButtonEnabled(True)
        self.edit.setAccessibleName("Find in the trees")
        chars = self.edit.fontMetrics().horizontalAdvance("x" * 12)
        self.edit.setMinimumWidth(chars)
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        self.status = QLabel("")
        self.status.setAccessibleName("Find result")
        row.addWidget(self.status)
        # Arrow buttons, not "Previous"/"Next": worded buttons made the Trees dock ~450 px wide at least,
        # which squeezed the Bytes and Digests docks at 1024 px.
        prev, nxt = QToolButton(), QToolButton()
        for b, arrow, name in ((prev, Qt.ArrowType.UpArrow, "Previous match (Shift+Enter, Shift+F3)"),
                               (nxt, Qt.ArrowType.DownArrow, "Next match (Enter, F3)")):
            b.setArrowType(arrow)
            b.setToolTip(name)
            b.setAccessibleName(name)
            row.addWidget(b)
        close = QToolButton()
        close.setText("✕")
        close.setAccessibleName("Close find bar")
        close.setToolTip("Close (Esc)")
        row.addWidget(close)
        lay.addLayout(row, 0, 1)
        lay.addWidget(QLabel("Go to:"), 1, 0)
        self.pointer = QLineEdit()
        self.pointer.setPlaceholderText("JSON Pointer, e.g. /snapshot/session/messages/0 (Enter: go)")
        self.pointer.setAccessibleName("Go to JSON Pointer")
        self.pointer.setMinimumWidth(chars)
        lay.addWidget(self.pointer, 1, 1)
        lay.setColumnStretch(1, 1)
        nxt.clicked.connect(lambda: emit(self.search, self.edit.text(), False))
        prev.clicked.connect(lambda: emit(self.search, self.edit.text(), True))
        self.edit.returnPressed.connect(self._enter)
        self.pointer.returnPressed.connect(lambda: emit(self.goto, self.pointer.text()))
        close.clicked.connect(self.hide)

    def _enter(self):
        from PySide6.QtWidgets import QApplication

        back = bool(QApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier)
        emit(self.search, self.edit.text(), back)

    def event(self, event):
        # Esc in the bar is the bar's: claim it before the window's Esc shortcut (File ▸ Stop Loading,
        # enabled while a load runs) takes it, so the key press comes here and closes the bar.
        if claims_escape(event):
            return True
        return super().event(event)

    def keyPressEvent(self, event):
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def open(self):
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def open_pointer(self):
        self.show()
        self.pointer.setFocus()
        self.pointer.selectAll()
