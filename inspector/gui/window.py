"""``MainWindow``: layout, actions, background jobs, and the one selection relay.

Every pane reports a selection as a :class:`~inspector.checkpoint.Location`; only
:meth:`MainWindow.relay` forwards it to the other panes (tree -> bytes and verdicts,
bytes -> tree, verdict -> tree and bytes, digest -> descriptor tree and bytes), and it
ignores the echo of its own updates. All parsing and verification happen in jobs
(:mod:`.jobs`, :mod:`.engine`) off the GUI thread; the window only shows their results.
"""

from __future__ import annotations

import dataclasses
import json
import os
from importlib import resources

from PySide6.QtCore import QByteArray, QEvent, QFileSystemWatcher, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QApplication, QDockWidget, QFileDialog, QHeaderView, QLabel, QMainWindow, QMessageBox,
    QProgressBar, QPushButton, QSizePolicy, QSplitter, QTableView, QTabWidget, QToolBar, QTreeView,
    QVBoxLayout, QWidget,
)

from inspector.checkpoint import Location, Verdict

from . import engine, style
from .engine import EDIT_LIMIT, Analysis, Side
from .jobs import Job, start_job
from .models.digests import DigestsModel
from .models.findings import FindingsModel
from .models.folder import FolderModel
from .models.json_tree import JsonTreeModel
from .qtcompat import emit
from .roles import CopyValueRole, LocationRole, ObjectRole, PointerRole
from .widgets.hex_view import HexView
from .widgets.panes import Banner, DigestDetail, FindBar, FindingDetail, RawEditor, TreePane, VerdictHeader, finding_html

__all__ = ["MainWindow", "sample_paths"]

MAX_RECENT = 10


def sample_paths(name: str = "sample") -> list[str]:
    """Paths of a bundled sample pair (``sample``: intact, ``broken``: one byte changed)."""
    base = resources.files("inspector.resources") / "samples"
    return [str(base / f"{name}.payload.json"), str(base / f"{name}.descriptor.json")]


