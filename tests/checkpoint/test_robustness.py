"""verify() never raises, whatever the bytes (bad input gets a verdict, never a crash)."""

import hashlib

from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.checkpoint import DESCRIPTOR_DOMAIN, Verdict, decode, domain_digest, encode, parse_value, verify
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.digest import descriptor_digest_input
from tests.conftest import GOLDEN
from inspector.checkpoint import catalogue

PAYLOAD = (GOLDEN / "payload-with-resume.json").read_bytes()
DESCRIPTOR = (GOLDEN / "descriptor-with-resume.json").read_bytes()
SETTINGS = settings(max_examples=int(__import__("os").environ.get("ROBUSTNESS_EXAMPLES", "150")), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rebind(payload: bytes, descriptor: bytes = DESCRIPTOR) -> bytes:
    """``descriptor`` (the golden one by default) re-pointed at ``payload`` (outer size/digest + descriptor digest)."""
    d = decode(descriptor, S.DESCRIPTOR)
    d["size_bytes"] = max(len(payload), 1)
    d["content_digest"] = "sha256:" + hashlib.sha256(payload).hexdigest()
    d["descriptor_digest"] = domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d))
    return encode(d)


def check_report(report):
    assert report.internal_errors == []
    assert len(report.findings) == len(catalogue())
    for f in report.findings:
        if f.verdict is Verdict.FAIL:
            assert f.message and f.locations
    if report.root_cause is not None:
        assert report.root_cause.failed and report.root_cause.rule.import_path
    else:
        assert report.ok


@SETTINGS
@given(st.data())
def test_byte_mutations_never_crash(data):
    which = data.draw(st.sampled_from(["payload", "descriptor"]))
    blob = PAYLOAD if which == "payload" else DESCRIPTOR
    pos = data.draw(st.integers(0, len(blob)))
    cut = data.draw(st.integers(0, 4))
    ins = data.draw(st.binary(max_size=4))
    mutated = blob[:pos] + ins + blob[pos + cut:]
    if which == "payload":
        check_report(verify(mutated, DESCRIPTOR))
        check_report(verify(mutated, rebind(mutated)))
    else:
        check_report(verify(PAYLOAD, mutated))
        check_report(verify(None, mutated))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _pointers(value, prefix=""):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _pointers(v, f"{prefix}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _pointers(v, f"{prefix}/{i}")


POINTERS = [p for p in _pointers(parse_value(PAYLOAD)) if p]


def _set(value, pointer, new):
    parts = pointer.lstrip("/").split("/")
    node = value
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = new
    else:
        node[last] = new


@SETTINGS
@given(st.sampled_from(POINTERS), JSON)
def test_type_confusion_at_any_field_never_crashes(pointer, new):
    value = parse_value(PAYLOAD)
    _set(value, pointer, new)
    try:
        mutated = encode(value)
    except TypeError:  # integers beyond 64 bits cannot be printed by orjson; spell them by hand
        return
    check_report(verify(mutated, rebind(mutated)))


def test_an_engine_defect_is_never_reported_as_verified(monkeypatch, capsysbinary):
    """Fail safe: a rule that raises leaves the report inconclusive, not verified (CLI exit 3)."""
    from inspector.checkpoint.rules import checks
    from inspector.cli import main

    def broken(ctx):
        raise MemoryError("secret payload text")

    monkeypatch.setitem(checks.CHECKS, "P-CANONICAL", broken)
    report = verify(PAYLOAD, DESCRIPTOR)
    assert report.internal_errors == ["P-CANONICAL: MemoryError"]  # no exception text: it may quote the payload
    assert not report.ok and not report.verified and report.inconclusive
    assert report.for_rule("P-CANONICAL").verdict is Verdict.NOT_EVALUATED
    code = main(["verify", str(GOLDEN / "payload-with-resume.json"), str(GOLDEN / "descriptor-with-resume.json")])
    out, err = capsysbinary.readouterr()
    assert code == 3 and b"INCONCLUSIVE" in out and b"VERIFIED:" not in out and b"secret" not in out + err
