"""``checkpoint-inspector --self-test``: is this installation healthy?

Runs headless (never shows a window) and prints exactly one line, ``PASS`` or ``FAIL`` with
what was checked, then exits 0 or 1. Support staff run it after installing; CI runs it from
the built bundle and the installed ``.deb``. The checks:

``rules``    the rule catalogue (``rules.toml``) is bundled and loads.
``sample``   the bundled golden pair verifies and its pinned values are recomputed
             (2090-byte payload, content digest, descriptor_digest).
``broken``   the bundled known-broken variant fails with root cause ``X-BYTES``.
``gui``      fonts draw the window's own text (Latin; a sample is drawn offscreen and no glyph may be
             a missing-glyph box, :mod:`inspector.gui.fonts`): no fonts at all, or none for Latin, fails
             with the fix; Greek, Cyrillic, CJK or emoji without a font is a warning line with its fix
             (exit 0: such text only appears in checkpoint content), and
             the desktop main window can be created on Qt's ``offscreen`` platform (and opens and
             verifies the sample in it).
``worker``   a worker process starts from this installation and verifies the sample (the window
             verifies every file over 4 MiB in one: a frozen build whose executable cannot act
             as a worker, :mod:`inspector.session.workers`, opens no large file).
``display``  (Linux) the system libraries of Qt's ``xcb`` platform are present, so the window
             can open on the desktop; see :mod:`inspector.platform_check`.

A command-line-only install (``pip install checkpoint-inspector``, no ``[gui]``: PySide6 is
not installed) runs the engine checks and reports ``gui`` as *skipped*, not failed (exit 0);
``--self-test --require-gui`` makes a missing PySide6 a failure (for desktop installs and
bundles). PySide6 that is installed but broken always fails.

Only sizes, digests, rule ids and library names are printed; never checkpoint content.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from dataclasses import dataclass
from importlib import resources
from typing import Callable

from inspector import __version__
from inspector.checkpoint.artifact import display_path

__all__ = [
    "SAMPLE_PAYLOAD_SIZE", "SAMPLE_CONTENT_DIGEST", "SAMPLE_DESCRIPTOR_DIGEST", "BROKEN_ROOT_CAUSE",
    "CheckResult", "REQUIRE_GUI_FLAG", "qt_installed", "check_rules", "check_sample", "check_broken", "check_gui",
    "check_display", "check_worker", "offscreen_font_environment",
    "run_checks", "summary_line", "warning_lines", "main", "NO_FONTS_FIX",
]

#: Pinned values of the bundled golden pair (upstream fixture, A3S Code commit 06c82e9).
SAMPLE_PAYLOAD_SIZE = 2090
SAMPLE_CONTENT_DIGEST = "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"
SAMPLE_DESCRIPTOR_DIGEST = "sha256:8492af9da1760810869d7e0e25e8b3f7850e31152056596fed3c74872efa1b44"
#: The rule the bundled broken variant must fail first (one byte changed, descriptor untouched).
BROKEN_ROOT_CAUSE = "X-BYTES"


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one self-test check: ``name``, ``ok`` and a short ``detail`` (no payload text).
    ``skipped``: the check does not apply to this installation (counted neither way)."""

    name: str
    ok: bool
    detail: str
    skipped: bool = False
    #: A problem that does not fail the check, with its fix (printed on its own line), or ``None``.
    warning: str | None = None


REQUIRE_GUI_FLAG = "--require-gui"
#: How to get any font at all (Debian; the window needs one for its own text).
NO_FONTS_FIX = "sudo apt install fonts-dejavu-core fontconfig"
_GUI_SKIPPED = ("gui skipped: PySide6 is not installed (a command-line-only install: verify, describe and canon "
                f"work; {REQUIRE_GUI_FLAG} makes this a failure)")


def qt_installed() -> bool:
    """Whether PySide6 is installed at all (importing the package loads no Qt library). Installed
    but broken (a system library missing) counts as installed: the ``gui`` check says why."""
    try:
        import PySide6  # noqa: F401
    except ModuleNotFoundError as e:
        return (e.name or "").split(".")[0] not in ("PySide6", "shiboken6")
    except ImportError:
        return True
    return True


