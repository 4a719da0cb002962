"""Typed decode (serde derive emulation) and its orjson fast path (FORMAT.md 4)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.checkpoint import SerdeError, decode, encode
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.read.fastpath import NotFast, decode_fast
from inspector.checkpoint.schema.typed import decode_value, rust_debug_str, widen_f32
from tests.conftest import CASES, GOLDEN, SHARED, load_cases

PAYLOADS = [p.read_bytes() for p in sorted(GOLDEN.glob("payload-*.json"))] + [
    (CASES / c["payload"]).read_bytes() for c in load_cases()]


def _slow(data):
    try:
        return decode(data, S.PAYLOAD)
    except SerdeError as e:
        return ("error", str(e))


def _fast(data):
    try:
        return decode_fast(data, S.PAYLOAD)
    except NotFast:
        return None


@pytest.mark.parametrize("data", PAYLOADS)
def test_fast_path_equals_exact_path_or_declines(data):
    fast, slow = _fast(data), _slow(data)
    if fast is not None:
        assert fast == slow and encode(slow) == data
    else:
        # declined: the exact path must show the file is not canonical or does not decode
        assert isinstance(slow, tuple) or encode(slow) != data


def test_fast_path_accepts_every_valid_case():
    valid = [c for c in load_cases() if c["ok"]]
    assert len(valid) == 9
    for c in valid:
        assert _fast((CASES / c["payload"]).read_bytes()) is not None, c["id"]


@pytest.mark.parametrize("mutation", [
    (b'"total_cost":0.0', b'"total_cost":0.9999999999999999'),  # serde misreads: must decline
    (b'"max_context_length":128000', b'"max_context_length":4294967296'),  # u32 overflow
    (b'"created_at":1700000000', b'"created_at":9223372036854775808'),  # i64 overflow
    (b'"tasks":[]', b'"tasks":' + b"[" * 127 + b"]" * 127),  # deeper than serde allows
])
def test_fast_path_declines_what_serde_reads_differently(mutation):
    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    assert mutation[0] in data
    mutated = data.replace(*mutation)
    assert _fast(mutated) is None
    assert isinstance(_slow(mutated), tuple) or encode(_slow(mutated)) != mutated


_GOLDEN = (GOLDEN / "payload-with-resume.json").read_bytes()


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_GOLDEN) - 1), st.sampled_from([b"0", b"9", b"-", b".", b"e", b'"', b"{", b"]", b",", b"\\", b" ", b"\xff", b""]))
def test_fast_and_exact_agree_under_byte_mutation(pos, replacement):
    data = _GOLDEN[:pos] + replacement + _GOLDEN[pos + 1:]
    fast, slow = _fast(data), _slow(data)
    if fast is not None:
        assert fast == slow and encode(slow) == data
    else:
        assert isinstance(slow, tuple) or encode(slow) != data


_RICH_PAYLOAD = (SHARED / "fixtures" / "cases-pinned" / "001-valid-rich-resume.payload.json").read_bytes()


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_RICH_PAYLOAD) - 1),
       st.sampled_from([b"0", b"9", b"-", b".", b"e", b'"', b"{", b"]", b",", b"\\", b" ", b"\xff", b"", b"Z", b"1"]))
def test_fast_and_exact_agree_under_byte_mutation_of_typed_events_and_policies(pos, replacement):
    """The same property over a payload with every newly typed part (events, bindings, policies,
    cost timestamps, f32 fields; FORMAT.md 4.7-4.16)."""
    data = _RICH_PAYLOAD[:pos] + replacement + _RICH_PAYLOAD[pos + 1:]
    fast, slow = _fast(data), _slow(data)
    if fast is not None:
        assert fast == slow and encode(slow) == data
    else:
        assert isinstance(slow, tuple) or encode(slow) != data


_TEXT = _GOLDEN.index(b"retain exact state")


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(0, 17), st.sampled_from("aZ09 _é日\U0001F600"), st.sampled_from(["", "99", "0.5", "1e+20"]))
def test_fast_path_accepts_and_equals_exact_path_on_canonical_edits(pos, ch, number):
    """Edits that keep the file canonical: the fast path must take them and agree exactly."""
    data = _GOLDEN[:_TEXT + pos] + ch.encode() + _GOLDEN[_TEXT + pos + 1:]
    if number:
        data = data.replace(b'"tool_calls_count":2', b'"tool_calls_count":' + (number.encode() if number == "99" else b"2"))
        data = data.replace(b'"total_cost":0.0', b'"total_cost":' + (number.encode() if "." in number or "e" in number else b"0.0"))
    fast, slow = _fast(data), _slow(data)
    assert fast is not None, "a canonical payload must take the fast path"
    assert fast == slow and encode(slow) == data


def test_widen_f32():
    assert widen_f32(0.8) == 0.800000011920929
    assert widen_f32(0.5) == 0.5
    assert widen_f32(1e39) is None  # overflows f32: serde_json writes null


# Expected values from the Rust reference (oracle2 messages and rustc 1.95's {:?}).
@pytest.mark.parametrize("s, out", [("a\"b\\c", '"a\\"b\\\\c"'), ("\t\n\r\0", '"\\t\\n\\r\\0"'), ("\x01", '"\\u{1}"'),
                                    ("\u2028", '"\\u{2028}"'), ("日本", '"日本"'), ("\u00a0", '"\\u{a0}"'),
                                    ("cafe\u0301", '"cafe\\u{301}"'), ("a\u09be", '"a\\u{9be}"'),
                                    ("a\uff9e", '"a\\u{ff9e}"'), ("a\U000e0100", '"a\\u{e0100}"'),
                                    ("a\U0001e4d0", '"a\U0001e4d0"'), ("a\u1c89", '"a\u1c89"'),
                                    ("a\U0001fae8", '"a\U0001fae8"')])
def test_rust_debug_str(s, out):
    assert rust_debug_str(s) == out


# Expected texts produced by the Rust reference (oracle2 export, serde_json 1.0.151).
@pytest.mark.parametrize("doc, message", [
    (b'{"schema":"x","snapshot":5}', "invalid type: integer `5`, expected struct SessionSnapshotV1 at line 1 column 26"),
    (b'{"schema":1}', "invalid type: integer `1`, expected a string at line 1 column 11"),
    (b'{"schema":"x","snapshot":{"schema_version":-1}}', "invalid value: integer `-1`, expected u32 at line 1 column 45"),
    (b'{"schema":"x","snapshot":{"schema_version":1.5}}', "invalid type: floating point `1.5`, expected u32 at line 1 column 46"),
    (b'{"schema":"x","schema":"y"}', "duplicate field `schema` at line 1 column 22"),
    (b'{"schema":"x"}', "missing field `snapshot` at line 1 column 14"),
])
def test_exact_serde_messages(doc, message):
    with pytest.raises(SerdeError) as exc:
        decode(doc, S.PAYLOAD)
    assert str(exc.value) == message


@pytest.mark.parametrize("value", [b'"\xff\xfe"', b"[" * 200 + b"]" * 200, b"1e400"])
def test_unknown_nested_keys_are_skipped_without_validation(value):
    """serde skips an unknown key's value with IgnoredAny: no UTF-8 check, no depth limit, no
    number range. The reference (oracle2) then reports P-CANONICAL, not P-PARSE, although
    FORMAT.md 3.1 says such inputs are rejected: it is true only for values that are kept."""
    from inspector.checkpoint import verify
    from tests.checkpoint.test_robustness import rebind

    data = _GOLDEN.replace(b'"goal_tracking":false', b'"goal_tracking":false,"zz_unknown":' + value)
    report = verify(data, rebind(data))
    assert report.root_cause.rule.id == "P-CANONICAL"
    assert any(n.startswith("unknown key, dropped by the reference's decode") for n in report.root_cause.notes)


PINNED = SHARED / "fixtures" / "cases-pinned"


def test_fast_path_takes_every_valid_pinned_case():
    """The 8 valid cases-pinned payloads (every event kind, bindings, policies, f32 fields) are
    verified by the fast path itself, not declined to the exact path (FORMAT.md 4.7-4.16)."""
    rows = [json.loads(line) for line in (PINNED / "cases.jsonl").read_bytes().splitlines() if line.strip()]
    valid = [c for c in rows if c["ok"]]
    assert len(valid) == 8
    for c in valid:
        data = (PINNED / c["payload"]).read_bytes()
        fast = decode_fast(data, S.PAYLOAD)  # raises NotFast if declined
        assert fast == decode(data, S.PAYLOAD) and encode(fast) == data, c["id"]


def test_decode_value_is_serde_json_from_value():
    """``decode_value`` for the S-TOOLEND rules: serde's texts with no position (FORMAT.md 4.7.3)."""
    binding = {"schema": "s", "transform_algorithm": "a", "policy_digest": "p", "binding_digest": "b"}
    assert decode_value(S.TOOL_RESULT_TRANSFORM_BINDING, binding) == binding
    cases = [
        (None, "invalid type: null, expected struct ToolResultTransformBindingV1"),
        ("a3s", 'invalid type: string "a3s", expected struct ToolResultTransformBindingV1'),
        ({k: v for k, v in binding.items() if k != "binding_digest"}, "missing field `binding_digest`"),
        (dict(binding, x=1), "unknown field `x`, expected one of `schema`, `transform_algorithm`, "
                             "`policy_digest`, `binding_digest`"),
        (["s", "a", "p"], "invalid length 3, expected struct ToolResultTransformBindingV1 with 4 elements"),
        (["s", "a", "p", "b", "extra"], "invalid length 5, expected fewer elements in array"),
    ]
    for value, message in cases:
        with pytest.raises(SerdeError) as e:
            decode_value(S.TOOL_RESULT_TRANSFORM_BINDING, value)
        assert str(e.value) == message and e.value.index is None


