"""A JSON reader over *bytes* that behaves exactly like serde_json 1.0.151.

Why our own reader: the reference parses with ``serde_json::from_slice`` (default features,
no ``float_roundtrip``), and Python's ``json``/orjson disagree with it on float parsing,
``-0``, integers beyond 64 bits, recursion depth and error positions (FORMAT.md 3.1). This
module reproduces serde_json's ``SliceRead`` + ``Deserializer`` primitives byte for byte:
the same whitespace rules, string escapes, not-correctly-rounded decimal -> f64 conversion,
recursion limit (127 nested containers), error texts and ``line``/``column`` positions.

It offers two things:

* :class:`Reader`, the serde_json deserializer primitives that the typed payload decoder
  (:mod:`inspector.checkpoint.schema.typed`) drives, and
* :func:`parse_value`, ``serde_json::from_slice::<Value>`` returning plain Python values,
  optionally with a :class:`Node` tree that knows the byte span of every value.

Numbers come back as ``int`` (serde's U64/I64) or ``float`` (F64); the distinction matters
for printing (``1`` versus ``1.0``).
"""

from __future__ import annotations

import re
from json.decoder import scanstring as _scanstring

from inspector.checkpoint.jsontext.errors import (  # noqa: F401 (re-exported: the reader's errors)
    CONTROL_CHAR, DATA, EOF, EOF_LIST, EOF_OBJECT, EOF_STRING, EXPECTED_COLON, EXPECTED_IDENT,
    EXPECTED_LIST_COMMA_OR_END, EXPECTED_OBJECT_COMMA_OR_END, EXPECTED_VALUE, INVALID_ESCAPE, INVALID_UNICODE,
    KEY_MUST_BE_STRING, LONE_SURROGATE, RECURSION_LIMIT_EXCEEDED, SYNTAX, SerdeError, TRAILING_CHARACTERS,
    TRAILING_COMMA, UNEXPECTED_END_OF_HEX, _category, position_of_index,
)
from inspector.checkpoint.jsontext.spans import Node
from inspector.checkpoint.jsontext.number import EOF_VALUE, INVALID_NUMBER, NUMBER_OUT_OF_RANGE, NumberReader

__all__ = [
    "SerdeError",
    "Reader",
    "Node",
    "parse_value",
    "position_of_index",
    "serde_f64_from_text",
]

RECURSION_LIMIT = 128

_WS = re.compile(rb"[ \t\n\r]*")
_STR_RUN = re.compile(rb'[^"\\\x00-\x1f]*')
# A whole string body with only well-formed escapes and no surrogate \u escape.
_STR_WELLFORMED = re.compile(rb'(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"')
_HEX = b"0123456789abcdefABCDEF"

def serde_f64_from_text(text: str) -> float:
    """Parse one JSON number token the way serde_json 1.0.151 does (no ``float_roundtrip``).

    Raises :class:`SerdeError` for invalid tokens or values out of range. Used to explain
    which floats do not survive the reference's parse (FORMAT.md 3.1).
    """
    r = Reader(text.encode())
    value = r.parse_number_token()
    if r.i != len(r.data):
        raise SerdeError(INVALID_NUMBER, r.i, SYNTAX)
    return float(value)


