"""Where a change sits in a checkpoint file, and how its values are shown (for :mod:`.compare`).

:func:`locate` gives byte spans of JSON Pointers in the file (arithmetic on encoded lengths
for a canonical file, a span tree otherwise); :func:`dump_json` and :func:`preview` write
values compactly at any nesting depth (explicit stack, no recursion per level);
:func:`value_text` shows a value as the file spells it (``1.0e2 (= 100.0)``), the one text the
CLI's ``diff`` and the comparison window both print.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

import orjson

from inspector.checkpoint.jsontext.canonical import encode

__all__ = ["dump_json", "locate", "preview", "value_text", "compact_spelling"]


def dump_json(value) -> bytes:
    """Compact JSON of ``value`` with sorted keys, at any nesting depth (orjson's encoder stops
    at 254 levels; deeper values are written by an explicit-stack encoder)."""
    try:
        return encode(value)
    except (orjson.JSONEncodeError, RecursionError):
        pass
    out: list[bytes] = []
    stack: list = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bytes):  # a literal piece pushed below
            out.append(v)
        elif isinstance(v, dict):
            out.append(b"{")
            stack.append(b"}")
            items = sorted(v.items())
            for n, (k, x) in enumerate(reversed(items)):
                stack.append(x)
                stack.append(orjson.dumps(k) + b":")
                if n < len(items) - 1:
                    stack.append(b",")
        elif isinstance(v, list):
            out.append(b"[")
            stack.append(b"]")
            for n, x in enumerate(reversed(v)):
                stack.append(x)
                if n < len(v) - 1:
                    stack.append(b",")
        else:
            out.append(encode(v))
    return b"".join(out)


#: Above this size only canonical files are located (a span tree costs ~60x the file).
_LOCATE_TREE_LIMIT = 32 << 20


def locate(data: bytes, value, pointers: list[str], canonical_count: int | None = None) -> dict[str, tuple[int, int, bool]]:
    """Byte spans of ``pointers`` in the file ``data`` whose parsed value is ``value`` (in a canonical file
    only of the first ``canonical_count`` of them, when given: each costs an encoding of its value).

    Returns:
        ``{pointer: (start, end, canonical)}`` (``end`` exclusive; ``canonical`` tells that the
        file is exactly canonical JSON, so a string's text is ``encode(string)``); pointers not
        found, or every pointer when the file is large and not canonical, are left out.
    """
    from inspector.checkpoint.jsontext.reader import SerdeError, parse_value

    out: dict[str, tuple[int, int, bool]] = {}
    try:
        canonical = encode(value) == data
    except (orjson.JSONEncodeError, RecursionError, TypeError):
        canonical = False
    if canonical:
        offsets: dict[int, tuple] = {}  # id(container) -> child start offsets, relative to it
        for p in pointers[:canonical_count]:
            span = _span_in_canonical(value, p, offsets)
            if span is not None:
                out[p] = (span[0], span[1], True)
        return out
    if len(data) > _LOCATE_TREE_LIMIT:
        return out
    try:
        tree = parse_value(data, nodes=True)[1]
    except SerdeError:
        return out
    for p in pointers:
        node = tree.find(p)
        if node is not None:
            out[p] = (node.start, node.end, False)
    return out


def _span_in_canonical(value, pointer: str, offsets: dict) -> tuple[int, int] | None:
    """Span of ``pointer`` in ``encode(value)``, by arithmetic on encoded lengths; each container
    on the way has its children's offsets computed once (``offsets``, shared between calls), so
    many pointers cost about one encoding of the containers they pass through."""
    start, node = 0, value
    for raw in (pointer.split("/")[1:] if pointer else []):
        token = unescape_token(raw)
        if isinstance(node, dict):
            if token not in node:
                return None
            key = token
        elif isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                return None
            key = int(token)
        else:
            return None
        table = offsets.get(id(node))
        if table is None:
            table = offsets[id(node)] = (node, _child_offsets(node))  # keep node alive: its id stays unique
        start += table[1][key]
        node = node[key]
    return start, start + len(encode(node))


def _child_offsets(node) -> dict:
    """Offset of each child's value inside ``encode(node)`` (keys for objects, indices for arrays)."""
    out = {}
    pos = 1
    if isinstance(node, dict):
        for k in sorted(node):
            pos += len(orjson.dumps(k)) + 1
            out[k] = pos
            pos += len(encode(node[k])) + 1
    else:
        for i, item in enumerate(node):
            out[i] = pos
            pos += len(encode(item)) + 1
    return out


def preview(value, limit: int = 100) -> str:
    """Compact JSON of ``value`` cut to ``limit`` characters (``…`` marks the cut)."""
    text = dump_json(value).decode("utf-8", "replace")
    return text if len(text) <= limit else text[: limit - 1] + "…"



#: At most this many bytes of a value's spelling are read to show it (whitespace beyond is not walked).
_SPELLING_SCAN = 1 << 16
_WS = frozenset(b" \t\n\r")


def compact_spelling(raw: bytes, limit: int = 100, more: bool = False) -> str:
    """The JSON text ``raw`` (one value, as the file writes it) without the whitespace between its
    tokens, cut to ``limit`` characters (``…`` marks the cut; ``more``: ``raw`` is only the start of the
    value, so the text is cut in any case)."""
    out = bytearray()
    in_string = escaped = False
    cap = 4 * limit + 4  # bytes: ``limit`` characters are at most 4 bytes each in UTF-8
    for byte in raw:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte in _WS:
            continue
        else:
            out.append(byte)
            if byte == 0x22:
                in_string = True
        if len(out) > cap:
            more = True
            break
    text = bytes(out).decode("utf-8", "replace")
    return text[: limit - 1] + "…" if more or len(text) > limit else text


def value_text(value, data: bytes | None = None, span: tuple | None = None, limit: int = 100) -> str:
    """``value`` as the file ``data`` spells it at ``span`` (``(start, end, canonical)`` from :func:`locate`),
    then `` (= decoded)`` when the decoded value is written differently (a number or string spelled
    otherwise than the reference writes it: ``1.0e2 (= 100.0)``, ``-0 (= -0.0)``, ``"\\u00e9" (= "é")``).

    An object or array shows its spelling alone (whitespace between tokens dropped): its decoded form
    would differ by key order in most files and repeat the value. Without a span, or in a canonical
    file (whose spelling is the decoded value's), this is :func:`preview`. Each part is cut to ``limit``
    characters; at most :data:`_SPELLING_SCAN` bytes of the file are read.
    """
    if span is None or data is None or span[2]:
        return preview(value, limit)
    start, end = span[0], span[1]
    spelled = compact_spelling(data[start:min(end, start + _SPELLING_SCAN)], limit, end - start > _SPELLING_SCAN)
    if isinstance(value, (dict, list)):
        return spelled
    decoded = preview(value, limit)
    return spelled if spelled == decoded else f"{spelled} (= {decoded})"
