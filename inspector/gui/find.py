"""Find in the trees and go to a JSON Pointer, with the search on a worker thread.

:class:`FindController` searches the *bytes* of the open payload and descriptor
(:func:`.search.search_document`), so every node is found, also those no tree has loaded yet,
at any size and depth, while the window stays responsive (progress and Cancel in the status
bar). Enter / F3 / Shift+F3 step through the matches across the trees; the find bar says
"3 of 120 matches".
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from inspector.checkpoint import Location

from .accessibility import announce
from .jobs import Job, start_job
from .qtcompat import emit
from inspector.session.search import MAX_MATCHES, search_document

__all__ = ["FindController", "MAX_TREE_DEPTH"]

#: The trees select at most this deep; a match deeper down selects its ancestor at this depth
#: (its bytes are still highlighted exactly). Valid checkpoints nest at most 128 levels.
MAX_TREE_DEPTH = 256


def _truncate(pointer: str, depth: int = MAX_TREE_DEPTH) -> str:
    parts = pointer.split("/")
    return pointer if len(parts) <= depth + 1 else "/".join(parts[:depth + 1])


class FindController(QObject):
    """Find over the documents of ``window.doc``; shows matches through ``window.selection``.

    Signals:
        searched(int): a search finished with this many matches (-1: cancelled or failed).
        moved(int): match number ``n`` (0-based) is selected.
    """

    searched = Signal(int)
    moved = Signal(int)

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.text = ""
        self.matches: list[Location] = []
        self.complete = True
        self.current = -1
        self.job: Job | None = None
        self._pending_back: bool | None = None
        window.doc.presented.connect(lambda *_: self.reset())
        # the Find text belongs to the checkpoint it was typed for: another checkpoint starts with its
        # own (empty the first time), and coming back to one gives its text back; edits keep the checkpoint
        edit = window.find_bar.edit
        window.states.add_part("find", edit.text, lambda text: edit.setText(text or ""))

    def reset(self) -> None:
        """Forget the matches (the documents changed), and the count shown for them."""
        self.cancel()
        self.text = ""
        self.matches = []
        self.current = -1
        self._status("")

    def cancel(self) -> bool:
        return self.w.doc.jobs.cancel(self.job)

    # -- searching -------------------------------------------------------------------------------
    def find(self, text: str, backwards: bool = False) -> None:
        """Go to the next (or previous) match of ``text``; searches first when ``text`` is new."""
        if not text:
            self._status("")
            return
        if any(not isinstance(s.data, (bytes, bytearray)) for s in self.w.doc.sides() if s.data is not None):
            # a large payload still being verified is read from its file on demand (engine._read_input)
            self._status("find waits for the verification")
            return
        if text != self.text or self.job is not None:
            if self.job is not None and text == self.text:
                self._pending_back = backwards  # still searching: step once it is done
                return
            self._start(text, backwards)
            return
        self._step(backwards)

    def _start(self, text: str, backwards: bool) -> None:
        doc = self.w.doc
        self.cancel()
        self.text = text
        self.matches = []
        self.current = -1
        self._pending_back = None
        sides = [(s.source, s.data) for s in doc.sides() if s.data is not None]

        def run(ctx):
            out = []
            complete = True
            total = sum(len(d) for _, d in sides) or 1
            done = 0
            for source, data in sides:
                def progress(n, _total, base=done):
                    ctx.progress(int(100 * (base + n) / total), f"Finding “{text[:30]}”…")
                hits, ok = search_document(data, text, limit=MAX_MATCHES - len(out), cancel=ctx.cancelled,
                                           progress=progress)
                out.extend(Location(source, p, (s, e)) for p, s, e in hits)
                complete = complete and ok
                done += len(data)
                if len(out) >= MAX_MATCHES:
                    break
            return out, complete

        job = doc.jobs.new(run, "finding in the document", "find")
        self.job = job
        cur = doc.jobs.current
        job.signals.progress.connect(lambda pct, t, j=job: cur(j) and doc.set_busy(True, t, pct))
        job.signals.finished.connect(lambda r, j=job: cur(j) and self._done(r, backwards))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._failed(msg))
        job.signals.cancelled.connect(lambda j=job: cur(j) and self._failed(None))
        doc.set_busy(True, f"Finding “{text[:30]}”…", -1)
        self._status("searching…")
        start_job(job)

    def _done(self, result, backwards: bool) -> None:
        self.job = None
        self.w.doc.set_busy(False)
        self.matches, self.complete = result
        if not self.matches:
            self._status("not found")
            emit(self.searched, 0)
            return
        emit(self.searched, len(self.matches))
        self.current = -1
        self._step(backwards if self._pending_back is None else self._pending_back)

    def _failed(self, msg: str | None) -> None:
        self.job = None
        self.text = ""
        self.w.doc.set_busy(False)
        self._status("search cancelled" if msg is None else "search failed")
        if msg:
            self.w.doc.say("error", "error", msg)
        emit(self.searched, -1)

    def _step(self, backwards: bool) -> None:
        n = len(self.matches)
        if not n:
            self._status("not found")
            return
        self.current = (self.current - 1) % n if backwards else (self.current + 1) % n
        self.show(self.matches[self.current])
        more = "" if self.complete else "+"
        self._status(f"{self.current + 1} of {n:,}{more} matches" if n > 1 or more else "1 match")
        emit(self.moved, self.current)

    def show(self, loc: Location) -> bool:
        """Select ``loc`` in its tree (or its ancestor at :data:`MAX_TREE_DEPTH`) and its bytes."""
        sel = self.w.selection
        shown = _truncate(loc.pointer)
        pane = sel.tree_for(loc.source, shown)
        if pane.model.index_for_pointer(shown).isValid() or not shown:
            sel.relay(Location(loc.source, shown, None), "find")
        hexv = self.w.hex_payload if loc.source == "payload" else self.w.hex_descriptor
        self.w.hex_tabs.setCurrentWidget(hexv)
        hexv.highlight(loc.span)
        return True

    # -- go to a JSON Pointer --------------------------------------------------------------------
    def goto_pointer(self, pointer: str) -> bool:
        """Select ``pointer`` (RFC 6901, e.g. ``/snapshot/session/messages/3``): in the tree that
        last had focus, else in the other document. Says so in the find bar when absent."""
        pointer = pointer.strip()
        if pointer and not pointer.startswith("/"):
            pointer = "/" + pointer
        sel = self.w.selection
        last = sel.last_tree().model().source
        for source in (last, "descriptor" if last == "payload" else "payload"):
            pane = sel.tree_for(source, pointer)
            idx = pane.model.index_for_pointer(_truncate(pointer))
            if idx.isValid():
                sel.relay(Location(source, _truncate(pointer), None), "find")
                pane.view.setFocus()
                self._status("")
                return True
        self._status(f"no {pointer} here")
        return False

    def _status(self, text: str) -> None:
        self.w.find_bar.status.setText(text)
        if text:  # ("3 of 120 matches", "no matches"...: what a screen reader user would otherwise not hear)
            announce(self.w, text)
