"""Differential tests against the Rust reference (``oracle2``), bounded and seeded.

* ``test_documents_*``: 2,000 random JSON documents through ``oracle2 batch`` and
  ``canonicalize``: verdicts, canonical bytes and rejection texts must be identical.
* ``test_artifacts_*``: 300 mutated artifact pairs and 20 export round trips through
  ``oracle2 verify``/``oracle2 export`` and ``verify``: ``ok``/``rule``/``code``/``message``.

These need the reference binary (``$ORACLE2``, default /tmp/reference/target/release/oracle2)
and are skipped without it (CI). The reproducer tests at the bottom pin the reference's
verdicts as literals and run everywhere; the ones for open discrepancies are
``xfail(strict=True)`` so they flip when the engine is fixed.

Large runs: ``tests/differential/run_differential.py --cases 100000 --artifacts 5000``.
"""

from __future__ import annotations

import collections
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import diffkit as dk  # noqa: E402
import richgen as rg  # noqa: E402
import richmut as rm  # noqa: E402
import richrun  # noqa: E402

ORACLE = dk.oracle_path()
needs_oracle = pytest.mark.skipif(ORACLE is None, reason="oracle2 (Rust reference) not built here; set ORACLE2")

DOC_SEED, DOCS = 20240601, 2000
ART_SEED, ARTIFACTS, EXPORTS = 7, 300, 20


def _fmt_docs(rows) -> str:
    return "\n".join(f"input={dk.show(r[0])}\n  ours={r[1]!r}\n  reference={r[2]!r}" for r in rows[:5])


@pytest.fixture(scope="module")
def oracle():
    return dk.Oracle(ORACLE)


@pytest.fixture(scope="module")
def doc_result(oracle):
    return dk.compare_documents(oracle, dk.gen_documents(DOCS, DOC_SEED))


@pytest.fixture(scope="module")
def artifact_result(oracle):
    return dk.run_artifacts(oracle, ARTIFACTS, ART_SEED, exports=EXPORTS)


@needs_oracle
def test_documents_verdicts_and_bytes_match(doc_result):
    r = doc_result
    assert r.total == DOCS
    assert not r.engine_crash, _fmt_docs(r.engine_crash)
    assert not r.verdict_mismatch, _fmt_docs(r.verdict_mismatch)
    assert not r.bytes_mismatch, _fmt_docs(r.bytes_mismatch)


@needs_oracle
def test_documents_rejection_texts_match(doc_result):
    r = doc_result
    assert not r.error_text_mismatch, _fmt_docs(r.error_text_mismatch)
    assert r.error_text_agree == r.rejected


@needs_oracle
def test_documents_exercise_both_verdicts_and_many_error_kinds(doc_result, oracle):
    # Guards the generator: a corpus that only holds valid (or only broken) text proves little.
    r = doc_result
    assert r.accepted > DOCS // 2 and r.rejected > DOCS // 10
    kinds = {rec["error"].split(" at line")[0] for rec in oracle.batch(dk.gen_documents(DOCS, DOC_SEED))
             if not rec["ok"]}
    assert {"recursion limit exceeded", "number out of range", "invalid unicode code point",
            "lone leading surrogate in hex escape", "trailing characters", "expected value"} <= kinds


def _fmt_art(rows) -> str:
    return "\n".join(f"{m['label']}\n  ours={m['ours']}\n  reference={m['reference']}" for m in rows[:5])


@needs_oracle
def test_artifacts_match_reference(artifact_result):
    r = artifact_result
    assert r.total == ARTIFACTS + EXPORTS
    unknown = [m for m in r.mismatches if dk.known_issue(m["ours"], m["reference"]) is None]
    assert not unknown, _fmt_art(unknown)


@needs_oracle
def test_artifacts_reach_many_rules(artifact_result):
    r = artifact_result
    assert r.accepted > 0
    reached = {k for k in r.by_rule if k}
    assert len(reached) >= 25, sorted(reached)
    assert {"D-PARSE", "P-PARSE", "X-BYTES", "P-CANONICAL", "X-DESCRIPTOR"} <= reached


@needs_oracle
def test_exports_round_trip(artifact_result):
    r = artifact_result
    assert r.exports == EXPORTS and r.export_ok > EXPORTS // 2
    assert not r.export_mismatches, [(m["label"], m["problems"]) for m in r.export_mismatches[:5]]


