"""Assemble the Debian package from the PyInstaller one-folder bundle.

Layout of the package::

    /usr/lib/checkpoint-inspector/                  the bundle (executable + _internal/)
    /usr/bin/checkpoint-inspector                   -> ../lib/checkpoint-inspector/checkpoint-inspector
    /usr/share/applications/checkpoint-inspector.desktop
    /usr/share/icons/hicolor/<N>x<N>/apps/checkpoint-inspector.png, scalable/apps/checkpoint-inspector.svg
    /usr/share/mime/packages/checkpoint-inspector.xml       the checkpoint media type (shared-mime-info)
    /usr/share/metainfo/checkpoint-inspector.metainfo.xml   AppStream: what software centres show
    /usr/share/man/man1/checkpoint-inspector.1.gz      made from the parser (tools/gen_cli_files.py)
    /usr/share/bash-completion/completions/checkpoint-inspector, /usr/share/zsh/vendor-completions/_checkpoint-inspector,
        /usr/share/fish/vendor_completions.d/checkpoint-inspector.fish   likewise
    /usr/share/doc/checkpoint-inspector/copyright (DEP-5), THIRD-PARTY-NOTICES.txt, changelog.gz,
        README.samples.md

The bundle lives under ``/usr/lib``, not ``/opt``: Debian packages must not ship files in ``/opt``,
and dpkg removed a pre-existing empty ``/opt`` (owned by no package) together with the package.
The ``/usr/bin`` symlink is relative (Debian policy 10.5 within one top-level folder), so
``dpkg -x pkg.deb ROOT`` gives a runnable ``ROOT/usr/bin/checkpoint-inspector`` too. ``Depends`` is computed, not hand-written: every
shared library the bundle's ELF files need that is not inside the bundle is looked up with
``ldconfig -p`` and ``dpkg-query -S``; the ``libc6`` minimum comes from the highest
``GLIBC_x.y`` symbol version referenced; :data:`EXTRA_DEPENDS` adds a font. A needed library
that the build machine cannot resolve stops the build (the package would otherwise install
without it).

``Maintainer`` is ``DEB_MAINTAINER`` (``Name <address>``); without it a placeholder at ``example.invalid``,
which a release build (``RELEASE=1``, the workflow's tag builds) refuses (:func:`deb_maintainer`).
``Homepage`` is ``DEB_HOMEPAGE``; without it the field is left out, which a release build refuses too
(:func:`deb_homepage`).

Usage::

    DEB_MAINTAINER="Name <address>" RELEASE=1 python3 packaging/linux/make_deb.py \\
        --bundle build/packaging/dist/checkpoint-inspector --out dist
"""

from __future__ import annotations

import argparse
import hashlib
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "pyinstaller"))
from prune import elf_needed  # noqa: E402  (shared ELF reader)

sys.path.insert(0, str(ROOT / "tools"))
import gen_cli_files as cli_files  # noqa: E402  (the manual page and completions, made from the parser)

PACKAGE = "checkpoint-inspector"
#: A placeholder, for test builds only: a release build (``RELEASE=1``) refuses it (:func:`deb_maintainer`).
DEFAULT_MAINTAINER = "Checkpoint Inspector maintainers <checkpoint-inspector@example.invalid>"
#: ``Name <address>``, as Debian policy 5.6.2 has the field (one person or list, no comma).
_MAINTAINER_FORM = re.compile(r"^[^<>,@\n]+ <[^<>@\s]+@([^<>@\s]+)>$")
#: Domains reserved for examples and tests (RFC 2606, RFC 6761): no mail reaches them.
_PLACEHOLDER_DOMAINS = re.compile(r"(^|\.)(example|invalid|test|localhost|local)$|(^|\.)example\.(com|net|org)$",
                                  re.IGNORECASE)
INSTALL_DIR = f"usr/lib/{PACKAGE}"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
DESCRIPTION = """Verify and explain A3S Code session checkpoints
 Checkpoint Inspector opens an A3S Code portable session checkpoint (payload
 and/or descriptor), shows its snapshot and resume-boundary trees, recomputes
 every digest and tells exactly which validation rule failed, byte-exact with
 the Rust reference.
 .
 The package contains the desktop application and the headless command
 `checkpoint-inspector` (verify, describe, canon, rules, explain,
 --self-test). It is self-contained: Python and Qt are bundled under
 /usr/lib/checkpoint-inspector."""