class MainWindow(QMainWindow):
    """The inspector window.

    Args:
        settings: where layout and recent files are remembered (default: the user's settings).

    Signals:
        treesReady(): the trees show the current document (may precede the verdicts).
        analysisReady(): trees, verdicts and digests show the current document.
        loadFailed(str): a load was refused; the message is shown in the window.
        saved(list): Save As wrote these new files.
    """

    treesReady = Signal()
    analysisReady = Signal()
    loadFailed = Signal(str)
    saved = Signal(list)

    def __init__(self, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings or QSettings()
        self.setWindowTitle("Checkpoint Inspector")
        self.setAcceptDrops(True)
        self.payload: Side | None = None
        self.descriptor: Side | None = None
        self.report = None
        self.edited = False
        self.paths: list[str] = []
        self._generation = 0
        self._latest: dict[str, Job] = {}  # the newest job of each lane ("document", "folder")
        self._pending_paths: list[str] = []
        #: (what could not be opened, why) after a failed open, until something is shown.
        self._open_error: tuple[str, str] | None = None
        self._verify_cancelled = False  # a large load was cancelled after its trees were shown
        #: Sandbox edits requested since the documents on screen were computed (applied in order).
        self._pending_edits: list[engine.Edit] = []
        self._edited_sources: set[str] = set()  # documents that differ from the file they came from
        self._unsaved: set[str] = set()  # edited documents not yet written by Save As
        self._jobs: set[Job] = set()
        self._load_job: Job | None = None
        self._folder_job: Job | None = None
        self._relaying = False
        self._shown = None
        self._banners: dict[str, Banner] = {}
        self._stale_paths: set[str] = set()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)

        self._build_models()
        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_status()
        self._connect()
        self._restore_settings()
        self._update_actions()

    # ==========================================================================================
    # construction
    def _build_models(self):
        self.snap_model = JsonTreeModel("payload", exclude={"logical_resume"}, parent=self)
        self.resume_model = JsonTreeModel("payload", include={"logical_resume"}, parent=self)
        self.desc_model = JsonTreeModel("descriptor", parent=self)
        self.findings_model = FindingsModel(self)
        self.digests_model = DigestsModel(self)
        self.folder_model = FolderModel(self)

    def _build_central(self):
        # The overall verdict and the message banners span the whole window (a fixed top bar).
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(4, 2, 4, 2)
        tl.setSpacing(3)
        self.banner_area = QVBoxLayout()
        self.banner_area.setSpacing(3)
        tl.addLayout(self.banner_area)
        self.header = VerdictHeader()
        tl.addWidget(self.header)
        bar = QToolBar("Verdict", self)
        bar.setObjectName("verdictBar")
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.toggleViewAction().setEnabled(False)
        bar.addWidget(top)
        top.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 0, 4, 0)
        self.find_bar = FindBar()
        self.find_bar.hide()
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("verdictSplitter")
        self.findings_view = QTreeView()
        self.findings_view.setObjectName("findingsView")
        self.findings_view.setModel(self.findings_model)
        self.findings_view.setUniformRowHeights(True)
        self.findings_view.setAlternatingRowColors(True)
        self.findings_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.findings_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.findings_view.setAccessibleName("Verdicts")
        self.findings_view.header().setStretchLastSection(True)
        self.findings_view.setColumnWidth(0, 172)
        self.findings_view.setColumnWidth(1, 160)
        self.detail = FindingDetail()
        split.addWidget(self.findings_view)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.verdict_splitter = split
        cap = QLabel("<b>Verdicts</b> — every rule, grouped by stage; the root cause first")
        cap.setContentsMargins(2, 4, 2, 2)
        lay.addWidget(cap)
        lay.addWidget(split, 1)
        self.setCentralWidget(central)

    def _dock(self, title: str, name: str, widget, area) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable
                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, d)
        return d

    def _build_docks(self):
        self.setDockNestingEnabled(True)
        self.snap_pane = TreePane("Payload ▸ snapshot (session, messages, runs, artifacts, subagent tasks)",
                                  self.snap_model)
        self.resume_pane = TreePane("Payload ▸ resume boundary (loop checkpoint)", self.resume_model)
        self.desc_pane = TreePane("Descriptor (outer identity and both evidence blocks)", self.desc_model)
        for pane, name in ((self.snap_pane, "snapshotTree"), (self.resume_pane, "resumeTree"),
                           (self.desc_pane, "descriptorTree")):
            pane.view.setObjectName(name)
            pane.view.setAccessibleName(pane.caption.text())
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.find_bar)
        tree_split = QSplitter(Qt.Orientation.Vertical)
        tree_split.setObjectName("treeSplitter")
        tree_split.addWidget(self.snap_pane)
        self.lower_trees = QTabWidget()
        self.lower_trees.addTab(self.resume_pane, "Resume boundary")
        self.lower_trees.addTab(self.desc_pane, "Descriptor")
        tree_split.addWidget(self.lower_trees)
        tree_split.setStretchFactor(0, 3)
        tree_split.setStretchFactor(1, 2)
        self.tree_splitter = tree_split
        ll.addWidget(tree_split, 1)
        self.trees_dock = self._dock("Trees", "treesDock", left, Qt.DockWidgetArea.LeftDockWidgetArea)

        self.hex_tabs = QTabWidget()
        self.hex_payload = HexView()
        self.hex_payload.setObjectName("payloadBytes")
        self.hex_descriptor = HexView()
        self.hex_descriptor.setObjectName("descriptorBytes")
        self.hex_tabs.addTab(self.hex_payload, "Payload bytes")
        self.hex_tabs.addTab(self.hex_descriptor, "Descriptor bytes")
        self.bytes_dock = self._dock("Bytes", "bytesDock", self.hex_tabs, Qt.DockWidgetArea.RightDockWidgetArea)

        dig = QWidget()
        dl = QVBoxLayout(dig)
        dl.setContentsMargins(0, 0, 0, 0)
        self.digests_view = QTableView()
        self.digests_view.setObjectName("digestsView")
        self.digests_view.setModel(self.digests_model)
        self.digests_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.digests_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.digests_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.digests_view.verticalHeader().setVisible(False)
        self.digests_view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.digests_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.digests_view.horizontalHeader().setStretchLastSection(True)
        self.digests_view.setColumnWidth(0, 200)
        self.digests_view.setColumnWidth(1, 100)
        self.digests_view.setColumnWidth(2, 300)
        self.digests_view.setWordWrap(False)
        self.digests_view.setAccessibleName("Digests")
        self.digest_detail = DigestDetail(HexView)
        dsplit = QSplitter(Qt.Orientation.Vertical)
        dsplit.addWidget(self.digests_view)
        dsplit.addWidget(self.digest_detail)
        dsplit.setStretchFactor(0, 3)
        dsplit.setStretchFactor(1, 2)
        dl.addWidget(dsplit)
        self.digests_dock = self._dock("Digests", "digestsDock", dig, Qt.DockWidgetArea.RightDockWidgetArea)
        self.splitDockWidget(self.bytes_dock, self.digests_dock, Qt.Orientation.Vertical)

        self.raw_editor = RawEditor()
        self.raw_dock = self._dock("Raw text (sandbox)", "rawDock", self.raw_editor,
                                   Qt.DockWidgetArea.BottomDockWidgetArea)
        self.raw_dock.hide()

        self.folder_view = QTableView()
        self.folder_view.setObjectName("folderView")
        self.folder_view.setModel(self.folder_model)
        self.folder_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.folder_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.folder_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.folder_view.verticalHeader().setVisible(False)
        self.folder_view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.folder_view.horizontalHeader().setStretchLastSection(True)
        self.folder_view.setColumnWidth(0, 300)
        self.folder_view.setColumnWidth(1, 300)
        self.folder_view.setAccessibleName("Checkpoints in folder")
        self.folder_dock = self._dock("Folder", "folderDock", self.folder_view, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.folder_dock.hide()
        self._default_state = None
        self._sized = False

    def _default_dock_sizes(self):
        w = self.width()
        self.resizeDocks([self.trees_dock, self.bytes_dock], [int(w * 0.34), int(w * 0.29)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.bytes_dock, self.digests_dock], [int(self.height() * 0.45), int(self.height() * 0.45)],
                         Qt.Orientation.Vertical)

    def showEvent(self, event):
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            if not self._restored_state:
                self._default_dock_sizes()
                self._default_state = self.saveState()

    def _act(self, menu, text, slot, shortcut=None, name=None) -> QAction:
        a = QAction(text, self)
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
                    a.setText(text + "\t" + ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                                                      for k in seqs))
            else:
                a.setShortcut(QKeySequence(shortcut))
        a.triggered.connect(slot)
        if name:
            a.setObjectName(name)
        menu.addAction(a)
        return a

    def _build_actions(self):
        mb = self.menuBar()
        m = mb.addMenu("&File")
        self.act_open = self._act(m, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open, "open")
        self._act(m, "Open &Folder…", self.open_folder_dialog, "Ctrl+Shift+O", "openFolder")
        self.recent_menu = m.addMenu("Open &Recent")
        sm = m.addMenu("Open &Sample")
        self._act(sm, "Intact checkpoint (verifies)", lambda: self.open_paths(sample_paths("sample")))
        self._act(sm, "Broken checkpoint (one byte changed)", lambda: self.open_paths(sample_paths("broken")))
        m.addSeparator()
        self.act_save = self._act(m, "Save Payload &As…", self.save_dialog, QKeySequence.StandardKey.SaveAs, "saveAs")
        self.act_save_desc = self._act(m, "Save &Descriptor As…", self.save_descriptor_dialog, None, "saveDescriptor")
        m.addSeparator()
        self.act_reload = self._act(m, "&Reload from Disk", self.reload,
                                    [QKeySequence(QKeySequence.StandardKey.Refresh).toString() or "F5", "Ctrl+R"],
                                    "reload")
        self.act_discard = self._act(m, "Discard &Edits", self.discard_edits, None, "discard")
        m.addSeparator()
        self._act(m, "&Quit", self.close, QKeySequence.StandardKey.Quit, "quit")

        e = mb.addMenu("&Edit")
        self.act_copy = self._act(e, "&Copy Value", self.copy_value, QKeySequence.StandardKey.Copy, "copyValue")
        self.act_copy.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_copy_ptr = self._act(e, "Copy JSON &Pointer", self.copy_pointer, "Ctrl+Shift+C", "copyPointer")
        e.addSeparator()
        self._act(e, "&Find in Tree…", self.find_bar.open, QKeySequence.StandardKey.Find, "find")
        self._act(e, "Find &Next", lambda: self.find_in_tree(self.find_bar.edit.text(), False),
                  QKeySequence.StandardKey.FindNext, "findNext")
        self._act(e, "Find Pre&vious", lambda: self.find_in_tree(self.find_bar.edit.text(), True),
                  QKeySequence.StandardKey.FindPrevious, "findPrevious")
        e.addSeparator()
        self.act_edit_value = self._act(e, "&Edit Value", self.edit_current_value, "F2", "editValue")
        self.act_raw = self._act(e, "Edit &Raw Text…", self.show_raw_editor, "Ctrl+E", "rawText")

        g = mb.addMenu("&Go")
        self.act_next_failure = self._act(g, "&Next Failure", lambda: self.goto_failure(+1), "F8", "nextFailure")
        self.act_prev_failure = self._act(g, "&Previous Failure", lambda: self.goto_failure(-1), "Shift+F8",
                                          "previousFailure")
        self._act(g, "&Root Cause", self.goto_root_cause, "Ctrl+F8", "rootCause")
        g.addSeparator()
        self._act(g, "Snapshot Tree", lambda: self._focus(self.snap_pane.view), "Alt+1")
        self._act(g, "Resume Boundary Tree", lambda: self._focus(self.resume_pane.view), "Alt+2")
        self._act(g, "Descriptor Tree", lambda: self._focus(self.desc_pane.view), "Alt+3")
        self._act(g, "Verdicts", lambda: self._focus(self.findings_view), "Alt+4")
        self._act(g, "Digests", lambda: self._focus(self.digests_view), "Alt+5")
        self._act(g, "Bytes", lambda: self._focus(self.hex_tabs.currentWidget()), "Alt+6")

        v = mb.addMenu("&View")
        for d in (self.trees_dock, self.bytes_dock, self.digests_dock, self.raw_dock, self.folder_dock):
            v.addAction(d.toggleViewAction())
        v.addSeparator()
        self._act(v, "Reset &Layout", self.reset_layout, None, "resetLayout")

        h = mb.addMenu("&Help")
        self._act(h, "&About Checkpoint Inspector", self._about)
        self._act(h, "&Keyboard Shortcuts", self._shortcuts_help, QKeySequence.StandardKey.HelpContents)
        self._rebuild_recent_menu()

    def _build_status(self):
        sb = self.statusBar()
        self.status_icon = QLabel()
        self.status_label = QLabel("No checkpoint open")
        self.status_label.setAccessibleName("Overall verdict")
        sb.addWidget(self.status_icon)
        sb.addWidget(self.status_label, 1)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setRange(0, 100)
        self.progress.setTextVisible(True)
        self.progress_label = QLabel("")
        # A fixed width: a label that resizes with its text relayouts the status bar on every update.
        self.progress_label.setFixedWidth(self.progress_label.fontMetrics().horizontalAdvance("M" * 30))
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop loading (Esc)")
        self.cancel_button.clicked.connect(self.cancel_load)
        for w in (self.progress_label, self.progress, self.cancel_button):
            sb.addPermanentWidget(w)
            w.hide()

    def _connect(self):
        for pane in (self.snap_pane, self.resume_pane, self.desc_pane):
            pane.view.selectionModel().currentChanged.connect(
                lambda cur, prev, v=pane.view: self._tree_current_changed(v, cur))
            pane.model.editRequested.connect(self.request_edit)
            pane.model.modelReset.connect(lambda v=pane.view: v.selectionModel() and None)
        self.findings_view.selectionModel().currentChanged.connect(self._finding_current_changed)
        self.digests_view.selectionModel().currentChanged.connect(self._digest_current_changed)
        self.hex_payload.offsetActivated.connect(lambda off: self._hex_clicked("payload", off))
        self.hex_descriptor.offsetActivated.connect(lambda off: self._hex_clicked("descriptor", off))
        self.detail.locationClicked.connect(self._detail_location)
        self.detail.ruleClicked.connect(self.select_rule)
        self.header.button.clicked.connect(self.goto_root_cause)
        self.find_bar.search.connect(self.find_in_tree)
        self.raw_editor.textEdited.connect(self.request_raw_edit)
        self.folder_view.activated.connect(self._folder_activated)
        self.folder_view.doubleClicked.connect(self._folder_activated)

    # ==========================================================================================
    # settings, layout, recent files
    def _restore_settings(self):
        geo = self.settings.value("window/geometry")
        if isinstance(geo, (QByteArray, bytes)):
            self.restoreGeometry(geo)
        else:
            screen = QApplication.primaryScreen()
            avail = screen.availableGeometry() if screen is not None else None
            if avail is not None and avail.width() > 0:
                self.resize(min(1560, avail.width() - 40), min(960, avail.height() - 40))
            else:
                self.resize(1500, 920)
        state = self.settings.value("window/state")
        self._restored_state = isinstance(state, (QByteArray, bytes)) and self.restoreState(state)
        for key, split in (("window/treeSplitter", self.tree_splitter), ("window/verdictSplitter", self.verdict_splitter)):
            s = self.settings.value(key)
            if isinstance(s, (QByteArray, bytes)):
                split.restoreState(s)

    def save_settings(self) -> None:
        """Remember geometry, dock layout and splitter positions."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/treeSplitter", self.tree_splitter.saveState())
        self.settings.setValue("window/verdictSplitter", self.verdict_splitter.saveState())
        self.settings.sync()

    def reset_layout(self) -> None:
        """Restore the default dock layout."""
        for d in (self.trees_dock, self.bytes_dock, self.digests_dock):
            d.setFloating(False)
            d.show()
        self.raw_dock.hide()
        self._default_dock_sizes()

    def recent(self) -> list[list[str]]:
        """Recently opened path sets, newest first."""
        raw = self.settings.value("recent", "[]")
        try:
            items = json.loads(raw) if isinstance(raw, str) else []
        except ValueError:
            items = []
        return [i for i in items if isinstance(i, list) and all(isinstance(p, str) for p in i)]

    def _add_recent(self, paths: list[str]) -> None:
        paths = [os.path.abspath(p) for p in paths]
        items = [i for i in self.recent() if i != paths]
        items.insert(0, paths)
        self.settings.setValue("recent", json.dumps(items[:MAX_RECENT]))
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self):
        self.recent_menu.clear()
        items = self.recent()
        for i, paths in enumerate(items):
            label = " + ".join(os.path.basename(p) for p in paths)
            a = self.recent_menu.addAction(f"&{i + 1} {label}" if i < 9 else label)
            a.setToolTip("\n".join(paths))
            a.triggered.connect(lambda _=False, p=paths: self.open_paths(p))
        if not items:
            a = self.recent_menu.addAction("(none)")
            a.setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear Recent", self._clear_recent)

    def _clear_recent(self):
        self.settings.setValue("recent", "[]")
        self._rebuild_recent_menu()

    def closeEvent(self, event):
        if self.edited and not self._confirm_discard():
            event.ignore()
            return
        self.cancel_load()
        self.save_settings()
        super().closeEvent(event)

    # ==========================================================================================
    # banners and status
    def show_banner(self, key: str, kind: str, text: str, actions=()) -> Banner:
        """Show (or replace) the message banner ``key``."""
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

    def _update_verdict_display(self):
        saved = None
        if self.edited and not self._unsaved:
            saved = ", ".join(os.path.basename(s.path) for s in (self.payload, self.descriptor)
                              if s is not None and s.source in self._edited_sources and s.path)
        text, verdict = style.overall_text(self.report, self.edited, saved_as=saved)
        if self.report is None and self._verify_cancelled:
            text, verdict = "Loading cancelled: the trees show the file, but it was not verified", Verdict.NOT_REACHED
        nothing = self.payload is None and self.descriptor is None
        if nothing:
            text, verdict = "No checkpoint open — drop a payload and its descriptor here, or use File ▸ Open", \
                Verdict.NOT_APPLICABLE
        subtitle = self._subtitle()
        notice = ""
        status = text
        if self._open_error is not None:
            what, why = self._open_error
            if nothing:
                text, verdict = f"Nothing open — {what} could not be opened", Verdict.FAIL
                subtitle = f"{why}. Use File ▸ Open, File ▸ Open Sample, or drop a payload and its descriptor here."
                status = f"Nothing open: {what} could not be opened"
            else:
                notice = f"Could not open {what}: {why}. Still showing the checkpoint below."
                status = f"Could not open {what}; still showing: {text}"
        self.header.set_verdict(text, verdict, self.report is not None and self.report.root_cause is not None,
                                subtitle, notice)
        self.status_icon.setPixmap(style.icon(verdict).pixmap(16, 16))
        short = status if len(status) < 160 else status[:157] + "…"
        self.status_label.setText(short)
        self.status_label.setToolTip(status)
        names = []
        for side in (self.payload, self.descriptor):
            if side is not None and side.path:
                names.append(os.path.basename(side.path))
        title = " + ".join(names) or "Checkpoint Inspector"
        if self.edited:
            title = "*" + title + " (edited, unsaved)"
        self.setWindowTitle(f"{title} — Checkpoint Inspector")

    def is_sample(self) -> bool:
        """True when the window shows one of the bundled sample checkpoints (not the user's files)."""
        samples = {os.path.normcase(os.path.abspath(p)) for n in ("sample", "broken") for p in sample_paths(n)}
        sides = [s for s in (self.payload, self.descriptor) if s is not None]
        return bool(sides) and all(s.path and os.path.normcase(os.path.abspath(s.path)) in samples for s in sides)

    def _subtitle(self) -> str:
        """Inputs, digest agreement and rule counts in one line under the verdict."""
        parts = []
        if self.is_sample():
            parts.append("bundled sample — File ▸ Open or drop your own files")
        for side in (self.payload, self.descriptor):
            if side is not None:
                name = os.path.basename(side.path) if side.path else "(sandbox)"
                parts.append(f"{side.source} {name} ({side.size:,} bytes)")
        r = self.report
        if r is not None:
            rows = r.digests
            bad = sum(1 for d in rows if d.matches is False)
            known = sum(1 for d in rows if d.matches is not None)
            parts.append(f"digests: {known - bad} of {known} match" + (f", {bad} MISMATCH" if bad else ""))
            counts = {}
            for f in r.findings:
                counts[f.verdict] = counts.get(f.verdict, 0) + 1
            parts.append(" · ".join(f"{n} {style.label(v)}" for v, n in counts.items()))
        return "   —   ".join(parts)

    def _update_actions(self):
        has_payload = self.payload is not None and self.payload.data is not None
        self.act_save.setEnabled(has_payload)
        self.act_save_desc.setEnabled(self.descriptor is not None and self.descriptor.data is not None
                                      or (self.report is not None and self.report.expected_descriptor is not None))
        self.act_discard.setEnabled(self.edited)
        self.act_reload.setEnabled(bool(self.paths))

    def _set_busy(self, busy: bool, text: str = "", pct: int = -1):
        """Show or hide the progress label, bar and Cancel button (cheap when nothing changed)."""
        if busy != self.cancel_button.isVisible():
            for w in (self.progress_label, self.progress, self.cancel_button):
                w.setVisible(busy)
        if not busy:
            return
        if text != self.progress_label.text():
            self.progress_label.setText(text)
        if pct < 0:
            if self.progress.maximum() != 0:
                self.progress.setRange(0, 0)
        else:
            if self.progress.maximum() != 100:
                self.progress.setRange(0, 100)
            if pct != self.progress.value():
                self.progress.setValue(pct)

    # ==========================================================================================
    # opening
    def open_dialog(self):
        start = os.path.dirname(self.paths[0]) if self.paths else ""
        paths, _ = QFileDialog.getOpenFileNames(self, "Open checkpoint payload and/or descriptor", start,
                                                "JSON files (*.json);;All files (*)")
        if paths:
            self.open_paths(paths)

    def open_folder_dialog(self):
        folder = QFileDialog.getExistingDirectory(self, "Open a folder of checkpoints")
        if folder:
            self.open_paths([folder])

    def open_sample(self) -> None:
        """Open the bundled intact sample (what a first run shows)."""
        self.open_paths(sample_paths("sample"))

    def open_paths(self, paths: list[str]) -> bool:
        """Open one or two files, or one folder. Returns False when refused (message shown)."""
        paths = [str(p) for p in paths]
        if not paths:
            return False
        if len(paths) == 1 and os.path.isdir(paths[0]):
            self.open_folder(paths[0])
            return True
        if any(os.path.isdir(p) for p in paths):
            return self._refuse("Drop either one folder or one or two files, not a mix.")
        if len(paths) > 2:
            return self._refuse(f"{len(paths)} files were given; open one payload and its descriptor "
                                "(or drop the folder that holds them).")
        if self.edited and not self._confirm_discard():
            return False
        self._start_load(paths)
        return True

    def _refuse(self, text: str) -> bool:
        self._open_error = ("the dropped files", text.rstrip("."))
        self._update_verdict_display()
        self.show_banner("error", "error", text)
        emit(self.loadFailed, text)
        return False

    def _confirm_discard(self) -> bool:
        if QApplication.platformName() == "offscreen" or os.environ.get("CHECKPOINT_INSPECTOR_NO_DIALOGS"):
            return True
        r = QMessageBox.question(self, "Discard edits?", "The edited checkpoint has not been saved. Discard it?",
                                 QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        return r == QMessageBox.StandardButton.Discard

    def _new_job(self, fn, name: str = "background job", lane: str = "document") -> Job:
        """A job that supersedes the previous one of its ``lane``: ``document`` (loads and edit
        recomputes: each replaces what the window shows) or ``folder`` (folder scans)."""
        self._generation += 1
        job = Job(fn, self._generation, name)
        job.lane = lane
        self._latest[lane] = job
        self._jobs.add(job)
        job.signals.finished.connect(lambda *_: self._jobs.discard(job))
        job.signals.failed.connect(lambda *_: self._jobs.discard(job))
        job.signals.cancelled.connect(lambda *_: self._jobs.discard(job))
        return job

    def _current(self, job: Job) -> bool:
        return self._latest.get(job.lane) is job

    def _doc_generation(self) -> int:
        job = self._latest.get("document")
        return job.generation if job is not None else 0

    def _start_load(self, paths: list[str]):
        self._cancel(self._load_job)  # a folder scan may go on (its rows can still be opened)
        self._pending_edits.clear()
        job = self._new_job(lambda ctx: engine.load_paths(paths, progress=ctx.progress, partial=ctx.partial,
                                                          cancel=ctx.cancelled), "opening the files")
        self._load_job = job
        self._pending_paths = list(paths)
        job.signals.progress.connect(lambda pct, text, j=job: self._current(j) and self._set_busy(True, text, pct))
        job.signals.partial.connect(lambda a, j=job: self._current(j) and self._apply(a, paths, partial=True))
        job.signals.finished.connect(lambda a, j=job: self._current(j) and self._apply(a, paths))
        job.signals.failed.connect(lambda msg, j=job: self._current(j) and self._load_failed(msg))
        job.signals.cancelled.connect(lambda j=job: self._current(j) and self._load_cancelled())
        self._set_busy(True, "Opening…", -1)
        names = " + ".join(os.path.basename(p) for p in paths)
        self.header.set_verdict(f"Opening {names}…", Verdict.NOT_REACHED, False)
        self.status_label.setText(f"Opening {names}…")
        start_job(job)

    def cancel_load(self) -> None:
        """Cancel a running load (worker processes are terminated)."""
        self._cancel(self._load_job)
        self._cancel(self._folder_job)

    def _cancel(self, job: Job | None) -> bool:
        """Cancel ``job`` if it is still running; True if it was."""
        if job is not None and job in self._jobs:
            job.cancel()
            return True
        return False

    def _load_failed(self, msg: str, what: str | None = None):
        """A load (or folder scan) failed: say so in the banner *and* the verdict bar, which
        keeps the verdict of whatever is still on screen (or says that nothing is open)."""
        self._load_job = None
        self._set_busy(False)
        if what is None:
            what = " + ".join(os.path.basename(p) for p in self._pending_paths) or "the files"
        self._open_error = (what, msg.rstrip("."))
        self.show_banner("error", "error", msg)
        self._update_verdict_display()
        emit(self.loadFailed, msg)

    def _load_cancelled(self):
        self._load_job = None
        self._set_busy(False)
        self._after_abandoned_load()
        self.show_banner("info", "info", "Loading was cancelled.")

    def _after_abandoned_load(self):
        """The verdict bar after a load stopped early: the trees of a large load may already show
        the new file (then it says it was not verified), otherwise the previous checkpoint's verdict."""
        if self.report is None and (self.payload is not None or self.descriptor is not None):
            self._verify_cancelled = True
        self._update_verdict_display()

    def reload(self) -> None:
        """Re-read the input files from disk (discarding edits after confirmation)."""
        if not self.paths:
            return
        if self.edited and not self._confirm_discard():
            return
        self.edited = False
        self._start_load(list(self.paths))

    def discard_edits(self) -> None:
        """Drop the sandbox edits and show the files as they are on disk."""
        if self.edited:
            self.edited = False
            self._start_load(list(self.paths))

    # ==========================================================================================
    # applying results
    def _apply(self, a: Analysis, paths: list[str] | None, *, partial: bool = False, edited: bool = False,
               keep_view: bool = False, from_raw=()):
        """Show an analysis: trees and bytes (always), verdicts and digests (when complete).

        A partial result (large payload: trees ready, verification still running) is shown in
        three event-loop turns (trees, then default expansion, then the cleared verdicts), so no
        single turn keeps the window from repainting for long.
        """
        views = self._capture_views() if keep_view else None
        self.payload, self.descriptor = a.payload, a.descriptor
        self.report = a.report
        self._open_error = None
        self._verify_cancelled = False
        if paths is not None:
            self._edited_sources.clear()
            self._unsaved.clear()
        if paths is not None and not partial:
            self.edited = False
        if edited:
            self.edited = True
        shown = tuple((id(x.data), id(x.index), x.parse_error) if x is not None else None
                      for x in (a.payload, a.descriptor))
        if shown != self._shown or paths is None:
            # New documents. (The final result of a large load reuses the partial one's trees,
            # so the user's expansion and selection survive the arrival of the verdicts.)
            self._shown = shown
            self._show_side("payload", a.payload)
            self._show_side("descriptor", a.descriptor)
            if "payload" not in from_raw:
                self.raw_editor.set_text("payload", a.payload.data if a.payload else None)
            if "descriptor" not in from_raw:
                self.raw_editor.set_text("descriptor", a.descriptor.data if a.descriptor else None)
            if partial:
                gen = self._doc_generation()

                def step2():
                    if gen == self._doc_generation() and self.report is None:
                        self._expand_defaults()
                        emit(self.treesReady)
                    QTimer.singleShot(0, step3)

                def step3():
                    if gen == self._doc_generation() and self.report is None:
                        self._set_report(None)
                        self._update_verdict_display()
                    if a.shown is not None:
                        a.shown.set()
                QTimer.singleShot(0, step2)
                return
            if views is not None:
                self._restore_views(views)
                view = self._last_tree()
                if view.currentIndex().isValid():
                    self.relay(view.model().data(view.currentIndex(), LocationRole), "tree")
            else:
                self._expand_defaults()
            emit(self.treesReady)
        self._set_report(a.report)
        if not partial:
            self._load_job = None
            self._set_busy(False)
            if paths is not None:
                self.paths = list(paths)
                self._watch(paths)
                self._add_recent(paths)
                self.clear_banner("stale")
                self.clear_banner("error")
                self.clear_banner("info")
                self.folder_dock.setVisible(self.folder_model.rowCount() > 0)
            for w in a.warnings:
                self.show_banner("stale", "stale", w, [("Reload", self.reload)])
            if self.edited:
                self.show_banner("edited", "edited",
                                 "EDITED — this is an unsaved sandbox copy; the files on disk are unchanged. "
                                 "Every digest and verdict below is for the edited artifact.",
                                 [("Save As…", self.save_dialog), ("Discard Edits", self.discard_edits)])
            else:
                self.clear_banner("edited")
            self._show_hints()
            if not keep_view and a.report is not None and a.report.root_cause is not None:
                self.goto_root_cause()  # show where it failed right away
        self._update_verdict_display()
        self._update_actions()
        if not partial:
            emit(self.analysisReady)

    def _show_hints(self):
        hints = []
        for side in (self.payload, self.descriptor):
            if side is not None and side.hint and side.data is not None:
                hints.append(f"{side.source} {os.path.basename(side.path or '')}: {side.hint}.")
        if self.payload is None and self.descriptor is not None:
            hints.append("Only a descriptor was given: its own fields are checked; open the payload too to verify.")
        elif self.descriptor is None and self.payload is not None:
            hints.append("Only a payload was given: it is checked on its own; open its descriptor too to verify.")
        if hints:
            self.show_banner("hint", "info", " ".join(hints))
        else:
            self.clear_banner("hint")

    def _show_side(self, source: str, side: Side | None):
        hexv = self.hex_payload if source == "payload" else self.hex_descriptor
        panes = (self.snap_pane, self.resume_pane) if source == "payload" else (self.desc_pane,)
        if side is None:
            hexv.set_data(None, f"No {source} open.")
            for p in panes:
                p.model.clear()
                p.show_message(f"No {source} open. Drop the {source} file here or use File ▸ Open.")
            return
        placeholder = side.hint or "not read"
        hexv.set_data(side.data, f"The {source} was not read: {placeholder}.")
        editable = side.data is not None and side.size <= EDIT_LIMIT
        for p in panes:
            if side.tree_ok:
                p.model.set_document(side.data, side.index, editable=editable)
                p.show_tree()
                if not p.model.rowCount():
                    what = "resume boundary (logical_resume)" if p is self.resume_pane else "content"
                    p.show_message(f"This {source} has no {what}.")
            else:
                p.model.clear()
                if side.data is None:
                    p.show_message(f"The {source} file was not read: {placeholder}. Its size alone decides the "
                                   "verdict; see the verdicts.")
                elif side.parse_error:
                    msg, off = side.parse_error
                    where = f" The bytes view marks byte {off}." if off is not None else ""
                    p.show_message(f"The {source} is not valid JSON, so no tree can be shown: {msg}.{where} "
                                   "The bytes are shown as read.")
                    if off is not None:
                        hexv.set_mark(min(off, max(len(side.data) - 1, 0)))
                else:
                    p.show_message(f"Reading the {source}…")
        self._update_captions()

    def _update_captions(self):
        """Tree captions: file name and size, and "(edited)" on the documents that were edited."""
        for source, side, panes in (("payload", self.payload, (self.snap_pane, self.resume_pane)),
                                    ("descriptor", self.descriptor, (self.desc_pane,))):
            if side is None:
                continue
            name = os.path.basename(side.path) if side.path else "(sandbox)"
            size = f"{side.size:,} bytes"
            captions = {
                self.snap_pane: f"<b>Snapshot</b> — {name}, {size}",
                self.resume_pane: f"<b>Resume boundary</b> — {name} /logical_resume",
                self.desc_pane: f"<b>Descriptor</b> — {name}, {size}",
            }
            for p in panes:
                p.caption.setText(captions[p] + (" <i>(edited)</i>" if source in self._edited_sources else ""))

    def _expand_defaults(self):
        for view, model, ptrs in ((self.snap_pane.view, self.snap_model, ("/snapshot", "/snapshot/session")),
                                  (self.resume_pane.view, self.resume_model, ("/logical_resume",)),
                                  (self.desc_pane.view, self.desc_model, ("/snapshot", "/logical_resume"))):
            for p in ptrs:
                idx = model.index_for_pointer(p)
                if idx.isValid():
                    view.expand(idx)

    def _set_report(self, report):
        self.findings_model.set_report(report)
        for r in range(self.findings_model.group_rows()):
            self.findings_view.setFirstColumnSpanned(r, QModelIndex(), True)
        self.digests_model.set_report(report)
        self.digest_detail.clear()
        self.findings_view.expandAll()
        if report is None:
            self.detail.setHtml("<p>Verifying…</p>" if self.payload or self.descriptor else "")
            for m in (self.snap_model, self.resume_model, self.desc_model):
                m.set_markers({})
            return
        markers = {"payload": {}, "descriptor": {}}
        for f in report.failed():
            for loc in f.locations:
                markers.setdefault(loc.source, {})[loc.pointer] = Verdict.FAIL
        self.snap_model.set_markers(markers["payload"])
        self.resume_model.set_markers(markers["payload"])
        self.desc_model.set_markers(markers["descriptor"])
        rc = report.root_cause
        if rc is not None:
            self.detail.setHtml(finding_html(rc, report))
            idx = self.findings_model.index_for_rule(rc.rule.id)
            self.findings_view.selectionModel().blockSignals(True)
            self.findings_view.setCurrentIndex(idx)
            self.findings_view.selectionModel().blockSignals(False)
        elif report.verified:
            self.detail.setHtml("<h3>All rules pass</h3><p>The reference accepts this checkpoint: every digest "
                                "matches and every rule that applies passes.</p>")
        else:
            self.detail.setHtml("<p>No rule failed. Select a rule to see what it checks.</p>")

    def _capture_views(self):
        state = {}
        for pane in (self.snap_pane, self.resume_pane, self.desc_pane):
            view, model = pane.view, pane.model
            expanded = []

            def walk(parent):
                for r in range(model.rowCount(parent)):
                    idx = model.index(r, 0, parent)
                    if view.isExpanded(idx):
                        expanded.append(model.data(idx, PointerRole))
                        walk(idx)
            walk(QModelIndex())
            cur = view.currentIndex()
            state[pane] = (expanded, model.data(cur, PointerRole) if cur.isValid() else None,
                           view.verticalScrollBar().value())
        return state

    def _restore_views(self, state):
        for pane, (expanded, current, scroll) in state.items():
            view, model = pane.view, pane.model
            for p in expanded:
                idx = model.index_for_pointer(p)
                if idx.isValid():
                    view.expand(idx)
            if current:
                idx = model.index_for_pointer(current)
                if idx.isValid():
                    view.selectionModel().blockSignals(True)
                    view.setCurrentIndex(idx)
                    view.selectionModel().blockSignals(False)
            view.verticalScrollBar().setValue(scroll)

    # ==========================================================================================
    # folders
    def open_folder(self, folder: str) -> None:
        """List every checkpoint in ``folder`` with its verdict (double-click one to open it).

        A load still running is cancelled first (its worker processes are terminated).
        """
        running = self._cancel(self._load_job)
        self._cancel(self._folder_job)
        self._load_job = None
        if running:
            self._after_abandoned_load()  # no "Opening …" left behind
        self.folder_model.reset(folder)
        self.folder_dock.setWindowTitle(f"Folder — {folder}")
        was_visible = self.folder_dock.isVisible()
        self.folder_dock.show()
        if not was_visible:
            self.resizeDocks([self.folder_dock], [max(160, self.height() // 5)], Qt.Orientation.Vertical)
        self.folder_dock.raise_()
        job = self._new_job(lambda ctx: engine.scan_folder(folder, progress=ctx.progress, partial=ctx.partial,
                                                           cancel=ctx.cancelled), "scanning the folder", "folder")
        self._folder_job = job
        job.signals.progress.connect(lambda pct, text, j=job: self._current(j) and self._set_busy(True, text, pct))
        job.signals.partial.connect(lambda row, j=job: self._current(j) and self.folder_model.add_row(row))
        job.signals.finished.connect(lambda rows, j=job: self._current(j) and self._folder_done(folder, rows))
        job.signals.failed.connect(lambda msg, j=job: self._current(j) and self._folder_failed(
            msg, os.path.basename(folder.rstrip(os.sep)) or folder))
        job.signals.cancelled.connect(lambda j=job: self._current(j) and self._folder_cancelled())
        self._set_busy(True, f"Scanning {folder}…", -1)
        start_job(job)

    folderScanned = Signal(int)

    def _folder_failed(self, msg: str, what: str):
        self._folder_job = None
        self._set_busy(False)
        self._open_error = (what, msg.rstrip("."))
        self.show_banner("error", "error", msg)
        self._update_verdict_display()
        emit(self.loadFailed, msg)

    def _folder_cancelled(self):
        self._folder_job = None
        self._set_busy(False)
        self.show_banner("info", "info", "The folder scan was cancelled; the rows found so far are listed.")

    def _folder_done(self, folder, rows):
        """Summarise a folder scan; ``folderScanned`` carries the number of checkpoints (not
        counting the files that are not checkpoints, which are listed last)."""
        self._folder_job = None
        self._set_busy(False)
        checkpoints = [r for r in rows if r.checkpoint]
        others = [r for r in rows if not r.checkpoint]
        bad = sum(1 for r in checkpoints if not r.verified)
        if others:
            names = ", ".join(os.path.basename(r.other) for r in others[:3]) + (", …" if len(others) > 3 else "")
            other_text = (" 1 other file is not a checkpoint" if len(others) == 1 else
                          f" {len(others)} other files are not checkpoints") + f" ({names})."
        else:
            other_text = ""
        if not checkpoints:
            self.show_banner("info", "info",
                             f"No checkpoint payload or descriptor was found in {folder}.{other_text}")
        else:
            self.show_banner("info", "info",
                             f"{len(checkpoints)} checkpoint(s) in {folder}: {len(checkpoints) - bad} verified, "
                             f"{bad} not verified.{other_text} Double-click one to open it.")
            self.folder_view.setCurrentIndex(self.folder_model.index(0, 0))
        emit(self.folderScanned, len(checkpoints))

    def _folder_activated(self, index):
        row = self.folder_model.data(index, ObjectRole)
        if row is None:
            return
        if not row.checkpoint:
            self.statusBar().showMessage(f"{os.path.basename(row.other)} is not a checkpoint: {row.summary}", 5000)
            return
        self.open_paths([p for p in (row.payload, row.descriptor) if p])

    # ==========================================================================================
    # editing (sandbox)
    def request_edit(self, source: str, pointer: str, span, kind: str, text: str) -> None:
        """Replace one scalar in the sandbox copy; recomputed off the GUI thread.

        ``span`` is the value's span in the document on screen. Edits requested before the
        previous recompute landed are kept: every recompute applies all pending edits in order.
        """
        self._queue_edit(engine.Edit("value", source, pointer, tuple(span), kind, text),
                         f"Recomputing after editing {source} {pointer}…")

    def request_raw_edit(self, source: str, text: str) -> None:
        """Replace a whole document with the raw editor's text; recomputed off the GUI thread."""
        data = text.encode("utf-8")
        current = self.payload if source == "payload" else self.descriptor
        if not self._pending_edits and current is not None and current.data == data:
            return
        self._queue_edit(engine.Edit("raw", source, data=data), "Recomputing…")

    editFailed = Signal(str)

    def _queue_edit(self, edit: engine.Edit, text: str) -> None:
        """Add ``edit`` to the pending ones and recompute them all from the documents on screen
        (the engine encodes values, so even a small edit is applied off the GUI thread). A newer
        request supersedes this job, but not its edits: they are part of the newer one."""
        self._pending_edits.append(edit)
        edits = list(self._pending_edits)
        payload, descriptor = self.payload, self.descriptor
        # The raw editor keeps its text for a document whose last edit came from it (the user is typing there).
        last = {e.source: e.op for e in edits}
        from_raw = {src for src, op in last.items() if op == "raw"}
        job = self._new_job(lambda ctx: engine.apply_edits(payload, descriptor, edits), "recomputing after an edit")
        job.signals.finished.connect(lambda a, j=job: self._current(j) and self._edits_done(a, from_raw))
        job.signals.failed.connect(lambda msg, j=job: self._current(j) and self._edit_failed(msg))
        self.status_label.setText(text)
        start_job(job)

    def _edits_done(self, a: Analysis, from_raw):
        self._pending_edits.clear()
        self._edited_sources |= a.edited_sources
        self._unsaved |= a.edited_sources
        self.clear_banner("error")
        self._apply(a, None, edited=True, keep_view=True, from_raw=from_raw)
        for msg in a.edit_errors:
            self._edit_failed(msg)

    def _edit_failed(self, msg):
        self._pending_edits.clear()
        self.show_banner("error", "error", f"The edit was not applied: {msg}")
        emit(self.editFailed, msg)

    def edit_current_value(self):
        view = self._focused_tree()
        if view is not None and view.currentIndex().isValid():
            idx = view.currentIndex().siblingAtColumn(1)
            view.setCurrentIndex(idx)
            view.edit(idx)

    def show_raw_editor(self):
        self.raw_dock.show()
        self.raw_dock.raise_()
        self.raw_editor.editors["payload"].setFocus()

    # ==========================================================================================
    # saving (never over an input file, never over any existing file)
    def _check_new_path(self, path: str) -> None:
        inputs = [s.path for s in (self.payload, self.descriptor) if s is not None and s.path] + list(self.paths)
        if os.path.exists(path):
            for p in inputs:
                if os.path.exists(p) and os.path.samefile(p, path):
                    raise engine.UserError(f"{path} is an input file; the inspector never overwrites its inputs. "
                                           "Choose a new file name.")
            raise engine.UserError(f"{path} already exists; choose a new file name (nothing is ever overwritten).")

    def save_payload_as(self, path: str, descriptor_path: str | None = None) -> list[str]:
        """Write the current payload bytes (edited or not) to a new file, and optionally the descriptor
        that matches them (the engine's ``expected_descriptor``).

        Raises:
            engine.UserError: the path exists or is an input, or no matching descriptor can be
            produced because the payload does not decode (the message says why).
        """
        if self.payload is None or self.payload.data is None:
            raise engine.UserError("There is no payload to save.")
        self._check_new_path(path)
        desc = None
        if descriptor_path is not None:
            self._check_new_path(descriptor_path)
            if os.path.abspath(descriptor_path) == os.path.abspath(path):
                raise engine.UserError("Choose two different file names for the payload and the descriptor.")
            desc = self.report.expected_descriptor if self.report is not None else None
            if desc is None:
                why = ""
                if self.report is not None and self.report.root_cause is not None:
                    rc = self.report.root_cause
                    why = f" ({rc.rule.id}: {rc.message})"
                raise engine.UserError("No descriptor can be produced: the payload does not decode as a "
                                       f"checkpoint payload{why}. Fix the payload first.")
        written = []
        with open(path, "xb") as fh:
            fh.write(self.payload.data)
        written.append(path)
        if desc is not None:
            with open(descriptor_path, "xb") as fh:
                fh.write(desc)
            written.append(descriptor_path)
        self._after_save(written, {"payload": path}, matching=descriptor_path if desc is not None else None)
        emit(self.saved, written)
        return written

    def save_descriptor_as(self, path: str, *, matching: bool = False) -> str:
        """Write the current descriptor (or, with ``matching``, the one the payload should have) to a new file."""
        self._check_new_path(path)
        if matching:
            data = self.report.expected_descriptor if self.report is not None else None
            if data is None:
                raise engine.UserError("No descriptor can be produced: the payload does not decode.")
        else:
            if self.descriptor is None or self.descriptor.data is None:
                raise engine.UserError("There is no descriptor to save.")
            data = self.descriptor.data
        with open(path, "xb") as fh:
            fh.write(data)
        self._after_save([path], {} if matching else {"descriptor": path})
        emit(self.saved, [path])
        return path

    def _after_save(self, written: list[str], sandbox: dict[str, str], matching: str | None = None) -> None:
        """After Save As: drop a stale "Not saved" banner, mark each saved edited document as
        saved to its new file, and offer to open the saved pair.

        ``sandbox``: source -> new path for documents written as the window shows them;
        ``matching``: the path of a descriptor recomputed to match the payload (not the one shown).
        When every edit is saved, the window shows the new file(s) as opened files (title, reload,
        stale check and recent files follow them); the originals are unchanged either way.
        """
        self.clear_banner("error")
        for source, path in sandbox.items():
            side = self.payload if source == "payload" else self.descriptor
            if side is None or source not in self._edited_sources:
                continue
            st = os.stat(path)
            new = dataclasses.replace(side, path=path, mtime_ns=st.st_mtime_ns, size=st.st_size)
            if source == "payload":
                self.payload = new
            else:
                self.descriptor = new
            self._unsaved.discard(source)
            self._edited_sources.discard(source)
        if self.edited and not self._unsaved:
            self.edited = False
            self.paths = [s.path for s in (self.payload, self.descriptor) if s is not None and s.path]
            self._watch(self.paths)
            self._add_recent(self.paths)
            self.clear_banner("edited")
            self.clear_banner("stale")
        shows = " + ".join(os.path.basename(s.path) for s in (self.payload, self.descriptor)
                           if s is not None and s.path)
        text = "Saved " + " and ".join(written) + ". The original files are unchanged."
        if not self.edited:
            text += f" The window now shows {shows}."
        actions = []
        if matching is not None:
            pair = [sandbox.get("payload") or written[0], matching]
            text += " The saved descriptor matches the saved payload: open the pair to verify it."
            actions.append(("Open Saved Pair", lambda _=False, p=pair: self.open_paths(p)))
        self.show_banner("info", "info", text, actions)
        self._update_captions()
        self._update_verdict_display()
        self._update_actions()

    def _ask_new_file(self, title: str, suggestion: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self, title, suggestion, "JSON files (*.json);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        return path or None

    def save_dialog(self):
        if self.payload is None:
            return
        base = self.payload.path or "checkpoint.payload.json"
        stem = os.path.splitext(base)[0]
        path = self._ask_new_file("Save payload as a new file", stem + ".edited.json")
        if not path:
            return
        try:  # refuse an input or existing file now, before asking about the descriptor
            self._check_new_path(path)
        except engine.UserError as e:
            self.show_banner("error", "error", f"Not saved: {e}")
            return
        desc_path = None
        if self.report is not None and self.report.expected_descriptor is not None:
            r = QMessageBox.question(self, "Also save a matching descriptor?",
                                     "Also write the descriptor that matches this payload (recomputed digests)?",
                                     QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            if r == QMessageBox.StandardButton.Yes:
                desc_path = self._ask_new_file("Save matching descriptor as a new file",
                                               os.path.splitext(path)[0] + ".descriptor.json")
        try:
            self.save_payload_as(path, desc_path)  # says "Saved …" and offers to open the saved pair
        except (engine.UserError, OSError) as e:
            self.show_banner("error", "error", f"Not saved: {e}")

    def save_descriptor_dialog(self):
        matching = False
        if self.report is not None and self.report.expected_descriptor is not None:
            box = QMessageBox(QMessageBox.Icon.Question, "Save descriptor",
                              "Which descriptor do you want to save?", parent=self)
            m = box.addButton("The one matching the payload", QMessageBox.ButtonRole.AcceptRole)
            c = box.addButton("The current descriptor", QMessageBox.ButtonRole.AcceptRole)
            box.addButton(QMessageBox.StandardButton.Cancel)
            box.exec()
            if box.clickedButton() not in (m, c):
                return
            matching = box.clickedButton() is m
        path = self._ask_new_file("Save descriptor as a new file", "checkpoint.descriptor.json")
        if not path:
            return
        try:
            self.save_descriptor_as(path, matching=matching)
        except (engine.UserError, OSError) as e:
            self.show_banner("error", "error", f"Not saved: {e}")

    # ==========================================================================================
    # stale files
    def _watch(self, paths):
        old = self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self._stale_paths.clear()
        for p in paths:
            if os.path.isfile(p):
                self.watcher.addPath(p)

    def _file_changed(self, path):
        self.check_stale()
        if os.path.exists(path) and path not in self.watcher.files():
            self.watcher.addPath(path)  # editors that save by rename drop the watch

    def check_stale(self) -> bool:
        """Compare the input files with what was read; show a banner offering to reload. Returns True if stale."""
        changed = []
        for side in (self.payload, self.descriptor):
            if side is None or not side.path:
                continue
            try:
                st = os.stat(side.path)
                same = st.st_mtime_ns == side.mtime_ns and (self.edited or st.st_size == side.size)
            except OSError:
                same = False
            if not same:
                changed.append(os.path.basename(side.path))
        if changed:
            self.show_banner("stale", "stale",
                             f"STALE — {', '.join(changed)} changed on disk since it was opened; "
                             "this view shows the earlier contents.", [("Reload", self.reload)])
            return True
        return False

    def event(self, e):
        if e.type() == QEvent.Type.WindowActivate and (self.payload or self.descriptor):
            self.check_stale()
        elif e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._update_verdict_display()
        return super().event(e)

    # ==========================================================================================
    # drag and drop
    def dragEnterEvent(self, event):
        md = event.mimeData()
        if md.hasUrls() and all(u.isLocalFile() for u in md.urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event):
        self.dragEnterEvent(event)

    def dropEvent(self, event):
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        event.acceptProposedAction()
        self.open_paths(paths)

    # ==========================================================================================
    # the selection relay
    def _tree_for(self, source: str, pointer: str) -> TreePane:
        if source == "descriptor":
            return self.desc_pane
        if pointer == "/logical_resume" or pointer.startswith("/logical_resume/"):
            return self.resume_pane
        return self.snap_pane

    def relay(self, loc: Location | None, origin: str) -> None:
        """Forward a selection to every pane but ``origin``.

        ``origin``: ``tree``, ``bytes``, ``finding`` or ``digest``. Trees select the node at the
        pointer, the bytes view highlights its exact span, the verdicts select the first failing
        rule whose evidence is there.
        """
        if loc is None or self._relaying:
            return
        self._relaying = True
        try:
            pane = self._tree_for(loc.source, loc.pointer)
            span = loc.span
            if origin != "tree":
                idx = pane.model.index_for_pointer(loc.pointer)
                if idx.isValid():
                    if pane in (self.resume_pane, self.desc_pane):
                        self.lower_trees.setCurrentWidget(pane)
                    pane.view.setCurrentIndex(idx)
                    pane.view.scrollTo(idx)
                    if span is None or origin in ("bytes", "digest"):
                        span = pane.model.data(idx, LocationRole).span
            if origin != "bytes":
                hexv = self.hex_payload if loc.source == "payload" else self.hex_descriptor
                self.hex_tabs.setCurrentWidget(hexv)
                hexv.highlight(span)
            elif span is not None:
                hexv = self.hex_payload if loc.source == "payload" else self.hex_descriptor
                hexv.highlight(span, scroll=False)
            if origin in ("tree", "bytes"):
                hits = self.findings_model.indexes_at(loc.source, loc.pointer)
                exact = [i for i in hits
                         if any(x.source == loc.source and x.pointer == loc.pointer
                                for x in self.findings_model.data(i, ObjectRole).locations)]
                if exact:
                    self.findings_view.setCurrentIndex(exact[0])
        finally:
            self._relaying = False

    def _tree_current_changed(self, view, current):
        if not current.isValid() or self._relaying:
            return
        self.relay(view.model().data(current, LocationRole), "tree")

    def _hex_clicked(self, source: str, offset: int):
        if self._relaying:
            return
        model = self.desc_model if source == "descriptor" else None
        if model is None:
            idx = self.resume_model.index_for_offset(offset)
            model = self.resume_model
            if not idx.isValid():
                idx = self.snap_model.index_for_offset(offset)
                model = self.snap_model
        else:
            idx = model.index_for_offset(offset)
        if not idx.isValid():
            return
        self.relay(model.data(idx, LocationRole), "bytes")

    def _finding_current_changed(self, current):
        if not current.isValid():
            return
        f = self.findings_model.data(current, ObjectRole)
        if f is None:
            return
        self.detail.setHtml(finding_html(f, self.report))
        if not self._relaying and f.locations:
            self.relay(f.locations[0], "finding")

    def _detail_location(self, i: int):
        idx = self.findings_view.currentIndex()
        f = self.findings_model.data(idx, ObjectRole)
        if f is not None and i < len(f.locations):
            self.relay(f.locations[i], "finding")

    def _digest_current_changed(self, current):
        if not current.isValid():
            return
        row = self.digests_model.row_object(current.row())
        payload_span = None
        if row.preimage_size and not row.domain and self.payload is not None and self.payload.tree_ok:
            if row.label.startswith("payload"):
                payload_span = (0, self.payload.size)
            else:
                ptr = "/snapshot" if row.label.startswith("snapshot") else "/logical_resume"
                idx = self._tree_for("payload", ptr).model.index_for_pointer(ptr)
                if idx.isValid():
                    payload_span = self.snap_model.data(idx, LocationRole).span if ptr == "/snapshot" else \
                        self.resume_model.data(idx, LocationRole).span
        self.digest_detail.show_row(row, payload_span)
        if not self._relaying:
            self.relay(Location("descriptor", row.pointer, None), "digest")

    def select_rule(self, rule_id: str) -> None:
        """Select the verdict row of ``rule_id`` (which relays its location)."""
        idx = self.findings_model.index_for_rule(rule_id)
        if idx.isValid():
            if self.findings_view.currentIndex() == idx:
                self._finding_current_changed(idx)
            else:
                self.findings_view.setCurrentIndex(idx)
            self.findings_view.scrollTo(idx)

    def goto_root_cause(self) -> None:
        if self.report is not None and self.report.root_cause is not None:
            self.select_rule(self.report.root_cause.rule.id)
            self.findings_view.setFocus()

    def goto_failure(self, step: int) -> None:
        """Select the next (``+1``) or previous (``-1``) failing rule, wrapping around."""
        fails = self.findings_model.failure_indexes()
        if not fails:
            self.statusBar().showMessage("No rule failed.", 3000)
            return
        cur = self.findings_view.currentIndex()
        ids = [self.findings_model.data(i, ObjectRole) for i in fails]
        f = self.findings_model.data(cur, ObjectRole) if cur.isValid() else None
        pos = next((k for k, x in enumerate(ids) if x is f), -1)
        nxt = fails[(pos + step) % len(fails)] if pos >= 0 else fails[0 if step > 0 else -1]
        self.findings_view.setCurrentIndex(nxt)
        self.findings_view.scrollTo(nxt)

    # ==========================================================================================
    # copy, find, focus
    def _focused_tree(self) -> QTreeView | None:
        w = QApplication.focusWidget()
        for pane in (self.snap_pane, self.resume_pane, self.desc_pane):
            if w is pane.view or (w is not None and pane.view.isAncestorOf(w)):
                return pane.view
        if self.lower_trees.isVisible() and self.lower_trees.currentWidget() in (self.resume_pane, self.desc_pane):
            if w is not None and self.lower_trees.isAncestorOf(w):
                return self.lower_trees.currentWidget().view
        return None

    def _last_tree(self) -> QTreeView:
        view = self._focused_tree()
        if view is not None:
            self._last_tree_view = view
            return view
        return getattr(self, "_last_tree_view", self.snap_pane.view)

    def copy_value(self) -> None:
        """Copy the selected tree value (JSON text; strings unquoted) or the selected finding."""
        w = QApplication.focusWidget()
        if w is self.findings_view:
            f = self.findings_model.data(self.findings_view.currentIndex(), ObjectRole)
            if f is not None:
                QApplication.clipboard().setText(f"{f.rule.id}: {f.message or f.rule.title}")
            return
        if w is self.digests_view:
            idx = self.digests_view.currentIndex()
            if idx.isValid():
                QApplication.clipboard().setText(str(self.digests_model.data(idx)))
            return
        view = self._last_tree()
        idx = view.currentIndex()
        if idx.isValid():
            QApplication.clipboard().setText(view.model().data(idx, CopyValueRole) or "")

    def copy_pointer(self) -> None:
        """Copy the JSON Pointer of the selected tree node (or of the selected finding's location)."""
        if QApplication.focusWidget() is self.findings_view:
            loc = self.findings_model.data(self.findings_view.currentIndex(), LocationRole)
            if loc is not None:
                QApplication.clipboard().setText(loc.pointer)
            return
        view = self._last_tree()
        idx = view.currentIndex()
        if idx.isValid():
            QApplication.clipboard().setText(view.model().data(idx, PointerRole) or "")

    def find_in_tree(self, text: str, backwards: bool = False) -> bool:
        """Select the next tree row whose key or value contains ``text`` (case-insensitive).

        Searches the tree that last had focus, fetching rows as it goes for documents up to
        16 MiB; larger documents search the rows loaded so far. Returns True when found.
        """
        if not text:
            return False
        view = self._last_tree()
        model = view.model()
        needle = text.casefold()
        full = model.document is not None and len(model.document) <= EDIT_LIMIT
        order = []

        def walk(parent):
            if full and model.canFetchMore(parent):
                while model.canFetchMore(parent):
                    model.fetchMore(parent)
            for r in range(model.rowCount(parent)):
                idx = model.index(r, 0, parent)
                order.append(idx)
                walk(idx)
        walk(QModelIndex())
        if not order:
            return False
        cur = view.currentIndex().siblingAtColumn(0)
        start = next((k for k, i in enumerate(order) if i == cur), -1)
        n = len(order)
        for step in range(1, n + 1):
            k = (start - step) % n if backwards else (start + step) % n
            idx = order[k]
            hay = f"{model.data(idx)}\n{model.data(idx.siblingAtColumn(1))}".casefold()
            if needle in hay:
                view.setCurrentIndex(idx)
                view.scrollTo(idx)
                self.find_bar.status.setText("")
                return True
        self.find_bar.status.setText("not found" + ("" if full else " (in the rows loaded so far)"))
        return False

    def _focus(self, w):
        if w is None:
            return
        for d in (self.trees_dock, self.bytes_dock, self.digests_dock):
            if d.isAncestorOf(w):
                d.show()
                d.raise_()
        if w in (self.resume_pane.view, self.desc_pane.view):
            self.lower_trees.setCurrentWidget(w.parent().parent())
        w.setFocus()

    def _about(self):
        from inspector import __version__

        QMessageBox.about(self, "About Checkpoint Inspector",
                          f"<b>Checkpoint Inspector {__version__}</b><p>Verifies A3S Code portable session "
                          "checkpoints, byte-exact with the Rust reference. The window never decides a verdict "
                          "itself: every verdict and digest comes from the verification engine.</p>")

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(action, every shortcut of it) for each menu action that has one, as Help ▸ Keyboard Shortcuts lists them."""
        rows = []
        for menu in self.menuBar().findChildren(type(self.recent_menu)):
            for a in menu.actions():
                keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()]
                keys = [k for k in keys if k]
                if keys:
                    rows.append((a.text().split("\t")[0].replace("&", ""), ", ".join(keys)))
        return rows

    def _shortcuts_help(self):
        rows = [f"<tr><td>{name}</td><td><b>{keys}</b></td></tr>" for name, keys in self.shortcut_rows()]
        QMessageBox.information(self, "Keyboard shortcuts", "<table>" + "".join(rows) + "</table>")