_EVIDENCE = json.loads((PINNED / "001-valid-rich-resume.payload.json").read_bytes())[
    "snapshot"]["run_records"][1]["events"][12]["event"]["metadata"]["a3s_tool_result_evidence"]


@pytest.mark.parametrize("edit, message", [
    # texts checked against oracle2 verify (S-TOOLEND-EVIDENCE-PARSE) on cases-pinned 001
    ({"loss_mode": {"none": {}}}, "invalid type: map, expected unit"),  # a Value: {} is not a unit
    ({"loss_mode": 0}, "invalid type: integer `0`, expected string or map"),
    ({"original_bytes": -1}, "invalid value: integer `-1`, expected usize"),
    ({"original_bytes": 1.5}, "invalid type: floating point `1.5`, expected usize"),
    ({"byte_delta": 2 ** 63}, "invalid value: integer `9223372036854775808`, expected i64"),
    ("short", "invalid length 5, expected struct ToolResultEvidenceV1 with 14 elements"),
    ("long", "invalid length 15, expected fewer elements in array"),
])
def test_decode_value_evidence_texts(edit, message):
    keys = [f.key for f in S.TOOL_RESULT_EVIDENCE.fields]
    if edit == "short":
        value = [_EVIDENCE.get(k) for k in keys][:5]
    elif edit == "long":
        value = [_EVIDENCE.get(k) for k in keys] + [None]
    else:
        value = dict(_EVIDENCE, **edit)
    with pytest.raises(SerdeError) as e:
        decode_value(S.TOOL_RESULT_EVIDENCE, value)
    assert str(e.value) == message
    assert decode_value(S.TOOL_RESULT_EVIDENCE, [_EVIDENCE.get(k) for k in keys]) == _EVIDENCE


