"""List the licence files inside every built artifact and fail if one lacks them (CI check).

    python3 packaging/licenses/check_artifacts.py dist/*

Required, by artifact kind (paths inside the archive; ``*`` matches any folder name):

* wheel (``.whl``): ``*.dist-info/licenses/LICENSE`` and ``NOTICE``
* sdist (``checkpoint_inspector-*.tar.gz``): ``*/LICENSE``, ``*/NOTICE``
* portable tarball (``*-linux-*.tar.gz``): ``checkpoint-inspector/_internal/licenses/`` with
  ``LICENSE``, ``NOTICE``, ``THIRD-PARTY-NOTICES.txt``, and a ``.copyright`` for each bundled font
* ``.deb``: ``/usr/share/doc/checkpoint-inspector/copyright`` and ``THIRD-PARTY-NOTICES.txt``,
  and the bundle's ``licenses/`` folder
* Windows setup / macOS DMG are checked on their runners (``build.ps1``, ``macos/build.sh``).

Prints one line per artifact with the licence files found; exit 1 if any is missing.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

REQUIRED = {
    "wheel": ["*.dist-info/licenses/LICENSE", "*.dist-info/licenses/NOTICE"],
    "sdist": ["*/LICENSE", "*/NOTICE"],
    "tarball": ["checkpoint-inspector/_internal/licenses/LICENSE", "checkpoint-inspector/_internal/licenses/NOTICE",
                "checkpoint-inspector/_internal/licenses/THIRD-PARTY-NOTICES.txt",
                "checkpoint-inspector/_internal/fonts/fonts-wqy-microhei_*.copyright"],
    "deb": ["./usr/share/doc/checkpoint-inspector/copyright",
            "./usr/share/doc/checkpoint-inspector/THIRD-PARTY-NOTICES.txt",
            "./usr/lib/checkpoint-inspector/_internal/licenses/LICENSE",
            "./usr/lib/checkpoint-inspector/_internal/licenses/THIRD-PARTY-NOTICES.txt"],
}
LICENCE_NAMES = ("LICENSE", "NOTICE", "NOTICES", "copyright", "COPYING")


def kind(path: Path) -> str | None:
    """Artifact kind from the file name (``None``: not an artifact we check)."""
    name = path.name
    if name.endswith(".whl"):
        return "wheel"
    if name.endswith(".deb"):
        return "deb"
    if name.endswith(".tar.gz"):
        return "tarball" if "-linux-" in name else "sdist"
    return None


def members(path: Path, k: str) -> list[str]:
    """Paths inside the artifact."""
    if k == "wheel":
        with zipfile.ZipFile(path) as z:
            return z.namelist()
    if k == "deb":
        out = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)], capture_output=True, check=True).stdout
        import io

        with tarfile.open(fileobj=io.BytesIO(out)) as t:
            return t.getnames()
    with tarfile.open(path) as t:
        return t.getnames()


def check(path: Path) -> tuple[bool, str]:
    """``(ok, line)`` for one artifact."""
    k = kind(path)
    names = members(path, k)
    missing = [pat for pat in REQUIRED[k] if not fnmatch.filter(names, pat)]
    found = sorted(n for n in names if any(w in Path(n).name for w in LICENCE_NAMES))
    shown = ", ".join(found[:8]) + (f" (+{len(found) - 8} more)" if len(found) > 8 else "")
    if missing:
        return False, f"licences: FAIL {path.name} ({k}): missing {', '.join(missing)}; found: {shown}"
    return True, f"licences: ok   {path.name} ({k}): {shown}"


def main(argv: list[str]) -> int:
    """Check every artifact given; print one line each; 0 if all carry their licences."""
    artifacts = [Path(a) for a in argv if kind(Path(a))]
    if not artifacts:
        print("licences: no artifacts given", file=sys.stderr)
        return 1
    ok = True
    for a in artifacts:
        good, line = check(a)
        ok &= good
        print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
