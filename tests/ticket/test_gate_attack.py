"""Attacks on the ticket redaction gate (security review): customer content that reaches a
shareable output. Each test plants a marker (a card-like number, or content in a class the gate
accepts) and asserts it does NOT appear; a failing test is a leak (or an over-redaction)."""

import json

import pytest

from inspector.checkpoint import encode, verify
from inspector.ticket import FORMATS
from tests.ticket.outputs import shareable_outputs
from tests.conftest import CASES_PINNED, GOLDEN

CARD = "4111111111111111"


def _golden() -> dict:
    return json.loads((GOLDEN / "payload-with-resume.json").read_bytes())




def _with_tool_input(raw_input: bytes) -> bytes:
    """The golden with one tool_use block whose ``input`` is ``raw_input`` verbatim (so its key
    order / spelling is what the test wants; everything else canonical)."""
    d = _golden()
    d["snapshot"]["session"]["messages"][0]["content"].append(
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": "@@INPUT@@"})
    return encode(d).replace(b'"@@INPUT@@"', raw_input)


# 1. Gate.pointer shows every all-digit segment, even an object key inside a free-form value
@pytest.mark.parametrize("raw", [
    b'{"zz":1,"' + CARD.encode() + b'":"x"}',          # key order -> P-CANONICAL "where"
    b'{"' + CARD.encode() + b'":1e5}',                  # number spelling -> P-CANONICAL "where"
    '{"\u0664\u0661\u0661\u0661":{"b":1,"a":2}}'.encode(),  # Arabic-Indic digits: str.isdigit() too
])
def test_digit_object_key_inside_tool_input_not_in_where(raw):
    out = shareable_outputs(_with_tool_input(raw))
    key = json.loads(raw.decode()).keys().__iter__().__next__() if b"zz" not in raw else CARD
    for fmt in FORMATS:
        assert key not in out[fmt], fmt


def test_digit_object_key_of_unknown_field_not_in_where():
    d = _golden()
    d["logical_resume"]["convergence"][CARD] = 0  # unknown key: P-CANONICAL points at it
    out = shareable_outputs(encode(d))
    for fmt in FORMATS:
        assert CARD not in out[fmt], fmt


# 2. An object where an array is expected: its digit keys match `*` of the allow-list
def test_digit_key_of_object_in_array_place_not_in_redacted_payload():
    d = _golden()
    d["snapshot"]["session"]["tool_names"] = {CARD: "read"}
    d["snapshot"]["session"]["messages"] = {CARD + "2": d["snapshot"]["session"]["messages"][0]}
    out = shareable_outputs(json.dumps(d).encode())
    assert CARD not in out["redacted-payload"]
    assert CARD + "2" not in out["replacements"]  # the stderr list of `report --redacted-payload`


# 3. A slot's printed form is the raw spelling, but the gate judges the parsed value
@pytest.mark.parametrize("old,new", [
    (b'"total_cost":0.0', b'"total_cost":0e' + CARD.encode()),
    (b'"percent":0.0', b'"percent":1.00000000000000000000000' + CARD.encode()),
])
def test_number_spelling_does_not_carry_extra_digits(old, new):
    payload = (GOLDEN / "payload-with-resume.json").read_bytes().replace(old, new)
    assert payload != (GOLDEN / "payload-with-resume.json").read_bytes()
    out = shareable_outputs(payload)
    for fmt in FORMATS:
        assert CARD not in out[fmt], fmt


# 4. The media class accepts any lowercase token: content in media_type is shown
def test_media_type_class_does_not_show_free_tokens():
    d = _golden()
    d["snapshot"]["session"]["messages"][0]["content"].append(
        {"type": "image", "source": {"type": "base64", "media_type": "x/john.doe-" + CARD, "data": "AAAA"}})
    payload = encode(d)
    out = shareable_outputs(payload)
    assert CARD not in out["redacted-payload"]
    desc = json.loads(verify(payload, None).expected_descriptor)
    desc["media_type"] = "application/john.doe." + CARD
    out = shareable_outputs(payload, json.dumps(desc).encode())
    for fmt in FORMATS:
        assert CARD not in out[fmt], fmt


# 5. Over-redaction: our own words passed to the gate as file values
@pytest.mark.parametrize("case,word", [("020-durable-v4-with-semantic", "present"),
                                       ("021-durable-active-no-policy", "absent")])
def test_our_words_present_absent_not_redacted(case, word):
    p = (CASES_PINNED / f"{case}.payload.json").read_bytes()
    d = (CASES_PINNED / f"{case}.descriptor.json").read_bytes()
    text = shareable_outputs(p, d)["text"]
    line = next(x for x in text.splitlines() if x.strip().startswith("actual:"))
    assert word in line, line


# 6. A Violation's `expected` that is a value of the files, without `expected_at`, is printed as
#    our words (verify.py: ours_unless_text(first.expected)): D-SESSION-MATCH quotes the snapshot
#    evidence's session_id in clear, whatever it holds.
def test_d_session_match_expected_is_gated():
    d = _golden()
    secret = "Alice Smith card 4111 1111 1111 1111"
    d["snapshot"]["session"]["id"] = secret
    payload = encode(d)
    descriptor = verify(payload, None).expected_descriptor  # snapshot.session_id = the secret
    report = verify(payload, descriptor)
    assert report.root_cause.rule.id == "D-SESSION-MATCH"
    out = shareable_outputs(payload, descriptor)
    for fmt in FORMATS:
        assert "Alice Smith" not in out[fmt], fmt
