"""The application: its error banner (inspector/gui/app.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import sys
import pytest
pytest.importorskip("PySide6")
from inspector.gui.jobs import internal_error_text  # noqa: E402


SECRET = "sk-live-SECRET-FROM-PAYLOAD"


def test_unhandled_exception_banner_has_no_exception_text(qtbot, window):
    from inspector.gui import app

    old = sys.excepthook
    try:
        app._install_excepthook(window)
        sys.excepthook(KeyError, KeyError(SECRET), None)
    finally:
        sys.excepthook = old
    text = window.banner_text("error")
    assert text == internal_error_text("KeyError", "handling that action")
    assert SECRET not in text
