"""Help ▸ Keyboard Shortcuts lists every key of every window, read from the actions (issue 9)."""

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QTextBrowser

from inspector.session import engine
from inspector.gui.canon_view import CanonicalDiffWindow
from inspector.gui.compare_view import CompareWindow

from .conftest import GOLDEN_D, GOLDEN_P


def _keyed(win):
    """(text, keys) of every QAction/QShortcut of ``win`` that has a key."""
    out = []
    for a in win.findChildren(QAction) + win.findChildren(QShortcut):
        seqs = a.shortcuts() if isinstance(a, QAction) else a.keys()
        keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in seqs if not k.isEmpty())
        if keys:
            out.append((a.text().split("\t")[0].replace("&", "") if isinstance(a, QAction) else a.objectName(), keys))
    return out


def _open_help(qtbot, window):
    QTest.keyClick(window, Qt.Key.Key_F1)  # Help ▸ Keyboard Shortcuts (HelpContents)
    dlg = window.findChild(QDialog, "shortcutsDialog")
    assert dlg is not None and dlg.isVisible()
    return dlg, dlg.findChild(QTextBrowser, "shortcutsText").toHtml()


def test_help_lists_every_key_of_the_main_compare_and_canonical_diff_windows(qtbot, window):
    dlg, text = _open_help(qtbot, window)
    plain = dlg.findChild(QTextBrowser, "shortcutsText").toPlainText()
    compare, canon = CompareWindow(), CanonicalDiffWindow()
    qtbot.addWidget(compare)
    qtbot.addWidget(canon)
    expected = {"Main window": _keyed(window), "Compare window": _keyed(compare),
                "Canonical Diff window": _keyed(canon)}
    # the compare windows' Esc, Ctrl+W and F8 were missing from the list before
    close = QKeySequence(QKeySequence.StandardKey.Close).toString(QKeySequence.SequenceFormat.NativeText)
    assert ("Close", f"{close}, Esc") in expected["Compare window"]
    assert ("Close", f"{close}, Esc") in expected["Canonical Diff window"]
    assert ("Next Difference", "F8, Ctrl+Down") in expected["Canonical Diff window"]
    assert len(expected["Main window"]) >= 35
    starts = {title: plain.index(title) for title in expected}
    order = sorted(starts.values()) + [len(plain)]
    for title, rows in expected.items():
        section = plain[starts[title]:order[order.index(starts[title]) + 1]]
        for name, keys in rows:
            assert f"{name}\n{keys}" in section or f"{name}\t{keys}" in section or f"{name} {keys}" in section, \
                (title, name, keys)
    assert html.escape("Shift+F10, Menu") in text  # the keys the panes handle themselves
    assert "Stop Loading" in plain and "Esc" in plain
    QTest.keyClick(dlg, Qt.Key.Key_Escape)
    assert not dlg.isVisible()


def test_esc_stops_a_running_load_and_is_the_find_bars_otherwise(qtbot, window, monkeypatch):
    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # a load in worker processes (not instant)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible() and window.act_stop.isEnabled()
    QTest.keyClick(window.snap_pane.view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=20000)
    assert not window.cancel_button.isVisible() and not window.act_stop.isEnabled()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.isVisible()
    QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible()
