"""The licence texts the application shows (Help ▸ About ▸ Licences), without Qt.

* :func:`project_license` is Checkpoint Inspector's own ``LICENSE`` (Apache-2.0).
* :func:`third_party_notices` is, in an installer build, the ``THIRD-PARTY-NOTICES.txt`` that
  ``packaging/licenses/make_notices.py`` generated from what that build contains; in a pip
  installation, a list made now from the installed distributions the application uses, with
  their licence files.

Both search, in order: the build's ``licenses/`` folder (PyInstaller's ``_MEIPASS``; the macOS
app's ``Contents/Resources/licenses``), the installed distribution's metadata, the source tree.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from pathlib import Path

__all__ = ["NOTICES_NAME", "RUNTIME_DISTRIBUTIONS", "licenses_dir", "project_license", "third_party_notices"]

NOTICES_NAME = "THIRD-PARTY-NOTICES.txt"
#: Distributions the application imports at run time (engine, CLI and GUI).
RUNTIME_DISTRIBUTIONS = ("orjson", "msgspec", "PySide6-Essentials", "shiboken6", "platformdirs")
_SOURCE_ROOT = Path(__file__).resolve().parents[1]


def licenses_dir() -> Path | None:
    """The ``licenses/`` folder of an installer build, or ``None`` (pip install, source tree)."""
    base = getattr(sys, "_MEIPASS", None)
    if base:
        for cand in (Path(base) / "licenses", Path(base).parent / "Resources" / "licenses"):
            if cand.is_dir():
                return cand
    return None


def _dist_file(dist_name: str, name: str) -> str | None:
    try:
        dist = md.distribution(dist_name)
    except md.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if Path(str(f)).name == name and ".dist-info" in str(f):
            try:
                return f.read_text()
            except OSError:
                return None
    return None


def project_license() -> str:
    """Checkpoint Inspector's ``LICENSE`` text (Apache-2.0). Raises ``FileNotFoundError`` if an
    installation lost it."""
    folder = licenses_dir()
    if folder and (folder / "LICENSE").is_file():
        return (folder / "LICENSE").read_text()
    text = _dist_file("checkpoint-inspector", "LICENSE")
    if text:
        return text
    source = _SOURCE_ROOT / "LICENSE"
    if source.is_file():
        return source.read_text()
    raise FileNotFoundError("LICENSE is not installed with Checkpoint Inspector")


def third_party_notices() -> str:
    """The third-party notices: the build's generated file, or (pip install) one made now from
    :data:`RUNTIME_DISTRIBUTIONS` that are installed, with name, version, licence expression and
    the licence files each distribution ships."""
    folder = licenses_dir()
    if folder and (folder / NOTICES_NAME).is_file():
        return (folder / NOTICES_NAME).read_text()
    parts = ["Checkpoint Inspector is Apache-2.0. In this installation it uses these separately "
             "installed distributions, under their own licences:", ""]
    texts = []
    for name in RUNTIME_DISTRIBUTIONS:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        meta = dist.metadata
        licence = meta.get("License-Expression") or meta.get("License") or "see its licence files"
        parts.append(f"  {meta['Name']} {dist.version}: {licence}")
        for f in dist.files or []:
            p = Path(str(f))
            if ".dist-info" in p.parts[0] and (len(p.parts) > 2 and p.parts[1] == "licenses"):
                try:
                    texts.append(f"--- {meta['Name']}: {p.name} ---\n{f.read_text().rstrip()}")
                except OSError:
                    continue
    parts.append("  Python itself: PSF-2.0 (see the LICENSE of your Python installation).")
    parts += ["", "Qt and PySide6 are LGPL-3.0-only: you may replace them with your own build of the same "
              "version (pip install your wheel into this environment).", ""]
    return "\n".join(parts + texts) + "\n"
