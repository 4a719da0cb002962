"""``FindingsModel``: every rule's verdict from a :class:`~inspector.checkpoint.Report`, grouped by stage.

The first top-level row is the root cause (the failure the reference reports first); then one
group per stage (descriptor, payload, snapshot, loop checkpoint, cross-binding) with every
rule in evaluation order. Failures other than the root cause are labelled as consequences.
The model adapts the report and owns nothing else; it never decides a verdict.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt

from inspector.checkpoint import Finding, Verdict
from inspector.session.visible import visible

from .. import style
from ..roles import ACCESSIBLE as _ACCESSIBLE, DECORATION as _DECORATION, DISPLAY as _DISPLAY, FONT as _FONT
from ..roles import FOREGROUND as _FOREGROUND, TOOLTIP as _TOOLTIP
from ..roles import LocationRole, ObjectRole, RuleIdRole, VerdictRole

_ROLES = frozenset({_DISPLAY, _FONT, _DECORATION, _ACCESSIBLE, _FOREGROUND, _TOOLTIP, int(LocationRole), int(VerdictRole),
                    int(RuleIdRole), int(ObjectRole)})

__all__ = ["FindingsModel", "GROUP_TITLES"]

GROUP_TITLES = {
    "descriptor": "Descriptor self-validation (D)",
    "payload": "Content and payload (P)",
    "snapshot": "Snapshot invariants (S)",
    "loop-checkpoint": "Resume boundary / loop checkpoint (L)",
    "cross-binding": "Cross-binding and drift (X)",
}


class _Node:
    __slots__ = ("parent", "row", "title", "finding", "children", "is_root_section")

    def __init__(self, parent, row, title=None, finding=None, root_section=False):
        self.parent = parent
        self.row = row
        self.title = title
        self.finding: Finding | None = finding
        self.children: list[_Node] = []
        self.is_root_section = root_section


class FindingsModel(QAbstractItemModel):
    """Tree: [Root cause] + stage groups -> findings. Columns: Verdict, Rule, Description."""

    COLUMNS = ("Verdict", "Rule", "Description")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._report = None
        self._groups: list[_Node] = []
        self._pending_text: str | None = None
        #: Show only the failing rules (and the root cause); groups with none are left out.
        self.failures_only = False

    def set_failures_only(self, on: bool) -> None:
        """Show only failing rules (True) or every rule (False)."""
        if on != self.failures_only:
            self.failures_only = on
            self.set_report(self._report)

    def set_report(self, report) -> None:
        """Show ``report`` (``None``: empty); with :attr:`failures_only`, only its failing rules."""
        self.beginResetModel()
        self._report = report
        self._groups = []
        if report is not None:
            rc = report.root_cause
            if rc is not None:
                sec = _Node(None, 0, "Root cause", root_section=True)
                sec.children.append(_Node(sec, 0, finding=rc))
                self._groups.append(sec)
            order = []
            by_group: dict[str, list[Finding]] = {}
            for f in report.findings:
                if self.failures_only and f.verdict is not Verdict.FAIL:
                    continue
                if f.rule.group not in by_group:
                    order.append(f.rule.group)
                by_group.setdefault(f.rule.group, []).append(f)
            rank = list(GROUP_TITLES)
            order.sort(key=lambda g: rank.index(g) if g in rank else len(rank))
            for g in order:
                node = _Node(None, len(self._groups), GROUP_TITLES.get(g, g))
                node.children = [_Node(node, i, finding=f) for i, f in enumerate(by_group[g])]
                self._groups.append(node)
        self.endResetModel()

    @property
    def report(self):
        return self._report

    # -- Qt API -------------------------------------------------------------------------------
    def index(self, row, column, parent=QModelIndex()):
        if column < 0 or column >= len(self.COLUMNS) or row < 0:
            return QModelIndex()
        if not parent.isValid():
            if row >= len(self._groups):
                return QModelIndex()
            return self.createIndex(row, column, self._groups[row])
        node: _Node = parent.internalPointer()
        if parent.column() != 0 or row >= len(node.children):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index=QModelIndex()):
        if not index.isValid():
            return QModelIndex()
        node: _Node = index.internalPointer()
        if node.parent is None:
            return QModelIndex()
        return self.createIndex(node.parent.row, 0, node.parent)

    def rowCount(self, parent=QModelIndex()):
        if not parent.isValid():
            return len(self._groups)
        if parent.column() != 0:
            return 0
        return len(parent.internalPointer().children)

    def columnCount(self, parent=QModelIndex()):
        return len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def _label(self, f: Finding) -> str:
        return style.relation_label(f, self._report)

    def data(self, index, role=_DISPLAY):
        # Views ask for many roles per cell while painting: answer with int comparisons and leave
        # early for roles this model does not provide (enum comparisons cost ~10x more per call).
        role = int(role)
        if role not in _ROLES or not index.isValid():
            return None
        node: _Node = index.internalPointer()
        col = index.column()
        f = node.finding
        if f is None:  # group row
            if role == _DISPLAY:
                # Group rows span all columns in the view (setFirstColumnSpanned).
                if col == 0 and node.is_root_section:
                    return node.title
                if col == 0:
                    return f"{node.title} — {self._counts(node)}"
                return None
            if role == _FONT:
                from PySide6.QtGui import QFont

                font = QFont()
                font.setBold(True)
                return font
            if role == VerdictRole:
                return self._group_verdict(node)
            if role == _DECORATION and col == 0:
                v = self._group_verdict(node)
                return style.icon(v)
            if role == _ACCESSIBLE:  # each cell its own words
                if col == 0:
                    return f"{node.title}: {self._counts(node)}"
                return f"{node.title}: worst verdict {style.label(self._group_verdict(node))}" if col == 1 else \
                    f"{node.title}: {self.rowCount(index.siblingAtColumn(0))} rules, expand to list them"
            return None
        if role == _DISPLAY:
            if col == 0:
                return self._label(f)
            if col == 1:
                return f.rule.id
            if f.failed:
                return visible(f.message)  # (the reference's message may quote the file: the one escaping)
            if f.verdict is Verdict.NOT_REACHED:
                return f"{f.rule.title} — not reached: {f.blocked_by} failed first"
            if f.verdict in (Verdict.NOT_APPLICABLE, Verdict.NOT_EVALUATED):
                return visible(f"{f.rule.title} — {f.detail}")
            return f.rule.title
        if role == _DECORATION and col == 0:
            return style.icon(f.verdict)
        if role == _FOREGROUND and col in (0, 1):
            return style.colour(f.verdict)
        if role == _TOOLTIP:
            return visible(self._tooltip(f), lines=True)
        if role == _ACCESSIBLE:  # each cell its own words: verdict, rule, then what it says
            if col == 0:
                return f"{self._label(f)}: {f.rule.id}"
            if col == 1:
                return f"rule {f.rule.id}: {f.rule.title}"
            return f"{f.rule.id} says: {self.data(index, _DISPLAY)}"
        if role == LocationRole:
            return f.locations[0] if f.locations else None
        if role == VerdictRole:
            return f.verdict
        if role == RuleIdRole:
            return f.rule.id
        if role == ObjectRole:
            return f
        return None

    def _counts(self, node: _Node) -> str:
        counts: dict[str, int] = {}
        for c in node.children:
            w = style.label(c.finding.verdict)
            counts[w] = counts.get(w, 0) + 1
        order = ["FAIL", "PASS", "not reached", "n/a", "not evaluated"]
        return " · ".join(f"{counts[k]} {k}" for k in order if k in counts)

    def _group_verdict(self, node: _Node) -> Verdict:
        vs = [c.finding.verdict for c in node.children]
        if Verdict.FAIL in vs:
            return Verdict.FAIL
        if Verdict.NOT_REACHED in vs:
            return Verdict.NOT_REACHED
        if Verdict.PASS in vs:
            return Verdict.PASS
        return Verdict.NOT_APPLICABLE

    def _tooltip(self, f: Finding) -> str:
        lines = [f"{f.rule.id}: {f.rule.title}", f"verdict: {self._label(f)}"]
        if f.rule.code:
            lines.append(f"code: {f.rule.code}")
        lines.append(f"source: {f.rule.doc_ref}")
        return "\n".join(lines)

    # -- navigation -----------------------------------------------------------------------------
    def group_rows(self) -> int:
        """Number of top-level (group) rows, each meant to span the whole width."""
        return len(self._groups)

    def failure_indexes(self) -> list[QModelIndex]:
        """Indexes of failing findings: the root cause first, then the others in evaluation order."""
        out = []
        seen = set()
        for g in self._groups:
            for c in g.children:
                if c.finding.failed and id(c.finding) not in seen:
                    seen.add(id(c.finding))
                    out.append(self.createIndex(c.row, 0, c))
        return out

    def index_for_rule(self, rule_id: str) -> QModelIndex:
        """The row of ``rule_id`` (the root-cause row when it is the root cause)."""
        for g in self._groups:
            for c in g.children:
                if c.finding.rule.id == rule_id:
                    return self.createIndex(c.row, 0, c)
        return QModelIndex()

    def indexes_at(self, source: str, pointer: str) -> list[QModelIndex]:
        """Failing findings whose evidence is at ``pointer`` or inside it."""
        out = []
        for g in self._groups:
            for c in g.children:
                f = c.finding
                if not f.failed:
                    continue
                for loc in f.locations:
                    if loc.source == source and (loc.pointer == pointer or loc.pointer.startswith(pointer + "/")):
                        out.append(self.createIndex(c.row, 0, c))
                        break
        return out
