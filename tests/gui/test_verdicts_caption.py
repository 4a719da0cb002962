"""The line above the verdicts at 1024x700: the explanation ends in "…" (full text as its tooltip)
instead of being clipped mid-word by the Failures only box ("grouped by s")."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from inspector.gui.document import sample_paths  # noqa: E402

from .conftest import open_and_wait  # noqa: E402

FULL = "— every rule, grouped by stage; the root cause first"


def test_verdicts_caption_is_elided_not_clipped_at_1024x700(qtbot, window_1024):
    w = window_1024
    open_and_wait(qtbot, w, sample_paths("broken"))
    cap, box = w.verdicts_caption, w.failures_only

    def fits():
        shown = cap.displayed_text()
        assert shown != FULL and shown.endswith("…") and FULL.startswith(shown[:-1])
        assert cap.fontMetrics().horizontalAdvance(shown) <= cap.contentsRect().width()
        assert cap.geometry().right() < box.geometry().left()  # nothing of it under the box
    qtbot.waitUntil(fits, timeout=3000)
    assert cap.toolTip() == FULL
    # the box still works with the mouse beside it
    assert box.isChecked()
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert not box.isChecked()


def test_verdicts_caption_whole_when_there_is_room(qtbot, window):
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, sample_paths("sample"))
    qtbot.waitUntil(lambda: window.verdicts_caption.displayed_text() == FULL, timeout=3000)
