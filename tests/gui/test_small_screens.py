"""Small screens: in a narrow window (1024x700 on Debian's fonts) the verdict's plain sentence is shown whole (it was cut: "...from different
checkpoi…"), and a window bigger than its screen (a first start at 200 % on a 1080-line screen opened taller than
the screen) is made to fit it when shown."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtTest import QTest  # noqa: E402
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


def test_a_first_start_that_grew_past_its_screen_is_made_to_fit_when_shown(qtbot, settings):
    """At its first show the window grows to its panes' minimums before the compact layout lowers them (200 % on
    1080 lines: 562 px tall on a 540 px screen); once laid out, it is made to fit."""
    from inspector.gui.window import MainWindow

    w = MainWindow(settings=settings)  # (no remembered geometry: a first start)
    qtbot.addWidget(w)
    avail = w.screen().availableGeometry()
    w.header.setMinimumHeight(avail.height() + 300)  # the minimums at the show...
    w.show()
    assert w.height() > avail.height()
    w.header.setMinimumHeight(0)  # ...lowered by the layout right after it
    qtbot.waitUntil(lambda: w.height() <= avail.height() and w.width() <= avail.width(), timeout=3000)
    assert avail.contains(w.frameGeometry().topLeft())


def test_a_size_asked_for_is_kept(qtbot, settings):
    from inspector.gui.window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    avail = w.screen().availableGeometry()
    w.resize(avail.width() + 200, avail.height() + 100)
    w.show()
    QTest.qWait(50)
    assert (w.width(), w.height()) == (avail.width() + 200, avail.height() + 100)