def _sample(name: str) -> bytes:
    return (resources.files("inspector.resources") / "samples" / name).read_bytes()


def check_rules() -> CheckResult:
    """The bundled rule catalogue loads, contains the rule the broken sample must fail, and has
    its plain-language texts and the ticket report's allow-list (data files a bundle could miss)."""
    from inspector.checkpoint import catalogue

    rules = catalogue()
    ids = {r.id for r in rules}
    if BROKEN_ROOT_CAUSE not in ids:
        return CheckResult("rules", False, f"rule catalogue ({len(rules)} rules) lacks {BROKEN_ROOT_CAUSE}")
    bare = [r.id for r in rules if r.plain is None]
    if bare:
        return CheckResult("rules", False, f"rules without plain-language text (plain.toml): {', '.join(bare[:3])}")
    try:
        from inspector.ticket import allowlist

        allowlist()
    except (OSError, ValueError, KeyError) as e:
        return CheckResult("rules", False, f"the ticket report's allow-list does not load ({type(e).__name__})")
    return CheckResult("rules", True, f"rule catalogue {len(rules)} rules")


def _digest(report, pointer: str):
    for row in report.digests:
        if row.pointer == pointer:
            return row.recomputed
    return None


def check_sample() -> CheckResult:
    """The bundled golden pair verifies and reproduces its pinned size and digests."""
    from inspector.checkpoint import verify

    payload, descriptor = _sample("sample.payload.json"), _sample("sample.descriptor.json")
    report = verify(payload, descriptor, payload_size=len(payload))
    problems = []
    if not report.verified:
        cause = report.root_cause.rule.id if report.root_cause else "no root cause"
        problems.append(f"does not verify ({cause})")
    if len(payload) != SAMPLE_PAYLOAD_SIZE:
        problems.append(f"payload is {len(payload)} bytes, expected {SAMPLE_PAYLOAD_SIZE}")
    # The payload is canonical, so its content digest is plain SHA-256 of the file: an
    # independent cross-check of the engine's digest code.
    if "sha256:" + hashlib.sha256(payload).hexdigest() != SAMPLE_CONTENT_DIGEST:
        problems.append("payload file differs from the pinned golden")
    if _digest(report, "/content_digest") != SAMPLE_CONTENT_DIGEST:
        problems.append(f"content digest recomputed as {_digest(report, '/content_digest')}")
    if _digest(report, "/descriptor_digest") != SAMPLE_DESCRIPTOR_DIGEST:
        problems.append(f"descriptor_digest recomputed as {_digest(report, '/descriptor_digest')}")
    if problems:
        return CheckResult("sample", False, "sample " + "; ".join(problems))
    return CheckResult("sample", True, f"sample verified ({SAMPLE_PAYLOAD_SIZE} B, {SAMPLE_CONTENT_DIGEST[:19]}...)")


def check_broken() -> CheckResult:
    """The bundled known-broken variant is rejected with root cause :data:`BROKEN_ROOT_CAUSE`."""
    from inspector.checkpoint import verify

    payload, descriptor = _sample("broken.payload.json"), _sample("broken.descriptor.json")
    report = verify(payload, descriptor, payload_size=len(payload))
    cause = report.root_cause.rule.id if report.root_cause else None
    if report.verified or cause != BROKEN_ROOT_CAUSE:
        return CheckResult("broken", False, f"broken sample gave {'VERIFIED' if report.verified else cause}, "
                                            f"expected {BROKEN_ROOT_CAUSE}")
    return CheckResult("broken", True, f"broken sample fails {cause}")


def _worker_probe(conn, payload: bytes, descriptor: bytes) -> tuple[bool, str | None]:
    """Run in the worker process by :func:`check_worker`: ``(verified, content digest)`` of the pair."""
    from inspector.checkpoint import verify

    report = verify(payload, descriptor, payload_size=len(payload))
    return report.verified, _digest(report, "/content_digest")


