"""The desktop inspector (PySide6). Imported lazily: the engine and CLI never load Qt."""

from __future__ import annotations


def launch(argv: list[str]) -> int:
    """Open the main window on ``argv`` files (or the bundled sample); returns the exit code."""
    try:
        from .app import run
    except ImportError as e:  # PySide6 missing
        import sys

        sys.stderr.write(f"checkpoint-inspector: the desktop app needs PySide6 ({e}).\n"
                         "Install it with: pip install 'checkpoint-inspector[gui]'\n")
        return 2
    return run(argv)
