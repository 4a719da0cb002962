"""Every rule has a failing case: golden-based mutations pinned against the Rust reference.

The shared cases cover 25 rules. Each recipe below starts from a golden pair, breaks exactly
one thing, and (where needed) recomputes the digests in front of the target rule so evaluation
reaches it: descriptor rules after ``DS-EVIDENCE-DIGEST``/``DL-EVIDENCE-DIGEST`` need valid
evidence digests, payload rules need the outer ``size_bytes``/``content_digest`` and the
``descriptor_digest`` re-pointed at the new bytes ("rebind", fixtures/README.md).

The expected root causes (``ok``, ``rule``, ``code``, full ``message``) in
``data/rule_mutations.json`` were produced by the reference (``oracle2 verify``), not by the
engine. Re-record them with::

    .venv/bin/python tests/checkpoint/rules/test_rule_mutations.py --record

``test_pins_match_reference`` re-checks the pins against ``oracle2`` when it is built here
(``$ORACLE2``, default /tmp/reference/target/release/oracle2) and is skipped otherwise; all
other tests run anywhere.

Three rules can never be an import-path root cause and are asserted as findings instead:
``L-LOADABLE-VERSION`` (``L-SCHEMA`` fires first), ``X-SNAPSHOT-EVIDENCE`` and
``X-LOGICAL-EVIDENCE`` (host component checks). ``P-BOUND`` is checked from a size alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from inspector.checkpoint import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, Verdict, content_digest, domain_digest, encode, verify,
)
from inspector.checkpoint.digest import descriptor_digest_input, logical_evidence_input, snapshot_evidence_input

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
# the ground truth as tests/conftest.py picks it (this file also runs as a script to --record):
# an explicit $CHECKPOINT_SHARED, else the vendored tests/data/
SHARED = Path(os.environ.get("CHECKPOINT_SHARED") or ROOT / "tests" / "data")
GOLDEN = SHARED / "fixtures" / "golden"
CASES = SHARED / "fixtures" / "cases"
PINS_FILE = HERE / "data" / "rule_mutations.json"
ORACLE = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")
U64_MAX = (1 << 64) - 1

PREFIX_DESC = "invalid session checkpoint descriptor: "
PREFIX_PAY = "invalid session checkpoint payload: "
PREFIX_DRIFT = "session checkpoint content drift: "
CODE_DESC = "a3s.code.session_checkpoint.invalid_descriptor"
CODE_PAY = "a3s.code.session_checkpoint.invalid_payload"
CODE_DRIFT = "a3s.code.session_checkpoint.content_drift"


def _golden(name: str) -> tuple[dict, dict]:
    return (orjson.loads((GOLDEN / f"payload-{name}.json").read_bytes()),
            orjson.loads((GOLDEN / f"descriptor-{name}.json").read_bytes()))


# ---------------------------------------------------------------------------------------------
# Building mutated pairs
# ---------------------------------------------------------------------------------------------

def _redigest_evidence(d: dict) -> None:
    """Recompute the evidence digests from the descriptor's own (edited) evidence fields."""
    d["snapshot"]["evidence_digest"] = domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(d["snapshot"]))
    if d.get("logical_resume") is not None:
        d["logical_resume"]["evidence_digest"] = domain_digest(
            LOGICAL_DOMAIN, logical_evidence_input(d["logical_resume"]))


def _redigest_descriptor(d: dict) -> None:
    d["descriptor_digest"] = domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d))


