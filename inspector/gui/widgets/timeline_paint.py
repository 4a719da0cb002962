"""Painting helpers of :class:`.timeline.TimelineView`: the sizes and colours of the
timeline, an event's mark by its category, the loop's passes with their model calls (FORMAT.md 4.17,
:mod:`inspector.checkpoint.analysis.passes` through the lanes) and the tool-call bars. Only what is on screen
is drawn: the passes are found by bisection over a lane's pass boundaries."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen, QPolygonF

from inspector.checkpoint.analysis.views import CATEGORY, EVENT_KINDS

from .. import style

__all__ = ["CATEGORY_COLOURS", "colour_on", "first_per_column", "paint_density", "paint_passes", "paint_rule_labels", "paint_tools"]

#: category -> colour (marks also differ in shape, never by colour alone)
CATEGORY_COLOURS = {
    "run": "#37474f", "turn": "#1565c0", "tool": "#e65100", "model": "#6a1b9a",
    "cognitive": "#00796b", "error": "#c62828", "other": "#8d8d8d",
}
_CAT = [CATEGORY[k] for k in EVENT_KINDS] + ["other"]
_LANE_H = 34
_AXIS_H = 18
_HEADER_W = 230  # the lane-label column's width, at most (header_width)
_HEADER_MIN = 110
_MARGIN = 14
_PASS = (21, 101, 192)  # the passes' blue (the turn marks' colour)


def header_width(view_w: int) -> int:
    """The lane-label column's width (px) for a timeline view ``view_w`` px wide: 230, or 30 % of a narrower
    view but never under 110, so that in a narrow pane (the compact layout at 1024x700: a 373 px view) the plot keeps
    most of the width (234 px there; it had 115)."""
    return max(_HEADER_MIN, min(_HEADER_W, view_w * 3 // 10))


def mark_backgrounds(bg: QColor) -> tuple[QColor, QColor, QColor]:
    """What a mark of a lane with background ``bg`` is drawn on: the lane, a pass's band and its model call's band
    (:func:`paint_passes`: the passes' blue at alpha 28 and 90)."""
    return (bg, style.over(_PASS, bg, 28), style.over(_PASS, bg, 90))


@lru_cache(maxsize=256)
def _mark_colour(cat: str, bg_rgb: int) -> QColor:
    """A mark's colour on a lane of background ``bg_rgb`` (once per category and background: marks are many)."""
    return style.readable_on_all(CATEGORY_COLOURS[cat], mark_backgrounds(QColor.fromRgb(bg_rgb)), 3.0)


def colour_on(colour, bg: QColor, minimum: float = 3.0) -> QColor:
    """``colour`` (a ``#rrggbb`` string, a ``QColor`` or an ``(r, g, b)`` tuple) readable on the lane background
    ``bg``: WCAG contrast at least ``minimum`` (3 for marks, 4.5 for text: WCAG 2.2), from the palette's light
    or dark."""
    return style.readable(QColor(*colour) if isinstance(colour, tuple) else QColor(colour), bg, minimum)


def paint_passes(p, lane, values, x_of, visible: tuple[int, int] | None, top: float, w: int, fm,
                 bg: QColor | None = None, pass_values=None, left: int = _HEADER_W) -> None:
    """Paint ``lane``'s passes as bands (``P1``...) with each model call as an inner band (dashed when
    no ``turn_end`` closed it). ``values``: the lane's x values (sequences or timestamps); ``x_of``:
    value -> viewport x; ``visible``: the ``(first, end)`` event indexes on screen when the values are
    sorted (the passes outside are skipped without a look), else ``None``; ``top``: the lane band's
    top (pixels); ``w``: the viewport width (pixels); ``bg``: the lane's background (the labels' contrast);
    ``pass_values``: ``values`` at each pass's first event when known (``Lane.pass_seq``/``pass_ts``); ``left``:
    where the plot begins (the lane labels' width, :func:`header_width`)."""
    passes, models = lane.passes(), lane.models
    under = bg if bg is not None else QColor("white")
    label = style.readable_on_all(QColor(*_PASS), (under, style.over(_PASS, under, 28)), 4.5)  # (drawn on the band)
    starts, ends = passes.firsts, passes.lasts  # (C-speed slices; passes are disjoint and in order)
    k_lo, k_hi = (bisect_left(ends, visible[0]), bisect_right(starts, visible[1])) if visible else (0, len(starts))
    if k_hi - k_lo > max(1, w - left) // _LOD_PX:  # more passes than pixels can tell apart
        _paint_passes_dense(p, values, x_of, starts, ends, k_lo, k_hi, top, w,
                            pass_values if pass_values is not None and len(pass_values) == len(starts) else None,
                            left)
        return
    for k in range(k_lo, k_hi):  # a lane may hold hundreds of thousands of passes
        turn, a, b = passes.turn(k), starts[k], passes.last(k)
        xa = x_of(values[a])
        xb = x_of(values[b]) if b is not None else (x_of(values[-1]) + 8)
        if xb < left or xa > w:
            continue
        rect = QRectF(xa, top + 2, max(2.0, xb - xa), _LANE_H - 4)
        p.fillRect(rect, QColor(*_PASS, 28))
        p.setPen(QPen(QColor(*_PASS, 120)))
        p.drawRect(rect)
        if 2 * k + 1 < len(models):
            ma, mb = models[2 * k], (None if models[2 * k + 1] < 0 else models[2 * k + 1])
            mxa = x_of(values[ma])
            mxb = x_of(values[mb]) if mb is not None else xb
            inner = QRectF(mxa, top + 4, max(2.0, mxb - mxa), 5)
            p.fillRect(inner, QColor(*_PASS, 90))
            if mb is None:
                pen = QPen(QColor(*_PASS, 200))
                pen.setStyle(Qt.PenStyle.DashLine)
                p.setPen(pen)
                p.drawRect(inner)
        p.setPen(QPen(label))
        if turn is not None and rect.width() > fm.horizontalAdvance(f"P{turn}") + 4:
            p.drawText(rect.adjusted(2, 8, 0, 0), Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft, f"P{turn}")


#: Below this many pixels a pass, the passes on screen are drawn as density, not one by one (level of detail).
_LOD_PX = 4


def _paint_passes_dense(p, values, x_of, starts, ends, k_lo, k_hi, top: float, w: int, start_values=None,
                        left: int = _HEADER_W) -> None:
    """Level of detail: passes ``k_lo..k_hi`` too narrow to draw one by one. One band from the first to the last,
    and a tick in each pixel column where a pass starts (found by bisection per column: as many steps as the
    view has pixels, however many passes there are)."""
    xa = max(left, x_of(values[starts[k_lo]]))
    last = ends[k_hi - 1]
    xb = min(w, x_of(values[last if last >= 0 else -1]))
    band = QRectF(xa, top + 2, max(2.0, xb - xa), _LANE_H - 4)
    p.fillRect(band, QColor(*_PASS, 28))
    p.setPen(QPen(QColor(*_PASS, 120)))
    p.drawRect(band)
    p.setPen(QPen(QColor(*_PASS, 90)))
    for x, _ in first_per_column(starts, values, x_of, w, k_lo, k_hi, start_values):
        if x >= left:
            p.drawLine(QPointF(int(x), top + 4), QPointF(int(x), top + 9))


def paint_density(p, values, lo_i: int, hi_i: int, top: float, w: int, x0: float, scale: float, bg: QColor,
                  left: int = _HEADER_W) -> None:
    """More events than pixels: one tick per pixel column, as tall as its event count (log); ``values`` ascend,
    ``x0``/``scale`` are the view's first value and pixels per value."""
    p.setPen(QPen(colour_on(CATEGORY_COLOURS["other"], bg), 1))
    x = left + _MARGIN
    i = lo_i
    while x < w and i < hi_i:
        v_hi = x0 + (x + 1 - left - _MARGIN) / scale
        j = bisect_right(values, v_hi, i, hi_i)
        if j > i:
            hgt = min(_LANE_H - 8, 3 + 3 * (j - i).bit_length())
            p.drawLine(x, int(top + _LANE_H / 2 + hgt / 2), x, int(top + _LANE_H / 2 - hgt / 2))
        i = j
        x += 1


def first_per_column(seq, values, x_of, w: int, lo: int = 0, hi: int | None = None, seq_values=None):
    """``(x, i)`` for the first of ``seq[lo:hi]`` (event indexes whose ``values`` ascend) in each pixel column up to
    ``w``: as many steps as there are columns with one, however many indexes share them (bisection skips the
    rest of a column). The level of detail of a zoomed-out lane. ``seq_values``: ``values[seq[k]]``
    for every ``k``, when known (``Lane.pass_seq``): the bisection then runs in C without a key function."""
    hi = len(seq) if hi is None else hi
    if seq_values is None:
        at = values.__getitem__
        keyed = seq
    else:
        at, keyed = None, seq_values
    k = lo
    while k < hi:
        v = values[seq[k]] if seq_values is None else seq_values[k]
        x = x_of(v)
        if x >= w:
            return
        yield x, seq[k]
        edge = v + max(1e-9, (int(x) + 1 - x) / _scale_of(x_of, v))  # the value at this column's right edge
        k = max(k + 1, bisect_left(keyed, edge, k + 1, hi, key=at))


def _scale_of(x_of, v: float) -> float:
    """Pixels per unit of value around ``v`` (``x_of`` is linear)."""
    return max(1e-12, x_of(v + 1.0) - x_of(v))


def paint_tools(p, lane, values, x_of, top: float, w: int, bg: QColor | None = None, left: int = _HEADER_W) -> None:
    """Paint ``lane``'s tool calls as bars under its marks (dashed red to the lane's end without a
    ``tool_end``); arguments as for :func:`paint_passes`."""
    bg = bg if bg is not None else QColor("white")
    drawn: set[tuple[int, int]] = set()  # (pixel column of the start, of the end): one bar each (level of detail)
    for a, b in lane.iter_tools():
        xa = x_of(values[a])
        xb = x_of(values[b]) if b is not None else x_of(values[-1]) + 8
        if xb < left or xa > w or (int(xa), int(xb)) in drawn:
            continue
        drawn.add((int(xa), int(xb)))
        pen = QPen(colour_on(CATEGORY_COLOURS["tool"] if b is not None else CATEGORY_COLOURS["error"], bg), 3)
        if b is None:
            pen.setStyle(Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(QPointF(xa, top + _LANE_H - 4), QPointF(max(xa + 2, xb), top + _LANE_H - 4))


def _mark(p, cat, x, top, mid, bg: QColor | None = None):
    under = bg if bg is not None else QColor("white")
    # readable on the lane and on the pass bands it may fall in (the model call's band is the darkest: a grey mark
    # read 2.72:1 there when only the lane was asked)
    colour = _mark_colour(cat, under.rgb())
    p.setPen(QPen(colour, 2 if cat in ("run", "turn", "error") else 1))
    if cat == "run":
        p.drawLine(QPointF(x, top + 3), QPointF(x, top + _LANE_H - 3))
    elif cat == "turn":
        p.drawLine(QPointF(x, top + 6), QPointF(x, top + _LANE_H - 6))
    elif cat == "tool":
        p.drawLine(QPointF(x, mid - 8), QPointF(x, mid))
    elif cat == "model":
        p.drawLine(QPointF(x, mid), QPointF(x, mid + 8))
    elif cat == "cognitive":
        p.setBrush(colour)
        p.drawPolygon(QPolygonF([QPointF(x, mid - 5), QPointF(x + 4, mid), QPointF(x, mid + 5), QPointF(x - 4, mid)]))
        p.setBrush(Qt.BrushStyle.NoBrush)
    elif cat == "error":
        p.drawLine(QPointF(x - 4, mid - 4), QPointF(x + 4, mid + 4))
        p.drawLine(QPointF(x - 4, mid + 4), QPointF(x + 4, mid - 4))
    else:
        p.drawLine(QPointF(x, mid - 2), QPointF(x, mid + 2))


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw`` (axis ticks)."""
    if raw <= 1:
        return 1.0
    mag = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return float(m * mag)
    return float(10 * mag)


def paint_rule_labels(p, marks: dict, values, x_of, band: tuple, w: int, fm, bg: QColor, left: int = _HEADER_W) -> None:
    """Each event's failing rule ids (``marks``: ``{event index or None: [ids]}``) beside its mark, whole
    (they were once drawn right-aligned at the lane's end, far from their event): from the mark's left
    edge rightwards, or ending at its right edge when the viewport (``w`` px) ends first; below the marks'
    band when the lane has room for a line. ``band``: ``(marks' band top, lane top, lane height)`` in px;
    ``x_of``: value -> viewport x; ``bg``: the lane's background (the text's contrast, 4.5:1)."""
    top, full, full_h = band
    pen = colour_on(CATEGORY_COLOURS["error"], bg, 4.5)
    below = full + full_h - top - _LANE_H >= fm.height() + 2
    base = (top + _LANE_H + fm.ascent() + 1) if below else (top + _LANE_H - 3)
    for e, ids in marks.items():
        if e is None or not ids:
            continue
        x = x_of(values[e])
        if not left <= x <= w:
            continue
        label = "✖ " + ", ".join(ids)
        tw = fm.horizontalAdvance(label)
        tx = max(left + 2, x - 8 if x - 8 + tw <= w - 2 else x + 8 - tw)
        p.fillRect(QRectF(tx - 1, base - fm.ascent(), tw + 2, fm.height()), bg)
        p.setPen(pen)
        p.drawText(QPointF(tx, base), label)
