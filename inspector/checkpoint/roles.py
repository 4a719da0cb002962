"""The role of one file among many, decided in one place: the folder scan, the fleet audit and the pairing of a
payload fetched from a URL with its descriptor all ask here (no Qt).

A file's role comes from its content (:func:`.artifact.file_role`: ``payload``, ``descriptor``, ``export`` or
``unknown``), never from its name. What this module adds is how much of the content is read to decide it: a file
of at most :data:`WHOLE_BYTES` is read whole (a descriptor's bytes kept, a payload's SHA-256 taken from them); a
larger one is streamed once (1 MiB at a time, up to the 256 MiB content ceiling plus one byte, FORMAT.md 2),
hashed for pairing by digest (FORMAT.md 3.2) and searched for an SDK export wrapper's ``contentBase64`` member
(FORMAT.md 1: a wrapper whose first member is an unknown one of any size is still one, serde ignores it). A
descriptor is never that large, so a large file that is not a wrapper is a payload, or not a checkpoint when it
is gzip-compressed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from inspector.checkpoint.artifact import classify, file_role
from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.safeopen import open_file
from inspector.checkpoint.sdk_export import WRAPPER_MAX_BYTES, looks_like_export

__all__ = ["WHOLE_BYTES", "FileRole", "role_by_size", "read_ceiling", "role_of_bytes", "role_of_stream", "role_of_file", "role_of_entry",
           "role_of_path"]

#: Files up to this size (bytes) are judged from their whole content; larger ones are streamed once (a
#: descriptor is never this large: :func:`.artifact.detect_role` takes any larger file for a payload).
WHOLE_BYTES = 1 << 20

_HEAD = 1 << 16  # bytes of a large file's head kept for its gzip test
#: The member an SDK export wrapper always has, as it appears unescaped in the wrapper's text (FORMAT.md 1).
_WRAPPER_KEY = b'"contentBase64"'


@dataclass(slots=True)
class FileRole:
    """What one read of a file decided.

    Attributes:
        role: ``payload``, ``descriptor``, ``export`` (an SDK export wrapper) or ``unknown``.
        hint: a sentence about an obvious problem (gzip, BOM, empty, not UTF-8), else ``None``.
        size: the file's size in bytes (what was read, or its stated size when larger than what was read).
        data: a descriptor's whole bytes (small), else ``None``: payloads are read again when verified.
        sha256: ``sha256:<hex>`` of the file's bytes when all of them were read within the ceiling (a payload's
            content digest); ``None`` for a large file that is not a payload, or one over the ceiling.
    """

    role: str
    hint: str | None
    size: int
    data: bytes | None = None
    sha256: str | None = None


def role_of_bytes(data: bytes) -> FileRole:
    """The role of a file whose whole content is ``data`` (:func:`.artifact.file_role`): a descriptor keeps its
    bytes; any file gets the SHA-256 of them (a payload's pairs it by digest, FORMAT.md 3.2)."""
    role, hint = file_role(data)
    return FileRole(role, hint, len(data), data if role == "descriptor" else None,
                    "sha256:" + hashlib.sha256(data).hexdigest())


def role_by_size(head: bytes, size: int | None) -> FileRole | None:
    """The role a file's listed ``size`` (bytes, ``None`` when not known) and its first 256 bytes ``head`` decide
    without reading more: a payload when it is over the 256 MiB ceiling and does not open as an SDK export wrapper
    (never read: FORMAT.md 2 and 6.2, P-BOUND), else ``None`` (read it, at most :func:`read_ceiling` bytes)."""
    if size is not None and size > MAX_CONTENT_BYTES and not looks_like_export(head[:256]):
        return FileRole("payload", None, size)
    return None


def read_ceiling(head: bytes) -> int:
    """How many bytes (at most) of a file starting with ``head`` are read to judge it: the wrapper ceiling when it
    opens as an SDK export wrapper (FORMAT.md 1: the ceiling applies to the content it decodes to), else the 256
    MiB content ceiling (FORMAT.md 2); one byte more tells that it is over."""
    return WRAPPER_MAX_BYTES if looks_like_export(head[:256]) else MAX_CONTENT_BYTES


def role_of_stream(fh, size: int) -> FileRole:
    """The role of a large file (over :data:`WHOLE_BYTES`) open as the binary file object ``fh`` at its start, of
    ``size`` bytes as listed: gzip by its head; a payload by its size over the 256 MiB ceiling unless its head opens
    as a wrapper (never read further: P-BOUND); else streamed once (up to the ceiling plus one byte, the wrapper
    ceiling when it opens as one), hashed, and searched for the wrapper's key across chunk boundaries. A file that
    may be a wrapper is read again whole (``fh`` must be seekable) and judged by :func:`.artifact.file_role`.

    Raises:
        OSError: a read fails (the caller says the file could not be read).
    """
    head = fh.read(_HEAD)
    if head[:2] == b"\x1f\x8b":  # a large gzip file is still not a checkpoint: its head says so
        return FileRole(*classify(head), size)
    by_size = role_by_size(head, size)
    if by_size is not None:
        return by_size
    fh.seek(0)
    limit = read_ceiling(head) + 1
    h = hashlib.sha256()
    head, tail, seen, named = b"", b"", 0, False
    while seen < limit:
        chunk = fh.read(min(1 << 20, limit - seen))
        if not chunk:
            break
        if not seen:
            head = chunk[:_HEAD]
        if seen <= MAX_CONTENT_BYTES:
            h.update(chunk[:MAX_CONTENT_BYTES + 1 - seen])
        named = named or _WRAPPER_KEY in tail + chunk[:len(_WRAPPER_KEY)] or _WRAPPER_KEY in chunk
        tail = chunk[-(len(_WRAPPER_KEY) - 1):]
        seen += len(chunk)
    if head[:2] == b"\x1f\x8b":  # (it became gzip meanwhile)
        return FileRole(*classify(head), max(seen, size))
    if named or looks_like_export(head[:256]):
        fh.seek(0)
        data = fh.read(WRAPPER_MAX_BYTES + 1)
        if file_role(data)[0] == "export":
            return FileRole("export", None, len(data))
    digest = "sha256:" + h.hexdigest() if seen <= MAX_CONTENT_BYTES else None
    return FileRole("payload", None, seen if seen < limit else max(seen, size), sha256=digest)


def role_of_file(fh, size: int) -> FileRole:
    """The role of the file open as ``fh`` (binary, seekable, at its start) whose ``fstat`` size is ``size``
    bytes, read once: whole (:func:`role_of_bytes`) when at most :data:`WHOLE_BYTES`, else streamed
    (:func:`role_of_stream`; also when a small file grew past it meanwhile). Raises ``OSError`` as a read fails."""
    if size <= WHOLE_BYTES:
        data = fh.read(WHOLE_BYTES + 1)
        if len(data) <= WHOLE_BYTES:
            return role_of_bytes(data)
        fh.seek(0)
    return role_of_stream(fh, size)


def role_of_entry(head: bytes, size: int | None, read) -> FileRole:
    """The role of a file that is not local (a URL, a line of a JSON Lines file): ``head`` its first 256 bytes,
    ``size`` its listed size in bytes (``None`` when not known), ``read(limit)`` its whole content, at most
    ``limit + 1`` bytes. A file listed as over the ceiling that does not open as a wrapper is a payload by its size,
    never downloaded (:func:`role_by_size`); else it is read once, whole up to :func:`read_ceiling`, and judged by
    :func:`role_of_bytes` (a longer one is a payload over the ceiling). Raises what ``read`` raises."""
    by_size = role_by_size(head, size)
    if by_size is not None:
        return by_size
    ceiling = read_ceiling(head)
    data = read(ceiling)
    if len(data) > ceiling:
        return FileRole("payload", None, size or len(data))
    return role_of_bytes(data)


def role_of_path(path: str) -> FileRole:
    """:func:`role_of_file` of the local file at ``path``, opened by the safe opener (a FIFO or device is refused
    without blocking).

    Raises:
        OSError: it cannot be opened or read (``safeopen.NotAFile`` for a FIFO or device).
        ValueError: the name holds a NUL character.
    """
    fh, st = open_file(path)
    with fh:
        return role_of_file(fh, st.st_size)
