"""Find in a whole document (no Qt; runs on a worker thread): every key or value containing a text.

The search reads the file's bytes with the same tokenizer as :mod:`.lazyjson`, so it covers
every node, also those no tree has loaded, at any size and any depth: the path to the current
value is an explicit stack, never Python recursion. A member matches when its key or its value
contains the text, case-insensitively; strings are compared decoded (escapes resolved), other
scalars as written in the file.
"""

from __future__ import annotations

import orjson

from inspector.session.lazyjson import ScanError, tokens, value_span

__all__ = ["search_document", "MAX_MATCHES"]

#: A search stops collecting after this many matches (and says so).
MAX_MATCHES = 100_000


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


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
        data: the file's bytes.
        text: what to look for (case-insensitive; empty finds nothing).
        limit: stop after this many matches.
        cancel: optional ``callable() -> bool``; True stops the search (``InterruptedError``).
        progress: optional ``callable(done_bytes, total_bytes)``.

    Returns:
        ``(matches, complete)``: matches in document order as ``(JSON Pointer, start, end)``
        with the byte span of the value; ``complete`` is False when ``limit`` stopped the search
        or the bytes stop being well-formed JSON (matches up to there are kept).
    """
    if not text or not data:
        return [], True
    needle = _Needle(text)
    start, end = value_span(data)
    hits: list[list] = []
    # A frame: [is_object, own pointer token (escaped; None for the root), next_index, expecting_key,
    #          key_token, pointer (built only when something inside matched), open_hit]
    stack: list[list] = []
    try:
        complete = _walk(data, start, end, needle, hits, stack, limit, cancel, progress)
    except ScanError:
        complete = False
    return [tuple(h) for h in hits[:limit] if h[2] >= 0], complete


def _walk(data, start, end, needle, hits, stack, limit, cancel, progress) -> bool:
    """The search loop; False when it stopped early (limit or malformed bytes)."""
    for m in tokens(data, start, end, progress, cancel):
        g = m.lastindex
        frame = stack[-1] if stack else None
        if g == 2:
            c = data[m.start(2)]
            if c == 0x7B or c == 0x5B:  # { [
                s = m.start(2)
                if frame is None:
                    own, hit = None, None
                else:
                    tok, key_hit = _child(frame, needle)
                    own = str(tok) if isinstance(tok, int) else _escape(needle.key_text(tok))
                    hit = None
                    if key_hit:
                        hit = [_prefix(stack) + "/" + own, s, -1]
                        hits.append(hit)
                stack.append([c == 0x7B, own, 0, c == 0x7B, None, None, hit])
            elif c == 0x7D or c == 0x5D:  # } ]
                if frame is None:
                    return False
                stack.pop()
                if frame[6] is not None:
                    frame[6][2] = m.end(2)
                if not stack:
                    return True
            elif c == 0x2C and frame is not None and frame[0]:  # , in an object
                frame[3] = True
        else:
            s, e = m.span(g)
            if frame is None:  # a top-level scalar
                if needle.in_token(data[s:e], g == 1):
                    hits.append(["", s, e])
                return True
            if frame[0] and frame[3] and g == 1:  # a key
                frame[3] = False
                frame[4] = data[s:e]
                continue
            tok, key_hit = _child(frame, needle)
            if key_hit or needle.in_token(data[s:e], g == 1):
                own = str(tok) if isinstance(tok, int) else _escape(needle.key_text(tok))
                hits.append([_prefix(stack) + "/" + own, s, e])
        if len(hits) >= limit:
            return False
    return True


def _child(frame: list, needle: _Needle):
    """The next child of ``frame``: its key token (objects) or index (arrays), and whether the key matched."""
    if frame[0]:
        token = frame[4] or b'""'
        frame[4] = None
        return token, needle.in_token(token, True)
    i = frame[2]
    frame[2] = i + 1
    return i, False


def _prefix(stack: list) -> str:
    """The pointer of the innermost open container (built from the stack once per container, and
    only for containers holding a match: a path 300,000 levels deep costs one string, not one per level)."""
    top = stack[-1]
    if top[5] is None:
        top[5] = "".join("/" + f[1] for f in stack[1:])
    return top[5]