def build(payload_edit=None, descriptor_edit=None, *, evidence=False, rebind=False, digest=False,
          base="with-resume") -> tuple[bytes, bytes]:
    """A golden pair with one edit.

    Args:
        payload_edit: ``f(payload_dict)`` applied in place; the payload is re-encoded canonically.
        descriptor_edit: ``f(descriptor_dict)`` applied in place.
        evidence: recompute both evidence digests after the descriptor edit.
        rebind: re-point the outer ``size_bytes``/``content_digest`` at the new payload bytes
            (component evidence left alone) and recompute ``descriptor_digest``.
        digest: recompute ``descriptor_digest`` only.
    """
    p, d = _golden(base)
    if payload_edit:
        payload_edit(p)
    payload = encode(p)
    if descriptor_edit:
        descriptor_edit(d)
    if evidence:
        _redigest_evidence(d)
    if rebind:
        d["size_bytes"] = len(payload)
        d["content_digest"] = content_digest(payload)
    if rebind or digest:
        _redigest_descriptor(d)
    return payload, encode(d)


def _set(path: str, value):
    """``descriptor_edit``/``payload_edit`` setting a slash path (no escaping needed here)."""
    def edit(doc):
        *parents, last = path.strip("/").split("/")
        node = doc
        for t in parents:
            node = node[int(t)] if isinstance(node, list) else node[t]
        node[int(last) if isinstance(node, list) else last] = value
    return edit


def immutable_binding(authority: str, maximum_bytes: int, *, digest_of: tuple | None = None) -> dict:
    """An ``ImmutableContentAdapterBindingV1``; its ``binding_digest`` is the declared-order
    (schema, authority_digest, maximum_bytes) domain digest (FORMAT.md 3.2/4.3), computed over
    ``digest_of = (authority, maximum_bytes)`` when given (to make it wrong on purpose)."""
    schema = "a3s.code.immutable-content-adapter-binding.v1"
    a, m = digest_of or (authority, maximum_bytes)
    declared = json.dumps({"schema": schema, "authority_digest": a, "maximum_bytes": m}, separators=(",", ":"))
    digest = "sha256:" + hashlib.sha256(schema.encode() + b"\x00" + declared.encode()).hexdigest()
    return {"schema": schema, "authority_digest": authority, "maximum_bytes": maximum_bytes, "binding_digest": digest}


AUTHORITY = "sha256:" + "3c" * 32


def _session(p):
    return p["snapshot"]["session"]


def _run0(p):
    return p["snapshot"]["run_records"][0]


def _add_subagent(parent: str):
    def edit(p):
        p["snapshot"]["subagent_tasks"].append({
            "task_id": "task-1", "parent_session_id": parent, "child_session_id": "session-checkpoint-1-child",
            "agent": "explore", "description": "look around", "status": "running", "started_ms": 1700000000100,
            "updated_ms": 1700000000200, "progress": []})
    return edit


#: A cognitive package binding that passes S-COGNITIVE (from cases-pinned 001; FORMAT.md 4.8).
COGNITIVE_BINDING = {
    "capabilitySnapshotDigest": "sha256:538a8cef8a543768992cd1bd260c51546ff7d08e6c2c65f9472194e3e961e1df",
    "generationDigest": "sha256:6bd6ca0fd3a4b68d93038ea7d0d363c742e8b7cceded54a839a886c861f44489",
    "knowledge": {
        "citationSchema": "a3s.use.okf-knowledge-citation.v1",
        "contentDigest": "sha256:54e4297730e4a784b98e350e2e08c4a48d829c34c764e17bd5c1a2538da213ee",
        "formatVersion": "okf-r0.2",
        "generationDigest": "sha256:6bd6ca0fd3a4b68d93038ea7d0d363c742e8b7cceded54a839a886c861f44489",
        "lifecycleGeneration": 3,
        "readSchema": "a3s.use.okf-knowledge-read-request.v1",
        "schema": "agentic.ontology.r0-knowledge-lease-binding.v1",
        "searchSchema": "a3s.use.okf-knowledge-search-request.v1",
        "surfaceId": "okf:acme/knowledge@main"
    },
    "lifecycleGeneration": 3,
    "limits": {
        "maxDocumentBytes": 6144,
        "maxResults": 4,
        "maxTotalBytes": 6144
    },
    "packageId": "acme/projected-knowledge",
    "packageVersion": "1.0.3",
    "schema": "a3s.code.cognitive-package-session-binding.v1"
}