def check_worker(timeout_s: float = 60.0) -> CheckResult:
    """A worker process (the way the window verifies files over 4 MiB: ``multiprocessing``'s spawn,
    which re-runs this installation's executable) starts, verifies the bundled golden pair and
    returns the pinned content digest within ``timeout_s`` seconds."""
    from inspector.session.workers import ChildTask, WorkerError  # no Qt: plain processes and pipes

    payload, descriptor = _sample("sample.payload.json"), _sample("sample.descriptor.json")
    task = ChildTask(_worker_probe, (payload, descriptor), nice=0)
    task.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not task.done and time.monotonic() < deadline:
            task.pump(0.1)
        if not task.done:
            return CheckResult("worker", False, f"worker: no answer from the worker process in {timeout_s:.0f} s; "
                                                "files over 4 MiB would not open in the window")
        try:
            verified, digest = task.result()
        except WorkerError as e:
            return CheckResult("worker", False, f"worker: the worker process failed ({e.error_type}); "
                                                "files over 4 MiB would not open in the window")
    finally:
        task.terminate()
    if not verified or digest != SAMPLE_CONTENT_DIGEST:
        return CheckResult("worker", False, f"worker: the worker process gave {'VERIFIED' if verified else 'FAILED'}, "
                                            f"content digest {digest}")
    return CheckResult("worker", True, "worker process verified the sample")


def _window_factory() -> Callable[[], object]:
    """How the GUI builds its main window: ``inspector.gui.app.create_main_window`` if the GUI
    offers one, else ``inspector.gui.window.MainWindow`` (what ``app.run`` uses)."""
    import importlib

    gui_app = importlib.import_module("inspector.gui.app")  # ImportError: the desktop part is missing
    factory = getattr(gui_app, "create_main_window", None)
    if callable(factory):
        return factory
    window = importlib.import_module("inspector.gui.window")
    if not hasattr(window, "MainWindow"):
        raise LookupError("inspector.gui provides neither app.create_main_window() nor window.MainWindow")
    return window.MainWindow


def _make_window(factory, settings_dir: str):
    """Call the window factory, giving it throw-away settings when it accepts them."""
    import inspect

    from PySide6.QtCore import QSettings

    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    if "settings" in params:
        settings = QSettings(os.path.join(settings_dir, "selftest.ini"), QSettings.Format.IniFormat)
        return factory(settings=settings)
    return factory()


def _load_sample(app, window, timeout_ms: int) -> str | None:
    """Open the bundled sample in the window and wait for its analysis; ``None`` when it verified,
    else the reason. Skipped (``None``) for a window without ``open_sample``/``analysisReady``."""
    from PySide6.QtCore import QEventLoop, QTimer

    if not (hasattr(window, "open_sample") and hasattr(window, "analysisReady")):
        return None
    loop = QEventLoop()
    outcome: list[str] = []
    window.analysisReady.connect(lambda *a: (outcome.append("ready"), loop.quit()))
    if hasattr(window, "loadFailed"):
        window.loadFailed.connect(lambda *a: (outcome.append("failed"), loop.quit()))
    QTimer.singleShot(timeout_ms, loop.quit)
    window.open_sample()
    if not outcome:
        loop.exec()
    if not outcome:
        return f"the sample did not finish loading within {timeout_ms / 1000:.0f}s"
    if outcome[0] != "ready":
        return "the window refused the bundled sample"
    report = getattr(window, "report", None)
    if report is not None and not report.verified:
        return "the window's analysis of the sample is not VERIFIED"
    return None


def offscreen_font_environment(environ, platform: str) -> dict[str, str]:
    """Variables the ``offscreen`` platform needs to see the system's fonts (``{}``: none).

    On Windows Qt's offscreen plugin uses its FreeType font database, which reads fonts only
    from ``QT_QPA_FONTDIR`` (default: Qt's own ``lib/fonts``, absent from PySide6): without it the
    font check would find no font at all. Linux (fontconfig) and macOS (Core Text) need nothing.
    """
    if platform == "win32" and not environ.get("QT_QPA_FONTDIR"):
        return {"QT_QPA_FONTDIR": os.path.join(environ.get("WINDIR", r"C:\Windows"), "Fonts")}
    return {}


