"""What every ``checkpoint-inspector`` subcommand shares: exit codes, standard output and error that
survive a closed pipe, reading inputs, verifying them, and writing only new files (never over an input).

Every output is written whole or the command exits 3 (``cannot write the output``): standard output
through :func:`out` and the stream :func:`install_whole_stdout` puts in place for the process (print,
argparse's help and ``--version`` included), files through :func:`write_new`; both write with
:mod:`inspector.session.writing`, which follows every short write with another, so a full disk is
an error and never a silently shortened output.
"""

from __future__ import annotations

import errno
import gc
import io
import os
import select
import sys

# (the engine's modules are imported where they are used: this module is imported by ``--help`` too)

from inspector.checkpoint.diagnostic import InspectorError
from inspector.session.writing import write_all, write_new_file

from .termsafe import terminal_safe_lines

__all__ = ["NOT_REDACTED", "retain_parsed_payloads", "EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "EXIT_INCONCLUSIVE",
           "EXIT_INTERNAL", "OutputError", "UsageError", "out", "install_whole_stdout", "take_output_failure",
           "flush_stdout", "stdout_to_devnull", "err", "read_file", "not_a_checkpoint_error", "verified", "exit_code",
           "write_new", "remove_new", "same_path", "emit"]

#: What ``verify``, ``diff``, ``timeline`` and ``scan`` say of their output (their ``--help`` and the first
#: line of ``verify``'s text): it quotes the files and is not redacted; ``report`` is the one to share.
NOT_REDACTED = ("Not redacted: this output quotes the files' content (ids, names, messages, tool data); "
                "to share a verdict, use `checkpoint-inspector report`, which redacts it.")

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3
#: A crash (an unexpected exception anywhere): the same code as inconclusive, never 0 or 1.
EXIT_INTERNAL = EXIT_INCONCLUSIVE

_retained: list | None = None


def retain_parsed_payloads() -> list:
    """Make the commands keep each verification's parsed payload alive instead of freeing it
    (``verify(keep=)``), for a process that exits right after the command; returns the list that
    holds them (empty when nothing was verified). The console script then exits without freeing:
    about 0.2 s of CPU on a 250 MiB payload (:func:`inspector.entry.main`)."""
    global _retained
    if _retained is None:
        _retained = []
    return _retained



class OutputError(InspectorError):
    """An output cannot be written whole (:attr:`exit_status` 3): standard output (closed, full disk, ...) or a new file
    (:func:`write_new`); ``reason`` says why in a few words (for a file, led by its name).
    :func:`~inspector.cli.main.guarded` turns it into one line on stderr (``cannot write the output:
    REASON``) and exit 3: no report was delivered."""

    exit_status = 3

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def out(text: str | bytes) -> bool:
    """Write to stdout, every byte (text is written as it is: a text output makes its lines terminal-safe
    first, :mod:`.termsafe`). A reader that went away (``| head``) is not an error: the rest of the
    output is dropped, ``False`` is returned, and the command still returns its verdict's exit
    code (``report`` with a redacted copy undoes its job instead). Any other failure to write
    (stdout closed, ``ENOSPC``, ``EBADF``) raises :class:`OutputError`. ``True`` once written.

    A binary stream may take fewer bytes than it was given and return their count (``sys.stdout.buffer``
    is a raw ``FileIO`` under ``python -u`` / ``PYTHONUNBUFFERED=1``: on a nearly full disk it takes
    4,096 bytes and says so): the rest is written by further calls, the next of which raises ``ENOSPC``."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        raise OutputError("standard output is closed")
    try:
        sys.stdout.flush()  # anything printed before goes first
        stream = sys.stdout.buffer
        view = memoryview(text)
        while view:
            n = stream.write(view)
            if n is None:  # a raw stream in non-blocking mode, full: wait until it takes more
                select.select([], [stream.fileno()], [])
                continue
            view = view[n:]
        stream.flush()
    except BrokenPipeError:
        stdout_to_devnull()
        return False
    except (OSError, ValueError) as e:  # ValueError: the stream was closed in this process
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "standard output is closed"
        try:
            stdout_to_devnull()
        except (OSError, ValueError):
            pass
        raise OutputError(reason) from None
    return True


class _WholeStdout(io.RawIOBase):
    """The process's standard output (file descriptor ``fd``) as a raw stream whose ``write`` writes
    every byte (:func:`inspector.session.writing.write_all`) or raises. A failure other than a reader
    gone is kept in :attr:`failure` (the reason, a few words), so that a write whose error a caller
    swallows (argparse prints its help and ignores ``OSError``) still ends in exit 3
    (:func:`take_output_failure`). A reader gone (``EPIPE``) points the descriptor at /dev/null first, so
    later writes are dropped quietly (``| head`` is not an error)."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd
        #: Why a write failed (``"No space left on device"``), or ``None``.
        self.failure: str | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, b) -> int:
        try:
            return write_all(self._fd, b)
        except BrokenPipeError:
            try:
                _devnull_onto(self._fd)
            except OSError:
                pass
            raise
        except OSError as e:
            self.failure = self.failure or e.strerror or type(e).__name__
            raise