def _add_event(sequence: int):
    def edit(p):
        _run0(p)["events"].append({"sequence": sequence, "timestamp_ms": 1700000000500,
                                   "event": {"type": "turn_start", "turn": 1}})
    return edit


def _both(*edits):
    def edit(doc):
        for e in edits:
            e(doc)
    return edit


def _edit_texts(snapshot: bool, logical: bool):
    def edit(p):
        if snapshot:
            _session(p)["messages"][0]["content"][0]["text"] = "retain exact state!"
        if logical:
            p["logical_resume"]["messages"][0]["content"][0]["text"] = "retain exact state?"
    return edit


#: name -> builder of (payload, descriptor). The verdicts are pinned in PINS_FILE.
RECIPES = {
    "D-FORMAT": lambda: build(descriptor_edit=_set("format", "a3s_code_session_checkpoint_v2")),
    "DS-SCHEMA": lambda: build(descriptor_edit=_set("snapshot/schema", "a3s.code.session-snapshot-evidence.v2")),
    "DS-SESSION-ID": lambda: build(descriptor_edit=_set("snapshot/session_id", "session\ncheckpoint-1")),
    "DS-SESSION-ID-blank": lambda: build(descriptor_edit=_set("snapshot/session_id", "\u3000\u00a0 ")),
    "DS-VERSION": lambda: build(descriptor_edit=_set("snapshot/snapshot_schema_version", 2)),
    "DS-CONTENT-DIGEST": lambda: build(descriptor_edit=_set(
        "snapshot/content_digest", "sha256:8E08A5AFBC93AE80421EE0A6D366B5B435FCB908A2698A2F4D00C63E862B7B10")),
    "DS-EVIDENCE-DIGEST": lambda: build(descriptor_edit=_set(
        "snapshot/evidence_digest", "sha256:76b51a55eecc62343df274dba53d051bfff4961541d36214458d6b1c5f9ad5ee")),
    "DL-SCHEMA": lambda: build(descriptor_edit=_set("logical_resume/schema", "a3s.code.logical-resume-evidence.v2")),
    "DL-RUN-ID": lambda: build(descriptor_edit=_set("logical_resume/source_run_id", "r" * 257)),
    "DL-RUN-ID-control": lambda: build(descriptor_edit=_set("logical_resume/source_run_id", "source\u0085run")),
    "DL-VERSION": lambda: build(descriptor_edit=_set("logical_resume/checkpoint_schema_version", 0)),
    "DL-ROUNDS": lambda: build(descriptor_edit=_set("logical_resume/completed_tool_rounds", 0)),
    "DL-SIZE": lambda: build(descriptor_edit=_set("logical_resume/size_bytes", 268435457)),
    "DL-SIZE-zero": lambda: build(descriptor_edit=_set("logical_resume/size_bytes", 0)),
    "DL-CONTENT-DIGEST": lambda: build(descriptor_edit=_set("logical_resume/content_digest", "sha256:" + "d1" * 31)),
    "DL-EVIDENCE-FORMAT": lambda: build(descriptor_edit=_set(
        "logical_resume/evidence_digest", "sha256:" + "76b51a55" * 7 + "76b51a5g")),
    # Valid evidence digests must be recomputed to get past DL-EVIDENCE-DIGEST.
    "D-SESSION-MATCH": lambda: build(descriptor_edit=_set("logical_resume/session_id", "session-checkpoint-2"),
                                     evidence=True),
    "D-CONTENT-DIGEST": lambda: build(descriptor_edit=_set(
        "content_digest", "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e")),
    "D-COMPONENT-SIZE": lambda: build(descriptor_edit=_set("snapshot/size_bytes", 2091), evidence=True),
    "D-COMPONENT-SIZE-logical": lambda: build(descriptor_edit=_set("logical_resume/size_bytes", 4096),
                                              evidence=True),
    "D-DIGEST-FORMAT": lambda: build(descriptor_edit=_set(
        "descriptor_digest", "sha256:8492AF9DA1760810869D7E0E25E8B3F7850E31152056596FED3C74872EFA1B44")),
    # Payload-side: rebind so X-BYTES passes.
    "P-SCHEMA": lambda: build(_set("schema", "a3s.code.session-checkpoint-payload.v2"), rebind=True),
    "S-IMMUTABLE": lambda: build(lambda p: _session(p).__setitem__(
        "immutable_content_adapter_binding", immutable_binding(AUTHORITY, 2097152, digest_of=(AUTHORITY, 1048576))),
        rebind=True),
    "S-IMMUTABLE-max-zero": lambda: build(lambda p: _session(p).__setitem__(
        "immutable_content_adapter_binding", immutable_binding(AUTHORITY, 0)), rebind=True),
    "S-RUN-OWNER": lambda: build(_set("snapshot/run_records/0/snapshot/session_id", "session-checkpoint-2"),
                                 rebind=True),
    "S-SUBAGENT-OWNER": lambda: build(_add_subagent("session-checkpoint-2"), rebind=True),
    "S-EVENT-COUNT-OVERFLOW": lambda: build(_add_event(U64_MAX), rebind=True),
    "L-SCHEMA": lambda: build(_set("logical_resume/schema_version", 0), rebind=True),
    "L-LOADABLE-VERSION": lambda: build(_set("logical_resume/schema_version", 2), rebind=True),
    "L-OWNER": lambda: build(_set("logical_resume/session_id", "session-checkpoint-2"), rebind=True),
    # A valid typed binding on the session only (the source run has none).
    "L-COGNITIVE-MATCH": lambda: build(lambda p: _session(p).__setitem__(
        "cognitive_package_binding", COGNITIVE_BINDING), rebind=True),
    "L-EVIDENCE-IDS": lambda: build(_both(_set("logical_resume/run_id", "r" * 257),
                                          _set("snapshot/run_records/0/snapshot/id", "r" * 257)), rebind=True),
    # Both components edited: the import path stops at X-DESCRIPTOR, the host checks fail.
    "X-COMPONENT-EVIDENCE": lambda: build(_edit_texts(True, True), rebind=True),
}

