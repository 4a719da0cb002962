"""The window's menus and their shortcuts (File, Edit, Go, View, Help) and the Open Recent menu."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout,
)

from . import dialogs
from .document import display_name, display_path, sample_paths
from inspector.session.recent import recent_labels

__all__ = ["build_menus", "rebuild_recent_menu", "shortcut_rows", "shortcut_sections", "action_rows", "PANE_KEYS",
           "shortcuts_html", "shortcuts_table", "shortcuts_help"]

# Keys that panes handle themselves (no QAction): listed in Help ▸ Keyboard Shortcuts as they are.
PANE_KEYS = (
    ("Context menu of a tree, the verdicts, the digests or the bytes (copy value, pointer, JSON, jq path)",
     "Shift+F10, Menu"),
    ("Verdicts: failures only / every rule", "Alt+O"),
    ("Find field, go-to field: next / previous match", "Enter, Shift+Enter"),
    ("Find bar, go-to-offset field, a value being edited: close (first; Esc is Stop Loading only when none "
     "of them has the focus)", "Esc"),
    ("Timeline: zoom in / out", "+, -"),
    ("Timeline: previous / next event; previous / next run", "Left, Right; Up, Down"),
    ("Timeline: zoom around the pointer", "Ctrl+wheel"),
)


def _act(w, menu, text, slot, shortcut=None, name=None) -> QAction:
    a = QAction(text, w)
    if shortcut is not None:
        if isinstance(shortcut, (list, tuple)):
            seqs = []
            for s in shortcut:
                k = QKeySequence(s)
                if not k.isEmpty() and k not in seqs:
                    seqs.append(k)
            a.setShortcuts(seqs)
            if len(seqs) > 1:
                # A menu shows only the first shortcut unless the text names them after a tab.
                a.setText(text + "\t" + ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in seqs))
        else:
            a.setShortcut(QKeySequence(shortcut))
    a.triggered.connect(slot)
    if name:
        a.setObjectName(name)
    menu.addAction(a)
    return a


def build_menus(w) -> None:
    """Create the menu bar of ``w`` (a MainWindow); the actions it needs later become ``w.act_*``."""
    mb = w.menuBar()
    _file_menu(w, mb.addMenu("&File"))
    _edit_menu(w, mb.addMenu("&Edit"))
    _go_menu(w, mb.addMenu("&Go"))
    _view_menu(w, mb.addMenu("&View"))
    h = mb.addMenu("&Help")
    _act(w, h, "&About Checkpoint Inspector", lambda: dialogs.about(w))
    _act(w, h, "&Keyboard Shortcuts", lambda: shortcuts_help(w), QKeySequence.StandardKey.HelpContents)
    rebuild_recent_menu(w)


def _file_menu(w, m) -> None:
    w.act_open = _act(w, m, "&Open…", lambda: dialogs.open_dialog(w), QKeySequence.StandardKey.Open, "open")
    _act(w, m, "Open &Folder…", lambda: dialogs.open_folder_dialog(w), "Ctrl+Shift+O", "openFolder")
    _act(w, m, "Open &URL…", lambda: dialogs.open_url_dialog(w), "Ctrl+Shift+U", "openUrl")
    w.recent_menu = m.addMenu("Open &Recent")
    sm = m.addMenu("Open &Sample")
    _act(w, sm, "Intact checkpoint (verifies)", lambda: w.open_paths(sample_paths("sample")))
    _act(w, sm, "Broken checkpoint (one byte changed)", lambda: w.open_paths(sample_paths("broken")))
    _act(w, m, "&Compare With…", lambda: w.comparer.compare_with(), "Ctrl+Shift+D", "compareWith")
    m.addSeparator()
    w.act_save = _act(w, m, "Save Payload &As…", w.save_dialog, QKeySequence.StandardKey.SaveAs, "saveAs")
    w.act_save_desc = _act(w, m, "Save &Descriptor As…", lambda: dialogs.save_descriptor_dialog(w), None,
                           "saveDescriptor")
    w.act_export = _act(w, m, "&Export Report…", w.export_report, "Ctrl+Shift+E", "exportReport")
    w.act_restore = _act(w, m, "Restore &Original…", w.restore_original, None, "restoreOriginal")
    m.addSeparator()
    w.act_reload = _act(w, m, "&Reload from Disk", w.reload,
                        [QKeySequence(QKeySequence.StandardKey.Refresh).toString() or "F5", "Ctrl+R"], "reload")
    w.act_discard = _act(w, m, "Discard &Edits", w.loader.discard_edits, None, "discard")
    m.addSeparator()
    w.act_stop = _act(w, m, "S&top Loading", w.cancel_load, "Esc", "stopLoading")
    w.act_stop.setEnabled(False)  # only while something runs: Esc is the find bar's otherwise
    m.addSeparator()
    _act(w, m, "&Quit", w.close, QKeySequence.StandardKey.Quit, "quit")


def _edit_menu(w, e) -> None:
    w.act_copy = _act(w, e, "&Copy Value", w.copy_value, QKeySequence.StandardKey.Copy, "copyValue")
    w.act_copy.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    w.act_copy_ptr = _act(w, e, "Copy JSON &Pointer", w.copy_pointer, "Ctrl+Shift+C", "copyPointer")
    w.act_copy_ticket = _act(w, e, "Copy for &Ticket", w.copy_for_ticket, "Ctrl+Shift+T", "copyForTicket")
    e.addSeparator()
    _act(w, e, "&Find in Trees…", w.find_bar.open, QKeySequence.StandardKey.Find, "find")
    _act(w, e, "Find &Next", lambda: w.finder.find(w.find_bar.edit.text(), False),
         QKeySequence.StandardKey.FindNext, "findNext")
    _act(w, e, "Find Pre&vious", lambda: w.finder.find(w.find_bar.edit.text(), True),
         QKeySequence.StandardKey.FindPrevious, "findPrevious")
    e.addSeparator()
    w.act_edit_value = _act(w, e, "&Edit Value", w.edit_current_value, "F2", "editValue")
    w.act_raw = _act(w, e, "Edit &Raw Text…", w.show_raw_editor, "Ctrl+E", "rawText")


def _go_menu(w, g) -> None:
    sel = w.selection
    w.act_next_failure = _act(w, g, "&Next Failure", lambda: sel.goto_failure(+1), "F8", "nextFailure")
    w.act_prev_failure = _act(w, g, "&Previous Failure", lambda: sel.goto_failure(-1), "Shift+F8",
                              "previousFailure")
    _act(w, g, "&Root Cause", sel.goto_root_cause, "Ctrl+F8", "rootCause")
    _act(w, g, "Go to JSON &Pointer…", w.find_bar.open_pointer, "Ctrl+G", "gotoPointer")
    _act(w, g, "Go to &Offset…", lambda: _goto_offset(w), "Ctrl+L", "gotoOffset")
    _act(w, g, "Find in &Bytes…", lambda: _goto_offset(w, "find"), "Ctrl+Shift+B", "findBytes")
    g.addSeparator()
    _act(w, g, "&Back", sel.go_back, "Alt+Left", "goBack")
    _act(w, g, "For&ward", sel.go_forward, "Alt+Right", "goForward")
    g.addSeparator()
    _act(w, g, "&Expand All", w.expand_all, "Ctrl+Shift+X", "expandAll")
    _act(w, g, "&Collapse All", w.collapse_all, "Ctrl+Shift+L", "collapseAll")
    g.addSeparator()
    rp = w.resume_panes
    # (name, Alt+digit, action name, go there, the pane that holds the focus there: its view and its other controls)
    panes = [
        ("Snapshot Tree", "Alt+1", None, lambda: w.focus_pane(w.snap_pane.view), lambda: w.snap_pane),
        ("Resume Boundary Tree", "Alt+2", None, lambda: w.focus_pane(w.resume_pane.view), lambda: w.resume_pane),
        ("Descriptor Tree", "Alt+3", None, lambda: w.focus_pane(w.desc_pane.view), lambda: w.desc_pane),
        ("Verdicts", "Alt+4", None, lambda: w.focus_pane(w.findings_view), lambda: w.verdict_splitter.parentWidget()),
        ("Digests", "Alt+5", None, lambda: w.focus_pane(w.digests_view), lambda: w.digests_dock.widget()),
        ("Bytes", "Alt+6", None, lambda: w.focus_pane(w.hex_tabs.currentWidget()), lambda: w.hex_tabs),
        ("Resume Timeline", "Alt+7", "gotoTimeline", lambda: _focus_resume_tab(rp, 0, rp.timeline),
         lambda: rp.tabs.widget(0)),
        ("Transcript", "Alt+8", "gotoTranscript", lambda: _focus_resume_tab(rp, 1, rp.transcript.view),
         lambda: rp.tabs.widget(1)),
        ("Integrity Lint", "Alt+9", "gotoLint", lambda: _focus_resume_tab(rp, 2, rp.lint_list),
         lambda: rp.tabs.widget(2)),
        ("Events", "Alt+0", "gotoEvents", lambda: _focus_resume_tab(rp, 3, rp.events.view), lambda: rp.tabs.widget(3)),
    ]
    for name, keys, obj, go, _widget in panes:
        _act(w, g, name, go, keys, obj)
    # F6 / Shift+F6 step through the same panes whatever the keyboard layout (Alt+1...Alt+0 need the digits
    # unshifted: on AZERTY and Czech layouts they are not)
    g.addSeparator()
    _act(w, g, "Next Pane", lambda: _step_pane(panes, +1), "F6", "nextPane")
    _act(w, g, "Previous Pane", lambda: _step_pane(panes, -1), "Shift+F6", "previousPane")


def _step_pane(panes, step: int) -> None:
    """Focus the pane after (``step`` +1) or before (-1) the one that has the focus, in the Go menu's order
    (the first or the last when none of them has it)."""
    from PySide6.QtWidgets import QApplication

    focus = QApplication.focusWidget()
    at = next((i for i, p in enumerate(panes) if focus is not None and p[4]() is not None
               and (focus is p[4]() or p[4]().isAncestorOf(focus))), None)
    k = (0 if step > 0 else len(panes) - 1) if at is None else (at + step) % len(panes)
    panes[k][3]()


def _view_menu(w, v) -> None:
    rp = w.resume_panes
    for d in (w.trees_dock, w.bytes_dock, w.digests_dock, rp.dock, w.raw_dock, w.folder_dock):
        v.addAction(d.toggleViewAction())
    rp.dock.toggleViewAction().setText("Resume (timeline, transcript, lint)")
    v.addSeparator()
    _act(w, v, "&Canonical Diff", lambda: w.comparer.canonical_diff(), "Ctrl+Shift+K", "canonicalDiff")
    watch = _act(w, v, "&Watch Folder", lambda: None, "Ctrl+Shift+W", "watchFolder")
    watch.setCheckable(True)
    watch.triggered.disconnect()
    watch.toggled.connect(lambda on: _toggle_watch(w, on))
    w.watch.changed.connect(lambda on: watch.isChecked() != on and watch.setChecked(on))
    w.act_watch = watch
    v.addSeparator()
    _act(w, v, "Reset &Layout", w.reset_layout, None, "resetLayout")


def _toggle_watch(w, on: bool) -> None:
    """View ▸ Watch Folder: watch the folder shown in the folder table (open one first), or stop."""
    if not on:
        w.watch.stop()
        return
    folder = w.folder_model.folder
    if not folder:
        w.act_watch.setChecked(False)
        w.statusBar().showMessage("Open a folder first (File ▸ Open Folder…), then watch it.", 8000)
        return
    if not w.watch.watching:
        w.watch.start(folder)


def _goto_offset(w, mode: str = "offset") -> None:
    """Show the Bytes dock and open the go-to-offset (``mode`` "find": find) field of the shown file's bytes."""
    w.bytes_dock.show()
    w.bytes_dock.raise_()
    w.hex_tabs.currentWidget().open_goto(mode)


