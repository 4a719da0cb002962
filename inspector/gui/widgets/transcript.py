"""The transcript pane: the session's messages as a conversation (issue 11).

A :class:`TranscriptModel` (one row per message, plus one row for the resume boundary) over a
:class:`inspector.checkpoint.analysis.views.Transcript`; a message is read from the payload bytes only when
its row is painted or selected (a small cache keeps the recent ones), and every row has the same
height, so the list view never asks for the size of rows off screen. The
:class:`TranscriptDelegate` paints a row: role, the first lines of its text blocks, tool calls
with where their result is (paired by tool-call id), tool results with the call they answer,
images as placeholders with their size. Below the list, :class:`TranscriptPane` shows the
selected message in full, with long content elided until "Show all" is clicked.
"""

from __future__ import annotations

import html
from collections import OrderedDict

import orjson
from PySide6.QtCore import QAbstractListModel, QModelIndex, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import (
    QAbstractItemView, QLabel, QListView, QSplitter, QStyle, QStyledItemDelegate, QTextBrowser, QVBoxLayout, QWidget,
)

from inspector.checkpoint.analysis.views import LARGE_MESSAGE, PREVIEW_CHARS, SHOWN_CHARS, bounded_blocks

__all__ = ["TranscriptModel", "TranscriptDelegate", "TranscriptPane", "RowRole", "BOUNDARY"]

RowRole = Qt.ItemDataRole.UserRole + 40
BOUNDARY = "boundary"
_ROLE_COLOURS = {"user": "#1565c0", "assistant": "#6a1b9a", "system": "#37474f", "tool": "#e65100"}
_LINES = 3


