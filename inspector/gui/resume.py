"""``ResumePanes``: the timeline, the transcript, the integrity lint and the resumability answer.

Installed by the window (:class:`ResumePanes(window)`): a "Resume" dock with three tabs, and the
resumability line of the verdict bar. It listens to the document's ``presented`` signal; the data
it shows was prepared by the engine off the GUI thread (``Report.views``, ``Report.lint``,
``Report.resumability``), so showing it costs only per-lane constants here. Selections go through
the window's :class:`~.selection.SelectionRelay` (a click selects the field in the snapshot tree and
its bytes), and a selection in the snapshot tree selects the event or message here.
"""

from __future__ import annotations

import html

import orjson
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup, QDockWidget, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QRadioButton,
    QSizePolicy, QTabWidget, QVBoxLayout, QWidget,
)

from inspector.checkpoint import Location, Verdict
from inspector.checkpoint.analysis.passes import event_summary
from inspector.checkpoint.analysis.resumability import NOT_RESUMABLE, RESUMABLE

from . import style
from inspector.checkpoint.jsontext.lazyjson import BIG, ScanError, children_of, find_span
from .roles import PointerRole
from inspector.session.visible import visible
from .widgets.events_table import EventsPane
from .widgets.timeline import CATEGORY_COLOURS, TimelineView
from .widgets.transcript import TranscriptPane

__all__ = ["ResumePanes", "marks_by_lane", "resumability_line"]

_RUNS = "/snapshot/run_records/"
#: The timeline's and transcript's message while a large payload's views follow its verdicts.
READING_TIMELINE = "Reading the timeline…"


def marks_by_lane(timeline, locations) -> dict:
    """``{lane: {event index or None: [ids]}}`` for ``(id, Location)`` pairs pointing into run records."""
    lanes = {lane.index: i for i, lane in enumerate(timeline.lanes)} if timeline is not None else {}
    out: dict = {}
    for ident, loc in locations:
        if loc.source != "payload" or not loc.pointer.startswith(_RUNS):
            continue
        parts = loc.pointer.split("/")
        if not parts[3].isdigit() or int(parts[3]) not in lanes:
            continue
        e = int(parts[5]) if len(parts) > 5 and parts[4] == "events" and parts[5].isdigit() else None
        ids = out.setdefault(lanes[int(parts[3])], {}).setdefault(e, [])
        if ident not in ids:
            ids.append(ident)
    return out


def resumability_line(res, lint=()) -> tuple[str, list[str], Verdict]:
    """``(text, details, tone)`` of the verdict bar's resumability line for a Resumability (or None) and the
    report's integrity lint (``LintFinding``s, FORMAT.md 4.17): the answer and its deciding reason, and how many lint
    warnings and host facts qualify it; ``details`` one sentence each (the reasons, the lint warnings, the host facts),
    texts from the file made visible (:func:`~inspector.session.visible.visible`). A resumable answer that lint
    qualifies is not drawn as a plain pass (lint never changes the answer, but a green line must not hide it)."""
    if res is None:
        return "", [], Verdict.NOT_APPLICABLE
    text = f"Resumability: {res.headline}"
    warnings = [f for f in lint if not f.blocks_resume]  # (a blocking finding is a reason: said as one)
    if res.reasons:
        text += f" — {visible(str(res.reasons[0].text))}"
    elif warnings or res.unknowns:
        qualifiers = []
        if warnings:
            n = sum(1 + f.more for f in warnings)  # (a kind's findings past its cap are counted in ``more``)
            qualifiers.append(f"{n} integrity-lint warning{'s' if n != 1 else ''} "
                              f"({', '.join(dict.fromkeys(f.kind for f in warnings))})")
        if res.unknowns:
            qualifiers.append(f"if the host confirms {len(res.unknowns)} fact(s) the artifact cannot prove")
        text += " — " + "; ".join(qualifiers)
    details = [f"Because: {visible(str(r.text))}" for r in res.reasons]
    if res.loadable_as_session and res.answer != RESUMABLE:
        details.append("The artifact is still loadable as a session.")
    details += [f"Integrity lint: {f.title}: {visible(str(f.explanation))}" + (f" (and {f.more} more)" if f.more else "")
                for f in warnings]
    details += [f"Host must confirm: {visible(str(u.text))}" for u in res.unknowns]
    if res.answer == RESUMABLE:
        tone = Verdict.NOT_REACHED if warnings else Verdict.PASS
    else:
        tone = Verdict.FAIL if res.answer == NOT_RESUMABLE else Verdict.NOT_REACHED
    return text, details, tone


