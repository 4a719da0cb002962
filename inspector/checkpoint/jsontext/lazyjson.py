"""Byte-span index of a JSON document for lazily loaded trees and the rules' locations (no Qt; importable in a child
process; the engine's text floor: it imports only ``jsontext`` and orjson/msgspec).

Why not the engine's ``parse_value(nodes=True)``: it is exact but pure Python (1-3 MB/s) and
builds every node up front, which is too slow for a 256 MiB payload. The trees only need,
for the container being expanded, where each child starts and ends. This module finds that
with one regular-expression tokenizer that jumps over whole strings in C:

* :func:`build_index` makes one pass over a document and keeps the child boundaries of
  every *large* container (at least ``big`` bytes), so expanding one never rescans it;
* :func:`scan_children` finds the children of a *small* container on demand (microseconds).

Spans are half-open byte offsets into the file, identical to the engine's
:class:`~inspector.checkpoint.Node` spans (``tests/checkpoint/jsontext/test_lazyjson.py`` proves it on every
case file). The tokenizer assumes the document is JSON the engine accepted; on malformed
input it raises :class:`ScanError` rather than guessing.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

import re
from array import array

import orjson

from inspector.checkpoint.jsontext.spanindex import INDEX_BIG, Children, SpanIndex

__all__ = ["ScanError", "Children", "SpanIndex", "SpanWalk", "build_index", "scan_children", "children_of",
           "canonical_children", "lone_child", "find_span", "kind_at", "decode_key", "BIG"]

#: Containers at least this many bytes long get their children recorded by :func:`build_index`: the engine's
#: threshold (``spanindex.INDEX_BIG``, which the read door records by), so an index from the verifier's read and one
#: from this scan are alike.
BIG = INDEX_BIG

# One token after optional whitespace: a whole string (unrolled loop, fast in C), one
# structural character, or a bare scalar (number, true, false, null).
_TOKEN = re.compile(
    rb'[ \t\n\r]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([\[\]{},:])|([^ \t\n\r\[\]{},:"]+))', re.S)
_WS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_KIND = {ord("{"): "object", ord("["): "array", ord('"'): "string", ord("t"): "bool", ord("f"): "bool",
         ord("n"): "null"}


class ScanError(ValueError):
    """The bytes are not well-formed JSON at byte ``offset`` (``args[0]`` says what was found)."""

    def __init__(self, message: str, offset: int):
        super().__init__(f"{message} at byte {offset}")
        self.message = message
        self.offset = offset

    def __reduce__(self):  # sent back from a child process (workers.child_index / child_analyse)
        return ScanError, (self.message, self.offset)


def kind_at(data: bytes, start: int) -> str:
    """JSON kind of the value starting at byte ``start``: object/array/string/number/bool/null."""
    return _KIND.get(data[start], "number") if start < len(data) else "null"


def decode_key(token: bytes) -> str:
    """Decode one JSON string token (quotes included) to ``str``; raw text when it does not decode."""
    try:
        return orjson.loads(token)
    except orjson.JSONDecodeError:
        return token[1:-1].decode("utf-8", "replace")


def value_span(data: bytes) -> tuple[int, int]:
    """Span of the top-level value (leading/trailing JSON whitespace excluded)."""
    start = _WS.match(data).end()
    end = len(data)
    while end > start and data[end - 1] in b" \t\n\r":
        end -= 1
    return start, end


def tokens(data: bytes, start: int, end: int, progress=None, cancel=None, every: int = 0x3FFF):
    """Each token of ``data[start:end]`` as a match (group 1: string, 2: structural character,
    3: bare scalar), checking ``cancel()`` (``InterruptedError``) and calling
    ``progress(done_bytes, total_bytes)`` every ``every + 1`` tokens.

    Raises:
        ScanError: a byte no token can start with.
    """
    match = _TOKEN.match
    pos = start
    tick = 0
    while pos < end:
        m = match(data, pos, end)
        if m is None or m.end() == m.start() or m.lastindex is None:
            rest = _WS.match(data, pos, end).end()
            if rest >= end:
                return
            raise ScanError("unexpected byte", rest)
        pos = m.end()
        tick += 1
        if tick & every == 0:
            if cancel is not None and cancel():
                raise InterruptedError("cancelled")
            if progress is not None:
                progress(pos - start, end - start)
        yield m


def _scan(data: bytes, start: int, end: int, big: int, record_top: bool, progress=None, cancel=None):
    """Tokenize ``data[start:end]`` (one JSON value) keeping the children of containers >= ``big`` bytes that
    have two children or more (:class:`SpanIndex`).

    Returns ``(index, top)``: ``index`` a :class:`SpanIndex` (container start offsets to :class:`Children`);
    ``top`` the :class:`Children` of the value at ``start`` when ``record_top`` (else None).

    The open containers are kept flat, a few numbers each, not an object per level: ``opens`` holds each
    open container's start, ``marks`` where its children begin in the *pending* pools (the spans and key
    starts of the children read so far of every open container, in order). A child container joins its
    parent's pending children when it closes, with its span whole, so an open one costs nothing there. A
    document nested a million levels deep held 339 MiB in per-level frames; this holds 8 bytes a level
    (arrays; 16 for objects) while it is read (``benchmarks/README.md``).
    """
    index = SpanIndex(big=big)
    opens = array("i")  # per open container, outermost first: its start
    marks = array("i")  # the same: where its children begin in the pending pools
    kmarks = array("i")  # per open object: where its children's key starts begin in ``p_keys``
    p_starts, p_ends = array("i"), array("i")  # pending children's spans (a container's once it closed)
    p_keys = array("i")  # pending object members' key starts (their opening quote)
    in_obj = expect_key = False
    key_start = -1
    top = None
    for m in tokens(data, start, end, progress, cancel):
        g = m.lastindex
        if g == 2:
            pos = m.start(2)
            c = data[pos]
            if c == 0x7B or c == 0x5B:  # { [
                if in_obj:
                    key_start = _member_key(p_keys, key_start, pos)
                opens.append(pos)
                marks.append(len(p_starts))
                in_obj = expect_key = c == 0x7B
                if in_obj:
                    kmarks.append(len(p_keys))
            elif c == 0x7D or c == 0x5D:  # } ]
                if not marks:
                    raise ScanError("unbalanced closing bracket", pos)
                mark = marks.pop()
                s = opens.pop()
                if c - data[s] != 2:  # "}" closes "{", "]" closes "["
                    raise ScanError("mismatched closing bracket", pos)
                e = m.end(2)
                n = len(p_starts) - mark
                km = kmarks.pop() if in_obj else 0
                mine = record_top and s == start
                if mine or (n >= 2 and e - s >= big):
                    ch = _cut(data, in_obj, p_starts, p_ends, p_keys, mark, km)
                    if mine:
                        top = ch
                    if n >= 2 and e - s >= big:
                        index.add(s, ch.kind, ch.starts, ch.ends, ch.key_starts, ch.keys)
                del p_starts[mark:]
                del p_ends[mark:]
                if in_obj:
                    del p_keys[km:]
                if not marks:
                    break
                p_starts.append(s)  # now a whole child of its parent
                p_ends.append(e)
                in_obj = data[opens[-1]] == 0x7B
                expect_key = False
            elif c == 0x2C:  # ,
                if not marks:
                    raise ScanError("comma outside a container", pos)
                expect_key = in_obj
            # ':' needs no action: the key was recorded when read.
        else:
            s, e = m.span(g)
            if not marks:  # the value is one scalar
                break
            if expect_key and g == 1:
                expect_key = False
                key_start = s
                continue
            if in_obj:
                key_start = _member_key(p_keys, key_start, s)
            p_starts.append(s)
            p_ends.append(e)
    if marks:
        raise ScanError("document ends inside a container", end)
    return index.freeze(), top


def _member_key(p_keys: array, key_start: int, at: int) -> int:
    """Record the pending key (its opening quote at byte ``key_start``) of the member whose value starts at byte
    ``at``; returns -1, the next member's "no key yet". Raises :class:`ScanError` when the member has no key."""
    if key_start < 0:
        raise ScanError("object member without a key", at)
    p_keys.append(key_start)
    return -1


