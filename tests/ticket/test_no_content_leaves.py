"""No customer content in any report format or redacted payload.

Payloads from the golden pairs and rich reference cases have *every free-text field* rewritten
to hold a unique marker (decorated with quotes, backslashes, newlines, non-ASCII and controls,
so every escaping path is exercised). Which fields are free text is decided here, from FORMAT.md
section 4, independently of the allow-list: a field the allow-list wrongly lets through fails.
Each payload is exported in every report format, with and without SHA-256 prefixes, and as a
redacted payload, valid and broken in ways whose messages, expected/actual values or notes would
quote the free text; no marker (nor any 8-character piece of one) may appear in any output.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint import InputFile, encode, verify
from inspector.ticket import FORMATS, build_ticket, redact_payload, render
from inspector.ticket.model import decodes
from tests.conftest import CASES_PINNED, GOLDEN

BASES = [GOLDEN / "payload-with-resume.json", GOLDEN / "payload-semantic-only.json",
         CASES_PINNED / "001-valid-rich-resume.payload.json", CASES_PINNED / "002-valid-rich-semantic.payload.json",
         CASES_PINNED / "008-valid-zoo.payload.json"]

#: String fields that hold free text (FORMAT.md 4): message text, prompts, tool output, paths...
FREE_KEYS = {
    "text", "reasoning_content", "system_prompt", "workspace", "prompt", "result_text", "error", "description",
    "message", "reason", "output", "delta", "summary", "query", "action_taken", "content", "success_criteria",
    "base_url", "api_key", "storagePath", "tenant_id", "principal", "tenantId", "principalId", "scopeId",
    "artifact_uri", "patch_base64", "data", "subject", "residual_risk", "from_tenant_id", "goal", "path",
    "expected", "actual", "op", "input",
}
#: Values that are free-form JSON: every string and every key inside is content.
FREE_JSON = {"input", "args", "payload", "details"}
#: Typed values whose strings are all content (their keys are field names).
FREE_SUBTREES = FREE_JSON | {
    "tags", "residual_risks", "evidence_uris", "retained_artifact_uris", "artifact_uris", "pending_subjects",
    "failed_subjects", "metadata_keys", "deny", "allow", "ask", "classification_rules", "network_whitelist",
    "dangerous_commands", "success_criteria"}
#: Keys of tool_end metadata read by the validators (kept; the rest of metadata is free-form).
METADATA_KEPT = {"a3s_tool_result_transform_binding", "a3s_tool_result_evidence"}

_ALPHA = "GHJKLMNPQRSTUVWXYZ"  # never hex: a marker piece cannot collide with a digest


def _core(n: int) -> str:
    digits = ""
    for _ in range(8):
        n, r = divmod(n, len(_ALPHA))
        digits += _ALPHA[r]
    return "QZ" + digits + "ZQ"


class Markers:
    """Hands out one marker per distinct original string (equal values stay equal, so bindings
    that compare two free-text fields still agree)."""

    def __init__(self, decorate):
        self.decorate = decorate
        self.cores: list[str] = []
        self.by_original: dict[str, str] = {}

    def __call__(self, original: str) -> str:
        if original not in self.by_original:
            core = _core(len(self.cores) * 7919 + 17)
            self.cores.append(core)
            pre, post = self.decorate(len(self.cores))
            self.by_original[original] = pre + core + post
        return self.by_original[original]


def rewrite(doc, markers: Markers):
    """Every free-text string (and every key inside a free-form value) replaced by a marker."""
    root = [doc]
    stack = [(root, 0, None, False, False)]  # (parent, slot, key, strings are content, keys are content)
    while stack:
        parent, slot, key, free, free_keys = stack.pop()
        v = parent[slot]
        if isinstance(v, dict):
            items = list(v.items())
            v.clear()
            for k, child in items:
                json_value = free_keys or k in FREE_JSON or (key == "metadata" and k not in METADATA_KEPT)
                inner_free = free or json_value or k in FREE_SUBTREES
                nk = markers(k) if free_keys else k
                v[nk] = child
                if isinstance(child, str):
                    if inner_free or k in FREE_KEYS or (key == "config" and k == "name"):
                        v[nk] = markers(child)
                else:
                    stack.append((v, nk, k, inner_free, json_value))
        elif isinstance(v, list):
            for i, child in enumerate(v):
                if isinstance(child, str):
                    if free or key in FREE_SUBTREES or key in FREE_KEYS:
                        v[i] = markers(child)
                else:
                    stack.append((v, i, key, free or key in FREE_SUBTREES, free_keys))
    return root[0]


def _first_text(doc):
    """Pointer path (list) of the first message's first text block, if any."""
    msgs = doc["snapshot"]["session"]["messages"]
    for i, m in enumerate(msgs):
        for j, b in enumerate(m["content"]):
            if b.get("type") == "text":
                return i, j
    return None