def test_generators_are_deterministic():
    assert dk.gen_documents(200, 5) == dk.gen_documents(200, 5)
    pairs = dk.base_pairs()
    a = [dk.mutate_artifact(random.Random(3), pairs[0]) for _ in range(3)]
    b = [dk.mutate_artifact(random.Random(3), pairs[0]) for _ in range(3)]
    assert a == b


def test_base_pairs_are_the_goldens_and_the_54_cases():
    pairs = dk.base_pairs()
    assert len(pairs) == 56 and len({p.name for p in pairs}) == 56
    assert pairs[0].name == "golden-with-resume" and len(pairs[0].payload) == 2090


def test_rebind_outer_gets_past_the_byte_binding():
    g = dk.base_pairs()[0]
    payload = g.payload.replace(b'"prompt":"continue"', b'"prompt":"continue!"')
    assert dk.ours_verdict(payload, g.descriptor)["rule"] == "X-BYTES"
    v = dk.ours_verdict(payload, dk.rebind_outer(payload, g.descriptor))
    assert v["rule"] == "X-DESCRIPTOR"  # only the stale snapshot evidence is left
    assert dk.ours_verdict(payload, dk.rebind_full(payload, g.descriptor)) == {
        "ok": True, "rule": None, "code": None, "message": None}


# ---------------------------------------------------------------------------------------------
# Rich sessions (richgen / richmut / richrun): the typed layout of FORMAT.md 4.7-4.16 and the
# 15 binding rules of 6.3. The generator tests run everywhere; the differential needs oracle2.
# ---------------------------------------------------------------------------------------------

RICH_SEED, RICH_SESSIONS, RICH_MUTATIONS = 11, 32, 30

#: Every binding kind the generator must produce (richgen.binding_kinds names).
RICH_BINDINGS = {
    "session-cognitive", "run-cognitive", "event-cognitive", "event-cognitive-legacy", "run-capability",
    "run-capability+use", "loop-capability", "durable-v5-active_recall", "durable-v5-semantic",
    "durable-v4-active_recall", "durable-v4-shadow_candidates", "durable-v3-active_recall",
    "durable-v2-shadow_candidates", "durable-v1-shadow_candidates", "durable-v1-active_recall",
    "transform-conservative", "transform-context_efficient", "transform-custom", "tool-evidence", "immutable",
}

#: Every inner check and typed hazard richmut aims at (catalog S check 10 is unreachable).
RICH_TARGETS = (
    {f"C{i}" for i in range(1, 16)} | {f"R{i}" for i in range(1, 9)} | {f"T{i}" for i in range(1, 7)}
    | {f"S{i}" for i in range(1, 15) if i != 10}
    | {"D1", "D2", "D3", "D4", "D5", "D6", "D7b", "D7c", "D7d", "D8a", "D8b", "D8c", "D8d", "D8e", "TENANT", "PRINCIPAL"}
    | {"BINDING-PARSE", "EVIDENCE-MISSING", "EVIDENCE-PARSE", "EVIDENCE-MISMATCH", "match", "cognitive-other"}
    | {f"policy-{k}" for k in ("schema", "max", "head", "reserve", "threshold", "structured", "other")}
    | {f"immutable-{k}" for k in ("schema", "authority", "maximum", "format", "stale")}
    | {f"flow-{k}" for k in ("seq", "count", "run-dup", "run-owner", "subagent", "lr-schema", "lr-owner", "lr-turn",
                             "lr-source", "lr-terminal")}
    | {f"typed:{k}" for k in ("wrong-type", "unknown-key", "struct-as-array", "variant-index", "f32", "enum-form",
                              "missing", "null", "event-tag", "timestamp", "lanes", "permission-string", "dup-key",
                              "alias:tasks", "alias:content", "alias:autoParallel")}
)

#: The 15 newly evaluated rules (cases-pinned/README.md).
BINDING_RULES = {
    "S-DURABLE-VALID", "S-DURABLE-TENANT", "S-DURABLE-PRINCIPAL", "S-COGNITIVE", "S-RUN-COGNITIVE",
    "S-RUN-CAPABILITY", "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY",
    "S-TOOLEND-BINDING-PARSE", "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING",
    "S-TOOLEND-EVIDENCE-PARSE", "S-TOOLEND-EVIDENCE-MISMATCH", "L-CAPABILITY-VALID",
}