_whole_stdout: _WholeStdout | None = None


def install_whole_stdout() -> None:
    """Make ``sys.stdout`` of this process a text stream over :class:`_WholeStdout`: whatever writes to
    it (:func:`out`, ``print``, argparse's help and usage, ``--version``) writes every byte or fails,
    and nothing waits in a buffer for the interpreter's final flush (whose failure would be exit 120
    and an "Exception ignored" message). For the console script's own process only
    (:func:`inspector.entry.main`); does nothing when stdout is closed or has no file descriptor."""
    global _whole_stdout
    old = sys.stdout
    if old is None or isinstance(getattr(old, "buffer", None), _WholeStdout):
        return
    try:
        fd = old.fileno()
        old.flush()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return
    raw = _WholeStdout(fd)
    sys.stdout = io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, write_through=True)
    _whole_stdout = raw


def take_output_failure() -> str | None:
    """Why a write to the stream :func:`install_whole_stdout` put in place failed (``"No space left on
    device"``), even if the caller of that write swallowed the error; ``None`` when every write
    succeeded (or no such stream is in place). Taking it forgets it: the failure is said once."""
    if _whole_stdout is None:
        return None
    reason, _whole_stdout.failure = _whole_stdout.failure, None
    return reason


def flush_stdout() -> None:
    """Flush ``sys.stdout`` now, not at the interpreter's exit (where a failure is exit 120). Raises
    :class:`OutputError` when it cannot be flushed; a reader gone (``BrokenPipeError``) is not an error."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            stdout_to_devnull()
        except (OSError, ValueError):
            pass
    except ValueError:  # closed in this process: nothing can be waiting in it
        pass
    except OSError as e:
        try:
            stdout_to_devnull()
        except (OSError, ValueError):
            pass
        raise OutputError(e.strerror or type(e).__name__) from None


def stdout_to_devnull() -> None:
    """Point stdout's file descriptor at /dev/null, so what stays buffered does not fail again at
    the interpreter's final flush. Raises ``OSError``/``ValueError`` if stdout has no descriptor."""
    _devnull_onto(sys.stdout.fileno())


