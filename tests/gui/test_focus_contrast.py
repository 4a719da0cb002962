"""Focus you can see and colours that read, measured from rendered pixels (inspector/gui/focus.py, style.py): in a
light, a dark and two high-contrast palettes the focus frame of a selected verdict cell, the check box and the
bytes view stands at 3:1 or more against what it frames (WCAG 2.2: they measured 1.08-1.63:1), a selected cell's
text at 4.5:1 (a verdict's red was drawn on the selection blue), the timeline legend's words at 4.5:1 (3.69-4.18:1
in dark palettes), a pass's label on its band at 4.5:1 (4.26-4.41:1) and the marks on a model call's band at 3:1
(a grey mark: 2.72:1)."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QRect, Qt  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui import style  # noqa: E402
from inspector.gui.widgets import timeline_paint  # noqa: E402

from .conftest import CASES, open_and_wait  # noqa: E402

R = QPalette.ColorRole
#: (Window, Base, AlternateBase, Text, Button, Highlight, HighlightedText) of each palette
PALETTES = {
    "light": ("#efefef", "#ffffff", "#f7f7f7", "#000000", "#efefef", "#308cc6", "#ffffff"),  # Fusion's own
    "dark": ("#353535", "#2a2a2a", "#424242", "#ffffff", "#3c3c3c", "#2a82da", "#ffffff"),
    "high-contrast-light": ("#ffffff", "#ffffff", "#e8e8e8", "#000000", "#ffffff", "#37006e", "#ffffff"),
    "high-contrast-dark": ("#000000", "#000000", "#1a1a1a", "#ffffff", "#000000", "#1aebff", "#000000"),
}
BROKEN = [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"]


def _palette(name) -> QPalette:
    window, base, alt, text, button, hi, hitext = (QColor(c) for c in PALETTES[name])
    pal = QPalette(QApplication.palette())
    for role, c in ((R.Window, window), (R.Base, base), (R.AlternateBase, alt), (R.Button, button),
                    (R.Highlight, hi), (R.HighlightedText, hitext)):
        pal.setColor(role, c)
    for role in (R.WindowText, R.Text, R.ButtonText):
        pal.setColor(role, text)
    return pal


@pytest.fixture(params=list(PALETTES))
def themed(request, qtbot, settings):
    """A main window made under palette ``request.param`` (the app's palette is put back after)."""
    from inspector.gui.window import MainWindow

    old = QApplication.palette()
    QApplication.setPalette(_palette(request.param))
    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    yield request.param, w
    w.close()
    QApplication.setPalette(old)


def _background(img, rect: QRect) -> QColor:
    """The most common colour in ``rect`` of ``img`` (the surface the text or frame is drawn on)."""
    return QColor(Counter(img.pixelColor(x, y).rgb() for x in range(rect.left(), rect.right())
                          for y in range(rect.top(), rect.bottom())).most_common(1)[0][0])


def _ink(img, rect: QRect, bg: QColor) -> float:
    """The highest contrast of any pixel in ``rect`` with ``bg`` (a glyph's stem or a frame is drawn in full)."""
    return max(style.contrast_ratio(img.pixelColor(x, y), bg) for x in range(rect.left(), rect.right())
               for y in range(rect.top(), rect.bottom()))


def test_the_focus_frame_and_text_of_a_selected_verdict_cell(themed, qtbot):
    name, w = themed
    open_and_wait(qtbot, w, BROKEN)
    view = w.findings_view
    QTest.keyClick(w, Qt.Key.Key_F8, Qt.KeyboardModifier.ControlModifier)  # the root cause, focused
    assert view.hasFocus()
    img = view.viewport().grab().toImage()
    cell = view.visualRect(view.currentIndex())
    bg = _background(img, cell)
    assert style.contrast_ratio(bg, w.palette().color(R.Highlight)) < 1.05  # the selection's colour
    # the frame's top edge: the cell's first rows, above any glyph
    frame = _ink(img, QRect(cell.left(), cell.top(), cell.width(), 3), bg)
    assert frame >= 3.0, (name, frame, bg.name())
    text = QRect(cell.left() + 4, cell.top() + 3, cell.width() - 8, cell.height() - 6)
    assert _ink(img, text, bg) >= 4.5, name
    # the selection itself reads under its text (light: #308cc6 under white was 3.69:1)
    assert style.contrast_ratio(w.palette().color(R.HighlightedText), w.palette().color(R.Highlight)) >= 4.5


def test_the_focus_frame_of_the_check_box_and_the_bytes_view(themed, qtbot):
    name, w = themed
    open_and_wait(qtbot, w, BROKEN)
    box = w.failures_only
    before = box.grab().toImage()
    box.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(box.hasFocus, timeout=2000)
    after = box.grab().toImage()
    changed = [(x, y) for x in range(after.width()) for y in range(after.height())
               if after.pixelColor(x, y) != before.pixelColor(x, y)]
    assert changed, name  # the focus shows
    bg = _background(before, before.rect())
    assert max(style.contrast_ratio(after.pixelColor(x, y), bg) for x, y in changed) >= 3.0, name
    hexv = w.hex_payload
    w.hex_tabs.setCurrentWidget(hexv)
    w.focus_pane(hexv)
    qtbot.waitUntil(hexv.hasFocus, timeout=2000)
    img = hexv.viewport().grab().toImage()
    base = w.palette().color(R.Base)
    edge = img.pixelColor(1, img.height() // 2)
    assert style.contrast_ratio(edge, base) >= 3.0, (name, edge.name())


def test_the_timeline_legend_reads(themed, qtbot):
    name, w = themed
    open_and_wait(qtbot, w, BROKEN)
    legend = w.resume_panes.timeline_legend
    w.resume_panes.dock.show()
    w.resume_panes.tabs.setCurrentIndex(0)
    legend.show()
    img = legend.grab().toImage()
    bg = _background(img, img.rect())
    text = legend.text()
    assert all(word in text for word in ("┃ run", "│ turn", "╵ tool", "╷ model", "◆ cognitive", "✕ error"))
    assert _ink(img, img.rect(), bg) >= 4.5, name
    for span in text.split("</span>")[:7]:  # each coloured word, as drawn on the legend's own background
        colour = QColor(span.split("color:")[1].split("'")[0])
        assert style.contrast_ratio(colour, bg) >= 4.5, (name, span, colour.name(), bg.name())


@pytest.mark.parametrize("name", list(PALETTES))
def test_a_pass_label_and_the_marks_read_on_the_bands(name):
    pal = _palette(name)
    lanes = [pal.color(R.Base), pal.color(R.AlternateBase),
             QColor("#fff3c4") if pal.color(R.Base).lightnessF() > 0.5 else QColor("#4a4020")]  # (source run)
    for bg in lanes:
        band, model = style.over(timeline_paint._PASS, bg, 28), style.over(timeline_paint._PASS, bg, 90)
        label = style.readable_on_all(QColor(*timeline_paint._PASS), (bg, band), 4.5)
        assert style.contrast_ratio(label, band) >= 4.5, (name, bg.name())
        for cat in timeline_paint.CATEGORY_COLOURS:
            mark = timeline_paint._mark_colour(cat, bg.rgb())
            assert min(style.contrast_ratio(mark, b) for b in (bg, band, model)) >= 3.0, (name, cat, bg.name())
    # before: a grey mark was made readable on the lane only, and stood at 2.72:1 on a model call's band
    light = QColor("#fff3c4")
    old = timeline_paint.colour_on(timeline_paint.CATEGORY_COLOURS["other"], light)
    assert style.contrast_ratio(old, style.over(timeline_paint._PASS, light, 90)) < 3.0
