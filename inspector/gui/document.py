"""``Document``: what the window has open, as one non-widget object that announces its changes.

It owns the payload and descriptor (:class:`~inspector.session.engine.Side`: path, bytes, span
index), the engine's report, the sandbox state (which documents were edited, which of them
are not yet saved), the error of the last failed open, the stale-file watch and the running
background jobs (:class:`~inspector.gui.jobs.JobRunner`). It never touches a widget: the
controllers (:mod:`.controllers`) change it, and the window listens to its signals.

Messages for the user are *notices* (key, kind, text, actions): the window shows each as a
banner. An action is ``(label, command)`` where ``command`` is ``"save"``, ``"discard"``,
``"reload"``, ``"restore"``, ``"stop-waiting"``, ``"stop-url"`` or ``("open", [paths])``; the window maps commands to its
controllers.
A notice belongs to the document it was said for: when the files of a load are shown, every notice
said before that load started is removed, and what applies to the document shown is said again.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass, field
from importlib import resources

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.session.engine import Analysis, Side
from inspector.session.staged import StagedLoad
from inspector.session.visible import visible
from .filewatch import FileWatch
from .jobs import JobRunner
from .qtcompat import emit

__all__ = ["Document", "Presentation", "sample_paths", "display_name", "display_path", "STALE_WAIT_MS"]

#: How long (milliseconds) the stale check waits for the files' folder to answer before the window says it is
#: waiting (a share that takes 20 s a ``stat`` must not freeze the window on every return to it).
STALE_WAIT_MS = 2000
#: The stale check's ``stat`` (a module name so that a test can make it wait as a dead share does).
_stat = os.stat


def sample_paths(name: str = "sample") -> list[str]:
    """Paths of a bundled sample pair (``sample``: intact, ``broken``: one byte changed)."""
    return list(_sample_paths(name))


@functools.lru_cache(maxsize=4)
def _sample_paths(name: str) -> tuple[str, str]:
    # (looked up once: importlib.resources took 2 ms a call, four calls each time a document was shown)
    base = resources.files("inspector.resources") / "samples"
    return str(base / f"{name}.payload.json"), str(base / f"{name}.descriptor.json")


def display_name(path: str | None) -> str:
    """The base name of ``path`` for display, through the window's one escaping (:func:`.visible.visible`): a
    byte that is not valid UTF-8 (a lone surrogate U+DC80..U+DCFF, as Python decodes it, which Qt cannot show)
    as ``\\xNN``, a bidirectional override or a control as its escape."""
    if not path:
        return "(sandbox)"
    return visible(os.path.basename(path))


def display_path(path: str, *, lines: bool = False) -> str:
    """``path`` (or, with ``lines``, a message of several lines that quotes paths) for display, through the
    window's one escaping (see :func:`display_name`)."""
    return visible(path, lines=lines)


@dataclass
class Presentation:
    """One analysis to show (the argument of :attr:`Document.presented`).

    ``new_documents``: the trees and bytes must be rebuilt (else only verdicts change; the final
    result of a large load reuses the trees of its partial result). ``partial``: trees only,
    verification still running (or, with a report, a large payload's verdicts, its timeline and maybe
    its trees' index still being read). ``keep_view``: keep the trees' expansion, selection and scroll
    (after an edit). ``from_raw``: sources whose raw-text editor keeps its text (being typed in).
    """

    analysis: Analysis
    partial: bool = False
    keep_view: bool = False
    new_documents: bool = True
    opened: bool = False
    from_raw: frozenset = field(default_factory=frozenset)


