"""``LoadController``: opening files in the background, cancelling, reloading, discarding edits."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.session import engine, routing
from inspector.session.sources import is_url, network_timeout, shown_location
from ..document import STALE_WAIT_MS, Document, display_name
from ..jobs import Job, start_job
from ..qtcompat import emit

__all__ = ["LoadController"]



def _prewarm_in_background() -> None:
    """:func:`.engine.prewarm` on a thread of its own (it spawns a process: not work for the GUI thread)."""
    threading.Thread(target=engine.prewarm, name="inspector-prewarm", daemon=True).start()

class LoadController(QObject):
    """Opens one or two files (or, through ``folders``, one folder) into ``doc``.

    Args:
        doc: the document to fill.
        confirm_discard: asked before unsaved edits are dropped; returns True to go on.

    Attributes:
        folders: the :class:`~.folder.FolderController` a folder path is handed to (set by the window).
        comparer: the :class:`~.comparing.CompareController` two payloads (or two descriptors) are
            handed to, to be compared instead of refused (set by the window).
        job: the running load, or None.
        route_job: the worker deciding where the paths of an open go (:func:`.routing.route_paths`), or None.

    Signals:
        ended(): a load ended (shown, failed or cancelled); edits made meanwhile wait for it.
    """

    ended = Signal()

    def __init__(self, doc: Document, confirm_discard=lambda: True, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.confirm_discard = confirm_discard
        self.folders = None
        self.comparer = None
        self.job: Job | None = None
        self.route_job: Job | None = None
        self._prewarm_owed = False  # a cancelled load's warm worker, not started while the next open was routed
        # the verifying process of the first large open, started (imports done) before it: one per
        # process, whatever the number of windows (engine.prewarm does nothing when one is waiting);
        # started from a thread: spawning it took 10-25 ms of the window's first turn
        QTimer.singleShot(0, self, _prewarm_in_background)

    def open_paths(self, paths: list[str], find_pair: bool = True, notes=()) -> bool:
        """Open one or two files, or one folder (a drop, the command line, a hand-off, Open Recent...).

        Nothing touches the file system here: a worker looks at the paths (:func:`.routing.route_paths`: is it a
        folder, are both payloads, is one a FIFO?) and the window then scans the folder, compares, loads, or says
        why not (a banner and the verdict bar). A path that is not a file (a FIFO, a device) is left out with its
        reason (``"<path>: is a FIFO (named pipe), not a file"``) and the other file still opens.

        Args:
            paths: the paths as given. find_pair: a file given alone opens with its other half when one beside it
                matches (File ▸ Open too).
            notes: reasons items of the same action were not opened (a drop's remote URLs), said with the load.

        Returns:
            False when no path was given; else True (a refusal is said once the worker has looked). A load still
            running is cancelled at once (the new open supersedes it, whatever the worker then decides).
        """
        paths = [str(p) for p in paths]
        if not paths:
            return False
        doc = self.doc
        doc.jobs.cancel(self.route_job)  # (superseded: a warm worker it owed is owed by this one, _routed)
        self.route_job = None
        doc.unsay("waiting-url")  # (a wait for an open superseded by this one)
        # a new open supersedes a load still running (as Open Folder does): cancelled now, so its result, even one
        # already on its way, is never shown while the worker looks at the new paths
        if self.cancel():
            self.job = None
            self.after_abandoned_load()  # no "Opening …" left behind
        job = doc.jobs.new(lambda ctx: routing.route_paths(paths), "looking at the files", lane="route")
        self.route_job = job
        cur = doc.jobs.current
        notes = list(notes)
        job.signals.finished.connect(lambda route, j=job: cur(j) and not j.is_cancelled
                                     and self._routed(route, paths, find_pair, notes))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._route_failed(msg))
        start_job(job)
        urls = [shown_location(p) for p in paths if is_url(p)]
        if urls:  # (a server that does not answer: say so after a while, with Stop waiting)
            QTimer.singleShot(STALE_WAIT_MS, self, lambda j=job: self._say_waiting_for(j, urls))
        return True

    def _say_waiting_for(self, job, urls: list[str]) -> None:
        """The route job reading ``urls`` still runs: say the window waits for them, with Stop waiting."""
        if self.route_job is job and not job.is_cancelled:
            self.doc.say("waiting-url", "info", f"Waiting for {', '.join(urls)} to answer (each try waits at most "
                         f"{network_timeout():g} s); the window goes on meanwhile.",
                         [("Stop waiting", "stop-url")])

    def stop_waiting_for_url(self) -> None:
        """Give up the open that waits for a URL (Stop waiting): its answer, if it ever comes, is ignored."""
        if self.route_job is not None:
            self.doc.jobs.cancel(self.route_job)
            self.route_job = None
        self.doc.unsay("waiting-url")

    def _route_failed(self, msg: str) -> None:
        self.route_job = None
        self.doc.unsay("waiting-url")
        if self._prewarm_owed:
            self._prewarm_owed = False
            _prewarm_in_background()
        self.refuse(msg)

    def _routed(self, route, given: list[str], find_pair: bool, notes: list[str]) -> None:
        """The worker said where the paths go (:class:`.routing.Route`): do it (GUI thread)."""
        self.route_job = None
        self.doc.unsay("waiting-url")
        owed, self._prewarm_owed = self._prewarm_owed, False
        if owed and route.action != "load":  # (a load's end starts one)
            _prewarm_in_background()
        paths = route.paths
        if route.action == "refuse":
            what = " + ".join(display_name(p) for p in given) if route.left_out and len(route.left_out) == len(given) \
                else "the dropped files"
            self.refuse(route.message, what)
            return
        said = (route.left_out, notes, route.notes)
        if route.action == "folder" and self.folders is not None:
            self.folders.open_folder(paths[0])
            return
        if route.action == "compare" and self.comparer is not None:
            self.comparer.compare(paths)
            self._say_left_out(*said)
            return
        if self.doc.edited and not self.confirm_discard():
            if owed:
                _prewarm_in_background()
            return
        self.start(paths, find_pair, said)

    def _say_left_out(self, left_out: list[str], notes: list[str], copies: list[str] = ()) -> None:
        """Say what of an open was not opened: the paths that are not files (an error) and the action's other
        ``notes`` (a drop's remote URLs), in one notice that stays with the document the open shows; and where
        a URL was read to (``copies``, :attr:`.routing.Route.notes`)."""
        why = list(left_out) + list(notes)
        if why:
            self.doc.say("drop", "error" if left_out else "info", "Not opened: " + "; ".join(why) + ".")
        if copies:
            self.doc.say("url", "info", "; ".join(copies) + ". Its verdict is the copy's: the bytes as read.")

    def refuse(self, text: str, what: str = "the dropped files") -> bool:
        """Refuse an open: say ``text`` in the verdict bar and a banner; returns False."""
        self.doc.open_failed(what, text)
        return False

    def start(self, paths: list[str], find_pair: bool = True, said=((), ())) -> None:
        """Load ``paths`` in the background (a folder scan may go on: its rows can still be opened); ``find_pair``
        as :meth:`open_paths`; ``said``: ``(left_out, notes)`` of the open, said once the load has started
        (:meth:`_say_left_out`)."""
        doc = self.doc
        self.cancel()
        doc.unsay("drop")
        job = doc.jobs.new(lambda ctx: engine.load_paths(paths, progress=ctx.progress, partial=ctx.partial,
                                                         cancel=ctx.cancelled, find_pair=find_pair),
                           "opening the files")
        self.job = job
        doc.pending_paths = list(paths)
        cur = doc.jobs.current
        job.signals.progress.connect(lambda pct, text, j=job: cur(j) and doc.set_busy(True, text, pct))
        # a result already on its way when the load was cancelled (by Cancel, another open, a folder
        # scan) is never shown: the cancelled load ends as cancelled, whatever it had finished
        job.signals.partial.connect(lambda a, j=job: cur(j) and not j.is_cancelled
                                    and doc.present(a, paths, partial=True))
        job.signals.finished.connect(lambda a, j=job: cur(j) and (
            self._cancelled() if j.is_cancelled else self._finished(a, paths)))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self.failed(msg))
        job.signals.cancelled.connect(lambda j=job: cur(j) and self._cancelled())
        doc.set_busy(True, "Opening…", -1)
        emit(doc.opening, " + ".join(display_name(p) for p in paths))
        self._say_left_out(*said)  # (after `opening`: it stays with the document this load shows)
        start_job(job)

    def _finished(self, a, paths):
        self.job = None
        self.doc.set_busy(False)
        self.doc.present(a, a.paths or paths)  # (a file opened alone: with its other half found beside it)
        emit(self.ended)

    def cancel(self) -> bool:
        """Cancel a running load (its worker processes are terminated), and an open still deciding where its
        paths go; True if a load was running."""
        if self.doc.jobs.cancel(self.route_job):
            self.route_job = None
            if self._prewarm_owed:  # (nothing else will start it now)
                self._prewarm_owed = False
                _prewarm_in_background()
        running = self.doc.jobs.cancel(self.job)
        return running

    def failed(self, msg: str, what: str | None = None) -> None:
        """A load failed: say so in a banner *and* the verdict bar, which keeps the verdict of
        whatever is still on screen (or says that nothing is open); a large load's trees or bytes
        stage already on screen say that it failed before the verdicts (:meth:`after_abandoned_load`)."""
        self.job = None
        self.doc.set_busy(False)
        if not self.doc.verify_cancelled:  # (one cancelled before stays so)
            self.after_abandoned_load(failed=True)
        if what is None:
            what = " + ".join(display_name(p) for p in self.doc.pending_paths) or "the files"
        self.doc.open_failed(what, msg)
        emit(self.ended)

    def _cancelled(self):
        self.job = None
        self.doc.set_busy(False)
        if self.route_job is None:
            _prewarm_in_background()  # the next open's verifier (a cancelled large open's was stopped)
        else:  # the open that cancelled it is on its way: not while it starts (see _routed)
            self._prewarm_owed = True
        self.after_abandoned_load()
        self.doc.say("info", "info", "Loading was cancelled.")
        emit(self.ended)

    def after_abandoned_load(self, failed: bool = False) -> None:
        """After a load stopped early (cancelled, or ``failed``): the trees of a large load may already
        show the new file (then the verdict bar says it was not verified), or its verdicts (then the trees or
        the timeline say they were not read), otherwise the previous verdict stays. Reload (F5) then reads
        the files whose trees are shown."""
        doc = self.doc
        # (a large payload's verdicts come before its timeline and, pretty-printed, its trees: those may be
        # what is missing)
        missing = doc.views_follow or any(s.data is not None and not s.tree_ok and not s.parse_error
                                          for s in doc.sides())
        if not doc.is_empty and (doc.report is None or missing):
            doc.verify_cancelled, doc.verify_failed = True, failed
            if doc.pending_paths and all(s.path in doc.pending_paths for s in doc.sides() if s.path):
                doc.paths = list(doc.pending_paths)
        emit(doc.changed)

    def reload(self) -> None:
        """Re-read the input files from disk (discarding edits after confirmation)."""
        if not self.doc.paths:
            return
        if self.doc.edited and not self.confirm_discard():
            return
        self.doc.edited = False
        self.start(list(self.doc.paths))

    def discard_edits(self) -> None:
        """Drop the sandbox edits and show the files as they are on disk."""
        if self.doc.edited:
            self.doc.edited = False
            self.start(list(self.doc.paths))
