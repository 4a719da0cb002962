#!/usr/bin/env python3
"""The longest event-loop stall of the window while it opens, finds and expands (target: < 100 ms).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_stalls.py [--messages 120000] [--reps 3] \
        [--big benchmarks/out/bench-250.payload.json benchmarks/out/bench-250.descriptor.json]
    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_stalls.py --open PAYLOAD [DESCRIPTOR] --json

Inputs, made in ``benchmarks/out/``:

* ``array-500k.json``: a JSON array of 500,000 numbers (3.4 MB; not a checkpoint);
* ``messages-<n>.payload.json``: the golden payload with ``n`` short chat messages (11 MB for
  120,000), canonical bytes; the last message holds the text that Find looks for.

Scenarios (each in a fresh window): open the array; open the checkpoint; Find a text that only
the last message holds (the whole document is searched); Expand All on the snapshot tree (stops
at 200,000 rows); with ``--big P D``, open that pair (e.g. the 247 MiB ``bench-250`` from
``gen_checkpoint.py``) and report the longest stall of the whole open and the longest from 0.3 s
before the verdicts are shown (``analysisReady``) to 1.5 s after. A 5 ms timer runs throughout; a *stall* is the time between two of its ticks
minus 5 ms, so 0 means the event loop never waited. Reported: the longest stall per scenario
(median over ``--reps``) and the scenario's wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.checkpoint import encode  # noqa: E402

NEEDLE = "zebra-quartz-needle"
TICK_MS = 5


def make_inputs(out: Path, messages: int) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    arr = out / "array-500k.json"
    if not arr.exists():
        arr.write_bytes(json.dumps(list(range(500_000))).encode())
    cp = out / f"messages-{messages}.payload.json"
    if not cp.exists():
        golden = json.loads((ROOT / "tests" / "data" / "fixtures" / "golden" / "payload-with-resume.json").read_bytes())
        msgs = []
        for i in range(messages):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"message {i}: please look at file src/module_{i % 97}.rs line {i % 1000}"
            if i == messages - 1:
                text += f" {NEEDLE}"
            msgs.append({"content": [{"text": text, "type": "text"}], "role": role})
        golden["snapshot"]["session"]["messages"] = msgs
        cp.write_bytes(encode(golden))
    return arr, cp


class StallMeter:
    """Longest gap between ticks of a 5 ms timer, minus 5 ms (seconds)."""

    def __init__(self):
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.reset()

    def reset(self):
        self.last = time.perf_counter()
        self.worst = 0.0
        self.gaps: list[tuple[float, float]] = []  # (when the tick came, stall) for stalls over 20 ms

    def _tick(self):
        now = time.perf_counter()
        gap = now - self.last - TICK_MS / 1000
        self.worst = max(self.worst, gap)
        if gap > 0.02:
            self.gaps.append((now, gap))
        self.last = now

    def start(self):
        self.reset()
        self.timer.start()


def run_until(app, done, timeout=300.0, settle=0.3):
    t0 = time.perf_counter()
    while not done() and time.perf_counter() - t0 < timeout:
        app.processEvents()
        time.sleep(0.0005)
    wall = time.perf_counter() - t0
    t1 = time.perf_counter()
    while time.perf_counter() - t1 < settle:
        app.processEvents()
        time.sleep(0.0005)
    if not done():
        raise TimeoutError("scenario did not finish")
    return wall


def fresh_window(tmp: Path):
    from inspector.gui.window import MainWindow

    s = QSettings(str(tmp / "bench-settings.ini"), QSettings.Format.IniFormat)
    s.clear()
    w = MainWindow(settings=s)
    w.resize(1560, 960)
    w.show()
    return w


def scenario_open(app, meter, tmp, path):
    w = fresh_window(tmp)
    ready = []
    w.analysisReady.connect(lambda: ready.append(1))
    meter.start()
    wall = run_until(app, lambda: bool(ready), settle=0.5) if w.open_paths([str(path)]) else None
    worst = meter.worst
    return w, worst, wall


def scenario_find(app, meter, w):
    found = []
    w.finder.searched.connect(lambda n: found.append(n))
    w.find_bar.open()
    meter.start()
    w.find_bar.edit.setText(NEEDLE)
    w.find_bar.edit.returnPressed.emit()
    wall = run_until(app, lambda: bool(found))
    assert found[0] == 1, found
    return meter.worst, wall


def scenario_expand(app, meter, w):
    done = []
    w.expander.finished.connect(lambda n: done.append(n))
    view = w.snap_pane.view
    meter.start()
    w.expander.start(view)
    wall = run_until(app, lambda: bool(done))
    return meter.worst, wall, done[0]


def scenario_big(app, meter, tmp, payload, descriptor):
    """Open a large pair; returns (longest stall of the open, longest around the verdicts, wall)."""
    w = fresh_window(tmp)
    ready = []
    w.analysisReady.connect(lambda: ready.append(time.perf_counter()))
    meter.start()
    w.open_paths([str(payload), str(descriptor)])
    wall = run_until(app, lambda: bool(ready), timeout=900, settle=1.5)
    around = max((g for t, g in meter.gaps if ready[0] - 0.3 <= t <= ready[0] + 1.5), default=0.0)
    worst = meter.worst
    w.close()
    w.deleteLater()
    return worst, around, wall


def _largest_row(model, parent, view):
    """The snapshot tree's top-level row whose value has the most bytes (its span), as an index, or None."""
    from inspector.gui.roles import SpanRole

    best = None
    for r in range(model.rowCount(parent)):
        idx = model.index(r, 0, parent)
        span = model.data(idx, SpanRole)
        if span and (best is None or span[1] - span[0] > best[0]):
            best = (span[1] - span[0], idx)
    return best[1] if best else None


