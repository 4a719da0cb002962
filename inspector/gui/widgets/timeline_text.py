"""What the timeline says in words (:class:`.timeline.TimelineView`): the hover text of an event or run,
and what a screen reader reads of it (its accessible description, text lines and value), kept apart from the
painting and the input handling."""

from __future__ import annotations

import datetime

from inspector.session.visible import visible
from ..accessibility import content_changed

__all__ = ["TimelineWords"]


class TimelineWords:
    """The timeline's words (every one through the window's one escaping, :func:`.visible.visible`: run ids,
    statuses and kinds come from the file), mixed into :class:`.timeline.TimelineView`: reads its ``timeline``
    (:class:`~inspector.checkpoint.analysis.views.Timeline` or ``None``), ``selected`` (``(lane, event or None)``
    or ``None``), ``message``, ``rule_marks``/``lint_marks`` (lane -> event -> ids), ``describe`` and
    ``_is_sorted``/``_sorted``."""

    def accessible_summary(self) -> str:
        """What a screen reader says of the timeline (its accessible description): how many runs, and the
        selected event (:meth:`event_line`) or run."""
        tl = self.timeline
        if tl is None or not tl.lanes:
            return self.message or "No checkpoint open."
        runs = f"{len(tl.lanes)} run{'s' * (len(tl.lanes) != 1)}"
        if self.selected is None:
            return f"{runs}; no event selected (arrow keys select one)"
        lane, e = self.selected
        ln = self.timeline.lanes[lane]
        if e is None:
            return visible(f"{runs}; selected: run {ln.id}, {ln.status}, {len(ln.seq)} events retained of "
                           f"{ln.event_count}")
        return f"{runs}; selected: {self.event_line(lane, e)}"

    def event_line(self, lane: int, e: int) -> str:
        """Event ``e`` of lane ``lane`` in words: kind, sequence number, run, loop pass (FORMAT.md 4.17), time
        (UTC, milliseconds) and the rules failing there, e.g. ``"tool_end, event #12 of run r1, pass P2, at
        10:00:01.250 UTC"``."""
        ln = self.timeline.lanes[lane]
        when = datetime.datetime.fromtimestamp(ln.ts[e] / 1000, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        turn = ln.passes().turn_of(e)
        pas = f"pass P{turn}" if turn is not None else "in no pass"
        rules = ", ".join(self.rule_marks.get(lane, {}).get(e, []))
        return visible(f"{ln.kind_name(e)}, event #{ln.seq[e]} of run {ln.id}, {pas}, at {when} UTC"
                       + (f"; failing here: {rules}" if rules else ""))

    def accessible_lines(self) -> tuple[list[str], int]:
        """The text a screen reader reads of the timeline (its accessible text interface): the selected
        event's line (:meth:`event_line`) with up to two events either side of it in its run, or one line for a
        selected run or for nothing selected; and the index of the selected line."""
        if self.timeline is None or not self.timeline.lanes or self.selected is None or self.selected[1] is None:
            return [self.accessible_summary()], 0
        lane, e = self.selected
        lo, hi = max(0, e - 2), min(len(self.timeline.lanes[lane].seq), e + 3)
        return [self.event_line(lane, i) for i in range(lo, hi)], e - lo

    def accessible_value(self) -> tuple[int, int, int]:
        """The timeline as an accessible value: ``(selected event's sequence number, first, last retained
        sequence number of its run)``; ``(0, 0, 0)`` when no event is selected. (The bounds of a run whose
        sequence numbers are out of order take one pass over them, once per run and timeline.)"""
        if self.timeline is None or self.selected is None or self.selected[1] is None:
            return 0, 0, 0
        ln = self.timeline.lanes[self.selected[0]]
        return ln.seq[self.selected[1]], *self._seq_bounds(ln)

    def _seq_bounds(self, ln) -> tuple[int, int]:
        if self._is_sorted(ln, "sequence"):
            return ln.seq[0], ln.seq[-1]
        key = ("bounds", ln.index)
        if key not in self._sorted:
            self._sorted[key] = (min(ln.seq), max(ln.seq))
        return self._sorted[key]

    def _selected_seq(self) -> int:
        """The selected event's sequence number (0 without one): what the value-changed event carries."""
        if self.timeline is None or self.selected is None or self.selected[1] is None:
            return 0
        return self.timeline.lanes[self.selected[0]].seq[self.selected[1]]

    def _describe(self) -> None:
        text = self.accessible_summary()
        if text != self.accessibleDescription():
            self.setAccessibleDescription(text)  # (Qt tells assistive technology: DescriptionChanged)
        content_changed(self, self._selected_seq)  # the text and value interfaces

    def event_text(self, lane: int, e: int | None) -> str:
        """The hover text of an event (or of the run when ``e`` is ``None``)."""
        ln = self.timeline.lanes[lane]
        if e is None:
            lines = [f"run {ln.id}", f"status: {ln.status}" + (" (terminal)" if ln.terminal else ""),
                     f"{len(ln.seq)} events retained of {ln.event_count}"]
            if ln.source:
                lines.append(f"source run of the loop checkpoint (resumes after pass {self.timeline.boundary_turn})"
                             if ln.boundary is not None else
                             f"source run of the loop checkpoint: its pass {self.timeline.boundary_turn} is not among "
                             "the retained events")
        else:
            ts = ln.ts[e]
            when = datetime.datetime.fromtimestamp(ts / 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
            lines = [f"{ln.kind_name(e)} — event #{ln.seq[e]} of run {ln.id}", f"{when} UTC ({ts} ms)"]
            if self.describe is not None:
                lines += self.describe(ln, e)
        for rid in self.rule_marks.get(lane, {}).get(e, []):
            lines.append(f"✖ rule {rid} fails here")
        for kind in self.lint_marks.get(lane, {}).get(e, []):
            lines.append(f"! lint: {kind}")
        return "\n".join(visible(line) for line in lines)  # (each line quotes the file: one escaping)
