"""A flat table model over a Python list of rows (shared by the digests and folder models)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt


class RowsTableModel(QAbstractTableModel):
    """Rows held in ``self._rows``; column titles in the subclass's ``COLUMNS`` tuple."""

    COLUMNS: tuple = ()
    HEADER_TIPS: tuple = ()
    #: Shorter column titles for a narrow view (see :meth:`set_compact`); empty: the same titles.
    SHORT_COLUMNS: tuple = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list = []
        self.compact = False

    def set_compact(self, on: bool) -> None:
        """Use :data:`SHORT_COLUMNS` as the titles (a narrow view); a shortened title's tooltip
        then starts with the whole title ("Recomputed: ...")."""
        if on != self.compact and self.SHORT_COLUMNS:
            self.compact = on
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.COLUMNS) - 1)

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        short = self.compact and self.SHORT_COLUMNS[section] != self.COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.SHORT_COLUMNS[section] if short else self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and self.HEADER_TIPS:
            tip = self.HEADER_TIPS[section]
            return f"{self.COLUMNS[section]}: {tip[:1].lower()}{tip[1:]}" if short else tip
        return None