#: Not visible as library dependencies, still needed: fonts that draw the scripts checkpoints
#: hold (fontconfig without a font for a script draws its characters as boxes; the self-test
#: checks each script, inspector/gui/fonts.py). Latin, Greek, Cyrillic: DejaVu; CJK: Noto CJK or
#: a smaller alternative already installed.
EXTRA_DEPENDS = ("fonts-dejavu-core | fonts-noto-core", "fonts-noto-cjk | fonts-wqy-microhei | fonts-droid-fallback")
#: Emoji are drawn from a fallback font when one is installed (apt installs Recommends by default).
RECOMMENDS = ("fonts-noto-color-emoji",)
MIME_TYPE = "application/vnd.a3s.code.session-checkpoint.v1+json"
#: Libraries provided by the C library itself (covered by the libc6 dependency).
LIBC_SONAMES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libresolv.so.2",
                "libutil.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libcrypt.so.1"}


def project_version() -> str:
    """``__version__`` of the ``inspector`` package in this source tree."""
    text = (ROOT / "inspector" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _elf_files(bundle: Path):
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    yield path


def system_sonames(bundle: Path) -> dict[str, list[str]]:
    """Sonames needed by the bundle's ELF files but not shipped in it -> which files need them."""
    shipped = {p.name for p in bundle.rglob("*")}
    needed: dict[str, list[str]] = {}
    for path in _elf_files(bundle):
        for soname in elf_needed(str(path)):
            if soname not in shipped:
                needed.setdefault(soname, []).append(str(path.relative_to(bundle)))
    return needed


def min_glibc(bundle: Path) -> str | None:
    """The highest ``GLIBC_x.y[.z]`` version any bundled ELF file references (e.g. ``"2.34"``)."""
    best: tuple[int, ...] = ()
    pattern = re.compile(rb"GLIBC_(\d+)\.(\d+)(?:\.(\d+))?\x00")
    for path in _elf_files(bundle):
        for m in pattern.finditer(path.read_bytes()):
            version = tuple(int(g) for g in m.groups() if g is not None)
            best = max(best, version)
    return ".".join(map(str, best)) or None


def _ldconfig_map() -> dict[str, str]:
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    arch_tag = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(os.uname().machine, "")
    result: dict[str, str] = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m and (not arch_tag or arch_tag in m.group(2)) and m.group(1) not in result:
            result[m.group(1)] = m.group(3)
    return result


def _owning_package(path: str) -> str | None:
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.append(p[4:])
        elif p.startswith("/lib"):
            candidates.append("/usr" + p)
    for p in candidates:
        r = subprocess.run(["dpkg-query", "-S", p], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            pkg = r.stdout.split(":", 1)[0].split(",")[0].strip()
            return pkg
    return None


def compute_depends(bundle: Path) -> tuple[list[str], list[str]]:
    """``(depends, unresolved)``: Debian package names (with a ``libc6 (>= x)`` minimum) and the
    sonames the build machine could not map to an installed package."""
    ldmap = _ldconfig_map()
    packages: set[str] = set()
    unresolved: list[str] = []
    for soname in sorted(system_sonames(bundle)):
        if soname in LIBC_SONAMES:
            continue
        path = ldmap.get(soname)
        pkg = _owning_package(path) if path else None
        if pkg is None:
            unresolved.append(soname)
        else:
            packages.add(pkg.split(":")[0])
    packages.discard("libc6")
    glibc = min_glibc(bundle)
    depends = [f"libc6 (>= {glibc})" if glibc else "libc6"] + sorted(packages) + list(EXTRA_DEPENDS)
    return depends, unresolved


def desktop_entry() -> str:
    """The freedesktop.org ``.desktop`` entry installed under ``/usr/share/applications``."""
    return (HERE / f"{PACKAGE}.desktop").read_text()


def _is_shared_library(path: Path) -> bool:
    """An ELF shared object (``ET_DYN``) named like a library or Python extension: mode 0644 in
    the package (lintian: shared-library-is-executable). The bundle's executable is ``ET_DYN``
    too (PIE) but has no ``.so`` in its name."""
    if ".so" not in path.name:
        return False
    with open(path, "rb") as f:
        head = f.read(18)
    return head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little" if head[5] == 1 else "big") == 3


def _copytree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True)
    for dirpath, dirnames, filenames in os.walk(dst):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                continue
            executable = os.access(p, os.X_OK) and not _is_shared_library(p)
            os.chmod(p, 0o755 if executable else 0o644)


def _write_gz(path: Path, data: bytes) -> None:
    """gzip -9n: no name or time stamp in the header (reproducible, as lintian expects)."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
        gz.write(data)


def changelog(version: str, maintainer: str) -> str:
    """The Debian changelog of this (native) package: one entry for the built version."""
    return (f"{PACKAGE} ({version}) unstable; urgency=medium\n\n"
            f"  * Release {version}: built from the upstream tree by packaging/linux/make_deb.py.\n\n"
            f" -- {maintainer}  {_changelog_date()}\n")


def _changelog_date() -> str:
    """RFC 5322 date of ``SOURCE_DATE_EPOCH`` (reproducible builds) or now, in UTC."""
    seconds = int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())
    return time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(seconds))


def write_licences(root: Path, version: str, contact: str) -> None:
    """Third-party notices for what the staged tree really holds (regenerated, since the .deb
    leaves the bundle's fonts to the font packages), under the bundle and in
    ``/usr/share/doc``, and the machine-readable ``copyright`` (DEP-5) made from the same list."""
    sys.path.insert(0, str(ROOT / "packaging" / "licenses"))
    import make_notices

    staged = root / INSTALL_DIR
    notices = make_notices.write(staged, version, contact)
    doc = root / f"usr/share/doc/{PACKAGE}"
    shutil.copyfile(notices, doc / make_notices.NOTICES_NAME)
    comps, _ = make_notices.collect(staged, contact)
    (doc / "copyright").write_text(make_notices.render_dep5(comps, INSTALL_DIR, contact))


def deb_homepage(environ: dict | None = None) -> str | None:
    """The package's ``Homepage`` field (Debian policy 5.6.23) and the AppStream ``<url type="homepage">``:
    ``DEB_HOMEPAGE`` (an ``https://`` URL), else ``None`` (the field is left out: the project names no site).

    Raises:
        SystemExit: (message for stderr, exit status 1) when the value is not an ``https://`` URL, or when a
            release build (``RELEASE=1`` in ``environ``, default ``os.environ``) has none.
    """
    env = os.environ if environ is None else environ
    value = env.get("DEB_HOMEPAGE", "").strip()
    if not value:
        if env.get("RELEASE", "") == "1":
            raise SystemExit("make_deb: RELEASE=1 but DEB_HOMEPAGE is not set: the package's Homepage field and the "
                             "software centre's link need the project's https:// address")
        return None
    if not re.fullmatch(r"https://[^\s/?#]+\.[^\s/?#]+(/[^\s]*)?", value):
        raise SystemExit(f"make_deb: DEB_HOMEPAGE must be an https:// URL, not {value!r}")
    return value


def metainfo(version: str, homepage: str | None) -> str:
    """The AppStream metadata installed as ``/usr/share/metainfo/checkpoint-inspector.metainfo.xml``:
    ``checkpoint-inspector.metainfo.xml`` with this version's ``<release>`` (dated ``SOURCE_DATE_EPOCH``, else
    today) and, with ``homepage``, its ``<url>``."""
    from xml.sax.saxutils import quoteattr, escape

    text = (HERE / f"{PACKAGE}.metainfo.xml").read_text()
    date = time.strftime("%Y-%m-%d", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())))
    release = f"  <releases>\n    <release version={quoteattr(version)} date=\"{date}\"/>\n  </releases>\n"
    if homepage:
        release += f"  <url type=\"homepage\">{escape(homepage)}</url>\n"
    return text.replace("  <!-- releases -->\n", release)


def deb_maintainer(environ: dict | None = None) -> str:
    """The package's ``Maintainer`` field: ``DEB_MAINTAINER``, else the placeholder :data:`DEFAULT_MAINTAINER`.

    Args:
        environ: the environment to read (default ``os.environ``); ``RELEASE=1`` marks a release build.

    Returns:
        ``Name <address>``.

    Raises:
        SystemExit: (message for stderr, exit status 1) when the field is not ``Name <address>``, or when a
            release build would ship a placeholder: the default, or an address at a domain reserved for
            examples (``example.invalid``, ``example.com``, ``*.test``, ...). A test build keeps the placeholder
            and says so on stderr.
    """
    env = os.environ if environ is None else environ
    value = env.get("DEB_MAINTAINER", "").strip() or DEFAULT_MAINTAINER
    form = _MAINTAINER_FORM.match(value)
    if form is None:
        raise SystemExit(f"make_deb: DEB_MAINTAINER must read 'Name <address>' (Debian policy 5.6.2), not {value!r}")
    if _PLACEHOLDER_DOMAINS.search(form.group(1).rstrip(".")):  # (a fully qualified "example.com." too)
        if env.get("RELEASE", "") == "1":
            raise SystemExit(f"make_deb: RELEASE=1 but the maintainer is a placeholder ({value}): set DEB_MAINTAINER "
                             "to the real 'Name <address>' that users and Debian tools should reach")
        sys.stderr.write(f"make_deb: maintainer is a placeholder ({value}); a release build (RELEASE=1) refuses it\n")
    return value


def stage(bundle: Path, root: Path, version: str, arch: str, depends: list[str]) -> None:
    """Write the package tree (files + ``DEBIAN/control``) under ``root``.

    Raises:
        SystemExit: the maintainer is refused (:func:`deb_maintainer`).
    """
    icons = ROOT / "resources" / "icons"
    maintainer = deb_maintainer()
    homepage = deb_homepage()
    _copytree(bundle, root / INSTALL_DIR)
    # the portable bundle's fonts: the .deb depends on Debian's font packages instead
    shutil.rmtree(root / INSTALL_DIR / "_internal" / "fonts", ignore_errors=True)
    (root / "usr/bin").mkdir(parents=True)
    os.symlink(f"../lib/{PACKAGE}/{PACKAGE}", root / "usr/bin" / PACKAGE)
    apps = root / "usr/share/applications"
    apps.mkdir(parents=True)
    (apps / f"{PACKAGE}.desktop").write_text(desktop_entry())
    for size in ICON_SIZES:
        d = root / f"usr/share/icons/hicolor/{size}x{size}/apps"
        d.mkdir(parents=True)
        shutil.copyfile(icons / f"{PACKAGE}-{size}.png", d / f"{PACKAGE}.png")
    d = root / "usr/share/icons/hicolor/scalable/apps"
    d.mkdir(parents=True)
    shutil.copyfile(icons / f"{PACKAGE}.svg", d / f"{PACKAGE}.svg")
    (root / "usr/share/metainfo").mkdir(parents=True)
    (root / f"usr/share/metainfo/{PACKAGE}.metainfo.xml").write_text(metainfo(version, homepage))
    mime = root / "usr/share/mime/packages"
    mime.mkdir(parents=True)
    shutil.copyfile(HERE / f"{PACKAGE}-mime.xml", mime / f"{PACKAGE}.xml")
    man = root / "usr/share/man/man1"
    man.mkdir(parents=True)
    _write_gz(man / f"{PACKAGE}.1.gz", cli_files.man_page().encode())
    for shell, (folder, name) in cli_files.COMPLETION_FILES.items():
        (root / folder).mkdir(parents=True)
        (root / folder / name).write_text(cli_files.completion(shell), encoding="utf-8")
    doc = root / f"usr/share/doc/{PACKAGE}"
    doc.mkdir(parents=True)
    write_licences(root, version, maintainer)
    shutil.copyfile(ROOT / "resources" / "samples" / "README.md", doc / "README.samples.md")
    _write_gz(doc / "changelog.gz", changelog(version, maintainer).encode())
    overrides = root / "usr/share/lintian/overrides"
    overrides.mkdir(parents=True)
    shutil.copyfile(HERE / "lintian-overrides", overrides / PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root / "usr"):
        if Path(dirpath) == root / INSTALL_DIR:
            dirnames.clear()  # the bundle's modes were set by _copytree
            continue
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                os.chmod(p, 0o644)
    size_kib = sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir()) // 1024 + 1
    control = (f"Package: {PACKAGE}\nVersion: {version}\nArchitecture: {arch}\nMaintainer: {maintainer}\n"
               f"Installed-Size: {size_kib}\nDepends: {', '.join(depends)}\n"
               f"Recommends: {', '.join(RECOMMENDS)}\n"
               "Section: utils\nPriority: optional\n"
               + (f"Homepage: {homepage}\n" if homepage else "")
               +
               f"Description: {DESCRIPTION}\n")
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(control)
    (root / "DEBIAN" / "md5sums").write_text(md5sums(root))
    os.chmod(root / "DEBIAN", 0o755)


def md5sums(root: Path) -> str:
    """``DEBIAN/md5sums`` of the package tree under ``root``: ``<md5>  <path>`` of every regular file outside
    ``DEBIAN/`` (symlinks left out, as dh_md5sums does), sorted by path (``debsums`` checks an install with it)."""
    lines = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if rel.parts[0] == "DEBIAN" or p.is_symlink() or not p.is_file():
            continue
        h = hashlib.md5(usedforsecurity=False)
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        lines.append(f"{h.hexdigest()}  {rel.as_posix()}\n")
    return "".join(lines)


def build_deb(bundle: Path, out: Path, version: str | None = None, allow_unresolved: bool = False) -> Path:
    """Build ``out/checkpoint-inspector_<version>_<arch>.deb`` from ``bundle``; returns its path.

    Raises:
        SystemExit: the bundle is missing, a needed system library is unresolved, or the maintainer or the
            homepage is refused (:func:`deb_maintainer`, :func:`deb_homepage`: checked first, so a release with a
            placeholder stops before any work).
    """
    deb_maintainer()
    deb_homepage()
    version = version or project_version()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                          check=True).stdout.strip()
    if not (bundle / PACKAGE).is_file():
        raise SystemExit(f"make_deb: {bundle}/{PACKAGE} not found: build the bundle first")
    depends, unresolved = compute_depends(bundle)
    if unresolved and not allow_unresolved:
        raise SystemExit("make_deb: the bundle needs system libraries this machine does not have, so the "
                         f"package's Depends would be incomplete: {', '.join(unresolved)}. Install them "
                         "(packaging/linux/build.sh does) and rebuild.")
    out.mkdir(parents=True, exist_ok=True)
    deb = out / f"{PACKAGE}_{version}_{arch}.deb"
    with tempfile.TemporaryDirectory(prefix="ci-deb-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        stage(bundle, root, version, arch, depends)
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "-z6", "--build", str(root), str(deb)],
                       check=True, stdout=subprocess.DEVNULL)
    print(f"make_deb: {deb} ({deb.stat().st_size / 1e6:.1f} MB)")
    print(f"make_deb: Depends: {', '.join(depends)}")
    return deb


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--bundle DIR --out DIR [--version V] [--allow-unresolved]``, or ``--check-fields``: only
    decide the maintainer and the homepage (exit 1 when a release build would refuse them), which
    ``build.sh`` runs before any work."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check-fields", action="store_true",
                   help="only check DEB_MAINTAINER and DEB_HOMEPAGE as the build would (RELEASE=1 refuses placeholders)")
    p.add_argument("--bundle", type=Path, help="the PyInstaller one-folder bundle")
    p.add_argument("--out", type=Path, help="directory for the .deb")
    p.add_argument("--version", help="package version (default: inspector.__version__)")
    p.add_argument("--allow-unresolved", action="store_true",
                   help="build even if some needed system library is not installed here")
    args = p.parse_args(argv)
    if args.check_fields:
        deb_maintainer()
        deb_homepage()
        return 0
    if args.bundle is None or args.out is None:
        p.error("--bundle and --out are required")
    build_deb(args.bundle.resolve(), args.out.resolve(), args.version, args.allow_unresolved)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