def check_gui(timeout_ms: int = 30000, require: bool = False) -> CheckResult:
    """The main window can be created (not shown) on Qt's ``offscreen`` platform and, when the
    window offers it, opens and verifies the bundled sample.

    Without PySide6 the result is *skipped* (``ok``, ``skipped=True``), or a failure when
    ``require`` (``--require-gui``) is set.

    Uses throw-away settings (the user's remembered layout is not touched). Qt's own warnings
    during the check are captured, not printed; the first one is quoted if the check fails.
    """
    import tempfile

    qt_messages: list[str] = []
    if not qt_installed():
        if require:
            return CheckResult("gui", False, f"gui: Qt (PySide6) is not installed and {REQUIRE_GUI_FLAG} was given "
                                             "(pip install 'PySide6-Essentials>=6.8,<6.12' platformdirs)")
        return CheckResult("gui", True, _GUI_SKIPPED, skipped=True)
    try:
        from PySide6.QtCore import qInstallMessageHandler
        from PySide6.QtWidgets import QApplication, QMainWindow
    except ImportError as e:
        if "cannot open shared object file" in str(e):  # Qt is there, a system library is not
            return CheckResult("gui", False, f"gui: Qt cannot load a system library ({e})")
        return CheckResult("gui", False, f"gui: Qt (PySide6) is not installed ({e.name or e})")
    try:
        factory = _window_factory()
    except ImportError as e:
        return CheckResult("gui", False, f"gui: the desktop window module is missing ({e.name or e})")
    except LookupError as e:
        return CheckResult("gui", False, f"gui: {e}")
    previous = qInstallMessageHandler(lambda kind, context, message: qt_messages.append(message))
    window = None
    try:
        app = QApplication.instance()
        if app is None:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"  # never touch the user's screen
            os.environ.update(offscreen_font_environment(os.environ, sys.platform))
            app = QApplication(["checkpoint-inspector", "-platform", "offscreen"])
        platform = app.platformName()
        failed, problems = _font_check()
        if failed is not None:
            return failed
        from inspector.gui import fonts

        drawn = [s.name for s in fonts.SCRIPTS if s.name not in {p.name for p, _ in problems}]
        warning = ("gui: " + fonts.notice_text(problems)) if problems else None
        with tempfile.TemporaryDirectory(prefix="checkpoint-inspector-selftest-") as settings_dir:
            try:
                window = _make_window(factory, settings_dir)
                app.processEvents()
                if not isinstance(window, QMainWindow):
                    return CheckResult("gui", False,
                                       f"gui: factory returned {type(window).__name__}, not a QMainWindow")
                problem = _load_sample(app, window, timeout_ms)
                if problem:
                    return CheckResult("gui", False, f"gui: main window created ({platform}) but {problem}")
                loaded = " and verified the sample" if hasattr(window, "open_sample") else ""
                missing = f" (not {', '.join(p.name for p, _ in problems)}: see the warning)" if problems else ""
                return CheckResult("gui", True, f"main window created ({platform}){loaded}; "
                                                f"text drawn in {', '.join(drawn)}{missing}", warning=warning)
            finally:
                if window is not None:  # closed while its throw-away settings still exist
                    try:
                        window.close()
                        window.deleteLater()
                        app.processEvents()
                    except Exception:
                        pass
    except Exception as e:  # any failure to build the window is a failed check, not a crash
        hint = f"; Qt said: {qt_messages[0]}" if qt_messages else ""
        return CheckResult("gui", False, f"gui: creating the main window failed: {type(e).__name__}: {e}{hint}")
    finally:
        qInstallMessageHandler(previous)


def _font_check() -> tuple[CheckResult | None, list]:
    """``(a failed check, [])`` when the window's own text would be boxes (no font at all, or none for Latin),
    else ``(None, problems)``: the content scripts without a font (a warning). Needs a ``QApplication``."""
    from PySide6.QtGui import QFontDatabase

    from inspector.gui import fonts

    fonts.register_bundled_fonts()
    if not QFontDatabase.families():  # every glyph would render as a box
        return CheckResult("gui", False, f"gui: no fonts are installed, the window would show no text ({NO_FONTS_FIX})"), []
    problems = fonts.coverage_problems()  # each script's sample drawn offscreen, glyphs read back
    ui = [(s, m) for s, m in problems if s.name in fonts.UI_SCRIPTS]
    if ui:  # the window's own text would be boxes
        return CheckResult("gui", False, "gui: the window's own text would not be readable: "
                                         + fonts.notice_text(ui)), []
    return None, problems


