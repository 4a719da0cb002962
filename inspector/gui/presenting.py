"""Showing an analysis in the main window, in turns: what :class:`.window.MainWindow` does when the
document presents an analysis.

A complete analysis of new documents is shown in three event-loop turns, each a 1 ms timer after the last (0 ms
steps ran back to back without letting the event loop's timers and input in between): the notices and hints
the document announced with it; the trees; the verdicts, then the verdict bar and the root cause (the window's
``changed`` and ``analysed`` handlers wait for them through :meth:`Presenter.defer`). A partial result of a
large payload is shown in three turns of its own (trees, default expansion, verdicts or their placeholder).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from . import views
from .document import Presentation
from .qtcompat import emit
from .roles import LocationRole

__all__ = ["Presenter"]


class Presenter(QObject):
    """The turns in which ``window`` (a :class:`.window.MainWindow`) shows what its document presents.

    Attributes:
        keep_selection (bool): the verdicts shown were on screen already and the user selected something while
            the trees were being read (the window then does not jump to the root cause).
    """

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.presentation: Presentation | None = None
        self.keep_selection = False
        self._documents_shown = 0  # presentations that rebuilt the trees or were complete (a partial's turns check it)
        self._verdicts_of = None  # the report whose verdicts the window shows
        self._trees_pending = False
        self._after_trees: list | None = None  # what waits for the turn after a document's trees were shown

    def defer(self, fn) -> bool:
        """While a document's verdicts wait for their turn: queue ``fn`` (a callable, no arguments) behind them and
        return True; else False (the caller runs it now)."""
        if self._after_trees is None:
            return False
        self._after_trees.append(fn)
        return True

    def present(self, p: Presentation) -> None:
        """Show an analysis (:meth:`present_now`); a complete one of new documents in the next turn (1 ms later),
        after the notices and hints the document announced with it: each of the three turns (notices, trees,
        verdicts) with its own repaint stays short."""
        if not p.partial and p.new_documents and self._after_trees is None:
            self._after_trees = [lambda: self.present_now(p)]
            QTimer.singleShot(1, self, self.flush)
            return
        self.present_now(p)

    def present_now(self, p: Presentation) -> None:
        """Show an analysis: trees and bytes (new documents), verdicts and digests (when complete).

        A partial result (large payload: trees ready, verification still running; or its verdicts, its
        timeline and maybe its trees' index still being read) is shown in three
        event-loop turns (trees, then default expansion, then the verdicts or their placeholder), so
        no single turn keeps the window from repainting for long.
        """
        self.flush()  # (what an earlier presentation left for its next turn comes first)
        self.presentation = p
        a = p.analysis
        # the verdicts on screen already (a large payload's came before its timeline or trees): the verdicts
        # list, the rule detail and what the user selected meanwhile stay as they are
        same = a.report is not None and a.report is self._verdicts_of
        self.keep_selection = same and bool(self.w.selection.history.entries)
        if not p.partial:
            self._documents_shown += 1  # (a partial's later turns have nothing left to do: this shows it all)
        if p.new_documents:
            kept = views.capture_views(self.w) if p.keep_view else None
            if not p.keep_view and not same:
                self.w.selection.history.clear()  # another checkpoint: its selections only
            views.show_side(self.w, "payload", a.payload)
            views.show_side(self.w, "descriptor", a.descriptor)
            for source in ("payload", "descriptor"):
                if source not in p.from_raw:
                    side = a.payload if source == "payload" else a.descriptor
                    self.w.raw_editor.set_text(source, side.data if side else None)
            self._documents_shown += 1
            if p.partial:
                self._trees_pending = True
                jobs = self.w.doc.jobs
                gen = jobs.lane_generation()
                shown = self._documents_shown

                # (a.report: the verdicts came first; else None until the final result replaces this one)
                def current():  # no other documents (the final result's trees) shown since
                    return gen == jobs.lane_generation() and self.w.doc.report is a.report \
                        and shown == self._documents_shown

                def step2():
                    if current():
                        views.expand_defaults(self.w)
                        if a.payload is None or a.payload.tree_ok or a.payload.parse_error:
                            self._trees_pending = False
                            emit(self.w.treesReady)  # (a partial verdict may come before the trees)
                    QTimer.singleShot(1, step3)

                def step3():
                    if current():
                        views.set_report(self.w, a.report)
                        self._verdicts_of = a.report
                        views.show_cancelled(self.w)  # a load cancelled (failed) meanwhile: not "Verifying…"
                        self.w._update_verdict_display()
                        if a.report is not None:
                            self.w._update_actions()
                            emit(self.w.verdictsShown)
                    if a.shown is not None:
                        a.shown.set()
                QTimer.singleShot(1, step2)
                return
            if kept is not None:
                views.restore_views(self.w, kept)
                view = self.w.selection.last_tree()
                if view.currentIndex().isValid():
                    self.w.selection.relay(view.model().data(view.currentIndex(), LocationRole), "tree")
            else:
                views.expand_defaults(self.w)
            emit(self.w.treesReady)
            if not p.partial:
                # The verdicts, the verdict bar and the root cause in the next turn, after the trees are shown:
                # in one turn they held the window 130 ms on a hostile checkpoint.
                self._after_trees = [lambda: self._show_verdicts(p, same)]
                QTimer.singleShot(1, self, self.flush)
                return
        elif not p.partial and self._trees_pending:
            # the verdicts came before the partial result's trees were announced
            views.expand_defaults(self.w)
            emit(self.w.treesReady)
        self._show_verdicts(p, same)

    def _show_verdicts(self, p: Presentation, same: bool) -> None:
        """The verdicts part of :meth:`present` (``same``: those verdicts are on screen already)."""
        a = p.analysis
        if not p.partial:
            self._trees_pending = False
        if not same:
            views.set_report(self.w, a.report)
            self._verdicts_of = a.report
        if a.report is not None:
            emit(self.w.verdictsShown)
        if p.opened and not p.partial:
            self.w.folder_dock.setVisible(self.w.folder_model.rowCount() > 0)

    def flush(self) -> None:
        """Run what waits for the turn after the trees (the verdicts, then the verdict bar and the root cause,
        in the order they came); nothing when nothing waits."""
        queue, self._after_trees = self._after_trees, None
        for fn in queue or ():
            fn()
