"""The timeline draws what the screen can show: a lane of a million events is sorted (checked at
C speed, not taken for unsorted because it is long), and its passes and error marks are drawn one per pixel
column, not one per event (the million-event checkpoint stalled the window 10.7 s in one paint)."""

from __future__ import annotations

from array import array

import pytest

pytest.importorskip("PySide6")
from PySide6.QtGui import QImage, QPainter  # noqa: E402

from inspector.gui.widgets import timeline_paint  # noqa: E402
from inspector.gui.widgets.timeline_paint import first_per_column  # noqa: E402


def test_first_per_column_yields_one_index_a_column_and_the_first_of_each():
    values = array("q", range(1_000_000))  # event values 0..999,999
    seq = array("q", range(0, 1_000_000, 2))  # every other event
    x_of = lambda v: 230 + v / 1000.0  # noqa: E731 (1,000 values a pixel, from the header's edge)
    got = list(first_per_column(seq, values, x_of, 1230))
    assert len(got) == 1000  # one per column, not 500,000
    assert got[:3] == [(230.0, 0), (231.0, 1000), (232.0, 2000)]
    assert [int(x) for x, _ in got] == list(range(230, 1230))
    # zoomed in (a column per value): every index of the window, in order
    near = list(first_per_column(seq, values, lambda v: 230 + (v - 100) * 3.0, 260, 50))
    assert [i for _, i in near] == [100, 102, 104, 106, 108]  # (110 would be at x 260: off the view)
    # the values at the indexes known beforehand (Lane.pass_seq): the same columns, found without a key function
    at = array("q", (values[i] for i in seq))
    assert list(first_per_column(seq, values, x_of, 1230, seq_values=at)) == got
    assert list(first_per_column(seq, values, lambda v: 230 + (v - 100) * 3.0, 260, 50, seq_values=at)) == near


def test_a_dense_lane_of_passes_is_drawn_by_column(qapp, monkeypatch):
    n = 500_000
    values = array("q", range(2 * n))

    class Lane:
        rounds = array("q", [v for k in range(n) for v in (k + 1, 2 * k, 2 * k + 1)])  # (turn, start, end) a pass
        models = array("q", [])

        @classmethod
        def passes(cls):
            from inspector.checkpoint.analysis.views import Passes

            return Passes(cls.rounds)

    drawn = []
    monkeypatch.setattr(timeline_paint, "_paint_passes_dense",
                        lambda *a: drawn.append(("dense", a[5], a[6])))  # (k_lo, k_hi)
    image = QImage(1600, 40, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    timeline_paint.paint_passes(p, Lane, values, lambda v: 230 + v / 1000.0, (0, 2 * n), 0, 1600, p.fontMetrics())
    p.end()
    assert drawn == [("dense", 0, n)]  # one dense drawing, not 500,000 bands


def test_a_long_sorted_lane_is_taken_for_sorted(qapp):
    from inspector.gui.widgets.timeline import TimelineView

    view = TimelineView()

    class Lane:
        index = 0
        seq = array("q", range(1_000_000))
        ts = array("q", [5] * 1_000_000)
        seq_sorted = ts_sorted = None  # not found with the views: the view finds it (once per lane and mode)

    assert view._is_sorted(Lane)  # (it used to give up above 200,000 events and draw each one)
    Lane.index, Lane.seq = 1, array("q", [3, 2, 1])
    assert not view._is_sorted(Lane)
    Lane.index, Lane.seq_sorted = 2, True  # found with the views (Lane.compact, in the worker): taken as said
    assert view._is_sorted(Lane)


def test_the_accessible_value_bounds_take_no_pass_over_a_sorted_run(qapp):
    """A screen reader asks the timeline's value on every arrow key: for a run found sorted with the views
    the bounds are its first and last sequence numbers (no pass over a million events); an unsorted run's
    are found once and kept."""
    from inspector.gui.widgets.timeline import TimelineView

    view = TimelineView()

    class Lane:
        index = 0
        seq = array("q", [5, 1, 9])  # claimed sorted: the first and last are taken as they are
        seq_sorted, ts_sorted = True, True

    assert view._seq_bounds(Lane) == (5, 9)
    Lane.index, Lane.seq_sorted = 1, False
    assert view._seq_bounds(Lane) == (1, 9)
    Lane.seq = array("q", [0])  # kept per run: not scanned again
    assert view._seq_bounds(Lane) == (1, 9)
