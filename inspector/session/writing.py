"""Writing an output whole or not at all, for both front-ends: every byte to an open descriptor
(standard output, :func:`write_all`), or every byte to a new file that is removed again when it
cannot be completed (:func:`write_new_file`).

Why a loop: ``os.write`` (and a raw, unbuffered ``FileIO.write``, which is what ``sys.stdout.buffer`` is
under ``python -u`` or ``PYTHONUNBUFFERED=1``) may write fewer bytes than it was given and *succeed*:
on a nearly full disk the first call takes what fits (4,096 bytes on a tmpfs with one page left) and
only the next call fails with ``ENOSPC``. A caller that writes once and ignores the count loses the
rest without an error. Here every short write is followed by another until all bytes are written or
one fails.

Why ``fsync`` before ``close``: some file systems (NFS, and write-back errors anywhere) report that data
could not be stored only when it is flushed, after every ``write`` succeeded; :func:`write_new_file`
flushes and checks ``close`` too, so a file it reports as written is on the disk whole.

No path that exists is ever opened for writing: a new file is created with ``O_CREAT | O_EXCL`` (and
``O_NOFOLLOW``), which fails with ``FileExistsError`` for any existing name (a file, a FIFO, a
device, a symbolic link, dangling or not), so a FIFO given as an output name is refused at once and
never opened (opening a FIFO for writing blocks until a reader comes).
"""

from __future__ import annotations

import errno
import os
import select

__all__ = ["write_all", "write_new_file", "remove_if_ours"]

#: ``fsync`` errors that say only that the file system does not flush on request (some FUSE and
#: network file systems): the data was handed over whole all the same.
_FSYNC_UNSUPPORTED = {errno.EINVAL, getattr(errno, "ENOTSUP", errno.EINVAL), getattr(errno, "EOPNOTSUPP", errno.EINVAL)}


def write_all(fd: int, data: bytes | bytearray | memoryview) -> int:
    """Write every byte of ``data`` to the open file descriptor ``fd``; returns ``len(data)`` (bytes).

    A short write is followed by another for the rest, so a failure (``ENOSPC`` on the next call)
    is raised instead of lost. A descriptor in non-blocking mode (a pipe or FIFO someone opened
    with ``O_NONBLOCK``) that is full (``EAGAIN``) is waited on until it takes more, as a blocking
    one would be: the output is never cut short because its reader is slower.

    Raises:
        OSError: the descriptor refused the bytes (``ENOSPC``, ``EIO``, ``EBADF``, ``EPIPE`` as
        ``BrokenPipeError``...), or took none of them (``EIO``, "the output took no bytes").
    """
    view = memoryview(data).cast("B")
    done, total = 0, len(view)
    while done < total:
        try:
            n = os.write(fd, view[done:])
        except BlockingIOError:  # non-blocking and full: wait until the reader makes room
            select.select([], [fd], [])
            continue
        if n <= 0:  # never seen for a regular file, pipe or terminal: refuse to spin
            raise OSError(errno.EIO, "the output took no bytes")
        done += n
    return total


def write_new_file(path: str | bytes | os.PathLike, data) -> tuple[int, int]:
    """Create the new file ``path`` and write every byte of ``data`` (``bytes``, or an iterable of ``bytes``
    chunks written as they come: an error while they are made leaves nothing either) to it, or leave nothing there;
    returns the new file's ``(st_dev, st_ino)``, for a caller that may have to undo it later
    (:func:`remove_if_ours`).

    The file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (never over an existing name: a
    file, FIFO, device or symbolic link), written with :func:`write_all`, flushed to the disk
    (``fsync``) and closed, each step checked. If any step fails, or the write is interrupted
    (Ctrl+C), the file this call created is removed (only if ``path`` still names it,
    :func:`remove_if_ours`) before the exception goes on.

    Raises:
        FileExistsError: ``path`` exists (nothing was opened or written).
        OSError: the file could not be created, written, flushed or closed (``ENOSPC``, ``EDQUOT``,
        ``EACCES``, ``ENOENT`` for a missing folder, ``EIO``...); no part of it is left.
    """
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_BINARY", 0))
    fd = os.open(path, flags, 0o666)
    ident = None
    try:
        st = os.fstat(fd)
        ident = (st.st_dev, st.st_ino)
        if isinstance(data, (bytes, bytearray, memoryview)):
            write_all(fd, data)
        else:
            for chunk in data:
                write_all(fd, chunk)
        try:
            os.fsync(fd)
        except OSError as e:
            if e.errno not in _FSYNC_UNSUPPORTED:
                raise
    except BaseException:
        try:
            os.close(fd)
        except OSError:
            pass
        remove_if_ours(path, ident)
        raise
    try:
        os.close(fd)  # (the descriptor is released even when close reports an error)
    except BaseException:
        remove_if_ours(path, ident)
        raise
    return ident


def remove_if_ours(path: str | bytes | os.PathLike, ident: tuple[int, int] | None) -> bool:
    """Remove ``path`` if it still names the file ``ident`` (``(st_dev, st_ino)`` of a file this
    process created); with ``ident`` ``None`` (the file was created but could not even be looked at),
    remove ``path`` as it is. True when removed. Never raises: it runs while another failure is on
    its way out, and a file someone put there meanwhile is left alone."""
    try:
        if ident is not None:
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) != ident:
                return False
        os.remove(path)
        return True
    except OSError:
        return False
