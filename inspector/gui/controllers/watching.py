"""``FolderWatch``: View ▸ Watch Folder keeps the folder table and the Sessions view live.

One long-running job on the ``watch`` lane looks at the folder every second, off the GUI thread (a
share that stops answering freezes nothing: the job waits, the window goes on). Only stable files are
judged (:class:`inspector.session.stable.Stable`: unchanged for the settle time, not a writer's
temporary name); when the stable set changed, the folder is scanned again and the rows, grouped by
FORMAT.md 4.18, are handed to the GUI thread, which replaces the table's rows and the Sessions view's
series. Each export that appeared since the last look is said in the notice area and to a screen
reader; a failing one says its rule.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QObject, Signal

from inspector.session import folderscan
from inspector.session.series import group_series
from inspector.session.sources import LocalFolder, SourceError
from inspector.session.stable import Stable
from ..document import Document, display_name, display_path
from ..jobs import Job, start_job
from ..qtcompat import emit

__all__ = ["FolderWatch", "LOOK_EVERY_S", "SETTLE_S"]

#: Seconds between two looks at a watched folder, and how long a file must stay unchanged to be judged.
LOOK_EVERY_S = 1.0
SETTLE_S = 1.0


def _watch(folder: str, ctx, every_s: float, settle_s: float) -> None:
    """The job: look, and scan when the stable files changed, until cancelled (worker thread). Each scan's
    ``(rows, series)`` goes to the GUI thread through ``ctx.partial``; a failed look as ``("error", reason)``."""
    stable = Stable(LocalFolder(folder), settle_s)
    failing = False
    while not ctx.cancelled():
        try:
            changed = stable.look()
            failing = False
        except SourceError as e:
            if not failing:
                ctx.partial(("error", e.reason))
            failing, changed = True, False
        if changed:
            rows = folderscan.scan_source(stable, cancel=ctx.cancelled)
            ctx.partial(("rows", rows, group_series(rows)[0]))
        end = time.monotonic() + (min(every_s, settle_s) / 2 if stable.pending() else every_s)
        while time.monotonic() < end and not ctx.cancelled():
            time.sleep(0.05)


class FolderWatch(QObject):
    """Watches one folder for the window (see the module's text).

    Signals:
        changed(bool): the watch started (True) or stopped (False).
        appeared(list): the rows (:class:`~inspector.session.folderscan.FolderRow`) of exports that appeared or
            changed since the last look, in the folder's order.
    """

    changed = Signal(bool)
    appeared = Signal(object)

    def __init__(self, doc: Document, folder_model, sessions=None, parent=None, *, every_s: float = LOOK_EVERY_S,
                 settle_s: float = SETTLE_S):
        super().__init__(parent)
        self.doc = doc
        self.model = folder_model
        self.sessions = sessions
        self.every_s, self.settle_s = every_s, settle_s
        self.job: Job | None = None
        self.folder: str | None = None
        self._said: dict[tuple, tuple] = {}

    @property
    def watching(self) -> bool:
        """True while a folder is watched."""
        return self.job is not None

    def start(self, folder: str) -> None:
        """Watch ``folder`` (a watch of another folder stops first). The rows already in the table count as
        seen: only what appears from now on is announced."""
        self.stop()
        self.folder = folder
        self._said = {self._key(r): self._state(r) for r in self.model.rows_snapshot()}
        job = self.doc.jobs.new(lambda ctx: _watch(folder, ctx, self.every_s, self.settle_s),
                                "watching the folder", "watch")
        self.job = job
        cur = self.doc.jobs.current
        job.signals.partial.connect(lambda got, j=job: cur(j) and self._got(got))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._failed(msg))
        start_job(job)
        self.doc.say("watch", "info", f"Watching {display_path(folder)}: new exports appear in the Sessions view "
                                     "as they are written.")
        emit(self.changed, True)

    def stop(self) -> None:
        """Stop watching (nothing happens when no folder is watched)."""
        if self.job is None:
            return
        self.doc.jobs.cancel(self.job)
        self.job = None
        emit(self.changed, False)

    @staticmethod
    def _key(row) -> tuple:
        return (row.payload, row.descriptor, row.other)

    @staticmethod
    def _state(row) -> tuple:
        f = row.facts
        return (row.verified, row.root_rule, getattr(f, "content_digest", None))

    def _failed(self, msg: str) -> None:
        self.job = None
        self.doc.say("watch", "error", f"The watch of {display_path(self.folder or '')} stopped: {msg}")
        emit(self.changed, False)

    def _got(self, got) -> None:
        if got[0] == "error":
            self.doc.say("watch", "error", f"Watching {display_path(self.folder or '')}: {got[1]}; "
                                               "trying again every second.")
            return
        _kind, rows, series = got
        new = [r for r in rows if r.checkpoint and self._said.get(self._key(r)) != self._state(r)]
        self._said = {self._key(r): self._state(r) for r in rows}
        self.model.reset(self.folder)
        for r in rows:
            self.model.add_row(r)
        if self.sessions is not None:
            self.sessions.set_series(list(series))
        if new:
            emit(self.appeared, new)
            self.doc.say("watch", "error" if any(not r.verified for r in new) else "info", _sentence(new))


def _sentence(rows) -> str:
    """What the window says of exports that appeared: ``New export p.json: VERIFIED.`` or, for a failing one,
    ``New export p.json: NOT VERIFIED (X-BYTES).``; several are listed in one sentence."""
    parts = []
    for r in rows[:5]:
        name = display_name(os.path.basename(r.payload or r.descriptor or ""))
        parts.append(f"{name}: VERIFIED" if r.verified else
                     f"{name}: NOT VERIFIED ({r.root_rule})" if r.root_rule else f"{name}: not verified")
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return ("New export " if len(rows) == 1 else "New exports: ") + "; ".join(parts) + more + "."
