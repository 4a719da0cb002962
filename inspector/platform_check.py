"""Tell the user why the window cannot open (no display, or which system library Qt is missing)
instead of letting Qt abort.

On Linux, Qt's ``xcb`` platform plugin (the one used on X11 desktops) links against a handful
of small X libraries that minimal installs lack (``libxcb-cursor0`` since Qt 6.5, the
``xcb-util`` family). When one is missing, Qt prints "Could not load the Qt platform plugin
"xcb"" and *aborts*: the user sees a core dump. This module avoids that in two layers:

1. :func:`missing_display_libraries` — a preflight run before ``QApplication`` exists: it tries
   to ``dlopen`` each library the plugin needs (and then the plugin itself) and returns what is
   missing, with the Debian/Ubuntu and Fedora package names.
2. :func:`install_fatal_platform_handler` — a Qt message handler that turns Qt's fatal
   "platform plugin" message into the same friendly text and a clean exit, for whatever the
   preflight could not foresee.

Both first ask whether there is a display at all (:func:`no_display_text`): without
``DISPLAY``/``WAYLAND_DISPLAY`` (SSH without ``-X``, CI, a system service), or with a
``DISPLAY`` no X server answers on, *that* is the cause and what is said. (Qt 6.5+ then claims
"xcb-cursor0 or libxcb-cursor0 is needed" however present the library is; a library is only
ever named when loading it really fails.)

Integration (GUI start-up, before ``QApplication(...)``)::

    from inspector import platform_check
    code = platform_check.preflight()          # prints the message; None when all is well
    if code is not None:
        return code
    platform_check.install_fatal_platform_handler()
    app = QApplication(argv)

Only library names are ever printed; nothing here touches checkpoint content.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "EXIT_MISSING_LIBRARY", "EXIT_NO_DISPLAY", "MissingLibrary", "no_display_text", "XCB_LIBRARIES", "QT_LIBRARIES",
    "display_platform", "missing_display_libraries",
    "format_missing", "import_failure_text", "preflight", "install_fatal_platform_handler",
]

#: Exit code used when the desktop window cannot start because a system library is missing.
EXIT_MISSING_LIBRARY = 3
#: Exit code when there is no display to open the window on (same family: the window cannot start).
EXIT_NO_DISPLAY = 3


@dataclass(frozen=True)
class MissingLibrary:
    """A shared library the display platform needs but the dynamic loader cannot find.

    Attributes:
        soname: the file the loader looks for (``libxcb-cursor.so.0``).
        debian: the Debian/Ubuntu package that provides it (``libxcb-cursor0``), or ``None``.
        fedora: the Fedora/RHEL package that provides it (``xcb-util-cursor``), or ``None``.
    """

    soname: str
    debian: str | None = None
    fedora: str | None = None


#: The libraries Qt 6's xcb platform plugin loads from the system, with their packages.
#: (libxcb itself and libX11 are everywhere X11 is; they are listed for completeness.)
XCB_LIBRARIES: tuple[MissingLibrary, ...] = (
    MissingLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    MissingLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    MissingLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    MissingLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    MissingLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    MissingLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    MissingLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    MissingLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    MissingLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    MissingLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    MissingLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    MissingLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    MissingLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    MissingLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    MissingLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    MissingLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    MissingLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    MissingLibrary("libX11.so.6", "libx11-6", "libX11"),
    MissingLibrary("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    MissingLibrary("libEGL.so.1", "libegl1", "libglvnd-egl"),
    MissingLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    MissingLibrary("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
    MissingLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
)
#: Libraries Qt's own modules link against beyond the display platform's (PySide6's QtNetwork: Kerberos's GSSAPI;
#: QtGui: FreeType), with their packages: a bare Debian lacks them too (the window's hand-off uses QtNetwork).
QT_LIBRARIES: tuple[MissingLibrary, ...] = (
    MissingLibrary("libgssapi_krb5.so.2", "libgssapi-krb5-2", "krb5-libs"),
    MissingLibrary("libfreetype.so.6", "libfreetype6", "freetype"),
)
_BY_SONAME = {lib.soname: lib for lib in XCB_LIBRARIES + QT_LIBRARIES}


def display_platform(environ: dict | None = None, platform: str | None = None) -> str | None:
    """The Qt platform plugin a window would use here, when it is ``xcb``-like; else ``None``.

    Returns ``"xcb"`` on Linux when ``QT_QPA_PLATFORM`` is unset (and no Wayland session is
    announced) or names xcb; ``None`` on other systems or for other platforms (``offscreen``,
    ``wayland``…), for which no preflight is needed.
    """
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if not plat.startswith("linux"):
        return None
    requested = env.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        first = requested.split(";")[0].split(":")[0].strip()
        return "xcb" if first == "xcb" else None
    if env.get("WAYLAND_DISPLAY"):
        return None  # Qt prefers wayland there and falls back to xcb only if wayland fails
    return "xcb"


def _can_load(name: str) -> tuple[bool, str]:
    try:
        ctypes.CDLL(name)
    except OSError as e:
        # In a PyInstaller bundle, ctypes.CDLL re-raises as "Failed to load dynlib/dll ..."
        # from the loader's own error, which is the one naming the missing file.
        root: BaseException = e
        while root.__cause__ is not None:
            root = root.__cause__
        return False, str(root)
    return True, ""


def _xcb_plugin_path() -> Path | None:
    try:
        from PySide6.QtCore import QLibraryInfo

        plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    except Exception:  # PySide6 missing or broken: the GUI launcher reports that itself
        return None
    candidate = plugins / "platforms" / "libqxcb.so"
    return candidate if candidate.is_file() else None


def _soname_from_error(message: str) -> str | None:
    # glibc: "libxcb-cursor.so.0: cannot open shared object file: No such file or directory"
    head = message.split(":", 1)[0].strip()
    base = os.path.basename(head)
    return base if ".so" in base else None


def missing_display_libraries(loader=None, plugin_path: Path | None | bool = True) -> list[MissingLibrary]:
    """The system libraries the xcb platform plugin needs that cannot be loaded (``[]`` if none).

    Args:
        loader: callable ``name -> (ok, error_text)``; defaults to ``ctypes.CDLL``. Injected by tests.
        plugin_path: path of ``libqxcb.so`` to try last (``True``: locate it via PySide6;
            ``None``/``False``: skip). Loading the plugin catches a dependency not in
            :data:`XCB_LIBRARIES`; its loader error names the missing file.
    """
    load = loader or _can_load
    missing: list[MissingLibrary] = []
    for lib in XCB_LIBRARIES:
        ok, err = load(lib.soname)
        if ok:
            continue
        # A library that is present but whose own dependency is missing (e.g. a bundled
        # libxcb-cursor.so.0 without the system's libxcb.so.1): report the dependency.
        named = _soname_from_error(err) or lib.soname
        culprit = lib if named == lib.soname else _BY_SONAME.get(named, MissingLibrary(named))
        if culprit not in missing:
            missing.append(culprit)
    if not missing:
        path = _xcb_plugin_path() if plugin_path is True else (plugin_path or None)
        if path is not None:
            ok, err = load(str(path))
            if not ok:
                soname = _soname_from_error(err)
                if soname and soname != os.path.basename(str(path)):
                    missing.append(_BY_SONAME.get(soname, MissingLibrary(soname)))
                else:  # the plugin itself is absent or broken: report it by its own name
                    missing.append(MissingLibrary(os.path.basename(str(path))))
    return missing


def format_missing(missing: list[MissingLibrary], platform: str = "xcb") -> str:
    """The message shown to the user: which libraries are missing and the command to install them."""
    names = ", ".join(m.soname for m in missing)
    deb = sorted({m.debian for m in missing if m.debian})
    rpm = sorted({m.fedora for m in missing if m.fedora})
    lines = [
        f"checkpoint-inspector: cannot open the window: the Qt '{platform}' display platform needs "
        f"{'a system library that is' if len(missing) == 1 else 'system libraries that are'} not installed: {names}.",
    ]
    if deb or rpm:
        lines.append("Install with:")
        if deb:
            lines.append(f"  Debian/Ubuntu:  sudo apt install {' '.join(deb)}")
        if rpm:
            lines.append(f"  Fedora/RHEL:    sudo dnf install {' '.join(rpm)}")
    else:
        lines.append(f"Install the package of your distribution that provides {names}.")
    lines.append("The headless commands (checkpoint-inspector verify ...) work without them.")
    return "\n".join(lines)


_SONAME = re.compile(r"(lib[\w.+-]+\.so(?:\.\d+)*)")


def import_failure_text(error: ImportError, loader=None) -> str:
    """Why ``import PySide6...`` (the window's modules) failed, with the fix: a system library Qt links against
    is missing (``libEGL.so.1: cannot open shared object file``), or PySide6 itself is not installed (the pip
    command that installs it). The loader names one missing library per attempt (a bare Debian lacks 23), so
    every library of :data:`XCB_LIBRARIES` and :data:`QT_LIBRARIES` is tried as well (``loader``: as for
    :func:`missing_display_libraries`) and all of them are named, by package, in one install line, with
    ``--self-test`` for the rest of the installation."""
    text = str(error)
    m = _SONAME.search(text)
    if m is not None and ("cannot open shared object file" in text or "No such file" in text):
        soname = m.group(1)
        missing = [_BY_SONAME.get(soname, MissingLibrary(soname))]
        load = loader or _can_load
        try:
            others = missing_display_libraries(loader=load, plugin_path=False)
            others += [lib for lib in QT_LIBRARIES if not load(lib.soname)[0]]
        except Exception:  # (the probe of the others must not hide the one the loader named)
            others = []
        missing += [lib for lib in others if lib not in missing]
        return format_missing(missing, platform="PySide6").replace(
            "the Qt 'PySide6' display platform needs", "Qt (PySide6, installed) needs") + (
            "\ncheckpoint-inspector --self-test checks the whole installation.")
    return ("checkpoint-inspector: the desktop window needs PySide6, which is not installed"
            f" ({error.name or text}).\nInstall it with: pip install 'PySide6-Essentials>=6.8,<6.12' platformdirs\n"
            "The headless commands (checkpoint-inspector verify ...) work without it.")


_HEADLESS_HINT = ("The headless commands work without a display: checkpoint-inspector verify FILE ... "
                  "(see checkpoint-inspector --help).")


def no_display_text(environ: dict | None = None, unreachable: str | None = None,
                    missing: list[MissingLibrary] | None = None) -> str:
    """The message for "there is no display to open the window on".

    Args:
        environ: the environment (default ``os.environ``), to say which variable is unset.
        unreachable: the ``DISPLAY`` value no X server answered on (from Qt's "could not connect
            to display" message), or ``None`` when no display is set at all.
        missing: libraries that really cannot be loaded as well (a second, separate problem).
    """
    env = os.environ if environ is None else environ
    if unreachable is not None or env.get("DISPLAY"):
        shown = unreachable if unreachable is not None else env.get("DISPLAY", "")
        first = (f"checkpoint-inspector: cannot open the window: no X server answers on display "
                 f"'{shown}' (DISPLAY); is the desktop session still running, and may this user use it?")
    else:
        first = ("checkpoint-inspector: cannot open the window: there is no display to connect to "
                 "(neither DISPLAY nor WAYLAND_DISPLAY is set: no desktop session, e.g. over SSH without -X, "
                 "in CI or in a service).")
    lines = [first, _HEADLESS_HINT]
    if missing:
        deb = " ".join(sorted({m.debian for m in missing if m.debian}))
        lines.append("Also, on a desktop the window would need "
                     f"{'a system library that is' if len(missing) == 1 else 'system libraries that are'} not "
                     f"installed: {', '.join(m.soname for m in missing)}" + (f" (sudo apt install {deb})." if deb else "."))
    return "\n".join(lines)


def _has_display(env) -> bool:
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def preflight(stream=None, environ: dict | None = None, loader=None) -> int | None:
    """Check for a display, then the display libraries, before ``QApplication`` is created.

    Prints :func:`no_display_text` and returns :data:`EXIT_NO_DISPLAY` when the xcb platform
    would be used and neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set; prints
    :func:`format_missing` to ``stream`` (default ``sys.stderr``) and returns
    :data:`EXIT_MISSING_LIBRARY` when a library is missing; returns ``None`` when the window
    can be attempted (all present, or a platform this check does not cover).
    """
    env = os.environ if environ is None else environ
    platform = display_platform(env)
    if platform is None:
        return None
    if not _has_display(env):
        try:
            missing = missing_display_libraries(loader=loader)
        except Exception:  # the diagnosis of a second problem must not hide the first
            missing = []
        (stream or sys.stderr).write(no_display_text(env, missing=missing) + "\n")
        return EXIT_NO_DISPLAY
    missing = missing_display_libraries(loader=loader)
    if not missing:
        return None
    (stream or sys.stderr).write(format_missing(missing, platform) + "\n")
    return EXIT_MISSING_LIBRARY


_PLUGIN_NAME = re.compile(r'platform plugin "([^"]*)"')
_NO_CONNECTION = re.compile(r"could not connect to display ?(.*)")


def _fatal_text(message: str, probe=None, environ: dict | None = None) -> str | None:
    """Friendly text for Qt's fatal start-up message (with the platform messages Qt printed
    before it), or ``None`` for any other message.

    In order: Qt could not connect to a display (or none is set) -> :func:`no_display_text`;
    a platform other than xcb failed (``QT_QPA_PLATFORM=foo``) -> that, with Qt's own words; the
    xcb plugin failed and ``probe()`` (default :func:`missing_display_libraries`) finds libraries
    that really cannot be loaded -> :func:`format_missing`. Qt 6.5+ says "xcb-cursor0 or
    libxcb-cursor0 is needed" whenever the xcb plugin fails, for any reason, so the library Qt
    names is only repeated when the probe itself could not run.
    """
    if "platform plugin" not in message:
        return None
    env = os.environ if environ is None else environ
    plugins = _PLUGIN_NAME.findall(message)
    platform = plugins[0] if plugins else None
    xcb = platform == "xcb" or (platform is None and "xcb" in message)
    unreachable = _NO_CONNECTION.search(message)
    if unreachable is not None or (xcb and not _has_display(env)):
        try:
            missing = list((probe or missing_display_libraries)()) if unreachable is None else []
        except Exception:
            missing = []
        shown = unreachable.group(1).strip() if unreachable is not None else None
        if unreachable is not None and not shown:  # Qt names no display: DISPLAY is unset
            shown = None
        return no_display_text(env, unreachable=shown, missing=missing)
    if xcb:
        try:
            missing = list((probe or missing_display_libraries)())
        except Exception:  # never let the diagnosis itself crash the exit path: trust Qt's words
            low = message.lower()
            missing = [lib for lib in XCB_LIBRARIES if lib.debian and lib.debian in low]
        if missing:
            return format_missing(missing)
    lines = message.strip().splitlines()
    # Qt's own sentence about the plugin, not its "libxcb-cursor0 is needed" guess
    detail = next((line for line in lines if "platform plugin" in line and "is needed" not in line), lines[0])
    return ("checkpoint-inspector: cannot open the window: Qt could not load its display platform "
            f"plugin ({detail}).\nRun `checkpoint-inspector --self-test` for a diagnosis; the headless "
            "commands (checkpoint-inspector verify ...) work without a display.")


def install_fatal_platform_handler(stream=None) -> None:
    """Install a Qt message handler that turns the fatal "could not load the Qt platform plugin"
    message into a clear message and exit code :data:`EXIT_MISSING_LIBRARY` instead of an abort.

    Qt's own messages about platform plugins are held back and folded into that message; every
    other message is formatted as Qt would (``qFormatLogMessage``, honouring
    ``QT_MESSAGE_PATTERN``) and written to ``sys.stderr``. Call it before ``QApplication(...)``.
    """
    from PySide6.QtCore import QtMsgType, qFormatLogMessage, qInstallMessageHandler

    held: list[str] = []

    def handler(kind, context, message):
        out = stream or sys.stderr  # None in a Windows windowed executable
        if kind == QtMsgType.QtFatalMsg:
            held.append(message)
            text = _fatal_text("\n".join(held)) or qFormatLogMessage(kind, context, message)
            if out is not None:
                out.write(text + "\n")
                out.flush()
            os._exit(EXIT_MISSING_LIBRARY)
        if "platform plugin" in message or "connect to display" in message:
            held.append(message)  # only relevant if a fatal follows
            return
        if out is not None:
            out.write(qFormatLogMessage(kind, context, message) + "\n")

    qInstallMessageHandler(handler)