def _rich_values(n: int = 12, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    return [rg.RichGen(random.Random(rng.getrandbits(64)), wide_floats=True).payload(
        durable_version=richrun.DURABLE_CYCLE[i % len(richrun.DURABLE_CYCLE)]) for i in range(n)]


def test_rich_event_kinds_are_the_51_of_the_reference_in_declaration_order():
    # The reference's own unknown-variant message (cases-pinned 075) lists the AgentEvent tags.
    row = next(json.loads(line) for line in (dk.SHARED / "fixtures" / "cases-pinned" / "cases.jsonl").open()
               if line.startswith('{') and '"075-' in line)
    listed = row["message"].split("expected one of ", 1)[1].rsplit(" at line", 1)[0]
    assert tuple(k.strip("`") for k in listed.split(", ")) == rg.EVENT_KINDS
    assert len(rg.EVENT_KINDS) == 51


def test_rich_sessions_carry_every_event_kind_and_binding():
    bindings = set()
    for value in _rich_values():
        assert set(rg.event_kinds(value)) == set(rg.EVENT_KINDS)
        bindings |= set(rg.binding_kinds(value))
    assert bindings >= RICH_BINDINGS, sorted(RICH_BINDINGS - bindings)
    versions = {b.split("-")[1] for b in bindings if b.startswith("durable-")}
    assert versions == {"v5", "v4", "v3", "v2", "v1"}


def test_rich_digests_are_the_pinned_ones():
    # FORMAT.md 4.3 and `oracle2 pins`
    assert rg.transform_binding(rg.CONSERVATIVE) == {
        "schema": "a3s.code.tool-result-transform-binding.v1", "transform_algorithm": "a3s.code.tool-result-transform.v1",
        "policy_digest": "sha256:97c77cb8bad0bdc7e52ec3a127f5c0b32484a5cc6fb58a59d78b681bec4972dc",
        "binding_digest": "sha256:6a1912bff885439a928521e8ef26063c0d86826f9b9f107c9520d75ee97b8d86"}
    ce = rg.transform_binding(rg.CONTEXT_EFFICIENT)
    assert ce["policy_digest"] == "sha256:645f65e5d39e3f7aa77fade21ae2daa1e8ccbbc7a0775c94a7f2c38ec5f5b32d"
    assert ce["binding_digest"] == "sha256:906e9931692fa7860b7acb5fc0bb5c329f19aeb04976c913750893ad99cd5a27"
    # FORMAT.md 4.8: the capability snapshot digest of the pinned rich case's session binding
    p = dk.loads((dk.SHARED / "fixtures" / "cases-pinned" / "001-valid-rich-resume.payload.json").read_bytes())
    b = p["snapshot"]["session"]["cognitive_package_binding"]
    assert rg.cognitive_capability_digest(b) == b["capabilitySnapshotDigest"] == (
        "sha256:538a8cef8a543768992cd1bd260c51546ff7d08e6c2c65f9472194e3e961e1df")


def test_rich_f32_fields_hold_exact_f32_images():
    seen = 0
    for value in _rich_values(4):
        for ptr, v in dk._pointers(value):
            key = ptr.rsplit("/", 1)[-1]
            if key in rm.F32_KEYS and isinstance(v, float) and "/metadata" not in ptr and "/args" not in ptr:
                assert rg.f32(v) == v, ptr
                seen += 1
    assert seen > 40


def test_rich_mutations_reach_every_target():
    rng = random.Random(5)
    values = _rich_values(6)
    targets = collections.Counter()
    for i in range(2000):
        p = dk.loads(dk.encode(values[i % len(values)]))
        data, label, target = rm.mutate_rich(rng, p)
        assert isinstance(data, bytes) and label
        targets[target.split("@")[0]] += 1
    reached = {t for t in targets if not t.startswith("typed:alias")} | {
        "typed:" + t.split(":", 1)[1] for t in targets if t.startswith("typed:alias")}
    assert reached >= RICH_TARGETS, sorted(RICH_TARGETS - reached)


def test_rich_respell_keeps_the_json_value():
    rng = random.Random(2)
    data = dk.encode(_rich_values(1, 4)[0])
    kinds = collections.Counter()
    for _ in range(80):
        out, kind = rm.respell(rng, data)
        kinds[kind] += 1
        assert out != data and dk.loads(out) == dk.loads(data), kind
    assert set(kinds) == {"ws", "esc-key", "esc-value", "reorder", "pretty"}


def test_rich_generator_is_deterministic():
    assert _rich_values(2, 9) == _rich_values(2, 9)
    a, b = _rich_values(1, 9)[0], _rich_values(1, 9)[0]
    assert rm.mutate_rich(random.Random(1), a) == rm.mutate_rich(random.Random(1), b)


@pytest.fixture(scope="module")
def rich_result(oracle):
    return richrun.run_rich(oracle, RICH_SESSIONS, RICH_MUTATIONS, RICH_SEED)


@needs_oracle
def test_rich_sessions_are_accepted_by_the_reference_export(rich_result):
    r = rich_result
    # Refused only for a double that does not survive serde_json's own float reading (wide floats).
    assert r.sessions == RICH_SESSIONS and len(r.export_refused) <= RICH_SESSIONS // 4
    assert {x["reference"]["rule"] for x in r.export_refused} <= {"P-CANONICAL"}, r.export_refused[:3]
    assert set(r.event_kinds) == set(rg.EVENT_KINDS)
    assert set(r.bindings) >= RICH_BINDINGS, sorted(RICH_BINDINGS - set(r.bindings))
    assert not r.export_mismatches, [(m["label"], m["problems"]) for m in r.export_mismatches[:5]]


@needs_oracle
def test_rich_mutations_match_the_reference(rich_result):
    r = rich_result
    assert r.pairs == r.exported * (RICH_MUTATIONS + 1) + len(r.export_refused)
    assert not r.mismatches, "\n".join(richrun.report(r, 3)[-40:])


@needs_oracle
def test_rich_mutations_reach_the_binding_rules(rich_result):
    reached = {k for k in rich_result.by_rule if k}
    assert reached >= BINDING_RULES | {"P-PARSE", "P-CANONICAL", "S-TRANSFORM-POLICY", "L-COGNITIVE-MATCH",
                                       "L-CAPABILITY-MATCH"}, sorted(BINDING_RULES - reached)


# ---------------------------------------------------------------------------------------------
# Reproducers: minimal inputs where the engine and the reference disagreed (all fixed now:
# R2 in 0eccd82, R1/R3/R4 in 567bfce; kept as regression tests). An open discrepancy gets
# ``marks=pytest.mark.xfail(strict=True, reason="Rn")`` so the test flips when it is fixed.
# The golden with-resume payload with its session message's first content block replaced by
# BLOCK, the descriptor rebound (outer size/digest + descriptor digest). The reference verdicts
# are literals recorded with ``oracle2 verify`` (serde_json 1.0.151).
# ---------------------------------------------------------------------------------------------

P = "invalid session checkpoint payload: "
_TR = '{"content":"ok","is_error":null,"tool_use_id":"t1","trust":%s,"type":"tool_result"}'


def repro_pair(block: str, old: str = '{"text":"retain exact state","type":"text"}') -> tuple[bytes, bytes]:
    """The golden with-resume pair with the first occurrence of ``old`` (by default
    ``session.messages[0].content[0]``) replaced by ``block``, descriptor rebound."""
    g = dk.base_pairs()[0]
    i = g.payload.index(old.encode())
    payload = g.payload[:i] + block.encode() + g.payload[i + len(old.encode()):]
    return payload, dk.rebind_outer(payload, g.descriptor)


def _pparse(msg: str) -> dict:
    return {"ok": False, "rule": "P-PARSE", "code": "a3s.code.session_checkpoint.invalid_payload", "message": P + msg}


DRIFT_CANONICAL = {"ok": False, "rule": "P-CANONICAL", "code": "a3s.code.session_checkpoint.content_drift",
                   "message": "session checkpoint content drift: payload is not the exact canonical JSON encoding"}

REPRODUCERS = [
    # R1: internally tagged ContentBlock written as a JSON array (serde reads the tag from
    # element 0 via TaggedContentVisitor::visit_seq). The engine positioned the error after
    # the element instead of where serde_json's peek_invalid_type leaves it, and worded the
    # short-array error differently.
    pytest.param("[1]", _pparse("invalid type: integer `1`, expected variant identifier at line 1 column 260"),
                 id="R1a-seq-tag-integer"),
    pytest.param('[["a"]]', _pparse("invalid type: sequence, expected variant identifier at line 1 column 259"),
                 id="R1b-seq-tag-sequence"),
    pytest.param('["text"]', _pparse("invalid length 0, expected struct variant ContentBlock::Text with 1 element "
                                     "at line 1 column 267"),
                 id="R1c-seq-short"),
    pytest.param("[null]", _pparse("invalid type: null, expected variant identifier at line 1 column 263"),
                 id="R1d-seq-tag-null"),
    # R2: a non-string tag crashed the fast typed decode at 3f09865 (TypeError: unhashable
    # type); fixed in 0eccd82.
    pytest.param('{"text":"x","type":["x"]}',
                 _pparse("invalid type: sequence, expected variant identifier at line 1 column 277"),
                 id="R2a-tag-sequence"),
    pytest.param('{"text":"x","type":{"a":1}}',
                 _pparse("invalid type: map, expected variant identifier at line 1 column 277"),
                 id="R2b-tag-map"),
    # R3: unit-variant enum (tool_result.trust) as a map inside buffered (tagged) content:
    # serde's ContentRefDeserializer::deserialize_enum / unit_variant texts and acceptance.
    pytest.param(_TR % "{}", _pparse("invalid value: map, expected map with a single key at line 1 column 342"),
                 id="R3a-enum-empty-map"),
    pytest.param(_TR % '{"a":1,"b":2}',
                 _pparse("invalid value: map, expected map with a single key at line 1 column 353"),
                 id="R3b-enum-two-key-map"),
    pytest.param(_TR % '{"trusted":{}}', DRIFT_CANONICAL,
                 id="R3c-enum-unit-empty-map-accepted"),
    # R4: unit variant in map form with a non-unit value: serde says "expected unit".
    pytest.param(_TR % '{"trusted":1}', _pparse("invalid type: integer `1`, expected unit at line 1 column 353"),
                 id="R4a-buffered-unit-with-value"),
    pytest.param(('"state":{"Active":1}', '"state":"Active"'),
                 _pparse("invalid type: integer `1`, expected unit at line 1 column 1780"),
                 id="R4b-state-unit-with-integer"),
    pytest.param(('"status":{"executing":[]}', '"status":"executing"'),
                 _pparse("invalid type: sequence, expected unit at line 1 column 866"),
                 id="R4c-run-status-unit-with-sequence"),
    pytest.param(('"planning_mode":{"Auto":{}}', '"planning_mode":"Auto"'),
                 _pparse("invalid type: map, expected unit at line 1 column 1104"),
                 id="R4d-planning-mode-unit-with-map"),
    # Controls next to the reproducers (agree today).
    pytest.param(('"state":{"Active":null}', '"state":"Active"'), DRIFT_CANONICAL, id="ok-state-map-null"),
    pytest.param(('"state":{}', '"state":"Active"'), _pparse("expected value at line 1 column 1771"),
                 id="ok-state-empty-map"),
    pytest.param(('"context_usage":[0,200000,0.0,0]',
                  '"context_usage":{"max_tokens":200000,"percent":0.0,"turns":0,"used_tokens":0}'),
                 DRIFT_CANONICAL, id="ok-struct-as-sequence"),
    pytest.param(_TR % '{"trusted":null}', DRIFT_CANONICAL, id="ok-enum-unit-null"),
    pytest.param("[]", _pparse("missing field `type` at line 1 column 260"), id="ok-seq-empty"),
]


@pytest.mark.parametrize("block, reference", REPRODUCERS)
def test_reproducer(block, reference):
    payload, descriptor = repro_pair(*block) if isinstance(block, tuple) else repro_pair(block)
    assert dk.ours_verdict(payload, descriptor) == reference


@needs_oracle
@pytest.mark.parametrize("block, reference", [pytest.param(*p.values, id=p.id) for p in REPRODUCERS])
def test_reproducer_pins_are_the_reference(block, reference, oracle, tmp_path):
    payload, descriptor = repro_pair(*block) if isinstance(block, tuple) else repro_pair(block)
    (tmp_path / "p.json").write_bytes(payload)
    (tmp_path / "d.json").write_bytes(descriptor)
    got = oracle.verify(tmp_path / "p.json", tmp_path / "d.json")
    assert {k: got[k] for k in reference} == reference
