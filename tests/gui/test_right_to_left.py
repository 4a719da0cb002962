"""In a right-to-left layout (Arabic, Hebrew) the window is mirrored but the document's own views read left to
right: JSON trees, verdicts, digests, bytes, events, the timeline and the raw text (a tree's "[1 items]" read
"[items 1]", the bytes' text column "}\"logica" for {"logica)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

LTR, RTL = Qt.LayoutDirection.LeftToRight, Qt.LayoutDirection.RightToLeft


@pytest.fixture
def rtl_window(qtbot, settings):
    from inspector.gui.window import MainWindow

    QApplication.setLayoutDirection(RTL)
    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    yield w
    w.close()
    QApplication.setLayoutDirection(LTR)


def test_the_document_views_read_left_to_right_in_a_mirrored_window(qtbot, rtl_window):
    w = rtl_window
    open_and_wait(qtbot, w, [GOLDEN_P, GOLDEN_D])
    assert w.layoutDirection() == RTL and w.header.layoutDirection() == RTL  # the window is mirrored
    views = [w.snap_pane.view, w.resume_pane.view, w.desc_pane.view, w.findings_view, w.digests_view,
             w.hex_payload, w.hex_descriptor, w.resume_panes.events.view, w.resume_panes.timeline,
             *w.raw_editor.editors.values()]
    assert [v.layoutDirection() for v in views] == [LTR] * len(views)
    # and the text is drawn from the left of its cell: the value column of "run_records" ("1 run records")
    view = w.snap_pane.view
    model = view.model()
    snap = next(model.index(r, 0) for r in range(model.rowCount()) if model.data(model.index(r, 0)) == "snapshot")
    view.expand(snap)
    QApplication.processEvents()
    runs = next(model.index(r, 1, snap) for r in range(model.rowCount(snap))
                if model.data(model.index(r, 0, snap)) == "run_records")
    rect = view.visualRect(runs)
    img = view.viewport().grab().toImage()
    bg = img.pixelColor(rect.right() - 2, rect.top() + 1)
    inked = [x for x in range(rect.left(), rect.right()) for y in range(rect.top() + 2, rect.bottom() - 1)
             if img.pixelColor(x, y) != bg]
    assert inked and min(inked) - rect.left() < 12 and rect.right() - max(inked) > 60  # left, not right, aligned


def test_the_bytes_text_column_is_not_mirrored(qtbot, rtl_window):
    """A painter takes the application's direction, not its widget's: the bytes view drew ``{"`` as ``}"``."""
    from PySide6.QtGui import QImage, QPainter

    w = rtl_window
    open_and_wait(qtbot, w, [GOLDEN_P, GOLDEN_D])
    hexv = w.hex_payload
    w.hex_tabs.setCurrentWidget(hexv)
    QApplication.processEvents()
    shot = hexv.viewport().grab().toImage()
    # the first row's text column, drawn again left to right by hand: the same pixels
    assert GOLDEN_P.read_bytes()[:2] == b'{"'
    _cw, lh, _digits, _x_hex, x_txt = hexv._metrics()
    ref = QImage(shot.size(), shot.format())
    ref.fill(hexv.palette().color(hexv.palette().ColorRole.Base))
    p = QPainter(ref)
    p.setLayoutDirection(LTR)
    p.setFont(hexv.font())
    p.setPen(hexv.palette().color(hexv.palette().ColorRole.Text))
    p.drawText(x_txt - hexv.horizontalScrollBar().value(), hexv.fontMetrics().ascent() + 1, "{")
    p.end()
    cw = hexv.fontMetrics().horizontalAdvance("M")
    x0 = x_txt - hexv.horizontalScrollBar().value()
    cols = range(x0, x0 + cw)
    drawn = [[shot.pixelColor(x, y).rgb() for x in cols] for y in range(1, lh)]
    mine = [[ref.pixelColor(x, y).rgb() for x in cols] for y in range(1, lh)]
    assert drawn == mine