#: Recipes whose import-path root cause is a different rule than their name says.
ROOT_CAUSE_OF = {"L-LOADABLE-VERSION": "L-SCHEMA", "X-COMPONENT-EVIDENCE": "X-DESCRIPTOR"}


def _rule_of(name: str) -> str:
    """``"DS-SESSION-ID-blank"`` -> ``"DS-SESSION-ID"`` (variants carry a lowercase suffix)."""
    parts = name.split("-")
    while parts and parts[-1].islower():
        parts.pop()
    return ROOT_CAUSE_OF.get(name, "-".join(parts))


def _pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def _root(report) -> dict:
    rc = report.root_cause
    if rc is None:
        return {"ok": report.verified, "rule": None, "code": None, "message": None}
    return {"ok": False, "rule": rc.rule.id, "code": rc.rule.code, "message": rc.message}


# ---------------------------------------------------------------------------------------------
# The pinned root causes
# ---------------------------------------------------------------------------------------------

def test_every_recipe_is_pinned():
    assert sorted(_pins()) == sorted(RECIPES)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_root_cause_matches_reference_pin(name):
    pin = _pins()[name]
    assert pin["ok"] is False
    assert pin["rule"] == _rule_of(name)
    payload, descriptor = RECIPES[name]()
    assert _root(verify(payload, descriptor)) == pin


