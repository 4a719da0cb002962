"""The one escaping of the window: every text from a file (a value, a key, an id, a name, a file name) passes
through :func:`visible` before any view, tooltip, header, tab or title shows it (no Qt).

What would not show as itself is made visible, so that nothing hides or reorders what is drawn around it (a run
id ``run-1\\u202etxt.exe`` is never drawn as ``run-1exe.txt``):

- a C0 control character and DEL become their Unicode control picture (U+0000..U+001F -> ␀..␟, DEL -> ␡) when
  the window's fonts draw that picture (:func:`use_pictures`, told by the GUI at start-up; Debian's stock fonts
  draw none of them), else the CLI's escape (``\\x1b``, ``\\n``, ``\\t``: :func:`.artifact.escaped_char`);
- C1 controls, line and paragraph separators, the zero-width, bidirectional and every other format character
  (category Cf), and lone surrogates (bytes of a file name that were not UTF-8) become that same escape
  (``\\u202e``, ``\\x80``);
- nothing else changes: a no-break space stays a space, letters in any script stay as they are.

:func:`mixed_scripts` names the scripts of an id that mixes them (``pаypal`` with a Cyrillic ``а``), for the
window to flag.
"""

from __future__ import annotations

import re
import unicodedata

from inspector.checkpoint.artifact import escaped_char

__all__ = ["visible", "preview", "use_pictures", "mixed_scripts", "HIDDEN"]

#: The C0 controls and DEL (the characters a control picture can stand for).
_C0 = tuple(range(0x20)) + (0x7F,)
#: The characters :func:`visible` never lets through as themselves, besides every other format character.
HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                    "\ud800-\udfff]")
_TABLE: dict[int, str] = {}


def _picture(c: int) -> str:
    return "\u2421" if c == 0x7F else chr(0x2400 + c)


def use_pictures(codes) -> None:
    """Draw the C0 controls and DEL whose code is in ``codes`` (ints) as their control pictures from now on,
    the others as escapes. The GUI calls it once at start-up with the pictures its fonts draw
    (:func:`inspector.gui.fonts.control_pictures`); without a call, every one is an escape."""
    for c in _C0:
        _TABLE[c] = _picture(c) if c in codes else escaped_char(chr(c))


use_pictures(())


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character that would not show as itself made visible (see the module's text).

    Args:
        text: any text from a file. lines: keep newlines and tabs as they are (a multi-line pane or tooltip
            that lays lines out; every other control is still made visible).
    """
    if not HIDDEN.search(text):
        if text.isascii():
            return text
        if not any(unicodedata.category(ch) == "Cf" for ch in text if ord(ch) > 0x7F):
            return text
    out = []
    for ch in text:
        o = ord(ch)
        if o in _TABLE:
            out.append(ch if lines and ch in "\n\t" else _TABLE[o])
        elif HIDDEN.match(ch) or (o > 0x7F and unicodedata.category(ch) == "Cf"):
            out.append(escaped_char(ch))
        else:
            out.append(ch)
    return "".join(out)


def preview(text: str, n: int = 60) -> str:
    """The first ``n`` characters of ``text`` shown visibly (one line), with "…" when cut."""
    shown = visible(text[: n * 8])
    return shown if len(shown) <= n else shown[: n - 1] + "…"


#: The scripts whose letters look alike (the confusables of Unicode TR 39 that spoof ids).
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "GEORGIAN")


def mixed_scripts(text: str) -> list[str]:
    """The scripts (``Latin``, ``Cyrillic``, ``Greek``, ...) whose letters ``text`` mixes, when it mixes two or
    more of those whose letters look alike (an id ``pаypal`` with a Cyrillic ``а``); else ``[]``. Digits,
    punctuation and letters of other scripts do not count (Unicode TR 39's mixed-script detection, for
    these scripts)."""
    found = set()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            head = name.split(" ", 1)[0]
            if head in _SCRIPTS:
                found.add(head.title())
    return sorted(found) if len(found) > 1 else []
