"""The span index of a compact document at C speed (:func:`fast_index`): orjson parses it and the children's
boundaries follow from the encoded length of each child, each checked against the bytes; anything the arithmetic
cannot vouch for is indexed by :func:`.lazyjson.build_index`'s tokenizer. Split from :mod:`.lazyjson` along its
job (a front-end's tree index of a canonical payload, ``session.workers``).
"""

from __future__ import annotations

from array import array

import orjson

from inspector.checkpoint.jsontext.lazyjson import BIG, build_index, value_span
from inspector.checkpoint.jsontext.spanindex import SpanIndex

__all__ = ["fast_index"]


def fast_index(data: bytes, *, big: int = BIG, progress=None) -> SpanIndex:
    """:func:`build_index` for compact documents such as canonical payloads, several times faster.

    Parses with orjson and derives child boundaries of large containers from the encoded
    length of each child (orjson re-encodes compactly, in file key order), then checks every
    boundary against the bytes (``:`` before a value, ``,`` or the closing bracket after it,
    ``"`` at each key, the container's total length). Any disagreement (whitespace, escapes
    spelled differently, duplicate keys, numbers orjson rejects or re-spells) falls back to the
    exact tokenizer, so the result is always :func:`build_index`'s.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return build_index(data, big=big, progress=progress)
    start, end = value_span(data)
    index = SpanIndex(big=big)
    try:
        ok = _arith_all(data, value, start, end, big, index, progress)
    except (TypeError, orjson.JSONEncodeError, IndexError):
        ok = False
    if not ok:
        return build_index(data, big=big, progress=progress)
    return index.freeze()


def _arith_all(data, value, start, end, big, index, progress) -> bool:
    """:func:`_arith` over every large container, with an explicit stack (no recursion per level)."""
    total = max(end - start, 1)
    todo = [(value, start, end)]
    while todo:
        value, s, e = todo.pop()
        more = _arith(data, value, s, e, big, index)
        if more is None:
            return False
        todo.extend(reversed(more))
        if progress is not None and e - s >= big * 64:
            progress(min(total, s), total)
    return True


def _arith(data, value, s, e, big, index):
    """Check and record the children of one container; returns its large child containers
    (value, start, end) to visit next, or None when the bytes disagree."""
    obj = isinstance(value, dict)
    if not obj and not isinstance(value, list):
        return []
    items = list(value.items()) if obj else value
    n = len(items)
    starts, ends = array("q"), array("q")
    key_starts = array("q") if obj else None
    keys = [] if obj else None
    dumps = orjson.dumps
    closer = 0x7D if obj else 0x5D
    pos = s + 1
    todo = []
    for i in range(n):
        if obj:
            k, child = items[i]
            if data[pos] != 0x22:
                return None
            key_starts.append(pos)
            keys.append(k)
            pos += len(dumps(k))
            if data[pos] != 0x3A:
                return None
            pos += 1
        else:
            child = items[i]
        cs = pos
        # Every child, the last one included, is measured by its compact encoding: taking
        # "just before the closing bracket" for the last one would swallow whitespace around
        # it ("[1,2 ]", '"b": 5}'). The last child must then end exactly at the bracket.
        ce = cs + len(dumps(child))
        if i == n - 1:
            if ce != e - 1 or data[ce] != closer:
                return None
        elif data[ce] != 0x2C:
            return None
        starts.append(cs)
        ends.append(ce)
        if ce - cs >= big and isinstance(child, (dict, list)):
            todo.append((child, cs, ce))
        pos = ce + 1
    if n == 0 and data[s + 1] != closer:
        return None
    if pos != e and not (n == 0 and s + 2 == e):
        return None
    if e - s >= big and n >= 2:  # as build_index: containers of at least ``big`` bytes, two children or more
        index.add(s, "object" if obj else "array", starts, ends, key_starts, keys)
    return todo