# Texts and columns checked against the reference (oracle2 export) on cases-pinned 001 re-encoded
# canonically after one edit: events (streaming and buffered), bindings, policy objects, cost
# records, trace events (FORMAT.md 4.7-4.15).
_RICH = (PINNED / "001-valid-rich-resume.payload.json").read_bytes()


def _edit_rich(path, value):
    doc = json.loads(_RICH)
    if path == "rename-lane-key":
        handlers = doc["snapshot"]["session"]["config"]["queue_config"]["laneHandlers"]
        handlers["execute"] = handlers.pop("Execute")
    elif path == "drop-scope-id":
        del doc["snapshot"]["session"]["durable_memory_binding"]["namespace"]["scopeId"]
    else:
        *parents, last = path.split("/")
        node = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        node[int(last) if isinstance(node, list) else last] = value
    return encode(doc)


@pytest.mark.parametrize("path, value, message", [
    pytest.param('snapshot/run_records/1/events/0/event/type', 0,
                 'invalid type: integer `0`, expected variant identifier at line 1 column 6227', id='event type as index (streaming)'),
    pytest.param('snapshot/run_records/1/events/12/event/error_kind', {'type': 11},
                 'invalid value: integer `11`, expected variant index 0 <= i < 11 at line 1 column 9808', id='error_kind tag index out of range'),
    pytest.param('snapshot/run_records/1/events/12/event/error_kind', {'type': -1},
                 'invalid type: integer `-1`, expected variant identifier at line 1 column 9808', id='error_kind negative tag'),
    pytest.param('snapshot/run_records/1/events/12/event/error_kind', [3],
                 'invalid length 0, expected struct variant ToolErrorKind::InvalidArgument with 1 element at line 1 column 9800', id='error_kind as short array'),
    pytest.param('snapshot/run_records/1/events/12/event', ['tool_end', 'i', 'n'],
                 'invalid length 3, expected struct variant AgentEvent::ToolEnd with 7 elements at line 1 column 8623', id='event as array, defaulted args skipped'),
    pytest.param('snapshot/run_records/1/events/12/event', ['tool_end', 'i', 'n', None, 'o', 0, None, None, 5],
                 'invalid length 8, expected 7 elements in sequence at line 1 column 8646', id='event as array, one too many'),
    pytest.param('snapshot/run_records/1/events/12/event/exit_code', 2147483648,
                 'invalid value: integer `2147483648`, expected i32 at line 1 column 9792', id='exit_code beyond i32'),
    pytest.param('rename-lane-key', None,
                 'unknown variant `execute`, expected one of `Control`, `Query`, `Execute`, `Generate` at line 1 column 21156', id='lane handler key lowercase'),
    pytest.param('snapshot/session/config/queue_config/laneHandlers', [],
                 'invalid type: sequence, expected a map at line 1 column 21099', id='lane handlers not a map'),
    pytest.param('snapshot/session/config/queue_config/laneTimeouts/Control', -1,
                 'invalid value: integer `-1`, expected u64 at line 1 column 21225', id='lane timeout negative'),
    pytest.param('snapshot/session/config/confirmation_policy/yolo_lanes', 'Query',
                 'invalid type: string "Query", expected a sequence at line 1 column 20596', id='yolo_lanes a string'),
    pytest.param('snapshot/session/config/confirmation_policy/yolo_lanes', ['Query', 'Nope'],
                 'unknown variant `Nope`, expected one of `Control`, `Query`, `Execute`, `Generate` at line 1 column 20604', id='yolo_lanes unknown lane'),
    pytest.param('snapshot/session/config/confirmation_policy', [True, 5, 'Reject'],
                 'invalid length 3, expected struct ConfirmationPolicy with 4 elements at line 1 column 20524', id='confirmation policy short array'),
    pytest.param('snapshot/session/config/permission_policy/allow', [5],
                 'data did not match any variant of untagged enum RuleRepr at line 1 column 20705', id='permission rule a number'),
    pytest.param('snapshot/session/config/queue_config/storagePath', 5,
                 'invalid type: integer `5`, expected path string at line 1 column 21525', id='storage path a number'),
    pytest.param('snapshot/session/cost_records/0/timestamp', 'x',
                 'input contains invalid characters at line 1 column 22510', id='cost timestamp garbage'),
    pytest.param('snapshot/session/cost_records/0/timestamp', 5,
                 'invalid type: integer `5`, expected an RFC 3339 formatted date and time string at line 1 column 22508', id='cost timestamp a number'),
    pytest.param('snapshot/session/cost_records/0/timestamp', '2026-02-30T00:00:00Z',
                 'input is out of range at line 1 column 22529', id='cost timestamp 30 February'),
    pytest.param('snapshot/trace_events/0/exit_code', -2147483649,
                 'invalid value: integer `-2147483649`, expected i32 at line 1 column 26114', id='trace exit_code below i32'),
    pytest.param('snapshot/session/cognitive_package_binding/extra', 1,
                 'unknown field `extra`, expected one of `schema`, `packageId`, `packageVersion`, `lifecycleGeneration`, `generationDigest`, `capabilitySnapshotDigest`, `knowledge`, `limits` at line 1 column 19602', id='cognitive binding unknown key'),
    pytest.param('drop-scope-id', None,
                 'missing field `scopeId` at line 1 column 22975', id='durable namespace missing scopeId'),
])
def test_exact_serde_messages_in_newly_typed_parts(path, value, message):
    with pytest.raises(SerdeError) as e:
        decode(_edit_rich(path, value), S.PAYLOAD)
    assert str(e.value) == message


