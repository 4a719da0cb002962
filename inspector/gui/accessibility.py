"""What the window tells assistive technology beyond names and roles (issue 25): the verdict, announced when
it changes, and the content of the two painted views.

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
from PySide6.QtCore import QRect
from PySide6.QtGui import (
    QAccessible, QAccessibleAnnouncementEvent, QAccessibleTextCursorEvent, QAccessibleTextInterface,
    QAccessibleTextUpdateEvent, QAccessibleValueChangeEvent, QAccessibleValueInterface,
)
from PySide6.QtWidgets import QAccessibleWidget

__all__ = ["announce_verdict", "install", "content_changed", "content_of", "ContentAccessible",
           "TimelineAccessible"]

_I = QAccessible.InterfaceType
_installed = False


def announce_verdict(w, v) -> None:
    """Tell assistive technology when the verdict changes (issue 25): a polite announcement of the verdict line
    (``QAccessibleAnnouncementEvent``) once per new verdict, never for the same one twice (a recompute, a relayout)
    and never while nothing decided is shown (``Verifying…``). ``w.last_announced`` holds what was said."""
    if not v.ticket or v.title == getattr(w, "last_announced", None):
        return
    w.last_announced = v.title
    if not QAccessible.isActive():  # no screen reader listening: nothing to build
        return
    event = QAccessibleAnnouncementEvent(w.header.title, v.title)
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
    QAccessible.updateAccessibility(event)


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


def _factory(key: str, obj):
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
