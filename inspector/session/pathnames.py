"""File names chosen in a dialog, back to the exact bytes on disk (no Qt).

Qt decodes file names as UTF-8 and cannot keep a byte that is not valid UTF-8: its file dialog
lists such a file under a name with U+FFFD in it (or not at all) and returns a path that does not
exist. Python keeps every byte (``surrogateescape``), and the window shows them as ``\\xNN``
(:func:`~.document.display_path`). :func:`resolve_chosen_path` maps what a dialog returns, or what
the user typed in the window's own escaped form, back to the file that exists.
"""

from __future__ import annotations

import os
import re

__all__ = ["resolve_chosen_path", "resolve_new_path", "qt_holdable", "unescape_name"]

_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")
_REPLACEMENTS = re.compile("\ufffd+")


def unescape_name(name: str) -> str:
    """``name`` with each ``\\xNN`` escape (NN from 80 to FF, as the window shows a byte that is
    not valid UTF-8) turned back into that byte (a ``surrogateescape`` code point)."""
    return _ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), name)


def _as_qt_shows(name: bytes) -> str:
    """How Qt shows the file name ``name``: invalid UTF-8 replaced by U+FFFD (runs merged)."""
    return _REPLACEMENTS.sub("\ufffd", name.decode("utf-8", "replace"))


def _component(folder: str, part: str) -> str | None:
    """The entry of ``folder`` meant by ``part`` (exact, ``\\xNN``-escaped, or with U+FFFD)."""
    exact = os.path.join(folder, part)
    if os.path.lexists(exact):
        return exact
    escaped = os.path.join(folder, unescape_name(part))
    if os.path.lexists(escaped):
        return escaped
    if "\ufffd" not in part:
        return None
    want = _REPLACEMENTS.sub("\ufffd", part)
    try:
        names = os.listdir(os.fsencode(folder or "."))
    except OSError:
        return None
    hits = [n for n in names if _as_qt_shows(n) == want]
    return os.path.join(folder, os.fsdecode(hits[0])) if len(hits) == 1 else None  # ambiguous: none


def qt_holdable(path: str) -> str:
    """``path`` as Qt can hold it (a byte that is not valid UTF-8 becomes U+FFFD): what to hand a
    dialog as its start; :func:`resolve_chosen_path` maps the answer back. (A ``str`` with
    ``surrogateescape`` code points loses them on the way to a ``QString``: another folder.)"""
    return os.fsencode(path).decode("utf-8", "replace")


def resolve_new_path(path: str, suggested: str | None = None) -> str:
    """The new file a save dialog's answer ``path`` names: its folder is the existing one it means
    (:func:`resolve_chosen_path`), its name the ``suggested`` one's exact bytes when the user kept
    it (as Qt shows it), else the name typed (``\\xNN`` escapes turned into bytes)."""
    if not path or os.path.lexists(path):
        return path
    folder, name = os.path.split(path)
    if suggested is not None and name == os.path.basename(qt_holdable(suggested)):
        name = os.path.basename(suggested)
    else:
        name = unescape_name(name)
    return os.path.join(resolve_chosen_path(folder) or folder, name) if folder else name


def resolve_chosen_path(path: str) -> str | None:
    """The existing file or folder that ``path`` (from a file dialog, or typed) names, or ``None``.

    ``path`` itself when it exists; else each component is looked up in turn: as written, with
    ``\\xNN`` escapes turned back into bytes, or, when it holds U+FFFD (Qt's stand-in for bytes it
    cannot decode), the one entry of its folder whose name Qt shows that way (``None`` when two
    entries look the same: the dialog cannot tell them apart, and neither can we).
    """
    if not path:
        return None
    if os.path.lexists(path):
        return path
    head, parts = path, []
    while True:  # split into components (no recursion)
        head, tail = os.path.split(head)
        if tail:
            parts.append(tail)
        else:
            break
    cur = head
    for part in reversed(parts):
        found = _component(cur, part)
        if found is None:
            return None
        cur = found
    return cur
