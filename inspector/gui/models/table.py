"""A flat table model over a Python list of rows (shared by the digests and folder models)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt


class RowsTableModel(QAbstractTableModel):
    """Rows held in ``self._rows``; column titles in the subclass's ``COLUMNS`` tuple."""

    COLUMNS: tuple = ()
    HEADER_TIPS: tuple = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list = []

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and self.HEADER_TIPS:
            return self.HEADER_TIPS[section]
        return None