@pytest.mark.parametrize("path, value, written", [
    # f32 fields re-encode as the widened f32 (FORMAT.md 4.16)
    ("snapshot/run_records/1/events/22/event/importance", 0.7, 0.699999988079071),
    ("snapshot/run_records/1/events/35/event/progress", 0.5, 0.5),
    ("snapshot/session/durable_memory_binding/recallPolicy/minLexicalScore", 0.3, 0.30000001192092896),
    # a plain-string PermissionRule is written as {"rule": ...} (4.15)
    ("snapshot/session/config/permission_policy/deny/0", "Bash(rm:*)", {"rule": "Bash(rm:*)"}),
    # chrono stand-in: any offset converted to UTC, minimal fraction (4.13)
    ("snapshot/session/cost_records/0/timestamp", "2026-09-01T12:00:00.500000+02:00", "2026-09-01T10:00:00.500Z"),
])
def test_read_form_is_written_differently(path, value, written):
    typed = decode(_edit_rich(path, value), S.PAYLOAD)
    node = typed
    for p in path.split("/"):
        node = node[int(p)] if isinstance(node, list) else node[p]
    assert node == written
    if value != written:  # not canonical: the fast path must decline
        with pytest.raises(NotFast):
            decode_fast(_edit_rich(path, value), S.PAYLOAD)


