"""Lenient JSON read and compact write at any nesting depth, for redaction (explicit stacks).

The redacted copy is made from any JSON document, however deep: orjson stops at 1024 levels
and Python's ``json`` recurses per level, so documents past those are read and written here
with explicit stacks (house rule: no walk over a document recurses per nesting level).
Accepts what Python's ``json.loads`` accepts (object keys in file order, the last of a
duplicated key wins, integers of any size, ``NaN``/``Infinity`` spellings).
"""

from __future__ import annotations

import json
from json.decoder import scanstring
from json.scanner import NUMBER_RE

__all__ = ["loads", "dumps"]

_WS = b" \t\n\r"
_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None),
             "N": ("NaN", float("nan")), "I": ("Infinity", float("inf"))}


def _error(msg: str, pos: int) -> ValueError:
    return ValueError(f"{msg} at character {pos}")


def loads(text: str):
    """Parse ``text`` (a ``str``) into Python values with an explicit stack.

    Returns:
        the value (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``).

    Raises:
        ValueError: not JSON (message with the character index).
    """
    n = len(text)
    i = 0
    # each frame: [container, pending key or None]; a value read is attached to the top frame
    stack: list[list] = []
    root_set = False
    root = None

    def skip(i: int) -> int:
        while i < n and text[i] in " \t\n\r":
            i += 1
        return i

    def member_key(i: int) -> tuple[str, int]:
        """The key at ``i`` and the index after its ``:``."""
        if i >= n or text[i] != '"':
            raise _error("expected a string key", i)
        key, i = scanstring(text, i + 1)
        i = skip(i)
        if i >= n or text[i] != ":":
            raise _error("expected ':'", i)
        return key, i + 1

    while True:
        i = skip(i)
        if i >= n:
            raise _error("unexpected end of data", i)
        c = text[i]
        # -- a value starts here (or a container closes when empty) --
        if c == "{":
            j = skip(i + 1)
            if j < n and text[j] == "}":
                value, i = {}, j + 1
            else:
                key, i = member_key(j)
                stack.append([{}, key])
                continue
        elif c == "[":
            j = skip(i + 1)
            if j < n and text[j] == "]":
                value, i = [], j + 1
            else:
                stack.append([[], None])
                i = j
                continue
        elif c == '"':
            value, i = scanstring(text, i + 1)
        elif c in _LITERALS and text.startswith(_LITERALS[c][0], i):
            word, value = _LITERALS[c]
            i += len(word)
        elif c == "-" and text.startswith("-Infinity", i):
            value, i = float("-inf"), i + 9
        else:
            m = NUMBER_RE.match(text, i)
            if m is None:
                raise _error("expected a value", i)
            integer, frac, exp = m.groups()
            value = float(integer + (frac or "") + (exp or "")) if frac or exp else int(integer)
            i = m.end()
        # -- attach the value, then close every container that ends here --
        while True:
            if not stack:
                root, root_set = value, True
                break
            frame = stack[-1]
            if frame[1] is not None:
                frame[0][frame[1]] = value
            else:
                frame[0].append(value)
            i = skip(i)
            if i >= n:
                raise _error("unexpected end of data", i)
            close = "}" if isinstance(frame[0], dict) else "]"
            if text[i] == close:
                stack.pop()
                value, i = frame[0], i + 1
                continue
            if text[i] != ",":
                raise _error(f"expected ',' or '{close}'", i)
            i = skip(i + 1)
            if close == "}":
                frame[1], i = member_key(i)
            break
        if root_set:
            i = skip(i)
            if i != n:
                raise _error("extra data", i)
            return root


def dumps(value) -> str:
    """Compact JSON text of ``value`` (keys in their order, non-ASCII kept) at any depth.

    Up to the interpreter's recursion limit of nesting, Python's C encoder writes it (the same text, several
    times faster); deeper, the explicit stack below.

    Raises:
        TypeError: a value JSON cannot hold.
    """
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    except RecursionError:
        pass
    out: list[str] = []
    stack: list = [value]
    # literal pieces pushed below are 1-tuples
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            out.append(v[0])
        elif isinstance(v, dict):
            out.append("{")
            stack.append(("}",))
            items = list(v.items())
            for k, (key, x) in enumerate(reversed(items)):
                stack.append(x)
                stack.append((json.dumps(key, ensure_ascii=False) + ":",))
                if k < len(items) - 1:
                    stack.append((",",))
        elif isinstance(v, list):
            out.append("[")
            stack.append(("]",))
            for k, x in enumerate(reversed(v)):
                stack.append(x)
                if k < len(v) - 1:
                    stack.append((",",))
        else:
            out.append(json.dumps(v, ensure_ascii=False))
    return "".join(out)