def _cut(data: bytes, obj: bool, p_starts: array, p_ends: array, p_keys: array, mark: int, km: int) -> Children:
    """The :class:`Children` of the container whose children are the pending entries from ``mark`` (keys from
    ``km``): spans as ``array('q')``, keys decoded from the bytes at their starts."""
    starts, ends = array("q", p_starts[mark:]), array("q", p_ends[mark:])
    if not obj:
        return Children("array", starts, ends)
    key_starts = array("q", p_keys[km:])
    match = _STRING.match
    keys = [decode_key(match(data, k).group()) for k in key_starts]
    return Children("object", starts, ends, key_starts, keys)


def build_index(data: bytes, *, big: int = BIG, progress=None, cancel=None) -> SpanIndex:
    """One pass over a whole document: children of every container of at least ``big`` bytes.

    Args:
        data: the file bytes (one JSON value, optional surrounding whitespace).
        big: size threshold in bytes.
        progress: optional ``callable(done_bytes, total_bytes)``, called every 65536 tokens.
        cancel: optional ``callable() -> bool``; when it returns True the scan stops.

    Returns:
        a :class:`SpanIndex`: ``container_start -> Children``.

    Raises:
        ScanError: the bytes are not well-formed JSON. InterruptedError: cancelled.
    """
    start, end = value_span(data)
    if start >= end:
        raise ScanError("empty document", start)
    return _scan(data, start, end, big, False, progress, cancel)[0]


