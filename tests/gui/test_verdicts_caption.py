"""The line above the verdicts at 1024x700: the explanation ends in "…" (full text as its tooltip)
instead of being clipped mid-word by the Failures only box ("grouped by s")."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from inspector.gui.document import sample_paths  # noqa: E402

from inspector.gui.widgets.panes import plain_tooltip  # noqa: E402
from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

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
    assert cap.toolTip() == plain_tooltip(FULL)
    # the box still works with the mouse beside it
    assert box.isChecked()
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert not box.isChecked()


def test_verdicts_caption_whole_when_there_is_room(qtbot, window):
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, sample_paths("sample"))
    qtbot.waitUntil(lambda: window.verdicts_caption.displayed_text() == FULL, timeout=3000)


def test_subtitle_wraps_between_groups_not_inside_the_counts(qtbot, window):
    # At 1600 px the line under the verdict wrapped as "… 4 MISMATCH   —   3 FAIL · 68 PASS" / "· 4 n/a".
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600, timeout=1000)
    open_and_wait(qtbot, window, sample_paths("broken"))
    sub = window.header.subtitle

    def wrapped():
        lines = sub.displayed_text().split("\n")
        assert len(lines) == 2 and lines[1] == "3 FAIL · 68 PASS · 4 n/a", lines
        assert lines[0].rstrip().endswith("4 MISMATCH   —")
        assert " ".join(lines) == sub.text()  # nothing left out
    qtbot.waitUntil(wrapped, timeout=3000)


def test_elided_label_breaks_after_a_dash_only_when_the_line_stays_half_full(qtbot):
    from inspector.gui.widgets.panes import ElidedLabel

    lab = ElidedLabel("", lines=2)
    qtbot.addWidget(lab)
    lab.show()  # (a hidden widget gets its resize event only when shown)
    fm = lab.fontMetrics()
    text = "payload p.json (2,090 bytes)   —   3 FAIL · 68 PASS · 4 n/a"
    lab.setText(text)
    lab.resize(fm.horizontalAdvance("payload p.json (2,090 bytes)   —   3 FAIL · 68 PASS") + 4, 40)
    assert lab.displayed_text().split("\n") == ["payload p.json (2,090 bytes)   —  ", "3 FAIL · 68 PASS · 4 n/a"]
    short = "a   —   3 FAIL · 68 PASS · 4 n/a and more words here"
    lab.setText(short)
    lab.resize(fm.horizontalAdvance("a   —   3 FAIL · 68 PASS · 4 n/a and") + 4, 40)
    assert lab.displayed_text().split("\n")[0] == "a   —   3 FAIL · 68 PASS · 4 n/a and"  # "a —" alone: too short


def test_verified_says_what_it_proves_and_the_full_text_is_one_click_away(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMessageBox

    from inspector.checkpoint.rules.catalogue import plain_texts

    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    header = window.header
    assert header.title.text().startswith("VERIFIED")
    assert header.proves.text() == ("Integrity, not authenticity: the files agree with each other and with the "
                                    "format; this does not say who made them.") and header.proves.isVisible()
    assert header.proves_button.isVisible()
    QTest.mouseClick(header.proves_button, Qt.MouseButton.LeftButton)
    box = window.findChild(QMessageBox, "whatVerifiedProvesDialog")
    qtbot.waitUntil(lambda: box is not None and box.isVisible())
    assert box.informativeText() == "\n\n".join(plain_texts()["not_proven"])
    box.close()
    alone = tmp_path / "alone.payload.json"  # (beside its descriptor it would open as the pair)
    alone.write_bytes(GOLDEN_P.read_bytes())
    open_and_wait(qtbot, window, [alone])  # not verified (alone): nothing to explain
    assert not header.proves_button.isVisible() and not header.proves.isVisible()
