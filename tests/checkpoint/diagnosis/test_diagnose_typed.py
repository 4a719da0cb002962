"""P-CANONICAL diagnosis of the typed hazards (FORMAT.md 3.1 table, 4.13-4.16, 7.7-7.8).

Every typed ``P-CANONICAL`` case of cases-pinned is explained by one difference, named in the
payload's own terms, at the pointer the reference's re-encoding changes. Constructed cases start
from the golden payload (canonical encoder, descriptor re-pointed); their root cause is pinned from
``oracle2 verify`` and re-checked when it is built here. When oracle2 is built, the engine's
re-encoding of every typed case is also compared with the reference's own (``oracle2 export``),
so the diagnosis explains the difference the reference makes."""

import json
import subprocess
from types import SimpleNamespace

import orjson
import pytest

from inspector.checkpoint import Context, encode, parse_value, verify
from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical
from inspector.checkpoint.diagnosis.hazards import timestamp_change
from tests.builders import HAVE_ORACLE, ORACLE, golden, oracle_verify, rebind, write_pair
from tests.conftest import CASES_PINNED

DRIFT = {"ok": False, "rule": "P-CANONICAL", "code": "a3s.code.session_checkpoint.content_drift",
         "message": "session checkpoint content drift: payload is not the exact canonical JSON encoding"}

