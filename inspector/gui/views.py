"""Showing what the document holds in the panes: trees and bytes, verdict markers, the detail,
and keeping the trees' expansion, selection and scroll across a recompute (no walk recurses)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex

from inspector.checkpoint import Verdict

from .document import display_name
from inspector.session.engine import EDIT_LIMIT
from .roles import PointerRole
from .widgets.panes import finding_html

__all__ = ["show_side", "update_captions", "expand_defaults", "set_report", "capture_views", "restore_views",
           "capture_document_view", "restore_document_view"]


def show_side(w, source: str, side):
    hexv = w.hex_payload if source == "payload" else w.hex_descriptor
    panes = (w.snap_pane, w.resume_pane) if source == "payload" else (w.desc_pane,)
    if side is None:
        hexv.set_data(None, f"No {source} open.")
        for p in panes:
            p.model.clear()
            p.show_message(f"No {source} open. Drop the {source} file here or use File ▸ Open.")
        return
    placeholder = side.hint or "not read"
    hexv.set_data(side.data, f"The {source} was not read: {placeholder}.")
    editable = side.data is not None and side.size <= EDIT_LIMIT
    for p in panes:
        if side.tree_ok:
            p.model.set_document(side.data, side.index, editable=editable)
            p.show_tree()
            if not p.model.rowCount():
                what = "resume boundary (logical_resume)" if p is w.resume_pane else "content"
                p.show_message(f"This {source} has no {what}.")
        else:
            p.model.clear()
            if side.data is None:
                p.show_message(f"The {source} file was not read: {placeholder}. Its size alone decides the "
                               "verdict; see the verdicts.")
            elif side.parse_error:
                msg, off = side.parse_error
                where = f" The bytes view marks byte {off}." if off is not None else ""
                p.show_message(f"The {source} is not valid JSON, so no tree can be shown: {msg}.{where} "
                               "The bytes are shown as read.")
                if off is not None:
                    hexv.set_mark(min(off, max(len(side.data) - 1, 0)))
            else:
                p.show_message(f"Reading the {source}…")
    update_captions(w)


def update_captions(w):
    """Tree captions: file name and size, and "(edited)" on the documents that were edited; a
    pane with no document gets its first caption back (not the previous checkpoint's file)."""
    doc = w.doc
    for source, side, panes in (("payload", doc.payload, (w.snap_pane, w.resume_pane)),
                                ("descriptor", doc.descriptor, (w.desc_pane,))):
        if side is None:
            for p in panes:
                p.caption.setText(p.empty_caption)
            continue
        name = display_name(side.path)
        size = f"{side.size:,} bytes"
        captions = {
            w.snap_pane: f"<b>Snapshot</b> — {name}, {size}",
            w.resume_pane: f"<b>Resume boundary</b> — {name} /logical_resume",
            w.desc_pane: f"<b>Descriptor</b> — {name}, {size}",
        }
        for p in panes:
            p.caption.setText(captions[p] + (" <i>(edited)</i>" if source in doc.edited_sources else ""))


def why_not_editable(w, view, index) -> str:
    """Why F2 cannot edit the tree row ``index`` of ``view``: the file is over
    :data:`.engine.EDIT_LIMIT` (the sandbox edits a copy in memory), or the row is an object or
    array, not one value."""
    source = "descriptor" if view is w.desc_pane.view else "payload"
    side = w.doc.side(source)
    if side is not None and side.size > EDIT_LIMIT:
        return (f"The {source} is {side.size / 2**20:.1f} MiB: files up to {EDIT_LIMIT // 2**20} MiB can be "
                "edited (in a sandbox copy; the file is never changed).")
    if getattr(index.internalPointer(), "is_container", False):
        return ("Edit Value (F2) edits one value (a string, number, true, false or null): select one, or use "
                "Edit ▸ Edit Raw Text (Ctrl+E).")
    return "This value cannot be edited now."


def show_cancelled(w) -> None:
    """After a large load was cancelled (or failed) before its verdicts, or after them but before its
    trees: the panes still waiting (a tree "Reading the payload…", the rule detail and the Resume dock
    "Verifying…") say that it was cancelled (failed) and that Reload (F5) starts again; they would wait
    for ever otherwise."""
    doc = w.doc
    if not doc.verify_cancelled:
        return
    again = "Reload (F5) reads and verifies it again."
    how = "failed" if doc.verify_failed else "was cancelled"
    for source, side, panes in (("payload", doc.payload, (w.snap_pane, w.resume_pane)),
                                ("descriptor", doc.descriptor, (w.desc_pane,))):
        if side is not None and not side.tree_ok and side.data is not None and not side.parse_error:
            for p in panes:
                p.show_message(f"Loading {how} before the {source}'s tree was read. {again}")
    if doc.report is not None:  # (the verdicts came first: only the trees or the timeline are missing)
        if doc.views_follow:
            w.resume_panes.show_views_missing(f"Loading {how} before the timeline was read. {again}")
        return
    text = f"Loading {how} before the verification finished: nothing was verified. {again}"
    w.detail.setHtml(f"<p>{text}</p>")
    w.resume_panes.show_message(text)


def expand_defaults(w):
    for view, model, ptrs in ((w.snap_pane.view, w.snap_model, ("/snapshot", "/snapshot/session")),
                              (w.resume_pane.view, w.resume_model, ("/logical_resume",)),
                              (w.desc_pane.view, w.desc_model, ("/snapshot", "/logical_resume"))):
        for p in ptrs:
            idx = model.index_for_pointer(p)
            if idx.isValid():
                view.expand(idx)


def show_findings(w) -> None:
    """Lay out the verdicts list after its rows changed: group rows span, everything expanded."""
    for r in range(w.findings_model.group_rows()):
        w.findings_view.setFirstColumnSpanned(r, QModelIndex(), True)
    w.findings_view.expandAll()


def set_report(w, report):
    # Failures only by default when something failed (60 PASS rows would surround 1-4 failures).
    failed = report is not None and any(f.failed for f in report.findings)
    w.failures_only.blockSignals(True)
    w.failures_only.setChecked(failed)
    w.failures_only.blockSignals(False)
    w.findings_model.failures_only = failed
    w.findings_model.set_report(report)
    for r in range(w.findings_model.group_rows()):
        w.findings_view.setFirstColumnSpanned(r, QModelIndex(), True)
    w.digests_model.set_report(report)
    w.digest_detail.clear()
    w.findings_view.expandAll()
    if report is None:
        w.detail.setHtml("<p>Verifying…</p>" if not w.doc.is_empty else "")
        for m in (w.snap_model, w.resume_model, w.desc_model):
            m.set_markers({})
        return
    markers = {"payload": {}, "descriptor": {}}
    for f in report.failed():
        for loc in f.locations:
            markers.setdefault(loc.source, {})[loc.pointer] = Verdict.FAIL
    w.snap_model.set_markers(markers["payload"])
    w.resume_model.set_markers(markers["payload"])
    w.desc_model.set_markers(markers["descriptor"])
    rc = report.root_cause
    if rc is not None:
        w.detail.setHtml(finding_html(rc, report, edited=bool(w.doc.edited_sources), restorable=w.doc.can_restore()))
        idx = w.findings_model.index_for_rule(rc.rule.id)
        w.findings_view.selectionModel().blockSignals(True)
        w.findings_view.setCurrentIndex(idx)
        w.findings_view.selectionModel().blockSignals(False)
    elif report.verified:
        w.detail.setHtml("<h3>All rules pass</h3><p>The reference accepts this checkpoint: every digest "
                            "matches and every rule that applies passes.</p>")
    else:
        w.detail.setHtml("<p>No rule failed. Select a rule to see what it checks.</p>")


def capture_views(w, budget: int | None = None):
    """Expanded rows (their pointers), current row and scroll position of each tree. ``budget``: at most this
    many rows are looked at per tree (the rows below expanded ones; rows beyond it are not remembered as
    expanded), so the cost does not grow with a tree expanded by Expand All; ``None``: all of them."""
    state = {}
    for pane in w.tree_panes():
        view, model = pane.view, pane.model
        expanded = []
        stack = [QModelIndex()]
        left = budget
        while stack and (left is None or left > 0):  # only expanded rows are visited: the rows a user opened by hand
            parent = stack.pop()
            n = model.rowCount(parent)
            if left is not None:
                n = min(n, left)
                left -= n
            for r in range(n - 1, -1, -1):
                idx = model.index(r, 0, parent)
                if view.isExpanded(idx):
                    expanded.append(model.data(idx, PointerRole))
                    stack.append(idx)
        cur = view.currentIndex()
        state[pane] = (expanded, model.data(cur, PointerRole) if cur.isValid() else None,
                       view.verticalScrollBar().value(), view.horizontalScrollBar().value())
    return state


def restore_views(w, state):
    for pane, (expanded, current, scroll, hscroll) in state.items():
        view, model = pane.view, pane.model
        for p in expanded:
            idx = model.index_for_pointer(p)
            if idx.isValid():
                view.expand(idx)
        if current:
            idx = model.index_for_pointer(current)
            if idx.isValid():
                view.selectionModel().blockSignals(True)
                view.setCurrentIndex(idx)
                view.selectionModel().blockSignals(False)
        view.verticalScrollBar().setValue(scroll)
        view.horizontalScrollBar().setValue(hscroll)



#: Rows looked at per tree when a document is left (:func:`capture_document_view`): what a user expanded by hand
#: fits; a tree expanded by Expand All is remembered in part (its first rows), never walked whole (5,000 rows:
#: about 30 ms to remember and 35 ms to restore on a loaded two-core machine; 20,000 took 115 ms each).
DOCUMENT_VIEW_BUDGET = 5_000


def capture_document_view(w) -> dict:
    """What the user sees of the open document, to give back when it is shown again: each tree's
    expanded rows, selected row and scroll positions (:func:`capture_views`, bounded), the tree worked in last,
    the tabs shown (lower trees, bytes) and both bytes views' scroll positions."""
    last = w.selection.last_tree()
    return {
        "trees": capture_views(w, DOCUMENT_VIEW_BUDGET),
        "last": next((p for p in w.tree_panes() if p.view is last), w.snap_pane),
        "lower": w.lower_trees.currentIndex(),
        "hex_tab": w.hex_tabs.currentIndex(),
        "hex": [(h.verticalScrollBar().value(), h.horizontalScrollBar().value()) for h in (w.hex_payload, w.hex_descriptor)],
    }


def restore_document_view(w, state: dict) -> None:
    """Show the document as :func:`capture_document_view` left it: rows expanded, the node selected in the tree
    worked in last (and so its bytes highlighted and its verdict selected), tabs and scroll positions."""
    from .roles import LocationRole

    restore_views(w, state["trees"])
    last = state["last"]
    w.selection.last_tree_view = last.view
    cur = last.view.currentIndex()
    if cur.isValid():
        w.selection.relay(last.model.data(cur, LocationRole), "history")  # (a stop of the history restored with it)
    w.lower_trees.setCurrentIndex(state["lower"])
    w.hex_tabs.setCurrentIndex(state["hex_tab"])
    for pane, (_expanded, _current, scroll, hscroll) in state["trees"].items():  # (the relay scrolled to the node)
        pane.view.verticalScrollBar().setValue(scroll)
        pane.view.horizontalScrollBar().setValue(hscroll)
    for h, (v, hz) in zip((w.hex_payload, w.hex_descriptor), state["hex"]):
        h.verticalScrollBar().setValue(v)
        h.horizontalScrollBar().setValue(hz)
