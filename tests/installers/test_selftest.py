"""``checkpoint-inspector --self-test``: each check on the real bundled samples, the one-line
summary, the exit code, and the dispatch from the console script."""

import os
import subprocess
import sys

import pytest

from inspector import entry, selftest
from inspector.platform_check import MissingLibrary
from inspector.selftest import CheckResult


def test_rules_check_counts_the_catalogue():
    from inspector.checkpoint import catalogue

    r = selftest.check_rules()
    assert r == CheckResult("rules", True, f"rule catalogue {len(catalogue())} rules")


def test_sample_check_recomputes_the_pinned_values():
    r = selftest.check_sample()
    assert r.ok, r.detail
    assert r.detail == "sample verified (2090 B, sha256:122347d3f894...)"


def test_broken_check_finds_x_bytes():
    assert selftest.check_broken() == CheckResult("broken", True, "broken sample fails X-BYTES")


def test_sample_check_fails_when_the_bundled_sample_is_altered(monkeypatch):
    real = selftest._sample
    monkeypatch.setattr(selftest, "_sample", lambda name: real(name.replace("sample.", "broken.")))
    r = selftest.check_sample()
    assert not r.ok
    assert r.detail.startswith("sample does not verify (X-BYTES); payload file differs from the pinned golden")


def test_broken_check_fails_when_the_broken_sample_verifies(monkeypatch):
    real = selftest._sample
    monkeypatch.setattr(selftest, "_sample", lambda name: real(name.replace("broken.", "sample.")))
    assert selftest.check_broken() == CheckResult("broken", False, "broken sample gave VERIFIED, expected X-BYTES")


