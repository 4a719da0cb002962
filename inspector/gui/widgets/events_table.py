"""``EventsPane``: the runs' events as a table beside the timeline picture, the way a
workflow history lists its events.

Columns: sequence, time (UTC), run, pass (the loop pass the event belongs to, FORMAT.md 4.17:
:mod:`inspector.checkpoint.analysis.passes` through the timeline's lanes), kind, and a one-line summary read
from the event's bytes when its row is shown (turn, tool name and id, exit code; never message text,
tool input or output). A filter by kind and a text filter (sequence, run, pass, kind) keep the rows
that match; filtering a large timeline runs on a worker thread. Selecting a row selects the event in
the picture, the snapshot tree and the bytes (``pointerActivated``); a selection elsewhere selects
its row (:meth:`select_pointer`).

Rows are never built one object per event: the model maps a row number to ``(lane, event)`` through
cumulative lane offsets (or, filtered, through one ``array`` of row keys), so a 1,000,000-event
timeline costs a few arrays, and only the rows on screen are read.
"""

from __future__ import annotations

import datetime
from array import array
from bisect import bisect_left, bisect_right

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QRunnable, QThreadPool, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QTableView, QVBoxLayout, QWidget

from inspector.checkpoint.analysis.views import EVENT_KINDS
from inspector.session.visible import visible

__all__ = ["EventsModel", "EventsPane"]

COLUMNS = ("Seq", "Time (UTC)", "Run", "Pass", "Kind", "Summary")
#: Above this many events the filter runs on a worker thread.
_SYNC_LIMIT = 50_000


def _time(ms: int) -> str:
    try:
        t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


class _Passes:
    """Which pass an event of one lane belongs to (:meth:`.views.Passes.turn_of`), the lane's passes sliced when
    first asked (a lane of 500,000 passes: 10 ms; the table shows one lane's)."""

    __slots__ = ("lane", "passes")

    def __init__(self, lane):
        self.lane = lane
        self.passes = None

    def of(self, e: int):
        """The pass number of event ``e``, or ``None`` when it is in no pass or its pass has no number."""
        if self.passes is None:
            self.passes = self.lane.passes()
        return self.passes.turn_of(e)


def filter_rows(timeline, passes: list, kind: int | None, text: str, cancelled=lambda: False) -> array | None:
    """The row keys (``lane << 32 | event``) that match ``kind`` (an :data:`EVENT_KINDS` code, or ``None``)
    and every word of ``text`` (each a substring of the sequence, the run id, ``P<pass>`` or the kind,
    case-insensitive: ``run-2 P1`` is pass 1 of run-2); ``None`` when cancelled."""
    words = text.lower().split()
    out = array("q")
    for i, lane in enumerate(timeline.lanes):
        run = lane.id.lower()
        left = [w for w in words if w not in run]  # (the words the run id does not answer, asked of each event)
        for e in range(len(lane.seq)):
            if e % 65536 == 0 and cancelled():
                return None
            k = lane.kind[e]
            if kind is not None and k != kind:
                continue
            if left:
                name = EVENT_KINDS[k] if k < len(EVENT_KINDS) else "?"
                p = passes[i].of(e)
                seq, pas = str(lane.seq[e]), "" if p is None else f"p{p}"
                if not all(w in name or w in seq or w in pas for w in left):
                    continue
            out.append(i << 32 | e)
    return out