#: case id -> (root-cause pointer, the one explanation line after "first differing byte")
PINNED = {
    "076-typed-event-unknown-key": (
        "/snapshot/run_records/1/events/0/event/attempt",
        "unknown key, dropped by the reference's decode: first at byte 13141 at /snapshot/run_records/1/events/0/event/"
        "attempt; key 'attempt' is not a field of agent_start event (which does not deny unknown fields: the key is "
        "dropped on read)"),
    "077-typed-tool-end-args-null": (
        "/snapshot/run_records/1/events/12/event/args",
        "null for a key the reference omits: first at byte 8604 at /snapshot/run_records/1/events/12/event/args; "
        "'args': null is dropped from the tool_end event (an optional field written only when set, or an unknown key)"),
    "078-typed-memory-importance-f32": (
        "/snapshot/run_records/1/events/22/event/importance",
        "f32 field value that is not the exact widened image of an f32: first at byte 11505 at /snapshot/run_records/1/"
        "events/22/event/importance; memory_stored.importance is an f32: 0.7 is written back as 0.699999988079071"),
    "079-typed-goal-progress-f32": (
        "/snapshot/run_records/0/events/34/event/goal/progress",
        "f32 field value that is not the exact widened image of an f32: first at byte 9501 at /snapshot/run_records/0/"
        "events/34/event/goal/progress; AgentGoal.progress is an f32: 0.1 is written back as 0.10000000149011612"),
    "081-typed-cognitive-as-array": (
        "/snapshot/session/cognitive_package_binding",
        "value written in a form the reference reads but writes differently: first at byte 14366 at /snapshot/session/"
        "cognitive_package_binding; CognitivePackageBindingV1 written as a JSON array: serde reads a sequence into a "
        "struct in field order, the reference writes it back as an object"),
    "082-typed-durable-defaults": (
        "/snapshot/session/durable_memory_binding/contextIdProfile",
        "field missing from the file that the reference always writes: first at byte 5739 at /snapshot/session/"
        "durable_memory_binding/contextIdProfile (2 places); the reference writes contextIdProfile = "
        "\"a3s.code.memory.context.host-id.v0\" in DurableMemoryBindingV1"),
    "083-typed-durable-unknown-key": (
        "/snapshot/session/durable_memory_binding/leaseId",
        "unknown key, dropped by the reference's decode: first at byte 8060 at /snapshot/session/durable_memory_binding/"
        "leaseId; key 'leaseId' is not a field of DurableMemoryBindingV1 (which does not deny unknown fields: the key "
        "is dropped on read)"),
    "084-typed-recall-score-f32": (
        "/snapshot/session/durable_memory_binding/recallPolicy/minLexicalScore",
        "f32 field value that is not the exact widened image of an f32: first at byte 19021 at /snapshot/session/"
        "durable_memory_binding/recallPolicy/minLexicalScore; DurableMemoryRecallPolicy.minLexicalScore is an f32: "
        "0.35 is written back as 0.3499999940395355"),
    "086-typed-task-alias": (
        "/snapshot/session/tasks/0/description",
        "task text under the alias `description` (written back as `content`): first at byte 24985 at /snapshot/session/"
        "tasks/0/description; Task.content written under its read-only alias `description`: A3S Code reads it and "
        "always writes `content`"),
    "088-typed-permission-plain-string": (
        "/snapshot/session/config/permission_policy/allow/2",
        "permission rule as a plain string (written back as {\"rule\": ...}): first at byte 20751 at /snapshot/session/"
        "config/permission_policy/allow/2; PermissionRule written as a plain string: A3S Code reads that form and "
        "always writes the object {\"rule\": ...}"),
    "089-typed-permission-default": (
        "/snapshot/session/config/permission_policy/default_decision",
        "field missing from the file that the reference always writes: first at byte 4680 at /snapshot/session/config/"
        "permission_policy/default_decision; the reference writes default_decision = \"ask\" in PermissionPolicy"),
    "090-typed-yolo-duplicate": (
        "/snapshot/session/config/confirmation_policy/yolo_lanes",
        "a lane repeated in ConfirmationPolicy.yolo_lanes (a set: written back once): first at byte 20589 at /snapshot/"
        "session/config/confirmation_policy/yolo_lanes; ConfirmationPolicy.yolo_lanes lists Query more than once: it "
        "is a set, so A3S Code keeps each lane once and writes it back once"),
    "092-typed-queue-default": (
        "/snapshot/session/config/queue_config/controlMaxConcurrency",
        "field missing from the file that the reference always writes: first at byte 17149 at /snapshot/session/config/"
        "queue_config/controlMaxConcurrency; the reference writes controlMaxConcurrency = 4 in SessionQueueConfig"),
    "095-typed-cost-offset-zero": (
        "/snapshot/session/cost_records/0/timestamp",
        "LlmCostRecord.timestamp not as A3S Code writes it (UTC, Z, 0/3/6/9 fraction digits): first at byte 22507 at "
        "/snapshot/session/cost_records/0/timestamp; LlmCostRecord.timestamp: the reference changes the offset +00:00 "
        "(converted to UTC, written Z)"),
    "096-typed-cost-offset-two": (
        "/snapshot/session/cost_records/0/timestamp",
        "LlmCostRecord.timestamp not as A3S Code writes it (UTC, Z, 0/3/6/9 fraction digits): first at byte 7713 at "
        "/snapshot/session/cost_records/0/timestamp; LlmCostRecord.timestamp: the reference changes the offset +02:00 "
        "(converted to UTC, written Z)"),
    "097-typed-cost-usd-missing": (
        "/snapshot/session/cost_records/0/cost_usd",
        "field missing from the file that the reference always writes: first at byte 15453 at /snapshot/session/"
        "cost_records/0/cost_usd; the reference writes cost_usd = null in LlmCostRecord"),
    "099-typed-trace-details-null": (
        "/snapshot/trace_events/1/details",
        "null for a key the reference omits: first at byte 21631 at /snapshot/trace_events/1/details; 'details': null "
        "is dropped from TraceEvent (an optional field written only when set, or an unknown key)"),
    "100-typed-run-control-turn-id": (
        "/snapshot/run_records/0/events/40/event/turn_id",
        "field missing from the file that the reference always writes: first at byte 10641 at /snapshot/run_records/0/"
        "events/40/event/turn_id; the reference writes turn_id = null in the run_control_applied event"),
    "101-typed-input-delta-id-null": (
        "/snapshot/run_records/0/events/8/event/id",
        "null for a key the reference omits: first at byte 1943 at /snapshot/run_records/0/events/8/event/id; 'id': "
        "null is dropped from the tool_input_delta event (an optional field written only when set, or an unknown key)"),
    "102-typed-budget-integer": (
        "/snapshot/run_records/0/events/41/event/limit",
        "number spelled differently from the reference: first at byte 10575 at /snapshot/run_records/0/events/41/event/"
        "limit; 100000 is written 100000.0"),
}


