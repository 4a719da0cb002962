"""Text from checkpoint files made safe to print on a terminal. No Qt.

A checkpoint is untrusted input: a key, a value, a JSON Pointer or a message quoting one of them
could hold an ``ESC [31m`` colour change, an ``ESC ] 8 ;;`` hyperlink, a bell, a C1 ``CSI``
(U+009B) or a right-to-left override (U+202E) that rewrites what the reader sees. Every text
output of the command line (``verify``, ``verify --all``, ``verify --progress``, ``diff``,
``canon --diff``, ``describe``'s and every command's messages on stderr, ``report`` text and
Markdown, ``explain``) passes what it prints through :func:`terminal_safe`, one line or field at
a time, so the line structure of the output is its own and nothing from a file reaches the
terminal raw. JSON, SARIF, JSON Patch and canonical-byte outputs carry the exact values instead.

The escapes are those file names already get (:func:`inspector.checkpoint.display_path`, the
window and the ticket report use them too): :func:`terminal_safe` *is* that convention, so a
name and a value are escaped alike. The ticket renderers (:mod:`inspector.ticket.render`) call
:func:`inspector.checkpoint.display_text` directly, the same function, because the window uses
them and must not import the command line.
"""

from __future__ import annotations


__all__ = ["terminal_safe", "terminal_safe_lines"]


def terminal_safe(text: str) -> str:
    """``text`` with every character that would not print visibly replaced by a visible escape.

    Escaped: every character ``str.isprintable`` rejects, which is every character of the
    Unicode categories Cc (C0 controls U+0000..U+001F, among them ESC, BEL and the newline;
    DEL U+007F; C1 controls U+0080..U+009F such as U+009B CSI), Cf (format characters: soft
    hyphen U+00AD, U+061C, zero-width and direction marks U+200B..U+200F, bidi embeddings and
    overrides U+202A..U+202E, isolates U+2066..U+2069, U+2060..U+2064, U+FEFF, tag characters),
    Zl and Zp (U+2028, U+2029), Zs other than the ASCII space (e.g. U+00A0), Co (private use),
    Cn (unassigned) and Cs (lone surrogates). An ESC is escaped, so no ESC/CSI/OSC sequence
    survives: ``"\\x1b[31m"`` is shown as the seven characters ``\\x1b[31m``.

    The escapes (Python's spelling, fixed width, lower-case hex, so an escape never runs into
    the text after it):

    * ``\\n``, ``\\t``, ``\\r`` for newline, tab and carriage return (a newline inside a value
      never breaks our line-based output);
    * ``\\xNN`` for the other ASCII controls (U+0000..U+007F: ESC is ``\\x1b``, BEL ``\\x07``,
      DEL ``\\x7f``), and, in a file name only, for a byte that is not valid UTF-8 (Python's
      ``surrogateescape`` code point U+DC80..U+DCFF; on Windows such a code point is ``\\udcNN``);
      so ``\\x80``..``\\xff`` always mean a raw byte, never a character;
    * ``\\uNNNN`` for any other escaped character up to U+FFFF (U+009B is ``\\u009b``, U+202E
      ``\\u202e``), ``\\UNNNNNNNN`` above (U+E0001 is ``\\U000e0001``).

    Everything else is returned unchanged: letters of any script, emoji, combining marks, the
    ASCII space, and the backslash. A backslash already in the text is not doubled, so ordinary
    text (Windows paths, regular expressions, the ``'\\x1b'`` quotes the engine's messages
    already use) prints exactly as before; the one residue is that the six characters ``\\x1b``
    typed in a value read like an escaped ESC: the JSON outputs carry the exact value.
    Printable text comes back as the same string, and the result is always printable
    (so applying it twice changes nothing) and encodable as UTF-8.
    """
    from inspector.checkpoint.artifact import display_text  # (not at import: --help imports this module)

    return display_text(text)


def terminal_safe_lines(text: str) -> str:
    """``text`` with :func:`terminal_safe` applied to each line: its ``"\\n"`` line ends are kept
    (they are the output's own structure), everything else that would not print visibly is
    escaped. For text already made of our own lines (a unified diff, a message of several lines);
    a single value or field should go through :func:`terminal_safe` whole, newline included."""
    if text.isprintable():
        return text
    return "\n".join(terminal_safe(line) for line in text.split("\n"))