def test_task_alias_description_is_written_as_content():
    doc = json.loads(_RICH)
    task = doc["snapshot"]["session"]["tasks"][0]
    task["description"] = task.pop("content")
    typed = decode(encode(doc), S.PAYLOAD)
    assert typed["snapshot"]["session"]["tasks"][0]["content"] == task["description"]
    assert "description" not in typed["snapshot"]["session"]["tasks"][0]


def test_yolo_lanes_repeated_lane_is_kept_once():
    doc = json.loads(_RICH)
    doc["snapshot"]["session"]["config"]["confirmation_policy"]["yolo_lanes"] = ["Query", "Control", "Query"]
    typed = decode(encode(doc), S.PAYLOAD)
    assert typed["snapshot"]["session"]["config"]["confirmation_policy"]["yolo_lanes"] == ["Query", "Control"]


def test_yolo_lanes_order_is_reported_as_not_reproducible():
    """Two distinct lanes: no drift for the order (kept as written), a note instead (FORMAT.md 3.1)."""
    from inspector.checkpoint import verify
    from inspector.checkpoint.schema.typed import unreproducible_sets

    doc = json.loads(_RICH)
    doc["snapshot"]["session"]["config"]["confirmation_policy"]["yolo_lanes"] = ["Query", "Control"]
    typed = decode(encode(doc), S.PAYLOAD)
    assert encode(typed) == encode(doc)  # the file's order is kept: not drift
    assert unreproducible_sets(typed) == [("/snapshot/session/config/confirmation_policy/yolo_lanes", 2)]
    doc["snapshot"]["session"]["config"]["name"] = "x"
    data = encode(doc).replace(b'"name":"x"', b'"name": "x"')  # drift elsewhere: the note rides along
    desc = (PINNED / "001-valid-rich-resume.descriptor.json").read_bytes()
    canonical = next(f for f in verify(data, desc).findings if f.rule.id == "P-CANONICAL")
    assert any(n.startswith("order not reproducible: /snapshot/session/config/confirmation_policy/yolo_lanes")
               for n in canonical.notes)


