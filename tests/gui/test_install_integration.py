"""What the installers rely on in the GUI: every script really drawn (font coverage read back
from the glyphs Qt draws), the start-up font notice, macOS FileOpen events, the bundled sample
never reported as "changed on disk", and Help ▸ About's licences."""

import os
import shutil

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QFileOpenEvent, QFont
from PySide6.QtWidgets import QApplication

from inspector import __version__
from inspector.gui import about, app as gui_app, fonts
from tests.gui.conftest import GOLDEN_D, GOLDEN_P, stale_now
from inspector.checkpoint import catalogue  # noqa: E402


def _no_fallback(family="DejaVu Sans") -> QFont:
    font = QFont(family)
    font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)  # Qt must not borrow glyphs from other fonts
    return font


def test_each_script_is_drawn_with_installed_fonts(qapp):
    assert fonts.coverage_problems() == []  # CI installs DejaVu, WenQuanYi Micro Hei, Noto Color Emoji


def test_a_latin_only_font_draws_cjk_as_the_missing_glyph_box(qapp):
    assert fonts.missing_characters("a调b试 Ωж", _no_fallback()) == ["调", "试"]
    problems = fonts.coverage_problems(font=_no_fallback())
    assert [(s.name, len(m)) for s, m in problems] == [("CJK", 12), ("emoji", 2)]
    assert fonts.notice_text(problems) == (
        "no installed font draws CJK (12 of 12 sample characters), emoji (2 of 3 sample characters): such text "
        "shows as boxes; fix: sudo apt install fonts-noto-cjk fonts-noto-color-emoji "
        "(Fedora: sudo dnf install google-noto-sans-cjk-fonts google-noto-color-emoji-fonts)")


def test_start_up_notice_names_the_missing_scripts_and_packages(qapp, window, capsys):
    assert gui_app.show_font_notice(window) is None
    assert window.banner_text("fonts") is None
    saved = QApplication.font()
    QApplication.setFont(_no_fallback())
    try:
        text = gui_app.show_font_notice(window)
    finally:
        QApplication.setFont(saved)
    assert text.startswith("FONTS — no installed font draws CJK (12 of 12 sample characters), emoji")
    assert window.banner_text("fonts") == text
    assert window.isEnabled()  # a banner, not a modal dialog
    # and on stderr, where it reads even when no font draws the banner
    assert capsys.readouterr().err == f"checkpoint-inspector: {text}\n"


def test_file_open_events_open_the_files_as_one_pair(qtbot, window):
    qapp = QApplication.instance()
    fil = gui_app.FileOpenFilter(window)
    qapp.installEventFilter(fil)
    try:
        with qtbot.waitSignal(window.analysisReady, timeout=20000):
            QCoreApplication.postEvent(qapp, QFileOpenEvent(str(GOLDEN_P)))
            QCoreApplication.postEvent(qapp, QFileOpenEvent(QUrl.fromLocalFile(str(GOLDEN_D))))
    finally:
        qapp.removeEventFilter(fil)
    assert window.payload.path == str(GOLDEN_P)
    assert window.descriptor.path == str(GOLDEN_D)
    assert window.report.verified


def test_bundled_sample_replaced_by_an_upgrade_is_not_stale(qtbot, window, tmp_path, monkeypatch):
    from inspector.gui import document as window_module
    from tests.gui.conftest import open_and_wait

    real = window_module.sample_paths("sample")
    copies = [tmp_path / os.path.basename(p) for p in real]
    for src, dst in zip(real, copies):
        shutil.copyfile(src, dst)
    monkeypatch.setattr(window_module, "sample_paths", lambda name="sample": [str(c) for c in copies])
    open_and_wait(qtbot, window, copies)
    assert window.is_sample()
    assert window.doc.watcher.files() == []
    for c in copies:  # dpkg unpacks a new file and renames it over the old one
        new = c.with_suffix(".dpkg-new")
        new.write_bytes(c.read_bytes() + b"\n")
        os.replace(new, c)
    with qtbot.assertNotEmitted(window.doc.staleChecked, wait=300):  # the sample is not a user file: no check
        window.check_stale()
    assert window.banner_text("stale") is None


def test_user_files_are_still_watched(qtbot, window, copies):
    from tests.gui.conftest import open_and_wait

    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    assert sorted(window.doc.watcher.files()) == sorted([str(p), str(d)])
    p.write_bytes(p.read_bytes() + b" ")
    assert stale_now(qtbot, window) is True
    assert "changed on disk" in window.banner_text("stale")


def test_about_names_the_licences_and_the_dialog_shows_every_text(qapp):
    assert f"Checkpoint Inspector {__version__}" in about.about_text()
    assert "Apache License 2.0" in about.about_text() and "LGPL-3.0" in about.about_text()
    #: the About box names the pinned reference and the rule catalogue
    assert ("Pinned reference A3S Code 8.3.0 (commit 06c82e911df5ab16292cf16c3359f6656daf6e81), serde_json 1.0.151; "
            f"rule catalogue {len(catalogue())} rules, sha256:") in about.about_text()
    dialog = about.LicencesDialog()
    text = dialog.text.toPlainText()
    assert text.startswith("Checkpoint Inspector — LICENSE\n\n")
    assert "Version 2.0, January 2004" in text
    assert "orjson" in text and "PySide6" in text
    assert dialog.text.isReadOnly()


def test_help_about_licences_button_opens_the_licence_texts(qtbot, window):
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMessageBox, QPushButton

    seen: dict[str, str] = {}

    def click_licences():
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
        seen["about"] = box.text()
        button = next(b for b in box.findChildren(QPushButton) if b.text() == "Licences…")
        QTimer.singleShot(100, close_licences)
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)

    def close_licences():
        dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, about.LicencesDialog) and w.isVisible())
        seen["licences"] = dialog.text.toPlainText()
        QTest.keyClick(dialog, Qt.Key.Key_Escape)

    action = next(a for m in window.menuBar().actions() for a in m.menu().actions()
                  if a.text().replace("&", "") == "About Checkpoint Inspector")
    QTimer.singleShot(100, click_licences)
    action.trigger()
    assert f"Checkpoint Inspector {__version__}" in seen["about"]
    assert "Version 2.0, January 2004" in seen["licences"] and "orjson" in seen["licences"]
