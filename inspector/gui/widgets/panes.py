"""Small composite widgets: message banners, the verdict header and the tree panes.

The detail panels (:mod:`.details`), the find bar (:mod:`.find_bar`) and the raw-text editors
(:mod:`.raw_editor`) live in their own modules and are re-exported here, so
``from inspector.gui.widgets.panes import FindBar`` keeps working.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QStackedWidget,
    QStyledItemDelegate, QToolButton, QTreeView, QVBoxLayout, QWidget,
)

from inspector.checkpoint import Verdict

from .. import style
from ..qtcompat import emit
from .details import DigestDetail, FindingDetail, finding_html
from .field_column import FieldColumnFitter
from .find_bar import FindBar
from .raw_editor import RawEditor

__all__ = ["Banner", "ElidedLabel", "JsonTreeView", "RowTreeView", "VerdictHeader", "TreePane", "FindingDetail", "DigestDetail",
           "FindBar", "RawEditor", "finding_html"]


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
        icon.setAccessibleName({"error": "Error", "stale": "Changed on disk", "edited": "Edited",
                                "info": "Note"}[kind])
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
        # what a screen reader says of it (an error banner's role is Notification: it is spoken when it appears,
        # inspector.gui.accessibility.NotificationAccessible)
        self.setAccessibleName(text)

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


def _break_at_dash(words: list[str], k: int, width: int, fm, last: bool) -> int:
    """Where to break ``words`` (a line of ``words[:k]`` fits ``width``): after the last " — "
    separator of that line when it is at least half full, so a line does not end with the start
    of a group ("… 3 FAIL · 68 PASS" / "· 4 n/a"); ``last``: the rest must then fit one line."""
    for j in range(k, 1, -1):
        if words[j - 1] != "—":
            continue
        while j < k and words[j] == "":
            j += 1  # the spaces after the dash stay on this line (the text is unchanged)
        if fm.horizontalAdvance(" ".join(words[:j])) < width / 2:
            return k
        if last and fm.horizontalAdvance(" ".join(words[j:])) > width:
            return k
        return j
    return k


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip shown as typed: Qt takes a tooltip that looks like markup as rich text (a run id
    ``<h1>…`` became a heading), so it is escaped and its line breaks kept."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


class ElidedLabel(QLabel):
    """A label of at most ``lines`` lines (default one) that fits any width: text too long for it
    breaks between words onto the next line and the last line ends in "…"; the full text is its
    tooltip. ``text()`` is the full text; :meth:`displayed_text` what is painted. ``natural``: its size hint is the
    whole text's width (it shrinks when the layout has less), so what follows it in a row sits right after it."""

    def __init__(self, text: str = "", parent=None, lines: int = 1, natural: bool = False):
        super().__init__(parent)
        self._full = ""
        self._lines = lines
        self._natural = natural
        self.setTextFormat(Qt.TextFormat.PlainText)  # (text from a file is never markup: "<h1>" is shown as typed)
        self.setMinimumWidth(60)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        self._full = text or ""
        self.setToolTip(plain_tooltip(self._full))
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
            k = _break_at_dash(words, k, width, fm, last=len(lines) + 2 >= self._lines)
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
        if self._natural:  # as wide as the whole text asks (a layout gives less when there is less)
            m = self.contentsMargins()
            return QSize(self.fontMetrics().horizontalAdvance(self._full) + m.left() + m.right() + 4, h.height())
        return QSize(min(h.width(), 400), h.height())


