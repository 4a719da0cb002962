"""Colours that read in any palette: the timeline's marks (3:1) and labels (4.5:1), the
legend and the verdict colours (4.5:1) meet WCAG 2.1 AA in light, dark and high-contrast palettes."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.checkpoint import Verdict  # noqa: E402
from inspector.gui import style  # noqa: E402
from inspector.gui.widgets.timeline_paint import CATEGORY_COLOURS, colour_on  # noqa: E402

#: (window, base, alternate base) of a light, a dark and a high-contrast palette
PALETTES = {"light": ("#efefef", "#ffffff", "#f7f7f7"), "dark": ("#2d2d2d", "#1e1e1e", "#262626"),
            "high-contrast": ("#000000", "#000000", "#0a0a0a")}
MARKS = list(CATEGORY_COLOURS.values()) + ["#f0a000", "#2e7d32", "#37474f"]


def test_the_measure_is_wcag_2():
    assert round(style.contrast_ratio(QColor("black"), QColor("white")), 2) == 21.0
    assert round(style.contrast_ratio(QColor("#777777"), QColor("white")), 2) == 4.48
    # the figures the audit measured, before: run marks on a dark lane, lint marks on white
    assert style.contrast_ratio(QColor("#37474f"), QColor("#1e1e1e")) < 2.0
    assert style.contrast_ratio(QColor("#f0a000"), QColor("#ffffff")) < 3.0


@pytest.mark.parametrize("name", PALETTES)
def test_marks_and_labels_read_on_every_lane_background(name):
    for bg in (QColor(c) for c in PALETTES[name]):
        for c in MARKS:
            assert style.contrast_ratio(colour_on(c, bg), bg) >= 3.0, (name, c, bg.name())
            assert style.contrast_ratio(colour_on(c, bg, 4.5), bg) >= 4.5, (name, c, bg.name())
    # a colour that already reads is left as it is (hue and all)
    assert colour_on("#c62828", QColor("#ffffff")).name() == "#c62828"


@pytest.mark.parametrize("name", PALETTES)
def test_verdict_colours_read_on_the_window(qapp, name):
    window, base, alt = PALETTES[name]
    old = QApplication.palette()
    pal = QPalette(old)
    pal.setColor(QPalette.ColorRole.Window, QColor(window))
    pal.setColor(QPalette.ColorRole.Base, QColor(base))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor(alt))
    QApplication.setPalette(pal)
    try:
        for v in Verdict:
            assert style.contrast_ratio(style.colour(v), QColor(window)) >= 4.5, (name, v)
    finally:
        QApplication.setPalette(old)
