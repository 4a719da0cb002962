"""The rows of :class:`~inspector.gui.models.json_tree.JsonTreeModel`: one :class:`TreeItem` per shown
JSON value (or range of values), and RFC 6901 escaping of pointer tokens."""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

__all__ = ["TreeItem", "escape_token", "release", "human_size"]


def human_size(n: int) -> str:
    """``141.6 MiB`` for a byte count."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def escape_token(key) -> str:
    """RFC 6901 escaping of one pointer token."""
    return escape_pointer_token(key)


class TreeItem:
    """One row: a JSON value with its key, kind, byte span and (once fetched) children."""

    __slots__ = ("parent", "row", "key", "key_start", "start", "end", "kind", "pointer", "children", "infos",
                 "_cache", "nonempty", "pos", "scan", "lo", "hi", "step")

    def __init__(self, parent, row, key, key_start, start, end, kind, pointer, pos=0):
        self.parent = parent
        self.row = row
        self.key = key
        self.key_start = key_start
        self.start = start
        self.end = end
        self.kind = kind
        self.pointer = pointer
        self.children: list[TreeItem] = []
        self.infos = None
        self._cache = None
        self.nonempty = None
        self.pos = pos  # position among the parent's children in the file (the root's may be filtered)
        self.scan = 0  # how many child slots were made (children are made in file order)
        # The positions [lo, hi) of the container's children this row holds, ``step`` positions
        # per child row: 1 for real children, 1000**k for range rows ("[1000 … 1999]").
        self.lo = 0
        self.hi = None
        self.step = None

    @property
    def is_container(self) -> bool:
        """True for an object, an array or a range row (a row with children)."""
        return self.kind in ("object", "array", "range")


def release(root: TreeItem | None) -> None:
    """Break the parent/child links of a tree being dropped, so reference counting frees its rows
    at once (no collector pass over 100,000s of rows later); an explicit stack, any depth."""
    stack = [root] if root is not None else []
    while stack:
        item = stack.pop()
        stack.extend(item.children)
        item.children = []
        item.parent = None