def _typed_canonical_cases() -> list[str]:
    rows = [json.loads(x) for x in (CASES_PINNED / "cases.jsonl").read_bytes().split(b"\n") if x.strip()]
    return [r["id"] for r in rows if "-typed-" in r["id"] and r["rule"] == "P-CANONICAL"]


def _case(name: str) -> tuple[bytes, bytes]:
    return ((CASES_PINNED / f"{name}.payload.json").read_bytes(), (CASES_PINNED / f"{name}.descriptor.json").read_bytes())


def test_every_typed_canonical_case_is_pinned_here():
    assert sorted(PINNED) == _typed_canonical_cases()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_typed_case_is_explained_in_its_own_terms(name):
    report = verify(*_case(name))
    rc = report.root_cause
    pointer, line = PINNED[name]
    assert rc.rule.id == "P-CANONICAL" and rc.locations[0].pointer == pointer
    assert [n for n in rc.notes if not n.startswith("first differing byte")] == [line]


@pytest.mark.skipif(not HAVE_ORACLE, reason="oracle2 (Rust reference) not built here; set ORACLE2")
@pytest.mark.parametrize("name", sorted(PINNED))
def test_engine_reencodes_typed_case_as_the_reference_does(name):
    export = subprocess.run([ORACLE, "export", str(CASES_PINNED / f"{name}.payload.json")], capture_output=True)
    assert export.returncode == 0
    assert Context(_case(name)[0], None).canonical == export.stdout


# ---------------------------------------------------------------------------------------------
# Constructed from the golden payload

def _session(edit):
    def apply(p):
        edit(p["snapshot"]["session"])
    return apply


CONSTRUCTED = {
    "permission-string": (_session(lambda s: s["config"].update(permission_policy={
        "allow": ["Bash(ls)"], "ask": [], "deny": [], "default_decision": "ask", "enabled": True})),
        "/snapshot/session/config/permission_policy/allow/0",
        "permission rule as a plain string (written back as {\"rule\": ...}): first at byte 1110 at /snapshot/session/"
        "config/permission_policy/allow/0; PermissionRule written as a plain string: A3S Code reads that form and "
        "always writes the object {\"rule\": ...}"),
    "task-alias": (_session(lambda s: s.update(tasks=[
        {"id": "t1", "description": "write the test", "status": "pending", "priority": "medium"}])),
        "/snapshot/session/tasks/0/description",
        "task text under the alias `description` (written back as `content`): first at byte 1788 at /snapshot/session/"
        "tasks/0/description; Task.content written under its read-only alias `description`: A3S Code reads it and "
        "always writes `content`"),
    "cost-fraction": (_session(lambda s: s.update(cost_records=[
        {"model": "m", "provider": "p", "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost_usd": 0.5,
         "timestamp": "2026-09-01T10:00:00.5Z", "session_id": None}])),
        "/snapshot/session/cost_records/0/timestamp",
        "LlmCostRecord.timestamp not as A3S Code writes it (UTC, Z, 0/3/6/9 fraction digits): first at byte 1706 at "
        "/snapshot/session/cost_records/0/timestamp; LlmCostRecord.timestamp: the reference changes the fraction .5 "
        "(written with 0, 3, 6 or 9 digits: .500)"),
    "context-percent-f32": (_session(lambda s: s["context_usage"].update(percent=0.3)),
        "/snapshot/session/context_usage/percent",
        "f32 field value that is not the exact widened image of an f32: first at byte 1546 at /snapshot/session/"
        "context_usage/percent; ContextUsage.percent is an f32: 0.3 is written back as 0.30000001192092896"),
    "confirmation-unknown-key": (_session(lambda s: s["config"].update(confirmation_policy={
        "default_timeout_ms": 30000, "enabled": True, "note": "x", "timeout_action": "Reject", "yolo_lanes": []})),
        "/snapshot/session/config/confirmation_policy/note",
        "unknown key, dropped by the reference's decode: first at byte 1067 at /snapshot/session/config/"
        "confirmation_policy/note; key 'note' is not a field of ConfirmationPolicy (which does not deny unknown "
        "fields: the key is dropped on read)"),
}


