"""GUI test fixtures: a main window with throw-away settings, and helpers that wait for jobs."""

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings, QThreadPool  # noqa: E402

from tests.conftest import CASES, GOLDEN, SAMPLES  # noqa: E402

GOLDEN_P = GOLDEN / "payload-with-resume.json"
GOLDEN_D = GOLDEN / "descriptor-with-resume.json"


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings):
    from inspector.gui.window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.cancel_load()
    QThreadPool.globalInstance().waitForDone(20000)
    w.edited = False


@pytest.fixture
def window_1024(qtbot, settings):
    """A main window shown at 1024x700 from the start (its default dock sizes for that size)."""
    from inspector.gui.window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.resize(1024, 700)
    w.show()
    qtbot.waitUntil(lambda: w.width() == 1024 and w.height() == 700, timeout=1000)
    yield w
    w.cancel_load()
    QThreadPool.globalInstance().waitForDone(20000)


def open_f2_editor(qtbot, window, pointer):
    """Select ``pointer`` in the snapshot tree and press F2, as a user does; returns ``(view, editor)``,
    the editor having the focus."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    view = window.snap_pane.view
    window.focus_pane(view)
    idx = window.snap_model.index_for_pointer(pointer)
    view.scrollTo(idx)
    view.setCurrentIndex(idx)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    QTest.keyClick(view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not view)
    return view, QApplication.focusWidget()


def stale_now(qtbot, window, timeout=5000) -> bool:
    """Start the window's stale check (it runs off the GUI thread) and return its answer."""
    with qtbot.waitSignal(window.doc.staleChecked, timeout=timeout) as answered:
        window.check_stale()
    return answered.args[0]


def open_and_wait(qtbot, window, paths, timeout=20000):
    """Open ``paths`` and wait until trees, verdicts and digests are shown."""
    with qtbot.waitSignal(window.analysisReady, timeout=timeout):
        assert window.open_paths([str(p) for p in paths])
    return window.report


def open_mixed_folder(qtbot, window, folder):
    """Fill ``folder`` with two pairs, a lone descriptor and notes.txt, open it; returns the scan's count."""
    folder.mkdir()
    for src in (GOLDEN_P, GOLDEN_D, SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json",
                CASES / "44-p-f32-08.descriptor.json"):
        shutil.copyfile(src, folder / src.name)
    (folder / "notes.txt").write_text("not a checkpoint")
    with qtbot.waitSignal(window.folderScanned, timeout=30000) as blocker:
        window.open_paths([str(folder)])
    return blocker.args[0]


@pytest.fixture
def copies(tmp_path):
    """Copy named fixture files into tmp_path (so tests can change or watch them)."""
    def make(*sources):
        out = []
        for src in sources:
            src = Path(src)
            dst = tmp_path / src.name
            shutil.copyfile(src, dst)
            out.append(dst)
        return out
    return make


__all__ = ["GOLDEN_P", "GOLDEN_D", "CASES", "SAMPLES", "open_and_wait", "open_mixed_folder"]


def go_to(qtbot, window, pointer):
    """Ctrl+G, type ``pointer``, Enter (as a user would); returns the current tree index."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from inspector.gui.roles import PointerRole

    QTest.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    field = window.find_bar.pointer
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    field.clear()
    QTest.keyClicks(field, pointer)
    QTest.keyClick(field, Qt.Key.Key_Return)
    view = window.snap_pane.view
    assert view.currentIndex().data(PointerRole) == pointer
    return view.currentIndex()
