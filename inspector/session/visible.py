"""Invisible characters made visible wherever the window shows text from a document (no Qt).

A C0 control character becomes its Unicode control picture (U+0000..U+001F -> ␀..␟, DEL -> ␡),
so a newline in a value reads ␊ and a tab ␉; line and paragraph separators, C1 controls, and
the zero-width, bidirectional and other format characters become ``\\uXXXX`` escapes. Nothing
else changes (a no-break space stays a space; letters in any script stay as they are).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["visible", "preview"]

_ESCAPED = (list(range(0x80, 0xA0)) + [0xAD, 0x061C, 0x180E, 0x2028, 0x2029, 0xFEFF]
            + list(range(0x200B, 0x2010)) + list(range(0x202A, 0x202F)) + list(range(0x2060, 0x2070)))
_TABLE = {c: chr(0x2400 + c) for c in range(0x20)}
_TABLE[0x7F] = "\u2421"
_TABLE.update({c: f"\\u{c:04x}" for c in _ESCAPED})
# Only strings that hold one of these need the translation (the common case is a quick search).
_NEEDS = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_TABLE)) + "]")


def visible(text: str) -> str:
    """``text`` with every invisible character shown (see the module docstring)."""
    if not _NEEDS.search(text):
        text2 = text
    else:
        text2 = text.translate(_TABLE)
    # Any other format character (category Cf) not in the table: escaped too.
    if text2.isascii():
        return text2
    return "".join(f"\\u{ord(ch):04x}" if ord(ch) > 0x7F and unicodedata.category(ch) == "Cf"
                   and ord(ch) not in _TABLE else ch for ch in text2)


def preview(text: str, n: int = 60) -> str:
    """The first ``n`` characters of ``text`` shown visibly (one line), with "…" when cut."""
    shown = visible(text[: n * 8])
    return shown if len(shown) <= n else shown[: n - 1] + "…"