def _build(tmp_path, name):
    p, d = golden()
    CONSTRUCTED[name][0](p)
    payload = encode(p)
    return write_pair(tmp_path, name, payload, rebind(payload, d))


@pytest.mark.parametrize("name", sorted(CONSTRUCTED))
def test_constructed_hazard_is_explained(tmp_path, name):
    pp, dp = _build(tmp_path, name)
    report = verify(pp.read_bytes(), dp.read_bytes())
    rc = report.root_cause
    _edit, pointer, line = CONSTRUCTED[name]
    assert (rc.rule.id, rc.rule.code, rc.message) == (DRIFT["rule"], DRIFT["code"], DRIFT["message"])
    assert rc.locations[0].pointer == pointer
    assert [n for n in rc.notes if not n.startswith("first differing byte")] == [line]


@pytest.mark.skipif(not HAVE_ORACLE, reason="oracle2 (Rust reference) not built here; set ORACLE2")
@pytest.mark.parametrize("name", sorted(CONSTRUCTED))
def test_constructed_hazard_pins_match_reference(tmp_path, name):
    assert oracle_verify(*_build(tmp_path, name)) == DRIFT


def _stub(file_value_bytes: bytes, reference_value) -> SimpleNamespace:
    """A context whose payload is ``file_value_bytes`` and whose re-encoding is ``reference_value``."""
    return SimpleNamespace(payload=file_value_bytes, canonical=encode(reference_value), pay=reference_value,
                           pay_tree=parse_value(file_value_bytes, nodes=True)[1])


def test_yolo_lanes_in_another_order_is_not_tampering():
    """Two lanes: the reference writes the hash set in an order of its own (random per process), so a
    genuine artifact can differ from its re-encoding in order alone (FORMAT.md 3.1, 7.8)."""
    p, _ = golden()
    p["snapshot"]["session"]["config"]["confirmation_policy"] = {
        "default_timeout_ms": 30000, "enabled": True, "timeout_action": "Reject", "yolo_lanes": ["Execute", "Query"]}
    data = encode(p)
    ref = orjson.loads(data)
    ref["snapshot"]["session"]["config"]["confirmation_policy"]["yolo_lanes"] = ["Query", "Execute"]
    diag = diagnose_canonical(_stub(data, ref))
    assert diag.classes == ["set-order"]
    assert (diag.pointer, diag.expected, diag.actual) == (
        "/snapshot/session/config/confirmation_policy/yolo_lanes", '["Query","Execute"]', '["Execute","Query"]')
    assert diag.notes[1] == (
        "ConfirmationPolicy.yolo_lanes in an order that cannot be reproduced (a hash set; not tampering): first at "
        "byte 1106 at /snapshot/session/config/confirmation_policy/yolo_lanes; ConfirmationPolicy.yolo_lanes is a hash "
        "set: A3S Code writes its lanes in an order it cannot reproduce itself when it reads them back, so the "
        "reference rejects this artifact too (or accepts it, at random, from one run to the next); this is not "
        "tampering")


