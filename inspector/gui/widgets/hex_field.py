"""The go-to-offset and find-in-bytes field of :class:`~.hex_view.HexView` (Ctrl+L, Ctrl+Shift+B): a small bar at
the top of the pane that takes a decimal or ``0x`` hex offset, or a text or ``hex:`` byte values to find (the search
of a large file on a worker thread, :mod:`inspector.session.hex_search`). Kept apart from the painting."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit

from ..accessibility import announce
from .keys import claims_escape

__all__ = ["OffsetField", "parse_offset"]


def parse_offset(text: str, size: int) -> tuple[int | None, str]:
    """Parse a go-to-offset entry: decimal (``1234``) or hex (``0x4d2``), against a file of ``size`` bytes.

    Returns ``(offset, "")`` when it names a byte of the file, else ``(None, reason)`` with a short
    message for the user (never raises).
    """
    t = text.strip().replace("_", "")
    try:
        off = int(t[2:], 16) if t.lower().startswith("0x") else int(t, 10)
    except ValueError:
        return None, f"not an offset: {text.strip()!r} (use decimal or 0x hex)"
    if off < 0 or off >= size:
        return None, f"offset {off} (0x{off:x}) is out of range: the file has {size} bytes (last is {max(size - 1, 0)})"
    return off, ""


class OffsetField:
    """The field's half of a bytes view (a mixin before ``QAbstractScrollArea``): the view gives it ``_data``
    (bytes or ``None``), ``_cursor`` (a byte offset), ``go_to(offset)``, ``highlight(span)`` and ``setFocus``;
    :meth:`_init_field` is called from the view's ``__init__``."""

    def _init_field(self) -> None:
        self._goto_bar: QFrame | None = None
        self._bar_mode = "offset"  # or "find"
        self._matches: list[int] = []
        self._match_len = 0
        self._match_i = -1
        self._searched: str | None = None
        self._search_job = None
        self._more = False

    def open_search(self) -> None:
        """Show (and focus) the find field: text, or ``hex:`` and byte values; Enter next, Shift+Enter previous."""
        self.open_goto("find")

    def open_goto(self, mode: str = "offset") -> None:
        """Show (and focus) the go-to-offset field (``mode`` "find": the search field) at the top of the pane."""
        if self._goto_bar is None:
            bar = self._goto_bar = QFrame(self)
            bar.setFrameShape(QFrame.Shape.StyledPanel)
            bar.setAutoFillBackground(True)
            lay = QHBoxLayout(bar)
            lay.setContentsMargins(4, 2, 4, 2)
            self.goto_label = QLabel("Offset:", bar)
            lay.addWidget(self.goto_label)
            self.goto_edit = QLineEdit(bar)
            self.goto_edit.setPlaceholderText("decimal or 0x hex")
            self.goto_edit.setAccessibleName("Go to offset")
            lay.addWidget(self.goto_edit, 1)
            self.goto_message = QLabel("", bar)
            self.goto_message.setWordWrap(True)
            lay.addWidget(self.goto_message, 2)
            self.goto_edit.installEventFilter(self)
        if mode != self._bar_mode:
            self.goto_edit.clear()
        self._bar_mode = mode
        self.goto_label.setText("Offset:" if mode == "offset" else "Find:")
        self.goto_edit.setPlaceholderText("decimal or 0x hex" if mode == "offset" else "text, or hex: 7b 22")
        self.goto_edit.setAccessibleName("Go to offset" if mode == "offset" else "Find in bytes")
        self.goto_message.setText("")
        self._place_goto()
        self._goto_bar.show()
        self._goto_bar.raise_()
        self.goto_edit.selectAll()
        self.goto_edit.setFocus()

    def _place_goto(self) -> None:
        if getattr(self, "_goto_bar", None) is not None:
            self._goto_bar.setGeometry(self.frameWidth(), self.frameWidth(),
                                       self.width() - 2 * self.frameWidth(), self._goto_bar.sizeHint().height())

    def _goto_entered(self) -> None:
        off, why = parse_offset(self.goto_edit.text(), len(self._data or b""))
        if off is None:
            self.goto_message.setText(why or "no file")  # said in place: no dialog
            announce(self.window(), why or "no file", error=True)
            self._place_goto()  # the message may need a second line
            return
        self._goto_bar.hide()
        self.setFocus()
        self.go_to(off)

    def eventFilter(self, obj, event):
        from PySide6.QtCore import QEvent

        if getattr(self, "_goto_bar", None) is not None and obj is getattr(self, "goto_edit", None) \
                and claims_escape(event):
            return True  # Esc closes the field (below), not File ▸ Stop Loading while a load runs
        if getattr(self, "_goto_bar", None) is not None and obj is getattr(self, "goto_edit", None) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self._goto_bar.hide()
                self.setFocus()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):  # handled here: never reaches the hex view
                if self._bar_mode == "find":
                    back = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                    self._find_entered(-1 if back else +1)
                else:
                    self._goto_entered()
                return True
        return super().eventFilter(obj, event)

    @property
    def matches(self) -> list[int]:
        """Start offsets of the last search's matches (bytes)."""
        return self._matches

    def _say(self, text: str, speak: bool = True) -> None:
        """Show ``text`` under the field and (``speak``) tell a screen reader; progress is shown, not said."""
        self.goto_message.setText(text)
        if text and speak:
            announce(self.window(), text)
        self._place_goto()

    def _find_entered(self, step: int) -> None:
        from inspector.session.hex_search import BACKGROUND_BYTES, find_all, parse_needle

        text = self.goto_edit.text()
        if text == self._searched and self._search_job is None:
            return self._step_match(step)
        needle, why = parse_needle(text)
        if needle is None or not self._data:
            return self._say(why or "no file")
        self._searched, self._match_len = text, len(needle)
        data = self._data
        if len(data) <= BACKGROUND_BYTES:
            return self._found(*find_all(data, needle), step)
        from ..jobs import Job, start_job

        if self._search_job is not None:
            self._search_job.cancel()
        job = self._search_job = Job(lambda ctx: find_all(data, needle, ctx), name="searching the bytes")
        job.signals.finished.connect(lambda res: self._search_job is job and self._found(*res, step))
        job.signals.failed.connect(lambda msg: self._search_job is job and self._say(msg))
        job.signals.progress.connect(lambda pct, _t: self._search_job is job and self._say(f"Searching… {pct}%", speak=False))
        self._say("Searching…", speak=False)  # (the result is said)
        start_job(job)

    def _found(self, matches: list[int], more: bool, step: int) -> None:
        self._search_job = None
        self._more = False
        self._matches, self._more = matches, more
        if not matches:
            self._match_i = -1
            return self._say("no match")
        after = [i for i, m in enumerate(matches) if m >= self._cursor] if step > 0 else \
            [i for i, m in enumerate(matches) if m < self._cursor]
        self._match_i = (after[0] if after else 0) if step > 0 else (after[-1] if after else len(matches) - 1)
        self._show_match()

    def _step_match(self, step: int) -> None:
        if not self._matches:
            return self._say("no match")
        self._match_i = (self._match_i + step) % len(self._matches)
        self._show_match()

    def _show_match(self) -> None:
        s = self._matches[self._match_i]
        self.highlight((s, s + self._match_len))
        more = "+" if self._more else ""
        self._say(f"match {self._match_i + 1} of {len(self._matches)}{more} at offset {s} (0x{s:x})")

