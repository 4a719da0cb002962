"""Small composite widgets: message banners, the verdict header, tree panes, detail panels, find bar."""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSizePolicy,
    QStackedWidget,
    QTabWidget, QTextBrowser, QToolButton, QTreeView, QVBoxLayout, QWidget,
)

from inspector.checkpoint import Verdict

from .. import style
from ..visible import visible
from ..qtcompat import emit
from .field_column import FieldColumnFitter

__all__ = ["Banner", "ElidedLabel", "JsonTreeView", "VerdictHeader", "TreePane", "FindingDetail", "DigestDetail", "FindBar", "RawEditor",
           "finding_html"]


class _WrappedLabel(QLabel):
    """A word-wrapped label whose size hint is its height at its current width.

    In the tool bar at the top (no height-for-width there) a plain wrapped QLabel asks for the
    height of its text wrapped at a guessed narrow width: a three-line note took 101 px instead of
    42 at 1024 px, and the verdict below it was stretched to fill the bar.
    """

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        if self.width() > 0:
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().minimumSizeHint()
        if self.width() > 0:
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        # The box layouts would otherwise size the banner for the text wrapped at its *hint* width.
        return False

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


class Banner(QFrame):
    """A message strip at the top of the window: an icon, a sentence and optional buttons.

    ``kind``: ``error``, ``edited``, ``stale`` or ``info``. The kind is also written as a word
    at the start of the text, so it never depends on colour alone.
    """

    closed = Signal()

    def __init__(self, kind: str, text: str, actions: list[tuple[str, object]] = (), parent=None):
        super().__init__(parent)
        self.kind = kind
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"banner-{kind}")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 6, 6)
        verdict = {"error": Verdict.FAIL, "stale": Verdict.NOT_REACHED, "edited": Verdict.NOT_REACHED,
                   "info": Verdict.NOT_APPLICABLE}[kind]
        icon = QLabel()
        icon.setPixmap(style.icon(verdict).pixmap(20, 20))
        lay.addWidget(icon)
        self.label = _WrappedLabel(text)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.label, 1)
        self.buttons = {}
        for name, slot in actions:
            b = QPushButton(name)
            b.clicked.connect(slot)
            lay.addWidget(b)
            self.buttons[name] = b
        close = QToolButton()
        close.setText("✕")
        close.setAccessibleName("Dismiss message")
        close.setToolTip("Dismiss")
        close.clicked.connect(self._close)
        lay.addWidget(close)
        self.setAutoFillBackground(True)
        pal = self.palette()
        bg = style.edited_colour() if kind in ("edited", "stale") else pal.color(QPalette.ColorRole.AlternateBase)
        if kind == "error":
            c = style.colour(Verdict.FAIL)
            bg = c.lighter(185) if not style.is_dark() else c.darker(300)
        pal.setColor(QPalette.ColorRole.Window, bg)
        self.setPalette(pal)

    @property
    def text(self) -> str:
        return self.label.text()

    def _close(self):
        emit(self.closed)
        self.hide()
        self.deleteLater()


def _set_text_colour(label: QLabel, colour) -> None:
    """Colour a label's text. Inside the tool bar a label may paint with ButtonText rather than
    WindowText (on X11 the red of a failure came out black), so both roles get the colour."""
    pal = label.palette()
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(role, colour)
    label.setPalette(pal)


class ElidedLabel(QLabel):
    """A label of at most ``lines`` lines (default one) that fits any width: text too long for it
    breaks between words onto the next line and the last line ends in "…"; the full text is its
    tooltip. ``text()`` is the full text; :meth:`displayed_text` what is painted."""

    def __init__(self, text: str = "", parent=None, lines: int = 1):
        super().__init__(parent)
        self._full = ""
        self._lines = lines
        self.setMinimumWidth(60)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        self._full = text or ""
        self.setToolTip(self._full)
        self.setAccessibleName(self._full)
        self._refit()

    def text(self) -> str:  # noqa: D401 (Qt override)
        return self._full

    def displayed_text(self) -> str:
        return super().text()

    def _refit(self) -> None:
        width = max(self.contentsRect().width(), 10)
        fm = self.fontMetrics()
        rest, lines = self._full, []
        while len(lines) < self._lines - 1 and fm.horizontalAdvance(rest) > width:
            words = rest.split(" ")
            k = len(words) - 1
            while k > 1 and fm.horizontalAdvance(" ".join(words[:k])) > width:
                k -= 1
            lines.append(" ".join(words[:k]))
            rest = " ".join(words[k:])
        lines.append(fm.elidedText(rest, Qt.TextElideMode.ElideRight, width))
        shown = "\n".join(lines)
        if shown != super().text():
            super().setText(shown)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._refit()

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._refit()

    def minimumSizeHint(self):
        h = super().minimumSizeHint()
        return QSize(self.minimumWidth(), h.height())

    def sizeHint(self):
        h = super().sizeHint()
        return QSize(min(h.width(), 400), h.height())


