#!/usr/bin/env python3
"""The timeline and transcript on a checkpoint near the 256 MiB ceiling: is the window ever frozen?

    .venv/bin/python benchmarks/bench_timeline.py [--payload P --descriptor D] [--json]

Opens the pair in the real window with the Resume dock on its Timeline tab and a 5 ms
event-loop timer running, then acts as a user would. Reports (seconds / milliseconds):

* ``verdicts_s``: from ``open_paths`` until verdicts, timeline and transcript are shown;
* ``max_gap_ms``: the longest gap between timer ticks over the whole load (target < 100 ms);
* ``max_gap_present_ms``: the longest gap in the 2 s around the moment the report (with the
  timeline's lanes and the transcript's spans) reached the window;
* ``paint_fit_ms`` / ``paint_zoomed_ms``: the longest of 10 timeline repaints with every event
  in range, and zoomed 40x on the source run;
* ``hover_ms``: hover text of an event (read from the payload bytes);
* ``click_event_ms``: a click on an event until it is selected in the snapshot tree and bytes;
* ``transcript_jump_ms``: selecting the middle message in the transcript (list, detail, tree, bytes);
* ``lanes``, ``events``, ``messages``: the sizes shown.

Inputs default to ``benchmarks/out/bench-250.*`` from ``gen_checkpoint.py``. Runs on the current Qt
platform (``QT_QPA_PLATFORM=offscreen`` or ``xvfb-run`` headless).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def _ms(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def measure(p: str, d: str, screenshot: str | None = None) -> dict:
    """Open ``p``/``d`` in a window and return the figures of the module docstring."""
    from PySide6.QtCore import QElapsedTimer, QPoint, QSettings, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from inspector.gui.app import create_app
    from inspector.gui.window import MainWindow

    app = create_app()
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "bench.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings)
    w.resize(1560, 960)
    w.show()
    panes = w.resume_panes
    panes.tabs.setCurrentIndex(0)
    for _ in range(20):
        app.processEvents()
    clock = QElapsedTimer()
    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(clock.nsecsElapsed() / 1e9))
    result: dict = {}
    presented: list[float] = []
    w.doc.presented.connect(lambda pr: pr.analysis.report is not None and presented.append(clock.nsecsElapsed() / 1e9))
    done = []
    w.analysisReady.connect(lambda: done.append(clock.nsecsElapsed() / 1e9))
    clock.start()
    timer.start()
    w.open_paths([p, d])
    while not done:
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter() + 1.0
    while time.perf_counter() < end:  # a second of idle after the verdicts
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    result["verdicts_s"] = round(done[0], 2)
    gaps = [(b - a, b) for a, b in zip(ticks, ticks[1:])]
    result["max_gap_ms"] = round(max(g for g, _ in gaps) * 1000, 1)
    at = presented[-1] if presented else done[0]
    near = [g for g, t in gaps if at - 1.0 <= t <= at + 1.0]
    result["max_gap_present_ms"] = round(max(near) * 1000, 1) if near else None
    worst = max(gaps)
    result["max_gap_at_s"] = round(worst[1] - at, 3)  # when the longest gap ended, relative to the report's arrival
    tl = panes.timeline
    timeline = tl.timeline
    if timeline is None:  # no views (e.g. a build without them, for comparison)
        return result
    result["lanes"] = len(timeline.lanes)
    result["events"] = timeline.event_total
    result["messages"] = len(panes.transcript.model.tr)

    def repaint():
        tl.viewport().repaint()
    result["paint_fit_ms"] = round(max(_ms(repaint) for _ in range(10)), 1)
    src = next(i for i, x in enumerate(timeline.lanes) if x.source)
    lane = timeline.lanes[src]
    e = len(lane.seq) // 2
    tl.ensure_lane_visible(src)
    tl.zoom(40, tl.event_point(src, e).x())
    tl.ensure_event_visible(src, e)
    result["paint_zoomed_ms"] = round(max(_ms(repaint) for _ in range(10)), 1)
    result["hover_ms"] = round(_ms(lambda: tl.event_text(src, e)), 1)
    pt = tl.event_point(src, e)

    def click():
        QTest.mouseClick(tl.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         QPoint(int(pt.x()), int(pt.y())))
        app.processEvents()
    result["click_event_ms"] = round(_ms(click), 1)
    result["click_selected"] = w.snap_pane.view.model().data(w.snap_pane.view.currentIndex(), Qt.ItemDataRole.UserRole + 4)
    panes.tabs.setCurrentIndex(1)
    app.processEvents()
    mid = result["messages"] // 2

    def jump():
        panes.transcript.select_message(mid, notify=True)
        app.processEvents()
    result["transcript_jump_ms"] = round(_ms(jump), 1)
    if screenshot:
        panes.tabs.setCurrentIndex(0)
        for _ in range(10):
            app.processEvents()
        w.grab().save(screenshot)
        panes.tabs.setCurrentIndex(1)
        for _ in range(10):
            app.processEvents()
        w.grab().save(screenshot.replace(".png", "-transcript.png"))
    w.close()
    QApplication.processEvents()
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--payload", default=str(HERE / "out" / "bench-250.payload.json"))
    ap.add_argument("--descriptor", default=str(HERE / "out" / "bench-250.descriptor.json"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--screenshot", help="save the window (timeline tab) to this PNG, and the transcript beside it")
    args = ap.parse_args()
    r = measure(args.payload, args.descriptor, args.screenshot)
    r["payload_mib"] = round(os.path.getsize(args.payload) / 1048576, 1)
    if args.json:
        print(json.dumps(r, indent=2))
    else:
        for k, v in r.items():
            print(f"{k:22} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
