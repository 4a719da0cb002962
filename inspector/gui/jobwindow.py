"""``JobWindow``: a top-level window whose content comes from one background job at a time, with
a progress bar and a Cancel button in its status bar (the comparison and canonical diff views)."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QProgressBar, QPushButton

from .jobs import JobRunner, start_job

__all__ = ["JobWindow"]


class JobWindow(QMainWindow):
    """Runs ``fn(ctx)`` jobs (:class:`~.jobs.Job`) for its content; a newer job supersedes the
    older. Subclasses get ``_finished(result)`` and ``_failed(message)`` calls on the GUI thread."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.jobs = JobRunner()
        self.job = None
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelJob")
        self.cancel_button.clicked.connect(self.cancel)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self._busy(False)

    def fit_screen(self, width: int, height: int) -> None:
        """Resize to ``width`` x ``height`` px, or less on a smaller screen (1100x780 went past the
        bottom and right of a 1024x700 screen, its status bar and Cancel button off it)."""
        from PySide6.QtWidgets import QApplication

        screen = self.screen() or QApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else None
        if avail is not None and avail.width() > 0 and avail.height() > 0:
            width, height = min(width, avail.width() - 24), min(height, avail.height() - 40)
        self.resize(width, height)

    def run(self, fn, name: str, first_text: str) -> None:
        """Start ``fn(ctx)`` in the background (cancelling a running job first)."""
        self.cancel()
        job = self.jobs.new(fn, name)
        self.job = job
        cur = self.jobs.current
        job.signals.progress.connect(lambda pct, text, j=job: cur(j) and self._progress(pct, text))
        job.signals.finished.connect(lambda r, j=job: cur(j) and self._job_done(self._finished, r))
        job.signals.failed.connect(lambda msg, j=job: cur(j) and self._job_done(self._failed, msg))
        job.signals.cancelled.connect(lambda j=job: cur(j) and self._job_done(self._cancelled))
        self._busy(True)
        self._progress(-1, first_text)
        start_job(job)

    def cancel(self) -> bool:
        """Cancel the running job (its worker processes are terminated); True if one was running."""
        return self.jobs.cancel(self.job)

    def _job_done(self, then, *args) -> None:
        self.job = None
        self._busy(False)
        then(*args)

    def _busy(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)

    def _progress(self, pct: int, text: str) -> None:
        self.progress.setRange(0, 0 if pct < 0 else 100)
        if pct >= 0:
            self.progress.setValue(pct)
        self.statusBar().showMessage(text)

    def _finished(self, result) -> None:  # pragma: no cover - overridden
        pass

    def _failed(self, message: str) -> None:  # pragma: no cover - overridden
        pass

    def _cancelled(self) -> None:
        self.statusBar().showMessage("Cancelled.")

    def closeEvent(self, event):
        self.cancel()
        super().closeEvent(event)