def _focus_resume_tab(panes, index: int, widget) -> None:
    """Show the Resume dock (even after it was closed), switch to tab ``index`` and focus ``widget``."""
    panes.dock.show()
    panes.dock.raise_()
    panes.tabs.setCurrentIndex(index)
    widget.setFocus()


def rebuild_recent_menu(w) -> None:
    """Fill File ▸ Open Recent from ``w.recent_files``."""
    menu = w.recent_menu
    menu.clear()
    items = w.recent_files.items()
    for i, (paths, label) in enumerate(zip(items, recent_labels(items, display_name))):
        a = menu.addAction(f"&{i + 1} {label}" if i < 9 else label)
        a.setToolTip("\n".join(display_path(p) for p in paths))
        a.triggered.connect(lambda _=False, p=paths: w.open_paths(p))
    if not items:
        a = menu.addAction("(none)")
        a.setEnabled(False)
    else:
        menu.addSeparator()
        menu.addAction("Clear Recent", lambda: (w.recent_files.clear(), rebuild_recent_menu(w)))


def action_rows(actions) -> list[tuple[str, str]]:
    """(action text without ``&``, its shortcuts joined by ", ") for each of ``actions``
    (QAction or QShortcut) that has a key, in order."""
    rows = []
    for a in actions:
        seqs = a.shortcuts() if hasattr(a, "shortcuts") else a.keys()
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in seqs]
        keys = [k for k in keys if k]
        if keys:
            text = a.text() if hasattr(a, "text") else a.whatsThis() or a.objectName()
            rows.append((text.split("\t")[0].replace("&", ""), ", ".join(keys)))
    return rows