class VerdictHeader(QFrame):
    """The overall verdict in large type, with the root cause and a button to jump to it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        self.icon = QLabel()
        lay.addWidget(self.icon)
        self.title = ElidedLabel("No checkpoint open", lines=2)  # the plain-language sentence needs room
        f = self.title.font()
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setBold(True)
        self.title.setFont(f)
        # A line or two each, elided to the window's width (full text in the tooltip): a wrapping label
        # inside a tool bar makes the bar far taller than its text, and a long one widens the window.
        # Two lines: the digest agreement and rule counts come last, and on one line they were what
        # got cut ("— di…" at 1280 px, "3 FAIL ·…" at 1600 px with the bundled-sample hint).
        self.subtitle = ElidedLabel("", lines=2)
        # A failed open while another checkpoint stays on screen: said above the (unchanged) verdict.
        self.notice = ElidedLabel("")
        self.notice.setVisible(False)
        texts = QVBoxLayout()
        texts.setSpacing(1)
        texts.addWidget(self.notice)
        texts.addWidget(self.title)
        # Beside the plain-language verdict: the reference's own words (rule, message).
        self.reference = ElidedLabel("")
        self.reference.setObjectName("verdictReference")
        self.reference.setVisible(False)
        texts.addWidget(self.reference)
        texts.addWidget(self.subtitle)
        # Resumability (issue 11): set by :class:`~inspector.gui.resume.ResumePanes`.
        self.resume = ElidedLabel("")
        self.resume.setObjectName("resumabilityLine")
        self.resume.setVisible(False)
        texts.addWidget(self.resume)
        lay.addLayout(texts, 1)
        self.button = QPushButton("Show root cause")
        self.button.setVisible(False)
        lay.addWidget(self.button)
        self.ticket_button = QPushButton("Copy for ticket")
        self.ticket_button.setObjectName("copyForTicket")
        self.ticket_button.setToolTip("Copy a short report for a support ticket: verdict, root cause in plain words, "
                                      "file names, sizes and digests; no checkpoint content (Ctrl+Shift+T)")
        self.ticket_button.setVisible(False)
        lay.addWidget(self.ticket_button)

    def set_verdict(self, text: str, verdict: Verdict, show_button: bool, subtitle: str = "",
                    notice: str = "", reference: str = "", ticket: bool = False) -> None:
        """Show ``text`` in the verdict's colour and icon; ``notice`` (an error, said as ERROR) above it;
        ``reference`` (the reference's rule and message) under it; ``ticket``: offer Copy for ticket."""
        self.title.setText(text)
        self.reference.setText(reference)
        self.reference.setVisible(bool(reference))
        self.ticket_button.setVisible(ticket)
        self.subtitle.setText(subtitle)
        self.subtitle.setVisible(bool(subtitle))
        self.notice.setText(f"ERROR — {notice}" if notice else "")
        self.notice.setVisible(bool(notice))
        if notice:
            _set_text_colour(self.notice, style.colour(Verdict.FAIL))
        _set_text_colour(self.title, style.colour(verdict))
        self.icon.setPixmap(style.icon(verdict).pixmap(32, 32))
        self.button.setVisible(show_button)


class JsonTreeView(QTreeView):
    """A tree view that scrolls back sideways after an edit: editing the value column scrolls the
    view to show the editor; when the editor closes, the horizontal position from before returns."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._hpos: int | None = None

    def remember_scroll(self) -> None:
        """Remember the horizontal position (called before an edit starts)."""
        if self.state() != QAbstractItemView.State.EditingState:
            self._hpos = self.horizontalScrollBar().value()

    def keyPressEvent(self, event):
        self.remember_scroll()
        super().keyPressEvent(event)

    def mouseDoubleClickEvent(self, event):
        self.remember_scroll()
        super().mouseDoubleClickEvent(event)

    def closeEditor(self, editor, hint):  # noqa: N802 (Qt override)
        super().closeEditor(editor, hint)
        if self._hpos is not None:
            pos, self._hpos = self._hpos, None
            self.horizontalScrollBar().setValue(pos)
            QTimer.singleShot(0, lambda: self.horizontalScrollBar().setValue(pos))


class TreePane(QWidget):
    """A tree view with a caption and a placeholder shown when there is nothing to display."""

    def __init__(self, caption: str, model, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.caption = QLabel(caption)
        self.caption.setContentsMargins(4, 2, 4, 2)
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.stack = QStackedWidget()
        self.view = JsonTreeView()
        self.view.setModel(model)
        self.field_column = FieldColumnFitter(self.view)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.view.header().setStretchLastSection(False)
        self.view.setColumnWidth(1, 360)
        self.view.setColumnWidth(2, 110)
        self.placeholder = QLabel("")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.placeholder.setContentsMargins(12, 12, 12, 12)
        self.placeholder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.placeholder)
        lay.addWidget(self.stack, 1)
        self.model = model

    def show_tree(self) -> None:
        self.stack.setCurrentIndex(0)

    def show_message(self, text: str) -> None:
        self.placeholder.setText(text)
        self.stack.setCurrentIndex(1)


def _esc(s) -> str:
    """HTML-escaped text with invisible characters shown (control pictures, \\u2028 escapes)."""
    return html.escape(visible(str(s)))


def finding_html(f, report) -> str:
    """HTML description of one finding: verdict, message, where, expected vs actual, notes."""
    rc = report.root_cause if report is not None else None
    label = style.label(f.verdict, root=f is rc, consequence=f.failed and rc is not None and f is not rc)
    col = style.colour(f.verdict).name()
    link = style.link_colour().name()
    out = [f"<h3 style='margin:0'>{_esc(f.rule.id)} — {_esc(f.rule.title)}</h3>",
           f"<p style='margin-top:4px'><b style='color:{col}'>{_esc(label)}</b>"]
    if f.failed and rc is not None and f is not rc:
        out.append(f" — a consequence of the root cause <a style='color:{link}' href='rule:{_esc(rc.rule.id)}'>{_esc(rc.rule.id)}</a>")
    out.append("</p>")
    plain = f.rule.plain
    if f.failed and plain is not None:
        out.append(f"<p><b>In plain words:</b> {_esc(plain.meaning)}<br><b>Likely causes:</b> "
                   f"{_esc('; '.join(plain.causes))}<br><b>Next step:</b> {_esc(plain.next_step)}</p>")
    if f.message:
        out.append(f"<p><b>Message:</b> <code>{_esc(f.message)}</code></p>")
    if f.verdict is Verdict.NOT_REACHED and f.blocked_by:
        out.append(f"<p>Not checked because <a style='color:{link}' href='rule:{_esc(f.blocked_by)}'>{_esc(f.blocked_by)}</a> failed first.</p>")
    if f.locations:
        out.append("<p><b>Where:</b><br>")
        for i, loc in enumerate(f.locations):
            span = f"bytes {loc.span[0]}–{loc.span[1]}" if loc.span else "absent from the file"
            out.append(f"&nbsp;&nbsp;<a style='color:{link}' href='loc:{i}'>{_esc(loc.source)} {_esc(loc.pointer or '/')}</a> ({span})<br>")
        out.append("</p>")
    if f.expected is not None or f.actual is not None:
        out.append("<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'>")
        out.append(f"<tr><td><b>Expected</b></td><td><code>{_esc(f.expected if f.expected is not None else '—')}</code></td></tr>")
        out.append(f"<tr><td><b>Actual</b></td><td><code>{_esc(f.actual if f.actual is not None else '—')}</code></td></tr>")
        out.append("</table>")
    if f.notes:
        out.append("<ul>" + "".join(f"<li>{_esc(n)}</li>" for n in f.notes) + "</ul>")
    if f.occurrences > 1:
        out.append(f"<p>{f.occurrences} occurrences; the first is shown.</p>")
    meta = [f"stage {_esc(f.rule.group)}"]
    if f.rule.code:
        meta.append(f"code <code>{_esc(f.rule.code)}</code>")
    meta.append(_esc(f.rule.doc_ref))
    out.append(f"<p style='color:gray'>{' · '.join(meta)}</p>")
    return "".join(out)


class FindingDetail(QTextBrowser):
    """Read-only description of the selected finding; links jump to locations and rules."""

    locationClicked = Signal(int)
    ruleClicked = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._anchor)
        self.setPlaceholderText("Select a rule to see what it checks, where it failed, and what was expected.")
        self.setAccessibleName("Finding details")

    def _anchor(self, url):
        s = url.toString()
        if s.startswith("loc:"):
            emit(self.locationClicked, int(s[4:]))
        elif s.startswith("rule:"):
            emit(self.ruleClicked, s[5:])


class DigestDetail(QWidget):
    """Shows exactly which bytes a digest hashes: domain string, the 0x00 separator, canonical JSON."""

    def __init__(self, hex_view_cls, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.text = QTextBrowser()
        self.text.setAccessibleName("Digest details")
        self.text.setPlaceholderText("Select a digest to see the exact bytes that were hashed.")
        self.hex = hex_view_cls()
        self.tabs.addTab(self.text, "What was hashed")
        self.tabs.addTab(self.hex, "Hashed bytes")
        lay.addWidget(self.tabs, 1)

    def clear(self) -> None:
        self.text.setHtml("")
        self.hex.set_data(None, "Select a digest.")

    def show_row(self, row, payload_span: tuple[int, int] | None) -> None:
        """Describe ``row`` (a ``DigestRow``); ``payload_span`` is the payload bytes a content digest covers."""
        verdict = style.match_label(row.matches)
        col = style.match_colour(row.matches).name()
        out = [f"<p style='margin:0'><b>{_esc(row.label)}</b> — <b style='color:{col}'>{_esc(verdict)}</b></p>",
               "<table cellspacing='0' cellpadding='2'>",
               f"<tr><td>stated</td><td><code>{_esc(row.stated if row.stated is not None else '—')}</code></td></tr>",
               f"<tr><td>recomputed&nbsp;</td><td><code>{_esc(row.recomputed if row.recomputed is not None else '—')}"
               "</code></td></tr></table>"]
        pre = row.preimage
        if row.domain:
            dlen = len(row.domain.encode())
            out.append(f"<p>SHA-256 over <b>{row.preimage_size}</b> bytes: the domain string (bytes 0–{dlen}), one "
                       f"<b>0x00</b> separator (byte {dlen}), then the canonical JSON of the evidence without its "
                       f"digest field (bytes {dlen + 1}–{row.preimage_size}):</p>")
            json_part = (pre or b"")[dlen + 1:].decode("utf-8", "replace")
            out.append(f"<pre style='white-space:pre-wrap'>{_esc(row.domain)}</pre><p style='margin:0'>"
                       f"<b>⟨0x00⟩</b></p><pre style='white-space:pre-wrap'>{_esc(json_part)}</pre>")
            self.hex.set_data(pre)
            self.hex.highlight((dlen, dlen + 1))
        elif row.preimage_size or pre is not None:
            where = ""
            if payload_span is not None:
                where = f" They are bytes {payload_span[0]}–{payload_span[1]} of the payload file."
            out.append(f"<p>SHA-256 over <b>{row.preimage_size}</b> bytes, with no domain string.{_esc(where)}</p>")
            if pre is not None:
                shown = pre[:20_000].decode("utf-8", "replace")
                more = " …" if len(pre) > 20_000 else ""
                lines = "\n".join(_esc(line) for line in shown.split("\n"))  # line breaks stay breaks
                out.append(f"<pre style='white-space:pre-wrap'>{lines}{more}</pre>")
                self.hex.set_data(pre)
            else:
                out.append("<p>Too large to keep; see the payload bytes view.</p>")
                self.hex.set_data(None, "too large to keep; see the payload bytes view")
        else:
            out.append("<p>A size: compared as a number; nothing is hashed.</p>")
            self.hex.set_data(None, "nothing hashed")
        self.text.setHtml("".join(out))


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
        self.editors = {}
        self._timers = {}
        self._pending: dict[str, bytes | None] = {}  # documents not yet loaded into a (hidden) editor
        for source in ("payload", "descriptor"):
            ed = QPlainTextEdit()
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
