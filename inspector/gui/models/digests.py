"""``DigestsModel``: stated vs recomputed digests and sizes from a report (``Report.digests``)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from .table import RowsTableModel

from inspector.checkpoint import Location
from inspector.session.visible import visible

from .. import style
from ..roles import ACCESSIBLE as _ACCESSIBLE, DECORATION as _DECORATION, DISPLAY as _DISPLAY
from ..roles import FOREGROUND as _FOREGROUND, TOOLTIP as _TOOLTIP
from ..roles import LocationRole, ObjectRole

__all__ = ["DigestsModel"]

_ROLES = frozenset({_DISPLAY, _DECORATION, _ACCESSIBLE, _FOREGROUND, _TOOLTIP, int(LocationRole), int(ObjectRole)})


def _fmt(v) -> str:
    if v is None:
        return "—"
    return visible(str(v))  # (a stated value is the descriptor's, any text: the one escaping)


def _short(v) -> str:
    """``122347d3…049312e0``: the first and last 8 hex digits, enough to compare by eye in a narrow
    column; the full ``sha256:…`` value is in the tooltip, the detail and what Ctrl+C copies."""
    s = _fmt(v)
    if s.startswith("sha256:") and len(s) > 40:
        return s[7:15] + "…" + s[-8:]
    return s


class DigestsModel(RowsTableModel):
    """Rows: the report's :class:`~inspector.checkpoint.DigestRow` list. Columns: what, match, stated, recomputed.

    The match column says ``match``/``MISMATCH``/``n/a`` in words and with a shaped icon.
    """

    COLUMNS = ("Digest / size", "Match", "Stated", "Recomputed")
    #: In a narrow Digests pane (1024x700): "Recomputed" did not fit its column ("comput").
    SHORT_COLUMNS = ("Digest / size", "Match", "Stated", "Recomp.")
    #: Header tooltips: where each value comes from.
    HEADER_TIPS = ("The descriptor field", "Stated and recomputed values compared", "As stated in the descriptor",
                   "As recomputed from the payload bytes")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows = []

    def set_report(self, report) -> None:
        """Show ``report.digests`` (``None``: empty)."""
        self.beginResetModel()
        self._rows = list(report.digests) if report is not None else []
        self.endResetModel()

    def row_object(self, row: int):
        return self._rows[row]

    def data(self, index, role=_DISPLAY):
        role = int(role)  # int comparisons, and an early exit for roles not provided (painting asks many)
        if role not in _ROLES or not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (r.label, style.match_label(r.matches), _short(r.stated), _short(r.recomputed))[col]
        if role == Qt.ItemDataRole.DecorationRole and col == 1:
            return style.match_icon(r.matches)
        if role == Qt.ItemDataRole.ForegroundRole and col in (1, 2, 3) and r.matches is False:
            return style.match_colour(False)
        if role == Qt.ItemDataRole.ForegroundRole and col == 1:
            return style.match_colour(r.matches)
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [r.label, f"descriptor field {r.pointer}", f"stated:     {_fmt(r.stated)}",
                     f"recomputed: {_fmt(r.recomputed)}", f"comparison: {style.match_label(r.matches)}"]
            if r.domain:
                lines.append(f"domain digest: SHA-256(“{r.domain}” ‖ 0x00 ‖ canonical JSON), {r.preimage_size} bytes")
            return "\n".join(lines)
        if role == Qt.ItemDataRole.AccessibleTextRole:  # each cell its own words
            col = index.column()
            if col == 0:
                return r.label
            if col == 1:
                return f"{r.label}: {style.match_label(r.matches)}"
            return f"{'stated' if col == 2 else 'recomputed'} {r.label}: {_fmt(r.stated if col == 2 else r.recomputed)}"
        if role == LocationRole:
            return Location("descriptor", r.pointer, None)
        if role == ObjectRole:
            return r
        return None