class EventsModel(QAbstractTableModel):
    """The events of a :class:`~inspector.checkpoint.analysis.views.Timeline` as rows (see the module docstring).

    ``summary``: ``callable(lane, event) -> str`` giving a row's summary (set by the owner, which has the
    payload bytes), or ``None``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.timeline = None
        self.passes: list = []
        self._offsets: list[int] = [0]
        self._rows: array | None = None  # filtered row keys, or None for every event
        self.summary = None
        self._summaries: dict = {}
        #: ``(row, lane)`` of the resume boundary's row (after the source run's last event of pass
        #: ``logical_resume.turn``, FORMAT.md 4.17), shown while no filter is set; else ``None``.
        self.boundary: tuple[int, int] | None = None

    def set_timeline(self, timeline) -> None:
        """Show ``timeline`` (or nothing), unfiltered."""
        self.beginResetModel()
        self.timeline = timeline
        self.passes = [_Passes(x) for x in timeline.lanes] if timeline is not None else []
        self._offsets = [0]
        self.boundary = None
        for i, lane in enumerate(timeline.lanes if timeline is not None else ()):
            if lane.boundary is not None and self.boundary is None:
                self.boundary = (self._offsets[-1] + lane.boundary + 1, i)
            self._offsets.append(self._offsets[-1] + len(lane.seq))
        self._rows = None
        self._summaries = {}
        self.endResetModel()

    def set_rows(self, rows: array | None) -> None:
        """Show only the row keys ``rows`` (``None``: every event)."""
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 (Qt override)
        if parent.isValid() or self.timeline is None:
            return 0
        return len(self._rows) if self._rows is not None else self._offsets[-1] + (self.boundary is not None)

    def columnCount(self, parent=QModelIndex()):  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def is_boundary(self, row: int) -> bool:
        """True for the resume boundary's row."""
        return self._rows is None and self.boundary is not None and row == self.boundary[0]

    def event_at(self, row: int) -> tuple[int, int | None]:
        """``(lane, event)`` of a row (the boundary's row: ``(source lane, None)``)."""
        if self._rows is not None:
            key = self._rows[row]
            return key >> 32, key & 0xFFFFFFFF
        if self.boundary is not None and row >= self.boundary[0]:
            if row == self.boundary[0]:
                return self.boundary[1], None
            row -= 1
        lane = bisect_right(self._offsets, row) - 1
        return lane, row - self._offsets[lane]

    def row_of(self, lane: int, e: int) -> int | None:
        """The row of event ``e`` of ``lane``, or ``None`` when it is filtered out."""
        if self._rows is None:
            row = self._offsets[lane] + e
            return row + 1 if self.boundary is not None and row >= self.boundary[0] else row
        key = lane << 32 | e
        i = bisect_left(self._rows, key)
        return i if i < len(self._rows) and self._rows[i] == key else None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                               Qt.ItemDataRole.AccessibleTextRole):
            return None
        lane_i, e = self.event_at(index.row())
        lane = self.timeline.lanes[lane_i]
        col = index.column()
        if e is None:  # the resume boundary (the timeline's green bar, the transcript's boundary row)
            turn = self.timeline.boundary_turn
            texts = ("", "", visible(lane.id), f"P{turn}", "resume boundary",
                     f"▌ the resume continues here, after pass {turn} of this run (the loop checkpoint)")
            if role == Qt.ItemDataRole.AccessibleTextRole and col < 2:
                return "resume boundary"
            return texts[col]
        if col == 0:
            return str(lane.seq[e])
        if col == 1:
            return _time(lane.ts[e])
        if col == 2:
            return visible(lane.id)  # (the run id, the kind and the summary come from the file: one escaping)
        if col == 3:
            p = self.passes[lane_i].of(e)
            return "–" if p is None else f"P{p}"
        if col == 4:
            return visible(lane.kind_name(e))
        key = (lane_i, e)
        if key not in self._summaries:
            self._summaries[key] = visible(self.summary(lane, e)) if self.summary is not None else ""
        return self._summaries[key]


class _FilterJob(QRunnable):
    class Signals(QObject):
        done = Signal(object, object)  # (token, rows or None)

    def __init__(self, token, timeline, passes, kind, text):
        super().__init__()
        self.signals = self.Signals()
        self.token, self.args = token, (timeline, passes, kind, text)
        self.stop = False

    def run(self):
        rows = filter_rows(*self.args, cancelled=lambda: self.stop)
        self.signals.done.emit(self.token, rows)