def shortcut_rows(w) -> list[tuple[str, str]]:
    """(action, every shortcut of it) for each menu action of the main window that has one."""
    rows = []
    for menu in w.menuBar().findChildren(type(w.recent_menu)):
        rows += action_rows(menu.actions())
    return rows


def window_actions(win) -> list:
    """Every QAction and QShortcut with a key that ``win`` (a QMainWindow) owns, menus included."""
    from PySide6.QtGui import QShortcut

    out = []
    for a in win.findChildren(QAction) + win.findChildren(QShortcut):
        if a not in out:
            out.append(a)
    return out


def shortcut_sections(w) -> list[tuple[str, list[tuple[str, str]]]]:
    """Help ▸ Keyboard Shortcuts: ``[(section title, [(what, keys)])]``, read from the actions
    themselves (the main window's menus, the Compare and Canonical Diff windows' actions), so the
    list cannot drift from what the keys do; then :data:`PANE_KEYS`."""
    from .canon_view import CanonicalDiffWindow
    from .compare_view import CompareWindow

    sections = [("Main window", shortcut_rows(w))]
    for title, cls in (("Compare window (File ▸ Compare With…)", CompareWindow),
                       ("Canonical Diff window (View ▸ Canonical Diff)", CanonicalDiffWindow)):
        win = cls()  # never shown: only its actions are read
        try:
            sections.append((title, action_rows(window_actions(win))))
        finally:
            win.deleteLater()
    sections.append(("In the panes", list(PANE_KEYS)))
    return sections


