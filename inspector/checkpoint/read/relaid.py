"""The printings of a proven value that the fast readers accept besides the canonical one (FORMAT.md 3.1: serde
reads whitespace and key order away): pretty-printed with two-space indentation, sorted or in the file's own key
order, compact, CRLF line ends, one final newline. :func:`_same_layout` says whether a file is one of them for a value
the fast path read (``NotCanonical``), comparing it piece by piece without printing the whole value again;
:func:`layout_spans` gives such a file's container spans. Split from :mod:`.fastpath` along its job.
"""

from __future__ import annotations

from array import array
from functools import partial

from inspector.checkpoint.jsontext.canonical import _raw_token
from inspector.checkpoint.read.fastcheck import NotFast

__all__ = ["layout_spans"]


def _same_layout(value, data: bytes, spans: dict | None = None, big: int = 1 << 16) -> tuple[int, bool] | None:
    """``(orjson option, same offsets)`` when ``data`` is one of the printings :class:`NotCanonical`
    accepts for ``value``, else ``None``; ``same offsets``: no CR was dropped to compare, so byte
    offsets of that printing are offsets in ``data``. With ``spans`` and same offsets, the children
    of every container of at least ``big`` bytes are recorded as :func:`decode_fast` does for
    canonical files (left empty when this returns ``None``)."""
    import orjson

    text = data
    if b"\r" in data:
        text = data.replace(b"\r\n", b"\n")  # CR never occurs raw inside a JSON string
    pretty = b"\n" in text[: 1 << 16]
    options = ((orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2, 0) if pretty else (0,))
    same = text is data
    for opt in options:
        try:
            if _relaid_end(value, text, opt, spans if same else None, big) is not None:
                return opt, same
        except TypeError:  # orjson.JSONEncodeError: not printable as JSON (an integer over 64 bits)
            return None
        if spans:
            spans.clear()
    return None


def layout_spans(value, data: bytes, big: int = 1 << 16) -> dict | None:
    """The children of every container of at least ``big`` bytes of ``data``, in :func:`decode_fast`'s
    ``spans`` form, when ``data`` is one of the printings of ``value`` :class:`NotCanonical` accepts
    (pretty-printed or compact, sorted or in the file's own key order, one final newline) with that
    printing's own offsets; ``None`` otherwise (CRLF line ends, another layout, a value that is not the
    file's). For a payload already verified without an index (a front-end's trees after its verdicts):
    the printing is compared piece by piece, as the fast path does, so the spans are the file's."""
    if b"\r" in data:
        return None  # (a CR is never in one of these printings with its own offsets: no copy without them)
    spans: dict = {}
    try:
        found = _same_layout(value, data, spans, big)
    except NotFast:
        return None
    return spans if found is not None and found[1] and spans else None


def _relaid_end(value, text: bytes, opt: int, spans: dict | None, big: int) -> int | None:
    """Compare ``orjson.dumps(value, option=opt)`` with ``text`` piece by piece, without printing the
    whole value (``opt``: ``OPT_INDENT_2``, ``OPT_SORT_KEYS``, both or neither); return the end
    offset when ``text`` is that printing, maybe with one final ``\\n``, else ``None``.

    Large containers near the top are walked (explicit stack, no recursion per level); other values
    are printed on their own, their lines shifted by their depth's indentation, and compared with
    ``bytes.startswith``. With ``spans``, every container of at least ``big`` bytes is walked and
    its children's byte spans recorded, as :func:`_encoded_end` does (the root always)."""
    import orjson

    dumps = partial(orjson.dumps, default=_raw_token)  # a typed path's raw text slice: printed as it is
    indent = bool(opt & orjson.OPT_INDENT_2)
    ordered = bool(opt & orjson.OPT_SORT_KEYS)
    nl = b"\n" if indent else b""
    colon = b": " if indent else b":"
    sep = b"," + nl
    startswith = text.startswith
    rec = spans is not None

    def open_frame(v, pos, level):
        """The frame of container ``v`` starting at ``pos``, or its end offset when it is empty."""
        obj = type(v) is dict
        if not v:
            if not startswith(b"{}" if obj else b"[]", pos):
                return None
            if rec and (2 >= big or level == 0):
                spans[pos] = ("object" if obj else "array", pos + 2, array("q"), array("q"),
                              array("q") if obj else None, [] if obj else None)
            return pos + 2
        if not startswith((b"{" if obj else b"[") + nl, pos):
            return None
        items = (sorted(v.items()) if ordered else list(v.items())) if obj else v
        pad = b" " * ((level + 1) * 2) if indent else b""
        return [items, 0, level, pos, pos + 1 + len(nl), obj, pad,
                array("q"), array("q"), array("q") if obj else None, [] if obj else None]

    root = open_frame(value, 0, 0) if type(value) in (dict, list) else None
    if root is None:
        if type(value) in (dict, list):
            return None
        enc = dumps(value, option=opt)
        return len(enc) if startswith(enc, 0) and text[len(enc):] in (b"", b"\n") else None
    if type(root) is int:
        return root if text[root:] in (b"", b"\n") else None
    stack = [root]
    end = None
    while stack:
        frame = stack[-1]
        items, i, level, start, pos, obj, pad, starts, ends, key_starts, keys = frame
        if end is not None:  # a child container just closed at ``end``
            pos = end
            ends.append(pos)
            end = None
        if i == len(items):  # close this container
            close = (nl + b" " * (level * 2) if indent else b"") + (b"}" if obj else b"]")
            if not startswith(close, pos):
                return None
            pos += len(close)
            stack.pop()
            if rec and (pos - start >= big or level == 0):
                spans[start] = ("object" if obj else "array", pos, starts, ends, key_starts, keys)
            end = pos
            continue
        if i:
            if not startswith(sep, pos):
                return None
            pos += len(sep)
        if pad:
            if not startswith(pad, pos):
                return None
            pos += len(pad)
        if obj:
            k, x = items[i]
            kb = dumps(k) + colon
            if not startswith(kb, pos):
                return None
            if rec:
                key_starts.append(pos)
                keys.append(k)
            pos += len(kb)
        else:
            x = items[i]
        frame[1] = i + 1
        if rec:
            starts.append(pos)
        tx = type(x)
        walk = (tx is dict or tx is list) and (level < 2 or len(x) > 16)
        if not walk:
            enc = dumps(x, option=opt)
            if indent and (tx is dict or tx is list) and x:
                enc = enc.replace(b"\n", b"\n" + pad)
            if not startswith(enc, pos):
                return None
            walk = rec and (tx is dict or tx is list) and len(enc) >= big  # large: record its children
        if walk:
            child = open_frame(x, pos, level + 1)
            if child is None:
                return None
            frame[4] = pos
            if type(child) is int:
                end = child
            else:
                stack.append(child)
            continue
        pos += len(enc)
        if rec:
            ends.append(pos)
        frame[4] = pos
    return end if text[end:] in (b"", b"\n") else None
