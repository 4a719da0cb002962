"""Builds the window's panes: verdict bar, verdicts and detail, trees, bytes, digests, raw text, folder, status bar.

:func:`build_layout` sets the panes as attributes of the window, each declared in :class:`WindowPanes` (``w.snap_pane``, ``w.findings_view``,
``w.hex_payload``...); the window wires them to the document model.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QApplication, QCheckBox, QDockWidget, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton,
    QSizePolicy, QSplitter, QLineEdit, QTableView, QTabWidget, QToolBar, QVBoxLayout, QWidget,
)

from . import style
from .models.digests import DigestsModel
from .models.findings import FindingsModel
from .models.sessions import SessionsModel
from .models.folder import FolderFilterProxy, FolderModel
from .models.json_tree import JsonTreeModel
from .widgets.hex_view import HexView
from .widgets.sessions_view import SessionsView
from .widgets.panes import (DigestDetail, ElidedLabel, FindBar, FindingDetail, RawEditor, RowTreeView, TreePane,
                            VerdictHeader)

__all__ = ["WindowPanes", "build_layout", "fit_folder_columns", "restore_folder_columns", "save_folder_columns", "default_dock_sizes",
           "size_folder_dock", "remember_folder_width"]


class WindowPanes:
    """The panes and flags :func:`build_layout` makes on the window, declared with their types: the window is a
    ``WindowPanes`` (``MainWindow(QMainWindow, WindowPanes)``), so a reader of either finds every attribute the
    layout sets (``tests/gui/test_layout_attributes.py`` checks that each is declared here and has its type)."""

    # The models of the trees, the verdicts, the digests and the folder:
    snap_model: JsonTreeModel
    resume_model: JsonTreeModel
    desc_model: JsonTreeModel
    findings_model: FindingsModel
    digests_model: DigestsModel
    folder_model: FolderModel
    folder_proxy: FolderFilterProxy
    sessions_model: SessionsModel
    # The verdict bar, Find, the verdicts and a finding's detail:
    banner_area: QVBoxLayout
    header: VerdictHeader
    find_bar: FindBar
    findings_view: RowTreeView
    detail: FindingDetail
    verdict_splitter: QSplitter
    verdicts_caption: ElidedLabel
    failures_only: QCheckBox
    # The trees:
    snap_pane: TreePane
    resume_pane: TreePane
    desc_pane: TreePane
    lower_trees: QTabWidget
    tree_splitter: QSplitter
    trees_dock: QDockWidget
    # The bytes, the digests and the raw text:
    hex_tabs: QTabWidget
    hex_payload: HexView
    hex_descriptor: HexView
    bytes_dock: QDockWidget
    digests_view: QTableView
    digest_detail: DigestDetail
    digests_splitter: QSplitter
    digests_dock: QDockWidget
    raw_editor: RawEditor
    raw_dock: QDockWidget
    # The folder and its sessions:
    folder_view: QTableView
    folder_user_widths: dict  # column -> width (pixels) the user dragged
    folder_filter: QLineEdit
    sessions_view: SessionsView
    folder_tabs: QTabWidget
    folder_dock: QDockWidget
    # The status bar:
    status_icon: QLabel
    status_label: QLabel
    progress: QProgressBar
    progress_label: QLabel
    cancel_button: QPushButton
    # The layout's own state: the default dock state, whether sized, the state restored, a column fit asked for
    _default_state: QByteArray | None
    _sized: bool
    _restored_state: bool
    _fitting_folder: bool
    _fit_request: bool


def build_layout(w) -> None:
    """Create every pane of ``w`` (a MainWindow) and its models."""
    _build_models(w)
    _build_central(w)
    _build_docks(w)
    _build_status(w)


def _build_models(w):
    w.snap_model = JsonTreeModel("payload", exclude={"logical_resume"}, parent=w)
    w.resume_model = JsonTreeModel("payload", include={"logical_resume"}, parent=w)
    w.desc_model = JsonTreeModel("descriptor", parent=w)
    w.findings_model = FindingsModel(w)
    w.digests_model = DigestsModel(w)
    w.folder_model = FolderModel(w)


def _build_central(w):
    # The overall verdict and the message banners span the whole window (a fixed top bar).
    top = QWidget()
    tl = QVBoxLayout(top)
    tl.setContentsMargins(4, 2, 4, 2)
    tl.setSpacing(3)
    w.banner_area = QVBoxLayout()
    w.banner_area.setSpacing(3)
    tl.addLayout(w.banner_area)
    w.header = VerdictHeader()
    tl.addWidget(w.header)
    bar = QToolBar("Verdict", w)
    bar.setObjectName("verdictBar")
    bar.setMovable(False)
    bar.setFloatable(False)
    bar.toggleViewAction().setEnabled(False)
    bar.addWidget(top)
    top.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    w.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    central = QWidget()
    lay = QVBoxLayout(central)
    lay.setContentsMargins(4, 0, 4, 0)
    w.find_bar = FindBar()
    w.find_bar.hide()
    split = QSplitter(Qt.Orientation.Vertical)
    split.setObjectName("verdictSplitter")
    w.findings_view = RowTreeView()  # a click on a rule or message does not scroll it sideways
    w.findings_view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (rule ids, the reference's messages)
    w.findings_view.setObjectName("findingsView")
    w.findings_view.setModel(w.findings_model)
    w.findings_view.setUniformRowHeights(True)
    w.findings_view.setAlternatingRowColors(True)
    w.findings_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    w.findings_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    w.findings_view.setAccessibleName("Verdicts")
    w.findings_view.header().setStretchLastSection(True)
    # The verdict fits "FAIL · consequence" after the indents and icon (was cut to "FAIL · consequ…")
    # (a rule's row is a group's child: two indents, the branch and its own); the rule column
    # fits the longest rule id.
    # (an indentation of 14 px, a tighter padding: at 1024 px the compact layout's verdicts show both columns whole)
    fv, fm = w.findings_view, w.findings_view.fontMetrics()
    fv.setIndentation(14)
    icon = fv.style().pixelMetric(fv.style().PixelMetric.PM_SmallIconSize)
    fv.setColumnWidth(0, 2 * fv.indentation() + icon + fm.horizontalAdvance("FAIL · consequence") + 16)
    fv.setColumnWidth(1, style.rule_id_width(fm) + 12)  # S-TOOLEND-EVIDENCE-MISMATCH (from rules.toml)
    w.detail = FindingDetail()
    split.addWidget(w.findings_view)
    split.addWidget(w.detail)
    split.setStretchFactor(0, 3)
    split.setStretchFactor(1, 2)
    w.verdict_splitter = split
    title = QLabel("<b>Verdicts</b>")
    title.setContentsMargins(2, 4, 0, 2)
    # The explanation ends in "…" when the pane is narrow (full text in its tooltip): at 1024 px it
    # was clipped mid-word by the Failures only box ("grouped by s"); it never widens the window.
    w.verdicts_caption = ElidedLabel("— every rule, grouped by stage; the root cause first")
    w.verdicts_caption.setObjectName("verdictsCaption")
    w.verdicts_caption.setContentsMargins(0, 4, 2, 2)
    # Alt+O, not Alt+F: "&Failures only" made Alt+F ambiguous with the File menu, whose first press then
    # only moved the focus to this box.
    w.failures_only = QCheckBox("Failures &only")
    w.failures_only.setObjectName("failuresOnly")
    w.failures_only.setToolTip("Show only the rules that failed (on by default when one did)")
    row = QHBoxLayout()
    row.setSpacing(4)
    row.addWidget(title)
    row.addWidget(w.verdicts_caption, 1)
    row.addWidget(w.failures_only)
    lay.addLayout(row)
    lay.addWidget(split, 1)
    w.setCentralWidget(central)


def _dock(w, title: str, name: str, widget, area) -> QDockWidget:
    d = QDockWidget(title, w)
    d.setObjectName(name)
    d.setWidget(widget)
    d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                  | QDockWidget.DockWidgetFeature.DockWidgetClosable
                  | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
    w.addDockWidget(area, d)
    return d


class _NarrowTable(QObject):
    """Column ``col`` fits its contents, except when the table's viewport is narrower than
    ``width`` pixels: then it gets what the other columns leave, cut in the middle, so nothing
    scrolls sideways. The stretched columns then keep ``keep`` pixels each for their values and at
    least the width of their header, which the model shortens if it can (``set_compact``: at
    1024x700 "Recomputed" in a 54 px column read "comput"); what is left over is shared by them. (An equal share of the labels with the
    stretched columns cut them to "snaps…igest" for both snapshot content_digest and snapshot
    evidence_digest at 1024x700.)"""

    def __init__(self, header, col: int, width: int, parent=None, keep: int = 0):
        super().__init__(parent)
        self.header, self.col, self.width, self.keep = header, col, width, keep
        self.stretched = [c for c in range(header.count())
                          if header.sectionResizeMode(c) == QHeaderView.ResizeMode.Stretch]

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Resize:
            hh = self.header
            narrow = event.size().width() < self.width
            fit, stretch = QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch
            interactive = QHeaderView.ResizeMode.Interactive
            for c, wide_mode in [(self.col, fit)] + [(c, stretch) for c in self.stretched]:
                mode = interactive if narrow else wide_mode
                if hh.sectionResizeMode(c) != mode:
                    hh.setSectionResizeMode(c, mode)
            view = self.parent()
            if hasattr(view.model(), "set_compact"):
                view.model().set_compact(narrow)  # shorter titles ("Recomp."), the whole one in the tooltip
            if narrow:
                want = max(view.sizeHintForColumn(self.col), hh.sectionSizeHint(self.col))
                mins = [max(self.keep, hh.sectionSizeHint(c)) for c in self.stretched]
                fixed = sum(hh.sectionSize(c) for c in range(hh.count())
                            if c != self.col and c not in self.stretched)
                room = event.size().width() - fixed
                label = max(40, min(want, room - sum(mins)))
                hh.resizeSection(self.col, label)
                extra = max(0, room - label - sum(mins))
                for i, c in enumerate(self.stretched):
                    hh.resizeSection(c, mins[i] + extra // len(self.stretched)
                                     + (extra % len(self.stretched) if i == len(self.stretched) - 1 else 0))
        return False


def _table(w, name: str, model, accessible: str) -> QTableView:
    """A read-only table of whole-row single selection over ``model``."""
    t = QTableView()
    t.setObjectName(name)
    t.setModel(model)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(False)
    t.verticalHeader().setDefaultSectionSize(w.fontMetrics().height() + 8)
    t.setAccessibleName(accessible)
    t.setTabKeyNavigation(False)  # arrows move in the table; Tab leaves it for the next pane
    return t


def _build_docks(w):
    """The docks of the main window, in their default places: trees, bytes, digests, raw text, folder."""
    w.setDockNestingEnabled(True)
    _build_trees_dock(w)
    _build_bytes_and_digests_docks(w)
    w.raw_editor = RawEditor()
    w.raw_dock = _dock(w, "Raw text (sandbox)", "rawDock", w.raw_editor, Qt.DockWidgetArea.BottomDockWidgetArea)
    w.raw_dock.hide()
    _build_folder_dock(w)
    w._default_state = None
    w._sized = False


def _build_trees_dock(w):
    """The Trees dock: Find above the snapshot tree, and the resume-boundary and descriptor trees in tabs."""
    w.snap_pane = TreePane("Payload ▸ snapshot (session, messages, runs, artifacts, subagent tasks)",
                              w.snap_model)
    w.resume_pane = TreePane("Payload ▸ resume boundary (loop checkpoint)", w.resume_model)
    w.desc_pane = TreePane("Descriptor (outer identity and both evidence blocks)", w.desc_model)
    for pane, name in ((w.snap_pane, "snapshotTree"), (w.resume_pane, "resumeTree"),
                       (w.desc_pane, "descriptorTree")):
        pane.view.setObjectName(name)
        pane.view.setAccessibleName(pane.caption.text())
    left = QWidget()
    ll = QVBoxLayout(left)
    ll.setContentsMargins(0, 0, 0, 0)
    ll.addWidget(w.find_bar)
    tree_split = QSplitter(Qt.Orientation.Vertical)
    tree_split.setObjectName("treeSplitter")
    tree_split.addWidget(w.snap_pane)
    w.lower_trees = QTabWidget()
    w.lower_trees.setAccessibleName("Resume boundary and descriptor trees")
    w.lower_trees.addTab(w.resume_pane, "Resume boundary")
    w.lower_trees.addTab(w.desc_pane, "Descriptor")
    tree_split.addWidget(w.lower_trees)
    tree_split.setStretchFactor(0, 3)
    tree_split.setStretchFactor(1, 2)
    w.tree_splitter = tree_split
    ll.addWidget(tree_split, 1)
    w.trees_dock = _dock(w, "Trees", "treesDock", left, Qt.DockWidgetArea.LeftDockWidgetArea)


def _build_bytes_and_digests_docks(w):
    """The Bytes dock (payload and descriptor bytes in tabs) and, under it, the Digests dock (table and detail)."""
    w.hex_tabs = QTabWidget()
    w.hex_tabs.setAccessibleName("Payload and descriptor bytes")
    w.hex_payload = HexView()
    w.hex_payload.setObjectName("payloadBytes")
    w.hex_payload.setAccessibleName("Payload bytes")
    w.hex_descriptor = HexView()
    w.hex_descriptor.setObjectName("descriptorBytes")
    w.hex_descriptor.setAccessibleName("Descriptor bytes")
    w.hex_tabs.addTab(w.hex_payload, "Payload bytes")
    w.hex_tabs.addTab(w.hex_descriptor, "Descriptor bytes")
    w.bytes_dock = _dock(w, "Bytes", "bytesDock", w.hex_tabs, Qt.DockWidgetArea.RightDockWidgetArea)

    dig = QWidget()
    dl = QVBoxLayout(dig)
    dl.setContentsMargins(0, 0, 0, 0)
    w.digests_view = _table(w, "digestsView", w.digests_model, "Digests")
    w.digests_view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # (digests and sizes: left to right)
    # Label and match fit their text; stated and recomputed share the rest, so both digests are
    # on screen (the cells show 122347d3…049312e0; the tooltip has all of it).
    hh = w.digests_view.horizontalHeader()
    hh.setMinimumSectionSize(40)
    for col, mode in ((0, QHeaderView.ResizeMode.ResizeToContents), (1, QHeaderView.ResizeMode.ResizeToContents),
                      (2, QHeaderView.ResizeMode.Stretch), (3, QHeaderView.ResizeMode.Stretch)):
        hh.setSectionResizeMode(col, mode)
    # In a narrow pane the labels share the width too (elided in the middle), so nothing scrolls sideways.
    # (the stated and recomputed columns keep room for "12…e0" each: the match column compares them,
    # the detail below and the tooltip show them whole)
    keep = w.digests_view.fontMetrics().horizontalAdvance("12…e0") + 12
    w.digests_view.viewport().installEventFilter(_NarrowTable(hh, 0, 520, w.digests_view, keep))
    w.digests_view.setWordWrap(False)
    w.digests_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    w.digest_detail = DigestDetail(HexView)
    dsplit = QSplitter(Qt.Orientation.Vertical)
    dsplit.addWidget(w.digests_view)
    dsplit.addWidget(w.digest_detail)
    dsplit.setStretchFactor(0, 1)
    dsplit.setStretchFactor(1, 1)
    w.digest_detail.setMinimumHeight(96)
    w.digests_splitter = dsplit
    dl.addWidget(dsplit)
    w.digests_dock = _dock(w, "Digests", "digestsDock", dig, Qt.DockWidgetArea.RightDockWidgetArea)
    w.splitDockWidget(w.bytes_dock, w.digests_dock, Qt.Orientation.Vertical)


def _build_folder_dock(w):
    """The Folder dock: the filter line above the table of checkpoints in a folder (hidden until one is open)."""
    w.folder_proxy = FolderFilterProxy(w)
    w.folder_proxy.setSourceModel(w.folder_model)
    w.folder_view = _table(w, "folderView", w.folder_proxy, "Checkpoints in folder")
    hh = w.folder_view.horizontalHeader()
    hh.setStretchLastSection(True)
    hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # scan order until a header is clicked
    w.folder_view.setSortingEnabled(True)
    # Root cause (a short rule id) before the long verdict sentence, which takes the rest and is
    # cut at the right (its tooltip has all of it): the rule id is never off-screen.
    hh.moveSection(3, 2)
    w.folder_view.setTextElideMode(Qt.TextElideMode.ElideRight)
    w.folder_view.setWordWrap(False)
    w.folder_user_widths = {}  # column -> width the user dragged it to (kept by every fit, remembered)
    w._fitting_folder = False
    hh.sectionResized.connect(lambda col, _old, new: _folder_column_resized(w, col, new))
    fit_folder_columns(w)
    w.folder_filter = QLineEdit()
    w.folder_filter.setObjectName("folderFilter")
    w.folder_filter.setPlaceholderText("Filter: file name, verdict or rule id")
    w.folder_filter.setClearButtonEnabled(True)
    w.folder_filter.setAccessibleName("Filter the folder table")
    w.folder_filter.textChanged.connect(w.folder_proxy.set_filter_text)
    fbox = QWidget()
    fl = QVBoxLayout(fbox)
    fl.setContentsMargins(0, 0, 0, 0)
    fl.setSpacing(2)
    fl.addWidget(w.folder_filter)
    fl.addWidget(w.folder_view)
    # the checkpoints by session, each series in order; the flat table stays for every file
    w.sessions_model = SessionsModel(w)
    w.sessions_view = SessionsView(w.sessions_model)
    w.folder_tabs = QTabWidget()
    w.folder_tabs.setObjectName("folderTabs")
    w.folder_tabs.setAccessibleName("Folder: by session and by file")
    w.folder_tabs.addTab(w.sessions_view, "Sessions")
    w.folder_tabs.addTab(fbox, "Files")
    w.folder_dock = _dock(w, "Folder", "folderDock", w.folder_tabs, Qt.DockWidgetArea.BottomDockWidgetArea)
    w.folder_dock.hide()


def fit_folder_columns(w) -> int:
    """Size the folder table's columns (names fit up to 240 px, the rule id fits); returns the
    width in px the dock needs to show them and 300 px of the verdict."""
    view = w.folder_view
    fm = view.fontMetrics()
    pad = 24
    names = [fm.horizontalAdvance("sample.descriptor.json") + pad] * 2
    m = view.model()
    for r in range(min(m.rowCount(), 200)):  # (at most 200 rows measured)
        for c in (0, 1):
            names[c] = max(names[c], fm.horizontalAdvance(str(m.data(m.index(r, c)) or "")) + pad)
    # the widest rule id of the catalogue (sized to "X-LOGICAL-EVIDENCE", it cut "S-TOOLEND-EVIDENC…")
    rule = max(style.rule_id_width(fm), view.horizontalHeader().fontMetrics().horizontalAdvance("Root cause")) + pad
    user = w.folder_user_widths
    w._fitting_folder = True
    try:
        for c, width in ((0, min(240, names[0])), (1, min(240, names[1])), (3, rule)):
            view.setColumnWidth(c, user.get(c, width))
    finally:
        w._fitting_folder = False
    return sum(view.columnWidth(c) for c in (0, 1, 3)) + 300 + view.verticalScrollBar().sizeHint().width() + 8


def _folder_column_resized(w, col: int, width: int) -> None:
    """A folder-table column was resized: by the user (a header drag) unless a fit is running.
    The verdict column (2) takes the rest of the row: its width is not the user's choice."""
    if not w._fitting_folder and col != 2 and w.folder_view.isVisible():
        w.folder_user_widths[col] = width


