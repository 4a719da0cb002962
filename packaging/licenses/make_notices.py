"""Third-party notices generated from what a built bundle really contains.

Run after PyInstaller, in the build venv (it reads the venv's distribution metadata)::

    python packaging/licenses/make_notices.py --bundle build/packaging/dist/checkpoint-inspector

It writes ``<bundle>/_internal/licenses/`` (macOS: ``Contents/Resources/licenses``): the
project's ``LICENSE`` and ``NOTICE`` and ``THIRD-PARTY-NOTICES.txt``, and prints the
components found. The application's Help ▸ About ▸ Licences shows that file
(:mod:`inspector.licenses`). ``make_deb.py`` renders the same components as the package's
machine-readable ``/usr/share/doc/checkpoint-inspector/copyright`` (:func:`render_dep5`).

How each file of the bundle is attributed (nothing is listed that the bundle does not hold):

* Python packages: the top-level modules inside the executable's PYZ archive plus the
  top-level folders of ``_internal``, mapped to their distributions with
  ``importlib.metadata.packages_distributions()``; licence texts from each ``dist-info``
  (PySide6/shiboken6 ship none: the LGPL-3.0 and GPL-3.0 texts are in ``texts/``).
* The Python runtime (``libpython*``, ``python3.*/``, ``base_library.zip``, ``lib-dynload``):
  PSF-2.0, with the ``LICENSE.txt`` of the Python that built the bundle (python.org builds
  list there the licences of the libraries they bundle: OpenSSL, libffi, zlib, expat...).
* Other shared libraries at the top of ``_internal`` (Linux): the Debian package that owns the
  same soname on the build machine (``ldconfig -p``, ``dpkg-query -S``), with that package's
  ``/usr/share/doc/<package>/copyright`` verbatim.
* PyInstaller's bootloader (the executables): GPL-2.0-or-later with the bootloader exception.
* Fonts under ``_internal/fonts``: the ``copyright`` files fetched with them (``fonts/*.copyright``).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import re
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTICES_NAME = "THIRD-PARTY-NOTICES.txt"
OWN_DISTRIBUTIONS = {"checkpoint-inspector"}
#: Licence texts that the distributions' metadata do not carry (PySide6 and shiboken6 wheels).
TEXTS = {"LGPL-3.0-only": HERE / "texts" / "LGPL-3.0-only.txt", "GPL-3.0-only": HERE / "texts" / "GPL-3.0-only.txt"}

LGPL_QT = """\
Qt 6 and PySide6/shiboken6 are used under the GNU Lesser General Public License v3
(LGPL-3.0-only; its text and that of the GPL-3.0 it refers to follow). They are shipped
unmodified, as separate shared libraries loaded at run time:
  Linux    _internal/PySide6/Qt/lib/libQt6*.so.6, _internal/PySide6/*.abi3.so,
           _internal/libpyside6.abi3.so.*, _internal/libshiboken6.abi3.so.*
  Windows  _internal\\PySide6\\Qt6*.dll, _internal\\PySide6\\*.pyd, pyside6.abi3.dll, shiboken6.abi3.dll
  macOS    Contents/Frameworks/PySide6/Qt/lib/Qt*.framework and the PySide6/shiboken6 modules
How to use a modified Qt (relink): build Qt {qt} (the same version and configuration, so the
binary interface matches) or PySide6 {pyside} from their sources with your changes, and replace
the files above with yours; the application loads whatever is in those places. On macOS,
re-sign the application afterwards (codesign --force --sign - "Checkpoint Inspector.app").
Source code: Qt {qt} and PySide6 {pyside} sources are published by the Qt Project
(https://download.qt.io/official_releases/qt/ and .../QtForPython/). Written offer: for three
years after we distribute this build, we will also give anyone who asks the complete
corresponding source code of these LGPL libraries, for no more than the cost of providing it;
write to {contact}.
Qt itself contains third-party code under other licences, listed in Qt's documentation
("Licenses Used in Qt"), among them ICU (Unicode-3.0; the libicu* files in PySide6/Qt/lib),
PCRE2, HarfBuzz, libpng, FreeType (Windows/macOS builds), zlib and md4c.
"""

BOOTLOADER = """\
The executables (checkpoint-inspector, Checkpoint Inspector.exe) are PyInstaller's bootloader,
GPL-2.0-or-later WITH Bootloader-exception: "In addition to the permissions in the GNU General
Public License, the authors give you unlimited permission to link or embed compiled bootloader
and related files into combinations with other programs, and to distribute those combinations
without any restriction coming from the use of those files."
"""


@dataclass
class Component:
    """One third-party part of the bundle.

    ``name``/``version``: what it is; ``license``: SPDX expression (or a short description);
    ``paths``: bundle-relative glob patterns of its files (for the Debian copyright);
    ``texts``: ``(title, text)`` licence/copyright texts; ``note``: extra text (offer, relinking).
    """

    name: str
    version: str
    license: str
    paths: list[str] = field(default_factory=list)
    texts: list[tuple[str, str]] = field(default_factory=list)
    note: str = ""
    copyright: str = ""


def internal_dir(bundle: Path) -> Path:
    """The folder holding the bundle's libraries (``_internal``; macOS: ``Contents/Frameworks``)."""
    for cand in (bundle / "_internal", bundle / "Contents" / "Frameworks"):
        if cand.is_dir():
            return cand
    raise SystemExit(f"make_notices: {bundle} has no _internal folder: build the bundle first")


def executable(bundle: Path) -> Path:
    """The bundle's main executable (holds the PKG/PYZ archives)."""
    for cand in (bundle / "checkpoint-inspector", bundle / "checkpoint-inspector.exe",
                 bundle / "Contents" / "MacOS" / "checkpoint-inspector"):
        if cand.is_file():
            return cand
    raise SystemExit(f"make_notices: no checkpoint-inspector executable in {bundle}")


def archived_top_modules(exe: Path) -> set[str]:
    """Top-level module names inside the executable's PyInstaller archives (PKG and PYZ)."""
    try:
        from PyInstaller.archive.readers import NotAnArchiveError, pkg_archive_contents
    except ImportError:  # not a PyInstaller build environment: no archive to read
        return set()
    try:
        return {name.split(".")[0] for name in pkg_archive_contents(str(exe), recursive=True)}
    except NotAnArchiveError:
        return set()


def _dist_texts(dist: md.Distribution) -> list[tuple[str, str]]:
    texts = []
    for f in dist.files or []:
        parts = Path(str(f)).parts
        if len(parts) >= 2 and parts[0].endswith(".dist-info") and (
                parts[1] == "licenses" or re.match(r"(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", parts[-1], re.I)):
            try:
                texts.append((f"{dist.metadata['Name']}: {'/'.join(parts[1:])}", f.read_text()))
            except (OSError, UnicodeDecodeError):
                continue
    return texts


def _dist_license(dist: md.Distribution) -> str:
    meta = dist.metadata
    return meta.get("License-Expression") or meta.get("License") or "see its licence files"


def python_components(bundle: Path) -> list[Component]:
    """Distributions whose top-level modules are in the bundle (archive or ``_internal`` folders)."""
    internal = internal_dir(bundle)
    modules = archived_top_modules(executable(bundle))
    modules |= {p.name for p in internal.iterdir() if p.is_dir()}
    owners = md.packages_distributions()
    found: dict[str, set[str]] = {}
    for module in modules:
        for dist_name in owners.get(module, []):
            found.setdefault(dist_name, set()).add(module)
    result = []
    for dist_name in sorted(found, key=str.lower):
        dist = md.distribution(dist_name)
        name = dist.metadata["Name"]
        if name.lower() in OWN_DISTRIBUTIONS:
            continue
        license_ = _dist_license(dist)
        texts = _dist_texts(dist)
        comp = Component(name, dist.version, license_,
                         paths=[f"{m}/*" for m in sorted(found[dist_name]) if (internal / m).is_dir()],
                         texts=texts, copyright=dist.metadata.get("Author") or dist.metadata.get("Author-email") or "")
        if re.sub(r"[-_.]+", "-", name.lower()) in ("pyside6-essentials", "pyside6", "shiboken6"):
            comp.license = "LGPL-3.0-only"
            comp.copyright = "The Qt Company Ltd. and other contributors"
        result.append(comp)
    return result


def python_runtime(bundle: Path) -> Component:
    """The CPython runtime the bundle was frozen with."""
    internal = internal_dir(bundle)
    candidates = [Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt", Path(sys.base_prefix) / "LICENSE.txt"]
    text = next((p.read_text() for p in candidates if p.is_file()), "")
    if not text:
        raise SystemExit(f"make_notices: the Python licence (LICENSE.txt) is not at {candidates}")
    # libpython / python3xx.dll, the stdlib archive and extension modules (Linux/macOS: in
    # python3.x/lib-dynload; Windows: the .pyd files of Python's DLLs folder, at the top)
    paths = [p.name + ("/*" if p.is_dir() else "") for p in sorted(internal.iterdir())
             if re.match(r"(lib)?python3|base_library\.zip|lib-dynload", p.name) or p.suffix == ".pyd"]
    return Component("Python", sys.version.split()[0], "PSF-2.0", paths=paths,
                     texts=[("Python LICENSE.txt", text)],
                     copyright="2001-2024 Python Software Foundation and contributors")


def _debian_owner(soname: str) -> tuple[str, str] | None:
    """``(package, version)`` of the Debian package owning ``soname`` on this machine."""
    sys.path.insert(0, str(ROOT / "packaging" / "linux"))
    import make_deb  # shared ldconfig/dpkg lookups

    path = make_deb._ldconfig_map().get(soname)
    pkg = make_deb._owning_package(path) if path else None
    if pkg is None:
        return None
    pkg = pkg.split(":")[0]
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True).stdout
    return pkg, version


def system_library_components(bundle: Path) -> tuple[list[Component], list[str]]:
    """Debian packages the top-level shared libraries were copied from; and unattributed files."""
    internal = internal_dir(bundle)
    by_pkg: dict[tuple[str, str], list[str]] = {}
    unknown = []
    for p in sorted(internal.iterdir()):
        if p.is_dir() or not re.search(r"\.so(\.|$)|\.dll$|\.dylib$", p.name) or p.name.startswith(("libpython", "python")):
            continue
        if p.is_symlink():
            continue  # a link into PySide6/Qt/lib: attributed with PySide6
        owner = _debian_owner(p.name) if sys.platform.startswith("linux") else None
        if owner is None:
            unknown.append(p.name)
        else:
            by_pkg.setdefault(owner, []).append(p.name)
    result = []
    for (pkg, version), files in sorted(by_pkg.items()):
        copyright_file = Path("/usr/share/doc") / pkg / "copyright"
        text = copyright_file.read_text(errors="replace") if copyright_file.is_file() else ""
        result.append(Component(f"{pkg} (Debian)", version, "see the package's copyright below", paths=files,
                                texts=[(f"/usr/share/doc/{pkg}/copyright", text)] if text else []))
    return result, unknown


def font_components(bundle: Path) -> list[Component]:
    """Fonts in ``_internal/fonts`` with the ``*.copyright`` files fetched beside them."""
    fonts = internal_dir(bundle) / "fonts"
    result = []
    for cp in sorted(fonts.glob("*.copyright")) if fonts.is_dir() else []:
        pkg, _, version = cp.stem.partition("_")
        files = sorted(f.name for f in fonts.iterdir() if f.suffix.lower() in (".ttf", ".otf", ".ttc")
                       and (cp.with_suffix(".files").is_file() and f.name in cp.with_suffix(".files").read_text().split()))
        result.append(Component(f"{pkg} (Debian font package)", version,
                                "see the package's copyright below", paths=[f"fonts/{f}" for f in files],
                                texts=[(f"{pkg} copyright", cp.read_text(errors="replace"))]))
    return result


def bootloader() -> Component:
    """PyInstaller's bootloader (the executables)."""
    dist = md.distribution("pyinstaller")
    return Component("PyInstaller bootloader", dist.version, "GPL-2.0-or-later WITH Bootloader-exception",
                     paths=["checkpoint-inspector", "checkpoint-inspector.exe", "Checkpoint Inspector.exe"],
                     texts=_dist_texts(dist), note=BOOTLOADER, copyright="2005-2025 PyInstaller Development Team")


def collect(bundle: Path, contact: str) -> tuple[list[Component], list[str]]:
    """Every third-party component of ``bundle``, and files that could not be attributed."""
    comps = python_components(bundle)
    qt = next((c for c in comps if c.name.lower().startswith("pyside6")), None)
    if qt is not None:
        qt.note = LGPL_QT.format(qt=qt.version, pyside=qt.version, contact=contact)
        qt.texts += [(k, v.read_text()) for k, v in TEXTS.items()]
    libs, unknown = system_library_components(bundle)
    tail = [bootloader()] if archived_top_modules(executable(bundle)) else []
    return [python_runtime(bundle)] + comps + libs + font_components(bundle) + tail, unknown


def render_notices(comps: list[Component], version: str) -> str:
    """The plain-text ``THIRD-PARTY-NOTICES.txt``: a summary table, then each component's texts."""
    out = [f"Checkpoint Inspector {version}: third-party software in this build",
           "=" * 72, "",
           "Checkpoint Inspector itself is Apache-2.0 (LICENSE). This build also contains:", ""]
    for i, c in enumerate(comps, 1):
        out.append(f"  {i:2}. {c.name} {c.version}: {c.license}")
    for i, c in enumerate(comps, 1):
        out += ["", "=" * 72, f"{i}. {c.name} {c.version}", f"   Licence: {c.license}"]
        if c.paths:
            out.append(f"   Files: {', '.join(c.paths)}")
        out.append("=" * 72)
        if c.note:
            out += ["", c.note.rstrip()]
        for title, text in c.texts:
            out += ["", f"--- {title} ---", text.rstrip()]
    return "\n".join(out) + "\n"


def _dep5_text(text: str) -> str:
    return "\n".join((" " + line) if line.strip() else " ." for line in text.rstrip().splitlines())


#: SPDX ids -> Debian's /usr/share/common-licenses file (DEP-5 then refers to it).
COMMON_LICENSES = {"Apache-2.0": "Apache-2.0", "LGPL-3.0-only": "LGPL-3", "GPL-3.0-only": "GPL-3",
                   "MPL-2.0": "MPL-2.0", "GPL-2.0-only": "GPL-2"}
_SPDX_TOKEN = re.compile(r"[A-Za-z0-9.+-]+")


def _spdx_names(expression: str) -> list[str] | None:
    """The licence ids of a plain SPDX expression (``None`` if it is not one, e.g. "see ...")."""
    if re.search(r"\bWITH\b|\bsee\b", expression):
        return None
    names = [t for t in _SPDX_TOKEN.findall(expression) if t not in ("AND", "OR")]
    return names or None


def render_dep5(comps: list[Component], prefix: str, contact: str) -> str:
    """Debian machine-readable copyright (DEP-5) for the package: the project's own files, then one
    ``Files:`` paragraph per component (paths under ``prefix``, e.g. ``usr/lib/checkpoint-inspector``),
    then a ``License:`` paragraph for each licence named."""
    paras = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
             "Upstream-Name: checkpoint-inspector\n"
             f"Upstream-Contact: {contact}\n"
             "Comment: The full third-party notices, with every licence text, the LGPL offer for Qt's\n"
             " source and how to replace Qt, are in\n"
             " /usr/share/doc/checkpoint-inspector/THIRD-PARTY-NOTICES.txt.",
             "Files: *\nCopyright: 2026 The Checkpoint Inspector authors (A3S)\nLicense: Apache-2.0"]
    needed: dict[str, Component | None] = {"Apache-2.0": None}
    internal = "_internal"
    for c in comps:
        files = [f"{prefix}/{p}" if p.startswith("checkpoint-inspector") else f"{prefix}/{internal}/{p}"
                 for p in c.paths if not p.endswith(".exe")]
        if not files:
            continue
        para = [f"Files: {' '.join(files)}", f"Copyright: {c.copyright or 'the ' + c.name + ' authors'}"]
        names = _spdx_names(c.license)
        if names:
            para.append("License: " + c.license.replace(" AND ", " and ").replace(" OR ", " or "))
            for n in names:
                needed.setdefault(n, c)
            if c.note:
                para.append("Comment:\n" + _dep5_text(c.note))
        else:  # copied from a Debian package: its copyright file, verbatim, is in the notices
            source = c.texts[0][0] if c.texts else "its upstream copyright"
            para.append(f"License: other\n {c.name} {c.version}, unmodified. Its copyright and licence terms "
                        f"({source}) are\n reproduced in full in /usr/share/doc/checkpoint-inspector/{NOTICES_NAME}.")
        paras.append("\n".join(para))
    for name, c in needed.items():
        if name in COMMON_LICENSES:
            paras.append(f"License: {name}\n On Debian systems, the full text of this licence is in\n"
                         f" /usr/share/common-licenses/{COMMON_LICENSES[name]}.")
            continue
        texts = c.texts if c else []
        text = next((t for title, t in texts if name.split("-")[0].lower() in title.lower()),
                    texts[0][1] if texts else f"The text is in THIRD-PARTY-NOTICES.txt ({c.name if c else name}).")
        paras.append(f"License: {name}\n{_dep5_text(text)}")
    return "\n\n".join(paras) + "\n"


def write(bundle: Path, version: str, contact: str) -> Path:
    """Write the licence folder into ``bundle``; returns the notices file. Fails on unattributed files."""
    comps, unknown = collect(bundle, contact)
    if unknown and sys.platform.startswith("linux"):
        raise SystemExit(f"make_notices: cannot attribute these bundled libraries to a package: {unknown}")
    if unknown:  # Windows/macOS: libraries that came with python.org's runtime (listed in its LICENSE.txt)
        comps[0].paths += unknown
    target = internal_dir(bundle) / "licenses"
    if (bundle / "Contents" / "Resources").is_dir():
        target = bundle / "Contents" / "Resources" / "licenses"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("LICENSE", "NOTICE"):
        (target / name).write_text((ROOT / name).read_text())
    notices = target / NOTICES_NAME
    notices.write_text(render_notices(comps, version))
    return notices


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--bundle DIR [--version V] [--contact ADDR]``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bundle", required=True, type=Path)
    p.add_argument("--version", default=None)
    p.add_argument("--contact", default=os.environ.get("DEB_MAINTAINER", DEFAULT_CONTACT))
    args = p.parse_args(argv)
    version = args.version or re.search(r'^__version__ = "([^"]+)"', (ROOT / "inspector" / "__init__.py").read_text(),
                                        re.M).group(1)
    notices = write(args.bundle, version, args.contact)
    listed = [line for line in notices.read_text().splitlines()[:200] if re.match(r"  +\d+\. ", line)]
    print(f"make_notices: {notices} ({notices.stat().st_size // 1024} KiB), {len(listed)} components:")
    print("\n".join(listed))
    return 0


DEFAULT_CONTACT = "Checkpoint Inspector maintainers <checkpoint-inspector@example.invalid>"

if __name__ == "__main__":
    raise SystemExit(main())
