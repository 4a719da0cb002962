"""The small-window layout: below :data:`COMPACT_BELOW` px of window width the
Resume dock is tabbed with the Digests dock, so the trees and the bytes keep the window's height.

At 1024x700 the Resume dock along the bottom took 161 px of the 700: the snapshot tree showed
ten whole rows and the bytes four lines (the golden pair). Tabbed beside the digests (its tab one
click away; the View menu and Alt+0 raise it), the bottom is free: 16 rows and 7 lines.

Widening the window past the threshold restores the arrangement it had before (the default one,
or the user's own, read from the settings at start); the settings always keep that wide
arrangement (:meth:`CompactLayout.state_to_save`), never the compact one. A Resume dock that the
user floated, hid or put elsewhere than along the bottom is left where it is.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QTabBar

from .layout import default_dock_sizes, scale_docks

__all__ = ["COMPACT_BELOW", "CompactLayout", "compact_dock_sizes"]

#: Window width in px below which the compact layout is used.
COMPACT_BELOW = 1100


class CompactLayout(QObject):
    """Switches main window ``window`` between its wide layout and the compact one as it is resized.

    Attributes:
        compact (bool): the compact layout is shown (the Resume dock was tabbed by this object).
    """

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.compact = False
        self._wide_state: QByteArray | None = None  # the arrangement before compacting
        self._wide_size = QSize()  # the window's size when it was saved
        self._title = ""  # the Resume dock's own title while its tab says "Resume"
        self._saved: tuple[QByteArray, QSize] | None = None  # the settings' arrangement, until shown wide
        self._been_wide = False
        self._default = False  # the wide arrangement is the default one, never shown wide: sized anew
        self._last_wide: tuple[QByteArray, QSize] | None = None  # the arrangement last seen wide
        self._compact_arrangement: dict | None = None  # what compacting made (see user_rearranged)
        self._capture = QTimer(self)
        self._capture.setSingleShot(True)
        self._capture.setInterval(0)
        self._capture.timeout.connect(self._capture_wide)
        for dock in (window.trees_dock, window.bytes_dock, window.digests_dock, window.folder_dock,
                     window.resume_panes.dock):
            dock.installEventFilter(self)
            # A dock behind another's tab stays "visible" to Qt, and Tab walked through its controls although
            # none was on screen (four dead Tabs at 1024x700, a newcomer trial): off the Tab chain while covered.
            dock.visibilityChanged.connect(lambda shown, d=dock: d.widget() is not None and d.widget().setEnabled(shown))

    def eventFilter(self, obj, event):  # noqa: N802 (Qt override)
        """A dock moved, resized, shown or hidden: remember the arrangement once the event is handled
        (a resize that narrows the window squeezes the docks before anything can see it: the
        arrangement to come back to is the one kept before)."""
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Move, QEvent.Type.Show, QEvent.Type.Hide) \
                and not self.compact:
            self._capture.start()
        return False

    def _capture_wide(self) -> None:
        w = self.w
        if not self.compact and w.isVisible() and w.width() >= COMPACT_BELOW:
            self._last_wide = (w.saveState(), w.size())

    def update(self) -> None:
        """Use the compact layout when the window is narrower than :data:`COMPACT_BELOW` px, else the wide one."""
        narrow = self.w.width() < COMPACT_BELOW
        if not narrow:
            self._saved = None  # (shown wide: what is on screen is the arrangement)
            self._been_wide = True
        if narrow and not self.compact:
            self._enter()
        elif not narrow and self.compact:
            self._leave()

    def remember_saved(self, state: QByteArray, size: QSize) -> None:
        """The arrangement restored from the settings (``state``, saved in a window of ``size``): the one
        a narrow start returns to when widened (restored into a narrow window, its sizes are squeezed)."""
        self._saved = (QByteArray(state), QSize(size))

    def _arrangement(self) -> dict:
        """Which docks are closed, floating, and in which area: what a user changes by hand (sizes left out)."""
        w = self.w
        return {d.objectName(): (d.isHidden(), d.isFloating(), w.dockWidgetArea(d))
                for d in w.findChildren(QDockWidget)}

    def user_rearranged(self) -> bool:
        """True when, while compact, the user closed, opened, floated or moved a dock (then the arrangement on
        screen is theirs: it is what the settings keep, and widening the window does not undo it)."""
        return self.compact and self._compact_arrangement is not None \
            and self._arrangement() != self._compact_arrangement

    def state_to_save(self) -> tuple[QByteArray, QSize]:
        """The dock arrangement to remember in the settings and the window size it fits: the wide one, even
        while compact, unless the user rearranged the docks while compact (a screen always under
        :data:`COMPACT_BELOW` px wide keeps the user's changes too)."""
        if self.compact and self._wide_state is not None and not self.user_rearranged():
            return self._wide_state, self._wide_size
        return self.w.saveState(), self.w.size()

    def forget(self) -> None:
        """Drop the remembered wide arrangement and put the Resume dock back along the bottom (Reset Layout)."""
        if self.compact and self._tabbed():
            self.w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.w.resume_panes.dock)
        self.compact = False
        self._wide_state = self._compact_arrangement = None
        self._restore_title()

    def _restore_title(self) -> None:
        dock = self.w.resume_panes.dock
        if self._title:
            menu_text = dock.toggleViewAction().text()
            dock.setWindowTitle(self._title)
            dock.toggleViewAction().setText(menu_text)
            self._title = ""

    def _tabbed(self) -> bool:
        dock = self.w.resume_panes.dock
        return self.w.digests_dock in self.w.tabifiedDockWidgets(dock)

    def _enter(self) -> None:
        w, dock = self.w, self.w.resume_panes.dock
        if (dock.isHidden() or dock.isFloating() or w.digests_dock.isHidden() or w.digests_dock.isFloating()
                or w.dockWidgetArea(dock) != Qt.DockWidgetArea.BottomDockWidgetArea):
            return  # the user's own place for it
        self._default = self._saved is None and not self._been_wide and not w._restored_state
        self._wide_state, self._wide_size = self._saved or self._last_wide or (w.saveState(), w.size())
        self._saved = self._last_wide = None
        had_focus = dock.isAncestorOf(w.focusWidget()) if w.focusWidget() is not None else False
        self._title = dock.windowTitle()
        menu_text = dock.toggleViewAction().text()
        dock.setWindowTitle("Resume")  # its tab beside "Digests" (the whole title was cut to "Resume — tim…")
        dock.toggleViewAction().setText(menu_text)
        w.tabifyDockWidget(w.digests_dock, dock)
        for bar in w.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.setAccessibleName("Docked panes")  # (the window's own tab bar of tabbed docks: Qt leaves it unnamed)
        (dock if had_focus else w.digests_dock).raise_()
        self.compact = True
        w.layout().activate()  # (the tabbed docks laid out first: then their widths are set)
        compact_dock_sizes(w)
        self._compact_arrangement = self._arrangement()

    def _leave(self) -> None:
        w = self.w
        mine = self.user_rearranged()
        self.compact = False
        state, size, self._wide_state, self._compact_arrangement = self._wide_state, self._wide_size, None, None
        self._restore_title()
        if state is None or not self._tabbed() or mine:
            return  # the user rearranged the docks meanwhile: their arrangement stays
        shown = {d: d.isVisible() for d in w.findChildren(QDockWidget) if d is not w.resume_panes.dock}
        w.restoreState(state)
        for d, visible in shown.items():  # (a folder opened while narrow stays open)
            if d.isVisible() != visible:
                d.setVisible(visible)
        w.layout().activate()  # (the docks take the restored sizes now, not at the next layout request)
        if self._default:  # a narrow first start: the default sizes for this width, not the narrow ones grown
            default_dock_sizes(w)
        else:  # saved in a window of another size: the docks keep their share of it
            scale_docks(w, size, w.size())


def compact_dock_sizes(w) -> None:
    """Dock widths of main window ``w`` in the compact layout: the bytes 8 a row, the verdicts their
    label and rule id columns whole (the widest rule id of the catalogue), the trees the rest but at
    least 20% of the window. (Tabbed, the Digests dock took 588 px of 1024: the rule ids read "D-".)"""
    fv = w.findings_view
    central = fv.columnWidth(0) + fv.columnWidth(1) + fv.verticalScrollBar().sizeHint().width() \
        + 2 * fv.frameWidth() + 8 + 4  # (the central widget's margins, the splitter)
    bytes_w = max(w.hex_payload.narrow_width() + 12,  # (no narrower than the Resume dock tabbed under it can be)
                  *(d.minimumSizeHint().width() for d in (w.digests_dock, w.resume_panes.dock)))
    width = w.width() - 16  # (the separators)
    trees = max(int(w.width() * 0.20), width - central - bytes_w)
    w.resizeDocks([w.trees_dock, w.bytes_dock], [trees, bytes_w], Qt.Orientation.Horizontal)