def save_folder_columns(w, settings) -> None:
    """Remember the folder-table column widths the user set (``folder/columnWidths``, JSON)."""
    settings.setValue("folder/columnWidths", json.dumps({str(c): v for c, v in w.folder_user_widths.items()}))


def restore_folder_columns(w, settings) -> None:
    """Use the folder-table column widths remembered by :func:`save_folder_columns`."""
    try:
        saved = json.loads(settings.value("folder/columnWidths", "{}") or "{}")
        w.folder_user_widths = {int(c): int(v) for c, v in saved.items() if int(c) in (0, 1, 3) and 16 <= int(v) <= 4000}
    except (TypeError, ValueError, AttributeError):
        w.folder_user_widths = {}
    fit_folder_columns(w)


def _build_status(w):
    sb = w.statusBar()
    sb.setAccessibleName("Status")
    w.status_icon = QLabel()
    w.status_label = QLabel("No checkpoint open")
    w.status_label.setAccessibleName("Overall verdict")
    sb.addWidget(w.status_icon)
    sb.addWidget(w.status_label, 1)
    w.progress = QProgressBar()
    w.progress.setAccessibleName("Progress")  # (named after what it measures while busy: window._set_busy)
    w.progress.setMaximumWidth(260)
    w.progress.setRange(0, 100)
    w.progress.setTextVisible(True)
    w.progress_label = QLabel("")
    # A fixed width: a label that resizes with its text relayouts the status bar on every update.
    w.progress_label.setFixedWidth(w.progress_label.fontMetrics().horizontalAdvance("M" * 30))
    w.cancel_button = QPushButton("Cancel")
    w.cancel_button.setToolTip("Stop loading (Esc)")
    for w in (w.progress_label, w.progress, w.cancel_button):
        sb.addPermanentWidget(w)
        w.hide()



