"""``checkpoint-inspector`` headless subcommands (the window is opened by :mod:`inspector.entry`).

Exit codes: 0 verified (or consistent, for one input), 1 a rule failed (or ``canon``
rejected the document), 2 unreadable input or bad usage, 3 inconclusive or internal error (an
engine defect left a rule unevaluated, or the program crashed: never reported as verified, never
as a rule failure; the message names the exception type and where it happened, never its text,
which could quote payload content).

This module only dispatches: the options are declared in :mod:`.parser`, and a command's module
(:mod:`.commands`, :mod:`.compare`, :mod:`.scan`, ...) is imported when that command runs, so that
``--help``, ``--version`` and a usage error never import the engine's rules or the session layer.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from importlib import import_module

from .common import (  # noqa: F401 (EXIT_* and the errors are the CLI's public names)
    EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, OutputError, UsageError,
    out as _out, stdout_to_devnull as _stdout_to_devnull, flush_stdout as _flush_stdout,
    take_output_failure as _take_output_failure, err as _err, read_file as _read,
    exit_code as _exit_code, write_new as _write_new, remove_new as _remove_new, same_path as _same_path,
    emit as _emit,
)
from .common import NOT_REDACTED, retain_parsed_payloads  # noqa: F401 (inspector.entry calls it here)
from inspector.checkpoint.diagnostic import InspectorError
from .common import _stdin_taken
from .parser import SUBCOMMANDS, build_parser, parse_args as _parse, unknown_options_hint  # noqa: F401

#: Each subcommand's handler, ``(module, function)``: imported when the command runs. A handler takes the
#: parsed arguments and returns the exit code.
_HANDLERS = {
    "verify": ("commands", "cmd_verify"), "report": ("report", "cmd_report"),
    "describe": ("commands", "cmd_describe"), "canon": ("commands", "cmd_canon"),
    "rules": ("commands", "cmd_rules"), "explain": ("commands", "cmd_explain"),
    "diff": ("compare", "run_diff"), "timeline": ("timeline", "run_timeline"),
    "restore": ("restore", "cmd_restore"), "scan": ("scan", "cmd_scan"), "audit": ("audit", "cmd_audit"),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``checkpoint-inspector`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _stdin_taken.clear()  # (each command may read standard input once: `-`)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return guarded(_run, parser, argv)


def _run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    args = _parse(parser, argv)
    module, name = _HANDLERS[args.command]
    handler = getattr(import_module(f"inspector.cli.{module}"), name)
    try:
        return handler(args)
    except OutputError:
        raise  # (guarded: exit 3)
    except InspectorError as e:  # unusable input or arguments, from whichever layer found it: said once, here
        _err(f"checkpoint-inspector: {e.diagnostics()}")
        return e.exit_status


def guarded(fn, *args) -> int:
    """Run ``fn(*args)`` (returning an exit code) so that nothing escapes as a traceback with a
    verdict's exit code: ``SystemExit`` keeps its code (argparse's 0/2), Ctrl+C gives 130, an
    :class:`OutputError` (stdout closed or full, a new file that cannot be written whole) one line
    and :data:`EXIT_INCONCLUSIVE`, and any other exception prints :func:`internal_error_message`
    and returns :data:`EXIT_INTERNAL`.

    Standard output is flushed here, not by the interpreter at exit (where a failure gives exit
    120), and a write to it that failed while its caller went on (argparse ignores ``OSError`` when
    it prints help) also gives exit 3 (:func:`~.common.take_output_failure`): an output is whole or the
    exit code is 3."""
    try:
        code = fn(*args)
        _flush_stdout()
    except SystemExit:
        try:
            _flush_stdout()
        except OutputError as e:
            return _cannot_write(e.reason)
        failure = _take_output_failure()
        if failure is not None:
            return _cannot_write(failure)
        raise
    except KeyboardInterrupt:
        return 130
    except OutputError as e:
        return _cannot_write(e.reason)
    except BaseException as e:  # noqa: BLE001 - the last line of defence
        failure = _take_output_failure()
        if failure is not None and isinstance(e, OSError):  # a print() to stdout that failed: not a crash
            return _cannot_write(failure)
        try:
            _err(internal_error_message(e))
        except Exception:  # stderr itself is gone: the exit code still tells
            pass
        return EXIT_INTERNAL
    failure = _take_output_failure()
    if failure is not None:
        return _cannot_write(failure)
    return code


def _cannot_write(reason: str) -> int:
    """Say on stderr that the output could not be written (``reason``); returns :data:`EXIT_INCONCLUSIVE`.
    The failure the stream remembered is said with it (forgotten: an outer :func:`guarded` does not repeat it)."""
    _take_output_failure()
    try:
        _err(f"checkpoint-inspector: cannot write the output: {reason}; nothing was reported "
             f"(exit {EXIT_INCONCLUSIVE})")
    except Exception:  # stderr itself is gone: the exit code still tells
        pass
    return EXIT_INCONCLUSIVE


def internal_error_message(exc: BaseException) -> str:
    """One line for stderr about a crash: the exception *type* and the innermost frames of our
    code (file and line), never ``str(exc)``, which may quote checkpoint content."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{_short(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
    return (f"checkpoint-inspector: internal error: {type(exc).__name__}" + (f" at {where}" if where else "")
            + f"; no verdict was reached (exit {EXIT_INTERNAL}). Please report it with this line "
            "(it quotes no checkpoint content).")


def _short(filename: str) -> str:
    parts = filename.replace("\\", "/").split("/")
    return "/".join(parts[parts.index("inspector"):]) if "inspector" in parts else parts[-1]
