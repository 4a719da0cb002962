"""Keys that a focused field takes before the window's shortcuts do."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt

__all__ = ["claims_escape"]


def claims_escape(event: QEvent) -> bool:
    """Accept ``event`` and return True if it is the ShortcutOverride of a plain Esc.

    For a field that closes itself on Esc (the find bar, the bytes pane's go-to field): Qt offers
    a key to the window's shortcuts before the focused widget sees it, so File ▸ Stop Loading (Esc,
    enabled while a load runs) stopped the load instead of closing the field. An accepted override
    sends the key press to the focus widget instead. Qt sends the override to the focus widget, then
    to its parents, so a parent (the find bar) may claim it for all its fields.
    """
    if event.type() != QEvent.Type.ShortcutOverride or event.key() != Qt.Key.Key_Escape:
        return False
    if event.modifiers() not in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
        return False
    event.accept()
    return True