def scale_docks(w, old, new) -> None:
    """Keep the docks' share of the window when it grows from ``old`` to ``new`` (QSize).

    QMainWindow gives all the growth to the central widget (the verdicts): enlarged from 1024 to
    1600 px, the Trees and Digests docks kept their widths (digests showed as ``2…9``) and the
    Resume dock its height (the top timeline lane half hidden) until Reset Layout. A shrink is
    left to QMainWindow (the verdicts give up room first; by then the docks may already have
    shrunk, so their old share is unknown). Docks that are hidden or floating are left alone.
    """
    if not old.isValid() or old.width() <= 0 or old.height() <= 0 or old == new:
        return
    sx, sy = new.width() / old.width(), new.height() / old.height()
    docked = [d for d in (w.trees_dock, w.bytes_dock) if d.isVisible() and not d.isFloating()]
    if docked and sx > 1:
        w.resizeDocks(docked, [max(1, round(d.width() * sx)) for d in docked], Qt.Orientation.Horizontal)
    bottom = [d for d in (w.resume_panes.dock,) if d.isVisible() and not d.isFloating()]
    if bottom and sy > 1:
        w.resizeDocks(bottom, [max(1, round(d.height() * sy)) for d in bottom], Qt.Orientation.Vertical)


def default_dock_sizes(w) -> None:
    """The default dock sizes of main window ``w`` for its size (first show, View ▸ Reset Layout)."""
    width, height = w.width(), w.height()
    # The bytes dock is never narrower than 8 bytes a row with their text (else the text is cut).
    bytes_w = max(int(width * 0.36), w.hex_payload.narrow_width() + 12)
    w.resizeDocks([w.trees_dock, w.bytes_dock], [int(width * 0.30), bytes_w], Qt.Orientation.Horizontal)
    # A short window (1024x700) gives the digests more: their table showed two of nine rows.
    short = height < 900
    w.resizeDocks([w.bytes_dock, w.digests_dock],
                  [int(height * (0.3 if short else 0.38)), int(height * (0.6 if short else 0.52))],
                  Qt.Orientation.Vertical)
    # the table 3/5 and what was hashed 2/5 when short; half and half when tall
    w.digests_splitter.setSizes([3000, 2000] if short else [1000, 1000])
    # The Resume dock gets less of a short window (1024x700: the trees and digests need the rows).
    # At 1024x700 its share (0.23) still shows the axis and two whole lanes of the timeline.
    share = 0.28 if height >= 900 else 0.23
    w.resizeDocks([w.resume_panes.dock], [int(height * share)], Qt.Orientation.Vertical)


