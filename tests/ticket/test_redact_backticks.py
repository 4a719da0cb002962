"""Values that serde (and the reference's durable-memory texts) quote between backticks without
escaping: a value holding backticks is redacted whole, also when the payload is too large to be
parsed for redaction (``PARSE_LIMIT``: no list of the file's strings to fall back on)."""

import pytest

from inspector.checkpoint import InputFile, verify
from inspector.ticket import build_ticket, render
from inspector.ticket import redact as R
from inspector.ticket.model import decodes
from tests.conftest import GOLDEN

SECRET = "ab`my-secret-token"
PAYLOAD = ('{"snapshot":{"session":{"x":"%s"}}}' % SECRET).encode()

CASES = [
    ("unknown variant `ab`my-secret-token`, expected `Active` or `Paused` at line 1 column 40", True,
     "unknown variant [redacted: value, 18 bytes], expected `Active` or `Paused` at line 1 column 40"),
    ("unknown field `key`with spaces`, there are no fields", True,
     "unknown field [redacted: value, 15 bytes], there are no fields"),
    ("invalid durableMemoryBinding.retrievalProfile: unrecognized durable-memory retrieval profile `x` y `z`", False,
     "invalid durableMemoryBinding.retrievalProfile: unrecognized durable-memory retrieval profile "
     "[redacted: value, 7 bytes]"),
    ("retrieval profile `a`b` is incompatible with schema version 2", False,
     "retrieval profile [redacted: value, 3 bytes] is incompatible with schema version 2"),
    ("retrieval profile `a3s.memory.lexical.word.v1` is incompatible with schema version 2", False,
     "retrieval profile `a3s.memory.lexical.word.v1` is incompatible with schema version 2"),
]


@pytest.mark.parametrize("limit", [10, R.PARSE_LIMIT], ids=["too-large-to-parse", "parsed"])
@pytest.mark.parametrize("text,serde,expected", CASES, ids=[c[0][:24] for c in CASES])
def test_backtick_quoted_value_is_redacted_whole(monkeypatch, limit, text, serde, expected):
    monkeypatch.setattr(R, "PARSE_LIMIT", limit)
    redactor = R.Redactor(PAYLOAD, None)
    assert redactor.strict is (limit == 10)
    assert redactor.text(text, serde=serde) == expected


def test_too_large_payload_with_a_backticked_variant_keeps_it_out_of_every_format(monkeypatch):
    payload = (GOLDEN / "payload-with-resume.json").read_bytes().replace(
        b'"type":"text"', b'"type":"te`xt QZKEEPOUTZQ"', 1)
    report = verify(payload, None)
    assert report.root_cause.rule.id == "P-PARSE"
    assert "unknown variant `te`xt QZKEEPOUTZQ`" in report.root_cause.message
    monkeypatch.setattr(R, "PARSE_LIMIT", 100)  # the payload is not parsed for redaction
    pf = InputFile("customer.payload.json", len(payload), payload, "payload")
    ticket = build_ticket(report, pf, None)
    for fmt in ("text", "markdown", "html", "json", "sarif"):
        out = render(ticket, fmt)
        assert "KEEPOUT" not in out and "te`xt" not in out, fmt
    assert "unknown variant [redacted: value, 17 bytes], expected " in render(ticket, "text")
    assert decodes(report)["payload"] is False
