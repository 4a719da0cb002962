"""What the window tells assistive technology beyond names and roles (issue 25): the verdict, announced when
it changes. (The bytes view and the timeline describe the byte under the cursor and the selected event in
their accessible descriptions: :meth:`.widgets.hex_view.HexView.accessible_summary`,
:meth:`.widgets.timeline.TimelineView.accessible_summary`.)"""

from __future__ import annotations

from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent

__all__ = ["announce_verdict"]


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
