"""The digests table at 1024x700 tells every row apart: its labels were cut to an equal third of a
narrow pane ("snaps…igest" for both snapshot content_digest and snapshot evidence_digest)."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.gui.document import sample_paths

from .conftest import open_and_wait
import pytest
pytest.importorskip("PySide6")
from PySide6.QtWidgets import QApplication  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P  # noqa: E402


def _shown(view, text, width):
    """``text`` as a cell ``width`` px wide shows it (cut in the middle as the table does)."""
    return view.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, width - 8)


def test_digest_labels_are_told_apart_at_1024x700(qtbot, window_1024):
    window = window_1024
    open_and_wait(qtbot, window, sample_paths("broken"))
    view, m = window.digests_view, window.digests_model
    hh = view.horizontalHeader()
    labels = [m.row_object(r).label for r in range(m.rowCount())]

    def apart():
        assert view.viewport().width() < 520  # (the narrow layout)
        shown = [_shown(view, t, hh.sectionSize(0)) for t in labels]
        assert len(set(shown)) == len(labels), shown
        # and "snapshot …", "logical resume …" read as such: the first word is whole
        assert all(s.split(" ")[0] == t.split(" ")[0] or s.startswith(t.split(" ")[0]) for s, t in zip(shown, labels))
        right = hh.sectionViewportPosition(3) + hh.sectionSize(3)
        assert right <= view.viewport().width()  # nothing scrolls sideways
    qtbot.waitUntil(apart, timeout=3000)
    # the MISMATCH row's values still differ where shown, and the keyboard reaches it
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Down)
    r = view.currentIndex().row()
    assert labels[r] == "payload content_digest"
    assert _shown(view, m.data(m.index(r, 2)), hh.sectionSize(2)) != _shown(view, m.data(m.index(r, 3)), hh.sectionSize(3))


def test_compare_and_canonical_diff_windows_fit_a_small_screen(qtbot):
    # They opened at 1100x780 and 1100x700 whatever the screen: on a 1024x700 screen their status
    # bar (progress, Cancel) was below its bottom edge and their right side past the screen.

    from inspector.gui.canon_view import CanonicalDiffWindow
    from inspector.gui.compare_view import CompareWindow

    avail = QApplication.primaryScreen().availableGeometry()
    assert avail.width() < 1100  # (the offscreen screen is 800x800)
    for cls in (CompareWindow, CanonicalDiffWindow):
        win = cls()
        qtbot.addWidget(win)
        win.show()
        assert win.width() <= avail.width() and win.height() <= avail.height(), (cls.__name__, win.size())
        assert win.width() >= avail.width() - 60  # as wide as fits


def test_digests_pane_shows_both_digests_and_what_was_hashed_at_the_default_size(qtbot, window):
    window.resize(1560, 960)
    window.reset_layout()
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    qtbot.waitUntil(lambda: window.digests_view.viewport().width() > 200)
    view = window.digests_view
    hh = view.horizontalHeader()
    right = hh.sectionViewportPosition(3) + hh.sectionSize(3)
    assert right <= view.viewport().width()
    fm = view.fontMetrics()
    m = window.digests_model
    for row in range(m.rowCount()):
        for col in (2, 3):
            text = m.data(m.index(row, col))
            assert hh.sectionSize(col) >= fm.horizontalAdvance(text) + 6, text  # not elided
    assert window.digest_detail.height() >= 140
