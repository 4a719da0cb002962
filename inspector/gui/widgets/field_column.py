"""The Field column of the JSON trees sized to the keys the user is looking at.

A deep key (``/snapshot/run_records/1/events/11/event/metadata/a3s_tool_result_transform_binding``)
sits behind ten levels of indentation: at a fixed 220 px it showed as ``a3…``. The column now grows
to fit the *visible* rows when a row is expanded or made current (never the whole document: Qt measures the rows
in the viewport, at most :data:`MEASURED_ROWS`), within :func:`bounds`; a key still too long is
cut in the middle (``a3s_tool_…_binding``), and the row's tooltip gives its full pointer.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QStyledItemDelegate, QTreeView

__all__ = ["FieldColumnFitter", "MiddleElideDelegate", "DEFAULT_WIDTH", "MEASURED_ROWS", "bounds"]

#: Width of the Field column (px) before anything is expanded, and its least width.
DEFAULT_WIDTH = 220
#: Rows Qt measures at most for one fit (``QHeaderView.resizeContentsPrecision``).
MEASURED_ROWS = 200


def bounds(viewport_width: int) -> tuple[int, int]:
    """``(least, most)`` width in px of the Field column in a viewport ``viewport_width`` px wide:
    at least :data:`DEFAULT_WIDTH`, at most 3/4 of the viewport (the Value column keeps the rest);
    in a viewport narrower than 4/3 of :data:`DEFAULT_WIDTH` (the compact layout's trees), both 3/4 of it."""
    most = viewport_width * 3 // 4
    return min(DEFAULT_WIDTH, max(80, most)), max(DEFAULT_WIDTH, most) if most >= DEFAULT_WIDTH else max(80, most)


class MiddleElideDelegate(QStyledItemDelegate):
    """Paints a cell cut in the middle when too long (``a3s_tool_…_binding``): a key's start and end
    both tell which field it is."""

    def initStyleOption(self, option, index):  # noqa: N802 (Qt override)
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class FieldColumnFitter(QObject):
    """Fits column 0 of ``view`` (its model already set) to its visible rows after an expansion or
    a move of the current row or a resize of the pane (coalesced: one fit per event-loop turn
    however many rows Expand All opens), and goes back to :data:`DEFAULT_WIDTH` when the model is
    reset (a new document). The column only grows, so it does not jump while the user reads; a
    width the user drags stays until a fit needs more."""

    def __init__(self, view: QTreeView):
        super().__init__(view)
        self.view = view
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.fit)
        view.setItemDelegateForColumn(0, MiddleElideDelegate(view))
        view.header().setResizeContentsPrecision(MEASURED_ROWS)
        view.expanded.connect(lambda _index: self._timer.start())
        if view.selectionModel() is not None:  # Go to / Find open rows deep down without always expanding
            view.selectionModel().currentChanged.connect(lambda *_: self._timer.start())
        view.viewport().installEventFilter(self)  # a wider pane may give a cut key the room it needs
        view.setColumnWidth(0, self._start_width())
        if view.model() is not None:  # the panes keep one model; a reset is a new document
            view.model().modelReset.connect(lambda: (view.setColumnWidth(0, self._start_width()), self._timer.start()))

    def _start_width(self) -> int:
        """A new document's Field column width: :data:`DEFAULT_WIDTH`, or less in a narrow pane (the Value
        column keeps its quarter from the start, not only once :meth:`fit` has run)."""
        return min(DEFAULT_WIDTH, bounds(self.view.viewport().width())[1])

    def eventFilter(self, obj, event):  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize:
            self._timer.start()
        return False

    def fit(self) -> None:
        """Grow column 0 to the width its visible rows need (within :func:`bounds`)."""
        least, most = bounds(self.view.viewport().width())
        need = self.view.sizeHintForColumn(0)
        width = min(max(need, least), most)
        current = self.view.columnWidth(0)
        if width > current or current > most:  # (a narrowed pane: the Value column keeps a quarter)
            self.view.setColumnWidth(0, width)