def scan_children(data: bytes, start: int, end: int) -> Children:
    """Children of the container spanning ``data[start:end]`` (cost proportional to ``end - start``).

    Raises:
        ScanError: the span is not one well-formed JSON container.
    """
    if data[start] not in (0x7B, 0x5B):
        raise ScanError("not a container", start)
    _index, top = _scan(data, start, end, 1 << 62, True)
    if top is None:
        raise ScanError("container not closed", end)
    return top


def children_of(data: bytes, index: SpanIndex | None, start: int, end: int) -> Children:
    """Children of the container at ``start``: from ``index`` when recorded, else read from the bytes
    (:func:`quick_children`: at C speed when printed compactly, else scanned).

    Raises:
        ScanError: the span is not one well-formed JSON container.
    """
    if index is not None:
        ch = index.get(start)
        if ch is not None:
            return ch
        if index.big is not None and end - start >= index.big:  # not recorded: one child or none
            ch = lone_child(data, start, end)
            if ch is not None:
                return ch
    return quick_children(data, start, end)


def lone_child(data: bytes, start: int, end: int) -> Children | None:
    """Children of the container ``data[start:end]`` known to hold one child or none (a large container a
    :class:`SpanIndex` with ``big`` does not record): the child runs from the first token after the
    opening bracket (after the key and ``:``, in an object) to the last non-whitespace byte before the
    closing one. Cost: the whitespace and the key around the child, never the child itself.

    Returns ``None`` when the bytes there do not look so (then :func:`children_of` scans them): the
    brackets do not match, an object's member has no key, or the child's first and last bytes are not those
    of one value.
    """
    c = data[start]
    obj = c == 0x7B
    closer = end - 1
    if c not in (0x7B, 0x5B) or data[closer] != c + 2:
        return None
    pos = _WS.match(data, start + 1, closer).end()
    if pos == closer:  # empty
        return Children("object", array("q"), array("q"), array("q"), []) if obj else Children(
            "array", array("q"), array("q"))
    key_starts = keys = None
    if obj:
        m = _STRING.match(data, pos, closer)
        if m is None:
            return None
        key_starts, keys = array("q", [pos]), [decode_key(m.group())]
        pos = _WS.match(data, m.end(), closer).end()
        if data[pos] != 0x3A:
            return None
        pos = _WS.match(data, pos + 1, closer).end()
    ce = closer
    while ce > pos and data[ce - 1] in b" \t\n\r":
        ce -= 1
    first, last = data[pos], data[ce - 1]
    if first in (0x7B, 0x5B):
        if last != first + 2:
            return None
    elif first == 0x22:
        if last != 0x22 or ce - pos < 2:
            return None
    elif last in b",:]}[{\"" or first in b",:]}":
        return None
    return Children("object" if obj else "array", array("q", [pos]), array("q", [ce]), key_starts, keys)


