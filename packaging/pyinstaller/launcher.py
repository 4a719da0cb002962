"""Entry script of the frozen application (PyInstaller runs this instead of the console script).

Same behaviour as ``checkpoint-inspector`` from pip (:func:`inspector.entry.main`), plus, when
the desktop window is about to open, the display-library preflight of
:mod:`inspector.platform_check`: a missing system library (e.g. ``libxcb-cursor0``) gives a
message naming it and the install command, and exit code 3, never a Qt abort/core dump.

The window verifies files over 4 MiB in worker processes that ``multiprocessing`` starts by running
this very executable again with its own arguments (``--multiprocessing-fork ...``, and ``-B -s -c ...``
for its resource tracker). :func:`multiprocessing.freeze_support` must see them before anything else
does: without it the worker got the command line's "unknown option" (exit 2) and every large file
failed to open in the packaged window with "Internal error (exit code 2)".
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run the ``checkpoint-inspector`` command from the bundle; returns its exit code.

    A worker process started by ``multiprocessing`` runs its job inside ``freeze_support()`` and
    exits there; it never reaches the command line."""
    import multiprocessing

    multiprocessing.freeze_support()
    from inspector import entry

    argv = sys.argv[1:]
    if entry.opens_window(argv):
        from inspector import platform_check

        code = platform_check.preflight()
        if code is not None:
            return code
        try:
            platform_check.install_fatal_platform_handler()
        except ImportError:
            pass  # no Qt in this build: inspector.gui.launch reports that itself
    return entry.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
