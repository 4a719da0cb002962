"""``MainWindow``: builds the panes and wires them to the document model and its controllers.

What is open lives in :class:`~.document.Document` (files, bytes, analysis, edits, save state,
staleness, jobs); :mod:`.controllers` act on it (loading, editing and saving, folders); the
window listens to the document's signals and shows what it holds. Selections between panes go
through :class:`~.selection.SelectionRelay`; menus are built in :mod:`.menus`, dialogs in
:mod:`.dialogs`, the verdict bar's text comes from :mod:`.summary`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from inspector.checkpoint import Verdict

from . import dialogs, menus, style, summary, ticket, views
from . import accessibility, focus
from .accessibility import announce, announce_verdict, speak_expansion
from .controllers.comparing import CompareController
from .controllers.editing import EditController
from .compact import CompactLayout
from .copying import CopyService
from .expand import TreeExpander
from .find import FindController
from .controllers.folder import FolderController
from .controllers.watching import FolderWatch
from .controllers.loading import LoadController
from inspector.session.drops import paths_from_mime
from .docstate import DocumentStates
from .presenting import Presenter
from .document import Document, display_path, sample_paths
from .layout import WindowPanes
from .layout import (
    build_layout, default_dock_sizes, fit_folder_columns, remember_folder_width, restore_window_settings,
    save_window_settings, scale_docks, size_folder_dock,
)
from .qtcompat import emit
from inspector.session.recent import RecentFiles
from .resume import ResumePanes
from .roles import ObjectRole
from .selection import SelectionRelay
from .widgets.panes import Banner


#: A load, scan or search still running after this long is said (milliseconds; then at each quarter).
SAY_PROGRESS_AFTER_MS = 1500

__all__ = ["MainWindow", "sample_paths"]


class MainWindow(QMainWindow, WindowPanes):
    """The inspector window.

    Args:
        settings: where layout and recent files are remembered (default: the user's settings).

    Attributes:
        doc: the :class:`~.document.Document` (what is open).
        loader, editor, folders: the controllers acting on it.

    Signals:
        treesReady(): the trees show the current document (may precede the verdicts).
        verdictsShown(): the verdicts of the current document are on screen (a large payload's come
            before its timeline, a pretty-printed one's before its trees, then again with them).
        analysisReady(): trees, verdicts and digests show the current document.
        loadFailed(str): a load was refused; the message is shown in the window.
        saved(list): Save As wrote these new files.
        editFailed(str): an edit was not applied.
        folderScanned(int): a folder scan finished with this many checkpoints.
    """

    treesReady = Signal()
    verdictsShown = Signal()
    analysisReady = Signal()
    loadFailed = Signal(str)
    saved = Signal(object)  # list of paths (object: exact bytes of every name)
    editFailed = Signal(str)
    folderScanned = Signal(int)

    def __init__(self, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        accessibility.install()  # the bytes views and the timeline read their content to screen readers
        focus.install()  # focus frames you can see, a selection that reads (WCAG 2.2)
        self._busy_timer = QTimer(self)  # a long load, scan or search is said once it has run a while
        self._busy_timer.setSingleShot(True)
        self._busy_timer.timeout.connect(self._say_busy)
        self._spoken_quarter = -1
        self.settings = settings or QSettings()
        self.recent_files = RecentFiles(self.settings)
        self.setWindowTitle(summary.APP)
        self.setAcceptDrops(True)
        self.doc = Document(self)
        self.loader = LoadController(self.doc, lambda: dialogs.confirm_discard(self), self)
        self.editor = EditController(self.doc, self)
        self._banners: dict[str, Banner] = {}
        self.presenter = Presenter(self)
        build_layout(self)
        speak_expansion(self.findings_view, self, columns=(1, 0))  # "X-BYTES FAIL · root cause: collapsed"
        for view in (self.snap_pane.view, self.resume_pane.view, self.desc_pane.view):
            speak_expansion(view, self)
        self.folders = FolderController(self.doc, self.folder_model, self.loader, self, self.sessions_model)
        self.loader.folders = self.folders
        self.watch = FolderWatch(self.doc, self.folder_model, self.sessions_model, self)  # View ▸ Watch Folder
        self.editor.loader = self.loader  # (an edit made while a load still runs waits for its end)
        self.loader.ended.connect(self.editor.load_ended)
        self.comparer = CompareController(self)
        self.loader.comparer = self.comparer
        self.states = DocumentStates(self)  # (before the parts that keep their state per document)
        self.selection = SelectionRelay(self)
        self.resume_panes = ResumePanes(self)
        self.compact = CompactLayout(self)  # below 1100 px: the Resume dock tabbed with the Digests
        self.copier = CopyService(self)
        self.finder = FindController(self)
        self.expander = TreeExpander(self.doc, self)
        # the trees' and bytes' view, then the history it is a stop of, come back with their document
        self.states.add_part("views", lambda: views.capture_document_view(self),
                             lambda state: state is not None and views.restore_document_view(self, state), "shown")
        self.states.add_part("history", self.selection.history.snapshot,
                             lambda state: state is not None and self.selection.history.restore(state), "shown")
        menus.build_menus(self)
        self._connect()
        self._restore_settings()
        self._update_actions()

    # ==========================================================================================
    # compatibility accessors (what is open lives in ``doc``)
    payload = property(lambda self: self.doc.payload)
    descriptor = property(lambda self: self.doc.descriptor)
    report = property(lambda self: self.doc.report)
    paths = property(lambda self: self.doc.paths)

    @property
    def edited(self) -> bool:
        return self.doc.edited

    @edited.setter
    def edited(self, value: bool) -> None:
        self.doc.edited = value

    def tree_panes(self):
        """The three tree panes: snapshot, resume boundary, descriptor."""
        return (self.snap_pane, self.resume_pane, self.desc_pane)

    # ==========================================================================================
    # wiring
    def _connect(self):
        doc = self.doc
        doc.presented.connect(self.presenter.present)
        doc.analysed.connect(self._analysed)
        self.analysisReady.connect(self.states.shown)
        doc.changed.connect(self._changed)
        doc.notice.connect(self._notice)
        doc.noticeCleared.connect(self.clear_banner)
        doc.busy.connect(self._set_busy)
        doc.spoken.connect(lambda text, error: announce(self, text, error=error))
        doc.opened.connect(self._opened)
        doc.failed.connect(lambda msg: emit(self.loadFailed, msg))
        doc.opening.connect(self._opening)
        self.editor.editFailed.connect(lambda msg: emit(self.editFailed, msg))
        # a refused edit leaves the checkpoint as it was: the status bar says its verdict again, not "Recomputing…"
        self.editor.editFailed.connect(lambda _msg: self._update_verdict_display())
        self.editor.saved.connect(lambda paths: emit(self.saved, paths))
        self.editor.status.connect(self.status_label.setText)
        self.editor.openPair.connect(self.loader.start)
        self.folders.started.connect(self._folder_started)
        self.folders.scanned.connect(self._folder_scanned)
        for pane in self.tree_panes():
            pane.model.editRequested.connect(self.editor.request_edit)
        self.header.button.clicked.connect(self.selection.goto_root_cause)
        self.header.ticket_button.clicked.connect(self.copy_for_ticket)
        self.header.proves_button.clicked.connect(lambda: dialogs.what_verified_proves(self))
        self.find_bar.search.connect(self.finder.find)
        self.find_bar.goto.connect(self.finder.goto_pointer)
        self.raw_editor.textEdited.connect(self.editor.request_raw_edit)
        self.folder_view.activated.connect(self._folder_activated)
        self.sessions_view.openRequested.connect(self.folders.open_row)
        self.sessions_view.compareRequested.connect(lambda pair: pair and self.comparer.compare(pair))
        self.folder_view.doubleClicked.connect(self._folder_activated)
        self.cancel_button.clicked.connect(self.cancel_load)
        self.failures_only.toggled.connect(self._failures_only)
        self.folder_dock.visibilityChanged.connect(lambda visible: remember_folder_width(self, visible))

    # ==========================================================================================
    # actions the menus, tests and app call
    def open_paths(self, paths: list[str], find_pair: bool = True, notes=()) -> bool:
        """Open one or two files, or one folder, looked at on a worker first (:meth:`.LoadController.open_paths`).
        Returns False when no path was given (a refusal is said in the window). ``find_pair``: a file given alone
        opens with its other half when one beside it matches (not from the Open dialog). ``notes``: why other items
        of the same action were not opened (said with the load)."""
        return self.loader.open_paths(paths, find_pair, notes)

    def open_folder(self, folder: str) -> None:
        """List every checkpoint in ``folder`` with its verdict."""
        self.folders.open_folder(folder)

    def open_sample(self) -> None:
        """Open the bundled intact sample (what a first run shows)."""
        self.open_paths(sample_paths("sample"))

    def cancel_load(self) -> None:
        """Cancel whatever runs: a load, a folder scan, a search, an expansion (processes are terminated)."""
        self.loader.cancel()
        self.folders.cancel()
        self.finder.cancel()
        self.expander.cancel()

    def reload(self) -> None:
        """Re-read the input files from disk (discarding edits after confirmation)."""
        self.loader.reload()

    def discard_edits(self) -> None:
        self.loader.discard_edits()

    def request_edit(self, source: str, pointer: str, span, kind: str, text: str) -> None:
        self.editor.request_edit(source, pointer, span, kind, text)

    def request_raw_edit(self, source: str, text: str) -> None:
        self.editor.request_raw_edit(source, text)

    def save_payload_as(self, path: str, descriptor_path: str | None = None) -> list[str]:
        return self.editor.save_payload_as(path, descriptor_path)

    def save_descriptor_as(self, path: str, *, matching: bool = False) -> str:
        return self.editor.save_descriptor_as(path, matching=matching)

    def save_dialog(self) -> None:
        dialogs.save_dialog(self)

    def check_stale(self) -> None:
        """Start the stale-file check (off the GUI thread); the answer comes as ``doc.staleChecked``."""
        self.doc.check_stale()

    def goto_root_cause(self) -> None:
        self.selection.goto_root_cause()

    def goto_failure(self, step: int) -> None:
        self.selection.goto_failure(step)

    def select_rule(self, rule_id: str) -> None:
        self.selection.select_rule(rule_id)

    def recent(self) -> list[list[str]]:
        """Recently opened path sets, newest first."""
        return self.recent_files.items()

    def shortcut_rows(self) -> list[tuple[str, str]]:
        return menus.shortcut_rows(self)

    def is_sample(self) -> bool:
        return self.doc.is_sample()

    # ==========================================================================================
    # settings and layout
    def _restore_settings(self):
        restore_window_settings(self)

    def save_settings(self) -> None:
        """Remember geometry, dock layout and splitter positions (:func:`.layout.save_window_settings`)."""
        save_window_settings(self)

    def reset_layout(self) -> None:
        """Restore the default dock layout (the compact one when the window is narrow)."""
        self.compact.forget()
        for d in (self.trees_dock, self.bytes_dock, self.digests_dock, self.resume_panes.dock):
            d.setFloating(False)
            d.show()
        self.raw_dock.hide()
        default_dock_sizes(self)
        self.compact.update()

    def showEvent(self, event):
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            if not self._restored_state:
                default_dock_sizes(self)
                self._default_state = self.saveState()
            self.compact.update()
            QTimer.singleShot(0, self, self._fit_screen)

    def resize(self, *args) -> None:
        """``QWidget.resize``; a size asked for this way is kept at the first show (:meth:`_fit_screen` leaves it)."""
        self._fit_request = False
        super().resize(*args)

    def _fit_screen(self) -> None:
        """Keep a first start's window on its screen: at 200 % on a 1080-line screen it opened 562 px tall on 540
        (the docks' minimums before the compact layout applied); once laid out it fits, so it is made to. A size
        asked for (a remembered geometry, :meth:`resize`) is left as it is."""
        screen = self.screen()
        if not getattr(self, "_fit_request", False) or screen is None or self.isMaximized() or self.isFullScreen():
            return
        self._fit_request = False
        avail = screen.availableGeometry()
        frame = self.frameGeometry().size() - self.size()  # (the title bar and borders a window manager adds)
        width = min(self.width(), avail.width() - frame.width())
        height = min(self.height(), avail.height() - frame.height())
        if (width, height) != (self.width(), self.height()):
            super().resize(max(width, self.minimumSizeHint().width()), max(height, self.minimumSizeHint().height()))
        if not avail.contains(self.frameGeometry().topLeft()):
            self.move(avail.topLeft())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self._sized:
            scale_docks(self, event.oldSize(), event.size())
            self.compact.update()

    def closeEvent(self, event):
        if self.doc.edited and not dialogs.confirm_discard(self):
            event.ignore()
            return
        self.cancel_load()
        self.save_settings()
        super().closeEvent(event)

    def event(self, e):
        if e.type() == QEvent.Type.WindowActivate and not self.doc.is_empty:
            self.doc.check_stale()
        elif e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._update_verdict_display()
        return super().event(e)

    # ==========================================================================================
    # banners, verdict bar, status
    def show_banner(self, key: str, kind: str, text: str, actions=()) -> Banner:
        """Show (or replace) the message banner ``key``; ``actions`` are (label, slot)."""
        self.clear_banner(key)
        b = Banner(kind, text, list(actions))
        b.closed.connect(lambda k=key, bb=b: self._banners.get(k) is bb and self._banners.pop(k, None))
        self._banners[key] = b
        self.banner_area.addWidget(b)
        return b

    def clear_banner(self, key: str) -> None:
        b = self._banners.pop(key, None)
        if b is not None:
            b.hide()
            b.deleteLater()

    def banner_text(self, key: str) -> str | None:
        """Text of banner ``key`` or ``None`` (for tests and accessibility)."""
        b = self._banners.get(key)
        return b.text if b is not None else None

    def _command(self, command):
        """The slot for a notice's action command (see :mod:`.document`)."""
        if command == "save":
            return self.save_dialog
        if command == "discard":
            return self.loader.discard_edits
        if command == "restore":
            return lambda _=False: self.restore_original()
        if command == "reload":
            return self.reload
        if command == "stop-waiting":
            return lambda _=False: self.doc.stop_waiting()
        if command == "stop-url":
            return lambda _=False: self.loader.stop_waiting_for_url()
        if isinstance(command, tuple) and command[0] == "open":
            return lambda _=False, p=list(command[1]): self.open_paths(p)
        raise ValueError(f"unknown notice command {command!r}")

    def _notice(self, key: str, kind: str, text: str, actions):
        self.show_banner(key, kind, text, [(label, self._command(c)) for label, c in actions])

    def _update_verdict_display(self):
        v = summary.verdict_text(self.doc)
        self.header.set_verdict(v.title, v.verdict, v.root_button, v.subtitle, v.reference, v.ticket, v.proves)
        self.status_icon.setPixmap(style.icon(v.verdict).pixmap(16, 16))
        short = v.status if len(v.status) < 160 else v.status[:157] + "…"
        self.status_label.setText(short)
        self.status_label.setToolTip(v.status)
        self.status_label.setAccessibleName(v.status)  # what a screen reader reads of the status bar
        self.status_icon.setAccessibleName(style.label(v.verdict))
        self.setWindowTitle(summary.window_title(self.doc))
        announce_verdict(self, v)

    def _update_actions(self):
        doc = self.doc
        self.act_save.setEnabled(doc.payload is not None and doc.payload.data is not None)
        self.act_save_desc.setEnabled(doc.descriptor is not None and doc.descriptor.data is not None
                                      or (doc.report is not None and doc.report.expected_descriptor is not None))
        self.act_discard.setEnabled(doc.edited)
        self.act_reload.setEnabled(bool(doc.paths))
        self.act_copy_ticket.setEnabled(doc.report is not None)
        self.act_export.setEnabled(doc.report is not None)
        self.act_restore.setEnabled(doc.can_restore())

    def _changed(self):
        if self.presenter.defer(self._changed):  # a document's verdicts are shown in the next turn: this follows
            return
        views.update_captions(self)
        views.show_cancelled(self)
        self._update_verdict_display()
        self._update_actions()

    def _set_busy(self, busy: bool, text: str = "", pct: int = -1):
        """Show or hide the progress label, bar and Cancel button (cheap when nothing changed)."""
        if busy == self.cancel_button.isHidden():
            for w in (self.progress_label, self.progress, self.cancel_button):
                w.setVisible(busy)
            self.act_stop.setEnabled(busy)  # Esc stops it (else Esc is the find bar's)
            # a long load is said once it has run a while (a quick one would only make noise before its verdict),
            # then at each quarter (its texts change too often to say each one)
            self._spoken_quarter = -1
            if busy:
                self._busy_timer.start(SAY_PROGRESS_AFTER_MS)
            else:
                self._busy_timer.stop()  # (a load that ended is never said; the next one waits its own time)
        if not busy:
            return
        if text != self.progress_label.text():
            self.progress_label.setText(text)
            self.progress.setAccessibleName(f"Progress: {text}" if text else "Progress")
        quarter = pct // 25 if pct >= 0 else -1
        if 0 < quarter < 4 and quarter > self._spoken_quarter >= 0:  # a long load's progress, said every quarter
            self._spoken_quarter = quarter
            announce(self, f"{quarter * 25} percent")
        if pct < 0:
            if self.progress.maximum() != 0:
                self.progress.setRange(0, 0)
        else:
            if self.progress.maximum() != 100:
                self.progress.setRange(0, 100)
            if pct != self.progress.value():
                # QProgressBar.setValue repaints at once, and a repaint paints every pending change of the window
                # with it (trees just filled: 120 ms in one piece on a 247 MiB checkpoint); with updates off it
                # only schedules a paint, which the event loop does in its turn.
                self.progress.setUpdatesEnabled(False)
                self.progress.setValue(pct)
                self.progress.setUpdatesEnabled(True)

    def _say_busy(self) -> None:
        """Say what is still running (:data:`SAY_PROGRESS_AFTER_MS` after it started), and that Esc cancels it."""
        if self.cancel_button.isHidden() or self._spoken_quarter != -1:
            return
        self._spoken_quarter = 0
        text = self.progress_label.text()
        announce(self, (text or "Working…") + ("" if "Esc" in text else " Esc cancels."))

    def _opening(self, names: str):
        self.header.set_verdict(f"Opening {names}…", Verdict.NOT_REACHED, False)
        self.status_label.setText(f"Opening {names}…")

    def _opened(self, paths: list[str]):
        if self.doc.is_sample():
            return  # File ▸ Open Sample opens it; shown at every start, it pushed the user's files down
        self.recent_files.add(paths)
        menus.rebuild_recent_menu(self)

    # ==========================================================================================
    # showing an analysis (the turns: presenting.Presenter)
    def _failures_only(self, on: bool) -> None:
        """The Failures only box: the verdicts list shows failing rules only, or all of them."""
        cur = self.findings_model.data(self.findings_view.currentIndex(), ObjectRole)
        self.findings_model.set_failures_only(on)
        views.show_findings(self)
        if cur is not None:
            idx = self.findings_model.index_for_rule(cur.rule.id)
            if idx.isValid():
                self.findings_view.setCurrentIndex(idx)

    def _analysed(self, keep_view: bool):
        if self.presenter.defer(lambda: self._analysed(keep_view)):  # after the verdicts, in their turn
            return
        report = self.doc.report
        if not keep_view and not self.presenter.keep_selection and report is not None \
                and report.root_cause is not None:
            self.selection.goto_root_cause()  # show where it failed right away
        emit(self.analysisReady)

    # ==========================================================================================
    # folders
    def _folder_started(self, folder: str):
        if self.watch.watching and self.watch.folder != folder:
            self.watch.stop()  # (another folder: its watch is asked for again)
        self.folder_dock.setWindowTitle(f"Folder — {display_path(folder)}")
        was_visible = self.folder_dock.isVisible()
        self.folder_dock.show()
        if not was_visible:
            self.resizeDocks([self.folder_dock], [max(160, self.height() // 5)], Qt.Orientation.Vertical)
            size_folder_dock(self)
            QTimer.singleShot(0, lambda: size_folder_dock(self))  # (again once the dock is laid out)
        self.folder_dock.raise_()

    def _folder_scanned(self, n: int):
        fit_folder_columns(self)  # (the names are known now)
        if n:
            self.folder_view.setCurrentIndex(self.folder_proxy.index(0, 0))
        emit(self.folderScanned, n)

    def _folder_activated(self, index):
        why = self.folders.open_row(index.model().data(index, ObjectRole))
        if why:
            self.statusBar().showMessage(why, 5000)

    # ==========================================================================================
    # editing, copy, find, focus
    def edit_current_value(self):
        view = self.selection.focused_tree()
        if view is not None and view.currentIndex().isValid():
            view.remember_scroll()
            idx = view.currentIndex().siblingAtColumn(1)
            if not idx.flags() & Qt.ItemFlag.ItemIsEditable:  # say why (Qt only warned on stderr)
                self.statusBar().showMessage(views.why_not_editable(self, view, idx), 10000)
                return
            view.setCurrentIndex(idx)
            view.edit(idx)
            view.scrollTo(idx)  # while editing, the view scrolls sideways to show the editor

    def show_raw_editor(self):
        self.raw_dock.show()
        self.raw_dock.raise_()
        self.raw_editor.editors["payload"].setFocus()

    def _view_with_focus(self):
        """The tree, verdicts, digests or bytes view that has (or contains) the keyboard focus."""
        fw = QApplication.focusWidget()
        for v in [p.view for p in self.tree_panes()] + [self.findings_view, self.digests_view,
                                                         self.hex_payload, self.hex_descriptor]:
            if fw is not None and (fw is v or v.isAncestorOf(fw)):
                return v
        return None

    def copy_for_ticket(self) -> None:
        """Verdict bar ▸ Copy for ticket: ``report --format text`` of the open checkpoint on the clipboard."""
        ticket.copy_for_ticket(self)

    def export_report(self) -> None:
        """File ▸ Export Report…: a report in a chosen format (and a redacted payload) to new files."""
        ticket.export_dialog(self)

    def restore_original(self) -> None:
        """File ▸ Restore Original… (and the notice's button): the exported payload, written to a new file when
        its SHA-256 proves it, then opened with its descriptor."""
        dialogs.restore_dialog(self)

    def copy_value(self) -> None:
        """Edit ▸ Copy Value: what Ctrl+C copies in the focused view (else the last tree's value)."""
        self.copier.copy_default(self._view_with_focus() or self.selection.last_tree())

    def copy_pointer(self) -> None:
        """Copy the JSON Pointer of the focused view's item (else of the last tree's row)."""
        loc = self.copier.location(self._view_with_focus() or self.selection.last_tree())
        if loc is not None:
            self.copier.set_text(loc.pointer)

    def find_in_tree(self, text: str, backwards: bool = False) -> None:
        """Find ``text`` in the whole document (in the background; see :mod:`.find`)."""
        self.finder.find(text, backwards)

    def expand_all(self) -> None:
        """Expand the focused tree (below the selected row, else all of it), a slice at a time."""
        view = self.selection.last_tree()
        index = view.currentIndex().siblingAtColumn(0) if self.selection.focused_tree() else None
        if index is not None and not view.model().hasChildren(index):
            index = None  # a leaf has nothing below it: the whole tree (was: nothing happened)
        self.expander.start(view, index)

    def collapse_all(self) -> None:
        self.expander.cancel()
        self.selection.last_tree().collapseAll()

    def focus_pane(self, w):
        """Show the dock holding ``w`` and give it the keyboard focus."""
        if w is None:
            return
        for d in (self.trees_dock, self.bytes_dock, self.digests_dock):
            if d.isAncestorOf(w):
                d.show()
                d.raise_()
        if w in (self.resume_pane.view, self.desc_pane.view):
            self.lower_trees.setCurrentWidget(w.parent().parent())
        w.setFocus()

    # ==========================================================================================
    # drag and drop
    def dragEnterEvent(self, event):
        md = event.mimeData()
        if md.hasUrls() or md.hasText():
            event.acceptProposedAction()  # what cannot be opened is said on drop
        else:
            event.ignore()

    def dragMoveEvent(self, event):
        self.dragEnterEvent(event)

    def dropEvent(self, event):
        """Open what is local in the drop (URIs or text paths) and say why for the rest."""
        paths, why = paths_from_mime(event.mimeData())
        event.acceptProposedAction()
        if not paths:
            self.loader.refuse("Nothing was opened: " + "; ".join(why or ["the drop carries no file"]) + ".",
                               "the dropped item")
            return
        self.open_paths(paths, notes=why)

