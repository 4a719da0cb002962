"""Screenshots of the support workflow (issue 8): the verdict bar failing and verified, the whole
window on the broken sample, and the Export Report dialog.

Run under a real X server (``xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python
tools/ticket_screenshots.py OUT_DIR``); the HTML report is shot separately with headless Chromium.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def main(out: str) -> int:
    os.makedirs(out, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv)
    from inspector.gui.document import sample_paths
    from inspector.gui.ticket import ExportReportDialog, ticket_inputs
    from inspector.gui.window import MainWindow

    settings = QSettings(os.path.join(out, "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings)
    w.resize(1280, 800)
    w.show()

    def open_and_wait(paths):
        done = []
        w.analysisReady.connect(lambda: done.append(1))
        w.open_paths(paths)
        while not done:
            app.processEvents()
        for _ in range(20):
            app.processEvents()

    open_and_wait(sample_paths("broken"))
    w.grab().save(os.path.join(out, "window-broken.png"))
    w.header.parentWidget().grab().save(os.path.join(out, "verdict-bar-failing.png"))
    QTest.mouseClick(w.header.ticket_button, Qt.MouseButton.LeftButton)
    while getattr(w, "ticket_copied", None) is None:
        app.processEvents()
    with open(os.path.join(out, "ticket-broken.txt"), "w", encoding="utf-8") as fh:
        fh.write(QApplication.clipboard().text())
    dlg = ExportReportDialog(*ticket_inputs(w.doc), parent=w)
    dlg.show()
    for _ in range(10):
        app.processEvents()
    QTest.mouseClick(dlg.redacted, Qt.MouseButton.LeftButton, pos=QPoint(8, dlg.redacted.height() // 2))
    dlg.allow.topLevelItem(3).setExpanded(True)
    for _ in range(10):
        app.processEvents()
    dlg.grab().save(os.path.join(out, "export-dialog.png"))
    dlg.close()
    open_and_wait(sample_paths("sample"))
    w.header.parentWidget().grab().save(os.path.join(out, "verdict-bar-verified.png"))
    w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ticket-shots"))