# A sample of the literal pins, spelled out so a reader sees what the data file holds.
@pytest.mark.parametrize("name, code, message", [
    ("DS-SESSION-ID", CODE_PAY,
     PREFIX_PAY + "snapshot session_id is empty, unbounded, or contains control characters"),
    ("DL-RUN-ID", CODE_PAY,
     PREFIX_PAY + "logical-resume source_run_id is empty, unbounded, or contains control characters"),
    ("D-COMPONENT-SIZE", CODE_DESC, PREFIX_DESC + "checkpoint component is larger than its containing payload"),
    ("S-IMMUTABLE", CODE_PAY,
     PREFIX_PAY + 'session snapshot "session-checkpoint-1" has an invalid immutable-content adapter binding: '
     "invalid immutable content adapter binding: binding_digest does not bind the authority and byte ceiling"),
    ("S-EVENT-COUNT-OVERFLOW", CODE_PAY,
     PREFIX_PAY + 'run "source-run" retained event sequence 18446744073709551615 cannot be represented by '
     "event_count"),
    ("L-EVIDENCE-IDS", CODE_PAY,
     PREFIX_PAY + "logical-resume source_run_id is empty, unbounded, or contains control characters"),
])
def test_literal_pins(name, code, message):
    pin = _pins()[name]
    assert (pin["code"], pin["message"]) == (code, message)
    payload, descriptor = RECIPES[name]()
    rc = verify(payload, descriptor).root_cause
    assert (rc.rule.id, rc.rule.code, rc.message) == (_rule_of(name), code, message)


@pytest.mark.skipif(not (os.path.isfile(ORACLE) and os.access(ORACLE, os.X_OK)), reason="oracle2 not built here")
def test_pins_match_reference(tmp_path):
    """The pins are what the reference says today (guards against a stale data file)."""
    pins = _pins()
    for name, recipe in sorted(RECIPES.items()):
        payload, descriptor = recipe()
        assert _oracle_verify(payload, descriptor, tmp_path) == pins[name], name


def _oracle_verify(payload: bytes, descriptor: bytes, tmp: Path) -> dict:
    (tmp / "p.json").write_bytes(payload)
    (tmp / "d.json").write_bytes(descriptor)
    out = subprocess.run([ORACLE, "verify", str(tmp / "p.json"), str(tmp / "d.json")], capture_output=True,
                         timeout=60)
    assert out.returncode in (0, 1), out.stderr
    return {k: json.loads(out.stdout)[k] for k in ("ok", "rule", "code", "message")}


# ---------------------------------------------------------------------------------------------
# Rules that are never the import-path root cause
# ---------------------------------------------------------------------------------------------

#: Rules FORMAT.md says cannot fire here (or only on a non-64-bit build / a serializer bug).
UNREACHABLE = ("S-SESSION-MATCH", "L-ADDRESS", "P-LENGTH-REPR", "L-TURN-REPR", "E-ENCODING")


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_unreachable_rules_never_fail(name):
    r = verify(*RECIPES[name]())
    assert [rid for rid in UNREACHABLE if r.for_rule(rid).failed] == []


def test_loadable_version_fails_behind_l_schema():
    payload, descriptor = RECIPES["L-LOADABLE-VERSION"]()
    r = verify(payload, descriptor)
    assert r.root_cause.rule.id == "L-SCHEMA"
    assert r.root_cause.message == PREFIX_PAY + "loop checkpoint is not the exact portable v1 schema"
    f = r.for_rule("L-LOADABLE-VERSION")
    assert f.verdict is Verdict.FAIL
    assert f.message == (PREFIX_PAY + "loop checkpoint for run source-run has schema version 2 but this build "
                         "supports at most 1; refusing to resume from an incompatible future checkpoint")


def test_loadable_version_passes_for_version_zero():
    payload, descriptor = RECIPES["L-SCHEMA"]()
    r = verify(payload, descriptor)
    assert r.root_cause.rule.id == "L-SCHEMA"
    assert r.for_rule("L-LOADABLE-VERSION").verdict is not Verdict.FAIL


