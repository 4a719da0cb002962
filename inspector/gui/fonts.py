"""Is checkpoint text really drawn? Font coverage of the scripts checkpoints hold.

A checkpoint's strings (config names, messages, tool output) can be in any script. When no
installed font has a glyph for a character, Qt draws a missing-glyph box and nothing else tells the
user: glyph 0 (``.notdef``) of the chosen font, or, with no usable font at all, Qt's own fallback
glyph (index 1 of a font that has no glyph for the character). :func:`coverage_problems` lays out and
draws a sample string per script with the application font, offscreen, exactly as the views would,
and reads back the glyph runs: a character is drawn only when its glyph is not 0, not drawn by a font
without a size (Qt's box engine) and not the glyph an unassigned code point gets.

The window's own text is Latin (:data:`UI_SCRIPTS`): without it nothing is readable. The other
scripts only appear in checkpoint content, so a missing one is a warning with its fix, not a failure.

The portable Linux bundle ships fonts in ``fonts/`` next to its libraries;
:func:`register_bundled_fonts` adds them to Qt before any window exists. The ``.deb`` depends on
the system font packages instead (:data:`SCRIPTS` names them).

Used by ``--self-test`` (:func:`inspector.selftest.check_gui`) and at start-up (a non-blocking
notice in the window, :func:`inspector.gui.app.run`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Script", "SCRIPTS", "UI_SCRIPTS", "control_pictures", "coverage_problems", "missing_characters",
           "notice_text",
           "register_bundled_fonts", "bundled_fonts_dir"]


@dataclass(frozen=True)
class Script:
    """A writing system checkpoints hold: ``name``, a ``sample`` string of it, the Debian
    ``package`` whose font draws it, and the Fedora package (``fedora``)."""

    name: str
    sample: str
    package: str
    fedora: str


#: One sample per script; the CJK line has Chinese (a config name such as "调试构建"),
#: Japanese kana and Hangul. Emoji without variation selectors (each is one code point).
SCRIPTS = (
    Script("Latin", "Checkpoint Ünïcödé Ærø ß ŁŚ", "fonts-dejavu-core", "dejavu-sans-fonts"),
    Script("Greek", "Ελληνικά αβγδ ΩΣ", "fonts-dejavu-core", "dejavu-sans-fonts"),
    Script("Cyrillic", "Кириллица Жюя ёЁ", "fonts-dejavu-core", "dejavu-sans-fonts"),
    Script("CJK", "调试构建 設定 テスト 한국어", "fonts-noto-cjk", "google-noto-sans-cjk-fonts"),
    Script("emoji", "\U0001F600\U0001F680\u2705", "fonts-noto-color-emoji", "google-noto-color-emoji-fonts"),
)


#: The scripts of the window's own text (menus, labels, verdicts): they must draw.
UI_SCRIPTS = ("Latin",)


def bundled_fonts_dir() -> Path | None:
    """``fonts/`` of a frozen (PyInstaller) build, if it ships one; ``None`` otherwise."""
    base = getattr(sys, "_MEIPASS", None)
    if base and (Path(base) / "fonts").is_dir():
        return Path(base) / "fonts"
    return None


def register_bundled_fonts() -> list[str]:
    """Add the bundle's fonts to Qt's font database (needs a ``QGuiApplication``).

    Returns the families added (``[]`` outside a bundle with fonts). Fonts already installed on
    the system keep precedence; these only fill in missing scripts through font fallback.
    """
    from PySide6.QtGui import QFontDatabase

    folder = bundled_fonts_dir()
    families: list[str] = []
    if folder is None:
        return families
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in (".ttf", ".otf", ".ttc"):
            font_id = QFontDatabase.addApplicationFont(str(path))
            if font_id >= 0:
                families += QFontDatabase.applicationFontFamilies(font_id)
    return families


def missing_characters(text: str, font=None) -> list[str]:
    """Characters of ``text`` that ``font`` (default: the application font) with Qt's font
    fallback draws as a missing-glyph box. Each character is laid out and painted offscreen
    (into a QImage) on its own, so the result names exactly which ones fail."""
    from PySide6.QtGui import QGuiApplication, QImage

    font = font or QGuiApplication.font()
    image = QImage(64, 64, QImage.Format.Format_ARGB32_Premultiplied)
    # what the box looks like here: an unassigned code point (U+0378) can only be drawn as the box
    box = _glyphs(_UNASSIGNED, font, image)
    return [ch for ch in dict.fromkeys(c for c in text if not c.isspace()) if _is_box(_glyphs(ch, font, image), box)]


def control_pictures(fonts=None) -> set[int]:
    """The C0 controls and DEL (codes 0..31, 127) whose Unicode control picture (U+2400.., U+2421) every font
    of ``fonts`` (default: the application font and the fixed-width font the trees use) draws, with Qt's
    fallback, as a glyph and not the missing-glyph box: what :func:`inspector.session.visible.use_pictures`
    is told, so that a control shows as ␛ where it can and as ``\\x1b`` where it would be a box."""
    from PySide6.QtGui import QFontDatabase, QGuiApplication

    fonts = fonts or (QGuiApplication.font(), QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    codes = {c: "\u2421" if c == 0x7F else chr(0x2400 + c) for c in (*range(0x20), 0x7F)}
    sample = "".join(codes.values())
    missing = set()
    for font in fonts:
        missing.update(missing_characters(sample, font))
    return {c for c, pic in codes.items() if pic not in missing}


#: A code point no Unicode version assigns: whatever Qt draws for it is the missing-glyph box.
_UNASSIGNED = "\u0378"


def _glyphs(ch: str, font, image) -> list[tuple[int, float, float]]:
    """``(glyph index, units per em, pixel size)`` of each glyph Qt draws for ``ch`` (laid out and painted)."""
    from PySide6.QtGui import QPainter, QTextLayout

    layout = QTextLayout(ch, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    painter = QPainter(image)
    layout.draw(painter, image.rect().topLeft())
    painter.end()
    out = []
    for run in layout.glyphRuns():
        raw = run.rawFont()  # (never ask a box font its family name: Qt crashes)
        units, pixels = (raw.unitsPerEm(), raw.pixelSize()) if raw.isValid() else (0.0, -1.0)
        out += [(i, units, pixels) for i in run.glyphIndexes()]
    return out


def _is_box(glyphs: list[tuple[int, float, float]], box: list[tuple[int, float, float]]) -> bool:
    """Glyph 0 (a font's .notdef), a font with no size (Qt's box engine when no font is usable: it draws
    glyph 1 for everything), or the very glyph of an unassigned code point."""
    return not glyphs or glyphs == box or any(i == 0 or pixels <= 0 for i, _u, pixels in glyphs)


def coverage_problems(scripts=SCRIPTS, font=None) -> list[tuple[Script, list[str]]]:
    """``(script, missing characters)`` for each script some of whose sample falls back to the box."""
    problems = []
    for script in scripts:
        missing = missing_characters(script.sample, font)
        if missing:
            problems.append((script, missing))
    return problems


def notice_text(problems: list[tuple[Script, list[str]]]) -> str:
    """One sentence for the self-test and the start-up notice: which scripts, the install command.
    Names the scripts and packages only (no checkpoint content)."""
    names = ", ".join(f"{s.name} ({len(m)} of {len(set(s.sample.replace(' ', '')))} sample characters)"
                      for s, m in problems)
    packages = " ".join(dict.fromkeys(s.package for s, _ in problems))
    fedora = " ".join(dict.fromkeys(s.fedora for s, _ in problems))
    if sys.platform.startswith("linux"):
        fix = f"sudo apt install {packages} (Fedora: sudo dnf install {fedora})"
    else:
        fix = "install a font for these scripts (Windows: Settings > Time & language > Language; macOS: Font Book)"
    return f"no installed font draws {names}: such text shows as boxes; fix: {fix}"
