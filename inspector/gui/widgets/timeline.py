"""``TimelineView``: the runs of a checkpoint as lanes along sequence or time.

One lane per run record (:class:`inspector.checkpoint.analysis.views.Lane`); its events are marks whose
shape says their kind (agent start/end: full-height bar; turn start/end: tall line; tool
events: upper tick; model calls: lower tick; cognitive binding: diamond; errors: a cross), the
loop's passes are bands (``P1``, ``P2``...: a pass runs from its ``turn_start`` to the event before
the next pass, its tools included; a retried ``turn_start`` stays in its pass) with the model call
as an inner band at the top (dashed when no ``turn_end`` closed it), tool calls are bars under the
marks (from ``tool_start``, or ``tool_execution_start`` without streaming; a call without
``tool_end`` is dashed to the lane's end), the source run is shaded and labelled, a terminal status
ends the lane with a block, and the loop checkpoint's boundary is a vertical rule after the last
event of its pass (FORMAT.md 4.17: by event order, never by timestamp). Failing rules and lint
findings that point into a run or an event are marked on it.

Everything is painted (no per-event widgets), only for the lanes on screen and the events in
the visible range (binary search on sorted positions); when a lane has more events than
pixels, each pixel column shows one density tick, and error events are still drawn. Nothing
here grows with the document on the GUI thread except per-lane constants.
"""

from __future__ import annotations

import datetime
import operator
from bisect import bisect_left, bisect_right
from itertools import islice

from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip

from inspector.session.visible import visible
from ..focus import paint_focus_frame
from .timeline_text import TimelineWords
from .timeline_paint import (  # noqa: F401 (CATEGORY_COLOURS and the sizes are the view's too)
    _AXIS_H, _CAT, _HEADER_W, _LANE_H, _MARGIN, CATEGORY_COLOURS, _mark, _nice_step, colour_on, first_per_column,
    header_width, paint_density, paint_passes, paint_rule_labels, paint_tools,
)

__all__ = ["TimelineView", "CATEGORY_COLOURS"]



