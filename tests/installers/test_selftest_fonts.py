"""``--self-test`` tells the truth about fonts: no font at all fails with the fix; a system whose
fontconfig knows only DejaVu (no CJK, no colour emoji) passes with a warning naming the scripts and the
packages to install."""

import os
import shutil
import subprocess
import sys

import pytest

from inspector import selftest

DEJAVU = "/usr/share/fonts/truetype/dejavu"


def _fontconfig_with(tmp_path, folder) -> dict:
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?><fontconfig><dir>{folder}</dir>'
                    f'<cachedir>{tmp_path / "cache"}</cachedir></fontconfig>\n')
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["FONTCONFIG_FILE"] = str(conf)
    return env


_FONTCONFIG = pytest.mark.skipif(not (sys.platform.startswith("linux") and os.path.isdir(DEJAVU)
                                      and shutil.which("fc-list")), reason="fontconfig with DejaVu (Linux)")


@_FONTCONFIG
def test_self_test_passes_with_a_warning_naming_the_packages_when_only_dejavu_is_installed(tmp_path):
    """Latin, Greek and Cyrillic draw (the window's own text is Latin); CJK and emoji only appear in checkpoint
    content: a warning line with the packages to install, exit 0."""
    r = subprocess.run([sys.executable, "-m", "inspector", "--self-test"], capture_output=True, text=True,
                       env=_fontconfig_with(tmp_path, DEJAVU), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    line, warning = r.stdout.strip().splitlines()
    assert " self-test PASS (" in line
    assert "text drawn in Latin, Greek, Cyrillic (not CJK, emoji: see the warning)" in line
    assert warning == ("checkpoint-inspector self-test warning: gui: no installed font draws CJK (12 of 12 sample "
                       "characters), emoji (2 of 3 sample characters): such text shows as boxes; fix: sudo apt "
                       "install fonts-noto-cjk fonts-noto-color-emoji (Fedora: sudo dnf install "
                       "google-noto-sans-cjk-fonts google-noto-color-emoji-fonts)")


@_FONTCONFIG
def test_self_test_fails_naming_the_fix_when_no_font_is_installed(tmp_path):
    """No font at all: Qt still lists fontconfig's alias families and draws every character with its box engine
    (glyph 1, not 0); the self-test sees the boxes and fails with the fix."""
    empty = tmp_path / "no-fonts"
    empty.mkdir()
    r = subprocess.run([sys.executable, "-m", "inspector", "--self-test"], capture_output=True, text=True,
                       env=_fontconfig_with(tmp_path, empty), timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    (line,) = r.stdout.strip().splitlines()
    assert line.split("checks): ", 1)[1].startswith(
        "gui: the window's own text would not be readable: no installed font draws Latin (21 of 21 sample "
        "characters): such text shows as boxes; fix: sudo apt install fonts-dejavu-core")


def test_the_box_is_told_from_a_glyph_in_a_faked_font_database(qapp, monkeypatch):
    """The glyph check, fed what Qt draws (faked): glyph 0, Qt's box engine (glyph 1 in a font with no pixel
    size), and the glyph an unassigned code point gets are boxes; a real glyph is not."""
    from inspector.gui import fonts

    drawn = {"A": [(36, 2048.0, 12.0)], "Ω": [(0, 2048.0, 12.0)], "调": [(1, 12.0, -1.0)], "😀": [(5, 12.0, 9.0)],
             fonts._UNASSIGNED: [(5, 12.0, 9.0)]}
    monkeypatch.setattr(fonts, "_glyphs", lambda ch, font, image: drawn[ch])
    assert fonts.missing_characters("A Ω 调 😀") == ["Ω", "调", "😀"]


def test_gui_check_fails_when_latin_is_boxes_and_warns_when_only_content_scripts_are(qapp, monkeypatch):
    from inspector.gui import fonts

    latin_only = {s.name: [] for s in fonts.SCRIPTS} | {"CJK": ["调"], "emoji": ["😀"]}
    monkeypatch.setattr(fonts, "coverage_problems",
                        lambda: [(s, latin_only[s.name]) for s in fonts.SCRIPTS if latin_only[s.name]])
    r = selftest.check_gui()
    assert r.ok and r.detail.endswith("text drawn in Latin, Greek, Cyrillic (not CJK, emoji: see the warning)")
    assert r.warning == ("gui: no installed font draws CJK (1 of 12 sample characters), emoji (1 of 3 sample "
                         "characters): such text shows as boxes; fix: sudo apt install fonts-noto-cjk "
                         "fonts-noto-color-emoji (Fedora: sudo dnf install google-noto-sans-cjk-fonts "
                         "google-noto-color-emoji-fonts)")
    assert selftest.warning_lines([r]) == ["checkpoint-inspector self-test warning: " + r.warning]
    monkeypatch.setattr(fonts, "coverage_problems", lambda: [(fonts.SCRIPTS[0], ["A"])])
    r = selftest.check_gui()
    assert not r.ok and r.detail == ("gui: the window's own text would not be readable: no installed font draws "
                                     "Latin (1 of 21 sample characters): such text shows as boxes; fix: sudo apt "
                                     "install fonts-dejavu-core (Fedora: sudo dnf install dejavu-sans-fonts)")


def test_offscreen_font_directory_is_set_only_on_windows():
    assert selftest.offscreen_font_environment({"WINDIR": "D:\\Win"}, "win32") == {"QT_QPA_FONTDIR": os.path.join("D:\\Win", "Fonts")}
    assert selftest.offscreen_font_environment({"QT_QPA_FONTDIR": "X"}, "win32") == {}
    assert selftest.offscreen_font_environment({}, "linux") == {}
    assert selftest.offscreen_font_environment({}, "darwin") == {}
