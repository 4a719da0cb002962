"""Screenshots of the window at a given screen size (issue 9): the default view on the broken
sample, and the digests pane with a digest selected.

    Xvfb :99 -screen 0 1600x1000x24 &  DISPLAY=:99 .venv/bin/python tools/window_screenshots.py OUT_DIR 1600 1000

The screen is captured with ImageMagick's ``import -window root`` (what the X server shows).
"""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def main(out: str, width: int, height: int) -> int:
    os.makedirs(out, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from inspector.gui.document import sample_paths
    from inspector.gui.window import MainWindow

    ini = os.path.join(out, f"settings-{width}.ini")
    if os.path.exists(ini):
        os.remove(ini)
    w = MainWindow(QSettings(ini, QSettings.Format.IniFormat))
    w.setGeometry(0, 0, width, height)
    w.show()
    w.reset_layout()

    def settle(n=40):
        for _ in range(n):
            app.processEvents()
            QTest.qWait(10)

    def shot(name):
        settle()
        subprocess.run(["import", "-window", "root", os.path.join(out, f"{name}-{width}x{height}.png")], check=True)

    done = []
    w.analysisReady.connect(lambda: done.append(1))
    w.open_paths(sample_paths("broken"))
    while not done:
        app.processEvents()
    shot("default")
    w.focus_pane(w.digests_view)
    m = w.digests_model
    row = next(r for r in range(m.rowCount()) if m.row_object(r).label == "snapshot evidence_digest")
    w.digests_view.setCurrentIndex(m.index(row, 0))
    QTest.keyClick(w.digests_view, Qt.Key.Key_Up)
    QTest.keyClick(w.digests_view, Qt.Key.Key_Down)
    shot("digests")
    if hasattr(w, "failures_only"):
        w.focus_pane(w.findings_view)
        shot("failures-only")
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