class Reader(NumberReader):
    """serde_json ``Deserializer<SliceRead>`` primitives over ``data`` (bytes).

    ``i`` is the read index. Methods raise :class:`SerdeError` with serde_json's message and
    the index serde_json would take the position from (``error`` = current index,
    ``peek_error`` = current index + 1, capped at the length). Numbers are read by
    :class:`~.jsonnumber.NumberReader`.
    """

    __slots__ = ("data", "n", "i", "depth", "build_nodes")

    def __init__(self, data: bytes, build_nodes: bool = False):
        self.data = data
        self.n = len(data)
        self.i = 0
        self.depth = RECURSION_LIMIT
        self.build_nodes = build_nodes

    # -- errors -----------------------------------------------------------------------
    def error(self, message: str, offset: int | None = None) -> SerdeError:
        """``Deserializer::error``: positioned at the current index (``offset``: the offending
        byte when it is not the one before that index)."""
        return SerdeError(message, self.i, _category(message), offset)

    def peek_error(self, message: str, offset: int | None = None) -> SerdeError:
        """``Deserializer::peek_error``: positioned one byte past the current index."""
        return SerdeError(message, min(self.n, self.i + 1), _category(message), offset)

    def fix_position(self, err: SerdeError) -> SerdeError:
        """``Deserializer::fix_position``: give an unpositioned error the current index."""
        if err.index is None:
            err.index = self.i
        return err

    # -- whitespace and structure -----------------------------------------------------
    def parse_whitespace(self) -> int | None:
        """Skip JSON whitespace; return the next byte (not consumed) or ``None`` at EOF."""
        i = _WS.match(self.data, self.i).end()
        self.i = i
        return self.data[i] if i < self.n else None

    def peek(self) -> int | None:
        """The byte at the read index without consuming it, ``None`` at the end."""
        return self.data[self.i] if self.i < self.n else None

    def enter(self) -> None:
        """``check_recursion!`` entry: fail when more than 127 containers are open."""
        self.depth -= 1
        if self.depth == 0:
            raise self.peek_error(RECURSION_LIMIT_EXCEEDED)

    def leave(self) -> None:
        """``check_recursion!`` exit: one container closed."""
        self.depth += 1

    def container(self, close: int, body):
        """Visit one array (``close`` = ``]``) or object (``}``) the way serde_json does.

        ``check_recursion!`` around eating the opening byte and running ``body()`` (the
        visitor), then ``end_seq``/``end_map``. An error from ``body`` without a position gets
        the index reached after ``end_seq``/``end_map`` ran, as in serde_json's
        ``match (ret, self.end_seq())`` followed by ``fix_position``.
        """
        self.enter()
        self.i += 1
        end = self.end_seq if close == 0x5D else self.end_map
        try:
            value = body()
        except SerdeError as e:
            if e.index is None:
                end()
                self.fix_position(e)
            raise
        self.leave()
        err = end()
        if err:
            raise err
        return value

    def end(self) -> None:
        """``Deserializer::end``: only whitespace may follow the value."""
        if self.parse_whitespace() is not None:
            raise self.peek_error(TRAILING_CHARACTERS)

    def end_seq(self) -> SerdeError | None:
        """``end_seq``; returns (does not raise) its error so callers can prefer theirs."""
        b = self.parse_whitespace()
        if b == 0x5D:  # ]
            self.i += 1
            return None
        if b == 0x2C:  # ,
            comma = self.i
            self.i += 1
            if self.parse_whitespace() == 0x5D:
                return self.peek_error(TRAILING_COMMA, comma)
            return self.peek_error(TRAILING_CHARACTERS)
        if b is None:
            return self.peek_error(EOF_LIST)
        return self.peek_error(TRAILING_CHARACTERS)

    def end_map(self) -> SerdeError | None:
        """``end_map``; returns (does not raise) its error."""
        b = self.parse_whitespace()
        if b == 0x7D:  # }
            self.i += 1
            return None
        if b == 0x2C:
            return self.peek_error(TRAILING_COMMA)
        if b is None:
            return self.peek_error(EOF_OBJECT)
        return self.peek_error(TRAILING_CHARACTERS)

    def has_next_element(self, first: bool) -> bool:
        """``SeqAccess::next_element_seed``'s ``has_next_element``."""
        b = self.parse_whitespace()
        if b is None:
            raise self.peek_error(EOF_LIST)
        if b == 0x5D:
            return False
        if first:
            return True
        if b == 0x2C:
            comma = self.i
            self.i += 1
            b = self.parse_whitespace()
            if b == 0x5D:
                raise self.peek_error(TRAILING_COMMA, comma)
            if b is None:
                raise self.peek_error(EOF_VALUE)
            return True
        raise self.peek_error(EXPECTED_LIST_COMMA_OR_END)

    def has_next_key(self, first: bool) -> bool:
        """``MapAccess::next_key_seed``'s ``has_next_key``; leaves ``i`` at the key's quote."""
        b = self.parse_whitespace()
        if b is None:
            raise self.peek_error(EOF_OBJECT)
        if b == 0x7D:
            return False
        if first:
            if b == 0x22:
                return True
            raise self.peek_error(KEY_MUST_BE_STRING)
        if b == 0x2C:
            comma = self.i
            self.i += 1
            b = self.parse_whitespace()
            if b == 0x22:
                return True
            if b == 0x7D:
                raise self.peek_error(TRAILING_COMMA, comma)
            if b is None:
                raise self.peek_error(EOF_VALUE)
            raise self.peek_error(KEY_MUST_BE_STRING)
        raise self.peek_error(EXPECTED_OBJECT_COMMA_OR_END)

    def parse_object_colon(self) -> None:
        """Skip whitespace and the ``:`` after a key (serde_json ``parse_object_colon``)."""
        b = self.parse_whitespace()
        if b == 0x3A:
            self.i += 1
            return
        if b is None:
            raise self.peek_error(EOF_OBJECT)
        raise self.peek_error(EXPECTED_COLON)

    def parse_ident(self, ident: bytes) -> None:
        """Consume the rest of ``null``/``true``/``false`` (serde_json ``parse_ident``)."""
        for expected in ident:
            if self.i >= self.n:
                raise self.error(EOF_VALUE)
            got = self.data[self.i]
            self.i += 1
            if got != expected:
                raise self.error(EXPECTED_IDENT)

    # -- strings ----------------------------------------------------------------------
    def parse_str(self) -> str:
        """Parse a string body; ``i`` must be just past the opening quote."""
        data = self.data
        start = self.i
        m = _STR_RUN.match(data, start)
        j = m.end()
        if j < self.n and data[j] == 0x22:
            self.i = j + 1
            try:
                return data[start:j].decode("utf-8")
            except UnicodeDecodeError as e:
                raise self.error(INVALID_UNICODE, start + e.start) from None
        m = _STR_WELLFORMED.match(data, start)
        if m is not None:
            # Only simple escapes and non-surrogate \u escapes: Python's scanstring decodes them
            # exactly as serde_json does; UTF-8 is validated over the raw bytes first, which is
            # where serde_json reports it too (after the closing quote).
            self.i = m.end()
            try:
                raw = data[start : self.i].decode("utf-8")
            except UnicodeDecodeError as e:
                raise self.error(INVALID_UNICODE, start + e.start) from None
            return _scanstring(raw, 0)[0]
        scratch = bytearray()
        body = start
        while True:
            j = _STR_RUN.match(data, self.i).end()
            if j >= self.n:
                self.i = self.n
                raise self.error(EOF_STRING)
            c = data[j]
            if c == 0x22:
                scratch += data[start:j]
                self.i = j + 1
                try:
                    return scratch.decode("utf-8")
                except UnicodeDecodeError:
                    raise self.error(INVALID_UNICODE, _first_invalid_utf8(data, body, j)) from None
            if c == 0x5C:
                scratch += data[start:j]
                self.i = j + 1
                self._parse_escape(scratch)
                start = self.i
                continue
            self.i = j + 1
            raise self.error(CONTROL_CHAR)

    def _next_or_eof(self) -> int:
        if self.i >= self.n:
            raise self.error(EOF_STRING)
        c = self.data[self.i]
        self.i += 1
        return c

    def _decode_hex_escape(self) -> int:
        if self.n - self.i < 4:
            self.i = self.n
            raise self.error(EOF_STRING)
        quad = self.data[self.i : self.i + 4]
        self.i += 4
        for k, c in enumerate(quad):
            if c not in _HEX:
                raise self.error(INVALID_ESCAPE, self.i - 4 + k)
        return int(quad, 16)

    def _parse_escape(self, scratch: bytearray) -> None:
        escape = self.i - 1  # the backslash: where a lone surrogate escape is reported
        ch = self._next_or_eof()
        simple = _SIMPLE_ESCAPES.get(ch)
        if simple is not None:
            scratch.append(simple)
            return
        if ch != 0x75:  # u
            raise self.error(INVALID_ESCAPE)
        n = self._decode_hex_escape()
        if 0xDC00 <= n <= 0xDFFF:
            raise self.error(LONE_SURROGATE, escape)
        if n < 0xD800 or n > 0xDBFF:
            scratch += chr(n).encode("utf-8")
            return
        if self.i >= self.n:
            raise self.error(EOF_STRING)
        if self.data[self.i] != 0x5C:
            self.i += 1
            raise self.error(UNEXPECTED_END_OF_HEX, escape)
        self.i += 1
        if self.i >= self.n:
            raise self.error(EOF_STRING)
        if self.data[self.i] != 0x75:
            self.i += 1
            raise self.error(UNEXPECTED_END_OF_HEX, escape)
        self.i += 1
        n2 = self._decode_hex_escape()
        if n2 < 0xDC00 or n2 > 0xDFFF:
            raise self.error(LONE_SURROGATE, escape)
        scratch += chr((((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000).encode("utf-8")

    def ignore_str(self) -> None:
        """``SliceRead::ignore_str``: skip a string body without UTF-8 validation."""
        data = self.data
        while True:
            j = _STR_RUN.match(data, self.i).end()
            self.i = j
            if j >= self.n:
                raise self.error(EOF_STRING)
            c = data[j]
            if c == 0x22:
                self.i = j + 1
                return
            if c == 0x5C:
                self.i = j + 1
                ch = self._next_or_eof()
                if ch == 0x75:
                    self._decode_hex_escape()
                elif ch not in _SIMPLE_ESCAPES:
                    raise self.error(INVALID_ESCAPE)
                continue
            raise self.error(CONTROL_CHAR)

    # -- numbers ----------------------------------------------------------------------
    def parse_number_token(self) -> int | float:
        """Parse a number at ``i`` (``-`` or digit); serde's ``parse_any_number``.

        Returns ``int`` for U64/I64 results and ``float`` for F64 ones.
        """
        start = self.i
        positive = True
        if self.peek() == 0x2D:
            self.i += 1
            positive = False
        try:
            return self.parse_integer(positive)
        except SerdeError as e:
            if e.message == NUMBER_OUT_OF_RANGE:
                e.offset = start  # the whole number is at fault, not its last digit
            raise

    def ignore_value(self) -> None:
        """``Deserializer::ignore_value`` (no recursion limit, no UTF-8 validation)."""
        stack: list[int] = []
        enclosing = None
        while True:
            b = self.parse_whitespace()
            if b is None:
                raise self.peek_error(EOF_VALUE)
            frame = None
            if b == 0x6E:
                self.i += 1
                self.parse_ident(b"ull")
            elif b == 0x74:
                self.i += 1
                self.parse_ident(b"rue")
            elif b == 0x66:
                self.i += 1
                self.parse_ident(b"alse")
            elif b == 0x2D:
                self.i += 1
                self.ignore_integer()
            elif 0x30 <= b <= 0x39:
                self.ignore_integer()
            elif b == 0x22:
                self.i += 1
                self.ignore_str()
            elif b in (0x5B, 0x7B):
                if enclosing is not None:
                    stack.append(enclosing)
                    enclosing = None
                self.i += 1
                frame = b
            else:
                raise self.peek_error(EXPECTED_VALUE)
            if frame is not None:
                accept_comma = False
            elif enclosing is not None:
                frame, enclosing, accept_comma = enclosing, None, True
            elif stack:
                frame, accept_comma = stack.pop(), True
            else:
                return
            while True:
                b = self.parse_whitespace()
                if b == 0x2C and accept_comma:
                    self.i += 1
                    break
                if (b == 0x5D and frame == 0x5B) or (b == 0x7D and frame == 0x7B):
                    pass
                elif b is not None:
                    if accept_comma:
                        raise self.peek_error(EXPECTED_LIST_COMMA_OR_END if frame == 0x5B else EXPECTED_OBJECT_COMMA_OR_END)
                    break
                else:
                    raise self.peek_error(EOF_LIST if frame == 0x5B else EOF_OBJECT)
                self.i += 1
                if not stack:
                    return
                frame = stack.pop()
                accept_comma = True
            if frame == 0x7B:
                b = self.parse_whitespace()
                if b == 0x22:
                    self.i += 1
                elif b is None:
                    raise self.peek_error(EOF_OBJECT)
                else:
                    raise self.peek_error(KEY_MUST_BE_STRING)
                self.ignore_str()
                b = self.parse_whitespace()
                if b == 0x3A:
                    self.i += 1
                elif b is None:
                    raise self.peek_error(EOF_OBJECT)
                else:
                    raise self.peek_error(EXPECTED_COLON)
            enclosing = frame

    # -- serde_json::Value ------------------------------------------------------------
    def _object_body(self):
        value = {}
        children = [] if self.build_nodes else None
        first = True
        while self.has_next_key(first):
            first = False
            key_start = self.i
            self.i += 1
            key = self.parse_str()
            self.parse_object_colon()
            if self.build_nodes:
                value[key], child = self.parse_any()
                children.append((key, key_start, child))
            else:
                value[key] = self.parse_any()
        return value, children

    def _array_body(self):
        value = []
        children = [] if self.build_nodes else None
        first = True
        while self.has_next_element(first):
            first = False
            if self.build_nodes:
                item, child = self.parse_any()
                children.append((len(value), None, child))
                value.append(item)
            else:
                value.append(self.parse_any())
        return value, children

    def parse_any(self):
        """``deserialize_any`` with serde_json's ``ValueVisitor``.

        Returns the Python value, or ``(value, Node)`` when ``build_nodes`` is set.
        Objects become ``dict`` (a repeated key keeps its last value, as in ``Value``).
        """
        b = self.parse_whitespace()
        if b is None:
            raise self.peek_error(EOF_VALUE)
        start = self.i
        node = None
        if b == 0x22:
            self.i += 1
            value = self.parse_str()
            kind = "string"
        elif b == 0x7B:
            value, children = self.container(0x7D, self._object_body)
            kind = "object"
            if self.build_nodes:
                node = Node("object", start, self.i, None, children)
        elif b == 0x5B:
            value, children = self.container(0x5D, self._array_body)
            kind = "array"
            if self.build_nodes:
                node = Node("array", start, self.i, None, children)
        elif b == 0x6E:
            self.i += 1
            self.parse_ident(b"ull")
            value, kind = None, "null"
        elif b == 0x74:
            self.i += 1
            self.parse_ident(b"rue")
            value, kind = True, "bool"
        elif b == 0x66:
            self.i += 1
            self.parse_ident(b"alse")
            value, kind = False, "bool"
        elif b == 0x2D or 0x30 <= b <= 0x39:
            value = self.parse_number_token()
            kind = "number"
        else:
            raise self.peek_error(EXPECTED_VALUE)
        if not self.build_nodes:
            return value
        if node is None:
            node = Node(kind, start, self.i, value)
        return value, node


_SIMPLE_ESCAPES = {0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09}


def _first_invalid_utf8(data: bytes, start: int, end: int) -> int:
    """Offset of the first byte in ``data[start:end]`` (a string body, escapes included) that
    is not valid UTF-8. Escapes are ASCII and an escaped character encodes to a whole UTF-8
    sequence, so the raw body is invalid exactly where the decoded string is."""
    try:
        data[start:end].decode("utf-8")
    except UnicodeDecodeError as e:
        return start + e.start
    return start  # not reached: only called when the decoded body is invalid


def parse_value(data: bytes, *, nodes: bool = False):
    """``serde_json::from_slice::<Value>(data)``.

    Args:
        data: the document bytes.
        nodes: also build the :class:`Node` span tree.

    Returns:
        the Python value (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``), or
        ``(value, root_node)`` when ``nodes`` is true.

    Raises:
        SerdeError: positioned (``line``/``column`` set) with serde_json's message.
    """
    r = Reader(data, build_nodes=nodes)
    try:
        result = r.parse_any()
        r.end()
    except SerdeError as e:
        raise e.locate(data) from None
    except RecursionError:  # pragma: no cover - the 128 limit stops far earlier
        raise SerdeError(RECURSION_LIMIT_EXCEEDED, r.i, SYNTAX).locate(data) from None
    return result
