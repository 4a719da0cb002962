"""Small screens: in a narrow window (1024x700 on Debian's fonts) the verdict's plain sentence is shown whole (it was cut: "...from different
checkpoi…"), and a window bigger than its screen (a first start at 200 % on a 1080-line screen opened taller than
the screen) is made to fit it when shown."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtWidgets import QApplication  # noqa: E402

from .conftest import CASES, open_and_wait  # noqa: E402

BROKEN = [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"]


def test_the_headline_is_whole_in_a_narrow_window(qtbot, window):
    window.resize(1024, 700)
    report = open_and_wait(qtbot, window, BROKEN)
    QApplication.processEvents()
    title = window.header.title
    assert title.text() == "NOT VERIFIED: " + report.root_cause.rule.plain.meaning
    # as narrow as makes the sentence need three lines with these fonts (1024 px did on Debian's)
    advance = title.fontMetrics().horizontalAdvance(title.text())
    window.resize(window.width() + round(advance / 2.5) - title.contentsRect().width(), 700)
    QApplication.processEvents()
    assert 2 * title.contentsRect().width() < advance < 2.7 * title.contentsRect().width()
    shown = title.displayed_text()
    assert "…" not in shown and shown.replace("\n", " ") == title.text()
    assert shown.count("\n") == 2  # on three lines


def test_a_window_larger_than_its_screen_is_made_to_fit_when_shown(qtbot, settings):
    from inspector.gui.window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    avail = w.screen().availableGeometry()
    w.resize(avail.width() + 900, avail.height() + 700)
    w.show()
    qtbot.waitUntil(lambda: w.height() <= avail.height() and w.width() <= avail.width(), timeout=3000)
    assert avail.contains(w.frameGeometry().topLeft())
