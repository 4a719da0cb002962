"""``--self-test`` proves text is drawn: on a system whose fontconfig knows only DejaVu (no CJK,
no colour emoji) it fails, naming the scripts and the packages to install."""

import os
import shutil
import subprocess
import sys

import pytest

from inspector import selftest

DEJAVU = "/usr/share/fonts/truetype/dejavu"


@pytest.mark.skipif(not (sys.platform.startswith("linux") and os.path.isdir(DEJAVU) and shutil.which("fc-list")),
                    reason="fontconfig with DejaVu (Linux)")
def test_self_test_fails_naming_the_font_packages_when_only_dejavu_is_installed(tmp_path):
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?><fontconfig><dir>{DEJAVU}</dir>'
                    f'<cachedir>{tmp_path / "cache"}</cachedir></fontconfig>\n')
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["FONTCONFIG_FILE"] = str(conf)
    r = subprocess.run([sys.executable, "-m", "inspector", "--self-test"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    line = r.stdout.strip()
    assert " self-test FAIL (" in line
    assert ("gui: no installed font draws CJK (12 of 12 sample characters), emoji (2 of 3 sample characters): "
            "such text shows as boxes; fix: sudo apt install fonts-noto-cjk fonts-noto-color-emoji") in line
    # the failed check comes first in the line
    assert line.split("checks): ", 1)[1].startswith("gui: no installed font draws CJK")


def test_offscreen_font_directory_is_set_only_on_windows():
    assert selftest.offscreen_font_environment({"WINDIR": "D:\\Win"}, "win32") == {"QT_QPA_FONTDIR": os.path.join("D:\\Win", "Fonts")}
    assert selftest.offscreen_font_environment({"QT_QPA_FONTDIR": "X"}, "win32") == {}
    assert selftest.offscreen_font_environment({}, "linux") == {}
    assert selftest.offscreen_font_environment({}, "darwin") == {}
