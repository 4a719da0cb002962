"""The transcript pane: the session's messages, or the loop checkpoint's own, as a conversation.

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
    QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QListView, QSplitter, QStyle, QStyledItemDelegate, QTextBrowser,
    QVBoxLayout, QWidget,
)

from inspector.checkpoint.analysis.views import (
    LARGE_MESSAGE, PREVIEW_CHARS, RESUME_MESSAGES, SESSION_MESSAGES, SHOWN_CHARS, bounded_blocks,
)
from inspector.session.visible import visible

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
        self.marks: dict[int, list[tuple[str, bool]]] = {}

    def set_transcript(self, transcript, data: bytes | None, marks: dict | None = None) -> None:
        """Show ``transcript`` over the payload bytes ``data``; ``marks``: per message index, the integrity-lint
        findings that point at it or inside it, as ``(title, blocks resume)``."""
        self.beginResetModel()
        self.tr = transcript
        self.data_bytes = data
        self.marks = marks or {}
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
            text = f"[{i}] {visible(self.tr.roles[i])}: " + " | ".join(_summary(self.tr, i, b) for b in blocks)
            return text + "".join(f" — {mark_text(m)}" for m in self.marks.get(i, ()))
        return None


def _marks(tr, lint) -> dict[int, list[tuple[str, bool]]]:
    """Per message of ``tr``, the ``(title, blocks resume)`` of each lint finding with a location at or inside it."""
    out: dict[int, list] = {}
    for f in lint:
        seen = set()
        for loc in f.locations:
            i = tr.index_of(loc.pointer) if loc.source == "payload" else None
            if i is not None and i not in seen:
                seen.add(i)
                out.setdefault(i, []).append((f.title, f.blocks_resume))
    return out


def mark_text(mark: tuple[str, bool]) -> str:
    """A lint mark on a message as words: ``⚠ lint, blocks resume: Orphan tool result``."""
    title, blocks = mark
    return f"⚠ lint{', blocks resume' if blocks else ''}: {title}"


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
    """One line for a block: its heading, then the first line(s) of its text, every character that would not
    show made visible (:func:`inspector.session.visible.visible`)."""
    return visible(_summary_raw(tr, i, b))


def _summary_raw(tr, i: int, b) -> str:
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
        p.drawText(badge, Qt.AlignmentFlag.AlignCenter, fm.elidedText(visible(role).upper(), Qt.TextElideMode.ElideRight, 86))
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
        marks = model.marks.get(i, ())
        room = _LINES - 1 if marks else _LINES  # (a marked message's last line says what lint found there)
        for n, (b, line) in enumerate(lines[:room]):
            if n == room - 1 and len(lines) > room:
                line += f"  … {len(lines) - n - 1} more block(s)"
            bad = "NO RESULT" in line or "NO MATCHING CALL" in line or (b.kind == "tool_result" and b.is_error)
            p.setPen(QColor("#c62828") if bad and not selected else text_col)
            p.drawText(x, y, fm.elidedText(line, Qt.TextElideMode.ElideRight, width))
            y += fm.height()
        if marks:
            p.setPen(QColor("#c62828") if not selected else text_col)
            f = p.font()
            f.setBold(True)
            p.setFont(f)
            y = r.top() + 3 + fm.ascent() + fm.height() * (_LINES - 1)
            p.drawText(x, y, fm.elidedText("; ".join(mark_text(m) for m in marks), Qt.TextElideMode.ElideRight,
                                           width))
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
        # which list is shown: the session's messages or the loop checkpoint's own (a live export's session has
        # none yet: they are only in the loop checkpoint)
        row = QHBoxLayout()
        self.list_label = QLabel("Messages:")
        self.lists = QComboBox()
        self.lists.setObjectName("transcriptList")
        self.lists.setAccessibleName("Transcript: which messages")
        self.lists.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.list_label.setBuddy(self.lists)
        row.addWidget(self.list_label)
        row.addWidget(self.lists)
        row.addStretch(1)
        lay.addLayout(row)
        self.caption = QLabel("")
        self.caption.setWordWrap(True)  # (one line, it made the Resume dock 584 px wide at least)
        lay.addWidget(self.caption)
        self._lists: list = []  # (transcript, marks) per entry of self.lists
        self._data: bytes | None = None
        self.lists.currentIndexChanged.connect(self._list_chosen)
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
        self.setFocusProxy(self.view)  # (focus given to the pane lands on the list, not on Messages above it)
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
        # the list first in the focus chain (a tab page shown gives it the focus), then Messages, then the message
        QWidget.setTabOrder(self.view, self.lists)
        QWidget.setTabOrder(self.lists, self.detail)
        self._full = False
        # The selected message is written out in a turn of its own (1 ms later, after the list, the trees and
        # the bytes have followed the selection), once for a run of arrow keys: laying out a message's text
        # took 20-30 ms of the turn that also repainted the window.
        self._detail_timer = QTimer(self)
        self._detail_timer.setSingleShot(True)
        self._detail_timer.setInterval(1)
        self._detail_timer.timeout.connect(lambda: self._show(self.view.currentIndex()))
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)

    def set_transcript(self, transcript, data: bytes | None, message: str = "", lint=()) -> None:
        """Show ``transcript`` (or ``message`` when it is ``None``), with the integrity-lint findings ``lint``
        (:class:`~inspector.checkpoint.analysis.lint.LintFinding`) marked on the messages they point at. With a
        loop checkpoint, :attr:`lists` offers the session's messages and the resume point's
        (``transcript.resume_point``); the resume point's is shown first when the session has no message (a
        live export) or when only its messages are marked (an orphan tool result the resumed request would
        send)."""
        self._data = data
        self._lists = []
        if transcript is not None:
            self._lists.append((transcript, _marks(transcript, lint)))
            rp = getattr(transcript, "resume_point", None)
            if rp is not None:
                self._lists.append((rp, _marks(rp, lint)))
        first = 0
        if len(self._lists) == 2:
            (tr, m0), (rp, m1) = self._lists
            if (len(tr) == 0 and len(rp)) or (m1 and not m0):
                first = 1
        self.lists.blockSignals(True)
        self.lists.clear()
        for tr, marks in self._lists:
            n = sum(len(v) for v in marks.values())
            self.lists.addItem(("Session messages" if tr.base == SESSION_MESSAGES else "Resume point messages")
                               + f" ({len(tr):,})" + (f", {n} lint mark(s)" if n else ""))
        self.lists.setCurrentIndex(first if self._lists else -1)
        self.lists.blockSignals(False)
        self.lists.setVisible(len(self._lists) > 1)
        self.list_label.setVisible(len(self._lists) > 1)
        if transcript is None:
            self.model.set_transcript(None, data)
            self.detail.clear()
            self.caption.setText(message)
            return
        self._list_chosen(first)

    def _list_chosen(self, k: int) -> None:
        if not 0 <= k < len(self._lists):
            return
        tr, marks = self._lists[k]
        self.model.set_transcript(tr, self._data, marks)
        self.detail.clear()
        n = len(tr)
        b = tr.boundary
        if tr.base == RESUME_MESSAGES:
            head = (f"The loop checkpoint's own messages (logical_resume.messages): {n:,}, what the resumed run "
                    "sends first; " + ("the resume continues after the last, [" + str(n - 1) + "]" if n
                                       else "there are none"))
        else:
            where = ("; no loop checkpoint" if b is None else "; resume boundary before message [0]" if b == 0
                     else f"; resume boundary after message [{b - 1}] (the first {b:,})")
            head = f"{n:,} message(s){where}"
            if len(self._lists) > 1 and n == 0:
                head += " (a live export: the messages are the resume point's)"
        marked = sum(len(v) for v in marks.values())
        other = sum(len(v) for j, (_t, m) in enumerate(self._lists) if j != k for v in m.values())
        tail = f" {marked} lint finding(s) marked ⚠." if marked else ""
        if other:
            tail += f" {other} more in the other list (Messages)."
        self.caption.setText(f"{head}.{tail} Select a message to see it in full.")

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
        """Select the message at or containing ``pointer`` (in the session's messages or the loop checkpoint's
        own: the list shown changes to it); False when none."""
        for k, (tr, _marks_k) in enumerate(self._lists):
            i = tr.index_of(pointer)
            if i is not None:
                if self.lists.currentIndex() != k:
                    self.lists.setCurrentIndex(k)  # (shows that list: _list_chosen)
                self.select_message(i)
                return True
        return False

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
        parts = [f"<h3>[{i}] {html.escape(visible(role))}</h3>"]
        elided = False
        for b in blocks or []:
            head = _heading(self.model.tr, i, b)  # the text itself follows in full: not repeated here
            after = ""
            if b.kind == "tool_use":  # the call, its input, then where its result is (as in the list)
                head, _, where = head.rpartition(" →")
                after = f"<p>→{html.escape(where)}</p>"
            if head:
                parts.append(f"<p><b>{html.escape(visible(head[:200]))}</b></p>")
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
                parts.append(f"<pre style='white-space: pre-wrap'>{html.escape(visible(text, lines=True))}</pre>{more}")
            parts.append(after)
        if elided:
            parts.insert(1, "<p><a href='show-all'>Show all</a> (long content is shortened)</p>")
        self.detail.setHtml("".join(parts))
