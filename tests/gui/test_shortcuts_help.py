"""Help ▸ Keyboard Shortcuts lists every key of every window, read from the actions."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAction, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QTableWidget

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
    table = dlg.findChild(QTableWidget, "shortcutsTable")
    rows = [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]
    return dlg, table, rows


def test_help_lists_every_key_of_the_main_compare_and_canonical_diff_windows(qtbot, window):
    dlg, table, rows = _open_help(qtbot, window)
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
    for title, keyed in expected.items():
        listed = [(name, keys) for where, name, keys in rows if where == title]
        for name, keys in keyed:
            assert (name, keys) in listed, (title, name, keys)
    assert ("In the panes", "Context menu of a row or the bytes", "Shift+F10, Menu") in rows or \
        any(where == "In the panes" and keys == "Shift+F10, Menu" for where, _n, keys in rows)
    assert any(name == "Stop Loading" and "Esc" in keys for _w, name, keys in rows)
    QTest.keyClick(dlg, Qt.Key.Key_Escape)
    assert not dlg.isVisible()


def test_the_shortcuts_are_a_table_the_keyboard_walks_cell_by_cell(qtbot, window):
    """A screen reader reads one cell at a time (Where, Action, Keys), not one 1.4 kB utterance."""
    dlg, table, rows = _open_help(qtbot, window)
    qtbot.waitUntil(table.hasFocus, timeout=2000)
    assert (table.currentRow(), table.currentColumn()) == (0, 1)
    assert [table.horizontalHeaderItem(c).text() for c in range(3)] == ["Where", "Action", "Keys"]
    QTest.keyClick(table, Qt.Key.Key_Right)
    assert table.currentItem().text() == rows[0][2]  # the first action's keys
    QTest.keyClick(table, Qt.Key.Key_Down)
    assert (table.currentRow(), table.currentItem().text()) == (1, rows[1][2])
    iface = QAccessible.queryAccessibleInterface(table)
    assert iface.role() == QAccessible.Role.Table and iface.text(QAccessible.Text.Name) == "Keyboard shortcuts"
    # its children: the column headers, then each cell, row by row (what a screen reader walks)
    # (Qt puts a corner cell and a row number before each row, the hidden row header's)
    names = [iface.child(i).text(QAccessible.Text.Name) for i in range(iface.childCount())]
    assert names[:10] == ["", "Where", "Action", "Keys", "1", *rows[0], "2", rows[1][0]]
    assert len(names) == 4 * (len(rows) + 1)
    QTest.keyClick(table, Qt.Key.Key_Tab)  # Tab leaves the table
    assert not table.hasFocus()


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
