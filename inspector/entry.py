"""The ``checkpoint-inspector`` console script: subcommands go to the headless CLI; no
arguments, or only names of existing files/folders, open the desktop window. Kept apart from
both front-ends so ``inspector.cli`` and ``inspector.gui`` never import each other.

``--self-test`` is dispatched first of all, to :mod:`inspector.selftest` (installation check).

Anything else never opens the window (a headless CI job would hang on it): an unknown option,
or a first word that is neither a command nor an existing path ("unknown command 'verfy', did
you mean 'verify'?"), exits 2 with usage, as argparse does. A crash anywhere exits with
:data:`~inspector.cli.main.EXIT_INTERNAL` (3), never with a verdict code (0/1).
"""

from __future__ import annotations

import difflib
import os
import sys

from inspector.cli.common import install_whole_stdout
from inspector.cli.main import EXIT_USAGE, SUBCOMMANDS, guarded, retain_parsed_payloads

_HEADLESS_FLAGS = ("-h", "--help", "--version")
SELF_TEST_FLAG = "--self-test"
#: Open a window of its own even when another instance runs (default: hand the files to it).
NEW_WINDOW_FLAG = "--new-window"
_KNOWN_OPTIONS = (SELF_TEST_FLAG, NEW_WINDOW_FLAG) + _HEADLESS_FLAGS
_USAGE = ("usage: checkpoint-inspector [--new-window] [FILE ...]\n"
          "       checkpoint-inspector {%s} ...\n"
          "       checkpoint-inspector --self-test | --help | --version\n" % ",".join(SUBCOMMANDS))


def display_path(path: str) -> str:
    """:func:`inspector.checkpoint.display_path` (a name made safe to print), imported when a usage error
    needs it: the dispatch itself imports none of the engine."""
    from inspector.checkpoint.artifact import display_path as shown

    return shown(path)


def _exists(path: str) -> bool:
    """The path names something (a file, folder, ...); a permission problem counts as existing:
    the window then says what is wrong with it."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: an embedded NUL
        return False
    except OSError:
        return True
    return True


def window_paths(argv: list[str]) -> tuple[list[str] | None, str | None]:
    """Decide whether ``argv`` (not a subcommand) opens the window.

    Returns:
        ``(paths, None)``: open the window on ``paths`` (``[]``: the bundled sample; ``--new-window`` is
        not among them, see :func:`wants_new_window`);
        ``(None, message)``: refuse, with the error sentence for stderr (exit 2).
    """
    paths, options_done = [], False
    for k, arg in enumerate(argv):
        if not options_done and arg == "--":
            options_done = True
            continue
        if not options_done and arg == NEW_WINDOW_FLAG:
            continue
        if not options_done and arg.startswith("-") and arg != "-":
            close = difflib.get_close_matches(arg, _KNOWN_OPTIONS, n=1)
            hint = f", did you mean '{close[0]}'?" if close else ""
            return None, f"unknown option '{display_path(arg)}'{hint}"
        if not _exists(arg):
            looks_like_path = os.sep in arg or "/" in arg or "." in arg
            if k == 0 and not looks_like_path and not options_done:
                close = difflib.get_close_matches(arg, SUBCOMMANDS, n=1, cutoff=0.5)
                hint = f", did you mean '{close[0]}'?" if close else ""
                return None, (f"unknown command '{display_path(arg)}'{hint} "
                              f"(commands: {', '.join(SUBCOMMANDS)}; or give files to open in the window)")
            return None, f"{display_path(arg)}: no such file or folder"
        paths.append(arg)
    return paths, None


def wants_new_window(argv: list[str]) -> bool:
    """True when ``--new-window`` comes before any ``--`` in ``argv`` (the window then never hands its
    files to another instance: :mod:`inspector.gui.single_instance`)."""
    return NEW_WINDOW_FLAG in argv[:argv.index("--")] if "--" in argv else NEW_WINDOW_FLAG in argv


def opens_window(argv: list[str]) -> bool:
    """True when :func:`main` would open the desktop window for ``argv``: no arguments, or only
    names of existing files/folders (not a subcommand, option or mistyped command)."""
    if argv and (argv[0] == SELF_TEST_FLAG or argv[0] in SUBCOMMANDS or argv[0] in _HEADLESS_FLAGS):
        return False
    return window_paths(argv)[0] is not None


def main(argv: list[str] | None = None) -> int:
    """Dispatch to :mod:`inspector.selftest`, :func:`inspector.cli.main` or :func:`inspector.gui.launch`;
    returns the exit code (2 for bad usage; 3 for an internal error, never 0/1 on a crash).

    Without ``argv`` (the process's own command line), a command that verified a payload ends the
    process itself once its output is flushed (``os._exit`` with the same code), skipping the free
    of the parsed value; with ``argv`` (a caller in-process) it always returns."""
    if sys.stderr is None:  # the windowed Windows executable, or started with stderr closed: messages go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # instead of failing on the first one (exit 3)
    if argv is not None:
        return guarded(_dispatch, list(argv))
    # the process's own command line: it exits right after, so a verified payload's parsed value
    # (millions of objects) is not freed one by one (the operating system takes the memory back)
    kept = retain_parsed_payloads()
    install_whole_stdout()  # every byte written, or exit 3 (inspector.session.writing)
    code = guarded(_dispatch, list(sys.argv[1:]))
    if kept:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - a closed pipe: leave as usual, Python reports it
            return code
        os._exit(code)
    return code


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == SELF_TEST_FLAG:
        from inspector import selftest

        return selftest.main(argv[1:])
    if argv and (argv[0] in SUBCOMMANDS or argv[0] in _HEADLESS_FLAGS):
        from inspector.cli import main as cli_main

        return cli_main(argv)
    paths, problem = window_paths(argv)
    if paths is None:
        sys.stderr.write(_USAGE + f"checkpoint-inspector: error: {problem}\n")
        return EXIT_USAGE
    from inspector.gui import launch  # lazy: headless commands never import Qt

    return launch(paths, new_window=wants_new_window(argv))
