"""Entry script of the frozen application (PyInstaller runs this instead of the console script).

Same behaviour as ``checkpoint-inspector`` from pip (:func:`inspector.entry.main`), plus, when
the desktop window is about to open, the display-library preflight of
:mod:`inspector.platform_check`: a missing system library (e.g. ``libxcb-cursor0``) gives a
message naming it and the install command, and exit code 3, never a Qt abort/core dump.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run the ``checkpoint-inspector`` command from the bundle; returns its exit code."""
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
