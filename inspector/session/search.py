"""Find in a whole document (no Qt; runs on a worker thread): every key or value containing a text.

The search reads the file's bytes with the same tokenizer as :mod:`.lazyjson`, so it covers
every node, also those no tree has loaded, at any size and any depth: the path to the current
value is an explicit stack, never Python recursion. A member matches when its key or its value
contains the text, case-insensitively; strings are compared decoded (escapes resolved), other
scalars as written in the file.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

from array import array

import orjson

from inspector.checkpoint.jsontext.lazyjson import ScanError, tokens, value_span

__all__ = ["search_document", "MAX_MATCHES", "MAX_POINTER_CHARS"]

#: A search stops collecting after this many matches (and says so).
MAX_MATCHES = 100_000

#: A search also stops once its matches' pointers add up to this many characters (and says so): in a chain
#: of containers a million deep where every level matches, each match's pointer is as long as its depth.
MAX_POINTER_CHARS = 16 << 20


def _escape(token: str) -> str:
    return escape_pointer_token(token)


class _Needle:
    """Case-insensitive containment test on JSON tokens (bytes, quotes included for strings)."""

    def __init__(self, text: str):
        self.text = text.casefold()
        self.ascii = self.text.isascii()
        self.raw = self.text.encode("ascii") if self.ascii else None

    def in_token(self, token: bytes, is_string: bool) -> bool:
        if self.ascii and (not is_string or b"\\" not in token):
            # ASCII needle, no escapes: a lower-cased byte search decides (non-ASCII bytes
            # cannot casefold into the ASCII needle, apart from a few compatibility letters).
            if token.isascii():
                return self.raw in token.lower()
        if is_string:
            try:
                value = orjson.loads(token)
            except orjson.JSONDecodeError:
                value = token[1:-1].decode("utf-8", "replace")
        else:
            value = token.decode("utf-8", "replace")
        return self.text in value.casefold()

    def key_text(self, token: bytes) -> str:
        try:
            return orjson.loads(token)
        except orjson.JSONDecodeError:
            return token[1:-1].decode("utf-8", "replace")


def search_document(data: bytes, text: str, *, limit: int = MAX_MATCHES, cancel=None,
                    progress=None) -> tuple[list[tuple[str, int, int]], bool]:
    """Every member or element of ``data`` (one JSON document) whose key or value contains ``text``.

    Args:
        data: the file's bytes (at most 2 GiB: offsets are held as 32-bit integers).
        text: what to look for (case-insensitive; empty finds nothing).
        limit: stop after this many matches.
        cancel: optional ``callable() -> bool``; True stops the search (``InterruptedError``).
        progress: optional ``callable(done_bytes, total_bytes)``.

    Returns:
        ``(matches, complete)``: matches in document order as ``(JSON Pointer, start, end)``
        with the byte span of the value; ``complete`` is False when ``limit`` or
        :data:`MAX_POINTER_CHARS` stopped the search or the bytes stop being well-formed JSON
        (matches up to there are kept).

    Memory: 9 bytes per open container (its kind and two offsets), whatever the depth, plus the matches.
    """
    if not text or not data:
        return [], True
    needle = _Needle(text)
    start, end = value_span(data)
    hits: list[list] = []
    try:
        complete = _walk(data, start, end, needle, hits, limit, cancel, progress)
    except ScanError:
        complete = False
    return [tuple(h) for h in hits[:limit] if h[2] >= 0], complete


_ARRAY, _OBJECT, _KEY_NEXT = 0, 1, 3  # an open container's kind: an array; an object (3: its next token is a key)


def _walk(data, start, end, needle, hits, limit, cancel, progress) -> bool:
    """The search loop; False when it stopped early (limit, pointer budget or malformed bytes).

    The open containers are three flat arrays, one entry per level: ``kind`` (:data:`_ARRAY`,
    :data:`_OBJECT`, :data:`_KEY_NEXT`), ``a`` (an array's next index; an object's current key's start,
    -1 before its first key) and ``b`` (that key's end). A container's own pointer token is read from
    its parent's entry while it is open; a pointer is built only for a container holding a match (and
    kept until it closes), never one per level."""
    kind, a, b = bytearray(), array("i"), array("i")
    prefix: dict[int, str] = {}  # depth -> pointer of the open container there, once a match needed it
    open_hits: dict[int, list] = {}  # depth -> the match of the open container there, its end not known yet
    budget = MAX_POINTER_CHARS

    def own(p: int) -> str:
        """The escaped pointer token of the child the container at depth ``p`` is now in."""
        if kind[p] == _ARRAY:
            return str(a[p] - 1)
        return _escape(needle.key_text(data[a[p]:b[p]])) if a[p] >= 0 else ""

    def pointer(p: int) -> str:
        got = prefix.get(p)
        if got is None:
            out = bytearray()  # not a join: that would hold one string per level at once
            for i in range(p):
                out += b"/"
                out += own(i).encode("utf-8", "surrogatepass")
            got = prefix[p] = out.decode("utf-8", "surrogatepass")
        return got

    def child(p: int) -> bool:
        """Step the container at depth ``p`` to its next child; whether that child's key matches."""
        if kind[p] == _ARRAY:
            a[p] += 1
            return False
        return needle.in_token(data[a[p]:b[p]] if a[p] >= 0 else b'""', True)

    it = tokens(data, start, end, progress, cancel)
    for m in it:
        g = m.lastindex
        p = len(kind) - 1
        if g == 2:
            c = data[m.start(2)]
            if c == 0x7B or c == 0x5B:  # { [
                hit = None
                if p >= 0 and child(p):
                    ptr = pointer(p) + "/" + own(p)
                    hit = [ptr, m.start(2), -1]
                    hits.append(hit)
                    budget -= len(ptr)
                kind.append(_KEY_NEXT if c == 0x7B else _ARRAY)
                a.append(-1 if c == 0x7B else 0)
                b.append(-1)
                if hit is not None:
                    open_hits[p + 1] = hit
            elif c == 0x7D or c == 0x5D:  # } ]
                if p < 0:
                    return False
                del kind[p], a[p], b[p]
                prefix.pop(p, None)
                hit = open_hits.pop(p, None)
                if hit is not None:
                    hit[2] = m.end(2)
                if p == 0:
                    return True
            elif c == 0x2C and p >= 0 and kind[p] != _ARRAY:  # , in an object
                kind[p] = _KEY_NEXT
                a[p] = b[p] = -1
        else:
            s, e = m.span(g)
            if p < 0:  # a top-level scalar
                if needle.in_token(data[s:e], g == 1):
                    hits.append(["", s, e])
                return True
            if kind[p] == _KEY_NEXT and g == 1:  # a key
                kind[p] = _OBJECT
                a[p], b[p] = s, e
                continue
            if child(p) or needle.in_token(data[s:e], g == 1):
                ptr = pointer(p) + "/" + own(p)
                hits.append([ptr, s, e])
                budget -= len(ptr)
        if len(hits) >= limit or budget < 0:
            depth = len(kind)
            del kind, a, b, prefix
            _close(it, data, depth, open_hits)
            return False
    return True


def _close(it, data: bytes, depth: int, open_hits: dict) -> None:
    """After a search stopped early, ``depth`` containers deep: read on (brackets only) until each open
    container holding a match closes, so that every match kept has its whole span."""
    while open_hits:
        m = next(it, None)
        if m is None:
            return
        if m.lastindex == 2:
            c = data[m.start(2)]
            if c == 0x7B or c == 0x5B:
                depth += 1
            elif c == 0x7D or c == 0x5D:
                depth -= 1
                hit = open_hits.pop(depth, None)
                if hit is not None:
                    hit[2] = m.end(2)