def _rss_mib() -> float:
    """This process's resident set (Linux ``/proc/self/statm``), MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def scenario_find_text(app, meter, w, text: str) -> dict:
    """Find ``text`` in the open document as a user does (Ctrl+F, type, Return): the longest stall, the wall
    time, the window's resident memory before, at its highest while searching (sampled every 10 ms) and after,
    and the match count the find bar reports."""
    found = []
    w.finder.searched.connect(lambda n: found.append(n))
    before = peak = _rss_mib()
    sampler = QTimer()
    sampler.setInterval(10)

    def sample():
        nonlocal peak
        peak = max(peak, _rss_mib())
    sampler.timeout.connect(sample)
    sampler.start()
    meter.start()
    t0 = time.perf_counter()
    QTest.keyClick(w, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(w.find_bar.edit, text)
    QTest.keyClick(w.find_bar.edit, Qt.Key.Key_Return)
    run_until(app, lambda: bool(found), timeout=600, settle=0.3)
    wall = time.perf_counter() - t0
    sampler.stop()
    sample()
    return {"find": text, "find_matches": found[0] if found else None, "find_status": w.find_bar.status.text(), "find_stall_ms": round(meter.worst * 1000),
            "find_wall_s": round(wall, 2), "find_rss_before_mib": round(before), "find_rss_peak_mib": round(peak),
            "find_rss_after_mib": round(_rss_mib())}


def scenario_open_file(app, meter, tmp, paths, find: str | None = None) -> dict:
    """Issue 25: open ``paths``, select the root cause (or, verified, the largest value of the snapshot tree),
    show the timeline (zoom in, page through, zoom out: :func:`_zoom_and_scroll`) and the transcript (its first
    message selected); the longest stall of it all from the empty window's first frame on, that of the
    timeline's zoom and scroll alone, that first frame's (before the open), and the scenario's wall time."""
    w = fresh_window(tmp)
    ready = []
    w.analysisReady.connect(lambda: ready.append(time.perf_counter()))
    # The empty window's first frame (Qt's fonts, style and first paint of every pane: 70-120 ms) is reported on
    # its own: until it is drawn there is no window to freeze, and it is the same for every file.
    meter.start()
    run_until(app, lambda: True, settle=0.3)
    first_frame = meter.worst
    meter.start()
    t0 = time.perf_counter()
    w.open_paths([str(p) for p in paths])
    run_until(app, lambda: bool(ready), timeout=900, settle=0.5)
    rp = w.resume_panes
    run_until(app, lambda: rp.timeline.timeline is not None or bool(rp.timeline.message), timeout=300, settle=0.3)
    if w.report is not None and w.report.root_cause is not None:
        w.selection.goto_root_cause()
        picked = "root cause " + w.report.root_cause.rule.id
    else:
        view = w.snap_pane.view
        idx = _largest_row(view.model(), view.rootIndex(), view)
        if idx is not None:
            parent = _largest_row(view.model(), idx, view) if view.model().rowCount(idx) else None
            view.setCurrentIndex(parent or idx)
        picked = "largest value"
    run_until(app, lambda: True, settle=0.5)
    rp.tabs.setCurrentIndex(0)  # the timeline
    run_until(app, lambda: True, settle=0.5)
    timeline_stall = _zoom_and_scroll(app, meter, rp.timeline)
    rp.tabs.setCurrentIndex(1)  # the transcript, its first message
    tv = rp.transcript.view
    if tv.model() is not None and tv.model().rowCount():
        tv.setCurrentIndex(tv.model().index(0, 0))
    run_until(app, lambda: True, settle=1.0)
    wall = time.perf_counter() - t0
    stall = meter.worst
    found = scenario_find_text(app, meter, w, find) if find else {}
    w.close()
    w.deleteLater()
    app.processEvents()
    return {"file": str(paths[0]), "bytes": os.path.getsize(paths[0]), "selected": picked,
            "longest_stall_ms": round(max(stall, timeline_stall) * 1000),
            "timeline_zoom_scroll_stall_ms": round(timeline_stall * 1000),
            "empty_window_first_frame_ms": round(first_frame * 1000), "wall_s": round(wall, 2),
            "load": round(os.getloadavg()[0], 2), **found}


