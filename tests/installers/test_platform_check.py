"""Missing display libraries are named with their install command instead of a Qt abort."""

import io

import pytest

from inspector import platform_check as pc
from inspector.platform_check import MissingLibrary


@pytest.mark.parametrize("env, plat, expected", [
    ({}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "xcb:nomitshm"}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", None),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", None),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", None),
    ({}, "win32", None),
    ({}, "darwin", None),
])
def test_display_platform(env, plat, expected):
    assert pc.display_platform(env, plat) == expected


def _loader(absent: set[str], plugin_error: str = ""):
    def load(name):
        if name in absent:
            return False, f"{name}: cannot open shared object file: No such file or directory"
        if name.endswith("libqxcb.so") and plugin_error:
            return False, plugin_error
        return True, ""
    return load


def test_missing_libraries_come_from_the_table_with_packages():
    missing = pc.missing_display_libraries(loader=_loader({"libxcb-cursor.so.0", "libxcb-icccm.so.4"}),
                                           plugin_path=None)
    assert missing == [MissingLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
                       MissingLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm")]


def test_a_present_library_with_a_missing_dependency_reports_the_dependency():
    def load(name):
        if name == "libxcb.so.1":
            return False, "libxcb.so.1: cannot open shared object file: No such file or directory"
        if name.startswith("libxcb-"):  # bundled, but they need the system's libxcb.so.1
            return False, "libxcb.so.1: cannot open shared object file: No such file or directory"
        return True, ""

    assert pc.missing_display_libraries(loader=load, plugin_path=None) == [
        MissingLibrary("libxcb.so.1", "libxcb1", "libxcb")]


def test_nothing_missing_and_plugin_loads():
    assert pc.missing_display_libraries(loader=_loader(set()), plugin_path="/x/platforms/libqxcb.so") == []


def test_a_dependency_outside_the_table_is_named_from_the_loader_error():
    err = "libfoo-bar.so.3: cannot open shared object file: No such file or directory"
    missing = pc.missing_display_libraries(loader=_loader(set(), err), plugin_path="/x/platforms/libqxcb.so")
    assert missing == [MissingLibrary("libfoo-bar.so.3")]


def test_a_known_dependency_found_via_the_plugin_keeps_its_packages():
    err = "libxcb-xkb.so.1: cannot open shared object file: No such file or directory"
    missing = pc.missing_display_libraries(loader=_loader(set(), err), plugin_path="/x/platforms/libqxcb.so")
    assert missing == [MissingLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb")]


def test_message_names_library_and_commands():
    text = pc.format_missing([MissingLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor")])
    assert text.splitlines() == [
        "checkpoint-inspector: cannot open the window: the Qt 'xcb' display platform needs a system library "
        "that is not installed: libxcb-cursor.so.0.",
        "Install with:",
        "  Debian/Ubuntu:  sudo apt install libxcb-cursor0",
        "  Fedora/RHEL:    sudo dnf install xcb-util-cursor",
        "The headless commands (checkpoint-inspector verify ...) work without them.",
    ]


def test_message_for_an_unknown_library_names_it():
    text = pc.format_missing([MissingLibrary("libfoo.so.1")])
    assert "not installed: libfoo.so.1." in text
    assert "Install the package of your distribution that provides libfoo.so.1." in text


def test_preflight_prints_and_returns_exit_code_3():
    out = io.StringIO()
    code = pc.preflight(stream=out, environ={"DISPLAY": ":0"}, loader=_loader({"libxcb-keysyms.so.1"}))
    if not pc.display_platform({}):
        assert code is None
        return
    assert code == pc.EXIT_MISSING_LIBRARY == 3
    assert "libxcb-keysyms.so.1" in out.getvalue() and "sudo apt install libxcb-keysyms1" in out.getvalue()


NO_DISPLAY = ("checkpoint-inspector: cannot open the window: there is no display to connect to (neither DISPLAY "
              "nor WAYLAND_DISPLAY is set: no desktop session, e.g. over SSH without -X, in CI or in a service).")
HEADLESS = ("The headless commands work without a display: checkpoint-inspector verify FILE ... "
            "(see checkpoint-inspector --help).")


@pytest.mark.skipif(not pc.display_platform({}), reason="xcb is Linux only")
def test_preflight_without_a_display_says_so_not_a_library():
    out = io.StringIO()
    assert pc.preflight(stream=out, environ={}, loader=_loader(set())) == pc.EXIT_NO_DISPLAY == 3
    assert out.getvalue().splitlines() == [NO_DISPLAY, HEADLESS]
    # a library that is really missing too is a second, separate sentence
    out = io.StringIO()
    assert pc.preflight(stream=out, environ={}, loader=_loader({"libxcb-icccm.so.4"})) == 3
    assert out.getvalue().splitlines() == [NO_DISPLAY, HEADLESS,
                                           "Also, on a desktop the window would need a system library that is not "
                                           "installed: libxcb-icccm.so.4 (sudo apt install libxcb-icccm4)."]
    out = io.StringIO()  # a Wayland session is a display too (Qt picks its platform)
    assert pc.preflight(stream=out, environ={"WAYLAND_DISPLAY": "wayland-0"}, loader=_loader(set())) is None


def test_preflight_is_silent_for_offscreen():
    out = io.StringIO()
    assert pc.preflight(stream=out, environ={"QT_QPA_PLATFORM": "offscreen"}, loader=_loader({"libxcb.so.1"})) is None
    assert out.getvalue() == ""


QT_FATAL = ('From 6.5.0, xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin.\n'
            'Could not load the Qt platform plugin "xcb" in "" even though it was found.\n'
            'This application failed to start because no Qt platform plugin could be initialized.')


DESKTOP = {"DISPLAY": ":0"}


def test_fatal_text_prefers_what_is_really_missing_over_qts_guess():
    # Qt blames xcb-cursor whenever the plugin fails; the probe finds the real culprit.
    real = [MissingLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm")]
    text = pc._fatal_text(QT_FATAL, probe=lambda: real, environ=DESKTOP)
    assert "not installed: libxcb-icccm.so.4." in text and "libxcb-cursor" not in text


def test_fatal_text_never_names_a_library_that_loads():
    # the probe loaded every library: Qt's "libxcb-cursor0 is needed" is not repeated
    text = pc._fatal_text(QT_FATAL, probe=lambda: [], environ=DESKTOP)
    assert "libxcb-cursor" not in text and "apt install" not in text
    assert text.startswith('checkpoint-inspector: cannot open the window: Qt could not load its display platform '
                           'plugin (Could not load the Qt platform plugin "xcb" in "" even though it was found.)')


def test_fatal_text_falls_back_to_the_library_qt_names_only_if_the_probe_fails():
    def broken():
        raise OSError("no dynamic loader")
    text = pc._fatal_text(QT_FATAL, probe=broken, environ=DESKTOP)
    assert "not installed: libxcb-cursor.so.0." in text and "sudo apt install libxcb-cursor0" in text


#: What Qt 6 prints, in order, when the xcb plugin (all libraries present) finds no X server
#: (captured from PySide6 6.x here, with and without DISPLAY).
def _qt_no_server(display: str) -> str:
    return (f"could not connect to display {display}\n"
            "From 6.5.0, xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin.\n"
            'Could not load the Qt platform plugin "xcb" in "" even though it was found.\n'
            "This application failed to start because no Qt platform plugin could be initialized. "
            "Reinstalling the application may fix this problem.")


def test_fatal_text_without_a_display_blames_the_display_not_libxcb_cursor():
    text = pc._fatal_text(_qt_no_server(""), probe=lambda: [], environ={})
    assert text.splitlines() == [NO_DISPLAY, HEADLESS]
    text = pc._fatal_text(_qt_no_server(":77"), probe=lambda: [], environ={"DISPLAY": ":77"})
    assert text.splitlines() == [
        "checkpoint-inspector: cannot open the window: no X server answers on display ':77' (DISPLAY); "
        "is the desktop session still running, and may this user use it?", HEADLESS]


def test_fatal_text_without_a_known_library_still_explains():
    text = pc._fatal_text('Could not load the Qt platform plugin "foo"', probe=lambda: [], environ=DESKTOP)
    assert text.startswith("checkpoint-inspector: cannot open the window: Qt could not load its display platform")
    assert pc._fatal_text("some other fatal error", probe=lambda: []) is None


def test_fatal_handler_turns_a_qt_abort_into_a_message_and_exit_3():
    """A real QApplication whose platform plugin cannot load: without the handler Qt aborts
    (SIGABRT, exit -6); with it, the process prints our text and exits 3."""
    import os
    import subprocess
    import sys

    pytest.importorskip("PySide6")
    code = ("from inspector import platform_check as pc\n"
            "pc.install_fatal_platform_handler()\n"
            "from PySide6.QtWidgets import QApplication\n"
            "QApplication(['x'])\n")
    env = dict(os.environ, QT_QPA_PLATFORM="no-such-platform")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 3, p.stderr
    assert p.stderr.startswith("checkpoint-inspector: cannot open the window: Qt could not load its display "
                               "platform plugin (")
    assert "no-such-platform" in p.stderr
    assert "Aborted" not in p.stderr and "core dumped" not in p.stderr
    assert "libxcb" not in p.stderr  # whatever this machine has installed: the platform was not xcb


def _subprocess_env(**extra):
    import os

    from tests.conftest import ROOT

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(extra, PYTHONPATH=str(ROOT))
    return env


@pytest.mark.skipif(not pc.display_platform({}), reason="xcb is Linux only")
def test_the_real_command_without_a_display_says_so_and_exits_3():
    """The issue's case: no DISPLAY at all. Not "install libxcb-cursor0", whatever is installed."""
    import subprocess
    import sys

    from tests.conftest import GOLDEN

    pytest.importorskip("PySide6")
    p = subprocess.run([sys.executable, "-m", "inspector", str(GOLDEN / "payload-with-resume.json")],
                       capture_output=True, text=True, env=_subprocess_env(), timeout=60)
    assert p.returncode == 3, p.stderr
    assert p.stderr.splitlines()[:2] == [NO_DISPLAY, HEADLESS]
    assert "libxcb-cursor" not in p.stderr or "libxcb-cursor.so.0" in {
        m.soname for m in pc.missing_display_libraries()}


@pytest.mark.skipif(not pc.display_platform({}), reason="xcb is Linux only")
def test_the_fatal_handler_with_a_display_nobody_answers_on():
    """DISPLAY names no X server: Qt's plugin (if its libraries load) cannot connect; the handler says
    so. Where libraries are missing, the plugin fails first and exactly those are named."""
    import subprocess
    import sys

    pytest.importorskip("PySide6")
    code = ("from inspector import platform_check as pc\n"
            "pc.install_fatal_platform_handler()\n"
            "from PySide6.QtWidgets import QApplication\n"
            "QApplication(['x'])\n")
    env = _subprocess_env(QT_QPA_PLATFORM="xcb", DISPLAY=":77")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 3, p.stderr
    missing = pc.missing_display_libraries()
    if missing:
        assert p.stderr == pc.format_missing(missing) + "\n"
    else:
        assert p.stderr.splitlines() == [
            "checkpoint-inspector: cannot open the window: no X server answers on display ':77' (DISPLAY); "
            "is the desktop session still running, and may this user use it?", HEADLESS]


def test_can_load_reports_the_loaders_own_error_under_a_wrapping_exception(monkeypatch):
    """PyInstaller's ctypes hook raises its own OSError *from* the loader's; the loader's names the file."""
    import ctypes

    def fake_cdll(name):
        try:
            raise OSError("libxcb.so.1: cannot open shared object file: No such file or directory")
        except OSError as base:
            raise OSError(f"Failed to load dynlib/dll {name!r}. Most likely this dynlib/dll was not found "
                          "when the application was frozen.") from base

    monkeypatch.setattr(ctypes, "CDLL", fake_cdll)
    assert pc._can_load("libxcb-cursor.so.0") == (
        False, "libxcb.so.1: cannot open shared object file: No such file or directory")
    assert pc.missing_display_libraries(plugin_path=None)[0] == MissingLibrary("libxcb.so.1", "libxcb1", "libxcb")