def _devnull_onto(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def err(text: str) -> None:
    """One message on stderr, each of its lines terminal-safe (:func:`.termsafe.terminal_safe_lines`:
    its own line breaks kept; a piece from a file that may hold a newline is passed through
    :func:`.termsafe.terminal_safe` by the caller, so it stays on its line)."""
    sys.stderr.write(terminal_safe_lines(text.rstrip("\n")) + "\n")


class UsageError(InspectorError):
    """Unusable input or arguments: reported on stderr, exit code 2."""


#: The name that reads standard input (``checkpoint-inspector verify - DESCRIPTOR < PAYLOAD``).
STDIN = "-"
_stdin_taken = []


def read_stdin():
    """Standard input as an :class:`~inspector.checkpoint.InputFile` named ``-`` (role from its content), read to
    its end but never more than the 256 MiB ceiling plus one byte (an SDK export wrapper: its own ceiling, as
    ``read_input`` allows a file; a larger input: "more than" the ceiling, not read, FORMAT.md 6.2 P-BOUND). Raises :class:`UsageError` (exit 2) when it is a terminal (nothing was piped in), is
    closed, or was read already (``-`` given twice)."""
    from inspector.checkpoint.artifact import MAX_CONTENT_BYTES, InputFile, detect_role
    from inspector.checkpoint.sdk_export import WRAPPER_MAX_BYTES, looks_like_export

    if _stdin_taken:
        raise UsageError("-: standard input can be given once (the other file must be named)")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UsageError("-: there is no standard input to read")
    try:
        if os.isatty(stream.fileno()):
            raise UsageError("-: standard input is a terminal; pipe a checkpoint file in "
                             "(checkpoint-inspector verify - DESCRIPTOR < PAYLOAD)")
    except (OSError, ValueError):
        pass  # (not a descriptor of this process: a test's stream, read as it is)
    _stdin_taken.append(True)
    chunks, size, ceiling = [], 0, MAX_CONTENT_BYTES
    while size <= ceiling:
        try:
            chunk = stream.read(min(1 << 20, ceiling + 1 - size))
        except OSError as e:
            raise UsageError(f"-: cannot read standard input ({e.strerror or e})") from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > ceiling == MAX_CONTENT_BYTES and looks_like_export(chunks[0][:256]):
            ceiling = WRAPPER_MAX_BYTES  # an SDK export wrapper: the ceiling is its content's, as for a file
    if size > ceiling:
        return InputFile(STDIN, size, None, "payload",
                         f"more than {ceiling} bytes (the v1 ceiling) on standard input; not read further")
    data = b"".join(chunks)
    role, hint, doubt = detect_role(data)
    return InputFile(STDIN, len(data), data, role, hint, 0, doubt)


def read_file(path: str):
    """The :class:`~inspector.checkpoint.InputFile` at ``path``, a local path or a URL (``http(s)://``,
    ``s3://``... through :mod:`inspector.session.sources`; its ``path`` is then the URL without credentials),
    or standard input for ``-`` (:func:`read_stdin`), with its bytes up to the 256 MiB ceiling, else its size
    only. Raises :class:`~inspector.checkpoint.artifact.UnreadableInput` or
    :class:`~inspector.session.sources.SourceError` (an :class:`~inspector.checkpoint.diagnostic.InspectorError`:
    exit 2) for a file that cannot be read, with the reason."""
    from inspector.checkpoint.artifact import read_input
    from inspector.session import sources

    if path == STDIN:
        return read_stdin()
    if sources.is_url(path):
        return sources.read_input_at(path)
    return read_input(path)


def not_a_checkpoint_error(reason: str) -> UsageError:
    """The :class:`UsageError` (exit 2) for input that is not a checkpoint file: ``reason`` and what
    checkpoint files look like (``plain.toml``)."""
    from inspector.checkpoint.rules.catalogue import plain_texts

    texts = plain_texts()
    return UsageError(f"{reason}\n{texts['what_checkpoints_look_like']}")


def verified(files, on_stage=None, *, retain: bool = True):
    """(payload, descriptor, report) of recognised input files; the report is always computed on
    the original bytes. Raises UsageError for two payloads or two descriptors.

    ``retain=False``: the parsed payload is freed even when :func:`retain_parsed_payloads` asked to
    keep it, for a command with more work to do after the verification (``report`` parses the files
    again for its gate: both parses at once would hold about twice the memory)."""
    from inspector.checkpoint import pair_inputs, verify

    # (PairingError, or UnreadableInput for an SDK export wrapper whose content cannot be taken out: exit 2)
    payload, descriptor = pair_inputs(files)
    report = verify(payload.data if payload else None, descriptor.data if descriptor else None,
                    payload_size=payload.size if payload else None, on_stage=on_stage,
                    keep=_retained if retain else None)
    if _retained and retain:
        gc.freeze()  # the kept objects would otherwise be scanned by every later collection
    return payload, descriptor, report


def exit_code(report) -> int:
    """The exit code of a report: 0 verified (or consistent), 1 a rule failed, 3 inconclusive."""
    if report.ok:
        return EXIT_OK
    return EXIT_INCONCLUSIVE if report.inconclusive else EXIT_FAIL


def write_new(path: str, data) -> None:
    """Write ``data`` (``bytes``, or an iterable of ``bytes`` chunks written as they come) to a file that must not exist yet (``O_EXCL``: never overwrites, inputs included;
    an existing FIFO or device is refused without being opened), every byte, flushed to the disk
    (:func:`inspector.session.writing.write_new_file`). A write that does not complete (disk full,
    a ``close`` that fails, Ctrl+C, ...) removes the file it created: no partial file is left.

    Raises:
        UsageError: ``path`` exists, or names no file that can be made (a missing folder, no
        permission, a read-only file system: exit 2, ``PATH: cannot write (REASON)``; nothing was created).
        OutputError: the file could not be written whole (disk full, quota, an I/O error: exit 3,
        ``cannot write the output: PATH: No space left on device``; nothing is left of it).
    """
    from inspector.checkpoint.artifact import display_path

    try:
        write_new_file(path, data)
    except FileExistsError:
        raise UsageError(f"{display_path(path)} exists; choose a new file name") from None
    except OSError as e:
        reason = e.strerror or type(e).__name__
        if e.errno in _UNUSABLE_NAME:
            raise UsageError(f"{display_path(path)}: cannot write ({reason})") from None
        raise OutputError(f"{display_path(path)}: {reason}") from None


#: Why a new file's name cannot be used at all (bad usage, exit 2), as opposed to a file that could not be
#: written whole (exit 3).
_UNUSABLE_NAME = frozenset(getattr(errno, n) for n in ("ENOENT", "ENOTDIR", "EISDIR", "EACCES", "EPERM", "EROFS",
                                                       "ENAMETOOLONG", "ELOOP", "EINVAL") if hasattr(errno, n))


def remove_new(paths: list[str]) -> list[str]:
    """Remove files this command created (each with O_EXCL, so never a file that existed before);
    returns those removed. Never raises: it runs while another failure is on its way out."""
    removed = []
    for path in paths:
        try:
            os.remove(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def same_path(a: str, b: str) -> bool:
    """Two spellings of one file name (``./x`` and ``x``, ``d/../x``), before either exists."""
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def emit(text: str, output: str | None) -> None:
    """``text`` to ``output`` (a new file, :func:`write_new`) or, without one, to standard output."""
    if output:
        write_new(output, text.encode("utf-8"))
    else:
        out(text)
