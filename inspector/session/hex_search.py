"""Searching the bytes pane: what the user typed as bytes, and every match (cancellable, off the GUI thread)."""

from __future__ import annotations

import re

from inspector.session.engine import Cancelled

__all__ = ["BACKGROUND_BYTES", "MATCH_LIMIT", "find_all", "parse_needle"]

BACKGROUND_BYTES = 4 * 1024 * 1024  # files larger than this are searched on a pool thread
MATCH_LIMIT = 100_000  # matches kept (the count says when there are more)
_WINDOW = 4 * 1024 * 1024  # bytes searched between two cancellation checks
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}\s*)+")


def parse_needle(text: str) -> tuple[bytes | None, str]:
    """What to search for: ``hex: 7b 22`` (pairs of hex digits, spaces allowed) or else the text's UTF-8 bytes.

    Returns ``(needle, "")`` or ``(None, reason)`` for the user; never raises.
    """
    if text.lower().startswith("hex:"):
        body = text[4:].strip()
        if not body or not _HEX.fullmatch(body):
            return None, "hex: needs pairs of hex digits, e.g. hex: 7b 22 ff"
        return bytes.fromhex(body), ""
    if not text:
        return None, "type text, or hex: and byte values"
    return text.encode("utf-8", "surrogateescape"), ""


def find_all(data: bytes, needle: bytes, ctx=None, limit: int = MATCH_LIMIT) -> tuple[list[int], bool]:
    """Start offsets (bytes) of every match of ``needle`` in ``data``, overlapping ones too, in order.

    Returns ``(offsets, more)``; ``more`` is True when matches beyond ``limit`` were not kept.
    ``ctx`` (a :class:`~inspector.gui.jobs.JobContext`) is checked every 4 MiB for cancellation and
    given progress; :class:`~inspector.session.engine.Cancelled` is raised when cancelled.
    """
    out: list[int] = []
    n, k, pos = len(data), len(needle), 0
    while pos < n:
        end = min(n, pos + _WINDOW + k - 1)
        i = data.find(needle, pos, end)
        while i != -1:
            if len(out) == limit:
                return out, True
            out.append(i)
            i = data.find(needle, i + 1, end)
        pos += _WINDOW
        if ctx is not None:
            if ctx.cancelled():
                raise Cancelled()
            ctx.progress(min(100, pos * 100 // max(n, 1)), "Searching the bytes")
    return out, False