def _variant(name: str, doc: dict, markers: Markers) -> tuple[bytes, bytes]:
    """(payload bytes, descriptor bytes) for one variant. The descriptor matches the payload as
    first encoded: verified without it, the variant's own defect is the root cause; with it, the
    defect is X-BYTES's consequence (and X-BYTES's notes quote the payload's parse error)."""
    payload = encode(doc)
    descriptor = verify(payload, None).expected_descriptor
    assert descriptor is not None
    if name == "valid":
        return payload, descriptor
    if name == "x-bytes":  # one free-text byte changed after export
        return payload.replace(markers.cores[0].encode(), markers.cores[0][::-1].encode(), 1), descriptor
    if name == "type-error":  # free text where a number belongs: serde quotes it
        doc["snapshot"]["session"]["config"]["max_context_length"] = markers("type-error")
    elif name == "unknown-variant":  # free text where an enum belongs: serde quotes it
        doc["snapshot"]["session"]["state"] = markers("unknown-variant")
    elif name == "deny-unknown-key":  # a free-text key where keys are denied: serde names it
        doc[markers("top-level key")] = markers("top-level value")
    elif name == "unknown-key":  # dropped unknown key: P-CANONICAL names it
        doc["snapshot"]["session"]["config"][markers("config key")] = markers("config value")
    elif name in ("escape", "whitespace"):  # P-CANONICAL with a snippet inside message text
        at = _first_text(doc)
        if at is None:
            return payload, descriptor
        i, j = at
        doc["snapshot"]["session"]["messages"][i]["content"][j]["text"] = markers("é escape target") + "é tail"
    payload = encode(doc)
    if name == "escape":
        payload = payload.replace("é".encode(), b"\\u00e9")
    elif name == "whitespace":
        at = payload.index(b'"text":') + len(b'"text":')
        payload = payload[:at] + b" " + payload[at:]
    elif name == "truncated":
        core = markers.cores[-1].encode()
        payload = payload[: payload.index(core) + 6]
    return payload, descriptor


VARIANTS = ["valid", "x-bytes", "type-error", "unknown-variant", "deny-unknown-key", "unknown-key", "escape",
            "whitespace", "truncated"]
_DECOR = st.text(alphabet=st.sampled_from(list('"\\\n\t\'`é中😀 {}[]:,\x01/~')), max_size=4)


def _outputs(payload: bytes, descriptor: bytes | None, hash_prefix: bool) -> dict[str, str]:
    report = verify(payload, descriptor)  # verification first, on the original bytes
    pf = InputFile("customer.payload.json", len(payload), payload, "payload")
    df = None if descriptor is None else InputFile("customer.descriptor.json", len(descriptor), descriptor, "descriptor")
    ticket = build_ticket(report, pf, df, hash_prefix=hash_prefix, date="2026-01-01T00:00:00Z")
    out = {fmt: render(ticket, fmt) for fmt in FORMATS}
    try:
        redacted, reps = redact_payload(payload, hash_prefix=hash_prefix, trusted=decodes(report)["payload"])
        out["redacted-payload"] = redacted.decode()
        out["replacements"] = "\n".join(f"{r.pointer} {r.kind} {r.size} {r.digest}" for r in reps)
    except ValueError:
        out["redacted-payload"] = ""  # not JSON (the truncated variant): nothing is written
    out["_verdict"] = report.root_cause.rule.id if report.root_cause else "VERIFIED"
    return out