def test_display_check_names_missing_libraries_and_the_apt_command():
    env = {}  # no QT_QPA_PLATFORM, no Wayland: xcb
    missing = [MissingLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor")]
    r = selftest.check_display(probe=lambda: missing, environ=env)
    if not sys.platform.startswith("linux"):
        assert r is None
        return
    assert r == CheckResult("display", False,
                            "display: missing libxcb-cursor.so.0 (sudo apt install libxcb-cursor0)")
    assert selftest.check_display(probe=lambda: [], environ=env) == CheckResult(
        "display", True, "display libraries present (xcb)")
    assert selftest.check_display(probe=lambda: missing, environ={"QT_QPA_PLATFORM": "offscreen"}) is None


def test_gui_check_creates_the_window_and_verifies_the_sample(qapp):
    r = selftest.check_gui()
    assert r == CheckResult("gui", True, "main window created (offscreen) and verified the sample; "
                                         "text drawn in Latin, Greek, Cyrillic, CJK, emoji")


def test_gui_check_reports_a_missing_gui_module(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *a, **k):
        if name == "inspector.gui.app":
            raise ModuleNotFoundError("No module named 'inspector.gui.app'", name="inspector.gui.app")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", fake)
    assert selftest.check_gui() == CheckResult(
        "gui", False, "gui: the desktop window module is missing (inspector.gui.app)")


def test_worker_check_verifies_the_sample_in_a_spawned_process():
    assert selftest.check_worker() == CheckResult("worker", True, "worker process verified the sample")


def test_worker_check_fails_when_the_executable_cannot_act_as_a_worker(tmp_path):
    """What a frozen build without ``freeze_support()`` in its launcher did: the worker process got
    the command line's usage error (exit 2), so no file over 4 MiB opened in the window."""
    import multiprocessing

    assert selftest.check_worker().ok  # the resource tracker is started by a working executable
    refusing = tmp_path / "checkpoint-inspector"
    refusing.write_text("#!/bin/sh\necho \"checkpoint-inspector: error: unknown option '$1'\" >&2\nexit 2\n")
    refusing.chmod(0o755)
    spawn = multiprocessing.get_context("spawn")
    real = multiprocessing.spawn.get_executable()
    spawn.set_executable(str(refusing))
    try:
        result = selftest.check_worker(timeout_s=30)
    finally:
        spawn.set_executable(real)
    assert result == CheckResult("worker", False, "worker: the worker process failed (exit code 2); "
                                                  "files over 4 MiB would not open in the window")


def test_summary_line_puts_failures_first_and_counts():
    results = [CheckResult("a", True, "a fine"), CheckResult("b", False, "b: broke")]
    assert selftest.summary_line(results, 1.234) == (
        f"checkpoint-inspector {selftest.__version__} self-test FAIL (1/2 checks): b: broke; a fine [1.2s]")
    assert selftest.summary_line(results[:1], 0.04).endswith("self-test PASS (1/1 checks): a fine [0.0s]")


def test_a_crashing_check_is_a_failed_check_not_a_crash():
    def check_boom():
        raise RuntimeError("boom")

    assert selftest.run_checks([check_boom, lambda: None]) == [
        CheckResult("boom", False, "check_boom: RuntimeError: boom")]


def test_main_prints_one_line_and_exits_1_on_failure(monkeypatch, capsys):
    monkeypatch.setattr(selftest, "run_checks", lambda: [CheckResult("x", False, "x: no")])
    assert selftest.main([]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and " self-test FAIL (0/1 checks): x: no [" in out


def test_main_exits_0_when_all_pass(monkeypatch, capsys):
    monkeypatch.setattr(selftest, "run_checks", lambda: [CheckResult("x", True, "x ok")])
    assert selftest.main([]) == 0
    assert " self-test PASS (1/1 checks): x ok [" in capsys.readouterr().out


def test_entry_dispatches_self_test_before_anything_else(monkeypatch):
    seen = []
    monkeypatch.setattr(selftest, "main", lambda argv: seen.append(argv) or 7)
    assert entry.main(["--self-test"]) == 7
    assert seen == [[]]


@pytest.mark.parametrize("argv, window", [
    ([], True), (["{existing}"], True), (["a.json"], False), (["--self-test"], False), (["verify", "x"], False),
    (["--version"], False), (["-h"], False), (["rules"], False), (["verfy"], False), (["--bogus"], False),
])
def test_opens_window(argv, window, tmp_path):
    (tmp_path / "a.json").write_bytes(b"{}")
    argv = [a.format(existing=tmp_path / "a.json") for a in argv]
    assert entry.opens_window(argv) is window


def test_self_test_end_to_end_in_a_subprocess():
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["QT_QPA_PLATFORM"] = "offscreen"  # the display check is covered above; here: the whole run
    p = subprocess.run([sys.executable, "-m", "inspector", "--self-test"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 1
    assert " self-test PASS (5/5 checks): " in lines[0]
    assert "sample verified (2090 B, sha256:122347d3f894...)" in lines[0]
    assert "broken sample fails X-BYTES; worker process verified the sample; " in lines[0]


def test_gui_check_fails_without_fonts(qapp, monkeypatch):
    from PySide6.QtGui import QFontDatabase

    monkeypatch.setattr(QFontDatabase, "families", staticmethod(lambda *a: []))
    assert selftest.check_gui() == CheckResult(
        "gui", False, "gui: no fonts are installed, the window would show no text "
                      "(sudo apt install fonts-dejavu-core fontconfig)")


def test_gui_check_names_a_missing_system_library_not_a_missing_qt(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name == "PySide6.QtWidgets":
            raise ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    assert selftest.check_gui() == CheckResult(
        "gui", False, "gui: Qt cannot load a system library "
                      "(libEGL.so.1: cannot open shared object file: No such file or directory)")


# ------------------------------------------------------------------ command-line-only installs
@pytest.fixture(scope="module")
def cli_only_python(tmp_path_factory):
    """A real venv where PySide6 is not installed: this venv's packages (orjson, platformdirs, this
    project's own install or editable finder, ...) linked in one by one, except PySide6/shiboken6."""
    import shutil
    import site
    import venv

    root = tmp_path_factory.mktemp("cli-only")
    venv.EnvBuilder(with_pip=False).create(root / "venv")
    py = root / "venv" / "bin" / "python"
    if not py.exists():
        pytest.skip("POSIX venv layout only")
    target = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    linked = root / "linked"
    linked.mkdir()
    with open(os.path.join(target, "00-linked.pth"), "w") as fh:  # before the editable finder's .pth
        fh.write(f"{linked}\n")
    for sp in site.getsitepackages():
        for entry_ in os.listdir(sp):
            low = entry_.lower()
            if low.startswith(("pyside6", "shiboken6", "pytest_qt", "pytestqt")):
                continue
            if low.endswith(".pth"):
                if low.startswith("__editable__"):  # this project installed with pip install -e
                    shutil.copyfile(os.path.join(sp, entry_), os.path.join(target, entry_))
                continue
            if not (linked / entry_).exists():
                os.symlink(os.path.join(sp, entry_), linked / entry_)
    probe = subprocess.run([str(py), "-c", "import orjson, inspector, importlib.util; "
                            "print(importlib.util.find_spec('PySide6'))"], capture_output=True, text=True)
    assert probe.returncode == 0 and probe.stdout.strip() == "None", probe.stderr
    return py


def _env_no_display():
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("PYTHONPATH", None)
    return env


def test_cli_only_install_passes_self_test_with_gui_skipped(cli_only_python):
    p = subprocess.run([str(cli_only_python), "-m", "inspector", "--self-test"], capture_output=True, text=True,
                       env=_env_no_display(), timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    line = p.stdout.strip()
    assert " self-test PASS (4/4 checks, 1 skipped): rule catalogue " in line
    assert "broken sample fails X-BYTES; worker process verified the sample; gui skipped: PySide6 is not installed (a command-line-only install: " \
           "verify, describe and canon work; --require-gui makes this a failure) [" in line
    assert "display" not in line  # no display libraries are needed without a window
    # and the headless commands really work there
    from tests.conftest import GOLDEN

    v = subprocess.run([str(cli_only_python), "-m", "inspector", "verify", str(GOLDEN / "payload-with-resume.json"),
                        str(GOLDEN / "descriptor-with-resume.json")], capture_output=True, env=_env_no_display(),
                       timeout=120)
    assert v.returncode == 0 and b"VERIFIED" in v.stdout


def test_cli_only_install_fails_self_test_with_require_gui(cli_only_python):
    p = subprocess.run([str(cli_only_python), "-m", "inspector", "--self-test", "--require-gui"],
                       capture_output=True, text=True, env=_env_no_display(), timeout=120)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.startswith(f"checkpoint-inspector {selftest.__version__} self-test FAIL (")
    assert ": gui: Qt (PySide6) is not installed and --require-gui was given " \
           "(pip install 'PySide6-Essentials>=6.8,<6.12' platformdirs); rule catalogue " in p.stdout


def test_cli_only_install_window_request_says_what_to_install(cli_only_python):
    from tests.conftest import GOLDEN

    p = subprocess.run([str(cli_only_python), "-m", "inspector", str(GOLDEN / "payload-with-resume.json")],
                       capture_output=True, text=True, env=_env_no_display(), timeout=120)
    assert p.returncode == 2
    # (checkpoint-inspector[gui] named a project that is not on the package index)
    assert p.stderr.splitlines() == [
        "checkpoint-inspector: the desktop window needs PySide6, which is not installed (PySide6).",
        "Install it with: pip install 'PySide6-Essentials>=6.8,<6.12' platformdirs",
        "The headless commands (checkpoint-inspector verify ...) work without it."]


def test_a_missing_qt_system_library_is_named_with_the_apt_command(monkeypatch, capsys):
    """PySide6 is installed but Qt cannot load libxcb-cursor0 (or libEGL): the launcher names the library and the
    command, not "install PySide6"."""
    import builtins

    from inspector import gui

    real_import = builtins.__import__

    def fake(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "app" and level == 1 or name.endswith("gui.app"):
            raise ImportError("libxcb-cursor.so.0: cannot open shared object file: No such file or directory")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", fake)
    assert gui.launch([]) == 3
    assert capsys.readouterr().err.splitlines() == [
        "checkpoint-inspector: cannot open the window: Qt (PySide6, installed) needs a system library that is not "
        "installed: libxcb-cursor.so.0.",
        "Install with:",
        "  Debian/Ubuntu:  sudo apt install libxcb-cursor0",
        "  Fedora/RHEL:    sudo dnf install xcb-util-cursor",
        "The headless commands (checkpoint-inspector verify ...) work without them.",
        "checkpoint-inspector --self-test checks the whole installation."]


def test_every_missing_library_is_named_by_package_in_one_install_line():
    """The loader names one missing library per attempt (a bare Debian lacks 23: each start named the next one);
    the message names them all, by package, QtNetwork's Kerberos library too (it named a file, not a package)."""
    from inspector import platform_check as pc

    gone = {"libgssapi_krb5.so.2", "libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libEGL.so.1"}

    def loader(name):
        return (False, f"{name}: cannot open shared object file: No such file or directory") if name in gone \
            else (True, "")

    error = ImportError("libgssapi_krb5.so.2: cannot open shared object file: No such file or directory")
    lines = pc.import_failure_text(error, loader=loader).splitlines()
    assert lines[0] == ("checkpoint-inspector: cannot open the window: Qt (PySide6, installed) needs system libraries "
                        "that are not installed: libgssapi_krb5.so.2, libxcb-cursor.so.0, libxkbcommon-x11.so.0, "
                        "libEGL.so.1.")
    assert lines[2] == "  Debian/Ubuntu:  sudo apt install libegl1 libgssapi-krb5-2 libxcb-cursor0 libxkbcommon-x11-0"
    assert lines[-1] == "checkpoint-inspector --self-test checks the whole installation."


def test_self_test_options(capsys, monkeypatch):
    assert selftest.main(["--bogus"]) == 2
    assert capsys.readouterr().err == ("usage: checkpoint-inspector --self-test [--require-gui]\n"
                                       "checkpoint-inspector: error: unknown self-test option '--bogus'\n")
    seen = []
    monkeypatch.setattr(selftest, "run_checks", lambda checks=None: seen.append(checks) or
                        [CheckResult("x", True, "x ok"), CheckResult("gui", True, "gui skipped: y", skipped=True)])
    assert selftest.main([]) == 0 and seen == [None]
    assert " self-test PASS (1/1 checks, 1 skipped): x ok; gui skipped: y [" in capsys.readouterr().out
    assert selftest.main(["--require-gui"]) == 0
    assert [c.__name__ for c in seen[1]] == ["check_rules", "check_sample", "check_broken", "check_worker", "check_display",
                                             "check_gui"]


def test_summary_counts_skipped_checks_apart():
    only_skipped = [CheckResult("gui", True, "gui skipped: y", skipped=True)]
    assert " self-test FAIL (0/0 checks, 1 skipped): " in selftest.summary_line(only_skipped, 0)
    mixed = [CheckResult("a", False, "a: no"), CheckResult("gui", True, "gui skipped: y", skipped=True)]
    assert " self-test FAIL (0/1 checks, 1 skipped): a: no; gui skipped: y [" in selftest.summary_line(mixed, 0)


def test_the_readme_names_every_system_package_the_window_needs():
    from inspector import platform_check as pc
    from tests.conftest import ROOT

    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    packages = sorted({lib.debian for lib in pc.XCB_LIBRARIES + pc.QT_LIBRARIES if lib.debian})
    assert "a bare Debian lacks these packages: " + " ".join(packages) + "." in text