class TimelineView(TimelineWords, QAbstractScrollArea):
    """The timeline pane.

    Signals:
        pointerActivated(str): an event (``/snapshot/run_records/R/events/E``) or run record
            (``/snapshot/run_records/R``) was clicked.

    Attributes:
        describe: ``callable(lane, event_index) -> str`` giving the hover text's detail lines
            (set by the owner, which has the payload bytes), or ``None``.
    """

    pointerActivated = Signal(str)
    # What the accessible interface reads, also while Qt's own constructor runs (a screen reader may ask then).
    timeline = None
    selected = None
    message = ""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (time runs left to right: its axis, lanes, ids)
        self.setObjectName("timelineView")
        self.setAccessibleName("Timeline of runs and events")
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # the axis and one whole lane at least (with the horizontal scroll bar when zoomed)
        self.setMinimumHeight(_AXIS_H + _LANE_H + 2 * self.frameWidth()
                              + self.style().pixelMetric(self.style().PixelMetric.PM_ScrollBarExtent))
        self._lane_h = _LANE_H  # a lane's height in pixels: more when a few lanes fill the view
        self.timeline = None
        self.mode = "sequence"  # or "time"
        self.describe = None
        self.selected: tuple[int, int | None] | None = None  # (lane, event or None for the run)
        self.rule_marks: dict = {}  # lane -> {event or None: [rule ids]}
        self.lint_marks: dict = {}  # lane -> {event or None: [lint kinds]}
        self.message = "No run records."
        self._lo = 0.0
        self._hi = 1.0
        self._x0 = 0.0
        self._scale = 1.0
        self._zoomed = False  # True once zoomed in: a resize keeps the zoom (Fit or Ctrl+0 undoes it)
        self._sorted: dict = {}

    # -- data --------------------------------------------------------------------------------------
    def set_timeline(self, timeline, rule_marks=None, lint_marks=None, message: str = "") -> None:
        """Show ``timeline`` (a :class:`~inspector.checkpoint.analysis.views.Timeline` or ``None``);
        ``rule_marks``/``lint_marks``: ``{lane: {event index or None: [ids]}}``."""
        self.timeline = timeline
        self.rule_marks = rule_marks or {}
        self.lint_marks = lint_marks or {}
        self.selected = None
        self._bg = QColor("white")
        self._sorted = {}
        self.message = message or ("No run records." if timeline is not None else "")
        self.setAccessibleDescription("")
        self._zoomed = False
        self._fit()
        if timeline is not None:
            src = next((i for i, x in enumerate(timeline.lanes) if x.source), None)
            if src is not None:
                self.ensure_lane_visible(src)
        self.viewport().update()
        self._describe()

    def set_mode(self, mode: str) -> None:
        """``sequence`` (x = event sequence) or ``time`` (x = timestamp_ms); refits the view."""
        self.mode = mode
        self._zoomed = False
        self._fit()
        self.viewport().update()

    def _values(self, lane):
        return lane.seq if self.mode == "sequence" else lane.ts

    def _is_sorted(self, lane, mode: str | None = None) -> bool:
        mode = mode or self.mode
        known = lane.seq_sorted if mode == "sequence" else lane.ts_sorted  # found with the views (a worker)
        if known is not None:
            return known
        key = (lane.index, mode)
        if key not in self._sorted:
            v = lane.seq if mode == "sequence" else lane.ts
            # at C speed (about 45 ms for a million events, once per lane and mode): a lane taken for unsorted is
            # drawn event by event, which stalled a million-event timeline for seconds
            self._sorted[key] = all(map(operator.le, v, islice(v, 1, None)))
        return self._sorted[key]

    def _fit(self) -> None:
        tl = self.timeline
        lo, hi = None, None
        if tl is not None:
            for lane in tl.lanes:
                v = self._values(lane)
                if len(v):
                    a, b = (v[0], v[-1]) if self.mode == "sequence" else (min(v), max(v))
                    lo = a if lo is None else min(lo, a)
                    hi = b if hi is None else max(hi, b)
        self._lo, self._hi = (float(lo), float(hi)) if lo is not None else (0.0, 1.0)
        if self._hi <= self._lo:
            self._hi = self._lo + 1
        self._x0 = self._lo
        self._scale = max(1e-9, self._plot_width() / (self._hi - self._lo + 1))
        self._update_scrollbars()

    @property
    def _left(self) -> int:
        """Where the plot begins: the lane labels' width for this view's width (:func:`.timeline_paint.header_width`)."""
        return header_width(self.viewport().width())

    def _plot_width(self) -> int:
        return max(50, self.viewport().width() - self._left - 2 * _MARGIN)

    def _update_scrollbars(self) -> None:
        tl = self.timeline
        n = len(tl.lanes) if tl is not None else 0
        vh = self.viewport().height() - _AXIS_H
        # Lanes that fit share the view's height (one lane at 1600x1000 left ~150 px empty under it);
        # their marks stay in a band of _LANE_H in the middle. More lanes keep _LANE_H and scroll.
        lane_h = max(_LANE_H, vh // n) if n else _LANE_H
        if lane_h != self._lane_h:
            self._lane_h = lane_h
            self.viewport().update()
        # Scrolled by whole lanes: the top lane is never cut (at 1024x700 the source lane was
        # scrolled into view with the lane above it half hidden).
        over = max(0, n * self._lane_h - vh)
        vsb = self.verticalScrollBar()
        vsb.setRange(0, -(-over // self._lane_h) * self._lane_h)
        vsb.setSingleStep(self._lane_h)
        vsb.setPageStep(max(self._lane_h, vh // self._lane_h * self._lane_h))
        total = (self._hi - self._lo + 1) * self._scale
        self.horizontalScrollBar().setRange(0, int(max(0, total - self._plot_width())))
        self.horizontalScrollBar().setPageStep(self._plot_width())
        self.horizontalScrollBar().setValue(int((self._x0 - self._lo) * self._scale))

    def scrollContentsBy(self, dx, dy):  # noqa: N802 (Qt override)
        vsb = self.verticalScrollBar()
        if vsb.value() % self._lane_h:  # (a dragged scroll bar) whole lanes only
            vsb.setValue(round(vsb.value() / self._lane_h) * self._lane_h)
            return
        self._x0 = self._lo + self.horizontalScrollBar().value() / self._scale
        self.viewport().update()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self._zoomed:  # a zoom sticks: keep the scale and the left edge, clamp to the new width
            fit = self._plot_width() / (self._hi - self._lo + 1)
            self._scale = max(self._scale, fit)
            self._update_scrollbars()
        else:
            self._fit()

    def fit(self) -> None:
        """Show every event again (the Fit button, Ctrl+0): the only way a zoom is undone."""
        self._zoomed = False
        self._fit()
        self.viewport().update()

    # -- geometry (also used by tests) -------------------------------------------------------------
    def x_of(self, value: float) -> float:
        """Viewport x of a sequence number or timestamp."""
        return self._left + _MARGIN + (value - self._x0) * self._scale

    def lane_top(self, lane: int) -> int:
        """Viewport y of the top of lane ``lane``."""
        return _AXIS_H + lane * self._lane_h - self.verticalScrollBar().value()

    def event_point(self, lane: int, e: int) -> QPointF:
        """Viewport position of event ``e`` of lane ``lane`` (its mark's centre)."""
        v = self._values(self.timeline.lanes[lane])[e]
        return QPointF(self.x_of(v), self.lane_top(lane) + self._lane_h / 2)

    def boundary_x(self) -> float | None:
        """Viewport x of the resume boundary (between the boundary event and the next), or ``None``."""
        tl = self.timeline
        if tl is None:
            return None
        for lane in tl.lanes:
            if lane.source and lane.boundary is not None:
                v = self._values(lane)
                if not len(v):
                    return self.x_of(self._lo)
                b = lane.boundary
                if b < 0:
                    return self.x_of(v[0]) - 4
                if b + 1 < len(v):
                    return (self.x_of(v[b]) + self.x_of(v[b + 1])) / 2
                return self.x_of(v[b]) + max(4.0, self._scale / 2)
        return None

    def ensure_lane_visible(self, lane: int) -> None:
        """Scroll vertically so lane ``lane`` is on screen."""
        top = lane * self._lane_h
        sb = self.verticalScrollBar()
        vh = self.viewport().height() - _AXIS_H
        if top < sb.value() or top + self._lane_h > sb.value() + vh:
            above = max(0, (vh // self._lane_h - 1) // 3)  # whole lanes above it for context
            sb.setValue(max(0, min(sb.maximum(), (lane - above) * self._lane_h)))

    def ensure_event_visible(self, lane: int, e: int) -> None:
        """Scroll so event ``e`` of lane ``lane`` is on screen."""
        self.ensure_lane_visible(lane)
        x = self.event_point(lane, e).x()
        if x < self._left + _MARGIN or x > self.viewport().width() - _MARGIN:
            v = self._values(self.timeline.lanes[lane])[e]
            self.horizontalScrollBar().setValue(int((v - self._lo) * self._scale - self._plot_width() / 2))

    # -- selection ---------------------------------------------------------------------------------
    def select_pointer(self, pointer: str) -> bool:
        """Select the run or event at ``pointer`` (or the one containing it); False if none."""
        if self.timeline is None or not pointer.startswith("/snapshot/run_records/"):
            return False
        parts = pointer.split("/")
        if len(parts) < 4 or not parts[3].isdigit():
            return False
        r = int(parts[3])
        lane = next((i for i, x in enumerate(self.timeline.lanes) if x.index == r), None)
        if lane is None:
            return False
        e = int(parts[5]) if len(parts) > 5 and parts[4] == "events" and parts[5].isdigit() else None
        if e is not None and e >= len(self.timeline.lanes[lane].seq):
            e = None
        self.selected = (lane, e)
        if e is not None:
            self.ensure_event_visible(lane, e)
        else:
            self.ensure_lane_visible(lane)
        self.viewport().update()
        self._describe()
        return True

    def _activate(self, lane: int, e: int | None) -> None:
        self.selected = (lane, e)
        self.viewport().update()
        self._describe()
        self.pointerActivated.emit(self.timeline.lanes[lane].pointer(e))

    def focusInEvent(self, event):  # noqa: N802 (Qt)
        super().focusInEvent(event)
        self.viewport().update()  # the focus frame
        self._describe()

    def focusOutEvent(self, event):  # noqa: N802 (Qt)
        super().focusOutEvent(event)
        self.viewport().update()

    def hit(self, pos) -> tuple[int, int | None] | None:
        """``(lane, event or None)`` under viewport position ``pos``, or ``None``."""
        tl = self.timeline
        if tl is None or pos.y() < _AXIS_H:
            return None
        lane = int((pos.y() - _AXIS_H + self.verticalScrollBar().value()) // self._lane_h)
        if not 0 <= lane < len(tl.lanes):
            return None
        if pos.x() < self._left:
            return lane, None
        values = self._values(tl.lanes[lane])
        if not len(values):
            return lane, None
        want = self._x0 + (pos.x() - self._left - _MARGIN) / self._scale
        slack = 5 / self._scale
        best = None
        if self._is_sorted(tl.lanes[lane]):
            lo = bisect_left(values, want - slack)
            hi = bisect_right(values, want + slack)
            cands = range(lo, hi)
        else:
            cands = (i for i, v in enumerate(values) if abs(v - want) <= slack)
        for i in cands:
            d = abs(values[i] - want)
            if best is None or d < best[0]:
                best = (d, i)
        return lane, (best[1] if best is not None else None)

    # -- input -------------------------------------------------------------------------------------
    def mousePressEvent(self, event):
        if event.button() == Qt.MouseButton.LeftButton:
            h = self.hit(event.position())
            if h is not None:
                self._activate(*h)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        h = self.hit(event.position())
        if h is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(event.globalPosition().toPoint(), self.event_text(*h), self.viewport())
        super().mouseMoveEvent(event)

    def wheelEvent(self, event):
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.25 if event.angleDelta().y() > 0 else 0.8, event.position().x())
            event.accept()
            return
        super().wheelEvent(event)

    def zoom(self, factor: float, at_x: float | None = None) -> None:
        """Zoom the x axis by ``factor`` around viewport x ``at_x`` (the centre by default)."""
        if at_x is None:
            at_x = self._left + _MARGIN + self._plot_width() / 2
        anchor = self._x0 + (at_x - self._left - _MARGIN) / self._scale
        fit = self._plot_width() / (self._hi - self._lo + 1)
        self._scale = min(max(self._scale * factor, fit), 200.0)
        self._zoomed = self._scale > fit * 1.0001  # zoomed out to the whole range: a resize refits again
        self._x0 = max(self._lo, anchor - (at_x - self._left - _MARGIN) / self._scale)
        self._update_scrollbars()
        self.viewport().update()

    def keyPressEvent(self, event):
        key = event.key()
        if key == Qt.Key.Key_0 and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.fit()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.5)
        elif key == Qt.Key.Key_Minus:
            self.zoom(1 / 1.5)
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and self.timeline is not None and self.timeline.lanes:
            right = key == Qt.Key.Key_Right
            if self.selected is None:  # nothing selected yet (Alt+7, then an arrow): the first lane with events
                lane = next((i for i, ln in enumerate(self.timeline.lanes) if ln.seq), None)
                if lane is None:
                    return
                e = 0 if right else len(self.timeline.lanes[lane].seq) - 1
            else:
                lane, e = self.selected
                n = len(self.timeline.lanes[lane].seq)
                if not n:
                    return
                e = 0 if e is None else max(0, min(n - 1, e + (1 if right else -1)))
            self.ensure_event_visible(lane, e)
            self._activate(lane, e)
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.timeline is not None and self.timeline.lanes:
            lane = 0 if self.selected is None else self.selected[0] + (1 if key == Qt.Key.Key_Down else -1)
            lane = max(0, min(len(self.timeline.lanes) - 1, lane))
            self.ensure_lane_visible(lane)
            self._activate(lane, None)
        else:
            super().keyPressEvent(event)

    # -- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event):
        p = QPainter(self.viewport())
        p.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (the painter's own default is the application's)
        pal = self.palette()
        w, h = self.viewport().width(), self.viewport().height()
        p.fillRect(0, 0, w, h, pal.base())
        tl = self.timeline
        if tl is None or not tl.lanes:
            p.setPen(pal.color(pal.ColorRole.PlaceholderText))
            p.drawText(QRect(0, 0, w, h), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message)
            return
        fm = QFontMetrics(self.font())
        first = max(0, self.verticalScrollBar().value() // self._lane_h)
        last = min(len(tl.lanes), first + h // self._lane_h + 2)
        p.setClipRect(0, _AXIS_H, w, h - _AXIS_H)
        for i in range(first, last):
            self._paint_lane(p, i, tl.lanes[i], w, fm)
        p.setClipping(False)
        self._paint_axis(p, w, fm)
        if self.hasFocus():  # a visible focus indicator, 3:1 on the lanes (inspector/gui/focus.py)
            paint_focus_frame(p, self.viewport().rect(), pal, pal.color(pal.ColorRole.Base))

    def _paint_axis(self, p, w, fm):
        pal = self.palette()
        p.fillRect(0, 0, w, _AXIS_H, pal.window())
        p.setPen(pal.color(pal.ColorRole.WindowText))
        unit = "sequence" if self.mode == "sequence" else "time (UTC)"
        p.drawText(QRect(6, 0, self._left - 6, _AXIS_H), Qt.AlignmentFlag.AlignVCenter,
                   fm.elidedText(f"run  ·  x: {unit}", Qt.TextElideMode.ElideRight, self._left - 10))
        span = self._plot_width() / self._scale
        step = _nice_step(span / 6)
        v = (int(self._x0 // step) + 1) * step
        while self.x_of(v) < w - _MARGIN:
            x = self.x_of(v)
            if x >= self._left + _MARGIN:
                p.drawLine(int(x), _AXIS_H - 4, int(x), _AXIS_H)
                if self.mode == "sequence":
                    label = f"{int(v)}"
                else:
                    label = datetime.datetime.fromtimestamp(v / 1000, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]
                p.drawText(int(x) + 2, _AXIS_H - 5, label)
            v += step

    def _paint_lane(self, p, i, lane, w, fm):
        pal = self.palette()
        full, full_h = self.lane_top(i), self._lane_h  # the whole lane; its marks in a band of _LANE_H
        top = full + (full_h - _LANE_H) // 2
        mid = top + _LANE_H / 2
        if lane.source:
            bg = QColor("#fff3c4") if pal.color(pal.ColorRole.Base).lightnessF() > 0.5 else QColor("#4a4020")
        else:
            bg = pal.color(pal.ColorRole.AlternateBase if i % 2 else pal.ColorRole.Base)
        p.fillRect(0, full, w, full_h, bg)
        values = self._values(lane)
        n = len(values)
        lo_i, hi_i = 0, n
        vis_lo = self._x0 - 10 / self._scale
        vis_hi = self._x0 + (w - self._left) / self._scale
        sorted_ = self._is_sorted(lane)
        if sorted_ and n:
            lo_i = bisect_left(values, vis_lo)
            hi_i = bisect_right(values, vis_hi)
        # passes (bands, the model call inside) and tool calls (bars): only those on screen
        self._bg = bg  # the lane's background: every mark and label is made readable on it
        paint_passes(p, lane, values, self.x_of, (lo_i, hi_i) if sorted_ else None, top, w, fm, bg,
                     getattr(lane, "pass_seq" if self.mode == "sequence" else "pass_ts", None), left=self._left)
        paint_tools(p, lane, values, self.x_of, top, w, bg, left=self._left)
        # events
        count = hi_i - lo_i
        if sorted_ and count > 3 * max(1, w - self._left):
            paint_density(p, values, lo_i, hi_i, top, w, self._x0, self._scale, bg, left=self._left)
        else:
            seen = set()
            for e in (range(lo_i, hi_i) if sorted_ else range(n)):
                x = self.x_of(values[e])
                if x < self._left or x > w:
                    continue
                cat = _CAT[lane.kind[e]]
                key = (int(x), cat)
                if key in seen:
                    continue
                seen.add(key)
                _mark(p, cat, x, top, mid, bg)
        errors = lane.errors
        if sorted_ and errors:  # one mark per pixel column of those on screen (level of detail)
            lo = bisect_left(errors, vis_lo, key=values.__getitem__)
            for x, _ in first_per_column(errors, values, self.x_of, w + 1, lo):
                if x >= self._left:
                    _mark(p, "error", x, top, mid, bg)
        else:
            for e in errors:
                x = self.x_of(values[e])
                if self._left <= x <= w:
                    _mark(p, "error", x, top, mid, bg)
        self._paint_marks(p, i, lane, values, top, mid, w)
        paint_rule_labels(p, self.rule_marks.get(i, {}), values, self.x_of, (top, full, full_h), w, fm, self._bg,
                          left=self._left)
        self._paint_boundary(p, lane, full, full_h, w, fm)
        self._paint_selection(p, i, values, top, full, full_h, w)
        self._paint_header(p, i, lane, full, fm)

    def _paint_marks(self, p, i, lane, values, top, mid, w):
        """Failing rules and lint findings on their events; the terminal status after the last event."""
        n = len(values)
        # failing rules and lint on events
        bg = self._bg
        for marks, colour, shape in ((self.lint_marks.get(i, {}), colour_on("#f0a000", bg), "lint"),
                                     (self.rule_marks.get(i, {}), colour_on(CATEGORY_COLOURS["error"], bg), "rule")):
            for e in marks:
                if e is None:
                    continue
                x = self.x_of(values[e])
                if self._left <= x <= w:
                    p.setPen(QPen(colour, 2))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    if shape == "rule":
                        p.drawEllipse(QPointF(x, mid), 8, 8)
                    else:
                        p.drawRect(QRectF(x - 7, mid - 7, 14, 14))
        # terminal status: a block after the last event
        if lane.terminal and n:
            x = self.x_of(values[-1]) + 5
            if self._left <= x <= w:
                col = colour_on(CATEGORY_COLOURS["error"] if lane.status != "completed" else "#37474f", bg)
                p.fillRect(QRectF(x, top + 6, 6, _LANE_H - 12), col)

    def _paint_boundary(self, p, lane, full, full_h, w, fm):
        """The resume boundary on the source run's lane, with its label."""
        # the resume boundary
        if lane.source and lane.boundary is not None:
            bx = self.boundary_x()
            if bx is not None and self._left <= bx <= w:
                green = colour_on("#2e7d32", self._bg, 4.5)  # (its label is text)
                pen = QPen(green, 3)
                p.setPen(pen)
                p.drawLine(QPointF(bx, full), QPointF(bx, full + full_h))
                p.setBrush(green)
                p.drawPolygon(QPolygonF([QPointF(bx, full), QPointF(bx + 9, full + 4), QPointF(bx, full + 8)]))
                label = f"resume continues here (after pass {self.timeline.boundary_turn})"
                p.setPen(green)
                tx = bx + 12 if bx + 12 + fm.horizontalAdvance(label) < w else bx - 12 - fm.horizontalAdvance(label)
                p.drawText(QPointF(max(self._left + 2, tx), full + fm.ascent() + 1), label)

    def _paint_selection(self, p, i, values, top, full, full_h, w):
        """The selected event (or lane) framed in the palette's highlight."""
        pal = self.palette()
        # selection
        if self.selected is not None and self.selected[0] == i:
            e = self.selected[1]
            p.setPen(QPen(pal.color(pal.ColorRole.Highlight), 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            if e is None:
                p.drawRect(QRectF(1, full + 1, w - 3, full_h - 2))
            else:
                x = self.x_of(values[e])
                p.drawRect(QRectF(x - 5, top + 2, 10, _LANE_H - 4))

    def _paint_header(self, p, i, lane, top, fm):
        pal = self.palette()
        p.fillRect(0, top, self._left, self._lane_h, pal.window())
        failing = self.rule_marks.get(i, {})
        col = pal.color(pal.ColorRole.WindowText)
        p.setPen(col)
        name = fm.elidedText(("▶ " if lane.source else "") + visible(lane.id), Qt.TextElideMode.ElideMiddle,
                             self._left - 10)
        p.drawText(6, top + fm.ascent() + 2, name)
        status = ("■ " if lane.terminal else "○ ") + visible(lane.status)  # (the file's: one escaping)
        if lane.source:
            status += " · source run"
        if any(failing.values()):
            # the rule ids of the run itself (no event) at the lane's start; an event's sit at its mark
            lane_rules = failing.get(None, [])
            p.setPen(colour_on(CATEGORY_COLOURS["error"], self.palette().color(self.palette().ColorRole.Window), 4.5))
            if lane_rules:
                p.drawText(QRect(self._left + 4, top, self.viewport().width() - self._left - 10, self._lane_h - 3),
                           int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), "✖ " + ", ".join(lane_rules))
            status += " · ✖"
            p.setBrush(Qt.BrushStyle.NoBrush)  # a frame only (a brush left by a mark filled it over the text)
            p.drawRect(QRectF(1, top + 1, self._left - 3, self._lane_h - 2))
        else:
            p.setPen(pal.color(pal.ColorRole.PlaceholderText))
        p.drawText(6, top + _LANE_H - 5, fm.elidedText(status, Qt.TextElideMode.ElideRight, self._left - 10))
        p.setPen(pal.color(pal.ColorRole.Mid))
        p.drawLine(self._left, top, self._left, top + self._lane_h)
