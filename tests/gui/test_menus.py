"""The menus, their shortcuts and the shortcuts dialog (inspector/gui/menus.py), driven by keys.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from .conftest import SAMPLES, open_and_wait  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from inspector.session.recent import recent_labels  # noqa: E402


def test_reload_lists_both_shortcuts_in_the_menu_and_the_shortcuts_dialog(window):
    keys = [k.toString() for k in window.act_reload.shortcuts()]
    assert keys == ["F5", "Ctrl+R"]
    assert window.act_reload.text() == "&Reload from Disk\tF5, Ctrl+R"
    assert ("Reload from Disk", "F5, Ctrl+R") in window.shortcut_rows()


def test_recent_files_with_the_same_name_are_told_apart(window, tmp_path):
    a = [str(tmp_path / "a" / "p.json"), str(tmp_path / "a" / "d.json")]
    b = [str(tmp_path / "b" / "p.json"), str(tmp_path / "b" / "d.json")]
    c = [str(tmp_path / "c.json")]
    assert recent_labels([a, b, c]) == ["a/p.json + a/d.json", "b/p.json + b/d.json", "c.json"]
    window.recent_files.add(a)
    window.recent_files.add(b)
    from inspector.gui import menus
    menus.rebuild_recent_menu(window)
    texts = [x.text() for x in window.recent_menu.actions()][:2]
    assert texts == ["&1 b/p.json + b/d.json", "&2 a/p.json + a/d.json"]


ALT = Qt.KeyboardModifier.AltModifier


def _menu(window, title: str):
    return next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == title)


def test_alt_f_opens_the_file_menu_at_the_first_press_and_the_failures_only_box_has_its_own_key(qtbot, window):
    # The box was "&Failures only": Alt+F was then ambiguous, and the first press only moved the focus to
    # the box (the File menu opened at the second press).
    open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    view = window.findings_view
    QTest.keyClick(window, Qt.Key.Key_4, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    file_menu = _menu(window, "File")
    QTest.keyClick(view, Qt.Key.Key_F, ALT)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is file_menu, timeout=2000)
    QTest.keyClick(file_menu, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)
    QTest.keyClick(window, Qt.Key.Key_Escape)  # leave the menu bar
    # the box's own key toggles it, and no top-level menu shares it
    box = window.failures_only
    assert box.text() == "Failures &only"
    menu_keys = {a.text()[a.text().index("&") + 1].lower() for a in window.menuBar().actions()}
    assert "o" not in menu_keys
    assert box.isChecked()
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_O, ALT)
    qtbot.waitUntil(lambda: not box.isChecked(), timeout=2000)


def test_help_lists_the_failures_only_key(qtbot, window):
    from inspector.gui.menus import shortcut_sections

    panes = dict(shortcut_sections(window))["In the panes"]
    key = window.failures_only.text().split("&")[1][0].upper()
    assert ("Verdicts: failures only / every rule", f"Alt+{key}") in panes
    assert key == "O"
