"""The raw-text editors over the sandbox copies of payload and descriptor."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTabWidget, QVBoxLayout, QWidget

from ..qtcompat import emit

__all__ = ["RawEditor"]


class RawEditor(QWidget):
    """Raw-text editors over the sandbox copies of payload and descriptor.

    Changes are debounced and emitted as ``textEdited(source, text)``; the window recomputes
    off the GUI thread. A document the text editor could not round-trip byte for byte (CR,
    U+2028, invalid UTF-8, or too large) is shown read-only with the reason.
    """

    textEdited = Signal(str, str)
    LIMIT = 1 << 20

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.note = QLabel("Edits here change a sandbox copy only; the files on disk are never changed. "
                           "Every digest and rule is recomputed as you type.")
        self.note.setWordWrap(True)
        self.note.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.note)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Raw text of payload and descriptor")
        self.editors = {}
        self._timers = {}
        self._pending: dict[str, bytes | None] = {}  # documents not yet loaded into a (hidden) editor
        for source in ("payload", "descriptor"):
            ed = QPlainTextEdit()
            ed.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (JSON text: left to right in any layout)
            ed.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            ed.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            ed.setAcceptDrops(False)
            ed.setAccessibleName(f"{source} raw text")
            t = QTimer(self)
            t.setSingleShot(True)
            t.setInterval(400)
            t.timeout.connect(lambda s=source: emit(self.textEdited, s, self.text(s)))
            ed.textChanged.connect(t.start)
            self.editors[source] = ed
            self._timers[source] = t
            self.tabs.addTab(ed, source.capitalize())
        lay.addWidget(self.tabs, 1)

    def text(self, source: str) -> str:
        """The editor's exact text (``toPlainText`` would turn no-break spaces into spaces)."""
        if source in self._pending:
            self._load(source)
        return self.editors[source].document().toRawText().replace("\u2029", "\n")

    def set_text(self, source: str, data: bytes | None) -> None:
        """Load ``data`` into the editor of ``source`` without emitting an edit.

        While the editor is hidden the text is only kept: laying out up to a mebibyte of text
        is work for when the user opens the raw editor, not for every load.
        """
        self._pending[source] = data
        if self.isVisible():
            self._load(source)

    def showEvent(self, event):
        super().showEvent(event)
        for source in list(self._pending):
            self._load(source)

    def _load(self, source: str) -> None:
        data = self._pending.pop(source)
        ed = self.editors[source]
        ed.blockSignals(True)
        try:
            if data is None:
                ed.setPlainText("")
                ed.setReadOnly(True)
                ed.setPlaceholderText(f"No {source}.")
                return
            reason = None
            if len(data) > self.LIMIT:
                reason = f"{len(data)} bytes is too large for the text editor; edit values in the tree instead."
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    reason = "The file is not valid UTF-8, so the text editor cannot show it exactly."
                else:
                    if any(c in text for c in ("\r", "\u2028", "\u2029", "\x00")):
                        reason = ("The file contains CR, U+2028/U+2029 or NUL characters that the text editor "
                                  "would change; edit values in the tree instead.")
            if reason:
                ed.setPlainText("")
                ed.setPlaceholderText(reason)
                ed.setReadOnly(True)
            else:
                ed.setPlainText(text)
                ed.setReadOnly(False)
        finally:
            ed.blockSignals(False)
            self._timers[source].stop()
