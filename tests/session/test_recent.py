"""Open Recent shared by the windows of two processes (inspector/session/recent.py): closing one window (which
syncs its settings) keeps the other's entries; before, the last window closed wrote back its own list."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings  # noqa: E402

from inspector.session.recent import RecentFiles  # noqa: E402

OTHER = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QSettings
    from inspector.session.recent import RecentFiles
    s = QSettings(sys.argv[1], QSettings.Format.IniFormat)
    RecentFiles(s).add([sys.argv[2]])
    s.sync()
""")


def test_a_window_closing_keeps_the_other_processes_entry(tmp_path):
    ini = str(tmp_path / "settings.ini")
    mine = QSettings(ini, QSettings.Format.IniFormat)
    RecentFiles(mine).add([str(tmp_path / "a.payload.json")])
    # another process (a second window started with --new-window) opens b
    subprocess.run([sys.executable, "-c", OTHER, ini, str(tmp_path / "b.payload.json")], check=True, timeout=60)
    mine.sync()  # this window closes (its settings are written)
    fresh = QSettings(ini, QSettings.Format.IniFormat)
    assert RecentFiles(fresh).items() == [[str(tmp_path / "b.payload.json")], [str(tmp_path / "a.payload.json")]]
    # and the list this window shows next has b too
    assert RecentFiles(mine).items()[0] == [str(tmp_path / "b.payload.json")]
