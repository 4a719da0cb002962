"""Help ▸ About: version, what the application does, its licence, and a Licences… button that
shows the project's LICENSE and the third-party notices (:mod:`inspector.licenses`)."""

from __future__ import annotations

import html

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

from inspector import __version__, licenses
from inspector.checkpoint.rules.catalogue import reference_line

__all__ = ["about_text", "show_about", "LicencesDialog"]


def about_text() -> str:
    """The About box's rich text (version, purpose, licence)."""
    return (f"<b>Checkpoint Inspector {__version__}</b><p>Verifies A3S Code portable session "
            "checkpoints, byte-exact with the Rust reference. The window never decides a verdict "
            "itself: every verdict and digest comes from the verification engine.</p>"
            f"<p>Pinned {html.escape(reference_line())}.</p>"
            "<p>Licensed under the Apache License 2.0. It uses Qt and PySide6 under the LGPL-3.0, "
            "Python under the PSF licence and other open-source software: see <b>Licences…</b> for "
            "every licence text, the offer of Qt's source and how to replace Qt.</p>")


class LicencesDialog(QDialog):
    """Read-only text: the project's LICENSE, then the third-party notices."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Licences — Checkpoint Inspector")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        try:
            own = licenses.project_license()
        except FileNotFoundError as e:
            own = f"({e})"
        self.text.setPlainText("Checkpoint Inspector — LICENSE\n\n" + own + "\n\n" + licenses.third_party_notices())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(760, 560)


def show_about(parent: QWidget | None) -> None:
    """The About box (modal), with a Licences… button opening :class:`LicencesDialog`."""
    box = QMessageBox(parent)
    box.setWindowTitle("About Checkpoint Inspector")
    box.setIconPixmap(parent.windowIcon().pixmap(64, 64) if parent is not None else box.iconPixmap())
    box.setText(about_text())
    licences = box.addButton("Licences…", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    box.exec()
    if box.clickedButton() is licences:
        LicencesDialog(parent).exec()