SNAPSHOT_EVIDENCE_MSG = PREFIX_DRIFT + "snapshot evidence does not match the exact supplied Session snapshot"
LOGICAL_EVIDENCE_MSG = PREFIX_DRIFT + "logical-resume evidence does not match the exact supplied loop checkpoint"


@pytest.mark.parametrize("snapshot, logical", [(True, True), (True, False), (False, True)])
def test_component_evidence_host_checks(snapshot, logical):
    payload, descriptor = build(_edit_texts(snapshot, logical), rebind=True)
    r = verify(payload, descriptor)
    assert _root(r) == {"ok": False, "rule": "X-DESCRIPTOR", "code": CODE_DRIFT,
                        "message": PREFIX_DRIFT + "descriptor does not match the decoded checkpoint components"}
    xs, xl = r.for_rule("X-SNAPSHOT-EVIDENCE"), r.for_rule("X-LOGICAL-EVIDENCE")
    assert xs.failed is snapshot and xl.failed is logical
    if snapshot:
        assert (xs.rule.code, xs.message) == (CODE_DRIFT, SNAPSHOT_EVIDENCE_MSG)
    if logical:
        assert (xl.rule.code, xl.message) == (CODE_DRIFT, LOGICAL_EVIDENCE_MSG)


def test_component_evidence_host_checks_on_case_26():
    r = verify((CASES / "26-p-flip-text-rebind.payload.json").read_bytes(),
               (CASES / "26-p-flip-text-rebind.descriptor.json").read_bytes())
    assert r.root_cause.rule.id == "X-DESCRIPTOR"
    failed = {f.rule.id for f in r.failed()}
    assert failed & {"X-SNAPSHOT-EVIDENCE", "X-LOGICAL-EVIDENCE"}
    for rid, msg in (("X-SNAPSHOT-EVIDENCE", SNAPSHOT_EVIDENCE_MSG), ("X-LOGICAL-EVIDENCE", LOGICAL_EVIDENCE_MSG)):
        if rid in failed:
            assert r.for_rule(rid).message == msg
    assert not any(f.rule.import_path and f.rule.id != "X-DESCRIPTOR" for f in r.failed())


def test_p_bound_from_size_alone():
    descriptor = (GOLDEN / "descriptor-with-resume.json").read_bytes()
    r = verify(None, descriptor, payload_size=268435457)
    f = r.for_rule("P-BOUND")
    assert f.failed
    assert (f.rule.code, f.message) == (CODE_PAY, _pins_extra()["P-BOUND"]["message"])
    assert r.root_cause.rule.id == "P-BOUND"
    assert not r.verified


def test_p_bound_at_the_ceiling_passes():
    descriptor = (GOLDEN / "descriptor-with-resume.json").read_bytes()
    r = verify(None, descriptor, payload_size=268435456)
    assert r.for_rule("P-BOUND").verdict is not Verdict.FAIL


