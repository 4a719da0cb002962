"""``FolderController``: scan a folder of checkpoints (in the background) into the folder table."""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from inspector.session import folderscan
from inspector.session.series import group_series
from ..document import Document, display_name, display_path
from ..jobs import Job, start_job
from ..models.folder import FolderModel
from ..qtcompat import emit

__all__ = ["FolderController"]


def _scan(folder: str, ctx) -> tuple:
    """The job: every checkpoint of ``folder`` with its verdict, then grouped by session (worker thread)."""
    rows = folderscan.scan_folder(folder, progress=ctx.progress, partial=ctx.partial, cancel=ctx.cancelled)
    return rows, group_series(rows)[0]


class FolderController(QObject):
    """Lists every checkpoint in a folder with its verdict; a row is opened through ``loader``.

    Signals:
        started(str): a scan of this folder began (the window shows the folder pane).
        scanned(int): the scan finished with this many checkpoints (not counting other files).
    """

    started = Signal(object)  # the folder path (object: exact bytes of the name)
    scanned = Signal(int)

    def __init__(self, doc: Document, model: FolderModel, loader, parent=None, sessions=None):
        super().__init__(parent)
        self.doc = doc
        self.model = model
        self.loader = loader
        #: The Sessions tab's model (:class:`~inspector.gui.models.sessions.SessionsModel`), or ``None``.
        self.sessions = sessions
        self.job: Job | None = None

    def open_folder(self, folder: str) -> None:
        """List every checkpoint in ``folder`` with its verdict (double-click one to open it).

        A load still running is cancelled first (its worker processes are terminated).
        """
        doc = self.doc
        running = self.loader.cancel()
        self.cancel()
        self.loader.job = None
        if running:
            self.loader.after_abandoned_load()  # no "Opening …" left behind
        self.model.reset(folder)
        if self.sessions is not None:
            self.sessions.clear()
        emit(self.started, folder)
        job = doc.jobs.new(lambda ctx: _scan(folder, ctx), "scanning the folder", "folder")
        self.job = job
        cur = doc.jobs.current
        what = display_name(folder.rstrip(os.sep)) or folder
        job.signals.progress.connect(lambda pct, text, j=job: cur(j) and doc.set_busy(True, text, pct))
        job.signals.partial.connect(lambda row, j=job: cur(j) and self.model.add_row(row))
        job.signals.finished.connect(lambda got, j=job: cur(j) and self._done(folder, *got))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._failed(msg, what))
        job.signals.cancelled.connect(lambda j=job: cur(j) and self._cancelled())
        doc.set_busy(True, f"Scanning {display_path(folder)}…", -1)
        start_job(job)

    def cancel(self) -> bool:
        """Cancel a running scan; True if one was running."""
        return self.doc.jobs.cancel(self.job)

    def _failed(self, msg: str, what: str):
        self.job = None
        self.doc.set_busy(False)
        self.doc.open_failed(what, msg)

    def _cancelled(self):
        self.job = None
        self.doc.set_busy(False)
        self.doc.say("info", "info", "The folder scan was cancelled; the rows found so far are listed.")
        self.doc.speak("The folder scan was cancelled; the rows found so far are listed.")

    def _done(self, folder, rows, series=()):
        """Summarise a folder scan; ``scanned`` carries the number of checkpoints (not counting
        the files that are not checkpoints, which are listed last). ``series``: the sessions, each in order
        (grouped in the worker), for the Sessions tab."""
        self.job = None
        self.doc.set_busy(False)
        if self.sessions is not None:
            self.sessions.set_series(list(series))
        checkpoints = [r for r in rows if r.checkpoint]
        others = [r for r in rows if not r.checkpoint]
        bad = sum(1 for r in checkpoints if not r.verified)
        if others:
            names = ", ".join(display_name(r.other) for r in others[:3]) + (", …" if len(others) > 3 else "")
            other_text = (" 1 other file is not a checkpoint" if len(others) == 1 else
                          f" {len(others)} other files are not checkpoints") + f" ({names})."
        else:
            other_text = ""
        where = display_path(folder)
        if not checkpoints:
            said = f"No checkpoint payload or descriptor was found in {where}.{other_text}"
        else:
            said = (f"{len(checkpoints)} checkpoint(s) in {where}: {len(checkpoints) - bad} verified, "
                    f"{bad} not verified.{other_text} Double-click one to open it.")
        self.doc.say("info", "info", said)
        self.doc.speak(said)
        emit(self.scanned, len(checkpoints))

    def open_row(self, row) -> str | None:
        """Open the checkpoint of folder ``row``; returns why it cannot be opened (not a checkpoint) or None."""
        if row is None:
            return None
        if not row.checkpoint:
            return f"{display_name(row.other)} is not a checkpoint: {row.summary}"
        self.loader.open_paths([p for p in (row.payload, row.descriptor) if p], find_pair=False)  # (as the scan paired it)
        return None