def check_display(probe: Callable[[], list] | None = None, environ: dict | None = None,
                  require: bool = False) -> CheckResult | None:
    """On Linux/X11: the libraries Qt's ``xcb`` platform needs are installed (``None`` elsewhere,
    and without PySide6 unless ``require``: a command-line-only install needs no display)."""
    from inspector import platform_check

    platform = platform_check.display_platform(environ)
    if platform is None or not (require or qt_installed()):
        return None
    missing = (probe or platform_check.missing_display_libraries)()
    if missing:
        deb = " ".join(sorted({m.debian for m in missing if m.debian}))
        fix = f" (sudo apt install {deb})" if deb else ""
        return CheckResult("display", False, "display: missing " + ", ".join(m.soname for m in missing) + fix)
    return CheckResult("display", True, f"display libraries present ({platform})")


def run_checks(checks=None) -> list[CheckResult]:
    """Run every check (or the given callables) and return their results; never raises."""
    results = []
    # display first: the gui check switches this process to the offscreen platform
    for check in checks or (check_rules, check_sample, check_broken, check_worker, check_display, check_gui):
        try:
            result = check()
        except Exception as e:  # a check that crashes is a failed check with its reason
            result = CheckResult(getattr(check, "__name__", "check").removeprefix("check_"), False,
                                 f"{getattr(check, '__name__', 'check')}: {type(e).__name__}: {e}")
        if result is not None:
            results.append(result)
    return results


def _requiring(check):
    """``check`` with ``require=True`` (``--require-gui``), keeping its name for crash reports."""
    def run():
        return check(require=True)
    run.__name__ = check.__name__
    return run


def _passed(results: list[CheckResult]) -> bool:
    ran = [r for r in results if not r.skipped]
    return bool(ran) and all(r.ok for r in ran)


def summary_line(results: list[CheckResult], seconds: float) -> str:
    """The one line printed: verdict, count (skipped checks apart), and each check's detail
    (failures first, skipped last)."""
    ran = [r for r in results if not r.skipped]
    skipped = len(results) - len(ran)
    passed = sum(r.ok for r in ran)
    verdict = "PASS" if _passed(results) else "FAIL"
    ordered = [r for r in ran if not r.ok] + [r for r in ran if r.ok] + [r for r in results if r.skipped]
    details = "; ".join(r.detail for r in ordered)
    return (f"checkpoint-inspector {__version__} self-test {verdict} ({passed}/{len(ran)} checks"
            f"{f', {skipped} skipped' if skipped else ''}): {details} [{seconds:.1f}s]")


def warning_lines(results: list[CheckResult]) -> list[str]:
    """One line per check that passed with a warning: ``checkpoint-inspector self-test warning: <warning>``."""
    return [f"checkpoint-inspector self-test warning: {r.warning}" for r in results if r.warning]


def main(argv: list[str] | None = None) -> int:
    """Run the self-test, print one line to stdout (then a line per warning), return 0 (healthy) or 1; 2 for an unknown
    option. ``argv``: the options after ``--self-test`` (``--require-gui``)."""
    argv = list(argv or [])
    unknown = [a for a in argv if a != REQUIRE_GUI_FLAG]
    if unknown:
        if sys.stderr is not None:
            sys.stderr.write(f"usage: checkpoint-inspector --self-test [{REQUIRE_GUI_FLAG}]\n"
                             f"checkpoint-inspector: error: unknown self-test option '{display_path(unknown[0])}'\n")
        return 2
    start = time.perf_counter()
    if REQUIRE_GUI_FLAG in argv:
        results = run_checks((check_rules, check_sample, check_broken, check_worker, _requiring(check_display),
                              _requiring(check_gui)))
    else:
        results = run_checks()
    line = summary_line(results, time.perf_counter() - start)
    if sys.stdout is not None:  # None in a Windows windowed executable: the exit code still tells
        sys.stdout.write(line + "\n")
        for w in warning_lines(results):
            sys.stdout.write(w + "\n")
        sys.stdout.flush()
    return 0 if _passed(results) else 1
