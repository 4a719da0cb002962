"""``SelectionRelay``: the one place where a selection in one pane is shown in the others.

Every pane reports a selection as a :class:`~inspector.checkpoint.Location`; only
:meth:`SelectionRelay.relay` forwards it to the other panes (tree -> bytes and verdicts,
bytes -> tree, verdict -> tree and bytes, digest -> descriptor tree and bytes), and it ignores
the echo of its own updates. It also knows which tree the user last worked in (for Copy,
Find and Edit Value) and moves between failures.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QObject
from PySide6.QtWidgets import QApplication, QTreeView

from inspector.checkpoint import Location

from inspector.session.history import SelectionHistory, Stop
from .roles import LocationRole, ObjectRole
from .widgets.panes import TreePane, finding_html

__all__ = ["SelectionRelay"]


class SelectionRelay(QObject):
    """Connects the panes of ``window`` (a :class:`~.window.MainWindow`) through their selections."""

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.relaying = False
        self.last_tree_view: QTreeView | None = None
        self.history = SelectionHistory(200)
        w = window
        for pane in w.tree_panes():
            pane.view.selectionModel().currentChanged.connect(
                lambda cur, prev, v=pane.view: self._tree_current_changed(v, cur))
        w.findings_view.selectionModel().currentChanged.connect(self._finding_current_changed)
        w.digests_view.selectionModel().currentChanged.connect(self._digest_current_changed)
        w.hex_payload.offsetActivated.connect(lambda off: self.hex_clicked("payload", off))
        w.hex_descriptor.offsetActivated.connect(lambda off: self.hex_clicked("descriptor", off))
        w.detail.locationClicked.connect(self._detail_location)
        w.detail.ruleClicked.connect(self.select_rule)

    # -- which tree ------------------------------------------------------------------------------
    def tree_for(self, source: str, pointer: str) -> TreePane:
        """The pane that shows ``pointer`` of ``source``."""
        w = self.w
        if source == "descriptor":
            return w.desc_pane
        if pointer == "/logical_resume" or pointer.startswith("/logical_resume/"):
            return w.resume_pane
        return w.snap_pane

    def focused_tree(self) -> QTreeView | None:
        """The tree view that has keyboard focus (or contains the focused editor), or None."""
        w = self.w
        fw = QApplication.focusWidget()
        for pane in w.tree_panes():
            if fw is pane.view or (fw is not None and pane.view.isAncestorOf(fw)):
                return pane.view
        if w.lower_trees.isVisible() and w.lower_trees.currentWidget() in (w.resume_pane, w.desc_pane):
            if fw is not None and w.lower_trees.isAncestorOf(fw):
                return w.lower_trees.currentWidget().view
        return None

    def last_tree(self) -> QTreeView:
        """The focused tree, else the tree that last had focus (the snapshot tree at first)."""
        view = self.focused_tree()
        if view is not None:
            self.last_tree_view = view
            return view
        return self.last_tree_view or self.w.snap_pane.view

    # -- the relay -------------------------------------------------------------------------------
    def relay(self, loc: Location | None, origin: str, place: tuple | None = None) -> None:
        """Forward a selection to every pane but ``origin``.

        ``origin``: ``tree``, ``bytes``, ``finding``, ``digest``, ``timeline``, ``transcript``,
        ``lint`` (or ``history``: Back/Forward). Trees select the node at the pointer, the bytes
        view highlights its exact span, the verdicts select the first failing rule whose evidence
        is there. ``place`` (see :class:`~.history.Stop`) is where the user selected it, so
        Back/Forward can select it there again.
        """
        if loc is None or self.relaying:
            return
        w = self.w
        if origin != "history":
            self.history.push(loc, place if place is not None else (origin,))
        self.relaying = True
        try:
            pane = self.tree_for(loc.source, loc.pointer)
            span = loc.span
            if origin != "tree":
                idx = pane.model.index_for_pointer(loc.pointer)
                if idx.isValid():
                    if pane in (w.resume_pane, w.desc_pane):
                        w.lower_trees.setCurrentWidget(pane)
                    pane.view.setCurrentIndex(idx)
                    pane.view.scrollTo(idx)
                    if span is None or origin in ("bytes", "digest"):
                        span = pane.model.data(idx, LocationRole).span
            hexv = w.hex_payload if loc.source == "payload" else w.hex_descriptor
            if origin != "bytes":
                w.hex_tabs.setCurrentWidget(hexv)
                hexv.highlight(span, field=loc.pointer)
            elif span is not None:
                hexv.highlight(span, scroll=False, field=loc.pointer)
            if origin in ("tree", "bytes", "history"):
                hits = w.findings_model.indexes_at(loc.source, loc.pointer)
                exact = [i for i in hits
                         if any(x.source == loc.source and x.pointer == loc.pointer
                                for x in w.findings_model.data(i, ObjectRole).locations)]
                if exact:
                    w.findings_view.setCurrentIndex(exact[0])
        finally:
            self.relaying = False

    def _tree_current_changed(self, view, current):
        if not current.isValid() or self.relaying:
            return
        self.relay(view.model().data(current, LocationRole), "tree")

    def hex_clicked(self, source: str, offset: int) -> None:
        """Byte ``offset`` of ``source`` was clicked: select the deepest node that contains it."""
        if self.relaying:
            return
        w = self.w
        if source == "descriptor":
            model = w.desc_model
            idx = model.index_for_offset(offset)
        else:
            model = w.resume_model
            idx = model.index_for_offset(offset)
            if not idx.isValid():
                model = w.snap_model
                idx = model.index_for_offset(offset)
        if idx.isValid():
            self.relay(model.data(idx, LocationRole), "bytes", ("bytes", source))

    def _finding_current_changed(self, current):
        if not current.isValid():
            return
        w = self.w
        f = w.findings_model.data(current, ObjectRole)
        if f is None:
            return
        w.detail.setHtml(finding_html(f, w.doc.report, edited=bool(w.doc.edited_sources),
                                      restorable=w.doc.can_restore()))
        if self.relaying:
            return
        if f.locations:
            self.relay(f.locations[0], "finding", ("finding", f.rule.id))
        else:  # a verdict with no location (most PASS rows) is a stop too
            self.history.push(Location("", "", None), ("finding", f.rule.id))

    def _detail_location(self, i: int):
        w = self.w
        f = w.findings_model.data(w.findings_view.currentIndex(), ObjectRole)
        if f is not None and i < len(f.locations):
            self.relay(f.locations[i], "finding", ("finding", f.rule.id))

    def _digest_current_changed(self, current):
        if not current.isValid():
            return
        w = self.w
        row = w.digests_model.row_object(current.row())
        payload = w.doc.payload
        payload_span = None
        if row.preimage_size and not row.domain and payload is not None and payload.tree_ok:
            if row.label.startswith("payload"):
                payload_span = (0, payload.size)
            else:
                ptr = "/snapshot" if row.label.startswith("snapshot") else "/logical_resume"
                model = self.tree_for("payload", ptr).model
                idx = model.index_for_pointer(ptr)
                if idx.isValid():
                    payload_span = model.data(idx, LocationRole).span
        w.digest_detail.show_row(row, payload_span)
        if not self.relaying:
            self.relay(Location("descriptor", row.pointer, None), "digest", ("digest", current.row()))

    # -- back/forward ----------------------------------------------------------------------------
    def go_back(self) -> None:
        """Go ▸ Back (Alt+Left): re-select the previous selection in its tree, bytes and verdicts."""
        self._go(self.history.back(), "No earlier selection.")

    def go_forward(self) -> None:
        """Go ▸ Forward (Alt+Right): re-select the selection that Back left."""
        self._go(self.history.forward(), "No later selection.")

    def _go(self, stop: Stop | None, none_text: str) -> None:
        if stop is None:
            self.w.statusBar().showMessage(none_text, 3000)
            return
        pane = None
        if stop.source:  # (a verdict with no location has none)
            self.relay(stop.location, "history")
            pane = self.tree_for(stop.source, stop.pointer)
            self.last_tree_view = pane.view
        self.relaying = True  # the place re-selected below must not relay (or push) again
        try:
            view = self._restore_place(stop)
        finally:
            self.relaying = False
        if view is None and pane is not None:
            view = (self.w.hex_payload if stop.source == "payload" else self.w.hex_descriptor) \
                if stop.place and stop.place[0] == "bytes" else pane.view
        if view is not None and view.isVisible():
            view.setFocus()

    def _restore_place(self, stop: Stop):
        """Select ``stop`` again where it was selected (digests row, verdict, timeline event,
        transcript message, lint row); returns that view, or None for a tree or the bytes."""
        w = self.w
        kind = stop.place[0] if stop.place else None
        if kind == "digest" and stop.place[1] < w.digests_model.rowCount():
            idx = w.digests_model.index(stop.place[1], 0)
            w.digests_view.setCurrentIndex(idx)  # (its detail follows; relaying: no new stop)
            w.digests_view.scrollTo(idx)
            return w.digests_view
        if kind == "finding":
            idx = w.findings_model.index_for_rule(stop.place[1])
            if idx.isValid():
                w.findings_view.setCurrentIndex(idx)
                w.findings_view.scrollTo(idx)
                return w.findings_view
            return None
        panes = getattr(w, "resume_panes", None)
        if panes is None or kind not in ("timeline", "transcript", "lint"):
            return None
        if kind == "timeline" and panes.timeline.select_pointer(stop.pointer):
            panes.tabs.setCurrentIndex(0)
            return panes.timeline
        if kind == "transcript" and panes.transcript.select_pointer(stop.pointer):
            panes.tabs.setCurrentIndex(1)
            return panes.transcript.view
        if kind == "lint" and stop.place[1] < panes.lint_list.count():
            panes.tabs.setCurrentIndex(2)
            panes.lint_list.setCurrentRow(stop.place[1])
            panes.timeline.select_pointer(stop.pointer)
            return panes.lint_list
        return None

    # -- verdict navigation ----------------------------------------------------------------------
    def select_rule(self, rule_id: str) -> None:
        """Select the verdict row of ``rule_id`` (which relays its location)."""
        w = self.w
        idx = w.findings_model.index_for_rule(rule_id)
        if idx.isValid():
            if w.findings_view.currentIndex() == idx:
                self._finding_current_changed(idx)
            else:
                w.findings_view.setCurrentIndex(idx)
            w.findings_view.scrollTo(idx)

    def goto_root_cause(self) -> None:
        """Select the root cause's verdict (and so its field and bytes) and focus the verdicts."""
        report = self.w.doc.report
        if report is not None and report.root_cause is not None:
            # Focus first, then make the rule's row current: a row made current while the tree has the focus is
            # told to a screen reader as the focused cell. The tree's own focus event is not: Orca 43.1 then asks
            # the tree which cells are selected, and Qt 6.11 answers with the row above the selected one (it said
            # "Root cause: 1 FAIL", the group). When the row is current already, the current row steps to its
            # group and back (NoUpdate: the selection stays; a group row relays nothing).
            view = self.w.findings_view
            view.setFocus()
            idx = self.w.findings_model.index_for_rule(report.root_cause.rule.id)
            if idx.isValid() and view.currentIndex() == idx and idx.parent().isValid():
                view.selectionModel().setCurrentIndex(idx.parent(), QItemSelectionModel.SelectionFlag.NoUpdate)
            self.select_rule(report.root_cause.rule.id)

    def goto_failure(self, step: int) -> None:
        """Select the next (``+1``) or previous (``-1``) failing rule, wrapping around."""
        w = self.w
        fails = w.findings_model.failure_indexes()
        if not fails:
            w.statusBar().showMessage("No rule failed.", 3000)
            return
        cur = w.findings_view.currentIndex()
        ids = [w.findings_model.data(i, ObjectRole) for i in fails]
        f = w.findings_model.data(cur, ObjectRole) if cur.isValid() else None
        pos = next((k for k, x in enumerate(ids) if x is f), -1)
        nxt = fails[(pos + step) % len(fails)] if pos >= 0 else fails[0 if step > 0 else -1]
        w.findings_view.setCurrentIndex(nxt)
        w.findings_view.scrollTo(nxt)
