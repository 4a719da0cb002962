"""The open document and its names (inspector/gui/document.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_the_bundled_sample_is_labelled_as_such(qtbot, window):
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()
    assert window.header.subtitle.text().startswith(
        "bundled sample — File ▸ Open or drop your own files   —   payload sample.payload.json (")
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert "bundled sample" not in window.header.subtitle.text()
