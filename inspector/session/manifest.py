"""Sources for the fleet audit beyond :mod:`.sources`: a manifest of payload/descriptor URL pairs, and a local
folder that lists what is not a regular file too (so that the audit can say why it was not read).

A **manifest** is a JSON Lines file whose non-blank lines are ``{"payload": URL, "descriptor": URL}`` (either may
be ``null`` or absent, not both): hosts that keep descriptors in a database write one line per checkpoint. It is
told from a JSON Lines file of SDK export wrappers (FORMAT.md 8: ``{"descriptor": {...}, "contentBase64": ...}``
lines) by content, never by name: a manifest line's members are strings naming files, a wrapper's descriptor
is an object and it carries ``contentBase64``.

Qt-free; nothing here parses a checkpoint.
"""

from __future__ import annotations

import json

from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.session.sources import (EXPORT_LINES_SUFFIXES, Entry, LocalFolder, Source, SourceError,
                                       open_source, read_location, shown_location)

__all__ = ["Manifest", "AuditFolder", "is_manifest", "open_audit_source", "MANIFEST_KEYS"]

#: The members of a manifest line (each a URL or a path, or ``null``).
MANIFEST_KEYS = ("payload", "descriptor")


def _manifest_line(line: bytes) -> tuple[str | None, str | None] | None:
    """``(payload, descriptor)`` of one manifest line, or ``None`` when the line is not one."""
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not obj or set(obj) - set(MANIFEST_KEYS):
        return None
    p, d = obj.get("payload"), obj.get("descriptor")
    if not all(x is None or (isinstance(x, str) and x) for x in (p, d)) or (p is None and d is None):
        return None
    return p, d


def is_manifest(data: bytes) -> bool:
    """True when ``data`` (a JSON Lines file's bytes) is a manifest: its first non-blank line is an object whose
    only members are ``payload``/``descriptor``, each a non-empty string or ``null``. A line of an SDK export
    wrapper (its ``descriptor`` an object, with ``contentBase64``) never is one."""
    for line in data.split(b"\n"):
        if line.strip():
            return _manifest_line(line.rstrip(b"\r")) is not None
    return False


class Manifest(Source):
    """A manifest (see the module's text) at ``location`` (a path or URL). Each named file is an entry (its
    ``location`` the URL or path as written; ``size`` ``None``: the manifest does not say); :meth:`pairs` gives
    the pairs as written, which the audit takes as they are (no pairing by digest or name).

    Raises (:meth:`entries`, :meth:`pairs`):
        SourceError: the manifest cannot be read, is over the 256 MiB ceiling, or a line is not a manifest line
            (the reason names the line number, never its text).
    """

    def __init__(self, location: str):
        self.location = location
        self._pairs: list[tuple[str | None, str | None]] | None = None

    def pairs(self) -> list[tuple[str | None, str | None]]:
        """Every line's ``(payload location or None, descriptor location or None)``, in line order."""
        if self._pairs is None:
            data, _token = read_location(self.location)
            if len(data) > MAX_CONTENT_BYTES:
                raise SourceError(f"{shown_location(self.location)}: larger than {MAX_CONTENT_BYTES} bytes")
            out = []
            for n, line in enumerate(data.split(b"\n"), 1):
                if not line.strip():
                    continue
                pair = _manifest_line(line.rstrip(b"\r"))
                if pair is None:
                    raise SourceError(f"{shown_location(self.location)}:{n}: not a manifest line "
                                      "({\"payload\": URL, \"descriptor\": URL})")
                out.append(pair)
            self._pairs = out
        return list(self._pairs)

    def entries(self) -> list[Entry]:
        seen: dict[str, Entry] = {}
        for pair in self.pairs():
            for loc in pair:
                if loc is not None and loc not in seen:
                    name = shown_location(loc).rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
                    seen[loc] = Entry(loc, name, None, "")
        return sorted(seen.values(), key=lambda e: e.location)

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        return read_location(entry.location, limit)[0]

    def token(self, entry: Entry) -> str | None:
        try:
            return read_location(entry.location, 0)[1]
        except SourceError:
            return None


class AuditFolder(LocalFolder):
    """:class:`.sources.LocalFolder` with :attr:`~.sources.LocalFolder.list_special` on: what is not a regular
    file and not a folder (a FIFO, a device, a socket, a dangling link) is listed too (``size`` ``None``), so
    that the audit writes a record saying why it was not read; it is never opened."""

    list_special = True


def open_audit_source(location: str, *, recursive: bool = True) -> Source:
    """The source the audit reads at ``location``: a :class:`Manifest` when ``location`` is a JSON Lines file
    whose content is one (:func:`is_manifest`), an :class:`AuditFolder` for a local folder, else what
    :func:`.sources.open_source` opens (an export-wrapper JSON Lines file, an fsspec URL prefix).

    Raises:
        SourceError: as :func:`.sources.open_source`; a JSON Lines file that cannot be read.
    """
    if shown_location(location).lower().endswith(EXPORT_LINES_SUFFIXES):
        data, _token = read_location(location)
        if is_manifest(data):
            return Manifest(location)
    src = open_source(location, recursive=recursive)
    if isinstance(src, LocalFolder):
        return AuditFolder(location, recursive=recursive)
    return src
