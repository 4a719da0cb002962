"""serde_json's error: its texts, categories and ``line``/``column`` positions (serde_json 1.0.151
``src/error.rs``; FORMAT.md 3.1, rules P-PARSE and D-PARSE).

:class:`SerdeError` is what every reader of this floor raises; its ``message`` is a
:class:`~inspector.checkpoint.slotted.Text` when it quotes a value from the file. The number errors and
``EOF_VALUE`` live in :mod:`.number`.
"""

from __future__ import annotations

from inspector.checkpoint.slotted import Text

__all__ = ["SerdeError", "position_of_index", "SYNTAX", "DATA", "EOF",
           "EOF_LIST", "EOF_OBJECT", "EOF_STRING", "EXPECTED_COLON", "EXPECTED_LIST_COMMA_OR_END",
           "EXPECTED_OBJECT_COMMA_OR_END", "EXPECTED_IDENT", "EXPECTED_VALUE", "INVALID_ESCAPE",
           "INVALID_UNICODE", "CONTROL_CHAR", "KEY_MUST_BE_STRING", "LONE_SURROGATE", "TRAILING_COMMA",
           "TRAILING_CHARACTERS", "UNEXPECTED_END_OF_HEX", "RECURSION_LIMIT_EXCEEDED"]

# ErrorCode Display texts (serde_json src/error.rs); the number ones and EOF_VALUE are in jsonnumber.
EOF_LIST = "EOF while parsing a list"
EOF_OBJECT = "EOF while parsing an object"
EOF_STRING = "EOF while parsing a string"
EXPECTED_COLON = "expected `:`"
EXPECTED_LIST_COMMA_OR_END = "expected `,` or `]`"
EXPECTED_OBJECT_COMMA_OR_END = "expected `,` or `}`"
EXPECTED_IDENT = "expected ident"
EXPECTED_VALUE = "expected value"
INVALID_ESCAPE = "invalid escape"
INVALID_UNICODE = "invalid unicode code point"
CONTROL_CHAR = "control character (\\u0000-\\u001F) found while parsing a string"
KEY_MUST_BE_STRING = "key must be a string"
LONE_SURROGATE = "lone leading surrogate in hex escape"
TRAILING_COMMA = "trailing comma"
TRAILING_CHARACTERS = "trailing characters"
UNEXPECTED_END_OF_HEX = "unexpected end of hex escape"
RECURSION_LIMIT_EXCEEDED = "recursion limit exceeded"

#: serde_json error categories (``serde_json::error::Category``).
SYNTAX, DATA, EOF = "syntax", "data", "eof"


def position_of_index(data: bytes, i: int) -> tuple[int, int]:
    """Return serde_json's ``(line, column)`` for byte index ``i`` of ``data``.

    Mirrors ``SliceRead::position_of_index``: ``line`` is 1-based, ``column`` is the number
    of bytes between the start of that line and ``i`` (so it counts bytes, not characters).
    """
    start_of_line = data.rfind(b"\n", 0, i) + 1
    return 1 + data.count(b"\n", 0, start_of_line), i - start_of_line


class SerdeError(Exception):
    """A serde_json error: its message and the byte index its position was taken from.

    ``index`` is where serde_json *stopped* (its line/column, pinned to the reference);
    ``offset`` is the byte that is *wrong*, which is what a user is shown. They differ:
    serde's column usually counts the offending byte itself (so ``offset == index - 1``), and
    some errors are only noticed later (invalid UTF-8 in a string after its closing quote, a
    lone surrogate at the byte after its escape, a trailing comma at the bracket after it).

    Attributes:
        message: the error text without position (e.g. ``missing field `x```).
        index: byte offset whose ``position_of_index`` gives the reported line/column, or
            ``None`` for an error not yet positioned (serde's ``line == 0``).
        offset: byte offset of the offending byte, set by the reader where it knows better
            and otherwise by :meth:`locate`: ``index - 1`` (the byte serde's column counts
            last), or ``len(data)`` for ``eof`` errors (the document ended there: no byte is
            wrong). Per class: the byte that cannot start a value / follow a value / be a
            digit / be an escape letter / be a hex digit (first bad one of the four); the
            control character; the first byte that is not valid UTF-8; the ``,`` of a
            trailing comma; the ``\\`` of a lone surrogate escape; the first byte of an
            out-of-range number; the ``[``/``{`` opening the 128th container.
        line, column: serde_json's position (set by :meth:`locate`), 0 when unknown.
        category: ``"syntax"``, ``"data"`` or ``"eof"`` (serde_json ``Category``).
    """

    def __init__(self, message: str, index: int | None = None, category: str = DATA, offset: int | None = None):
        super().__init__(message)
        #: a :class:`~.slotted.Text`: the value-quoting texts are built with their slots in
        #: :mod:`.serde_errors`; every other serde text (syntax, missing or duplicate field of the
        #: schema, lengths) is serde's own wording
        self.message = message if isinstance(message, Text) else Text(message)
        self.index = index
        self.offset = offset
        self.category = category
        self.line = 0
        self.column = 0

    def locate(self, data: bytes) -> "SerdeError":
        """Compute ``line``/``column`` from ``index`` over ``data`` (and ``offset`` if the
        reader left it unset); returns self."""
        if self.index is not None:
            self.line, self.column = position_of_index(data, self.index)
            if self.offset is None:
                self.offset = len(data) if self.category == EOF else max(0, min(self.index, len(data)) - 1)
        return self

    def __str__(self) -> str:
        return self.text()

    def text(self):
        """The message with serde_json's position suffix (``… at line L column C``); a
        :class:`~.slotted.Text` (its slots kept) when the message is one."""
        if self.line == 0:
            return self.message
        return self.message + f" at line {self.line} column {self.column}"


def _category(message: str) -> str:
    return EOF if message.startswith("EOF while") else SYNTAX
