"""Opening a file the user named, for reading, without ever blocking on it.

A path can name something that is not a file: a FIFO (named pipe) whose ``open()`` waits for a writer
forever, a device (``/dev/zero`` never ends; a terminal), a socket, a folder. Every reader of a path the
user gave (a command line, a drop, a folder scan, the file beside an opened one) goes through
:func:`open_regular` or :func:`read_regular`: the path is opened with ``O_NONBLOCK`` (so opening a FIFO
returns at once) and the *opened descriptor* is checked with ``fstat`` (so a file swapped for a FIFO
between a check and the open cannot slip through); anything but a regular file is refused with
:class:`NotAFile`, whose :attr:`~NotAFile.reason` says what it is. Reads are bounded by the 256 MiB
v1 content ceiling (FORMAT.md 6.2, P-BOUND) plus one byte, so a file that grew is noticed and never
read whole.

No Qt, no other module of the project: the engine, the session layer, the ticket and both front-ends
use it.
"""

from __future__ import annotations

import errno
import os
import stat

from inspector.checkpoint.constants import MAX_CONTENT_BYTES

__all__ = ["NotAFile", "open_regular", "open_file", "read_regular", "read_fd", "what_it_is_not",
           "OPEN_FLAGS"]

#: ``os.open`` flags of every read of a user-named path: read-only, never waiting for a FIFO's writer or a
#: device (``O_NONBLOCK``), never becoming a terminal's controlling process (``O_NOCTTY``), not inherited by
#: worker processes (``O_CLOEXEC``), and no newline translation (``O_BINARY``, Windows). Flags a platform
#: lacks are 0.
OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_BINARY", 0))


class NotAFile(OSError):
    """The path names something that is not a regular file (a FIFO, a device, a socket, a folder).

    An ``OSError`` (so ``except OSError`` around a read still catches it) whose ``strerror`` is
    :attr:`reason`, a phrase to put after the path: ``"is a FIFO (named pipe), not a file"``.

    Attributes:
        reason: the phrase (:func:`what_it_is_not`). kind: ``"fifo"``, ``"device"``, ``"socket"``,
            ``"folder"`` or ``"other"``. path: the path as given.
    """

    def __init__(self, path, kind: str, reason: str):
        super().__init__(errno.EISDIR if kind == "folder" else errno.EINVAL, reason)
        self.path = path
        self.kind = kind
        self.reason = reason


def what_it_is_not(mode: int) -> tuple[str, str] | None:
    """``(kind, reason)`` for an ``st_mode`` that is not a regular file, ``None`` for a regular file.

    ``reason`` is the phrase the user reads after the path: ``"is a FIFO (named pipe), not a file"``,
    ``"is a device, not a file"``, ``"is a socket, not a file"``, ``"is a folder, not a file"``, or
    ``"is not a regular file"``.
    """
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "fifo", "is a FIFO (named pipe), not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device", "is a device, not a file"
    if stat.S_ISSOCK(mode):
        return "socket", "is a socket, not a file"
    if stat.S_ISDIR(mode):
        return "folder", "is a folder, not a file"
    return "other", "is not a regular file"


def _refuse_unless_regular(path, st: os.stat_result) -> None:
    what = what_it_is_not(st.st_mode)
    if what is not None:
        raise NotAFile(path, *what)


def open_regular(path) -> tuple[int, os.stat_result]:
    """Open ``path`` for reading, refusing anything that is not a regular file, without blocking.

    The path is first looked at with ``os.stat`` (a device or FIFO named outright is refused without being
    opened at all), then opened with :data:`OPEN_FLAGS`, and the decision is made on ``fstat`` of the opened
    descriptor (a path swapped for a FIFO after the ``stat`` is refused, never read). Once it is known to be a
    regular file, ``O_NONBLOCK`` is cleared again.

    Args:
        path: ``str``, ``bytes`` or path-like, as the user gave it.

    Returns:
        ``(fd, stat)``: the open descriptor (the caller closes it) and the descriptor's ``os.fstat``.

    Raises:
        NotAFile: a FIFO, device, socket, folder or other non-regular file (``reason`` says which).
        OSError: it cannot be opened (missing: ``FileNotFoundError``; ``PermissionError``...).
        ValueError: the path holds a NUL character.
    """
    _refuse_unless_regular(path, os.stat(path))
    try:
        fd = os.open(path, OPEN_FLAGS)
    except IsADirectoryError:  # (replaced by a folder since the stat)
        raise NotAFile(path, "folder", "is a folder, not a file") from None
    try:
        st = os.fstat(fd)
        _refuse_unless_regular(path, st)
        if getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_file(path):
    """:func:`open_regular`, as a binary file object: ``(file, stat)``; ``file`` is an
    ``io.BufferedReader`` that closes the descriptor (use it in a ``with``). Raises as :func:`open_regular`."""
    fd, st = open_regular(path)
    try:
        return os.fdopen(fd, "rb"), st
    except BaseException:
        os.close(fd)
        raise


def read_fd(fd: int, limit: int, size_hint: int | None = None) -> bytes:
    """At most ``limit`` bytes from the current position of ``fd`` (fewer at the end of the file).

    ``size_hint``: the bytes expected (the file's ``st_size``): the first read asks for one more than
    that (no buffer of ``limit`` bytes for a small file), and only a file that grew meanwhile is read
    on in further steps. Raises ``OSError`` when a read fails.
    """
    want = limit if size_hint is None else min(limit, max(size_hint, 0) + 1)
    chunks: list[bytes] = []
    got = 0
    while got < limit:
        chunk = os.read(fd, want if not chunks else min(limit - got, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_regular(path, limit: int = MAX_CONTENT_BYTES) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file at ``path``, never more than ``limit`` plus one.

    Args:
        path: as :func:`open_regular`. limit: the most bytes wanted (default the 256 MiB v1 content ceiling,
            FORMAT.md 6.2); one byte more is read, so a caller sees that the file is longer than ``limit``
            (``len(data) > limit``) without reading it whole.

    Returns:
        ``(data, stat)``: the bytes and ``fstat`` of the opened descriptor before they were read.

    Raises:
        NotAFile, OSError, ValueError: as :func:`open_regular`.
    """
    fd, st = open_regular(path)
    try:
        return read_fd(fd, limit + 1, st.st_size), st
    finally:
        os.close(fd)
