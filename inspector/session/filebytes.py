"""A large payload's bytes read from its file on demand, for the window while it is verified.

A mapping (``mmap``) of a file that is truncated or replaced in place kills the process with
SIGBUS on the next access to a vanished page (the window, with any unsaved edits). The bytes pane
needs only the few rows it shows, so until the window reads its own copy of the file it reads the
displayed range with ``os.pread`` on an open descriptor: a file that shrank gives short reads,
never a signal, and :attr:`FileBytes.changed` says so (the pane shows "file changed").
"""

from __future__ import annotations

import os
import threading
import weakref

from inspector.checkpoint.safeopen import open_regular

__all__ = ["FileBytes", "file_identity"]


def file_identity(st: os.stat_result) -> tuple:
    """``(st_dev, st_ino, st_size, st_mtime_ns)`` of a file's ``os.stat`` result: two reads of a file saw the
    same bytes when both saw the same identity before and after reading (the window's copy and a worker's
    read of the payload, :func:`.engine._load_large`)."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class FileBytes:
    """The first ``size`` bytes of a file, read on access (``os.pread``), never mapped.

    Supports what the bytes pane and role detection use on a large payload: ``len()``, truth,
    ``x[i]`` (an int; 0 past the end of a file that shrank) and ``x[a:b]`` (``bytes``, shorter
    than asked when the file shrank). Not a buffer: regular expressions and hashes need ``bytes``.

    Args:
        path: the file. size: its length in bytes when opened (``len()`` stays this).

    Raises:
        OSError: the file cannot be opened (:class:`~inspector.checkpoint.safeopen.NotAFile`, an ``OSError``,
            when it is not a regular file).
    """

    def __init__(self, path: str | bytes, size: int):
        self._fd, st = open_regular(path)  # (a FIFO or device is refused without blocking: NotAFile)
        self._size = size
        #: The open file's :func:`file_identity` when it was opened.
        self.identity = file_identity(st)
        #: True once a read came back short: the file shrank (or vanished) since it was opened.
        self.changed = False
        self._window = None
        self._adopted: bytes | None = None
        self._lock = threading.Lock()  # a read (GUI thread) never meets the file closed by adopt (loader)
        self._closer = weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def close(self) -> None:
        """Close the file descriptor (further reads give nothing and set :attr:`changed`)."""
        with self._lock:
            self._closer()

    def adopt(self, copy: bytes) -> None:
        """Close the file descriptor and serve every later read from ``copy``, a copy of these very bytes
        (the window's, read from this file unchanged): a view still holding this reader while the window
        swaps in the copy (a bytes pane painting the partial verdict's moment) reads the same bytes, never
        a closed file's nothing."""
        with self._lock:
            self._adopted = copy
            self._closer()

    def read_all(self) -> tuple[bytes, tuple | None]:
        """All ``size`` bytes of the open file (one ``os.pread``) and its :func:`file_identity` before and
        after the read, ``None`` when the file changed while it was read. Raises ``OSError`` when the file
        cannot be read (or was closed)."""
        if not self._closer.alive:
            raise OSError("the file was closed")
        before = file_identity(os.fstat(self._fd))
        data = os.pread(self._fd, self._size, 0)
        after = file_identity(os.fstat(self._fd))
        return data, (before if before == after and len(data) == self._size else None)

    def _read(self, start: int, stop: int) -> bytes:
        if stop <= start:
            return b""
        with self._lock:
            if self._adopted is not None:
                return self._adopted[start:stop]
            try:
                got = os.pread(self._fd, stop - start, start) if self._closer.alive else b""
            except OSError:
                got = b""
        if len(got) < stop - start:
            self.changed = True
        return got

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step == 1:
                return self._read(start, stop)
            idx = range(start, stop, step)
            if not idx:
                return b""
            lo, hi = min(idx), max(idx) + 1
            data = self._read(lo, hi)
            return bytes(data[i - lo] for i in idx if i - lo < len(data))
        i = key.__index__()
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("index out of range")
        got = self._read(i, i + 1)
        return got[0] if got else 0

    def find(self, needle: bytes, start: int = 0, end: int | None = None) -> int:
        """``bytes.find`` over ``[start, end)`` (offsets in bytes); the range read last is kept, so
        repeated finds in one window (the bytes pane's search) read it once."""
        start, end, _ = slice(start, end).indices(self._size)
        if self._window is None or not (self._window[0] <= start and end <= self._window[1]):
            self._window = (start, end, self._read(start, end))
        lo, _hi, data = self._window
        i = data.find(needle, start - lo, end - lo)
        return -1 if i < 0 else lo + i