class VerdictHeader(QFrame):
    """The overall verdict in large type, with the root cause and a button to jump to it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        self.icon = QLabel()
        lay.addWidget(self.icon)
        # the plain-language sentence needs room: two lines, a third where the window is narrow (at 1024 px it was
        # cut: "...from different checkpoi…"); a line is only taken when the text needs it
        self.title = ElidedLabel("No checkpoint open", lines=3)
        f = self.title.font()
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setBold(True)
        self.title.setFont(f)
        # A line or two each, elided to the window's width (full text in the tooltip): a wrapping label
        # inside a tool bar makes the bar far taller than its text, and a long one widens the window.
        # Two lines: the digest agreement and rule counts come last, and on one line they were what
        # got cut ("— di…" at 1280 px, "3 FAIL ·…" at 1600 px with the bundled-sample hint).
        self.subtitle = ElidedLabel("", lines=2)
        texts = QVBoxLayout()
        texts.setSpacing(1)
        texts.addWidget(self.title)
        # Beside the plain-language verdict: the reference's own words (rule, message).
        self.reference = ElidedLabel("")
        self.reference.setObjectName("verdictReference")
        self.reference.setVisible(False)
        texts.addWidget(self.reference)
        # Beside VERIFIED: what it proves, in short (integrity, not authenticity).
        self.proves = ElidedLabel("")
        self.proves.setObjectName("verifiedProves")
        self.proves.setVisible(False)
        texts.addWidget(self.proves)
        texts.addWidget(self.subtitle)
        # Resumability: set by :class:`~inspector.gui.resume.ResumePanes` (:meth:`set_resumability`). The line and its
        # Details button are Tab stops; the details (every reason, lint warning and host fact) are shown in the bar,
        # not in a tooltip only a mouse can reach, and are the line's accessible description.
        self.resume = ElidedLabel("", natural=True)
        self.resume.setObjectName("resumabilityLine")
        self.resume.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.resume.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.resume_more = QToolButton()
        self.resume_more.setObjectName("resumabilityDetails")
        self.resume_more.setText("Details")
        self.resume_more.setCheckable(True)
        self.resume_more.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.resume_more.setAccessibleName("Resumability details")
        self.resume_more.setToolTip("Show or hide every reason, integrity-lint warning and host fact of the resumability "
                                    "answer")
        self.resume_row = QWidget()
        row = QHBoxLayout(self.resume_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.resume)
        row.addWidget(self.resume_more)
        row.addStretch(1)
        self.resume_row.setVisible(False)
        texts.addWidget(self.resume_row)
        self.resume_details = QLabel("")
        self.resume_details.setObjectName("resumabilityDetailsText")
        self.resume_details.setTextFormat(Qt.TextFormat.PlainText)
        self.resume_details.setWordWrap(True)
        self.resume_details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard
                                                    | Qt.TextInteractionFlag.TextSelectableByMouse)
        self.resume_details.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # (after the flags, which set ClickFocus)
        self.resume_details.setAccessibleName("Resumability details")
        self.resume_details.setVisible(False)
        texts.addWidget(self.resume_details)
        self.resume_more.toggled.connect(self._resume_details_toggled)
        lay.addLayout(texts, 1)
        self.button = QPushButton("Show root cause")
        self.button.setVisible(False)
        lay.addWidget(self.button)
        self.ticket_button = QPushButton("Copy for ticket")
        self.ticket_button.setObjectName("copyForTicket")
        self.ticket_button.setToolTip("Copy a short report for a support ticket: verdict, root cause in plain words, "
                                      "file names and sizes; no checkpoint content, the files' digests as tags "
                                      "(Ctrl+Shift+T)")
        self.ticket_button.setVisible(False)
        lay.addWidget(self.ticket_button)
        self.proves_button = QPushButton("What VERIFIED proves…")
        self.proves_button.setObjectName("whatVerifiedProves")
        self.proves_button.setToolTip("Integrity, not authenticity: what a VERIFIED verdict proves and what it does not")
        self.proves_button.setVisible(False)
        lay.addWidget(self.proves_button)

    def set_resumability(self, text: str, details: list[str], colour) -> None:
        """Show the resumability line ``text`` in ``colour`` (a QColor) with ``details`` (one sentence each: reasons,
        lint warnings, host facts; plain text) behind its Details button; nothing when ``text`` is empty."""
        self.resume.setText(text)
        joined = "\n".join(details)
        self.resume.setToolTip(plain_tooltip(f"{text}\n\n{joined}" if joined else text))
        self.resume.setAccessibleDescription(joined)
        self.resume_details.setText("\n".join(f"• {d}" for d in details))
        self.resume_more.setVisible(bool(details))
        self.resume_row.setVisible(bool(text))
        self.resume_details.setVisible(bool(text and details) and self.resume_more.isChecked())
        _set_text_colour(self.resume, colour)

    def _resume_details_toggled(self, on: bool) -> None:
        self.resume_details.setVisible(on and bool(self.resume_details.text()) and self.resume_row.isVisible())
        self.resume_more.setText("Hide details" if on else "Details")

    def set_verdict(self, text: str, verdict: Verdict, show_button: bool, subtitle: str = "",
                    reference: str = "", ticket: bool = False, proves: str = "") -> None:
        """Show ``text`` in the verdict's colour and icon; ``reference`` (the reference's rule and
        message) under it; ``ticket``: offer Copy for ticket; ``proves``: what a VERIFIED verdict proves, in
        short, with the button to the full text. A failed open's message is not said here but in the error
        banner above (once, in full)."""
        self.proves.setText(proves)
        self.proves.setVisible(bool(proves))
        self.proves_button.setVisible(bool(proves))
        self.title.setText(text)
        self.reference.setText(reference)
        self.reference.setVisible(bool(reference))
        self.ticket_button.setVisible(ticket)
        self.subtitle.setText(subtitle)
        self.subtitle.setVisible(bool(subtitle))
        _set_text_colour(self.title, style.colour(verdict))
        self.icon.setPixmap(style.icon(verdict).pixmap(32, 32))
        self.icon.setAccessibleName(f"Verdict: {style.label(verdict)}")  # a screen reader names the icon too
        self.button.setVisible(show_button)


class RowTreeView(QTreeView):
    """A tree view whose rows are selected by a click or a key on any cell without scrolling the
    view sideways (the first column, the names, stays where the user left it)."""

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible):  # noqa: N802 (Qt override)
        """Scroll to ``index``'s row but never sideways for a cell of column > 0 outside an edit: a
        click or an arrow key on a long value scrolled the key names (or verdicts) out of the view."""
        if index.column() == 0 or self.state() == QAbstractItemView.State.EditingState:
            super().scrollTo(index, hint)
            return
        bar = self.horizontalScrollBar()
        pos = bar.value()
        super().scrollTo(index, hint)
        bar.setValue(pos)


class WholeValueDelegate(QStyledItemDelegate):
    """The value column's delegate: its line editor takes a value of any length (Qt's default stops at 32,767
    characters, so an edit of a longer value silently cut it)."""

    def createEditor(self, parent, option, index):  # noqa: N802 (Qt override)
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            editor.setMaxLength(0x7FFFFFFF)
        return editor


class JsonTreeView(RowTreeView):
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
        self.empty_caption = caption  # shown again when no document is open in this pane
        self.caption.setContentsMargins(4, 2, 4, 2)
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.stack = QStackedWidget()
        self.view = JsonTreeView()
        self.view.setItemDelegateForColumn(1, WholeValueDelegate(self.view))
        # JSON reads left to right in any language: in a right-to-left layout its values read backwards
        # ("[1 items]" became "[items 1]"); the tree keeps the document's own direction, the window the user's
        self.view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
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