def _zoom_and_scroll(app, meter, view) -> float:
    """Zoom the timeline in eight times with ``+`` (as a user presses it), page through it with the scroll bar
    (PageDown on the bar, ten times), zoom back out with ``-`` and fit with Ctrl+0; the longest stall of that
    (seconds), measured alone. The scenario's whole-run stall keeps counting too."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    outer = meter.worst
    meter.reset()
    view.setFocus()
    bar = view.horizontalScrollBar()
    for _ in range(8):
        QTest.keyClick(view, Qt.Key.Key_Plus)
        run_until(app, lambda: True, settle=0.05)
    for _ in range(10):
        QTest.keyClick(bar, Qt.Key.Key_PageDown)
        run_until(app, lambda: True, settle=0.05)
    for _ in range(8):
        QTest.keyClick(view, Qt.Key.Key_Minus)
        run_until(app, lambda: True, settle=0.05)
    QTest.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    run_until(app, lambda: True, settle=0.2)
    inner = meter.worst
    meter.worst = max(outer, inner)
    return inner


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--open", type=Path, nargs="+", metavar="FILE",
                    help="only open PAYLOAD [DESCRIPTOR], select the root cause (or the largest value), show the "
                         "timeline and transcript, and print one JSON line (longest_stall_ms, wall_s)")
    ap.add_argument("--json", action="store_true", help="with --open: the JSON line only")
    ap.add_argument("--find", metavar="TEXT", help="with --open: then find TEXT (Ctrl+F, typed, Return) and add its "
                                                   "stall, wall time and the window's memory to the line")
    ap.add_argument("--messages", type=int, default=120_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--big", type=Path, nargs=2, metavar=("PAYLOAD", "DESCRIPTOR"),
                    help="also open this (large) pair and measure the stall when its verdicts are shown")
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    if args.open:
        result = scenario_open_file(app, StallMeter(), args.out, args.open[:2], args.find)
        print(json.dumps(result) if args.json else
              f"{result['file']}: longest stall {result['longest_stall_ms']} ms, wall {result['wall_s']} s "
              f"({result['selected']}, load {result['load']})")
        return 0
    load0 = os.getloadavg()[0]
    arr, cp = make_inputs(args.out, args.messages)
    meter = StallMeter()
    rows = {k: [] for k in ("open 500,000-element array", "open checkpoint", "find (whole document)",
                            "expand all (snapshot tree)")}
    info = {}
    for _ in range(args.reps):
        w, worst, wall = scenario_open(app, meter, args.out, arr)
        rows["open 500,000-element array"].append((worst, wall))
        w.close()
        w.deleteLater()
        w, worst, wall = scenario_open(app, meter, args.out, cp)
        rows["open checkpoint"].append((worst, wall))
        worst, wall = scenario_find(app, meter, w)
        rows["find (whole document)"].append((worst, wall))
        worst, wall, n = scenario_expand(app, meter, w)
        rows["expand all (snapshot tree)"].append((worst, wall))
        info["expanded rows"] = n
        w.close()
        w.deleteLater()
        app.processEvents()
        if args.big:
            worst, around, wall = scenario_big(app, meter, args.out, *args.big)
            rows.setdefault(f"open {args.big[0].name} (whole open)", []).append((worst, wall))
            rows.setdefault(f"open {args.big[0].name} (verdicts shown)", []).append((around, wall))
            app.processEvents()
    print(f"checkpoint: {cp.name}, {cp.stat().st_size:,} bytes, {args.messages:,} messages; "
          f"array: {arr.stat().st_size:,} bytes; {args.reps} reps; load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print("| scenario | longest stall ms (median) | worst rep ms | wall s (median) |")
    print("|---|---:|---:|---:|")
    for name, vals in rows.items():
        stalls = [v[0] * 1000 for v in vals]
        walls = [v[1] for v in vals]
        print(f"| {name} | {statistics.median(stalls):.0f} | {max(stalls):.0f} | {statistics.median(walls):.2f} |")
    print(f"expand all made {info.get('expanded rows', 0):,} rows visible")
    return 0


if __name__ == "__main__":
    sys.exit(main())
