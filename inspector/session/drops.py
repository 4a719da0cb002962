"""What a drop (or a paste of file names) carries: local paths to open, and why the rest cannot be.

File managers, browsers and terminals put different things on a drop: ``text/uri-list`` with
``file:///`` or ``file://localhost/`` URIs, remote ``https://`` URLs, or ``text/plain`` with
one path or URI per line. :func:`paths_from_mime` accepts all of them. File URIs are decoded to
the exact bytes of the name (percent escapes, then the file-system encoding with
``surrogateescape``), so a name that is not valid UTF-8 still opens.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import unquote_to_bytes, urlsplit

__all__ = ["paths_from_mime", "paths_from_text", "path_from_uri"]

_LOCAL_HOSTS = {"", "localhost", "127.0.0.1", "::1"}


def path_from_uri(uri: str) -> tuple[str | None, str | None]:
    """``(path, None)`` for a local ``file:`` URI, else ``(None, why)``."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme != "file":
        return None, f"{uri} is not a file on this computer ({scheme or 'no'} URL); download it first"
    host = (parts.hostname or "").lower()
    if host not in _LOCAL_HOSTS and host != socket.gethostname().lower():
        return None, f"{uri} is on another computer ({host}); copy it here first"
    raw = unquote_to_bytes(parts.path)
    if os.name == "nt" and len(raw) > 2 and raw[0:1] == b"/" and raw[2:3] == b":":
        raw = raw[1:]  # file:///C:/x -> C:/x
    return os.fsdecode(raw), None


def paths_from_text(text: str) -> tuple[list[str], list[str]]:
    """Paths in plain text (one absolute path or ``file:`` URI per line): ``(paths, reasons)``."""
    paths, why = [], []
    for line in text.splitlines():
        line = line.strip().strip('"').strip("'")
        if not line:
            continue
        if "://" in line or line.lower().startswith("file:"):
            p, reason = path_from_uri(line)
            if p is not None:
                paths.append(p)
            else:
                why.append(reason)
        elif os.path.isabs(os.path.expanduser(line)):
            paths.append(os.path.expanduser(line))
        else:
            why.append(f"“{line[:80]}” is not a file path")
    return paths, why


def paths_from_mime(md) -> tuple[list[str], list[str]]:
    """``(local paths, reasons the rest was not opened)`` from a ``QMimeData`` (URIs, else text)."""
    paths, why = [], []
    if md.hasUrls():
        for url in md.urls():
            p, reason = path_from_uri(bytes(url.toEncoded()).decode("ascii", "replace"))
            if p is not None:
                paths.append(p)
            else:
                why.append(reason)
        return paths, why
    if md.hasText():
        return paths_from_text(md.text())
    return [], ["the drop carries no file"]