def quick_children(data: bytes, start: int, end: int, on_deep=None) -> Children:
    """:func:`scan_children` of the container ``data[start:end]``, at C speed when it is printed compactly
    (no whitespace between tokens, keys spelled as orjson spells them: a canonical payload's containers):
    msgspec's raw slices of its children give their lengths, the offsets follow by arithmetic, and the
    result is used only when every child's bytes sit where the arithmetic puts them and the container
    ends where the file says. Anything else (whitespace, escaped keys, duplicate keys, which msgspec
    folds) is scanned (:func:`scan_children`: Python, cost proportional to ``end - start``). ``on_deep(start, end)``:
    what to do instead when the container nests deeper than msgspec reads (about a thousand levels), where a scan at
    every level of a walk down would cost the remaining bytes each time (:class:`SpanWalk` builds one flat index).

    Raises:
        ScanError: the span is not one well-formed JSON container (from :func:`scan_children`).
    """
    import msgspec

    piece = data[start:end]
    deep = False
    try:
        if piece[:1] == b"{":
            members = msgspec.json.decode(piece, type=dict[str, msgspec.Raw])
            keys, key_starts = list(members), array("q")
            raws = list(members.values())
        elif piece[:1] == b"[":
            keys = key_starts = None
            raws = msgspec.json.decode(piece, type=list[msgspec.Raw])
        else:
            raws = None
    except msgspec.DecodeError:
        raws = None
    except RecursionError:  # deeper than msgspec goes: the scanner has no limit
        raws, deep = None, True
    if deep and on_deep is not None:
        return on_deep(start, end)
    if raws is not None:
        starts, ends = array("q"), array("q")
        pos = 1
        for i, raw in enumerate(raws):
            if keys is not None:
                kb = orjson.dumps(keys[i]) + b":"
                if piece[pos:pos + len(kb)] != kb:
                    break
                key_starts.append(start + pos)
                pos += len(kb)
            raw = memoryview(raw)
            n = len(raw)
            if piece[pos:pos + n] != raw:
                break
            starts.append(start + pos)
            ends.append(start + pos + n)
            pos += n + 1
        else:
            if pos == len(piece) or (not raws and len(piece) == 2):
                return Children("object" if keys is not None else "array", starts, ends, key_starts, keys)
    return scan_children(data, start, end)


def find_span(data: bytes, index: SpanIndex | None, pointer: str) -> tuple[int, int] | None:
    """Span of an RFC 6901 pointer, or ``None`` when absent (last duplicate key wins, as in serde): one
    :class:`SpanWalk` over ``data``."""
    return SpanWalk(data, index).span(pointer)


#: The smallest container the flat index of a document nested deeper than msgspec reads records (bytes); smaller
#: ones nest fewer than msgspec's thousand levels, so their children are read at C speed.
_DEEP_BIG = 256


