"""The desktop inspector (PySide6). Imported lazily: the engine and CLI never load Qt."""

from __future__ import annotations


def launch(argv: list[str], new_window: bool = False) -> int:
    """Open the main window on ``argv`` files (or the bundled sample); returns the exit code.

    ``new_window`` (``--new-window``): open a window of its own even when another instance of this user
    runs (by default the files go to that one's window: :mod:`inspector.gui.single_instance`)."""
    try:
        from .app import run
    except ImportError as e:  # PySide6 missing, or a system library Qt needs
        import sys

        from inspector.platform_check import EXIT_MISSING_LIBRARY, import_failure_text

        text = import_failure_text(e)
        if sys.stderr is not None:
            sys.stderr.write(text + "\n")
        return EXIT_MISSING_LIBRARY if "Qt (PySide6, installed) needs" in text else 2
    return run(argv, new_window=new_window)