def test_yolo_lanes_with_two_lanes_gets_a_note_on_any_verdict(tmp_path):
    p, d = golden()
    p["snapshot"]["session"]["config"]["confirmation_policy"] = {
        "default_timeout_ms": 30000, "enabled": True, "timeout_action": "Reject", "yolo_lanes": ["Query", "Execute"]}
    payload = encode(p)
    report = verify(payload, rebind(payload, d, components=True))
    assert report.verified and report.generation is None
    assert report.notes == [
        "order not reproducible: /snapshot/session/config/confirmation_policy/yolo_lanes (ConfirmationPolicy."
        "yolo_lanes) holds 2 lanes (Query, Execute): A3S Code writes this hash set in an order it cannot reproduce "
        "itself when it reads the artifact back, so the reference accepts or rejects these same bytes (P-CANONICAL) "
        "at random from one run to the next; this verdict keeps the order as written, and a rejection for this "
        "reason is not tampering"]
    spaced = payload + b" "  # drift elsewhere: the same sentence rides along in P-CANONICAL's notes, once in the text
    failed = verify(spaced, rebind(spaced, d)).root_cause
    assert failed.rule.id == "P-CANONICAL" and failed.notes[-1] == report.notes[0]
    one = golden()[0]
    assert verify(encode(one), None).notes == []


@pytest.mark.parametrize("text, change", [
    ("2026-09-01T12:00:00+02:00", "the offset +02:00 (converted to UTC, written Z)"),
    ("2026-09-01T10:00:00+00:00", "the offset +00:00 (converted to UTC, written Z)"),
    ("2026-09-01T10:00:00.5Z", "the fraction .5 (written with 0, 3, 6 or 9 digits: .500)"),
    ("2026-09-01T10:00:00.000Z", "the fraction .000 (written with 0, 3, 6 or 9 digits: none)"),
    ("2026-09-01T10:00:00.12340Z", "the fraction .12340 (written with 0, 3, 6 or 9 digits: .123400)"),
    ("2026-09-01T10:00:00.123400Z", "its spelling"),
    ("2026-09-01T10:00:00.1234Z", "the fraction .1234 (written with 0, 3, 6 or 9 digits: .123400)"),
    ("2026-09-01 10:00:00.5+01:00", "the offset +01:00 (converted to UTC, written Z) and the fraction .5 (written "
                                    "with 0, 3, 6 or 9 digits: .500) and the date-time separator"),
    ("2026-09-01T10:00:00.500Z", "its spelling"),
])
def test_timestamp_change_names_what_chrono_rewrites(text, change):
    assert timestamp_change(text) == change


@pytest.mark.parametrize("value, reason", [
    (b"1e400", "number out of range at line 1 column 19485"),
    (b"[" * 100000 + b"]" * 100000, "recursion limit exceeded at line 1 column 19605"),
    (b'{"a":' * 500 + b"1" + b"}" * 500, "recursion limit exceeded at line 1 column 20101"),
])
def test_unknown_value_not_json_on_its_own_is_placed_at_its_start(value, reason):
    """An unknown key's value that a plain parse rejects (out of range, too deep): the note gives
    where the value starts (byte 19480), not where the parse failed inside it."""
    rich = (CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes()
    i = rich.index(b'"session":{') + len(b'"session":{')
    payload = rich[:i] + b'"zzzz_unknown":' + value + b"," + rich[i:]
    assert i + len(b'"zzzz_unknown":') == 19480
    descriptor = orjson.loads((CASES_PINNED / "001-valid-rich-resume.descriptor.json").read_bytes())
    rc = verify(payload, rebind(payload, descriptor)).root_cause
    assert rc.rule.id == "P-CANONICAL"
    assert [n for n in rc.notes if n.startswith("unknown key")] == [
        "unknown key, dropped by the reference's decode: first at byte 19480; an unknown key's value is skipped "
        f"unvalidated by the reference and is not valid JSON data on its own ({reason})"]
