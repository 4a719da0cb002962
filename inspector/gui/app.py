"""Application bootstrap: ``run(argv)`` creates the QApplication and the main window.

``checkpoint-inspector`` with no arguments opens the bundled sample checkpoint;
``checkpoint-inspector FILE...`` opens those files (or a folder). High-DPI scaling and the
system light/dark palette are Qt 6 defaults and are left on.
"""

from __future__ import annotations

import logging
import sys
import traceback
from importlib import resources
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from . import single_instance
from .jobs import internal_error_text
from .single_instance import PathCollector

if TYPE_CHECKING:  # (the window is imported only once this start will show one: a hand-off never needs it)
    from .window import MainWindow

__all__ = ["run", "create_app", "FileOpenFilter", "show_font_notice"]

ORGANIZATION = "A3S"
APPLICATION = "Checkpoint Inspector"


def create_app(argv: list[str] | None = None) -> QApplication:
    """The running QApplication, created (with organisation/application names) if needed."""
    app = QApplication.instance()
    if app is None:
        QCoreApplication.setOrganizationName(ORGANIZATION)
        QCoreApplication.setApplicationName(APPLICATION)
        app = QApplication([sys.argv[0] if sys.argv else "checkpoint-inspector"])
        app.setApplicationDisplayName(APPLICATION)
        app.setDesktopFileName("checkpoint-inspector")
        app.setWindowIcon(_app_icon())
        from . import fonts

        fonts.register_bundled_fonts()  # the portable bundle's fonts fill in missing scripts
        from inspector.session.visible import use_pictures

        use_pictures(fonts.control_pictures())  # (a control shows as ␛ only where the fonts draw it)
    return app


def _app_icon() -> QIcon:
    """The application icon from the bundled PNG sizes (``inspector.resources/icons``)."""
    icon = QIcon()
    icons = resources.files("inspector.resources") / "icons"
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        png = icons / f"checkpoint-inspector-{size}.png"
        if png.is_file():
            pixmap = QPixmap()
            pixmap.loadFromData(png.read_bytes())
            icon.addPixmap(pixmap)
    return icon


def _install_excepthook(window: MainWindow) -> None:
    """Unexpected exceptions in slots become a message in the window, never a traceback dialog."""
    log = logging.getLogger("inspector.gui")

    def hook(exc_type, exc, tb):
        # Type and stack frames only: the exception's text can quote the checkpoint's content.
        log.debug("unhandled %s\n%s", exc_type.__name__, "".join(traceback.format_tb(tb)))
        try:
            window.show_banner("error", "error", internal_error_text(exc_type.__name__, "handling that action"))
        except Exception:  # noqa: BLE001 - last resort
            if sys.stderr is not None:  # (None in the windowed Windows executable)
                sys.stderr.write(f"checkpoint-inspector: internal error ({exc_type.__name__})\n")

    sys.excepthook = hook


class FileOpenFilter(QObject):
    """Application-level event filter for ``QEvent.FileOpen``: macOS delivers the files of
    Finder's double-click / "Open With" (and of `open -a`) as these events, not as ``argv``.
    Each file goes to ``collector`` (the one other instances hand their files to), so files
    arriving together (a payload and its descriptor) are opened as one pair.

    Args:
        window: the main window (the owner; its ``open_paths`` opens the files).
        collector: a :class:`~.single_instance.PathCollector`; default: a new one for ``window``.
    """

    def __init__(self, window: MainWindow, collector: PathCollector | None = None):
        super().__init__(window)
        self._window = window
        self.collector = collector if collector is not None else PathCollector(window.open_paths, window)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.FileOpen:
            path = event.file() or event.url().toLocalFile()
            if path:
                self.collector.add([path])
            return True
        return False


def show_font_notice(window: MainWindow) -> str | None:
    """If a script's sample falls back to the missing-glyph box, say so in a non-blocking banner
    (``fonts``) naming the scripts and the package to install, and on stderr (the banner may be boxes too);
    returns the text or ``None``."""
    from . import fonts

    problems = fonts.coverage_problems()
    if not problems:
        return None
    text = "FONTS — " + fonts.notice_text(problems)
    window.show_banner("fonts", "info", text)
    # also on stderr: with no usable font the banner itself is drawn in boxes (a windowed Windows start has no
    # stderr: sys.stderr is None there)
    if sys.stderr is not None:
        try:
            sys.stderr.write(f"checkpoint-inspector: {text}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return text


def _say_handed_off(n: int) -> None:
    """Tell a terminal user that the files went to the window already open (nothing else shows it here: that
    window may be on another desktop); quiet when stderr is not a terminal (a desktop launch)."""
    stream = sys.stderr
    try:
        if stream is not None and stream.isatty():
            stream.write(f"checkpoint-inspector: opened {'the sample' if not n else f'{n} item(s)'} in the "
                         "Checkpoint Inspector window already running (--new-window opens one of its own)\n")
    except (OSError, ValueError):
        pass


def run(argv: list[str], new_window: bool = False) -> int:
    """Open the window on ``argv`` paths (files or one folder), or on the bundled sample.

    When another instance of this user runs (:mod:`.single_instance`) and ``argv`` has paths, they are
    handed to it and this returns 0 without a window; otherwise this instance listens for later ones, and
    a single path of its own waits :data:`~.single_instance.COLLECT_MS` for theirs, so the files of one
    Explorer selection open together (two or more paths, or no listening server: opened at once).

    Args:
        argv: paths to open (options, starting with ``-``, are ignored).
        new_window: ``--new-window``: neither hand off nor listen.

    Returns:
        the Qt event loop's exit code (0 after a handoff).
    """
    # A frozen build's worker processes (large files) are dispatched by ``freeze_support()`` in the
    # bundle's launcher (packaging/pyinstaller/launcher.py), before the command line is read.
    # Name a missing system library (e.g. libxcb-cursor0) instead of letting Qt abort.
    from inspector import platform_check

    code = platform_check.preflight()
    if code is not None:
        return code
    platform_check.install_fatal_platform_handler()
    app = create_app(argv)
    paths = [a for a in argv if not a.startswith("-")]
    server = None
    if single_instance.enabled(app.platformName(), new_window):
        claimed = single_instance.claim(single_instance.server_name(), paths)
        if claimed.handed_off:
            _say_handed_off(len(paths))
            return 0
        if claimed.note:
            logging.getLogger("inspector.gui").debug("single instance: %s", claimed.note)
        server = claimed.server
    from .window import MainWindow  # (after the hand-off: a second start that hands its files on stops above)

    window = MainWindow()
    _install_excepthook(window)
    collector = PathCollector(window.open_paths, window)
    app.installEventFilter(FileOpenFilter(window, collector))
    if server is not None:
        server.setParent(window)
        server.pathsReceived.connect(collector.add)
    window.show()
    QTimer.singleShot(0, lambda: show_font_notice(window))
    if paths:
        collector.add(paths)
        if server is None or len(paths) > 1:
            # nobody can hand files to this window, or the pair came in one command line (a Linux file
            # manager's %F): open now; else once other instances' files had a moment to arrive (Explorer
            # starts one process per selected file)
            QTimer.singleShot(0, collector.flush)
    else:
        QTimer.singleShot(0, window.open_sample)
    return app.exec()
