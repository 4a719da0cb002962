"""Render the application icon from ``checkpoint-inspector.svg`` into every format the installers use.

Writes into ``resources/icons/`` (package data ``inspector.resources/icons``):

* ``checkpoint-inspector.svg``: the scalable source (Linux ``hicolor/scalable``);
* ``checkpoint-inspector-<N>.png`` for N in 16 24 32 48 64 128 256 512 (Linux ``hicolor/NxN``, window icon);
* ``checkpoint-inspector.ico``: Windows, PNG-compressed entries 16-256 (Vista and later);
* ``checkpoint-inspector.icns``: macOS, PNG entries 16-1024 (10.7 and later).

The .ico and .icns containers are written here by hand (both are a header plus PNG blobs), so
no Windows or macOS tool is needed. Run with the project venv (needs PySide6)::

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/icons/make_icons.py
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "checkpoint-inspector.svg"
OUT = HERE.parent.parent / "resources" / "icons"
NAME = "checkpoint-inspector"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns OSType per pixel size (PNG payloads); 1024 is the 512@2x slot.
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256), (b"ic09", 512),
              (b"ic10", 1024), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256), (b"ic14", 512))


def render_png(size: int) -> bytes:
    """The icon rendered at ``size`` x ``size`` pixels, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"invalid SVG: {SOURCE}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    buf.close()
    return bytes(data)


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG entry per size (ICONDIR + ICONDIRENTRY records)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, blobs = b"", b""
    for s in sizes:
        blob = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns holding PNG entries (``icns`` header, then type/length/data records)."""
    body = b"".join(t + struct.pack(">I", 8 + len(pngs[s])) + pngs[s] for t, s in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    """Write all icon files into ``resources/icons``; prints each file and its size."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (needed for QPainter)
    OUT.mkdir(parents=True, exist_ok=True)
    pngs = {s: render_png(s) for s in sorted(set(PNG_SIZES) | set(ICO_SIZES) | {s for _, s in ICNS_TYPES})}
    written = []
    shutil.copyfile(SOURCE, OUT / f"{NAME}.svg")
    written.append(OUT / f"{NAME}.svg")
    for s in PNG_SIZES:
        path = OUT / f"{NAME}-{s}.png"
        path.write_bytes(pngs[s])
        written.append(path)
    (OUT / f"{NAME}.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    (OUT / f"{NAME}.icns").write_bytes(icns_bytes(pngs))
    written += [OUT / f"{NAME}.ico", OUT / f"{NAME}.icns"]
    for path in written:
        print(f"{path.stat().st_size:8d}  {path.relative_to(OUT.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
