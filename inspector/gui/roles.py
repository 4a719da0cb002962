"""Custom item-data roles shared by the models and the widgets (the only contract between them)."""

from __future__ import annotations

from PySide6.QtCore import Qt

_BASE = int(Qt.ItemDataRole.UserRole)

#: :class:`inspector.checkpoint.Location` of the item (source, JSON Pointer, byte span or None).
LocationRole = _BASE + 1
#: The item's :class:`inspector.checkpoint.Verdict` (findings) or worst verdict marker (trees).
VerdictRole = _BASE + 2
#: Rule id string (findings).
RuleIdRole = _BASE + 3
#: JSON Pointer string of a tree item.
PointerRole = _BASE + 4
#: ``(start, end)`` byte span of a tree item (half-open).
SpanRole = _BASE + 5
#: The full value as text for copying (JSON text for containers/numbers, the string itself for strings).
CopyValueRole = _BASE + 6
#: The :class:`inspector.checkpoint.Finding` or :class:`inspector.checkpoint.DigestRow` object.
ObjectRole = _BASE + 7
#: JSON kind of a tree item (object/array/string/number/bool/null).
KindRole = _BASE + 8

#: Qt's standard roles as ints: models compare ``int(role)`` with these while painting (cheaper
#: than comparing enum members, and a ``frozenset`` of them lets ``data()`` leave at once).
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
EDIT = int(Qt.ItemDataRole.EditRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
DECORATION = int(Qt.ItemDataRole.DecorationRole)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
ACCESSIBLE = int(Qt.ItemDataRole.AccessibleTextRole)
FONT = int(Qt.ItemDataRole.FontRole)
