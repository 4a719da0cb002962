"""The byte-span tree of a parsed JSON document: where each value's bytes are (FORMAT.md 3.1).

:func:`.reader.parse_value` (``nodes=True``) builds it while it reads, so every span comes from the walk
that decided the value (as Wireshark's dissectors add each field with the offset and length they walked).
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

from dataclasses import dataclass, field

__all__ = ["Node"]


@dataclass(eq=False)
class Node:
    """One JSON value in a parsed document with its byte span.

    ``start``/``end`` are half-open byte offsets into the file. ``kind`` is one of
    ``object``, ``array``, ``string``, ``number``, ``bool``, ``null``. For objects,
    ``children`` is a list of ``(key, key_start, node)`` in file order (duplicates kept);
    for arrays a list of ``(index, None, node)``. ``value`` holds the scalar value.
    """

    kind: str
    start: int
    end: int = 0
    value: object = None
    children: list = field(default_factory=list)

    def child(self, key):
        """Return the child node for an object key (last duplicate wins) or array index."""
        found = None
        for k, _ks, node in self.children:
            if k == key:
                found = node
        return found

    def find(self, pointer: str) -> "Node | None":
        """Resolve an RFC 6901 JSON Pointer below this node; ``None`` when absent."""
        node = self
        if pointer in ("", "/"):
            return node
        for raw in pointer.lstrip("/").split("/"):
            token = unescape_token(raw)
            if node.kind == "array":
                if not (token.isascii() and token.isdigit()) or int(token) >= len(node.children):  # ("²".isdigit())
                    return None
                node = node.children[int(token)][2]
            elif node.kind == "object":
                node = node.child(token)
                if node is None:
                    return None
            else:
                return None
        return node