class _CaptionRow(QWidget):
    """The caption (cut at the right when narrow; its tooltip has all of it) and, when there is
    room for both, the legend beside it. Never asks for more width than the caption's first words."""

    def __init__(self, caption: QLabel, legend: QLabel):
        super().__init__()
        self.caption, self.legend = caption, legend
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 0, 4, 0)
        caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        lay.addWidget(caption, 1)
        lay.addWidget(legend)

    def minimumSizeHint(self):  # noqa: N802 (Qt override)
        h = super().minimumSizeHint()
        return QSize(120, h.height())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        need = self.caption.sizeHint().width() + self.legend.sizeHint().width() + 24
        show = self.width() >= need
        if show != self.legend.isVisible():
            self.legend.setVisible(show)

    def set_caption(self, text: str) -> None:
        """Show ``text`` as the caption (its tooltip: the text and the legend)."""
        self.caption.setText(text)
        # (the legend is hidden when there is no room: its marks are in the tooltip too)
        self.caption.setToolTip(f"{html.escape(text)}<br><br>{self.legend.text()}" if text else self.legend.text())
        self._fit()


class ResumePanes(QObject):
    """Builds the Resume dock of ``window`` and keeps it in step with ``window.doc``.

    Attributes:
        timeline (:class:`~.widgets.timeline.TimelineView`), transcript
        (:class:`~.widgets.transcript.TranscriptPane`), lint_list (``QListWidget``), tabs, dock.
    """

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.timeline = TimelineView()
        self.timeline.describe = self._describe
        self.transcript = TranscriptPane()
        self.lint_list = QListWidget()
        self.lint_list.setObjectName("lintList")
        self.lint_list.setAccessibleName("Integrity lint")
        self.lint_list.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("resumeTabs")
        self.tabs.setAccessibleName("Resume: timeline, transcript, integrity lint, events")
        self.tabs.addTab(self._timeline_page(), "Timeline")
        self.tabs.addTab(self.transcript, "Transcript")
        self.tabs.addTab(self.lint_list, "Integrity lint")
        self.events = EventsPane()  # the timeline's events as a table, linked both ways
        self.tabs.addTab(self.events, "Events")
        self.tabs.setCornerWidget(self.timeline_controls, Qt.Corner.TopRightCorner)
        self._controls_in_row = False
        self.tabs.installEventFilter(self)  # (a narrow dock: the controls go to the caption row)
        self.tabs.currentChanged.connect(lambda i: self.timeline_controls.setVisible(i == 0 or self._controls_in_row))
        d = QDockWidget("Resume — timeline, transcript, integrity lint, events", window)
        d.setObjectName("resumeDock")
        d.setWidget(self.tabs)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, d)
        self.dock = d
        self._report = self._data = None
        self._events_paths: tuple = ()  # the files whose events the Events tab shows (its filter is theirs)
        self._follow = False  # the report shown is waiting for its views (a large payload's)
        self._pending = None
        window.doc.presented.connect(self._present)
        window.doc.changed.connect(self._changed)
        self.timeline.pointerActivated.connect(lambda ptr: self._activated(ptr, "timeline"))
        self.timeline.pointerActivated.connect(self._select_event_row)
        self.events.eventActivated.connect(self._event_row_selected)
        self.transcript.pointerActivated.connect(lambda ptr: self._activated(ptr, "transcript"))
        # (selection, not current row: the focus alone makes the first row current, selecting nothing)
        self.lint_list.itemSelectionChanged.connect(lambda: self._lint_selected(self.lint_list.currentRow()))
        window.snap_pane.view.selectionModel().currentChanged.connect(self._tree_changed)
        self._clear("No checkpoint open.")

    def _timeline_page(self) -> QWidget:
        """The Timeline tab: the x-axis controls sit in the tab bar's corner and the caption and
        legend share one row, so a short window (1024x700) still shows whole lanes."""
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.mode_seq = QRadioButton("Sequence")
        self.mode_time = QRadioButton("Time")
        self.mode_seq.setChecked(True)
        group = QButtonGroup(page)
        group.addButton(self.mode_seq)
        group.addButton(self.mode_time)
        self.mode_seq.toggled.connect(lambda on: self.timeline.set_mode("sequence" if on else "time"))
        fit = QPushButton("Fit")
        fit.setToolTip("Show every event again, Ctrl+0 (Ctrl+wheel or +/- to zoom; a zoom stays until Fit)")
        fit.clicked.connect(self.timeline.fit)
        corner = QWidget()
        corner.setObjectName("timelineControls")
        cl = QHBoxLayout(corner)
        cl.setContentsMargins(0, 0, 4, 0)
        for wdg in (QLabel("x:"), self.mode_seq, self.mode_time, fit):
            cl.addWidget(wdg)
        self.timeline_controls = corner
        pal = corner.palette()
        # what the legend's text may be drawn on: the window, the tab page (the style paints it a shade off the
        # window: the legend read 3.69-4.18:1 in dark palettes when only the window was asked), the rows, buttons
        grounds = [pal.color(r) for r in (pal.ColorRole.Window, pal.ColorRole.Base, pal.ColorRole.Button)]
        grounds += [grounds[0].lighter(115), grounds[0].darker(115)]

        def ink(c: str) -> str:  # legend text readable on all of them, light or dark (WCAG AA 4.5:1)
            return style.readable_on_all(c, grounds, 4.5).name()

        legend_html = "  ".join(f"<span style='color:{ink(CATEGORY_COLOURS[c])}'>{sym} {c}</span>" for c, sym in (
            ("run", "┃"), ("turn", "│"), ("tool", "╵"), ("model", "╷"), ("cognitive", "◆"), ("error", "✕"))) \
            + f"  <span style='color:{ink('#2e7d32')}'>▌ resume boundary</span>  ✖○ failing rule  ! □ lint"
        self.timeline_caption = QLabel("")
        self.timeline_caption.setObjectName("timelineCaption")
        self.timeline_caption.setWordWrap(True)  # (a narrow dock, the compact layout's tab: all of it, on lines)
        self.timeline_legend = QLabel(legend_html)
        self.timeline_legend.setObjectName("timelineLegend")
        row = _CaptionRow(self.timeline_caption, self.timeline_legend)
        self.timeline_row = row
        self.timeline_legend.setToolTip("Legend of the timeline's marks")
        lay.addWidget(row)
        lay.addWidget(self.timeline, 1)
        return page

    def eventFilter(self, obj, event):  # noqa: N802 (Qt override)
        """Place the x-axis controls when the Resume tabs are resized."""
        if obj is self.tabs and event.type() == QEvent.Type.Resize:
            self._place_controls()
        return super().eventFilter(obj, event)

    def _place_controls(self) -> None:
        """The x-axis controls sit in the tab bar's corner, or at the start of the caption row when
        the dock is too narrow for both the tabs and them (beside the folder table at 1024 px the
        tabs were pushed under them)."""
        controls, tabs = self.timeline_controls, self.tabs
        narrow = tabs.width() < tabs.tabBar().sizeHint().width() + controls.sizeHint().width() + 16
        if narrow == self._controls_in_row:
            return
        self._controls_in_row = narrow
        if narrow:
            tabs.setCornerWidget(None, Qt.Corner.TopRightCorner)
            self.timeline_row.layout().insertWidget(0, controls)
        else:
            self.timeline_row.layout().removeWidget(controls)
            tabs.setCornerWidget(controls, Qt.Corner.TopRightCorner)
        controls.setVisible(narrow or tabs.currentIndex() == 0)

    # -- showing a report --------------------------------------------------------------------------
    def show_message(self, message: str) -> None:
        """Show ``message`` instead of a timeline, transcript and lint (e.g. a cancelled load);
        a presentation still waiting for its event-loop turn is dropped."""
        self._pending = None
        self._clear(message)

    def show_views_missing(self, message: str) -> None:
        """The timeline and transcript of the report shown will not come (its load stopped after the verdicts):
        say ``message`` in their place; the lint and the resumability line stay."""
        p, self._pending = self._pending, None
        if p is not None:
            self._present_now(p)
        if self._follow:
            self.timeline.set_timeline(None, message=message)
            self.events.set_timeline(None)
            self.transcript.set_transcript(None, None, message)

    def _clear(self, message: str) -> None:
        self._report = self._data = None
        self._follow = False
        self.timeline.set_timeline(None, message=message)
        self.events.set_timeline(None)
        self.timeline_row.set_caption("")
        self.transcript.set_transcript(None, None, message)
        self.lint_list.clear()
        self.tabs.setTabText(2, "Integrity lint")
        self._set_line(None)

    def _set_line(self, res, lint=()) -> None:
        text, details, tone = resumability_line(res, lint)
        self.w.header.set_resumability(text, details, style.colour(tone))

    def _changed(self) -> None:
        if self.w.doc.is_empty:
            self._pending = None
            self._clear("No checkpoint open.")

    def _present(self, presentation) -> None:
        """Show the presentation in the next event-loop turn: the window shows its verdicts in this
        one, and doing both in one turn would freeze it twice as long on a large checkpoint."""
        self._pending = presentation
        QTimer.singleShot(1, self, self._present_pending)  # (not after the window is gone)

    def _present_pending(self) -> None:
        p, self._pending = self._pending, None
        if p is not None:
            self._present_now(p)

    def _present_now(self, presentation) -> None:
        report = presentation.analysis.report
        if report is None:
            self._clear("Verifying… the timeline appears with the verdicts.")
            return
        payload = presentation.analysis.payload
        data = payload.data if payload is not None else None
        follow = presentation.analysis.views_follow
        if report is self._report and data is self._data and not self._follow:
            return  # shown already (a large pretty-printed payload's verdicts come before its trees)
        self._report, self._data, self._follow = report, data, follow
        self._set_line(report.resumability, report.lint)
        self._show_lint(report)
        if follow:  # a large payload's verdicts come before its timeline and transcript
            self.timeline.set_timeline(None, message=READING_TIMELINE)
            self.events.set_timeline(None)
            self.timeline_row.set_caption("")
            self.transcript.set_transcript(None, None, READING_TIMELINE)
            return
        views = report.views
        if views is None:
            failed = presentation.analysis.views_error
            why = ("No payload open." if payload is None else
                   f"The timeline and transcript could not be built: {failed}. The verdicts are complete; "
                   "Reload (F5) tries again." if failed else
                   "The payload does not decode, so there are no runs or messages to show (see the verdicts).")
            self.timeline.set_timeline(None, message=why)
            self.events.set_timeline(None)
            self.timeline_row.set_caption("")
            self.transcript.set_transcript(None, None, why)
            return
        tl, tr = views
        rule_marks = marks_by_lane(tl, [(f.rule.id, loc) for f in report.failed() for loc in f.locations])
        lint_marks = marks_by_lane(tl, [(x.kind, loc) for x in report.lint for loc in x.locations])
        self.timeline.set_timeline(tl, rule_marks, lint_marks)
        same = tuple(self.w.doc.paths) == self._events_paths  # (the same files again: the filter stays)
        self._events_paths = tuple(self.w.doc.paths)
        self.events.set_timeline(tl, self._summary, keep_filter=same)
        src = next((x for x in tl.lanes if x.source), None)
        cap = f"{len(tl.lanes):,} run(s), {tl.event_total:,} event(s)."
        if tl.source_run is not None:
            cap += (f" Loop checkpoint: source run {tl.source_run!r}, resumes after pass {tl.boundary_turn}"
                    + ("" if src is not None else " — that run is NOT in the snapshot")
                    + (" — that pass is not among the run's retained events"
                       if src is not None and src.boundary is None else "") + ".")
        else:
            cap += " No loop checkpoint: nothing to resume."
        self.timeline_row.set_caption(cap)
        self.transcript.set_transcript(tr, data, lint=report.lint)

    def _show_lint(self, report) -> None:
        self.lint_list.clear()
        n = len(report.lint)
        self.tabs.setTabText(2, f"Integrity lint ({n})" if n else "Integrity lint")
        if not n:
            item = QListWidgetItem("No integrity-lint findings. (Lint never changes the verdict.)")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.lint_list.addItem(item)
            return
        for f in report.lint:
            flag = "BLOCKS RESUME — " if f.blocks_resume else ""
            where = f.locations[0].pointer if f.locations else ""
            more = f" (and {f.more} more)" if f.more else ""
            item = QListWidgetItem(f"! {flag}{f.title}: {f.explanation}{more}\n    at {where}")
            item.setData(Qt.ItemDataRole.UserRole, f)
            self.lint_list.addItem(item)

    # -- selection ---------------------------------------------------------------------------------
    def _activated(self, pointer: str, origin: str) -> None:
        self.w.selection.relay(Location("payload", pointer, None), origin)

    def _lint_selected(self, row: int) -> None:
        item = self.lint_list.item(row)
        f = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if f is not None and f.locations:
            self.w.selection.relay(f.locations[0], "lint", ("lint", row))
            self.timeline.select_pointer(f.locations[0].pointer)
            self.transcript.select_pointer(f.locations[0].pointer)

    def _tree_changed(self, current, _previous) -> None:
        if not current.isValid():
            return
        pointer = current.model().data(current, PointerRole)
        if not pointer:
            return
        if pointer.startswith(_RUNS):
            self.timeline.select_pointer(pointer)
            self._select_event_row(pointer)
        elif pointer.startswith(("/snapshot/session/messages/", "/logical_resume/messages/")):
            self.transcript.select_pointer(pointer)

    @staticmethod
    def _lane_spans(lane, payload) -> bool:
        """Give ``lane`` its events' byte spans (``lane.starts``/``lane.ends``) when it has none yet: the
        engine leaves them out (each run's events would cost the verifier about 0.1 ms, 0.24 s for the
        bench file's 2,352 runs, before any verdict shows), so the first hover over a run finds them here,
        through the trees' index to the run record, then its ``events`` member and their elements: from the
        index when it holds them (every container of at least 64 KiB), else at C speed for a compact payload
        (:func:`inspector.checkpoint.jsontext.lazyjson.children_of`); only a smaller container of a non-compact payload is scanned in
        Python (at most 64 KiB: milliseconds). False when they cannot be found (the payload is not the run
        record's JSON), and, without reading anything, while a payload of more than 64 KiB has no index (a large
        pretty-printed payload's verdicts come before its trees: finding a run record from the root would scan
        the whole file in Python on the GUI thread; :meth:`_describe` says they come with the trees)."""
        if lane.starts is not None:
            return True
        data, index = payload.data, payload.index
        if index is None and len(data) > BIG:
            return False
        try:
            record = find_span(data, index, f"/snapshot/run_records/{lane.index}")
            if record is None or data[record[0]] != 0x7B:
                return False
            members = children_of(data, index, *record)
            at = [i for i, k in enumerate(members.keys) if k == "events"]
            if not at or data[members.starts[at[-1]]] != 0x5B:
                return False
            events = children_of(data, index, members.starts[at[-1]], members.ends[at[-1]])
        except (ScanError, IndexError):
            return False
        lane.starts, lane.ends = events.starts, events.ends
        return True

    def _select_event_row(self, pointer: str) -> None:
        """Select the Events row of the event the timeline or the tree selected."""
        if self.timeline.selected is not None:
            self.events.select_event(*self.timeline.selected)

    def _event_row_selected(self, lane: int, e: int) -> None:
        """An Events row was selected: the same event in the picture, the tree and the bytes."""
        ln = self.timeline.timeline.lanes[lane]
        self.timeline.select_pointer(ln.pointer(e))
        self._activated(ln.pointer(e), "events")

    def _summary(self, lane, e: int) -> str:
        """An Events row's summary, read from the event's bytes (structural: turn, tool, usage)."""
        payload = self.w.doc.payload
        if payload is None or payload.data is None or not self._lane_spans(lane, payload):
            return ""
        try:
            ev = orjson.loads(payload.data[lane.starts[e]:lane.ends[e]]).get("event") or {}
        except (orjson.JSONDecodeError, IndexError, AttributeError):
            return ""
        return event_summary(ev) if isinstance(ev, dict) else ""

    def _describe(self, lane, e: int) -> list[str]:
        """Hover lines for event ``e``: its fields, read from the payload bytes (short values)."""
        payload = self.w.doc.payload
        if payload is None or payload.data is None:
            return []
        if not self._lane_spans(lane, payload):
            if payload.index is None and payload.parse_error is None and len(payload.data) > BIG:
                return ["(the event's fields show once the trees are read)"]
            return []
        try:
            ev = orjson.loads(payload.data[lane.starts[e]:lane.ends[e]]).get("event") or {}
        except (orjson.JSONDecodeError, IndexError, AttributeError):
            return []
        lines = []
        for k, v in ev.items():
            if k == "type":
                continue
            s = v if isinstance(v, str) else orjson.dumps(v).decode()
            lines.append(f"{k}: {s[:100]}{'…' if len(s) > 100 else ''}")
            if len(lines) >= 8:
                lines.append("…")
                break
        return lines