# chrono stand-in (FORMAT.md 4.13): what the reference (oracle2 export) reads each text as, or its error
# with the position in cases-pinned 001 re-encoded after the edit. The two year-overflow rows were
# checked with oracle2 verify (P-CANONICAL: the re-encoding has a signed year).
@pytest.mark.parametrize("text, kind, expected", [
    ('2026-06-30T23:59:60Z', 'OK', '2026-06-30T23:59:60Z'),
    ('2026-06-30T23:59:60.5+01:00', 'OK', '2026-06-30T22:59:60.500Z'),
    ('2026-09-01t10:00:00z', 'OK', '2026-09-01T10:00:00Z'),
    ('2026-09-01 10:00:00Z', 'OK', '2026-09-01T10:00:00Z'),
    ('2026-09-01T10:00:00.1234567891234Z', 'OK', '2026-09-01T10:00:00.123456789Z'),
    ('2026-09-01T10:00:00.Z', 'ERR', 'input contains invalid characters at line 1 column 22530'),
    ('2026-09-01T10:00:00.', 'ERR', 'premature end of input at line 1 column 22529'),
    ('2026-09-01T10:00:00+24:00', 'ERR', 'input is out of range at line 1 column 22534'),
    ('2026-09-01T10:00:00+23:60', 'ERR', 'input is out of range at line 1 column 22534'),
    ('2026-09-01T10:00:00+2300', 'ERR', 'input contains invalid characters at line 1 column 22533'),
    ('2026-09-01T10:00:00', 'ERR', 'premature end of input at line 1 column 22528'),
    ('2026-09-01T24:00:00Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2024-02-29T00:00:00Z', 'OK', '2024-02-29T00:00:00Z'),
    ('2023-02-29T00:00:00Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2026-09-01T10:00:00.100Z', 'OK', '2026-09-01T10:00:00.100Z'),
    ('2026-09-01T10:00:00.000001000Z', 'OK', '2026-09-01T10:00:00.000001Z'),
    ('2026-09-01T10:00:00.000000001Z', 'OK', '2026-09-01T10:00:00.000000001Z'),
    ('', 'ERR', 'premature end of input at line 1 column 22509'),
    ('2026', 'ERR', 'premature end of input at line 1 column 22513'),
    ('2026-9-01T10:00:00Z', 'ERR', 'input contains invalid characters at line 1 column 22528'),
    ('2026-09-01T10:00:00Zjunk', 'ERR', 'trailing input at line 1 column 22533'),
    ('1900-02-29T00:00:00Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2000-02-29T00:00:00Z', 'OK', '2000-02-29T00:00:00Z'),
    ('2026-13-01T00:00:00Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2026-09-00T00:00:00Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2026-09-01T10:00:61Z', 'ERR', 'input is out of range at line 1 column 22529'),
    ('2026-09-01T10:00:00-00:00', 'OK', '2026-09-01T10:00:00Z'),
    ('２026-09-01T10:00:00Z', 'ERR', 'input contains invalid characters at line 1 column 22531'),
    ('2026-09-01T10:00:00.5-23:59', 'OK', '2026-09-02T09:59:00.500Z'),
    ("0000-01-01T00:00:00+01:00", "OK", "-0001-12-31T23:00:00Z"),
    ("9999-12-31T23:59:59-01:00", "OK", "+10000-01-01T00:59:59Z"),
])
def test_cost_record_timestamp_reads_like_the_reference(text, kind, expected):
    doc = json.loads(_RICH)
    doc["snapshot"]["session"]["cost_records"][0]["timestamp"] = text
    if kind == "OK":
        assert decode(encode(doc), S.PAYLOAD)["snapshot"]["session"]["cost_records"][0]["timestamp"] == expected
    else:
        with pytest.raises(SerdeError) as e:
            decode(encode(doc), S.PAYLOAD)
        assert str(e.value) == expected
