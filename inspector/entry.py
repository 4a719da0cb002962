"""The ``checkpoint-inspector`` console script: subcommands go to the headless CLI, anything
else (no arguments, or files) opens the desktop window. Kept apart from both front-ends so
``inspector.cli`` and ``inspector.gui`` never import each other.

``--self-test`` is dispatched first of all, to :mod:`inspector.selftest` (installation check).
"""

from __future__ import annotations

import sys

from inspector.cli.main import SUBCOMMANDS

_HEADLESS_FLAGS = ("-h", "--help", "--version")
SELF_TEST_FLAG = "--self-test"


def opens_window(argv: list[str]) -> bool:
    """True when :func:`main` would open the desktop window for ``argv`` (no subcommand or flag)."""
    return not (argv and (argv[0] == SELF_TEST_FLAG or argv[0] in SUBCOMMANDS or argv[0] in _HEADLESS_FLAGS))


def main(argv: list[str] | None = None) -> int:
    """Dispatch to :mod:`inspector.selftest`, :func:`inspector.cli.main` or :func:`inspector.gui.launch`;
    returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == SELF_TEST_FLAG:
        from inspector import selftest

        return selftest.main(argv[1:])
    if argv and (argv[0] in SUBCOMMANDS or argv[0] in _HEADLESS_FLAGS):
        from inspector.cli import main as cli_main

        return cli_main(argv)
    from inspector.gui import launch  # lazy: headless commands never import Qt

    return launch(argv)
