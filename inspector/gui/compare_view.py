"""The comparison window: two checkpoints side by side.

Two trees (A left, B right) with every change marked by a sign and a colour (``+`` added,
``−`` removed, ``~`` changed, ``•`` holds a change), kept in step: expanding, collapsing,
scrolling or selecting in one tree does the same at the matching node of the other (matched
through the engine's alignment, so an inserted message does not shift the rest). Below them, the
list of changes: selecting one selects it in both trees. Each side's header gives its own
verdict. The work runs in the background with progress and Cancel (:mod:`.compare_engine`).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QLabel, QSplitter, QTableView, QTreeView, QVBoxLayout, QWidget,
)

from . import style
from inspector.session import compare_loading as compare_engine
from .jobwindow import JobWindow
from .models.table import RowsTableModel
from .models.json_tree import JsonTreeModel
from .roles import PointerRole

__all__ = ["CompareWindow", "DiffTreeModel", "ChangeListModel", "MARK_SIGNS"]

#: The sign shown before a marked row's name (marks never rely on colour alone).
MARK_SIGNS = {"added": "+ ", "removed": "− ", "changed": "~ ", "holds": "• "}
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ACCESSIBLE = int(Qt.ItemDataRole.AccessibleTextRole)
_TINTS = {"added": ("#d8f5dd", "#1f4d2a"), "removed": ("#fbdcdc", "#5a2323"), "changed": ("#fff1c2", "#5a4a12")}


def _tint(op: str) -> QColor:
    light, dark = _TINTS[op]
    return QColor(dark if style.is_dark() else light)


def _parent(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0] if pointer else ""


class DiffTreeModel(JsonTreeModel):
    """A :class:`JsonTreeModel` whose rows carry change marks: ``marks`` maps a JSON Pointer to
    ``added``/``removed``/``changed``; every ancestor of a mark is marked ``holds``."""

    def __init__(self, source: str, parent=None):
        super().__init__(source, parent=parent)
        self._marks: dict[str, str] = {}

    def set_marks(self, marks: dict[str, str]) -> None:
        """Mark these pointers (and, as ``holds``, their ancestors)."""
        full = {}
        for p, op in marks.items():
            q = _parent(p)
            while q and q not in full:
                full[q] = "holds"
                q = _parent(q)
        full.update(marks)
        self._marks = full
        self.layoutChanged.emit()

    def mark(self, pointer: str) -> str | None:
        """The mark of ``pointer`` (``None`` when unchanged)."""
        return self._marks.get(pointer)

    def data(self, index, role=_DISPLAY):
        role = int(role)
        if index.isValid() and self._marks:
            op = self._marks.get(index.internalPointer().pointer)
            if op is not None:
                if role == _DISPLAY and index.column() == 0:
                    return MARK_SIGNS[op] + super().data(index, role)
                if role == _BACKGROUND and op != "holds":
                    return _tint(op)
                if role == _TOOLTIP:
                    what = "holds a change" if op == "holds" else op
                    return f"{what}\n{super().data(index, role) or ''}".rstrip()
                if role == _ACCESSIBLE:
                    return f"{'holds a change' if op == 'holds' else op}: {super().data(index, role)}"
        return super().data(index, role)


def side_names(result) -> tuple[str, str]:
    """What the two sides of a comparison are called: ``A (earlier)`` and ``B (later)`` when B is later in the
    session's history (FORMAT.md 4.18: the earlier export is always A), else ``A`` and ``B`` (the same history,
    a fork, two sessions, two descriptors: neither is old or new)."""
    order = getattr(result, "order", None)
    if order is not None and order.order == "later":
        return "A (earlier)", "B (later)"
    return "A", "B"


class ChangeListModel(RowsTableModel):
    """The changes (:class:`.compare_engine.ChangeRow`) as a table."""

    COLUMNS = ("Change", "Item", "A", "B", "Stale in the descriptor")

    @property
    def rows(self) -> list:
        """The rows shown, in order."""
        return self._rows

    def set_rows(self, rows: list) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def data(self, index, role=_DISPLAY):
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        role = int(role)
        col = index.column()
        if role in (_DISPLAY, _TOOLTIP):
            if col == 0:
                return MARK_SIGNS[r.op] + r.op + ("" if r.kind == "value" else f" {r.kind}")
            if col == 1:
                return r.item
            if col == 2:
                return (f"{r.a_pointer}  {r.a_text}" if r.a_pointer is not None else "(not in A)")
            if col == 3:
                return (f"{r.b_pointer}  {r.b_text}" if r.b_pointer is not None else "(not in B)")
            return ", ".join(r.invalidates)
        if role == _BACKGROUND and col == 0:
            return _tint(r.op)
        return None


def _tree(name: str) -> QTreeView:
    t = QTreeView()
    t.setObjectName(name)
    t.setUniformRowHeights(True)
    t.setAlternatingRowColors(False)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return t


class CompareWindow(JobWindow):
    """Two payloads (or two descriptors) side by side.

    Signals:
        ready(): the comparison is on screen. failed(str): it could not be made (message shown).
    """

    ready = Signal()
    failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compareWindow")
        self.setWindowTitle("Compare — Checkpoint Inspector")
        self.result: compare_engine.CompareResult | None = None
        self._comparison = None
        self._syncing = False
        self.models = (DiffTreeModel("payload", self), DiffTreeModel("payload", self))
        self.trees = (_tree("compareTreeA"), _tree("compareTreeB"))
        self.headers = (QLabel(), QLabel())
        panes = QSplitter(Qt.Orientation.Horizontal)
        for side, (model, tree, header) in enumerate(zip(self.models, self.trees, self.headers)):
            tree.setModel(model)
            tree.setAccessibleName(f"Tree of {'AB'[side]}")
            header.setObjectName(f"compareHeader{'AB'[side]}")
            header.setWordWrap(True)
            header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(2, 2, 2, 2)
            lay.addWidget(header)
            lay.addWidget(tree)
            panes.addWidget(box)
            tree.expanded.connect(lambda idx, s=side: self._sync_expand(s, idx, True))
            tree.collapsed.connect(lambda idx, s=side: self._sync_expand(s, idx, False))
            tree.verticalScrollBar().valueChanged.connect(lambda _v, s=side: self._sync_scroll(s))
            tree.selectionModel().currentChanged.connect(lambda cur, _prev, s=side: self._sync_select(s, cur))
        self.summary = QLabel("")
        self.summary.setObjectName("compareSummary")
        self.summary.setWordWrap(True)
        self.change_model = ChangeListModel(self)
        self.changes = QTableView()
        self.changes.setTabKeyNavigation(False)  # arrows move in the table; Tab leaves it
        self.changes.setObjectName("changeList")
        self.changes.setAccessibleName("Changes")
        self.changes.setModel(self.change_model)
        self.changes.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.changes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.changes.verticalHeader().setVisible(False)
        self.changes.horizontalHeader().setStretchLastSection(True)
        self.changes.setWordWrap(False)
        self.changes.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.changes.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        for col, width in enumerate((150, 230, 330, 330)):
            self.changes.setColumnWidth(col, width)
        self.changes.selectionModel().currentRowChanged.connect(self._change_selected)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(2, 2, 2, 2)
        ll.addWidget(self.summary)
        ll.addWidget(self.changes)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(panes)
        split.addWidget(lower)
        split.setSizes([520, 260])
        self.setCentralWidget(split)
        for text, keys, slot, name in (("Next Change", ["F8", "Ctrl+Down"], lambda: self.step(+1), "nextChange"),
                                       ("Previous Change", ["Shift+F8", "Ctrl+Up"], lambda: self.step(-1),
                                        "previousChange"),
                                       ("Close", [QKeySequence.StandardKey.Close, "Esc"], self.close, "closeCompare")):
            a = QAction(text, self)
            a.setObjectName(name)
            a.setShortcuts([QKeySequence(k) for k in keys])
            a.triggered.connect(slot)
            self.addAction(a)
        self.fit_screen(1100, 780)

    # -- running ---------------------------------------------------------------------------------
    def start(self, paths: list[str]) -> None:
        """Compare ``paths`` (A, B) in the background."""
        from .document import display_name

        paths = [str(p) for p in paths]
        self.setWindowTitle(f"{display_name(paths[0])} ↔ {display_name(paths[1])} — Compare")
        for h, p in zip(self.headers, paths):
            h.setText(f"<b>{_esc(display_name(p))}</b><br>comparing…")
        self.run(lambda ctx: compare_engine.compare_paths(paths, progress=ctx.progress, cancel=ctx.cancelled),
                 "comparing two files", "Reading both files…")

    def _failed(self, msg: str) -> None:
        for h in self.headers:  # was left reading "comparing…"
            h.setText(h.text().replace("<br>comparing…", "<br>not compared"))
        self.summary.setText(f"ERROR: {_esc(msg)}")
        self.statusBar().showMessage("The comparison could not be made.")
        self.failed.emit(msg)

    def _cancelled(self) -> None:
        self.summary.setText("The comparison was cancelled.")
        self.statusBar().showMessage("Cancelled.")

    def _finished(self, r: compare_engine.CompareResult) -> None:
        from .document import display_name

        self.result = r
        self._comparison = r.comparison()
        marks: tuple[dict, dict] = ({}, {})
        for row in r.rows:
            if row.a_pointer is not None:
                marks[0][row.a_pointer] = row.op
            if row.b_pointer is not None:
                marks[1][row.b_pointer] = row.op
        self.setWindowTitle(f"{display_name(r.a.path)} ↔ {display_name(r.b.path)} — Compare")  # (A first: the earlier)
        names = side_names(r)
        for side, (model, s, tree) in enumerate(zip(self.models, (r.a, r.b), self.trees)):
            model.source = s.role  # a tree of a descriptor locates descriptor bytes
            model.set_document(s.data, s.index)
            model.set_marks(marks[side])
            tree.setColumnWidth(0, 240)
            tree.setColumnWidth(1, 230)
            word = "PASS" if s.ok else "FAIL"
            self.trees[side].setAccessibleName(f"Tree of {names[side]}")
            self.headers[side].setText(
                f"<b>{names[side]}: {_esc(display_name(s.path))}</b> "
                f"({s.role}, {s.size:,} bytes)<br>{word}: {_esc(s.verdict)}"
                + (f"<br>not JSON: {_esc(s.parse_error)}" if s.parse_error else ""))
            self.headers[side].setToolTip(s.verdict)
        more = f" (the first {len(r.rows):,} of {r.total:,} are listed)" if r.total > len(r.rows) else ""
        if r.total == 0:
            text = ("Same values: the files are byte-identical." if r.bytes_equal else
                    "Same values: the files differ only in formatting, key order or number spelling.")
        else:
            text = f"<b>{_esc(r.summary)}</b>{more}"
        comps = "; ".join(f"{name} digest {'changed' if changed else 'same'}" for name, _a, _b, changed in r.components)
        order = f"<br>{_esc(r.order.sentence)}" if r.order is not None else ""
        self.summary.setText(text + (f"<br>{_esc(comps)}" if comps else "") + order)
        self.change_model.set_rows(r.rows)
        self.statusBar().showMessage(f"{r.total:,} change{'s' if r.total != 1 else ''} ({r.seconds:.1f} s)")
        self.ready.emit()

    # -- keeping the trees in step ------------------------------------------------------------------
    def _other(self, side: int, pointer: str) -> str | None:
        if self._comparison is None:
            return pointer
        return self._comparison.map_pointer(pointer, "b" if side == 0 else "a")

    def _mapped_index(self, side: int, idx) -> QModelIndex:
        pointer = idx.data(PointerRole)
        if pointer is None:
            return QModelIndex()
        other = self._other(side, pointer)
        if other is None:
            return QModelIndex()
        return self.models[1 - side].index_for_pointer(other)

    def _sync_expand(self, side: int, idx, expand: bool) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            target = self._mapped_index(side, idx)
            if target.isValid():
                self.trees[1 - side].setExpanded(target, expand)
        finally:
            self._syncing = False

    def _sync_scroll(self, side: int) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            self._align_scroll(side)
        finally:
            self._syncing = False

    def _align_scroll(self, side: int) -> None:
        """Scroll the other tree so the row matching ``side``'s top row is at its top."""
        top = self.trees[side].indexAt(QPoint(4, 4))
        if top.isValid():
            target = self._mapped_index(side, top)
            if target.isValid():
                self.trees[1 - side].scrollTo(target, QAbstractItemView.ScrollHint.PositionAtTop)

    def _sync_select(self, side: int, cur) -> None:
        if self._syncing or not cur.isValid():
            return
        self._syncing = True
        try:
            target = self._mapped_index(side, cur)
            other = self.trees[1 - side]
            if target.isValid():
                other.selectionModel().setCurrentIndex(target, other.selectionModel().SelectionFlag.ClearAndSelect)
            else:
                other.clearSelection()
            self._align_scroll(side)
        finally:
            self._syncing = False

    def _select(self, side: int, idx) -> None:
        tree = self.trees[side]
        tree.setCurrentIndex(idx)
        tree.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _change_selected(self, cur, _prev=None) -> None:
        if not cur.isValid():
            return
        row = self.change_model.rows[cur.row()]
        self._syncing = True
        try:
            for side, own, other in ((0, row.a_pointer, row.b_pointer), (1, row.b_pointer, row.a_pointer)):
                pointer = own
                if pointer is None and other is not None:
                    # not on this side: the container it was added to / removed from
                    pointer = self._other(1 - side, _parent(other)) or ""
                idx = self.models[side].index_for_pointer(pointer or "")
                if idx.isValid():
                    self._select(side, idx)
                else:
                    self.trees[side].clearSelection()
        finally:
            self._syncing = False

    def step(self, delta: int) -> None:
        """Select the next (``+1``) or previous (``-1``) change in the list."""
        n = self.change_model.rowCount()
        if not n:
            return
        cur = self.changes.currentIndex().row()
        row = (0 if delta > 0 else n - 1) if cur < 0 else (cur + delta) % n
        self.changes.setCurrentIndex(self.change_model.index(row, 0))
        self.changes.setFocus()



def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
