"""The door's free-form reads, ``read_value`` and ``canonical_form`` (FORMAT.md 3.1), held to the real serde_json.

Both try the fast reader with the ``Value`` schema first, and take its value only when it is proven to be what
serde_json reads, a float serde reads one step off included (``serde_floats``). The canonical-encoding vectors
were produced by the real serde_json: every one must come out as its expected bytes or its error, whichever
reader the door picked.
"""

from __future__ import annotations

import json

import orjson
import pytest

from inspector.checkpoint import CanonicalError, SerdeError, canonicalize, encode
from inspector.checkpoint.read.door import canonical_form, read_value
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, decode_fast
from inspector.checkpoint.schema.kinds import VALUE
from tests.conftest import GOLDEN, VECTORS

ROWS = [json.loads(line) for line in VECTORS.read_bytes().split(b"\n") if line.strip()]


def _input(row) -> bytes:
    return row["input"].encode("utf-8") if row["input"] is not None else bytes.fromhex(row["input_hex"])


def _fast(data: bytes) -> str:
    """Which way the fast reader took ``data``: canonical, another printing, or not at all."""
    try:
        decode_fast(data, VALUE, serde_floats=True)
    except NotCanonical:
        return "printing"
    except NotFast:
        return "exact"
    return "canonical"


def _wrong(read, error) -> list[int]:
    """The ids of the vectors whose ``read(bytes)`` is not serde_json's canonical bytes or error text."""
    wrong = []
    for row in ROWS:
        try:
            got = read(_input(row))
        except error as e:
            got = str(e)
        if got != (row["canonical"].encode("utf-8") if row["canonical"] is not None else row["error"]):
            wrong.append(row["id"])
    return wrong


def test_every_vector_canonical_form_is_serde_jsons():
    assert _wrong(canonical_form, CanonicalError) == []
    # the fast reader decided a share of them, so the check above is not the exact parser's alone
    ways = {"canonical": 0, "printing": 0, "exact": 0}
    for row in ROWS:
        ways[_fast(_input(row))] += 1
    assert ways == {"canonical": 1640, "printing": 84, "exact": 4276}


def test_every_vector_read_value_encodes_to_serde_jsons_bytes():
    assert _wrong(lambda data: encode(read_value(data)), SerdeError) == []


@pytest.mark.parametrize("text, canonical", [
    # FORMAT.md 3.1: serde_json without float_roundtrip reads these one step off
    (b"[0.9999999999999999]", b"[1.0]"),
    (b'{"b": 231125.40915714158,\n "a": 1}', b'{"a":1,"b":231125.4091571416}'),
    (b"1.5777777777770001", b"1.577777777777"),
])
def test_a_float_serde_reads_one_step_off_is_replaced_by_its_reading(text, canonical):
    assert canonicalize(text) == canonical  # the exact parser
    assert canonical_form(text) == canonical
    if text.startswith(b"{"):
        assert _fast(text) == "exact"  # not a printing the fast reader accepts (a space after a comma only)
    else:
        assert _fast(text) == "printing"
        with pytest.raises(NotFast):  # without serde_floats the float refuses the file
            decode_fast(text, VALUE)


def test_a_pretty_printed_payload_comes_back_canonical_through_the_fast_reader():
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    pretty = orjson.dumps(orjson.loads(payload), option=orjson.OPT_INDENT_2) + b"\n"
    assert _fast(pretty) == "printing" and _fast(payload) == "canonical"
    assert canonical_form(pretty) == payload == canonical_form(payload)
    assert read_value(pretty) == orjson.loads(payload)


@pytest.mark.parametrize("text", [b'{"a":1,"a":2}', b"-0", b"18446744073709551616", b"[1e400]", b"\xef\xbb\xbf{}"])
def test_what_the_fast_reader_cannot_prove_goes_to_the_exact_parser(text):
    assert _fast(text) == "exact"
    try:
        want = canonicalize(text)
    except CanonicalError as e:
        with pytest.raises(CanonicalError) as got:
            canonical_form(text)
        assert str(got.value) == str(e)
    else:
        assert canonical_form(text) == want


def test_a_payload_and_its_pretty_copy_read_alike_where_an_f32_field_is_one_serde_misreads():
    """A typed read narrows an ``f32`` field's text to f32 and widens it back (0.9100000262260437); serde's ``Value``
    keeps the double its parser makes of the same text (…436, FORMAT.md 3.1). The door reads a payload the typed
    fast reader proves as the reference does, typed, canonical or pretty-printed alike: the two compare equal, with
    the component digests the descriptor states (a slice of the canonical file; the pretty copy's re-encoding)."""
    from inspector.checkpoint import parse_value
    from inspector.checkpoint.analysis.compare import compare_documents
    from inspector.checkpoint.read.door import read_value_form
    from tests.conftest import CASES_PINNED

    data = (CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes()
    descriptor = orjson.loads((CASES_PINNED / "001-valid-rich-resume.descriptor.json").read_bytes())
    value, canonical = read_value_form(data)
    assert canonical is True and encode(value) == data  # the typed value's printing is the file
    assert canonical_form(data) == encode(parse_value(data)) != data  # as a Value it is not canonical
    pretty = orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2)
    assert read_value_form(pretty) == (value, False)
    result = compare_documents(data, pretty)
    assert result.equal
    digests = {c.name: (c.old, c.new) for c in result.components}
    assert digests["snapshot"] == (descriptor["snapshot"]["content_digest"],) * 2
    assert digests["logical_resume"] == (descriptor["logical_resume"]["content_digest"],) * 2
