"""``HexView``: the raw bytes of a file, painted on demand (smooth for 256 MiB).

Only the visible rows are painted, so the file size does not matter. ``highlight(span)``
marks a half-open byte range and scrolls it into view; clicking a byte (or moving the
cursor with the keyboard) emits :attr:`HexView.offsetActivated`. Ctrl+L (or Go ▸ Go to Offset…) opens
a small field at the top of the pane that accepts a decimal or ``0x`` hex offset, or bytes to find
(:mod:`.hex_field`).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QPainter, QPalette
from PySide6.QtWidgets import QAbstractScrollArea

from inspector.checkpoint import Verdict

from .. import style
from ..focus import paint_focus_frame
from ..accessibility import content_changed
from ..qtcompat import emit
from .hex_field import OffsetField, parse_offset

__all__ = ["HexView", "invalid_utf8_offsets", "parse_offset"]  # (parse_offset: hex_field's, re-exported)

BAD_GLYPH = "\ufffd"  # shown in the text column for a byte that is not part of valid UTF-8


def invalid_utf8_offsets(data: bytes, start: int, end: int) -> set[int]:
    """Offsets in ``[start, end)`` of bytes that are not part of a valid UTF-8 sequence.

    Decodes from the lead byte of the sequence that ``start`` may sit in (at most 3 bytes back)
    to 3 bytes past ``end``, so the answer for a window equals that for the whole file. Cost is
    proportional to ``end - start`` (bytes), not the file size.
    """
    s0 = max(0, start)
    while s0 > 0 and start - s0 < 3 and (data[s0] & 0xC0) == 0x80:
        s0 -= 1
    text = data[s0:min(len(data), end + 3)].decode("utf-8", "surrogateescape")
    bad, pos = set(), s0
    for ch in text:
        if pos >= end:
            break
        if 0xDC80 <= ord(ch) <= 0xDCFF:
            if pos >= start:
                bad.add(pos)
            pos += 1
        else:
            pos += len(ch.encode("utf-8"))
    return bad

#: Said in the pane when the file it reads from shrank since it was opened (bytes past its end are missing).
FILE_CHANGED = "file changed on disk: reload to see it"

ROW = 16  # bytes per row when there is room; 8 when the view is narrow


class HexView(OffsetField, QAbstractScrollArea):
    """Hex + text view of ``bytes``.

    Signals:
        offsetActivated(int): the user clicked a byte or moved the cursor to it.
    """

    offsetActivated = Signal(int)
    # What accessible_lines reads, also while Qt's own constructor runs (a screen reader may ask then).
    _data: bytes | None = None
    _placeholder = "No file"
    _cursor = 0
    _row = ROW

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (offsets, hex, bytes: left to right in any layout)
        self._data: bytes | None = None
        self._span: tuple[int, int] | None = None
        self._mark: int | None = None
        self._cursor = 0
        self._placeholder = "No file"
        self._field: str | None = None  # the JSON Pointer of the highlighted value (for screen readers)
        self._row = ROW
        self._quiet = False  # True while a key's move is relayed (the view is described after it)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setAccessibleName("Bytes")
        self._init_field()

    # -- public API ---------------------------------------------------------------------------
    def set_data(self, data: bytes | None, placeholder: str = "No file") -> None:
        """Show ``data`` (``None``: show ``placeholder``); clears highlight and mark."""
        self._data = data
        self._span = None
        self._mark = None
        self._cursor = 0
        self._placeholder = placeholder
        self._field = None
        self._update_scroll()
        self.verticalScrollBar().setValue(0)
        self.viewport().update()
        self._describe()

    @property
    def data(self) -> bytes | None:
        return self._data

    @property
    def highlighted(self) -> tuple[int, int] | None:
        """The highlighted half-open byte span, or ``None``."""
        return self._span

    @property
    def cursor_offset(self) -> int:
        return self._cursor

    def highlight(self, span: tuple[int, int] | None, *, scroll: bool = True, field: str | None = None) -> None:
        """Highlight ``span`` and (by default) scroll so it starts in view; ``field``: the JSON Pointer of the value
        those bytes are (said to screen readers with the byte under the cursor)."""
        self._span = span
        self._field = field
        if span is not None and self._data is not None:
            self._cursor = min(span[0], max(len(self._data) - 1, 0))
            if scroll:
                self._scroll_to(span[0])
        self.viewport().update()
        self._describe()

    def accessible_summary(self) -> str:
        """What a screen reader says of the bytes view (its accessible description): the byte under the
        cursor with its offset, the field it belongs to, and the selected span."""
        data = self._data
        if not data:
            return self._placeholder
        off = min(self._cursor, len(data) - 1)
        b = data[off]
        char = f"'{chr(b)}'" if 32 <= b < 127 else "not a printable character"
        text = f"byte {off} of {len(data)}: 0x{b:02x}, {char}"
        if self._span is not None:
            text += f"; selected bytes {self._span[0]} to {self._span[1] - 1}"
        if self._field:
            text += f"; field {self._field or '(the whole document)'}"
        return text

    def accessible_lines(self) -> tuple[list[str], int]:
        """The text a screen reader reads of the bytes view (its accessible text interface): one line per
        byte of the cursor's row (``ROW`` bytes, 8 when narrow), ``"byte 18: 0x22, '\"', field /content_digest"``
        (the field for the bytes of the selected span), and the index of the cursor's line in them."""
        data = self._data
        if not data:
            return [self._placeholder], 0
        off = min(self._cursor, len(data) - 1)
        start = off - off % self._row
        return [self._byte_line(i) for i in range(start, min(len(data), start + self._row))], off - start

    def _byte_line(self, off: int) -> str:
        b = self._data[off]
        text = f"byte {off}: 0x{b:02x}, " + (f"'{chr(b)}'" if 32 <= b < 127 else "not a printable character")
        if self._field and self._span is not None and self._span[0] <= off < self._span[1]:
            text += f", field {self._field}"
        return text

    def _describe(self) -> None:
        if self._quiet:
            return
        text = self.accessible_summary()
        if text != self.accessibleDescription():
            self.setAccessibleDescription(text)  # (Qt tells assistive technology: DescriptionChanged)
        content_changed(self)  # the text interface: its line per byte and the caret

    def set_mark(self, offset: int | None) -> None:
        """Mark one byte (e.g. where parsing stopped) with an underline and a frame."""
        self._mark = offset
        if offset is not None:
            self._scroll_to(offset)
        self.viewport().update()

    def go_to(self, offset: int) -> None:
        """Scroll to byte ``offset``, select it and emit :attr:`offsetActivated` (so the trees follow).

        Raises ValueError when ``offset`` is not a byte of the shown data.
        """
        n = len(self._data or b"")
        if not 0 <= offset < n:
            raise ValueError(f"offset {offset} outside 0..{n - 1}")
        self.highlight((offset, offset + 1))
        emit(self.offsetActivated, offset)
        self._cursor = offset  # the relay highlights the node span and moves the cursor to its start
        self._scroll_to(offset)
        self.viewport().update()

    # -- geometry ----------------------------------------------------------------------------
    def _metrics(self):
        fm = self.fontMetrics()
        cw = fm.horizontalAdvance("0")
        lh = fm.height() + 2
        digits = max(8, len(f"{len(self._data or b''):x}"))
        x_hex = (digits + 2) * cw
        # 16 bytes per row when the whole row fits, else 8 (no horizontal scrolling needed).
        full = x_hex + (ROW * 3 + 2) * cw + (ROW + 1) * cw
        self._row = ROW if self.viewport().width() >= full or self.viewport().width() < 50 else ROW // 2
        x_txt = x_hex + (self._row * 3 + 2) * cw
        return cw, lh, digits, x_hex, x_txt

    def narrow_width(self) -> int:
        """Pixels the view needs to show 8 bytes a row (offset, hex and text) without scrolling."""
        fm = self.fontMetrics()
        cw = fm.horizontalAdvance("0")
        digits = max(8, len(f"{len(self._data or b''):x}"))
        half = ROW // 2
        return (digits + 2) * cw + (half * 3 + 2) * cw + (half + 1) * cw + self.verticalScrollBar().sizeHint().width() \
            + 2 * self.frameWidth() + 4

    def _rows(self) -> int:
        return 0 if not self._data else (len(self._data) + self._row - 1) // self._row

    def _update_scroll(self) -> None:
        cw, lh, digits, x_hex, x_txt = self._metrics()
        page = max(1, self.viewport().height() // lh)
        vs = self.verticalScrollBar()
        vs.setRange(0, max(0, self._rows() - page))
        vs.setPageStep(page)
        vs.setSingleStep(1)
        hs = self.horizontalScrollBar()
        width = x_txt + (self._row + 1) * cw
        hs.setRange(0, max(0, width - self.viewport().width()))
        hs.setPageStep(self.viewport().width())

    def _scroll_to(self, offset: int) -> None:
        row = offset // self._row
        vs = self.verticalScrollBar()
        first = vs.value()
        page = vs.pageStep()
        if row < first or row >= first + page:
            vs.setValue(max(0, row - page // 3))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._update_scroll()
        self._place_goto()

    def sizeHint(self):
        cw, lh, digits, x_hex, x_txt = self._metrics()
        return QSize(x_txt + (self._row + 2) * cw + 20, lh * 12)

    def changeEvent(self, event):
        super().changeEvent(event)
        self._update_scroll()

    # -- painting -----------------------------------------------------------------------------
    def paintEvent(self, event):
        self._paint()
        if self.hasFocus():  # the pane's focus frame, 3:1 on its background (inspector/gui/focus.py)
            p = QPainter(self.viewport())
            pal = self.palette()
            paint_focus_frame(p, self.viewport().rect(), pal, pal.color(QPalette.ColorRole.Base))
            p.end()

    def _paint(self):
        p = QPainter(self.viewport())
        p.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (a painter takes the application's: "{" drew as "}")
        pal = self.palette()
        p.fillRect(self.viewport().rect(), pal.color(QPalette.ColorRole.Base))
        cw, lh, digits, x_hex, x_txt = self._metrics()
        fm = self.fontMetrics()
        text_col = pal.color(QPalette.ColorRole.Text)
        if not self._data:
            p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            p.drawText(self.viewport().rect().adjusted(12, 12, -12, -12),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                       self._placeholder)
            return
        dx = -self.horizontalScrollBar().value()
        first = self.verticalScrollBar().value()
        nrows = self.viewport().height() // lh + 1
        hl = style.highlight_colour()
        mark_col = style.colour(Verdict.FAIL)
        off_col = pal.color(QPalette.ColorRole.PlaceholderText)
        data = self._data
        n = len(data)
        span = self._span
        bad = invalid_utf8_offsets(data, first * self._row, (first + nrows) * self._row)
        for r in range(nrows):
            row = first + r
            base = row * self._row
            if base >= n:
                break
            y = r * lh
            chunk = data[base: base + self._row]
            p.setPen(off_col)
            p.drawText(dx + cw, y + fm.ascent() + 1, f"{base:0{digits}x}")
            for i, b in enumerate(chunk):
                off = base + i
                hx = dx + x_hex + (i * 3 + (1 if i >= 8 else 0)) * cw
                tx = dx + x_txt + i * cw
                selected = span is not None and span[0] <= off < span[1]
                if selected:
                    p.fillRect(QRect(hx - cw // 2, y, cw * 3, lh), hl)
                    p.fillRect(QRect(tx, y, cw, lh), hl)
                if off == self._cursor and self.hasFocus():
                    p.setPen(text_col)
                    p.drawRect(QRect(hx - 1, y, cw * 2 + 1, lh - 1))
                if self._mark is not None and off == self._mark:
                    p.fillRect(QRect(hx - cw // 2, y, cw * 3, lh), QColor(mark_col.red(), mark_col.green(),
                                                                           mark_col.blue(), 90))
                    p.setPen(mark_col)
                    p.drawRect(QRect(hx - 1, y, cw * 2 + 1, lh - 1))
                p.setPen(text_col)
                p.drawText(hx, y + fm.ascent() + 1, f"{b:02x}")
                if off in bad:  # glyph + colour + tooltip, never colour alone
                    p.setPen(mark_col)
                    p.drawText(tx, y + fm.ascent() + 1, BAD_GLYPH)
                    continue
                ch = chr(b) if 0x20 <= b < 0x7F else ("·" if b >= 0x80 else ".")
                if ch in ("·", "."):
                    p.setPen(off_col)
                p.drawText(tx, y + fm.ascent() + 1, ch)
        if getattr(data, "changed", False):  # read from the file (filebytes.FileBytes), which shrank
            p.setPen(mark_col)
            p.drawText(self.viewport().rect().adjusted(12, 12, -12, -12),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, FILE_CHANGED)

    # -- interaction ----------------------------------------------------------------------------
    def _offset_at(self, pos) -> int | None:
        if not self._data:
            return None
        cw, lh, digits, x_hex, x_txt = self._metrics()
        x = pos.x() + self.horizontalScrollBar().value()
        row = self.verticalScrollBar().value() + pos.y() // lh
        if x_txt <= x < x_txt + self._row * cw:
            col = (x - x_txt) // cw
        elif x_hex - cw // 2 <= x < x_txt - cw:
            rel = (x - x_hex + cw // 2) // cw
            if rel >= 25:
                rel -= 1
            col = min(self._row - 1, max(0, rel // 3))
        else:
            return None
        off = row * self._row + col
        return off if off < len(self._data) else None

    def offset_position(self, offset: int):
        """Viewport point of the hex digits of ``offset`` (scrolling it into view first); for tests."""
        from PySide6.QtCore import QPoint

        self._scroll_to(offset)
        cw, lh, digits, x_hex, x_txt = self._metrics()
        row = offset // self._row - self.verticalScrollBar().value()
        i = offset % self._row
        hx = x_hex + (i * 3 + (1 if i >= 8 else 0)) * cw - self.horizontalScrollBar().value()
        return QPoint(hx + cw // 2, row * lh + lh // 2)

    def mousePressEvent(self, event):
        self._mouse_press(event)
        self._describe()

    def _mouse_press(self, event):
        off = self._offset_at(event.position().toPoint())
        left = event.button() == Qt.MouseButton.LeftButton
        self._anchor = off if left else None
        span = self._span
        if not left and off is not None and span is not None and span[0] <= off < span[1]:
            # a right click inside the selection keeps it, for its context menu (Copy Bytes as Hex);
            # it selected the field under the pointer, whose bytes were then copied instead
            super().mousePressEvent(event)
            return
        if off is not None:
            self._cursor = off
            self.viewport().update()
            emit(self.offsetActivated, off)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        """Dragging with the left button selects the bytes from the pressed one to the one under the pointer."""
        anchor = getattr(self, "_anchor", None)
        if anchor is not None and event.buttons() & Qt.MouseButton.LeftButton:
            off = self._offset_at(event.position().toPoint())
            if off is not None and off != anchor:
                self._cursor = off
                self.highlight((min(anchor, off), max(anchor, off) + 1), scroll=False)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event):
        self._anchor = None
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event):
        self._key_press(event)
        self._describe()

    def _key_press(self, event):
        if not self._data:
            return super().keyPressEvent(event)
        if event.key() == Qt.Key.Key_L and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
            self.open_goto()
            return
        if event.key() == Qt.Key.Key_B and event.modifiers() == (Qt.KeyboardModifier.ControlModifier
                                                                 | Qt.KeyboardModifier.ShiftModifier):
            self.open_search()
            return
        n = len(self._data)
        key = event.key()
        page = self.verticalScrollBar().pageStep() * self._row
        moves = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1, Qt.Key.Key_Up: -self._row, Qt.Key.Key_Down: self._row,
                 Qt.Key.Key_PageUp: -page, Qt.Key.Key_PageDown: page}
        if key in moves:
            self._cursor = max(0, min(n - 1, self._cursor + moves[key]))
        elif key == Qt.Key.Key_Home:
            self._cursor = 0 if event.modifiers() & Qt.KeyboardModifier.ControlModifier else self._cursor - self._cursor % self._row
        elif key == Qt.Key.Key_End:
            self._cursor = n - 1 if event.modifiers() & Qt.KeyboardModifier.ControlModifier else min(
                n - 1, self._cursor - self._cursor % self._row + self._row - 1)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            emit(self.offsetActivated, self._cursor)
            return
        elif event.matches(QKeySequence.StandardKey.Copy) and self._span is not None:
            from PySide6.QtWidgets import QApplication

            s, e = self._span
            QApplication.clipboard().setText(self._data[s:e].decode("utf-8", "replace"))
            return
        else:
            return super().keyPressEvent(event)
        self._scroll_to(self._cursor)
        self.viewport().update()
        if key not in (Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
            cursor = self._cursor
            self._quiet = True  # said once, after the key (not the field's first byte first)
            try:
                emit(self.offsetActivated, cursor)
            finally:
                self._quiet = False
            # the relay highlights the field's span and puts the cursor at its start: keep it where the key put it,
            # or Right and Down never leave a field (a keyboard user was held on its first byte)
            self._cursor = cursor

    def viewportEvent(self, event):
        from PySide6.QtCore import QEvent
        from PySide6.QtWidgets import QToolTip

        if event.type() == QEvent.Type.ToolTip:
            off = self._offset_at(event.pos())
            if off is not None and off in invalid_utf8_offsets(self._data, off, off + 1):
                QToolTip.showText(event.globalPos(), f"Invalid UTF-8: byte 0x{self._data[off]:02x} at offset {off} "
                                  f"(0x{off:x}) is not part of a valid UTF-8 sequence", self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def focusInEvent(self, event):
        super().focusInEvent(event)
        self.viewport().update()
        self._describe()

    def focusOutEvent(self, event):
        super().focusOutEvent(event)
        self.viewport().update()
