"""The folder's checkpoints by session: a two-level model over :mod:`inspector.session.series`.

Top-level rows are sessions (how many checkpoints, how many verify, the latest resumable one, gaps, forks,
duplicates); their children are the session's checkpoints in order (pass, time, verdict, resumability, what
the order shows about each). The model reads the series the folder scan grouped off the GUI thread; it builds
nothing per row up front, so a folder of 10,000 files resets at once.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt

from inspector.checkpoint import Verdict
from inspector.session.series import Series, SeriesEntry
from inspector.session.visible import visible

from .. import style
from ..roles import ACCESSIBLE, DISPLAY, FOREGROUND, TOOLTIP, ObjectRole

__all__ = ["SessionsModel", "COLUMNS"]

COLUMNS = ("Session / checkpoint", "Pass", "Time (UTC)", "Verdict", "Resumable", "Notes")
_TOP = 0xFFFFFFFF  # internal id of a session row (a checkpoint row's is its session's index)


def _time(ms) -> str:
    if not isinstance(ms, int):
        return ""
    try:
        return _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    except (OverflowError, OSError, ValueError):
        return str(ms)


class SessionsModel(QAbstractItemModel):
    """Sessions and their checkpoints in order. ``ObjectRole`` gives a checkpoint row's
    :class:`~inspector.session.series.SeriesEntry` (and a session row's :class:`~inspector.session.series.Series`)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.series: list[Series] = []
        self._notes: dict[tuple[int, int], str] = {}

    def set_series(self, series: list[Series]) -> None:
        """Show ``series`` (the scan's sessions, each in order)."""
        self.beginResetModel()
        self.series = series
        self._notes = {}
        for si, s in enumerate(series):
            notes: dict[str, list[str]] = {}
            for k in s.forks:
                for n in k.names:
                    notes.setdefault(n, []).append(f"fork at pass {k.passes}" if not k.diverged else "diverged")
            for d in s.duplicates:  # (named once each: a group of 5,000 copies must not cost 25 million joins)
                for n in d:
                    other = next(x for x in d if x != n)
                    more = f" and {len(d) - 2:,} more" if len(d) > 2 else ""
                    notes.setdefault(n, []).append(f"same content as {other}{more}")
            for e in s.entries:
                f = e.row.facts
                for g in s.gaps:
                    if f is not None and f.run_id == g.run_id and f.passes == g.after and g.missing:
                        notes.setdefault(e.name, []).append(f"next pass missing: {', '.join(map(str, g.missing))}")
                if f is not None and f.restorable:
                    notes.setdefault(e.name, []).append("restorable (re-saved copy)")
                self._notes[(si, e.index)] = "; ".join(notes.get(e.name, []))
        self.endResetModel()

    def clear(self) -> None:
        """No folder: no sessions."""
        self.set_series([])

    # -- structure -------------------------------------------------------------------------------------
    def index(self, row, column, parent=QModelIndex()):
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _TOP)
        return self.createIndex(row, column, parent.row())

    def parent(self, index=QModelIndex()):
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        return self.createIndex(index.internalId(), 0, _TOP)

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 (Qt)
        if not parent.isValid():
            return len(self.series)
        if parent.internalId() == _TOP and parent.column() == 0:
            return len(self.series[parent.row()].entries)
        return 0

    def columnCount(self, parent=QModelIndex()):  # noqa: N802 (Qt)
        return len(COLUMNS)

    def headerData(self, section, orientation, role=DISPLAY):  # noqa: N802 (Qt)
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY:
            return COLUMNS[section]
        return None

    def entry(self, index) -> SeriesEntry | None:
        """The checkpoint of ``index``'s row, or ``None`` for a session row."""
        if not index.isValid() or index.internalId() == _TOP:
            return None
        return self.series[index.internalId()].entries[index.row()]

    def neighbour(self, index, step: int):
        """The index of the checkpoint ``step`` places after ``index``'s (before, when negative) in its series,
        or an invalid index at either end."""
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        row = index.row() + step
        parent = self.parent(index)
        return self.index(row, 0, parent) if 0 <= row < self.rowCount(parent) else QModelIndex()

    # -- data ------------------------------------------------------------------------------------------
    def data(self, index, role=DISPLAY):
        if not index.isValid():
            return None
        if index.internalId() == _TOP:
            value = self._session_data(self.series[index.row()], index.column(), role)
        else:
            s = self.series[index.internalId()]
            value = self._entry_data(s.entries[index.row()], index.internalId(), index.column(), role)
        # (session ids, file names and the reference's messages come from the files: the one escaping)
        return visible(value) if isinstance(value, str) else value

    def _session_data(self, s: Series, col: int, role):
        if role == ObjectRole:
            return s
        if role not in (DISPLAY, TOOLTIP, ACCESSIBLE):
            return None
        latest = s.latest_resumable
        if col == 0:
            return f"session {s.session_id} — {len(s.entries)} checkpoints, {s.verified} verified"
        if col == 4:  # FORMAT.md 4.18: no single latest at a fork head
            return "no single latest (fork)" if s.head_fork else f"latest: {latest.name}" if latest else \
                "none resumable"
        if col == 5:
            parts = [f"gap: pass {', '.join(map(str, g.missing))} missing" for g in s.gaps if g.missing]
            parts += [f"fork at pass {k.passes}" if not k.diverged else "diverged" for k in s.forks]
            parts += [f"{len(d)} copies of one checkpoint" for d in s.duplicates]
            return "; ".join(parts)
        return None

    def _entry_data(self, e: SeriesEntry, si: int, col: int, role):
        f, row = e.row.facts, e.row
        if role == ObjectRole:
            return e
        verdict = "VERIFIED" if row.verified else f"FAIL {row.root_rule}" if row.root_rule else "not verified"
        if role == FOREGROUND and col == 3:
            return style.colour(Verdict.PASS if row.verified else Verdict.FAIL)
        texts = (f"{e.index + 1}. {e.name}", "" if f is None or f.passes is None else str(f.passes),
                 _time(f.checkpoint_ms if f else None), verdict, (f.resumability or "") if f else "",
                 self._notes.get((si, e.index), ""))
        if role == DISPLAY:
            return texts[col]
        if role == TOOLTIP:
            return row.summary if col == 3 else texts[col] or None
        if role == ACCESSIBLE:  # each cell its own words (a screen reader reads the cell, not the row again)
            return f"{COLUMNS[col]}: {texts[col] or 'none'}"
        return None
