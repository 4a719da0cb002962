"""canonical_json_v1 against the 6,000 serde_json reference vectors (FORMAT.md 3.1)."""

import json

import pytest

from inspector.checkpoint import CanonicalError, canonicalize, parse_value
from inspector.checkpoint.jsontext.canonical import encode, encode_reference, format_f64
from tests.conftest import VECTORS


def _rows():
    return [json.loads(line) for line in VECTORS.read_bytes().split(b"\n") if line.strip()]


ROWS = _rows()


def _input(row) -> bytes:
    return row["input"].encode("utf-8") if row["input"] is not None else bytes.fromhex(row["input_hex"])


def test_vector_count():
    assert len(ROWS) == 6000
    assert sum(r["canonical"] is None for r in ROWS) == 153


def test_every_vector_matches_reference_bytes_and_verdict():
    mismatches = []
    for row in ROWS:
        data = _input(row)
        try:
            out, err = canonicalize(data), None
        except CanonicalError as e:
            out, err = None, str(e)
        want = None if row["canonical"] is None else row["canonical"].encode("utf-8")
        if out != want:
            mismatches.append((row["id"], out, want, err, row["error"]))
    assert mismatches == []


def test_error_texts_match_serde_json_including_position():
    # The README calls positions a hint; we reproduce them exactly for 1.0.151 anyway, except
    # the six `invalid unicode code point` rows whose column changed between serde versions.
    differ = []
    for row in ROWS:
        if row["error"] is None:
            continue
        try:
            canonicalize(_input(row))
        except CanonicalError as e:
            if str(e) != row["error"]:
                differ.append((row["id"], str(e), row["error"]))
    assert differ == []


def test_sha256_column_matches():
    import hashlib

    for row in ROWS[:500]:
        if row["canonical"] is not None:
            assert "sha256:" + hashlib.sha256(canonicalize(_input(row))).hexdigest() == row["sha256"]


def test_orjson_printer_agrees_with_plain_python_model():
    for row in ROWS:
        if row["canonical"] is not None:
            value = parse_value(_input(row))
            assert encode_reference(value) == encode(value), row["id"]


@pytest.mark.parametrize("text, expected", [
    (b"0.9999999999999999", b"1.0"),                 # serde_json's fast path rounds one ULP off
    (b"231125.40915714158", b"231125.4091571416"),
    (b"1.5777777777770001", b"1.577777777777"),
    (b"1e20", b"1e+20"),
    (b"-0", b"-0.0"),
    (b"18446744073709551616", b"1.8446744073709552e+19"),
    (b"-9223372036854775808", b"-9223372036854775808"),
    (b"-9223372036854775809", b"-9.223372036854776e+18"),
    (b"0.00001", b"0.00001"),
    (b"0.000001", b"1e-6"),
    (b"1e-400", b"0.0"),
    (b"100", b"100"),
    (b"1E2", b"100.0"),
    (b'{"b":1,"a":{"d":[3,2],"c":null}}', b'{"a":{"c":null,"d":[3,2]},"b":1}'),
    (b'{"a":1,"a":2}', b'{"a":2}'),
    ('{"\U0001F600":1,"\uFFFF":2}'.encode(), '{"\uFFFF":2,"\U0001F600":1}'.encode()),  # UTF-8 order, not UTF-16
    (b'"\\u00e9\\/\\b"', '"\u00e9/\\b"'.encode()),
    (b'"\\u001F\\u007f"', b'"\\u001f\x7f"'),
    (b' [1 , 2]\r\n', b"[1,2]"),
])
def test_known_serde_json_behaviour(text, expected):
    assert canonicalize(text) == expected


@pytest.mark.parametrize("text, message, category", [
    (b"\xef\xbb\xbf{}", "expected value at line 1 column 1", "syntax"),
    (b"NaN", "expected value at line 1 column 1", "syntax"),
    (b"1e400", "number out of range at line 1 column 5", "syntax"),
    (b'"\\ud800"', "unexpected end of hex escape at line 1 column 8", "syntax"),
    (b'["\xff"]', "invalid unicode code point at line 1 column 4", "syntax"),
    (b"[" * 128 + b"]" * 128, "recursion limit exceeded at line 1 column 128", "syntax"),
    (b'{"a":1', "EOF while parsing an object at line 1 column 6", "eof"),
    (b"", "EOF while parsing a value at line 1 column 0", "eof"),
    (b"{} x", "trailing characters at line 1 column 4", "syntax"),
])
def test_rejections_carry_serde_message_and_category(text, message, category):
    with pytest.raises(CanonicalError) as exc:
        canonicalize(text)
    assert str(exc.value) == message
    assert exc.value.category == category


def test_depth_127_accepted_and_10000_rejected_without_crash():
    assert canonicalize(b"[" * 127 + b"]" * 127) == b"[" * 127 + b"]" * 127
    with pytest.raises(CanonicalError) as exc:
        canonicalize(b"[" * 10000)
    assert exc.value.offset == 127  # the 128th `[` (serde: column 128)


def test_5000_digit_numbers_match_reference():
    # expected values produced by oracle2 (serde_json 1.0.151)
    assert canonicalize(b"0." + b"1234567890" * 500) == b"0.12345678901234568"
    assert canonicalize(b"-" + b"1" * 5000 + b"e-5100") == b"-1.1111111111111112e-101"
    with pytest.raises(CanonicalError) as exc:
        canonicalize(b"1" + b"0" * 4999)
    assert str(exc.value) == "number out of range at line 1 column 5000"
    with pytest.raises(CanonicalError) as exc:
        canonicalize(b"9" * 400 + b".5e10")
    assert str(exc.value) == "number out of range at line 1 column 405"


@pytest.mark.parametrize("x, s", [(0.0, "0.0"), (-0.0, "-0.0"), (1e16, "1e+16"), (1e15, "1000000000000000.0"),
                                  (1.5e-7, "1.5e-7"), (0.800000011920929, "0.800000011920929"), (123.456, "123.456"),
                                  (1.8446744073709552e19, "1.8446744073709552e+19"), (5e-324, "5e-324")])
def test_format_f64(x, s):
    assert format_f64(x) == s
    assert format_f64(x, plus_exponent=False) == s.replace("e+", "e")