class EventsPane(QWidget):
    """The Events tab: a kind filter, a text filter, a row count and the table.

    Signals:
        eventActivated(int, int): a row was selected: ``(lane, event)``.
    """

    eventActivated = Signal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = EventsModel(self)
        self.kind = QComboBox()
        self.kind.setObjectName("eventsKind")
        self.kind.setAccessibleName("Show events of kind")
        self.kind.addItem("All kinds", None)  # (and the kinds of the events shown: set_timeline)
        self.text = QLineEdit()
        self.text.setObjectName("eventsFilter")
        self.text.setPlaceholderText("Filter: sequence, run, pass (P2) or kind")
        self.text.setAccessibleName("Filter events")
        self.text.setClearButtonEnabled(True)
        self.count = QLabel("")
        self.count.setObjectName("eventsCount")
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        kind_label = QLabel("Kind:")
        kind_label.setBuddy(self.kind)  # (a combo box's accessible name is its current text: the label names it)
        top.addWidget(kind_label)
        top.addWidget(self.kind)
        top.addWidget(self.text, 1)
        top.addWidget(self.count)
        self.view = QTableView()
        self.view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (sequences, times, ids: left to right)
        self.view.setObjectName("eventsTable")
        self.view.setAccessibleName("Run events")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setWordWrap(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        self._token = 0
        self._job = None
        self.kind.currentIndexChanged.connect(self._refilter)
        self.text.textChanged.connect(self._refilter)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        self._quiet = False

    def set_timeline(self, timeline, summary=None, keep_filter: bool = False) -> None:
        """Show ``timeline``'s events; ``summary(lane, event) -> str`` gives a row's summary. The Kind list
        offers the kinds its events have; the filter is cleared unless ``keep_filter`` (the same files shown
        again: an edit, a large load's final result), and then kept only if its kind is still there."""
        self.model.summary = summary
        kept = self.kind.currentData() if keep_filter else None
        self.kind.blockSignals(True)
        self.text.blockSignals(True)
        try:
            self.kind.clear()
            self.kind.addItem("All kinds", None)
            codes = timeline.kinds() if timeline is not None else []
            for code in sorted(codes, key=lambda c: EVENT_KINDS[c] if c < len(EVENT_KINDS) else "~"):
                self.kind.addItem(EVENT_KINDS[code] if code < len(EVENT_KINDS) else "(unknown kind)", code)
            at = self.kind.findData(kept) if kept is not None else 0
            self.kind.setCurrentIndex(max(at, 0))
            if not keep_filter:
                self.text.clear()
        finally:
            self.kind.blockSignals(False)
            self.text.blockSignals(False)
        self.model.set_timeline(timeline)
        for col, width in enumerate((70, 180, 110, 50, 170)):
            self.view.setColumnWidth(col, width)
        self._refilter()

    def _refilter(self) -> None:
        tl = self.model.timeline
        self._token += 1
        if self._job is not None:
            self._job.stop = True
            self._job = None
        kind, text = self.kind.currentData(), self.text.text()
        if tl is None or (kind is None and not text.strip()):
            self.model.set_rows(None)
            self._say()
            return
        if self.model._offsets[-1] <= _SYNC_LIMIT:
            self.model.set_rows(filter_rows(tl, self.model.passes, kind, text))
            self._say()
            return
        self.count.setText("Filtering…")
        job = _FilterJob(self._token, tl, self.model.passes, kind, text)
        job.signals.done.connect(self._filtered)
        self._job = job
        QThreadPool.globalInstance().start(job)

    def _filtered(self, token, rows) -> None:
        if token != self._token or rows is None:
            return
        self._job = None
        self.model.set_rows(rows)
        self._say()

    def _say(self) -> None:
        total = self.model._offsets[-1] if self.model.timeline is not None else 0
        shown = self.model.rowCount() - (self.model._rows is None and self.model.boundary is not None)
        self.count.setText(f"{shown:,} of {total:,} events" if shown != total else f"{total:,} events")

    def _row_changed(self, current, _previous) -> None:
        if self._quiet or not current.isValid() or self.model.is_boundary(current.row()):
            return
        self.eventActivated.emit(*self.model.event_at(current.row()))

    def select_event(self, lane: int, e: int | None) -> bool:
        """Select the row of event ``e`` of ``lane`` (without emitting); False when it is filtered out."""
        if e is None or self.model.timeline is None:
            return False
        row = self.model.row_of(lane, e)
        if row is None:
            return False
        self._quiet = True
        try:
            idx = self.model.index(row, 0)
            self.view.setCurrentIndex(idx)
            self.view.scrollTo(idx)
        finally:
            self._quiet = False
        return True