def size_folder_dock(w) -> None:
    """Give the folder dock the width the user last gave it, else room for every column
    (it shares the bottom with the Resume dock, and opened so narrow that only the file
    names showed)."""
    if w.folder_dock.isFloating():
        return
    need = fit_folder_columns(w)
    try:
        width = int(w.settings.value("window/folderDockWidth", 0) or 0)
    except (TypeError, ValueError):
        width = 0
    width = width or need
    # (the Resume dock beside it keeps 400 px, or 35% of a narrow window: with the Root cause column
    # as wide as the widest rule id, 480 px left the verdict 184 px at 1280)
    width = max(320, min(width, max(int(w.width() * 0.65), w.width() - 400)))
    other = w.resume_panes.dock
    if other.isVisible() and not other.isFloating() and w.dockWidgetArea(other) == \
            w.dockWidgetArea(w.folder_dock):  # side by side: say both (Qt splits the change oddly otherwise)
        total = other.width() + w.folder_dock.width()
        w.resizeDocks([w.folder_dock, other], [width, max(1, total - width)], Qt.Orientation.Horizontal)
    else:
        w.resizeDocks([w.folder_dock], [width], Qt.Orientation.Horizontal)


def remember_folder_width(w, visible: bool) -> None:
    """Keep the folder dock's width in the settings when it is hidden (``size_folder_dock`` reuses it)."""
    d = w.folder_dock
    if not visible and d.width() > 0 and not d.isFloating() and w._sized:
        w.settings.setValue("window/folderDockWidth", d.width())