class Document(QObject):
    """The open checkpoint: files, bytes, analysis, edits, save state, staleness and jobs.

    Signals:
        presented(Presentation): show this analysis (trees/bytes; verdicts when complete).
        analysed(bool): a complete analysis is shown; the argument is ``keep_view``.
        changed(): names, flags or the open error changed (verdict bar, title, actions follow).
        notice(str key, str kind, str text, list actions): show a message (kind: error, info,
            stale, edited); a newer notice with the same key replaces it.
        noticeCleared(str key): remove that message.
        busy(bool, str, int): progress (text, percent or -1) of a running job, or done.
        opened(list): these paths are now the open files (recent files, folder pane).
        failed(str): an open or folder scan failed (the message is also a notice).
        opening(str): a load of these files (display names) started; pending edits are void.
    """

    presented = Signal(object)
    analysed = Signal(bool)
    changed = Signal()
    notice = Signal(str, str, str, object)
    noticeCleared = Signal(str)
    busy = Signal(bool, str, int)
    opened = Signal(object)  # a list of paths: object keeps names that are not UTF-8 exact
    failed = Signal(str)
    #: Something to tell a screen reader (text, is an error): the window's announcer says it.
    spoken = Signal(str, bool)
    opening = Signal(str)
    #: the stale check answered: True when a file changed on disk (the "stale" notice is said)
    staleChecked = Signal(bool)
    _staleAnswer = Signal(int, object)  # (check number, changed paths): from the checking thread, queued

    def __init__(self, parent=None):
        super().__init__(parent)
        self.payload: Side | None = None
        self.descriptor: Side | None = None
        self.report = None
        #: Where the load of what is shown stands (bytes -> structure -> verdicts -> views -> trees).
        self.load = StagedLoad()
        #: A file opened alone: which file beside it was paired with it, or that none was (a sentence).
        self.pairing: str | None = None
        #: The documents on screen differ from the files they came from (sandbox edits).
        self.edited = False
        #: The files that are open (what Reload re-reads).
        self.paths: list[str] = []
        #: The files an open in progress will show.
        self.pending_paths: list[str] = []
        #: (what could not be opened, why) after a failed open, until something is shown.
        self.open_error: tuple[str, str] | None = None
        #: A large load was cancelled (or failed) after its trees were shown (so it was not verified).
        self.verify_cancelled = False
        #: With :attr:`verify_cancelled`: the load failed (the error banner says why) instead of being cancelled.
        self.verify_failed = False
        self.edited_sources: set[str] = set()  # documents that differ from the file they came from
        self.unsaved: set[str] = set()  # edited documents not yet written by Save As
        self.jobs = JobRunner()
        self._shown = None
        # notices belong to the document they were said for: each key shown, with the number of the
        # load it was said during (0: before any); showing the files of a later load clears the older ones
        self._loads = 0
        #: How many verdicts (reports) have been presented: the window announces each one.
        self.verdicts = 0
        self._said: dict[str, int] = {}
        self.opening.connect(self._load_started)
        self.watcher = FileWatch(self)  # (on a thread of its own: a dead share blocks no GUI call)
        self.watcher.fileChanged.connect(self._file_changed)
        self._stale_asked = 0  # the number of the latest stale check
        self._stale_running = False  # a check's thread has not answered yet (a dead share: maybe never)
        self._stale_again = False  # asked again while one ran: check once more when it answers
        self._stale_ignored = 0  # checks up to this number were given up (Stop waiting)
        self._stale_sides: list = []  # (path, mtime_ns, size) of the files the latest check looks at
        self._staleAnswer.connect(self._stale_answered)

    # -- queries ---------------------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        """Nothing is open (neither payload nor descriptor)."""
        return self.payload is None and self.descriptor is None

    def sides(self) -> list[Side]:
        """The open documents, payload first."""
        return [s for s in (self.payload, self.descriptor) if s is not None]

    def side(self, source: str) -> Side | None:
        """The ``payload`` or ``descriptor`` document, or None."""
        return self.payload if source == "payload" else self.descriptor

    def names(self) -> list[str]:
        """Display names of the open files (payload first)."""
        return [display_name(s.path) for s in self.sides() if s.path]

    def is_sample(self) -> bool:
        """True when the window shows one of the bundled sample checkpoints (not the user's files)."""
        samples = {os.path.normcase(os.path.abspath(p)) for n in ("sample", "broken") for p in sample_paths(n)}
        sides = self.sides()
        return bool(sides) and all(s.path and os.path.normcase(os.path.abspath(s.path)) in samples for s in sides)

    def saved_as(self) -> str | None:
        """After every edit was saved: the names of the new files (else None)."""
        if self.edited and not self.unsaved:
            return ", ".join(display_name(s.path) for s in self.sides() if s.source in self.edited_sources and s.path)
        return None

    # -- notices ---------------------------------------------------------------------------------
    def say(self, key: str, kind: str, text: str, actions=()) -> None:
        """Show a message (see the module docstring for ``actions``); bytes of a file name that
        are not UTF-8 are shown as ``\\xNN``."""
        self._said[key] = self._loads
        emit(self.notice, key, kind, display_path(text, lines=True), list(actions))

    def unsay(self, *keys: str) -> None:
        """Remove the messages ``keys``."""
        for k in keys:
            self._said.pop(k, None)
            emit(self.noticeCleared, k)

    def _load_started(self, _names: str = "") -> None:
        self._loads += 1

    def _unsay_earlier(self) -> None:
        """The files of the current load are shown: remove every notice said before it started. They were about
        the document left (a hint, notes, "Open a payload first" for the canonical diff, a stale file, an
        error, Expand All stopping) or an action on it; what applies to the document shown is said again
        (:meth:`_hints`, its warnings). A notice said since the load started stays: it is about the action
        that opened this document (a drop's "Not opened: ..." for the items of the drop that were not files)."""
        self.unsay(*[k for k, n in self._said.items() if n < self._loads], "stale", "error", "info")

    def speak(self, text: str, error: bool = False) -> None:
        """Tell a screen reader ``text`` (``spoken``; the window's :class:`~.accessibility.Announcer` says it)."""
        emit(self.spoken, display_path(text, lines=True), error)

    def set_busy(self, busy: bool, text: str = "", pct: int = -1) -> None:
        emit(self.busy, busy, display_path(text), pct)  # (it names files: "Verifying x.payload.json…")

    def set_open_error(self, what: str, why: str) -> None:
        """Remember that ``what`` could not be opened (the verdict bar says so) and say ``why``."""
        self.open_error = (display_path(what), display_path(why, lines=True).rstrip("."))
        emit(self.changed)

    def open_failed(self, what: str, msg: str) -> None:
        """An open (or folder scan) of ``what`` failed: ``failed``, and the message ``msg`` once, in
        full, in the error banner (which wraps; a path's non-UTF-8 bytes as ``\\xNN``). The verdict
        bar and the status bar only name ``what`` (said twice, the long message was elided in one)."""
        if not self.is_empty:
            msg = msg.rstrip(".") + ". Still showing the checkpoint below."
        self.say("error", "error", msg)
        self.set_open_error(what, msg)
        emit(self.failed, display_path(msg, lines=True))

    @property
    def stage(self):
        """While a large payload is verified: the engine's latest partial verdict (hash before parse), else ``None``."""
        return self.load.stage if self.report is None else None

    @property
    def views_follow(self) -> bool:
        """A large payload's verdicts are shown, its views (timeline, transcript) not yet."""
        return self.load.views_follow and self.report is not None

    # -- showing an analysis ---------------------------------------------------------------------
    def present(self, a: Analysis, paths: list[str] | None, *, partial: bool = False, edited: bool = False,
                keep_view: bool = False, from_raw=()) -> None:
        """Make ``a`` what is open and announce it.

        ``paths``: the files it was read from (None: an edit of what is open). A partial result
        (large payload: trees ready, verification running) announces only ``presented``; one with the
        verdicts (a large payload's, before its timeline or trees) also makes ``paths`` the open files
        (Reload reads them; the recent files list them), says the warnings and hints, and ``changed``:
        only ``analysed`` waits for the rest.
        """
        self.payload, self.descriptor = a.payload, a.descriptor
        if a.report is not None and a.report is not self.report:
            self.verdicts += 1  # (a new verdict is said again even when its words are the last one's)
        self.report = a.report
        if not partial:
            self.pairing = a.pairing
        self.load = a.load
        self.open_error = None
        self.verify_cancelled = self.verify_failed = False
        verdicts = not partial or a.report is not None  # (a partial result's too: the verdicts before the trees)
        if paths is not None:
            self.edited_sources.clear()
            self.unsaved.clear()
            if verdicts:
                self.edited = False
        if edited:
            self.edited = True
        shown = tuple((id(x.data), id(x.index), x.parse_error) if x is not None else None
                      for x in (a.payload, a.descriptor))
        new = shown != self._shown or paths is None
        self._shown = shown
        emit(self.presented, Presentation(a, partial, keep_view, new, paths is not None, frozenset(from_raw)))
        if partial and new and not verdicts:
            return
        if verdicts:
            if paths is not None:
                self.paths = list(paths)
                self.watch(paths)
                self._unsay_earlier()
                emit(self.opened, list(paths))
            for w in a.warnings:
                self.say("stale", "stale", w, [("Reload", "reload")])
            if self.edited:
                self.say("edited", "edited",
                         "EDITED — this is an unsaved sandbox copy; the files on disk are unchanged. "
                         "Every digest and verdict below is for the edited artifact.",
                         [("Save As…", "save"), ("Discard Edits", "discard")])
            else:
                self.unsay("edited")
            self._hints()
        emit(self.changed)
        if not partial:
            emit(self.analysed, keep_view)

    def _hints(self) -> None:
        hints = []
        for side in self.sides():
            if side.hint and side.data is not None:
                hints.append(f"{side.source} {display_name(side.path or '')}: {side.hint}.")
        if self.pairing:
            hints.insert(0, self.pairing)
        wrapped = next((s for s in self.sides() if s.form and s.path), None)
        if wrapped is not None:  # an SDK export wrapper holds both documents (FORMAT.md 1)
            hints.insert(0, f"{display_name(wrapped.path)} is an {wrapped.form}: the payload shown is its contentBase64, "
                            "decoded (byte offsets count in it), and the descriptor is its descriptor object.")
        if self.payload is None and self.descriptor is not None:
            hints.append("Only a descriptor was given: its own fields are checked; open the payload too to verify.")
        elif self.descriptor is None and self.payload is not None:
            hints.append("Only a payload was given: it is checked on its own; open its descriptor too to verify.")
        if hints:
            self.say("hint", "info", " ".join(hints))
        else:
            self.unsay("hint")
        # what the payload says about its writer and a yolo_lanes order no one can reproduce (the engine's
        # report notes): explanations next to the verdict, never a verdict of their own
        notes = self.report.notes if self.report is not None else []
        if notes:
            self.say("notes", "info", " ".join(f"{n[:1].upper()}{n[1:]}." for n in notes))
        else:
            self.unsay("notes")
        # X-BYTES failed, and the canonical re-encoding of what the payload holds is the bound content
        if self.can_restore():
            r = self.report.restoration  # (the verdict above says it is the same checkpoint: here, what changed)
            self.say("restore", "info", f"Restorable: changed after export: {'; '.join(r.changes) or 'its form'}. "
                     f"Restore Original… writes the exported {r.size_bytes} bytes to a new file.",
                     [("Restore Original…", "restore")])
        else:
            self.unsay("restore")

    def can_restore(self) -> bool:
        """True when the payload shown is a re-saved copy whose original is proven (``report.restoration``) and
        both sides are files of their own (not edits, not one SDK export wrapper)."""
        p, d = self.payload, self.descriptor
        return (self.report is not None and self.report.restoration is not None and not self.edited
                and p is not None and d is not None and bool(p.path) and bool(d.path) and p.path != d.path)

    def mark_saved(self, source: str, side: Side) -> None:
        """The edited document ``source`` was written to ``side.path``: it now shows that file."""
        if source == "payload":
            self.payload = side
        else:
            self.descriptor = side
        self.unsaved.discard(source)
        self.edited_sources.discard(source)

    # -- stale files -----------------------------------------------------------------------------
    def watch(self, paths: list[str]) -> None:
        """Watch ``paths`` (and only them) for changes on disk; the watch thread looks at them (:mod:`.filewatch`)."""
        # (the bundled sample is read-only app files: a package upgrade replaces them, the user never edits them)
        self.watcher.watch([] if self.is_sample() else list(paths))

    def _file_changed(self, path):
        self.check_stale()

    def check_stale(self) -> None:
        """Compare the input files with what was read, off the GUI thread; when a file
        changed, say so (offering to reload). The answer comes as :attr:`staleChecked`.

        The ``stat`` calls run on a thread of their own: a share that does not answer freezes nothing. After
        :data:`STALE_WAIT_MS` without an answer the window says it is waiting, with Stop waiting; a check asked
        for while one waits is made once that one answers (a dead share never piles up threads). A watched
        file an editor replaced by a rename is watched again when the answer comes."""
        if self.is_sample():
            return  # the bundled sample is not a user file (an upgrade rewrites it)
        sides = [(s.path, s.mtime_ns, s.size) for s in self.sides() if s.path]
        if not sides:
            return
        if self._stale_running:
            self._stale_again = True
            return
        self._stale_asked += 1
        self._stale_running, number, edited = True, self._stale_asked, self.edited
        self._stale_sides = sides  # (a reload while it waits: the answer is about other files, and is dropped)

        def look() -> None:
            changed, present = [], []
            for path, mtime_ns, size in sides:
                try:
                    st = _stat(path)
                    present.append(path)
                    same = st.st_mtime_ns == mtime_ns and (edited or st.st_size == size)
                except OSError:
                    same = False
                if not same:
                    changed.append(path)
            try:
                emit(self._staleAnswer, number, (changed, present))
            except RuntimeError:  # the window closed while the share kept it waiting: nobody to tell
                pass

        threading.Thread(target=look, name="stale check", daemon=True).start()
        QTimer.singleShot(STALE_WAIT_MS, self, lambda: self._say_waiting(number))  # (dies with the document)

    def _say_waiting(self, number: int) -> None:
        current = [(s.path, s.mtime_ns, s.size) for s in self.sides() if s.path]
        if self._stale_running and number == self._stale_asked and number > self._stale_ignored \
                and current == self._stale_sides:  # (files opened since are not what it waits for)
            names = ", ".join(display_name(path) for path, _m, _s in self._stale_sides)
            self.say("waiting", "info", f"Waiting for the folder of {names} to answer (checking whether the files "
                     "changed on disk); the window goes on meanwhile.", [("Stop waiting", "stop-waiting")])

    def stop_waiting(self) -> None:
        """Give up the stale check that waits for a share (its answer, if it ever comes, is ignored)."""
        self._stale_ignored = self._stale_asked
        self._stale_running = self._stale_again = False  # (later checks may start: that answer is ignored)
        self.unsay("waiting")

    def _stale_answered(self, number: int, answer) -> None:
        changed, present = answer
        self._stale_running = False
        self.unsay("waiting")
        current = [(s.path, s.mtime_ns, s.size) for s in self.sides() if s.path]
        if number > self._stale_ignored and number == self._stale_asked and current == self._stale_sides:
            watched = set(self.watcher.files())
            for p in present:  # editors that save by rename drop the watch
                if p not in watched and not self.is_sample():
                    self.watcher.add(p)
            if changed:
                self.say("stale", "stale", f"STALE — {', '.join(display_name(p) for p in changed)} changed on disk "
                         "since it was opened; this view shows the earlier contents.", [("Reload", "reload")])
            emit(self.staleChecked, bool(changed))
        if self._stale_again:
            self._stale_again = False
            self.check_stale()