class SpanWalk:
    """Byte spans by JSON Pointer (RFC 6901) in one document the engine accepted (offsets into the file as read;
    FORMAT.md 6: a finding's location), for the rules' locations (``rules.context.Context.span``) and the window's trees alike.

    Each step reads a container's children once: from ``index`` when it records them, else from the bytes
    (:func:`children_of`), and remembers them, so many pointers below one array (two hundred lint locations in one
    run's events) cost that array one pass, not one each. ``canonical``: ``data`` is proven to be its own
    canonical printing (FORMAT.md 6.2: compact, keys sorted and unique); children are then read from msgspec's raw
    slices and placed by arithmetic without comparing each one with the bytes (:func:`canonical_children`).
    """

    def __init__(self, data: bytes, index: SpanIndex | None = None, canonical: bool = False) -> None:
        self.data, self.index, self.canonical = data, index, canonical
        self._seen: dict[int, Children] = {}
        self._keyed: dict[int, dict] = {}
        self._root: tuple[int, int] | None = None
        self._deep: SpanIndex | None = None

    def children(self, start: int, end: int) -> Children:
        """The :class:`Children` of the container spanning ``data[start:end]`` (bytes), remembered.

        Raises:
            ScanError: the span is not one well-formed JSON container.
        """
        ch = self._seen.get(start)
        if ch is None:
            ch = self.index.get(start) if self.index is not None else None
            if ch is None and self._deep is not None:  # below a container deeper than msgspec reads
                ch = self._deep.get(start)
            if ch is None:
                if self.canonical:
                    ch = canonical_children(self.data, start, end, self._deep_children)
                else:  # children_of, with the deep fallback
                    if self.index is not None and self.index.big is not None and end - start >= self.index.big:
                        ch = lone_child(self.data, start, end)  # not recorded: one child or none
                    if ch is None:
                        ch = quick_children(self.data, start, end, self._deep_children)
            self._seen[start] = ch
        return ch

    def _deep_children(self, start: int, end: int) -> Children:
        """Children of a container nested deeper than msgspec reads: from one flat index of the whole document
        (:func:`build_index`, every container of :data:`_DEEP_BIG` bytes or more; built once, at the first such
        container), so a walk down a chain a thousand levels deep reads the bytes once, not once a level."""
        if self._deep is None:
            self._deep = build_index(self.data, big=_DEEP_BIG)
        return children_of(self.data, self._deep, start, end)

    def span(self, pointer: str) -> tuple[int, int] | None:
        """Half-open byte span of ``pointer`` (RFC 6901; ``""`` or ``"/"`` is the whole value), or ``None`` when
        the document has no such value. Raises :class:`ScanError` on bytes that are not JSON."""
        if self._root is None:
            self._root = value_span(self.data)
        start, end = self._root
        if pointer in ("", "/"):
            return start, end
        data = self.data
        for raw in pointer.lstrip("/").split("/"):
            token = unescape_token(raw)
            if start >= end:  # (no value at all: empty or blank bytes)
                raise ScanError("no JSON value", start)
            if data[start] not in (0x7B, 0x5B):
                return None
            ch = self.children(start, end)
            if ch.kind == "array":
                if not (token.isascii() and token.isdigit()) or int(token) >= len(ch):
                    return None
                i = int(token)
            else:
                keyed = self._keyed.get(start)
                if keyed is None:
                    keyed = self._keyed[start] = {k: j for j, k in enumerate(ch.keys)}  # (the last duplicate)
                i = keyed.get(token)
                if i is None:
                    return None
            start, end = ch.starts[i], ch.ends[i]
        return start, end


def canonical_children(data: bytes, start: int, end: int, on_deep=None) -> Children:
    """Children of the container ``data[start:end]`` of a document proven canonical (FORMAT.md 6.2: no whitespace,
    keys sorted, unique and spelled as orjson spells them, one comma between members): msgspec's raw slices give
    each child's length (a C-speed skip, no copy of the bytes), the offsets follow by arithmetic. For any other
    document use :func:`children_of`, which checks every child against the bytes. ``on_deep``: as for
    :func:`quick_children`.

    Raises:
        ScanError: msgspec cannot read the span as one container (it was not canonical after all).
    """
    import msgspec
    from itertools import accumulate
    from operator import add

    piece = memoryview(data)[start:end]
    obj = data[start] == 0x7B
    try:
        if obj:
            members = msgspec.json.decode(piece, type=dict[str, msgspec.Raw])
            keys, raws = list(members), members.values()
        else:
            keys, raws = None, msgspec.json.decode(piece, type=list[msgspec.Raw])
    except msgspec.DecodeError:
        return children_of(data, None, start, end)
    except RecursionError:
        return on_deep(start, end) if on_deep is not None else children_of(data, None, start, end)
    if not obj:
        starts = array("q", accumulate([len(r) + 1 for r in raws][:-1], initial=start + 1)) if raws else array("q")
        return Children("array", starts, array("q", map(add, starts, map(len, raws))))
    key_starts, starts, ends = array("q"), array("q"), array("q")
    pos = start + 1
    dumps = orjson.dumps
    for k, r in zip(keys, raws):
        key_starts.append(pos)
        pos += len(dumps(k)) + 1
        starts.append(pos)
        pos += len(r)
        ends.append(pos)
        pos += 1
    return Children("object", starts, ends, key_starts, keys)


def load_value(data: bytes, start: int, end: int, limit: int = 1 << 20):
    """The JSON value at ``data[start:end]`` via orjson, or ``None`` when larger than ``limit`` bytes
    or not decodable (display only; verdicts always come from the engine)."""
    if end - start > limit:
        return None
    try:
        return orjson.loads(data[start:end])
    except orjson.JSONDecodeError:
        return None