def restore_window_settings(w) -> None:
    """The window's remembered geometry, dock layout, splitter positions and folder columns (a first start: a
    size that fits the screen)."""
    geo = w.settings.value("window/geometry")
    if isinstance(geo, (QByteArray, bytes)):
        w.restoreGeometry(geo)
    else:
        screen = QApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else None
        if avail is not None and avail.width() > 0:
            w.resize(min(1560, avail.width() - 40), min(960, avail.height() - 40))
            w._fit_request = True  # (the first show makes it fit, unless a size is asked for before: window.resize)
        else:
            w.resize(1500, 920)
    state = w.settings.value("window/state")
    w._restored_state = isinstance(state, (QByteArray, bytes)) and w.restoreState(state)
    size = w.settings.value("window/stateSize")
    if w._restored_state:  # (a narrow start keeps it for when the window is widened)
        w.compact.remember_saved(QByteArray(state), size if isinstance(size, QSize) and size.isValid() else w.size())
    for key, split in (("window/treeSplitter", w.tree_splitter), ("window/verdictSplitter", w.verdict_splitter)):
        s = w.settings.value(key)
        if isinstance(s, (QByteArray, bytes)):
            split.restoreState(s)
    restore_folder_columns(w, w.settings)


def save_window_settings(w) -> None:
    """Remember the window's geometry, dock layout, splitter positions and folder columns."""
    w.settings.setValue("window/geometry", w.saveGeometry())
    state, size = w.compact.state_to_save()  # the wide arrangement, even when compact
    w.settings.setValue("window/state", state)
    w.settings.setValue("window/stateSize", size)
    w.settings.setValue("window/treeSplitter", w.tree_splitter.saveState())
    w.settings.setValue("window/verdictSplitter", w.verdict_splitter.saveState())
    if w.folder_dock.isVisible() and not w.folder_dock.isFloating():
        w.settings.setValue("window/folderDockWidth", w.folder_dock.width())
    save_folder_columns(w, w.settings)
    w.settings.sync()
