"""What every ``checkpoint-inspector`` subcommand shares: exit codes, standard output and error that
survive a closed pipe, reading inputs, verifying them, and writing only new files (never over an input).
"""

from __future__ import annotations

import gc
import os
import sys

from inspector.checkpoint import PairingError, UnreadableInput, display_path, pair_inputs, read_input, verify
from inspector.checkpoint.rules.catalogue import plain_texts

from .termsafe import terminal_safe_lines

__all__ = ["retain_parsed_payloads", "EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "EXIT_INCONCLUSIVE", "EXIT_INTERNAL", "OutputError", "UsageError",
           "out", "stdout_to_devnull", "err", "read_file", "not_a_checkpoint_error", "verified", "exit_code", "write_new", "remove_new", "same_path", "emit"]

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



class OutputError(Exception):
    """Standard output cannot take the report (closed, full disk, ...); ``reason`` says why in a
    few words. :func:`guarded` turns it into one line on stderr and exit 3: no report was delivered."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def out(text: str | bytes) -> bool:
    """Write to stdout (text is written as it is: a text output makes its lines terminal-safe
    first, :mod:`.termsafe`). A reader that went away (``| head``) is not an error: the rest of the
    output is dropped, ``False`` is returned, and the command still returns its verdict's exit
    code (``report`` with a redacted copy undoes its job instead). Any other failure to write
    (stdout closed, ``ENOSPC``, ``EBADF``) raises :class:`OutputError`. ``True`` once written."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        raise OutputError("standard output is closed")
    try:
        sys.stdout.buffer.write(text)
        sys.stdout.buffer.flush()
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


def stdout_to_devnull() -> None:
    """Point stdout's file descriptor at /dev/null, so what stays buffered does not fail again at
    the interpreter's final flush. Raises ``OSError``/``ValueError`` if stdout has no descriptor."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def err(text: str) -> None:
    """One message on stderr, each of its lines terminal-safe (:func:`.termsafe.terminal_safe_lines`:
    its own line breaks kept; a piece from a file that may hold a newline is passed through
    :func:`.termsafe.terminal_safe` by the caller, so it stays on its line)."""
    sys.stderr.write(terminal_safe_lines(text.rstrip("\n")) + "\n")


class UsageError(Exception):
    """Unusable input or arguments: reported on stderr, exit code 2."""


def read_file(path: str):
    """The :class:`~inspector.checkpoint.InputFile` at ``path`` (bytes up to the 256 MiB ceiling, else its size
    only). Raises :class:`UsageError` (exit 2) for a file that cannot be read, with the reason."""
    try:
        return read_input(path)
    except UnreadableInput as e:
        raise UsageError(str(e)) from None


def not_a_checkpoint_error(reason: str) -> UsageError:
    """The :class:`UsageError` (exit 2) for input that is not a checkpoint file: ``reason`` and what
    checkpoint files look like (``plain.toml``)."""
    texts = plain_texts()
    return UsageError(f"{reason}\n{texts['what_checkpoints_look_like']}")


def verified(files, on_stage=None, *, retain: bool = True):
    """(payload, descriptor, report) of recognised input files; the report is always computed on
    the original bytes. Raises UsageError for two payloads or two descriptors.

    ``retain=False``: the parsed payload is freed even when :func:`retain_parsed_payloads` asked to
    keep it, for a command with more work to do after the verification (``report`` parses the files
    again for its gate: both parses at once would hold about twice the memory)."""
    try:
        payload, descriptor = pair_inputs(files)
    except (PairingError, UnreadableInput) as e:  # (an SDK export wrapper whose content cannot be taken out)
        raise UsageError(str(e)) from None
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
    """Write ``data`` (``bytes``, or an iterable of ``bytes`` chunks written as they come) to a file that
    must not exist yet (O_EXCL: never overwrites, inputs included). A write that does not complete (disk
    full, Ctrl+C, an error while the chunks are made, ...) removes the file it created: no partial file is
    left. Raises :class:`UsageError` (the file exists, or cannot be written)."""
    try:
        fh = open(path, "xb")
    except FileExistsError:
        raise UsageError(f"{display_path(path)} exists; choose a new file name") from None
    except OSError as e:
        raise UsageError(f"{display_path(path)}: cannot write ({e.strerror or type(e).__name__})") from None
    try:
        with fh:
            if isinstance(data, (bytes, bytearray, memoryview)):
                fh.write(data)
            else:
                for chunk in data:
                    fh.write(chunk)
    except BaseException as e:
        remove_new([path])  # created just now with O_EXCL: ours
        if isinstance(e, OSError):
            raise UsageError(f"{display_path(path)}: cannot write ({e.strerror or type(e).__name__})") from None
        raise


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
