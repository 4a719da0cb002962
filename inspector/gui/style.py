"""The one place where a verdict becomes a colour, an icon and a word.

Every pane (findings, digests, trees, status bar) asks this module, so a verdict never
depends on colour alone: each has a word (``PASS``, ``FAIL``...) and an icon with its own
shape (check, cross, arrow, dash). Colours follow the application palette (light or dark).
Uses QtGui only (no QtWidgets), so models may import it.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPainterPath, QPalette, QPen, QPixmap

from inspector.checkpoint import Verdict

__all__ = ["readable", "readable_on_all", "over", "contrast_ratio", "label", "colour", "icon", "is_dark", "MATCH", "MISMATCH", "UNKNOWN", "match_label", "match_icon",
           "match_colour", "overall_text", "edited_colour", "highlight_colour", "link_colour", "rule_id_width",
           "widest_rule_id"]

_LABEL = {
    Verdict.PASS: "PASS", Verdict.FAIL: "FAIL", Verdict.NOT_REACHED: "not reached",
    Verdict.NOT_APPLICABLE: "n/a", Verdict.NOT_EVALUATED: "not evaluated",
}
# (light palette, dark palette)
_COLOURS = {
    "pass": ("#1b7f3b", "#5fd38a"),
    "fail": ("#c62828", "#ff7b7b"),
    "muted": ("#6b6b6b", "#a0a0a0"),
    "warn": ("#9a6700", "#f0c04a"),
}
_SHAPE = {Verdict.PASS: "check", Verdict.FAIL: "cross", Verdict.NOT_REACHED: "arrow",
          Verdict.NOT_APPLICABLE: "dash", Verdict.NOT_EVALUATED: "dash"}
_TONE = {Verdict.PASS: "pass", Verdict.FAIL: "fail", Verdict.NOT_REACHED: "warn",
         Verdict.NOT_APPLICABLE: "muted", Verdict.NOT_EVALUATED: "muted"}

MATCH, MISMATCH, UNKNOWN = True, False, None


def widest_rule_id(fm) -> str:
    """The rule id of the catalogue (``rules.toml``) that is widest in font metrics ``fm``
    (QFontMetrics): ``S-TOOLEND-EVIDENCE-MISMATCH`` in most fonts, not necessarily the longest."""
    return max(_rule_ids(), key=fm.horizontalAdvance)


def rule_id_width(fm, prefix: str = "") -> int:
    """Width in px of ``prefix`` followed by the widest rule id of the catalogue in font metrics ``fm``
    (QFontMetrics; a column showing rule ids is at least this wide plus its cell padding, so no id is cut)."""
    return max(fm.horizontalAdvance(prefix + r) for r in _rule_ids())  # (75 ids: well under a millisecond)


@lru_cache(maxsize=1)
def _rule_ids() -> tuple[str, ...]:
    from inspector.checkpoint.rules.catalogue import catalogue

    return tuple(r.id for r in catalogue())


def is_dark() -> bool:
    """True when the application palette is dark (window colour lightness below half)."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    return app.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5


def _tone(name: str, dark: bool | None = None) -> QColor:
    light, dark_rgb = _COLOURS[name]
    base = QColor(_qcolour(dark_rgb if (is_dark() if dark is None else dark) else light))
    app = QGuiApplication.instance()
    if app is None or dark is not None:
        return base
    pal = app.palette()
    # text on the window and on the rows it is drawn in: plain and alternate (WCAG AA; PASS on the alternate rows
    # of a high-contrast palette read 4.32:1 when only the window was asked)
    return readable_on_all(base, [pal.color(r) for r in (QPalette.ColorRole.Window, QPalette.ColorRole.Base,
                                                          QPalette.ColorRole.AlternateBase)], 4.5)