def shortcuts_html(w) -> str:
    """The Keyboard Shortcuts table (HTML): one section per window, then the keys panes handle."""
    parts = []
    for title, rows in shortcut_sections(w):
        parts.append(f"<h3>{html.escape(title)}</h3><table cellspacing='4'>")
        parts += [f"<tr><td>{html.escape(name)}</td><td><b>{html.escape(keys)}</b></td></tr>" for name, keys in rows]
        parts.append("</table>")
    return "".join(parts)


def shortcuts_table(w) -> QTableWidget:
    """The Keyboard Shortcuts as a table a screen reader walks cell by cell (Where, Action, Keys: one row per key;
    :func:`shortcut_sections`), read-only, one row selected at a time."""
    rows = [(title.split(" (")[0], name, keys) for title, items in shortcut_sections(w) for name, keys in items]
    table = QTableWidget(len(rows), 3)
    table.setObjectName("shortcutsTable")
    table.setAccessibleName("Keyboard shortcuts")
    table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setTabKeyNavigation(False)  # (Tab leaves the table for the Close button)
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            table.setItem(r, c, QTableWidgetItem(text))
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    head = table.horizontalHeader()
    head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # (a long one is cut in the middle: its tooltip)
    head.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
    for r, cells in enumerate(rows):
        table.item(r, 1).setToolTip(cells[1])
    if rows:
        table.setCurrentCell(0, 1)
    return table


def shortcuts_help(w) -> None:
    """Help ▸ Keyboard Shortcuts: a scrollable window (fits a 1024x700 screen; not modal) holding
    :func:`shortcuts_table`, which has the focus."""
    old = w.findChild(QDialog, "shortcutsDialog")
    if old is not None:
        old.close()
        old.deleteLater()
    dlg = QDialog(w)
    dlg.setObjectName("shortcutsDialog")
    dlg.setWindowTitle("Keyboard Shortcuts — Checkpoint Inspector")
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    lay = QVBoxLayout(dlg)
    table = shortcuts_table(w)
    lay.addWidget(table)
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    box.rejected.connect(dlg.close)
    lay.addWidget(box)
    screen = w.screen().availableGeometry() if w.screen() is not None else None
    dlg.resize(min(860, screen.width() - 40) if screen else 860, min(720, screen.height() - 60) if screen else 600)
    dlg.show()
    table.setFocus()
