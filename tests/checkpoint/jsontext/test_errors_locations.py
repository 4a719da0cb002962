"""Parse-error locations point at the offending byte, not where serde_json stopped.

serde_json's line/column (pinned to the reference, unchanged) is where its reader stopped; for
each error class the offending byte is derived here from that position alone, by a rule per
class, and checked against the engine's ``offset`` for every rejected vector row.
"""

import re

import pytest

from inspector.checkpoint import CanonicalError, SerdeError, canonicalize, parse_value, verify
from tests.checkpoint.jsontext.test_canonical import ROWS, _input

_POSITION = re.compile(r"^(.*) at line (\d+) column (\d+)$")
_WS = b" \t\r\n"
_HEX = b"0123456789abcdefABCDEF"


def _serde_index(data: bytes, line: int, column: int) -> int:
    """The byte index serde_json's (line, column) names: column bytes after the line's start."""
    start = 0
    for _ in range(line - 1):
        start = data.index(b"\n", start) + 1
    return start + column


def _expected_offset(message: str, data: bytes, index: int) -> int:
    """The offending byte for one error class, from serde's stopping index only."""
    last = index - 1  # serde's column counts the byte it stopped on
    if message.startswith("EOF while"):
        assert index == len(data)
        return len(data)  # the document ended: no byte is wrong
    if message == "invalid unicode code point":  # noticed after the closing quote
        with pytest.raises(UnicodeDecodeError) as e:
            data[:index].decode("utf-8")
        return e.value.start
    if message in ("lone leading surrogate in hex escape", "unexpected end of hex escape"):
        escapes = list(re.finditer(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}", data[:index]))
        return escapes[-1].start()  # the backslash of the surrogate escape that has no partner
    if message == "trailing comma":  # serde stops at the bracket after the comma
        assert data[last] in b"]}"
        return len(data[:last].rstrip(_WS)) - 1
    if message == "number out of range":  # the whole number is at fault: its first byte
        return len(data[:index].rstrip(b"0123456789+-.eE"))
    if message == "invalid escape":
        if data[index - 2] == ord("\\"):
            return last  # the letter after the backslash
        quad = data[index - 4:index]  # \u with four bytes read: the first that is not hex
        return index - 4 + next(k for k, c in enumerate(quad) if c not in _HEX)
    return last


_BYTE_CHECK = {
    "expected value": lambda b: b not in b'"{[-0123456789ntf' and b not in _WS,
    "trailing characters": lambda b: b not in _WS,
    "key must be a string": lambda b: b != ord('"') and b not in _WS,
    "recursion limit exceeded": lambda b: b in b"[{",
    "control character (\\u0000-\\u001F) found while parsing a string": lambda b: b < 0x20,
    "trailing comma": lambda b: b == ord(","),
    "lone leading surrogate in hex escape": lambda b: b == ord("\\"),
    "unexpected end of hex escape": lambda b: b == ord("\\"),
    "invalid escape": lambda b: True,  # checked below with its context
    "expected `,` or `]`": lambda b: b not in b",]" and b not in _WS,
    "expected `,` or `}`": lambda b: b not in b",}" and b not in _WS,
    "expected `:`": lambda b: b != ord(":") and b not in _WS,
    "invalid number": lambda b: True,  # checked in _invalid_number_byte
    "invalid unicode code point": lambda b: b >= 0x80,
    "number out of range": lambda b: b in b"-123456789",
    "expected ident": lambda b: True,
}


def _vector_errors():
    for row in ROWS:
        if row["error"] is not None:
            yield row, _input(row)


def test_every_rejected_vector_points_at_the_offending_byte():
    classes, wrong = set(), []
    for row, data in _vector_errors():
        message, line, column = _POSITION.match(row["error"]).groups()
        with pytest.raises(CanonicalError) as exc:
            canonicalize(data)
        assert str(exc.value) == row["error"]  # serde's text, line and column are unchanged
        index = _serde_index(data, int(line), int(column))
        expected = _expected_offset(message, data, index)
        classes.add(message)
        if exc.value.offset != expected:
            wrong.append((row["id"], message, exc.value.offset, expected))
        elif not message.startswith("EOF while"):
            assert _BYTE_CHECK[message](data[expected]), (row["id"], message, data[expected])
            if message == "invalid number":  # a non-digit where a digit must be, or a digit after a leading 0
                b = data[expected]
                assert b not in b"0123456789" or data[expected - 1] == ord("0"), (row["id"], b)
            if message == "invalid escape":  # not an escape letter after `\`, else not a hex digit of \uXXXX
                b = data[expected]
                assert b not in (b'"\\/bfnrtu' if data[expected - 1] == ord("\\") else _HEX), (row["id"], b)
    assert wrong == []
    # every class in the vectors was checked (20 of serde's syntax classes)
    assert len(classes) == 20


@pytest.mark.parametrize("text, offset", [
    (b"\xef\xbb\xbf{}", 0),                  # a BOM: its first byte, not 0xBB
    (b'{"a":NaN}', 5),                       # the N, not the a
    (b'{"a":"\\ud800"}', 6),                 # the lone \ud800 escape, not the closing brace
    (b'{"a":"\\udc00x"}', 6),
    (b'{"a":"\\ud800\\u0041"}', 6),
    (b'{"a":"ok \xe9 caf"}', 9),             # the bad byte, not the end of the string
    (b'{"a":"\\n\xe9"}', 8),                 # also after an escape
    (b'{"\xff":1}', 2),                      # also in a key
    (b'[1,]', 2),                            # the trailing comma
    (b'{"a":1 , }', 7),
    (b'[1e400]', 1),                         # the number that is out of range
    (b'[-1.5e999, 2]', 1),
    (b'"\\x"', 2),                           # the bad escape letter
    (b'"\\u12G4"', 5),                       # the first non-hex digit
    (b'[01]', 2),                            # the digit after a leading zero
    (b'[1.x]', 3),
    (b'nul', 3),                             # EOF: the end of the document
    (b"[" * 128 + b"]" * 128, 127),          # the 128th opening bracket
    (b'"a\x01"', 2),                         # the control character
    (b'{} x', 3),
])
def test_offending_byte(text, offset):
    with pytest.raises(SerdeError) as exc:
        parse_value(text)
    assert exc.value.offset == offset


def test_findings_carry_the_offending_byte_for_payload_and_descriptor():
    # the three examples, through the engine's verdicts (P-PARSE / D-PARSE locations)
    bom = verify(b"\xef\xbb\xbf{}", None).for_rule("P-PARSE")
    assert bom.message.endswith("expected value at line 1 column 1")
    assert bom.locations[0].span == (0, 1)
    nan = verify(None, b'{"format": NaN}').for_rule("D-PARSE")
    assert nan.locations[0].span == (11, 12)
    lone = verify(b'{"schema":"\\ud800"}', None).for_rule("P-PARSE")
    assert lone.message.endswith("unexpected end of hex escape at line 1 column 18")
    assert lone.locations[0].span == (11, 12)
    utf8 = verify(b'{"schema":"caf\xe9 x"}', None).for_rule("P-PARSE")
    assert utf8.locations[0].span == (14, 15)


# ------------------------------------------------------------------ typed (data) errors
def _golden() -> bytes:
    from tests.conftest import GOLDEN

    return (GOLDEN / "payload-with-resume.json").read_bytes()


_BLOCK = b'{"text":"retain exact state","type":"text"}'


@pytest.mark.parametrize("old, new, message, at", [
    # messages checked against oracle2 (export); the value at fault, not its last byte (serde stops after it)
    (b'"checkpoint_ms":1700000001500', b'"checkpoint_ms":"17000"',
     'invalid type: string "17000", expected u64 at line 1 column 42', b'"17000"'),
    (b'"checkpoint_ms":1700000001500', b'"checkpoint_ms":-17000',
     "invalid value: integer `-17000`, expected u64 at line 1 column 41", b"-17000"),
    (b'"incomplete_response_stalled":false', b'"incomplete_response_stalled":12345',
     "invalid type: integer `12345`, expected a boolean at line 1 column 150", b"12345"),
    (b'"turn":3,', b'"turn":3,"turn":4,', "duplicate field `turn` at line 1 column 558", b'"turn":4'),
    (_BLOCK, b'{"text":"retain exact state","type":"txt"}',
     "unknown variant `txt`, expected one of `text`, `image`, `tool_use`, `tool_result` at line 1 column 299",
     b'"txt"'),
    # inside a buffered (internally tagged / untagged) value serde knows no place: the value's start
    (_BLOCK, b'{"text":5,"type":"text"}',
     "invalid type: integer `5`, expected a string at line 1 column 283", b'{"text":5'),
    (_BLOCK, b'{"content":5,"is_error":false,"tool_use_id":"t","type":"tool_result"}',
     "data did not match any variant of untagged enum ToolResultContentField at line 1 column 328",
     b'{"content":5'),
    # missing field: the closing brace of the object that lacks it (where serde stops too)
    (b'"turn":3,', b"", "missing field `turn` at line 1 column 569", b'},"schema"'),
])
def test_typed_errors_point_at_the_key_or_value_at_fault(old, new, message, at):
    payload = _golden().replace(old, new, 1)
    f = verify(payload, None).for_rule("P-PARSE")
    assert f.message == "invalid session checkpoint payload: " + message
    start = f.locations[0].span[0]
    assert payload[start:start + len(at)] == at
    assert payload.find(at, payload.find(new)) == start  # the occurrence in the edit


def test_descriptor_unknown_field_points_at_the_key():
    from tests.conftest import GOLDEN

    descriptor = (GOLDEN / "descriptor-with-resume.json").read_bytes().replace(b'{"content_digest"', b'{"zz":1,"content_digest"', 1)
    f = verify(None, descriptor).for_rule("D-PARSE")
    assert f.message.startswith("unknown field `zz`, expected one of `schema`")
    assert f.locations[0].span == (1, 2) and descriptor[1:5] == b'"zz"'
