"""JSON Pointer (RFC 6901) tokens: the one place ``~`` and ``/`` are escaped and unescaped.

A token is escaped ``~`` -> ``~0`` first, then ``/`` -> ``~1``; unescaped ``~1`` -> ``/`` first, then ``~0`` ->
``~`` (RFC 6901 section 4: the other order would turn ``~01`` into ``/``). Every JSON Pointer the package shows or
reads (locations of findings, the trees, Find, the comparison, the ticket's allow-list) is made with these.
"""

from __future__ import annotations

__all__ = ["escape", "unescape", "join", "split"]


def escape(token) -> str:
    """The reference token of a key or index ``token`` (``str()`` of it): ``a/b~c`` -> ``a~1b~0c``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The key a reference token names: ``a~1b~0c`` -> ``a/b~c`` (``~01`` -> ``~1``, never ``/``)."""
    return token.replace("~1", "/").replace("~0", "~")


def join(tokens) -> str:
    """The pointer of a path of keys and indices: ``["a/b", 0]`` -> ``/a~1b/0``; ``[]`` -> ``""`` (the whole
    document)."""
    return "".join("/" + escape(t) for t in tokens)


def split(pointer: str) -> list[str]:
    """The keys a pointer names, unescaped: ``/a~1b/0`` -> ``["a/b", "0"]``; ``""`` -> ``[]``. Raises
    ``ValueError`` for a non-empty pointer that does not start with ``/`` (RFC 6901 section 3)."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON Pointer starts with '/': {pointer[:40]!r}")
    return [unescape(t) for t in pointer[1:].split("/")]