class TranscriptModel(QAbstractListModel):
    """Rows: the messages, with the resume boundary as one extra row after message ``boundary``.

    ``RowRole`` gives ``(message index, role, blocks)`` for a message row (blocks read on demand,
    ``None`` when the bytes are unavailable) or ``(BOUNDARY, note)``; ``DisplayRole`` a one-line
    summary (for accessibility and tests)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tr = None
        self.data_bytes: bytes | None = None
        self._cache: OrderedDict = OrderedDict()

    def set_transcript(self, transcript, data: bytes | None) -> None:
        """Show ``transcript`` over the payload bytes ``data``."""
        self.beginResetModel()
        self.tr = transcript
        self.data_bytes = data
        self._cache.clear()
        self._rows = 0 if transcript is None else len(transcript) + (1 if transcript.boundary is not None else 0)
        self.endResetModel()

    _rows = 0

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 (Qt override)
        # Computed once per transcript: a list view asks for it once per row while laying out.
        return 0 if parent.isValid() else self._rows

    def message_index(self, row: int) -> int | None:
        """The message shown in ``row`` (``None`` for the boundary row)."""
        b = self.tr.boundary
        if b is None or row < b:
            return row
        return None if row == b else row - 1

    def row_of(self, message: int) -> int:
        """The row showing message ``message``."""
        b = self.tr.boundary
        return message if b is None or message < b else message + 1

    def boundary_row(self) -> int | None:
        """The boundary row, or ``None`` without a loop checkpoint."""
        return None if self.tr is None else self.tr.boundary

    def blocks(self, i: int):
        """The :class:`~inspector.checkpoint.analysis.views.Block` list of message ``i`` (cached), or ``None``.

        A message of at least :data:`~inspector.checkpoint.analysis.views.LARGE_MESSAGE` bytes comes from
        the transcript's previews (read off this thread when the views were built); a smaller one is
        decoded here (well under a millisecond)."""
        tr = self.tr
        pre = tr.previews.get(i)
        if pre is not None:
            return pre
        if i in self._cache:
            self._cache.move_to_end(i)
            return self._cache[i]
        if tr.starts is None or self.data_bytes is None:
            return None
        if tr.ends[i] - tr.starts[i] >= LARGE_MESSAGE:  # a large message without its preview: not here
            return None
        try:
            msg = orjson.loads(self.data_bytes[tr.starts[i]:tr.ends[i]])
            blocks = bounded_blocks(msg, tr.pointer(i))
        except (orjson.JSONDecodeError, IndexError):
            blocks = None
        self._cache[i] = blocks
        if len(self._cache) > 200:
            self._cache.popitem(last=False)
        return blocks

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.tr is None:
            return None
        i = self.message_index(index.row())
        if i is None:
            if role == RowRole:
                return (BOUNDARY, self.tr.boundary_note)
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return f"Resume boundary: {self.tr.boundary_note}"
            return None
        if role == RowRole:
            return (i, self.tr.roles[i], self.blocks(i))
        if role == Qt.ItemDataRole.DisplayRole:
            blocks = self.blocks(i) or []
            return f"[{i}] {self.tr.roles[i]}: " + " | ".join(_summary(self.tr, i, b) for b in blocks)
        return None


def _first_lines(text: str, n: int = 2) -> str:
    lines = text[:PREVIEW_CHARS].splitlines() or [""]
    return " ⏎ ".join(x.strip() for x in lines[:n])


def _heading(tr, i: int, b) -> str:
    """What a block of message ``i`` is, without its text: ``⚙ bash(toolu_1) → result in [2]``.
    Messages are numbered from 0, as in the trees and JSON Pointers (``/messages/2``); ``""``
    for a text block (its text says it all)."""
    if b.kind == "text":
        return ""
    if b.kind == "reasoning":
        return "(reasoning)"
    if b.kind == "image":
        return f"[image {b.media or '?'}, about {b.size * 3 // 4:,} bytes]"
    if b.kind == "tool_use":
        call = tr.calls.get(b.tool_id)
        res = call[1] if call is not None and call[0] == i else -1
        where = f"→ result in [{res}]" if res >= 0 else "→ NO RESULT"
        return f"⚙ {b.name}({b.tool_id}) {where}"
    if b.kind == "tool_result":
        call = tr.calls.get(b.tool_id)
        src = f"answers [{call[0]}]" if call is not None and call[0] < i else "NO MATCHING CALL"
        err = " ERROR" if b.is_error else ""
        return f"↳ result{err} for {b.tool_id} ({src})"
    return f"[{b.kind}]"


def _summary(tr, i: int, b) -> str:
    """One line for a block: its heading, then the first line(s) of its text."""
    head = _heading(tr, i, b)
    if b.kind == "text":
        return _first_lines(b.text)
    if b.kind == "tool_use":  # the call, its input, then where its result is: bash(toolu_1) {…} → result in [2]
        call, _, where = head.rpartition(" →")  # (ours is the last: a tool name may hold " →" too)
        return f"{call} {_first_lines(b.text, 1)} →{where}"
    if b.kind in ("reasoning", "tool_result"):
        return f"{head}{':' if b.kind != 'reasoning' else ''} {_first_lines(b.text, 1)}"
    return head


class TranscriptDelegate(QStyledItemDelegate):
    """Paints a transcript row (fixed height: a role column and up to four block lines)."""

    def sizeHint(self, option, index):  # noqa: N802 (Qt override)
        return QSize(200, option.fontMetrics.height() * (_LINES + 1) + 6)

    def paint(self, p, option, index):
        p.save()
        fm = option.fontMetrics
        r = option.rect
        pal = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            p.fillRect(r, pal.highlight())
        elif index.row() % 2:
            p.fillRect(r, pal.alternateBase())
        row = index.data(RowRole)
        text_col = pal.highlightedText().color() if selected else pal.text().color()
        if row is None:
            p.restore()
            return
        if row[0] == BOUNDARY:
            green = QColor("#2e7d32")
            p.fillRect(r.adjusted(0, 2, 0, -2), QColor(46, 125, 50, 40))
            p.setPen(QPen(green, 3))
            y = r.top() + r.height() // 2
            p.drawLine(r.left() + 4, y, r.left() + 40, y)
            p.drawLine(r.right() - 40, y, r.right() - 4, y)
            p.setPen(green if not selected else text_col)
            f = p.font()
            f.setBold(True)
            p.setFont(f)
            p.drawText(r.adjusted(48, 0, -48, 0), Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap,
                       "RESUME BOUNDARY — " + row[1])
            p.restore()
            return
        i, role, blocks = row
        model = index.model()
        badge = QRect(r.left() + 4, r.top() + 4, 90, fm.height() + 4)
        p.fillRect(badge, QColor(_ROLE_COLOURS.get(role, "#555555")))
        p.setPen(QColor("white"))
        p.drawText(badge, Qt.AlignmentFlag.AlignCenter, fm.elidedText(role.upper(), Qt.TextElideMode.ElideRight, 86))
        p.setPen(text_col if selected else pal.placeholderText().color())
        p.drawText(QRect(r.left() + 4, badge.bottom() + 2, 90, fm.height()), Qt.AlignmentFlag.AlignCenter, f"[{i}]")
        x = r.left() + 102
        width = r.width() - 108
        y = r.top() + 3 + fm.ascent()
        if blocks is None:
            p.setPen(text_col)
            p.drawText(x, y, "(message not available: the payload's spans are unknown)")
            p.restore()
            return
        lines = [(b, _summary(model.tr, i, b)) for b in blocks]
        shown = lines[:_LINES]
        for b, line in shown:
            bad = "NO RESULT" in line or "NO MATCHING CALL" in line or (b.kind == "tool_result" and b.is_error)
            p.setPen(QColor("#c62828") if bad and not selected else text_col)
            p.drawText(x, y, fm.elidedText(line, Qt.TextElideMode.ElideRight, width))
            y += fm.height()
        if len(lines) > _LINES:
            p.setPen(pal.placeholderText().color() if not selected else text_col)
            p.drawText(x, y, f"… {len(lines) - _LINES} more block(s)")
        p.restore()


class TranscriptPane(QWidget):
    """The transcript list and the selected message in full.

    Signals:
        pointerActivated(str): a message was selected (its JSON Pointer).
    """

    pointerActivated = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("")
        self.caption.setWordWrap(True)  # (one line, it made the Resume dock 584 px wide at least)
        lay.addWidget(self.caption)
        self.model = TranscriptModel(self)
        self.view = QListView()
        self.view.setObjectName("transcriptView")
        self.view.setAccessibleName("Transcript")
        self.view.setModel(self.model)
        self.view.setItemDelegate(TranscriptDelegate(self.view))
        self.view.setUniformItemSizes(True)
        # Lay out 120,000 messages a batch per event-loop turn, not all in one (a 1 s stall).
        self.view.setLayoutMode(QListView.LayoutMode.Batched)
        self.view.setBatchSize(2000)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.detail = QTextBrowser()
        self.detail.setObjectName("transcriptDetail")
        self.detail.setAccessibleName("Message: the selected message of the transcript")
        self.detail.setOpenLinks(False)
        self.detail.anchorClicked.connect(self._anchor)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        self._full = False
        # The selected message is written out in a turn of its own (1 ms later, after the list, the trees and
        # the bytes have followed the selection), once for a run of arrow keys: laying out a message's text
        # took 20-30 ms of the turn that also repainted the window (issue 25).
        self._detail_timer = QTimer(self)
        self._detail_timer.setSingleShot(True)
        self._detail_timer.setInterval(1)
        self._detail_timer.timeout.connect(lambda: self._show(self.view.currentIndex()))
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)

    def set_transcript(self, transcript, data: bytes | None, message: str = "") -> None:
        """Show ``transcript`` (or ``message`` when it is ``None``)."""
        self.model.set_transcript(transcript, data)
        self.detail.clear()
        if transcript is None:
            self.caption.setText(message)
            return
        n = len(transcript)
        b = transcript.boundary
        where = ("; no loop checkpoint" if b is None else "; resume boundary before message [0]" if b == 0
                 else f"; resume boundary after message [{b - 1}] (the first {b:,})")
        self.caption.setText(f"{n:,} message(s){where}. Select a message to see it in full.")

    def select_message(self, i: int, *, notify: bool = False) -> None:
        """Select message ``i`` (and scroll to it)."""
        if self.model.tr is None or not 0 <= i < len(self.model.tr):
            return
        idx = self.model.index(self.model.row_of(i))
        self.view.selectionModel().blockSignals(not notify)
        self.view.setCurrentIndex(idx)
        self.view.selectionModel().blockSignals(False)
        self.view.scrollTo(idx)
        self._detail_timer.start()

    def select_pointer(self, pointer: str) -> bool:
        """Select the message at or containing ``pointer``; False when none."""
        prefix = "/snapshot/session/messages/"
        if not pointer.startswith(prefix):
            return False
        tok = pointer[len(prefix):].split("/", 1)[0]
        if not tok.isdigit():
            return False
        self.select_message(int(tok))
        return True

    def _current_changed(self, current, _previous):
        self._full = False
        self._detail_timer.start()

    def _selection_changed(self, selected, _deselected):
        # A click or a key selects the row; the focus alone (switching to the tab) only makes the
        # first row current: that shows it here but selects nothing in the trees (nor adds a
        # Back/Forward stop nobody chose).
        rows = selected.indexes()
        i = self.model.message_index(rows[0].row()) if rows else None
        if i is not None:
            self.pointerActivated.emit(self.model.tr.pointer(i))

    def _anchor(self, url):
        if url.toString() == "show-all":
            self._full = True
            self._show(self.view.currentIndex())

    def _show(self, index) -> None:
        if not index.isValid():
            self.detail.clear()
            return
        row = index.data(RowRole)
        if row[0] == BOUNDARY:
            self.detail.setHtml(f"<h3>Resume boundary</h3><p>{html.escape(row[1])}.</p>")
            return
        i, role, blocks = row
        parts = [f"<h3>[{i}] {html.escape(role)}</h3>"]
        elided = False
        for b in blocks or []:
            head = _heading(self.model.tr, i, b)  # the text itself follows in full: not repeated here
            after = ""
            if b.kind == "tool_use":  # the call, its input, then where its result is (as in the list)
                head, _, where = head.rpartition(" →")
                after = f"<p>→{html.escape(where)}</p>"
            if head:
                parts.append(f"<p><b>{html.escape(head[:200])}</b></p>")
            if b.kind in ("text", "reasoning", "tool_use", "tool_result") and b.text:
                whole = b.whole_chars or len(b.text)
                if not self._full and whole > PREVIEW_CHARS:
                    text = b.text[:PREVIEW_CHARS]
                    elided = True
                    more = f"<br><i>… {whole - PREVIEW_CHARS:,} more characters</i>"
                elif whole > SHOWN_CHARS:
                    text = b.text[:SHOWN_CHARS]
                    more = (f"<br><i>… {whole - SHOWN_CHARS:,} more characters are not shown here: the whole "
                            "text is in the snapshot tree (Copy Value)</i>")
                else:
                    text, more = b.text, ""
                parts.append(f"<pre style='white-space: pre-wrap'>{html.escape(text)}</pre>{more}")
            parts.append(after)
        if elided:
            parts.insert(1, "<p><a href='show-all'>Show all</a> (long content is shortened)</p>")
        self.detail.setHtml("".join(parts))
