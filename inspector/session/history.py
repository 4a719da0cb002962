"""``SelectionHistory``: back/forward through the selections the relay forwarded (Alt+Left / Alt+Right).

Pure data, no Qt: a bounded list of :class:`Stop` entries (a location and the place it was
selected in) and a cursor, the way a browser's or Wireshark's back/forward works.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint import Location

__all__ = ["SelectionHistory", "Stop"]


@dataclass(frozen=True)
class Stop:
    """One navigation stop: where (``source``, JSON Pointer ``pointer``, byte ``span`` or None) and
    the ``place`` it was selected in, a tuple such as ``("digest", row)``, ``("finding", rule id)``,
    ``("timeline",)``, ``("transcript",)``, ``("lint", row)`` or ``None`` for a tree or the bytes."""

    source: str
    pointer: str
    span: tuple[int, int] | None = None
    place: tuple | None = None

    @property
    def location(self) -> Location:
        """The :class:`~inspector.checkpoint.Location` of this stop."""
        return Location(self.source, self.pointer, self.span)


class SelectionHistory:
    """Selections in the order they were made, with a cursor for back/forward.

    ``limit``: at most this many entries are kept (the oldest go first). Pushing a selection
    equal (same source, JSON Pointer and place) to the current entry is merged; pushing after
    going back drops the entries ahead of the cursor, as in a browser.
    """

    def __init__(self, limit: int = 200):
        self.limit = limit
        self.entries: list[Stop] = []
        self.pos = -1

    def clear(self) -> None:
        """Forget every entry (another checkpoint was opened)."""
        self.entries.clear()
        self.pos = -1

    def snapshot(self) -> tuple[tuple[Stop, ...], int]:
        """The entries and the cursor, to :meth:`restore` later (another checkpoint is shown meanwhile)."""
        return tuple(self.entries), self.pos

    def restore(self, state: tuple[tuple[Stop, ...], int] | None) -> None:
        """Put back what :meth:`snapshot` returned (``None``: :meth:`clear`)."""
        if state is None:
            self.clear()
            return
        entries, pos = state
        cut = max(0, len(entries) - self.limit)  # (the oldest go first, as in push)
        self.entries = list(entries[cut:])
        self.pos = max(-1, min(pos - cut, len(self.entries) - 1))

    def push(self, loc: Location, place: tuple | None = None) -> None:
        """Record ``loc``, selected in ``place`` (see :class:`Stop`), as the newest selection
        (merged with the current entry when equal)."""
        stop = Stop(loc.source, loc.pointer, loc.span, place)
        if 0 <= self.pos:
            cur = self.entries[self.pos]
            if (cur.source, cur.pointer, cur.place) == (stop.source, stop.pointer, stop.place):
                return
        del self.entries[self.pos + 1:]
        self.entries.append(stop)
        if len(self.entries) > self.limit:
            del self.entries[: len(self.entries) - self.limit]
        self.pos = len(self.entries) - 1

    def can_back(self) -> bool:
        """True when there is an older entry."""
        return self.pos > 0

    def can_forward(self) -> bool:
        """True when there is a newer entry (after going back)."""
        return self.pos + 1 < len(self.entries)

    def back(self) -> Stop | None:
        """Move the cursor one entry back and return that entry, or None at the oldest."""
        if not self.can_back():
            return None
        self.pos -= 1
        return self.entries[self.pos]

    def forward(self) -> Stop | None:
        """Move the cursor one entry forward and return that entry, or None at the newest."""
        if not self.can_forward():
            return None
        self.pos += 1
        return self.entries[self.pos]