def _pins_extra() -> dict:
    return json.loads((HERE / "data" / "rule_mutations_extra.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# The whole report is sensible
# ---------------------------------------------------------------------------------------------

def _case(name: str):
    return verify((CASES / f"{name}.payload.json").read_bytes(), (CASES / f"{name}.descriptor.json").read_bytes())


def test_flip_byte_is_a_binding_failure_not_a_canonical_one():
    r = _case("25-p-flip-byte")
    assert r.root_cause.rule.id == "X-BYTES"
    assert r.root_cause.message == PREFIX_DRIFT + "descriptor does not match the exact supplied bytes"
    assert not r.for_rule("P-CANONICAL").failed
    assert not r.for_rule("P-PARSE").failed
    assert r.for_rule("D-DIGEST").verdict is Verdict.PASS


def test_pretty_payload_notes_whitespace():
    r = _case("28-p-pretty")
    f = r.for_rule("P-CANONICAL")
    assert r.root_cause is f
    assert f.message == PREFIX_DRIFT + "payload is not the exact canonical JSON encoding"
    assert any("whitespace" in n for n in f.notes)
    assert f.locations and f.locations[0].source == "payload"


def test_golden_reports_no_failure_and_sane_verdicts():
    for name in ("with-resume", "semantic-only"):
        r = verify((GOLDEN / f"payload-{name}.json").read_bytes(), (GOLDEN / f"descriptor-{name}.json").read_bytes())
        assert r.verified and r.ok and r.root_cause is None and r.failed() == []
        assert r.expected_descriptor == (GOLDEN / f"descriptor-{name}.json").read_bytes()
        assert r.canonical_bytes == (GOLDEN / f"payload-{name}.json").read_bytes()
        verdicts = {f.rule.id: f.verdict for f in r.findings}
        assert verdicts["X-BYTES"] is Verdict.PASS and verdicts["X-DESCRIPTOR"] is Verdict.PASS
        lr = Verdict.PASS if name == "with-resume" else Verdict.NOT_APPLICABLE
        assert verdicts["L-OWNER"] is lr and verdicts["DL-SCHEMA"] is lr


def test_descriptor_rule_failure_leaves_payload_rules_passing():
    payload, descriptor = RECIPES["D-FORMAT"]()
    r = verify(payload, descriptor)
    # The edited format is also outside the digest and the rebuilt descriptor, nothing else.
    assert [f.rule.id for f in r.failed() if f.rule.import_path] == ["D-FORMAT", "D-DIGEST", "X-DESCRIPTOR"]
    assert r.for_rule("P-CANONICAL").verdict is Verdict.PASS
    assert r.expected_descriptor == (GOLDEN / "descriptor-with-resume.json").read_bytes()


def test_immutable_binding_helper_reproduces_case_07():
    p = orjson.loads((CASES / "07-valid-immutable-binding.payload.json").read_bytes())
    b = p["snapshot"]["session"]["immutable_content_adapter_binding"]
    assert immutable_binding(b["authority_digest"], b["maximum_bytes"]) == b


def test_valid_immutable_binding_is_accepted():
    payload, descriptor = build(lambda p: _session(p).__setitem__(
        "immutable_content_adapter_binding", immutable_binding(AUTHORITY, 2097152)), rebind=True)
    r = verify(payload, descriptor)
    assert r.for_rule("S-IMMUTABLE").verdict is Verdict.PASS
    # The snapshot component changed, so only the stale evidence remains.
    assert r.root_cause.rule.id == "X-DESCRIPTOR"


# ---------------------------------------------------------------------------------------------
# Recording (run as a script)
# ---------------------------------------------------------------------------------------------

def _record() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pins = {name: _oracle_verify(*recipe(), tmp) for name, recipe in sorted(RECIPES.items())}
        # P-BOUND: a 256 MiB + 1 byte (sparse) payload with the golden descriptor.
        big = tmp / "big.json"
        with open(big, "wb") as f:
            f.truncate(268435457)
        (tmp / "d.json").write_bytes((GOLDEN / "descriptor-with-resume.json").read_bytes())
        out = subprocess.run([ORACLE, "verify", str(big), str(tmp / "d.json")], capture_output=True, timeout=300)
        extra = {"P-BOUND": {k: json.loads(out.stdout)[k] for k in ("ok", "rule", "code", "message")}}
    PINS_FILE.parent.mkdir(exist_ok=True)
    PINS_FILE.write_text(json.dumps(pins, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (HERE / "data" / "rule_mutations_extra.json").write_text(
        json.dumps(extra, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, pin in sorted(pins.items()):
        print(f"{name:28} {pin['rule']:22} {pin['message']}")
    print(f"{'P-BOUND':28} {extra['P-BOUND']['rule']:22} {extra['P-BOUND']['message']}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        _record()
    else:
        print(__doc__)
