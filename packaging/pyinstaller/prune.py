"""Trim a PyInstaller TOC of Qt plugins the inspector never uses, and of the libraries only they needed.

Used by ``checkpoint-inspector.spec`` on Linux. PyInstaller's PySide6 hooks collect every
plugin of the used Qt modules (framebuffer/KMS/VNC platforms, evdev input, the GTK3 theme...),
and with them their dependencies (GTK pulls cairo, pango, gdk-pixbuf, ...). We keep the
platforms a desktop needs (``xcb``, ``wayland``, plus ``offscreen``/``minimal`` for headless use
and ``--self-test``), drop the rest, leave :data:`SYSTEM_LIBRARIES` to the system, then drop every
bundled shared library no longer reachable through ``DT_NEEDED`` from what remains.
"""

from __future__ import annotations

import fnmatch
import struct
from pathlib import PurePosixPath

#: Bundle paths (fnmatch patterns, relative to the bundle's _internal dir) that are dropped.
DROP_PATTERNS = (
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
    "PySide6/Qt/plugins/networkinformation/*",
    "PySide6/Qt/plugins/tls/*",
    "PySide6/Qt/plugins/wayland-graphics-integration-server/*",
)

#: Libraries always taken from the system, never bundled: fontconfig/freetype must match the
#: system's font configuration (a bundled fontconfig finds no config and no fonts on a clean
#: machine: every glyph renders as a box), and libstdc++/libgcc_s must be at least as new as
#: what the system's graphics drivers (loaded into the process by libGL/libEGL) were built with.
#: The .deb then depends on their packages (make_deb.py computes that).
SYSTEM_LIBRARIES = ("libfontconfig.so.1", "libfreetype.so.6", "libstdc++.so.6", "libgcc_s.so.1")


def elf_needed(path: str) -> list[str]:
    """The ``DT_NEEDED`` sonames of an ELF file (``[]`` for a non-ELF or unreadable file)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    if data[:4] != b"\x7fELF":
        return []
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            _, sh_type, _, _, sh_offset, sh_size, sh_link = struct.unpack_from(end + "IIQQQQI", data, off)
        else:
            _, sh_type, _, _, sh_offset, sh_size, sh_link = struct.unpack_from(end + "IIIIIII", data, off)
        sections.append((sh_type, sh_offset, sh_size, sh_link))
    needed = []
    for sh_type, sh_offset, sh_size, sh_link in sections:
        if sh_type != 6:  # SHT_DYNAMIC
            continue
        _, str_off, str_size, _ = sections[sh_link]
        fmt, step = (end + "qQ", 16) if is64 else (end + "iI", 8)
        for pos in range(sh_offset, sh_offset + sh_size, step):
            tag, val = struct.unpack_from(fmt, data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                name_end = data.index(b"\0", str_off + val)
                needed.append(data[str_off + val:name_end].decode())
    return needed


def _dropped(dest: str) -> bool:
    posix = PurePosixPath(dest.replace("\\", "/"))
    return posix.name in SYSTEM_LIBRARIES or any(fnmatch.fnmatch(str(posix), pat) for pat in DROP_PATTERNS)


def _is_plain_library(dest: str) -> bool:
    """A dependency library (not a Python extension, not a Qt plugin, not Python itself)."""
    p = PurePosixPath(dest)
    if "plugins" in p.parts or p.name.startswith("libpython"):
        return False
    if p.name.endswith(".abi3.so") or ".cpython-" in p.name or "lib-dynload" in p.parts:
        return False
    return ".so" in p.name


def prune(binaries: list[tuple], needed=elf_needed) -> tuple[list[tuple], list[str]]:
    """Return ``(kept_binaries, dropped_dest_names)`` for a PyInstaller binaries TOC.

    ``binaries`` holds ``(dest_name, src_path, typecode)`` entries. Entries matching
    :data:`DROP_PATTERNS` or named in :data:`SYSTEM_LIBRARIES` go, then plain libraries not
    reachable from the remaining roots (extensions, plugins, libpython) through ``DT_NEEDED``
    go too.
    """
    first = [e for e in binaries if not _dropped(e[0])]
    dropped = [e[0] for e in binaries if _dropped(e[0])]
    by_soname: dict[str, list[tuple]] = {}
    for e in first:
        by_soname.setdefault(PurePosixPath(e[0]).name, []).append(e)
    reachable: set[str] = set()
    todo = [e for e in first if not _is_plain_library(e[0])]
    seen_src: set[str] = set()
    while todo:
        e = todo.pop()
        if e[1] in seen_src:
            continue
        seen_src.add(e[1])
        reachable.add(e[0])
        for soname in needed(e[1]):
            for dep in by_soname.get(soname, []):
                todo.append(dep)
    kept = [e for e in first if not _is_plain_library(e[0]) or e[0] in reachable]
    dropped += [e[0] for e in first if _is_plain_library(e[0]) and e[0] not in reachable]
    kept, dangling = drop_dangling_symlinks(kept, kept)
    return kept, dropped + dangling


def drop_dangling_symlinks(entries: list[tuple], present: list[tuple]) -> tuple[list[tuple], list[str]]:
    """Return ``(entries_kept, dropped_dest_names)``: ``entries`` without the ``SYMLINK`` entries
    whose target is not among the files of ``present``.

    PyInstaller records the top-level links to Qt libraries (``libQt6EglFsKmsSupport.so.6 ->
    PySide6/Qt/lib/...``) as ``(dest, relative_target, "SYMLINK")`` entries, and after its final
    normalisation they sit in ``Analysis.datas``, not ``binaries``: when :func:`prune` drops the
    library, the link would be collected dangling.
    """
    files = {PurePosixPath(e[0].replace("\\", "/")) for e in present if e[2] != "SYMLINK"}
    dangling = [e for e in entries if e[2] == "SYMLINK" and _link_target(e) not in files]
    return [e for e in entries if e not in dangling], [e[0] for e in dangling]


def _link_target(entry: tuple) -> PurePosixPath:
    """Bundle path a SYMLINK entry points to (its ``src`` is relative to the link's folder)."""
    dest = PurePosixPath(entry[0].replace("\\", "/"))
    parts: list[str] = []
    for part in (dest.parent / entry[1].replace("\\", "/")).parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts)
