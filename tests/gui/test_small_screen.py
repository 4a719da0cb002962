"""The window at 1024x700, as the screenshots showed it (issue 9, item 6)."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.gui.document import sample_paths

from .conftest import open_and_wait


def test_digests_table_shows_most_rows_at_1024x700(qtbot, settings):
    """The digests table showed two of its nine rows at 1024x700 (the rest went to the bytes pane
    and an empty "What was hashed"); now at least five, and the detail keeps its lines."""
    from inspector.gui.window import MainWindow

    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.show()
    qtbot.waitUntil(lambda: window.width() == 1024 and window.height() == 700, timeout=1000)
    try:
        open_and_wait(qtbot, window, sample_paths("broken"))
        view = window.digests_view
        qtbot.waitUntil(lambda: view.viewport().height() > 0, timeout=1000)
        m = window.digests_model
        assert m.rowCount() == 9
        whole = [r for r in range(m.rowCount()) if view.visualRect(m.index(r, 0)).bottom() < view.viewport().height()]
        assert len(whole) >= 5, (len(whole), view.viewport().height())
        assert window.digest_detail.height() >= 96
        assert window.hex_payload.height() >= 4 * window.hex_payload.fontMetrics().height()  # bytes: 4 rows at least
        view.setFocus()
        QTest.keyClick(view, Qt.Key.Key_Down)  # (the MISMATCH row) its detail fits: stated and recomputed
        assert view.currentIndex().row() == 1
    finally:
        window.cancel_load()
