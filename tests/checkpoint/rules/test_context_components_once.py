"""Component bytes (FORMAT.md 3.2): each component is encoded at most once per verify, and the
evidence rebuilt from a pretty-printed payload is exactly the golden descriptor's."""

import orjson
import pytest

from inspector.checkpoint.rules import context as C
from inspector.checkpoint import verify
from inspector.checkpoint.jsontext.canonical import encode
from tests.conftest import GOLDEN


def _pair(name: str):
    return (GOLDEN / f"payload-{name}.json").read_bytes(), (GOLDEN / f"descriptor-{name}.json").read_bytes()


def _counting(monkeypatch):
    seen = []
    real = C.encode

    def counting(value):
        seen.append(value)
        return real(value)

    monkeypatch.setattr(C, "encode", counting)
    return seen


@pytest.mark.parametrize("pretty", [False, True], ids=["canonical", "pretty-printed"])
@pytest.mark.parametrize("name", ["with-resume", "semantic-only"])
def test_components_encoded_at_most_once(monkeypatch, name, pretty):
    payload, descriptor = _pair(name)
    if pretty:
        payload = orjson.dumps(orjson.loads(payload), option=orjson.OPT_INDENT_2)
    seen = _counting(monkeypatch)
    ctx = C.Context(payload, descriptor, None, None, None)
    ctx.expected_descriptor
    ctx.snapshot_component, ctx.logical_component
    pay = ctx.pay
    assert sum(v is pay["snapshot"] for v in seen) == 0  # a slice of the canonical payload
    lr = pay.get("logical_resume")
    assert sum(v is lr for v in seen) == (0 if lr is None else 1)  # once, to step over it
    # the non-canonical payload is encoded whole once (the canonical bytes), and nothing bigger again
    assert sum(v is pay for v in seen) == (1 if pretty else 0)
    golden = orjson.loads(descriptor)
    assert ctx.expected_descriptor["snapshot"] == golden["snapshot"]
    assert ctx.expected_descriptor.get("logical_resume") == golden.get("logical_resume")
    assert bytes(ctx.snapshot_component) == encode(pay["snapshot"])
    if lr is not None:
        assert bytes(ctx.logical_component) == encode(lr)


@pytest.mark.parametrize("name", ["with-resume", "semantic-only"])
def test_pretty_printed_payload_keeps_component_evidence(name):
    payload, descriptor = _pair(name)
    pretty = orjson.dumps(orjson.loads(payload), option=orjson.OPT_INDENT_2)
    report = verify(pretty, descriptor)
    by_id = {f.rule.id: f for f in report.findings}
    assert report.root_cause.rule.id == "X-BYTES"  # the file changed; its components did not
    assert by_id["P-CANONICAL"].verdict.name == "FAIL"
    assert by_id["X-SNAPSHOT-EVIDENCE"].verdict.name == "PASS"
    expected_lr = "PASS" if name == "with-resume" else "NOT_APPLICABLE"
    assert by_id["X-LOGICAL-EVIDENCE"].verdict.name == expected_lr
    rows = {r.label: r for r in report.digests}
    golden = orjson.loads(descriptor)
    assert rows["snapshot content_digest"].recomputed == golden["snapshot"]["content_digest"]
    assert rows["snapshot size_bytes"].recomputed == golden["snapshot"]["size_bytes"]
    if name == "with-resume":
        assert rows["logical resume content_digest"].recomputed == golden["logical_resume"]["content_digest"]
        assert rows["logical resume evidence_digest"].recomputed == golden["logical_resume"]["evidence_digest"]
