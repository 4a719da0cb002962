"""``FolderModel``: the checkpoints found in a folder, with the engine's verdict on each."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt

from .table import RowsTableModel

from inspector.checkpoint import Verdict

from .. import style
from inspector.session.visible import visible
from ..document import display_name, display_path
from ..roles import ObjectRole, VerdictRole

__all__ = ["FolderModel", "FolderFilterProxy"]


class FolderModel(RowsTableModel):
    """Rows of :class:`~inspector.session.folderscan.FolderRow`; columns: payload, descriptor, verdict, root cause.

    A file that is not a checkpoint (``row.other``) shows its name in the first column, a dash in
    the second, and "not a checkpoint: why" with the n/a icon (never a failure) as its verdict.
    "Root cause" is the rule id (FORMAT.md) of the failure the reference reports first, empty when
    none failed.
    """

    COLUMNS = ("Payload", "Descriptor", "Verdict", "Root cause")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows = []
        self.folder = None

    def reset(self, folder: str | None) -> None:
        self.beginResetModel()
        self.folder = folder
        self._rows = []
        self.endResetModel()

    def rows_snapshot(self) -> list:
        """The rows shown now (a copy), in order."""
        return list(self._rows)

    def add_row(self, row) -> None:
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        self._rows.append(row)
        self.endInsertRows()

    @staticmethod
    def _verdict(r) -> Verdict:
        if getattr(r, "other", None) is not None:
            return Verdict.NOT_APPLICABLE
        return Verdict.PASS if r.verified else (Verdict.FAIL if not r.ok else Verdict.NOT_APPLICABLE)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 2:
                return visible(r.summary)  # (the reference's message may quote the file: the one escaping)
            if col == 3:
                return r.root_rule or ""
            other = getattr(r, "other", None)
            if other is not None:
                return display_name(other) if col == 0 else "—"
            path = r.payload if col == 0 else r.descriptor
            return display_name(path) if path else "— (missing)"
        if role == Qt.ItemDataRole.DecorationRole and col == 2:
            return style.icon(self._verdict(r))
        if role == Qt.ItemDataRole.ToolTipRole:
            paths = (r.payload, r.descriptor, getattr(r, "other", None))
            return "\n".join([display_path(x) for x in paths if x] + ([visible(r.summary)] if r.summary else []))
        if role == VerdictRole:
            return self._verdict(r)
        if role == ObjectRole:
            return r
        return None


class FolderFilterProxy(QSortFilterProxyModel):
    """The folder table as shown: sorted by a clicked header, filtered by the filter field.

    A row is kept when the filter text (case-insensitive, plain substring) occurs in its payload or
    descriptor file name, its verdict text or its root cause rule id. Sorting compares the shown
    texts; with no sort column the scan order is kept.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._needle = ""
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def set_filter_text(self, text: str) -> None:
        """Keep only the rows whose file names, verdict or rule contain ``text`` (all when empty)."""
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.9 (invalidateFilter is deprecated there)
            self.beginFilterChange()
            self._needle = text.strip().casefold()
            self.endFilterChange()
        else:
            self._needle = text.strip().casefold()
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent) -> bool:
        if not self._needle:
            return True
        m = self.sourceModel()
        return any(self._needle in str(m.data(m.index(source_row, c, source_parent)) or "").casefold()
                   for c in range(m.columnCount()))