def _luminance(c: QColor) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio of two opaque colours, from 1 (the same) to 21 (black on white)."""
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


@lru_cache(maxsize=512)
def _readable(rgb: int, background: int, minimum: float) -> int:
    c, bg = QColor.fromRgb(rgb), QColor.fromRgb(background)
    lighter = _luminance(bg) < 0.18  # on a dark background go lighter, else darker
    h, s, l_, a = c.getHslF()
    for _ in range(60):
        if contrast_ratio(c, bg) >= minimum:
            break
        l_ = min(1.0, l_ + 0.02) if lighter else max(0.0, l_ - 0.02)
        c = QColor.fromRgb(QColor.fromHslF(max(h, 0.0), s, l_, a).rgb())  # judged as drawn: 8 bits a channel
    return c.rgb()


def readable(colour: QColor | str, background: QColor, minimum: float = 4.5) -> QColor:
    """``colour`` made lighter (on a dark ``background``) or darker (on a light one) until its WCAG contrast ratio
    with ``background`` is at least ``minimum`` (4.5: text, 3: marks; WCAG 2.1 AA); unchanged when it
    already is. Hue is kept, so categories stay apart."""
    c = QColor(colour)
    return QColor.fromRgb(_readable(c.rgb(), QColor(background).rgb(), minimum))


def readable_on_all(colour: QColor | str, backgrounds, minimum: float = 4.5) -> QColor:
    """:func:`readable` on every one of ``backgrounds`` (QColors a text or mark may be drawn on: the window, the
    rows, a band under it), each made to pass in turn; when they are all light (or all dark) one darkening (or
    lightening) passes them all (WCAG 2.1 AA: 4.5 text, 3 marks)."""
    c = QColor(colour)
    for _ in range(3):
        for bg in backgrounds:
            c = readable(c, bg, minimum)
        if all(contrast_ratio(c, QColor(bg)) >= minimum for bg in backgrounds):
            break
    return c


def over(colour, background: QColor, alpha: int) -> QColor:
    """``colour`` (``(r, g, b)`` or a QColor) painted at ``alpha`` (0-255) over opaque ``background``: the colour
    a reader sees there."""
    c = QColor(*colour) if isinstance(colour, tuple) else QColor(colour)
    a, bg = alpha / 255, QColor(background)
    return QColor(round(c.red() * a + bg.red() * (1 - a)), round(c.green() * a + bg.green() * (1 - a)),
                  round(c.blue() * a + bg.blue() * (1 - a)))


@lru_cache(maxsize=64)
def _qcolour(rgb: str) -> QColor:
    """A QColor parsed once per colour name (callers get a copy: ``QColor(_qcolour(rgb))``)."""
    return QColor(rgb)


def label(verdict: Verdict, *, root: bool = False, consequence: bool = False, independent: bool = False) -> str:
    """The word for a verdict; failures say whether they are the root cause, a consequence of a
    failure a fix would change (``consequences.toml``), or independent of the root cause."""
    text = _LABEL[verdict]
    if verdict is Verdict.FAIL and root:
        return "FAIL · root cause"
    if verdict is Verdict.FAIL and consequence:
        return "FAIL · consequence"
    if verdict is Verdict.FAIL and independent:
        return "FAIL · independent"
    return text


def relation_label(f, report) -> str:
    """:func:`label` of a finding of ``report`` with its relation to the root cause."""
    rel = report.relation(f) if report is not None else None
    kind = rel.kind if rel is not None and report.root_cause is not None else None
    return label(f.verdict, root=kind == "root_cause", consequence=kind == "consequence",
                 independent=kind == "independent")


def colour(verdict: Verdict) -> QColor:
    """Foreground colour for a verdict, readable on the current palette."""
    return _tone(_TONE[verdict])


def edited_colour() -> QColor:
    """Background of the "edited, unsaved" banner."""
    return QColor("#5c4a00") if is_dark() else QColor("#fff3c4")


def link_colour() -> QColor:
    """Link text colour readable on the current palette (some dark palettes keep a dark Link role)."""
    return QColor("#7cc4ff") if is_dark() else QColor("#0b57d0")


def highlight_colour() -> QColor:
    """Background of the highlighted byte span in the bytes view."""
    return QColor("#2f5f9f") if is_dark() else QColor("#bcd7ff")


@lru_cache(maxsize=64)
def _icon(shape: str, rgb: str, dark: bool) -> QIcon:
    ic = QIcon()
    for size in (16, 24, 32, 48):
        pm = QPixmap(size, size)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        col = QColor(rgb)
        s = float(size)
        p.setBrush(col)
        p.setPen(Qt.PenStyle.NoPen)
        p.drawEllipse(QRectF(s * 0.06, s * 0.06, s * 0.88, s * 0.88))
        pen = QPen(QColor("#111111") if dark else QColor("#ffffff"))
        pen.setWidthF(max(1.5, s * 0.12))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        path = QPainterPath()
        if shape == "check":
            path.moveTo(QPointF(s * 0.28, s * 0.52))
            path.lineTo(QPointF(s * 0.44, s * 0.68))
            path.lineTo(QPointF(s * 0.72, s * 0.34))
        elif shape == "cross":
            path.moveTo(QPointF(s * 0.32, s * 0.32))
            path.lineTo(QPointF(s * 0.68, s * 0.68))
            path.moveTo(QPointF(s * 0.68, s * 0.32))
            path.lineTo(QPointF(s * 0.32, s * 0.68))
        elif shape == "arrow":
            path.moveTo(QPointF(s * 0.28, s * 0.5))
            path.lineTo(QPointF(s * 0.70, s * 0.5))
            path.moveTo(QPointF(s * 0.54, s * 0.34))
            path.lineTo(QPointF(s * 0.70, s * 0.5))
            path.lineTo(QPointF(s * 0.54, s * 0.66))
        else:
            path.moveTo(QPointF(s * 0.3, s * 0.5))
            path.lineTo(QPointF(s * 0.7, s * 0.5))
        p.drawPath(path)
        p.end()
        ic.addPixmap(pm)
    return ic


def icon(verdict: Verdict) -> QIcon:
    """A palette-aware icon whose *shape* also encodes the verdict (empty without a QGuiApplication).

    Views ask for it for every painted row, so it costs one palette look-up and one dict look-up."""
    if QGuiApplication.instance() is None:
        return QIcon()
    dark = is_dark()
    return _verdict_icon(verdict, dark)


@lru_cache(maxsize=32)
def _verdict_icon(verdict: Verdict, dark: bool) -> QIcon:
    light_rgb, dark_rgb = _COLOURS[_TONE[verdict]]
    return _icon(_SHAPE[verdict], dark_rgb if dark else light_rgb, dark)


def match_label(matches: bool | None) -> str:
    """Digest comparison in words."""
    return {True: "match", False: "MISMATCH", None: "n/a"}[matches]


def match_colour(matches: bool | None) -> QColor:
    return _tone({True: "pass", False: "fail", None: "muted"}[matches])


def match_icon(matches: bool | None) -> QIcon:
    v = {True: Verdict.PASS, False: Verdict.FAIL, None: Verdict.NOT_APPLICABLE}[matches]
    return icon(v)


def overall_text(report, edited: bool = False, saved_as: str | None = None) -> tuple[str, Verdict]:
    """One line for the status bar / header: the overall verdict in words, and its verdict.

    ``saved_as``: for an edited artifact whose edits were all written by Save As, the new file name(s).
    """
    prefix = ""
    if edited:
        prefix = f"Edited artifact (saved as {saved_as}): " if saved_as else "Edited artifact (unsaved): "
    if report is None:
        return prefix + "Verifying… (the trees can be explored meanwhile)", Verdict.NOT_REACHED
    if report.verified:
        return prefix + "VERIFIED: the reference accepts this checkpoint", Verdict.PASS
    rc = report.root_cause
    if rc is not None:
        return prefix + f"NOT VERIFIED: {rc.rule.id} failed — {rc.message}", Verdict.FAIL
    if report.ok:
        missing = "descriptor" if not report.has_descriptor else "payload"
        return prefix + f"CONSISTENT, but not verified: no {missing} was given", Verdict.NOT_APPLICABLE
    return prefix + "NOT VERIFIED", Verdict.FAIL
