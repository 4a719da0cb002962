"""What the window tells assistive technology beyond names and roles: what happened (:class:`Announcer`: each
verdict, a failed open, a copy, a search's count, a scan's result, a long load's progress), and the content of the
two painted views.

The bytes view (:class:`.widgets.hex_view.HexView`) and the timeline (:class:`.widgets.timeline.TimelineView`)
paint their content, so Qt knows nothing of it. :func:`install` adds an accessible-interface factory that gives
them a read-only *text* interface (``QAccessibleTextInterface``): a few lines around the cursor, one line per byte
("byte 18: 0x22, '\"', field /content_digest") or per event ("tool_end, event #12 of run r1, pass P2, at ..."),
with the caret at the start of the current one, so a screen reader reads the line at the caret. The timeline's
interface is also a *value* (``QAccessibleValueInterface``): the selected event's sequence number. The views call
:func:`content_changed` when the cursor or the selection moves: a text-update, a caret-moved and (timeline) a
value-changed event. Their accessible descriptions say the same in one sentence (``accessible_summary``).

PySide6 (6.11) binds enough of this: a Python class deriving from ``QAccessibleWidget`` and the interface
classes, whose ``interface_cast`` returns the C++ address of its interface part as a ``shiboken6.VoidPtr``.
It does not bind the text interface's ``selection``, ``attributes`` and ``text{At,Before,After}Offset``
(removed in the type system for their ``int *`` out-arguments): Qt's own ``textAtOffset`` (from ``text`` and
``characterCount``) serves the boundaries, and the interface reports no selection (``selectionCount`` 0: the
selected span is said in each byte's line and in the description instead)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import (
    QAccessible, QAccessibleAnnouncementEvent, QAccessibleTextCursorEvent, QAccessibleTextInterface,
    QAccessibleTextUpdateEvent, QAccessibleValueChangeEvent, QAccessibleValueInterface,
)
from PySide6.QtWidgets import QAccessibleWidget, QLabel

__all__ = ["Announcer", "announce", "announcer", "announce_verdict", "NotificationAccessible", "speak_expansion", "install", "content_changed", "content_of", "ContentAccessible",
           "TimelineAccessible"]

_I = QAccessible.InterfaceType
_installed = False


#: How long the window must be still before a verdict is said (milliseconds; :meth:`Announcer.say_when_settled`).
SETTLE_MS = 400


class Announcer(QLabel):
    """The window's spoken notifications: a one-pixel element whose accessible role is ``Notification`` (AT-SPI
    ``notification``) and whose name is the last thing said. :meth:`say` hides it, sets the text and shows it again,
    so every announcement is a new ``object:state-changed:showing`` event, which screen readers of today speak for a
    notification (Orca 43.1 does, as it speaks gedit's error banner), even when the words equal the last ones; it also
    sends a polite ``QAccessibleAnnouncementEvent`` for those that handle announcements (a newer Orca). ``said``: the
    last :data:`KEEP` texts, oldest first (what a screen reader was told)."""

    KEEP = 50

    def __init__(self, parent):
        super().__init__(parent)
        self.setObjectName("announcer")
        self.setAccessibleName("")
        self.resize(1, 1)
        self.move(0, 0)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.said: list[str] = []
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(lambda: self.say(self._pending))
        self._pending = ""
        self.hide()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt override): shown for screen readers, never drawn
        pass

    def say_when_settled(self, text: str) -> None:
        """Say ``text`` once the window has been still for :data:`SETTLE_MS` (a newer call replaces it): a verdict
        comes with a burst of other events (trees filled, tabs switched, the focus moved to the root cause) that
        Orca 43.1 prunes as a flood when more than 50 wait, the announcement with them; said after them, it is
        heard, and last."""
        self._pending = text
        self._later.start(SETTLE_MS)

    def say(self, text: str, politeness=None) -> None:
        """Say ``text`` (plain, one or two sentences) now. ``politeness``: a ``QAccessible.AnnouncementPoliteness``
        (default polite; assertive for an error)."""
        self.said = (self.said + [text])[-self.KEEP:]
        self.hide()
        self.setText(text)
        self.setAccessibleName(text)
        self.show()
        self.raise_()
        if QAccessible.isActive():  # no screen reader listening: nothing more to build
            event = QAccessibleAnnouncementEvent(self, text)
            event.setPoliteness(politeness or QAccessible.AnnouncementPoliteness.Polite)
            QAccessible.updateAccessibility(event)


def announcer(w) -> Announcer:
    """The :class:`Announcer` of window ``w`` (made on first use)."""
    a = getattr(w, "_announcer", None)
    if a is None:
        a = w._announcer = Announcer(w)
    return a


def announce(w, text: str, *, error: bool = False) -> None:
    """Tell a screen reader ``text`` through window ``w``'s :class:`Announcer` (assertive when ``error``)."""
    announcer(w).say(text, QAccessible.AnnouncementPoliteness.Assertive if error else None)


def announce_verdict(w, v) -> None:
    """Tell assistive technology each new verdict: the verdict line once per report presented
    (``w.doc.verdicts``), even when its words equal the last one's (a second file with the same verdict), and when
    the words change for the same report (an edit); never twice for one (a recompute, a relayout) and never while
    nothing decided is shown (``Verifying…``). ``w.last_announced`` holds what was said and for which report."""
    if not v.ticket:
        a = getattr(w, "_announcer", None)
        if a is not None:
            a._later.stop()  # (a verdict still waiting to be said is not said while the next file opens)
        return
    key = (getattr(w.doc, "verdicts", 0), v.title)
    if key == getattr(w, "last_announced", None):
        return
    w.last_announced = key
    announcer(w).say_when_settled(v.title)


def content_of(widget) -> tuple[str, int]:
    """``(text, caret)`` of a view with ``accessible_lines()``: its lines joined by newlines, and the character
    offset (UTF-16 code units are not an issue: the lines are ASCII but for JSON Pointers) of its current line."""
    lines, current = widget.accessible_lines()
    return "\n".join(lines), sum(len(x) + 1 for x in lines[:current])


def content_changed(widget, value=None) -> None:
    """Tell assistive technology that the cursor or the selection of ``widget`` (a bytes view or the timeline)
    moved: the text changed (``QAccessibleTextUpdateEvent``, when it did), the caret moved
    (``QAccessibleTextCursorEvent``) and, with ``value`` (a callable giving the timeline's selected event's
    sequence number, an int), the value changed. Nothing is built while no assistive technology listens."""
    if not QAccessible.isActive():
        return
    text, caret = content_of(widget)
    old, old_caret = getattr(widget, "_spoken", (None, None))
    if (text, caret) == (old, old_caret):
        return  # (the selection relay describes a view again after its own key: said once)
    widget._spoken = (text, caret)
    if old is not None and old != text:
        QAccessible.updateAccessibility(QAccessibleTextUpdateEvent(widget, 0, old, text))
    QAccessible.updateAccessibility(QAccessibleTextCursorEvent(widget, caret))
    if value is not None:
        QAccessible.updateAccessibility(QAccessibleValueChangeEvent(widget, value()))


class ContentAccessible(QAccessibleWidget, QAccessibleTextInterface):
    """The accessible interface of a painted view with ``accessible_lines()``: role ``EditableText``, read-only
    (AT-SPI: a read-only ``text``), whose text interface is :func:`content_of` the view. Offsets are characters
    of that text; the caret is the current line's first character."""

    def __init__(self, widget):
        QAccessibleWidget.__init__(self, widget, QAccessible.Role.EditableText, "")
        QAccessibleTextInterface.__init__(self)

    def _ptr(self, base: int) -> shiboken6.VoidPtr:
        return shiboken6.VoidPtr(shiboken6.getCppPointer(self)[base])

    def interface_cast(self, t):  # Qt: the C++ address of the asked interface, or null
        if t == _I.TextInterface:
            return self._ptr(1)
        r = QAccessibleWidget.interface_cast(self, t)
        return r if r is not None else shiboken6.VoidPtr(0)  # (None crashes the C++ caller)

    def state(self):
        s = QAccessibleWidget.state(self)
        s.readOnly = True
        return s

    def text(self, *args):
        """``text(QAccessible.Text) -> str`` (name, description...; the value is the current line) or the text
        interface's ``text(start, end) -> str`` (characters ``[start, end)``): one Python name for both."""
        if len(args) == 2:
            return content_of(self.object())[0][args[0]:args[1]]
        if args[0] == QAccessible.Text.Value:
            lines, current = self.object().accessible_lines()
            return lines[current] if lines else ""
        return QAccessibleWidget.text(self, args[0])

    def characterCount(self) -> int:
        return len(content_of(self.object())[0])

    def cursorPosition(self) -> int:
        return content_of(self.object())[1]

    def setCursorPosition(self, position: int) -> None:  # read-only: the keys move the cursor
        pass

    def selectionCount(self) -> int:  # selection() is not bound in PySide6 (see the module)
        return 0

    def addSelection(self, start: int, end: int) -> None:
        pass

    def removeSelection(self, index: int) -> None:
        pass

    def setSelection(self, index: int, start: int, end: int) -> None:
        pass

    def characterRect(self, offset: int) -> QRect:
        return QRect()

    def offsetAtPoint(self, point) -> int:
        return -1

    def scrollToSubstring(self, start: int, end: int) -> None:
        pass


class TimelineAccessible(ContentAccessible, QAccessibleValueInterface):
    """:class:`ContentAccessible` of the timeline plus a value: the selected event's sequence number, between the
    first and the last retained sequence of its run (0, 0, 0 when no event is selected)."""

    def __init__(self, widget):
        ContentAccessible.__init__(self, widget)
        QAccessibleValueInterface.__init__(self)

    def interface_cast(self, t):
        if t == _I.ValueInterface:
            return self._ptr(2)
        return ContentAccessible.interface_cast(self, t)

    def currentValue(self):
        return self.object().accessible_value()[0]

    def minimumValue(self):
        return self.object().accessible_value()[1]

    def maximumValue(self):
        return self.object().accessible_value()[2]

    def minimumStepSize(self):
        return 1

    def setCurrentValue(self, value) -> None:  # the arrow keys select
        pass


class NotificationAccessible(QAccessibleWidget):
    """The accessible interface of an :class:`Announcer` or an error banner: role ``Notification``, its name the
    text said (a screen reader speaks a notification when it is shown)."""

    def __init__(self, widget):
        QAccessibleWidget.__init__(self, widget, QAccessible.Role.Notification, "")

    def text(self, t):
        if t == QAccessible.Text.Name:
            w = self.object()
            return w.accessibleName() or getattr(w, "text", lambda: "")()
        return QAccessibleWidget.text(self, t)


def _factory(key: str, obj):
    if key == "Announcer" or (key == "Banner" and getattr(obj, "kind", "") == "error"):
        return NotificationAccessible(obj)
    if key == "HexView":
        return ContentAccessible(obj)
    if key == "TimelineView":
        return TimelineAccessible(obj)
    return None


def install() -> None:
    """Give the bytes views and the timeline their accessible interfaces (once per process; before they are
    first asked for one)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True


class _Armed(QObject):
    """Arms a view's expansion announcement on the user's own key or click in it (one announcement each)."""

    def __init__(self, view):
        super().__init__(view)
        self.armed = False

    def eventFilter(self, obj, event):  # noqa: N802 (Qt override)
        if event.type() in (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            self.armed = True
        return False


def speak_expansion(view, w, columns=(0,)) -> None:
    """Say when the user expands a row of tree ``view`` ("messages: expanded, 9 rows") or collapses one, through
    window ``w``'s :class:`Announcer` (Qt's tree tells a screen reader neither). Only a key or click of the user
    in the view is said, once: Expand All, a reload's remembered rows and a reveal from elsewhere expand quietly
    (Expand All expanded 261 rows of the rich checkpoint one by one). The row's name is the text of its
    ``columns`` as shown, joined by a space (already made visible by the model:
    :func:`inspector.session.visible.visible`); the verdicts name a row by its rule and verdict (``(1, 0)``)."""
    armed = _Armed(view)
    view.installEventFilter(armed)
    view.viewport().installEventFilter(armed)

    def said(index, how: str) -> None:
        if not armed.armed or not index.isValid() or not view.hasFocus():
            return
        armed.armed = False
        if not index.model().hasChildren(index.siblingAtColumn(0)):  # (Qt "collapses" a leaf that expandAll marked)
            return
        texts = [index.model().data(index.siblingAtColumn(c)) for c in columns]
        name = " ".join(str(t) for t in texts if t) or "row"
        if how == "expanded":
            n = index.model().rowCount(index.siblingAtColumn(0))
            announce(w, f"{name}: expanded, {n:,} row{'s' if n != 1 else ''}")
        else:
            announce(w, f"{name}: collapsed")

    view.expanded.connect(lambda i: said(i, "expanded"))
    view.collapsed.connect(lambda i: said(i, "collapsed"))
