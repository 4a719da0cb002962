"""What a comparison (:class:`.compare.Comparison`) shows besides its change list: the RFC 6902 JSON Patch from A to
B, where each change sits in the two files, and each side's value as its file spells it (the comparison
window and ``diff`` say the same)."""

from __future__ import annotations

from inspector.checkpoint.analysis.compare import MISSING, Change, Comparison
from inspector.checkpoint.analysis.compare_text import locate, value_text

__all__ = ["to_patch", "locate_changes", "change_texts"]


def to_patch(comparison: Comparison) -> list[dict]:
    """The RFC 6902 JSON Patch that turns A's value into B's.

    Operations are the changes in reverse document order, so every array index refers to the
    array as it still is when the operation runs (later elements are handled first). ``add``
    for an added member or element, ``remove``, ``replace`` for a changed value (the root
    included: path ``""``). Pointers escape ``~`` as ``~0`` and ``/`` as ``~1``.

    Returns:
        a list of operation objects (``op``, ``path`` and, for add/replace, ``value``).
    """
    ops = []
    for c in reversed(comparison.changes):
        if c.op == "removed":
            ops.append({"op": "remove", "path": c.patch_path})
        elif c.op == "added":
            ops.append({"op": "add", "path": c.patch_path, "value": c.new})
        else:
            ops.append({"op": "replace", "path": c.patch_path, "value": c.new})
    return ops


def locate_changes(comparison: Comparison, a: bytes, b: bytes, count: int | None = None,
                   canonical_count: int | None = None) -> tuple[dict, dict]:
    """Byte spans, in the files ``a`` and ``b`` compared, of the pointers of the first ``count`` changes
    (all when ``None``), in a canonical file of the first ``canonical_count`` of them only (where the spelling
    is the decoded value's, a span only says where; each costs an encoding): ``({A pointer: (start, end,
    canonical)}, {B pointer: ...})`` as :func:`.compare_text.locate` gives them (a pointer not found is
    left out)."""
    shown = comparison.changes[:count]
    return tuple(locate(data, value, [p for p in (getattr(ch, attr) for ch in shown) if p is not None],
                        canonical_count)
                 for data, value, attr in zip((a, b), comparison.values, ("old_pointer", "new_pointer")))


def change_texts(change: Change, spans: tuple[dict, dict], a: bytes, b: bytes, limit: int = 100) -> tuple[str, str]:
    """``(A text, B text)`` of ``change``: each side's value as its file spells it, with the decoded value
    when that is written differently (:func:`.compare_text.value_text`: ``1.0e2 (= 100.0)``), or ``""``
    for a side without the value. ``spans``: from :func:`locate_changes`; ``a``, ``b``: the file bytes;
    each part is cut to ``limit`` characters. The CLI's ``diff`` and the comparison window show these."""
    out = []
    for value, pointer, spans_of, data in ((change.old, change.old_pointer, spans[0], a),
                                           (change.new, change.new_pointer, spans[1], b)):
        out.append("" if value is MISSING else value_text(value, data, spans_of.get(pointer), limit))
    return out[0], out[1]