def _leaks(outputs: dict[str, str], cores: list[str]) -> list[tuple[str, str]]:
    found = []
    for name, text in outputs.items():
        if name.startswith("_"):
            continue
        for core in cores:
            for k in range(0, len(core) - 7):
                if core[k:k + 8] in text:
                    found.append((name, core))
                    break
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BASES), variant=st.sampled_from(VARIANTS), hash_prefix=st.booleans(),
       with_descriptor=st.booleans(), decor=st.lists(st.tuples(_DECOR, _DECOR), min_size=1, max_size=5))
def test_no_marker_in_any_output(base, variant, hash_prefix, with_descriptor, decor):
    doc = json.loads(base.read_bytes())
    markers = Markers(lambda n: decor[n % len(decor)])
    rewrite(doc, markers)
    assert len(markers.cores) >= 3  # the rewrite found free text to mark
    payload, descriptor = _variant(variant, doc, markers)
    outputs = _outputs(payload, descriptor if with_descriptor or variant in ("valid", "x-bytes") else None, hash_prefix)
    assert _leaks(outputs, markers.cores) == []
    assert all(m not in outputs["redacted-payload"] for m in markers.by_original.values() if len(m) > 3)


EXPECTED_ROOT = {"valid": "VERIFIED", "x-bytes": "X-BYTES", "type-error": "P-PARSE", "unknown-variant": "P-PARSE",
                 "deny-unknown-key": "P-PARSE", "unknown-key": "P-CANONICAL", "escape": "P-CANONICAL",
                 "whitespace": "P-CANONICAL", "truncated": "P-PARSE"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_fail_as_intended_and_their_texts_would_have_quoted_the_marker(variant):
    """The variants really exercise the redaction: the engine's own texts quote the marker."""
    doc = json.loads(BASES[0].read_bytes())
    markers = Markers(lambda n: ('"', "\\"))
    rewrite(doc, markers)
    payload, descriptor = _variant(variant, doc, markers)
    if variant not in ("valid", "x-bytes"):
        descriptor = None  # the payload alone: its own defect is the root cause
    report = verify(payload, descriptor)
    assert (report.root_cause.rule.id if report.root_cause else "VERIFIED") == EXPECTED_ROOT[variant]
    outputs = _outputs(payload, descriptor, False)
    assert _leaks(outputs, markers.cores) == []
    if variant in ("type-error", "unknown-variant", "deny-unknown-key", "unknown-key", "escape"):
        rc = report.for_rule("P-PARSE" if EXPECTED_ROOT[variant] == "P-PARSE" else "P-CANONICAL")
        raw = " ".join([rc.message, rc.expected or "", rc.actual or "", *rc.notes])
        assert any(core in raw for core in markers.cores), raw  # unredacted, it would have leaked
        assert "[redacted: " in outputs["text"]


def test_free_text_of_the_golden_payload_is_what_the_allow_list_redacts():
    """The golden's free text (FORMAT.md 9: config name, workspace, message, prompt) is redacted
    with its kind; ids, digests and enum values stay."""
    doc = json.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    redacted, reps = redact_payload(encode(doc), trusted=True)
    assert [(r.pointer, r.kind, r.size) for r in reps] == [
        ("/logical_resume/messages/0/content/0/text", "message text", 18),
        ("/snapshot/run_records/0/snapshot/prompt", "prompt", 8),
        ("/snapshot/session/config/name", "text", 18),
        ("/snapshot/session/config/workspace", "workspace path", 10),
        ("/snapshot/session/messages/0/content/0/text", "message text", 18),
    ]
    out = json.loads(redacted)
    session = out["snapshot"]["session"]
    assert session["config"]["workspace"] == "[redacted: workspace path, 10 bytes]"
    assert session["messages"][0]["content"][0] == {"text": "[redacted: message text, 18 bytes]", "type": "text"}
    assert session["config"]["system_prompt"] is None  # null carries nothing: kept
    assert (session["id"], session["state"], session["model_name"]) == ("session-checkpoint-1", "Active", "deepseek-chat")
    assert out["snapshot"]["run_records"][0]["snapshot"]["prompt"] == "[redacted: prompt, 8 bytes]"
    assert b"retain exact state" not in redacted and b"/workspace" not in redacted and b"checkpoint fixture" not in redacted
