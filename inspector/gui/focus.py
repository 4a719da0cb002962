"""Focus you can see and a selection that reads (WCAG 2.2: a focus indicator of at least 3:1 against what it sits
on, 2.4.13 / 1.4.11; selected text of at least 4.5:1, 1.4.3).

The stock styles draw the keyboard focus of a tree or table cell, a tab and a check box as a dotted or faint
one-pixel line: measured from rendered pixels it stood at 1.08-1.63:1 against the cell. :class:`FocusStyle` (a
``QProxyStyle`` over the style in use) draws every ``PE_FrameFocusRect`` as a solid two-pixel line in the text colour
of what it frames (the highlighted text colour on a selected cell), made readable at 3:1 on that background by
:func:`~.style.readable`. A selected cell's text is drawn in a colour that reads on the selection (a verdict's red
was drawn on the selection blue). Views that paint themselves (the bytes views, the timeline) draw the same frame with
:func:`paint_focus_frame` while they have the focus.

:func:`fix_selection` darkens (or lightens) the palette's highlight until its highlighted text reads at 4.5:1 (the
light palette's #308cc6 under white text is 3.69:1).
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory, QStyleOptionViewItem

from . import style

__all__ = ["FocusStyle", "install", "fix_selection", "focus_colour", "paint_focus_frame", "FOCUS_WIDTH"]

#: The focus frame's width in pixels.
FOCUS_WIDTH = 2
_R = QPalette.ColorRole


def focus_colour(palette: QPalette, background: QColor, selected: bool = False) -> QColor:
    """The focus frame's colour on ``background``: the text colour of ``palette`` (highlighted text when
    ``selected``) made to read at 3:1 there."""
    ink = palette.color(_R.HighlightedText if selected else _R.Text)
    return style.readable(ink, background, 3.0)


def paint_focus_frame(painter, rect: QRect, palette: QPalette, background: QColor, selected: bool = False) -> None:
    """Draw the focus frame inside ``rect`` (a painted view's viewport while it has the focus; a cell, selected
    or not) on ``background``."""
    painter.save()
    pen = QPen(focus_colour(palette, background, selected), FOCUS_WIDTH)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(rect.adjusted(1, 1, -1, -1))
    painter.restore()


class FocusStyle(QProxyStyle):
    """The style in use, with the focus frame of :mod:`this module <.focus>`."""

    def drawPrimitive(self, element, option, painter, widget=None):  # noqa: N802 (Qt override)
        if element != QStyle.PrimitiveElement.PE_FrameFocusRect:
            return super().drawPrimitive(element, option, painter, widget)
        pal = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        bg = getattr(option, "backgroundColor", None)
        if bg is None or not bg.isValid() or bg.alpha() == 0:
            bg = pal.color(_R.Highlight if selected else (_R.Base if widget is not None and
                                                            widget.inherits("QAbstractItemView") else _R.Window))
        paint_focus_frame(painter, option.rect, pal, bg, selected)
        return None


    def drawControl(self, element, option, painter, widget=None):  # noqa: N802 (Qt override)
        if element == QStyle.ControlElement.CE_ItemViewItem and option.state & QStyle.StateFlag.State_Selected:
            # A cell's own colour (a verdict's red or green, ForegroundRole) is drawn on the selection too, where
            # it can vanish (red on the selection blue: 1.3:1); there the highlighted text colour is used unless
            # the cell's colour reads at 4.5:1.
            pal = option.palette
            base = (widget.palette() if widget is not None else QApplication.palette()).color(_R.HighlightedText)
            ink = _selected_ink(pal.color(_R.HighlightedText).rgba(), pal.color(_R.Text).rgba(),
                                pal.color(_R.Highlight).rgba(), base.rgba())
            if ink is not None:  # (decided once per colour set: a table's cells share a few)
                opt = QStyleOptionViewItem(option)
                opt.palette.setColor(_R.HighlightedText, QColor.fromRgba(ink))
                opt.palette.setColor(_R.Text, QColor.fromRgba(ink))
                return super().drawControl(element, opt, painter, widget)
        return super().drawControl(element, option, painter, widget)


@lru_cache(maxsize=256)
def _selected_ink(highlighted_text: int, text: int, highlight: int, base: int) -> int | None:
    """The text colour (RGBA) a selected cell must be drawn in, or ``None`` when its own colours read on the
    selection at 4.5:1; ``base``: the palette's highlighted text colour (a cell's own replaces it)."""
    hi = QColor.fromRgba(highlight)
    if min(style.contrast_ratio(QColor.fromRgba(c), hi) for c in (highlighted_text, text)) >= 4.5:
        return None
    return style.readable(QColor.fromRgba(base), hi, 4.5).rgba()


def fix_selection(palette: QPalette) -> QPalette:
    """``palette`` with its highlight made to read under its highlighted text at 4.5:1 (active and inactive groups;
    unchanged where it already does)."""
    out = QPalette(palette)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        text, hi = out.color(group, _R.HighlightedText), out.color(group, _R.Highlight)
        if style.contrast_ratio(text, hi) < 4.5:
            out.setColor(group, _R.Highlight, style.readable(hi, text, 4.5))
    return out


def install(app: QApplication | None = None) -> None:
    """Give ``app`` (default the running one) :class:`FocusStyle` over its style and a selection that reads; once
    (a second call does nothing)."""
    app = app or QApplication.instance()
    if app is None or isinstance(app.style(), FocusStyle):
        return
    base = QStyleFactory.create(app.style().name())  # (a new one of the style in use: the proxy owns its base)
    app.setStyle(FocusStyle(base) if base is not None else FocusStyle())
    _keep_selection_readable(app)
    if not getattr(app, "_inspector_selection_watch", False):  # (once per application, however often installed)
        app._inspector_selection_watch = True
        app.paletteChanged.connect(lambda _p: _keep_selection_readable(app))  # (a theme switched while running)


def _keep_selection_readable(app) -> None:
    fixed = fix_selection(app.palette())
    if fixed != app.palette():  # (unchanged: no new palette, so no second paletteChanged)
        app.setPalette(fixed)
