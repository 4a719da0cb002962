"""``SelectionHistory``: back/forward through the selections the relay forwarded (Alt+Left / Alt+Right).

Pure data, no Qt: a bounded list of :class:`~inspector.checkpoint.Location` entries and a cursor,
the way a browser's or Wireshark's back/forward works.
"""

from __future__ import annotations

from inspector.checkpoint import Location

__all__ = ["SelectionHistory"]


class SelectionHistory:
    """Selections in the order they were made, with a cursor for back/forward.

    ``limit``: at most this many entries are kept (the oldest go first). Pushing a selection
    equal (same source and JSON Pointer) to the current entry is merged; pushing after going
    back drops the entries ahead of the cursor, as in a browser.
    """

    def __init__(self, limit: int = 200):
        self.limit = limit
        self.entries: list[Location] = []
        self.pos = -1

    def clear(self) -> None:
        """Forget every entry (another checkpoint was opened)."""
        self.entries.clear()
        self.pos = -1

    def push(self, loc: Location) -> None:
        """Record ``loc`` as the newest selection (merged with the current entry when equal)."""
        key = (loc.source, loc.pointer)
        if 0 <= self.pos and (self.entries[self.pos].source, self.entries[self.pos].pointer) == key:
            return
        del self.entries[self.pos + 1:]
        self.entries.append(Location(loc.source, loc.pointer, loc.span))
        if len(self.entries) > self.limit:
            del self.entries[: len(self.entries) - self.limit]
        self.pos = len(self.entries) - 1

    def can_back(self) -> bool:
        """True when there is an older entry."""
        return self.pos > 0

    def can_forward(self) -> bool:
        """True when there is a newer entry (after going back)."""
        return self.pos + 1 < len(self.entries)

    def back(self) -> Location | None:
        """Move the cursor one entry back and return that entry, or None at the oldest."""
        if not self.can_back():
            return None
        self.pos -= 1
        return self.entries[self.pos]

    def forward(self) -> Location | None:
        """Move the cursor one entry forward and return that entry, or None at the newest."""
        if not self.can_forward():
            return None
        self.pos += 1
        return self.entries[self.pos]
