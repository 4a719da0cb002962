"""``JsonTreeModel``: a lazily loaded tree over one checkpoint document's bytes.

The model adapts an :class:`~inspector.session.engine.Side` (the file bytes plus the span index
made off the GUI thread) and owns no copy of the data. Children are created only when a row
is expanded (``canFetchMore``/``fetchMore``, in batches), so a 256 MiB payload opens as fast
as a small one. Every row answers :data:`~inspector.gui.roles.LocationRole` with the exact
byte span of its value, which is what links the trees to the bytes view.

Scalar values are shown from the file's own bytes (numbers exactly as written); container
rows get a summary (messages, tool calls paired with their results, runs...). Editing a
scalar does not change the model: it emits :attr:`JsonTreeModel.editRequested`, and the
window recomputes the sandbox off the GUI thread and loads the result.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt, Signal

from inspector.checkpoint import Verdict

from .. import style
from inspector.checkpoint.jsontext.lazyjson import children_of, find_span, kind_at, load_value, value_span
from ..qtcompat import emit
from ..roles import CopyValueRole, VerdictRole
from inspector.session.visible import visible
from inspector.session.annotate import ToolPairs
from .tree_display import (
    _ACCESSIBLE, _DECORATION, _DISPLAY, _EDIT, _FOREGROUND, _ROLES, _SPAN_ROLES, _TOOLTIP, TreeDisplay,
)
from inspector.session.tree_item import TreeItem, escape_token, release

__all__ = ["JsonTreeModel", "TreeItem", "escape_token"]

BATCH = 64
#: At most this many rows under one row: larger containers are shown in ranges of 1000**k children.
BUCKET = 1000
# Flag combinations computed once: views call flags()/hasChildren() for every laid-out row.
_SEL = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_SEL_LEAF = _SEL | Qt.ItemFlag.ItemNeverHasChildren
_EDIT_LEAF = _SEL_LEAF | Qt.ItemFlag.ItemIsEditable
_NONE = Qt.ItemFlag.NoItemFlags


class JsonTreeModel(TreeDisplay, QAbstractItemModel):
    """Tree model over one document (payload or descriptor).

    Args:
        source: ``payload`` or ``descriptor`` (the ``Location.source`` of every row).
        include: top-level keys to show (``None``: all), e.g. ``{"logical_resume"}``.
        exclude: top-level keys to hide, e.g. ``{"logical_resume"}`` for the snapshot tree.

    Signals:
        editRequested(source, pointer, span, kind, text): the user entered a new scalar value.
    """

    editRequested = Signal(str, str, object, str, str)
    COLUMNS = ("Field", "Value", "Bytes")

    def __init__(self, source: str, include=None, exclude=None, parent=None):
        super().__init__(parent)
        self.source = source
        self._include = set(include) if include is not None else None
        self._exclude = set(exclude or ())
        self._data: bytes | None = None
        self._index = None
        self._root: TreeItem | None = None
        self._editable = False
        self._markers: dict[str, Verdict] = {}
        self._pairs: dict[str, ToolPairs] = {}
        self._resume_run: str | None = None

    # -- loading ------------------------------------------------------------------------------
    def set_document(self, data: bytes | None, index: dict | None, *, editable: bool = False) -> None:
        """Show ``data`` (with its span ``index``); ``None`` or an unparsed document clears the tree."""
        self.beginResetModel()
        release(self._root)
        self._data = data
        self._index = index
        self._editable = editable
        self._pairs = {}
        self._resume_run = None
        self._root = None
        if data is not None and index is not None:
            start, end = value_span(data)
            self._root = TreeItem(None, 0, None, None, start, end, kind_at(data, start), "")
            if self._root.is_container:
                # The first rows now; the rest as the view asks (a 500,000-element top-level array
                # must not make 500,000 rows on the GUI thread).
                self._fill(self._root, limit=BATCH)
            if self.source == "payload":
                span = find_span(data, index, "/logical_resume/run_id")
                if span is not None:
                    v = load_value(data, *span)
                    self._resume_run = v if isinstance(v, str) else None
        self.endResetModel()

    def clear(self) -> None:
        """Show nothing."""
        self.set_document(None, None)

    def set_markers(self, markers: dict[str, Verdict]) -> None:
        """Mark rows whose pointer (or a descendant's) has a failing finding."""
        self._markers = dict(markers)
        if self._root is not None and self._root.children:
            last = len(self._root.children) - 1
            emit(self.dataChanged, self.index(0, 0), self.index(last, 0))

    @property
    def document(self) -> bytes | None:
        return self._data

    @property
    def is_loaded(self) -> bool:
        return self._root is not None

    def _filtered(self, item: TreeItem, key) -> bool:
        """True when the top-level ``key`` is not shown in this tree (include/exclude)."""
        return item is self._root and ((self._include is not None and key not in self._include)
                                       or key in self._exclude)

    def _prepare(self, item: TreeItem) -> None:
        """Find ``item``'s children (once) and how many positions each child row holds: a
        container of more than :data:`BUCKET` children shows range rows of ``BUCKET**k``
        children each, so no level of the tree has more than ``BUCKET`` rows."""
        if item.step is not None:
            return
        if item.infos is None:
            item.infos = children_of(self._data, self._index, item.start, item.end)
        if item.hi is None:
            item.lo, item.hi = 0, len(item.infos)
        step = 1
        if not (item is self._root and item.infos.kind == "object" and (self._include is not None or self._exclude)):
            while -(-(item.hi - item.lo) // step) > BUCKET:
                step *= BUCKET
        item.step = step

    def _slots(self, item: TreeItem) -> int:
        self._prepare(item)
        return -(-(item.hi - item.lo) // item.step)

    def _fill(self, item: TreeItem, *, limit: int | None = None) -> list[TreeItem]:
        """Create up to ``limit`` more of ``item``'s children (no model signals); the root skips
        the keys this tree does not show (at most ``limit`` of them are looked at per call, or
        until ``limit`` rows were made)."""
        self._prepare(item)
        ch = item.infos
        made = []
        if item.step > 1:  # range rows
            i, n = item.scan, self._slots(item)
            if limit is not None:
                n = min(n, i + limit)
            while i < n:
                lo = item.lo + i * item.step
                hi = min(item.hi, lo + item.step)
                s = ch.key_starts[lo] if ch.key_starts is not None else ch.starts[lo]
                r = TreeItem(item, len(item.children), None, None, s, ch.ends[hi - 1], "range", item.pointer, lo)
                r.infos, r.lo, r.hi, r.nonempty = ch, lo, hi, True
                item.children.append(r)
                made.append(r)
                i += 1
            item.scan = i
            return made
        i = item.lo + item.scan
        n = item.hi if limit is None else min(item.hi, i + max(limit, 1) * (64 if item is self._root else 1))
        base = item.pointer
        data = self._data
        while i < n and (limit is None or len(made) < limit):
            key = ch.keys[i] if ch.keys is not None else i
            if self._filtered(item, key):
                i += 1
                continue
            s, e = ch.starts[i], ch.ends[i]
            it = TreeItem(item, len(item.children), key, ch.key_starts[i] if ch.key_starts is not None else None,
                          s, e, kind_at(data, s), f"{base}/{escape_token(key)}", i)
            item.children.append(it)
            made.append(it)
            i += 1
        item.scan = i - item.lo
        return made

    def _count_next(self, item: TreeItem, limit: int) -> int:
        """How many rows the next ``_fill(item, limit=limit)`` will make (for beginInsertRows)."""
        ch = item.infos
        if item is not self._root or item.step > 1:
            return min(self._slots(item) - item.scan, limit)
        n, i = 0, item.scan
        end = min(len(ch), i + max(limit, 1) * 64)
        while i < end and n < limit:
            if not self._filtered(item, ch.keys[i] if ch.keys is not None else i):
                n += 1
            i += 1
        return n

    # -- Qt model API ---------------------------------------------------------------------------
    def _item(self, index: QModelIndex) -> TreeItem | None:
        if not index.isValid():
            return self._root
        return index.internalPointer()

    def index(self, row, column, parent=QModelIndex()):
        if self._root is None or column < 0 or column >= len(self.COLUMNS) or row < 0:
            return QModelIndex()
        item = self._item(parent)
        if item is None or row >= len(item.children):
            return QModelIndex()
        return self.createIndex(row, column, item.children[row])

    def parent(self, index=QModelIndex()):
        if not index.isValid():
            return QModelIndex()
        item: TreeItem = index.internalPointer()
        p = item.parent
        if p is None or p is self._root:
            return QModelIndex()
        return self.createIndex(p.row, 0, p)

    def rowCount(self, parent=QModelIndex()):
        if parent.isValid() and parent.column() != 0:
            return 0
        item = self._item(parent)
        return 0 if item is None else len(item.children)

    def columnCount(self, parent=QModelIndex()):
        return len(self.COLUMNS)

    def hasChildren(self, parent=QModelIndex()):
        if not parent.isValid():
            return self._root is not None and (bool(self._root.children) or self.canFetchMore(parent))
        if parent.column() != 0:
            return False
        return self._nonempty(parent.internalPointer())

    def _nonempty(self, item: TreeItem) -> bool:
        """A container with at least one child (first byte after the bracket is not the closer)."""
        ne = item.nonempty
        if ne is None:
            if item.kind == "range":
                ne = True
            elif item.kind != "object" and item.kind != "array":
                ne = False
            elif item.children:
                ne = True
            else:
                d = self._data
                j = item.start + 1
                while j < item.end and d[j] in b" \t\n\r":
                    j += 1
                ne = j < item.end - 1
            item.nonempty = ne
        return ne

    def canFetchMore(self, parent=QModelIndex()):
        if parent.isValid() and parent.column() != 0:
            return False
        item = self._item(parent)
        if item is None or not item.is_container:
            return False
        return item.step is None or item.scan < self._slots(item)

    def fetchMore(self, parent=QModelIndex(), batch: int = BATCH):
        """Make the next ``batch`` rows under ``parent`` (the root included)."""
        if not self.canFetchMore(parent):
            return
        item = self._item(parent)
        self._prepare(item)
        first = len(item.children)
        count = self._count_next(item, batch)
        if count <= 0:
            self._fill(item, limit=batch)  # only filtered keys in this stretch: move past them
            return
        self.beginInsertRows(parent, first, first + count - 1)
        self._fill(item, limit=batch)
        self.endInsertRows()

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def flags(self, index):
        if not index.isValid():
            return _NONE
        item = index.internalPointer()
        if self._nonempty(item):
            return _SEL
        if self._editable and index.column() == 1 and not item.is_container:
            return _EDIT_LEAF
        return _SEL_LEAF

    def data(self, index, role=_DISPLAY):
        # Views ask for many roles per cell while painting: answer with int comparisons and
        # leave early for roles this model does not provide.
        role = int(role)
        if role not in _ROLES or not index.isValid():
            return None
        item: TreeItem = index.internalPointer()
        col = index.column()
        if item.kind == "range":
            return self._range_data(item, col, role)
        if role == _DISPLAY:
            if col == 0:
                return f"[{item.key}]" if isinstance(item.key, int) else visible(str(item.key))
            if col == 1:
                return self._display_value(item)
            return f"{item.start}–{item.end}"
        if role == _EDIT:
            if col == 1 and not item.is_container:
                return self._edit_text(item)
            return self.data(index, _DISPLAY)
        if role == _TOOLTIP:
            return self._tooltip(item)
        if role in _SPAN_ROLES:
            return self._span_data(item, role)
        if role == CopyValueRole:
            return self._copy_text(item)
        if role == VerdictRole:
            return self._marker(item)
        if col != 0 and role != _ACCESSIBLE:
            return None
        v = self._marker(item)
        if role == _DECORATION:
            return style.icon(v) if v is not None else None
        if role == _FOREGROUND:
            return style.colour(v) if v is not None else None
        if role == _ACCESSIBLE:  # the name cell says the field (and its verdict), the value cell the value
            prefix = f"{style.label(v)}: " if v is not None else ""
            name = self.data(index.siblingAtColumn(0))
            if col == 2:
                return f"{name}: bytes {item.start} to {item.end}"
            return prefix + (name if col == 0 else f"{name} = {self._display_value(item)}")
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):
        if not index.isValid() or int(role) != _EDIT or index.column() != 1:
            return False
        item: TreeItem = index.internalPointer()
        if not self._editable or item.is_container:
            return False
        text = str(value)
        if text == self._edit_text(item):
            return False
        emit(self.editRequested, self.source, item.pointer, (item.start, item.end), item.kind, text)
        return True

    # -- navigation -----------------------------------------------------------------------------
    def _child_at(self, item: TreeItem, idx: QModelIndex, pos: int) -> TreeItem | None:
        """The child of container ``item`` at file position ``pos``, through any range rows
        (fetching rows up to it); None if not shown."""
        while True:
            self._prepare(item)
            if item is self._root and item.step == 1 and (self._include is not None or self._exclude):
                key = item.infos.keys[pos] if item.infos.keys is not None else pos
                if self._filtered(item, key):
                    return None
                while item.scan <= pos:
                    self.fetchMore(idx, batch=max(BATCH, pos + 1 - item.scan))
                kids = item.children
                lo, hi = 0, len(kids) - 1
                while lo <= hi:  # children are in file order
                    mid = (lo + hi) // 2
                    if kids[mid].pos < pos:
                        lo = mid + 1
                    elif kids[mid].pos > pos:
                        hi = mid - 1
                    else:
                        return kids[mid]
                return None
            slot = (pos - item.lo) // item.step
            while item.scan <= slot:
                self.fetchMore(idx, batch=max(BATCH, slot + 1 - item.scan))
            child = item.children[slot]
            if item.step == 1:
                return child
            item, idx = child, self.createIndex(child.row, 0, child)

    def index_for_pointer(self, pointer: str) -> QModelIndex:
        """The row for ``pointer`` (fetching lazily along the way); invalid when not shown here."""
        if self._root is None:
            return QModelIndex()
        if pointer in ("", "/"):
            return QModelIndex()
        item = self._root
        idx = QModelIndex()
        for raw in pointer.lstrip("/").split("/"):
            token = unescape_token(raw)
            if not item.is_container:
                return QModelIndex()
            self._prepare(item)
            infos = item.infos
            if infos.kind == "array":
                if not token.isdigit() or int(token) >= len(infos):
                    return QModelIndex()
                pos = int(token)
            else:
                pos = None
                for j, k in enumerate(infos.keys):
                    if k == token:
                        pos = j  # the last duplicate wins, as in serde
                if pos is None:
                    return QModelIndex()
            child = self._child_at(item, idx, pos)
            if child is None:
                return QModelIndex()
            item = child
            idx = self.createIndex(item.row, 0, item)
        return idx

    def index_for_offset(self, offset: int) -> QModelIndex:
        """The deepest row whose span contains byte ``offset``; invalid when none does."""
        if self._root is None:
            return QModelIndex()
        item = self._root
        idx = QModelIndex()
        best = QModelIndex()
        while True:
            if not item.is_container or not self._nonempty(item):
                return best
            self._prepare(item)
            infos = item.infos
            # binary search the child whose [key_start or start, end) contains offset
            lo, hi = 0, len(infos) - 1
            pos = None
            while lo <= hi:
                mid = (lo + hi) // 2
                s = infos.key_starts[mid] if infos.key_starts is not None else infos.starts[mid]
                if offset < s:
                    hi = mid - 1
                elif offset >= infos.ends[mid]:
                    lo = mid + 1
                else:
                    pos = mid
                    break
            if pos is None:
                return best
            child = self._child_at(item, idx, pos)
            if child is None:
                return best
            item = child
            idx = self.createIndex(item.row, 0, item)
            best = idx
