"""The rules' and the lint's shortcuts give what the plain computation gives.

* ``decode_value``'s plain-struct path agrees with serde's buffered read (``content`` over
  ``to_content``) on generated values of every typed struct: same result or same error text.
* The catalog C predicates written as patterns agree with their character-by-character form.
* Cognitive events equal to their run's (or legacy run's) binding reuse its catalog C result, and
  Python ``==`` stands for ``json_equal`` on typed ``CognitivePackageBindingV1`` values (their
  schema holds only strings, integers and such structs: pinned here).
* ``tool_end`` bindings are checked once per distinct binding, every event still reported.
* S-EVENT-SEQ and the lint's ``event-sequence-gap`` over the runs' events read once
  (:mod:`~inspector.checkpoint.rules.runevents`) agree with the event-by-event walks they replace.
"""

from __future__ import annotations

from types import SimpleNamespace

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint.rules import bindings as B
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.rules.checks import CHECKS
from inspector.checkpoint.rules.checks_bindings import _analyse
from inspector.checkpoint.digest import rust_trim
from inspector.checkpoint.jsontext.reader import SerdeError
from inspector.checkpoint.analysis.lint import MAX_PER_KIND, lint_payload
from inspector.checkpoint.rules.runevents import read_runs
from inspector.checkpoint.schema.typed_content import _plain_struct, content, decode_value, to_content
from tests.checkpoint.rules.binding_recipes import (
    SHA_E, cognitive, cognitive_event, evidence, tool_end, transform_binding, transformed, turn_start,
)
from tests.checkpoint.rules.test_bindings_mutations import both, repointed, run

STRUCTS = [t for t in S.ALL_TYPES if isinstance(t, S.Struct)]


# -- decode_value: the plain-struct path against the buffered read --------------------------------
def _outcome(fn):
    try:
        return "ok", fn()
    except SerdeError as e:
        return "error", e.message


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, -2**63]),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
    st.sampled_from(["none", "head_tail", "composite", "Active", "unit", "cosine", "sha256:" + "ab" * 32]),
)
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)), max_leaves=6)


@st.composite
def _struct_and_value(draw):
    t = draw(st.sampled_from(STRUCTS))
    keys = [f.key for f in t.fields] + [a for f in t.fields for a in f.aliases]
    chosen = draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
    value = {k: draw(_values) for k in chosen}
    if draw(st.booleans()):
        value[draw(st.sampled_from(["zzz", "type", "extra"]))] = draw(_values)
    return t, value


@settings(max_examples=1500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_struct_and_value())
def test_decode_value_agrees_with_the_buffered_read(tv):
    t, value = tv
    assert _outcome(lambda: decode_value(t, value)) == _outcome(lambda: content(t, to_content(value), True))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.sampled_from([S.TOOL_RESULT_EVIDENCE, S.TOOL_RESULT_TRANSFORM_BINDING]), st.data())
def test_decode_value_agrees_on_near_valid_tool_end_values(t, data):
    good = evidence() if t is S.TOOL_RESULT_EVIDENCE else transform_binding()
    value = dict(good)
    key = data.draw(st.sampled_from(sorted(value) + ["zzz"]))
    if data.draw(st.booleans()):
        value.pop(key, None)
    else:
        value[key] = data.draw(_scalars)
    assert _outcome(lambda: decode_value(t, value)) == _outcome(lambda: content(t, to_content(value), True))


def test_plain_struct_path_is_taken_for_valid_tool_end_values():
    got = _plain_struct(S.TOOL_RESULT_EVIDENCE, evidence(byte_delta=-3))
    assert got is not None and got["byte_delta"] == -3
    assert decode_value(S.TOOL_RESULT_EVIDENCE, evidence()) == {
        "schema": "a3s.code.tool-result-evidence.v1", "original_bytes": 2048, "projected_bytes": 2048,
        "original_estimated_tokens": 512, "projected_estimated_tokens": 512,
        "token_estimator": "utf8-bytes-ceil-div-4/v1", "transform_algorithm": "a3s.code.tool-result-transform.v1",
        "content_digest": SHA_E, "repeat_key": SHA_E,
        "content_ref": "artifact://tool/1", "loss_mode": "none"}
    assert _plain_struct(S.TOOL_RESULT_TRANSFORM_BINDING, transform_binding()) == transform_binding()
    # what it leaves to the buffered read: an unknown key of a deny struct, a wrong type, a float
    assert _plain_struct(S.TOOL_RESULT_EVIDENCE, evidence(zzz=1)) is None
    assert _plain_struct(S.TOOL_RESULT_EVIDENCE, evidence(original_bytes=1.0)) is None
    assert _plain_struct(S.TOOL_RESULT_EVIDENCE, evidence(original_bytes=True)) is None
    assert _plain_struct(S.TOOL_RESULT_EVIDENCE, evidence(loss_mode="lossy")) is None


def test_decode_value_alias_read_twice_is_serdes_duplicate_field():
    auto = next(t for t in STRUCTS if t.name == "AutoDelegationConfig")
    for value in ({"autoParallel": True, "auto_parallel": False}, {"auto_parallel": True, "autoParallel": True}):
        assert _outcome(lambda: decode_value(auto, value)) == ("error", "duplicate field `autoParallel`")
    got = decode_value(auto, {"auto_parallel": True, "allowManualDelegation": False})
    assert got == content(auto, to_content({"auto_parallel": True, "allowManualDelegation": False}), True)
    assert got["autoParallel"] is True


# -- catalog C predicates --------------------------------------------------------------------------
def _control_by_char(s: str) -> bool:
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in s)


def _package_id_by_char(v: str) -> bool:
    publisher, sep, name = v.partition("/")
    ok = set("abcdefghijklmnopqrstuvwxyz0123456789-_")
    return bool(sep) and all(p and set(p) <= ok for p in (publisher, name))


def _machine_id_by_char(v: str, limit: int) -> bool:
    return (bool(v) and len(v.encode()) <= limit and v.isascii() and v[0].isalnum()
            and all(c.isalnum() or c in "-._:/@" for c in v))


_id_text = st.text(st.one_of(st.sampled_from("az09-_/.:@ AZ\n\x00\x1f\x7f\x9f\xa0é٣ß"), st.characters()), max_size=12)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(_id_text, st.sampled_from([1, 3, 256]))
def test_catalog_c_predicates_agree_with_their_definitions(v, limit):
    def same(fast, slow):
        try:
            want = slow()
        except UnicodeEncodeError:  # a lone surrogate: UTF-8 length unknown, both raise
            want = UnicodeEncodeError
        try:
            got = fast()
        except UnicodeEncodeError:
            got = UnicodeEncodeError
        assert got == want

    same(lambda: B._has_control(v), lambda: _control_by_char(v))
    same(lambda: B._package_id_ok(v), lambda: _package_id_by_char(v))
    same(lambda: B._machine_id_ok(v, limit), lambda: _machine_id_by_char(v, limit))
    same(lambda: B._plain_value_ok(v, limit), lambda: (
        bool(v) and len(v.encode()) <= limit and rust_trim(v) == v and not _control_by_char(v)))


# -- cognitive events ------------------------------------------------------------------------------
def test_cognitive_binding_schema_holds_only_strings_integers_and_structs():
    """``==`` stands for ``json_equal`` in ``_cognitive_event`` only while this holds."""
    stack, seen = [S.COGNITIVE_BINDING], []
    while stack:
        t = stack.pop()
        seen.append(t.name)
        for f in t.fields:
            if isinstance(f.type, S.Struct):
                stack.append(f.type)
            else:
                assert isinstance(f.type, S.Prim) and f.type.name in ("str", "u64", "usize"), (t.name, f.key)
    assert sorted(seen) == ["CognitiveContextLimits", "CognitiveKnowledgeBindingV1", "CognitivePackageBindingV1"]


def _violations(edit) -> dict:
    payload, _ = repointed(edit)
    found = _analyse(orjson.loads(payload)["snapshot"])
    return {rule: [(v.pointer, v.detail, v.expected, v.actual) for v in vs] for rule, vs in found.items() if vs}


_EV = "/snapshot/run_records/0/events"
_VERSION_MSG = "invalid cognitive package binding: package version is invalid"


def test_events_equal_to_an_invalid_run_binding_fail_each_with_its_problem():
    bad = cognitive(packageVersion=" 1.4.0")
    got = _violations(run(0, events=[turn_start(0), cognitive_event(1, dict(bad)),
                                     cognitive_event(2, cognitive(packageVersion="2")), cognitive_event(3, dict(bad))],
                          cognitive_binding=bad))
    expected_text = "1-128 bytes, trimmed, no control characters"
    assert got == {
        "S-RUN-COGNITIVE": [("/snapshot/run_records/0/snapshot/cognitive_package_binding/packageVersion",
                             f'run "source-run" at record 0 has an invalid cognitive package binding: {_VERSION_MSG}',
                             expected_text, " 1.4.0")],
        "S-EVENT-COGNITIVE-VALID": [
            (f"{_EV}/1/event/binding/packageVersion",
             f'run "source-run" event 1 has an invalid cognitive package binding: {_VERSION_MSG}', expected_text, " 1.4.0"),
            (f"{_EV}/3/event/binding/packageVersion",
             f'run "source-run" event 3 has an invalid cognitive package binding: {_VERSION_MSG}', expected_text, " 1.4.0")],
        "S-EVENT-COGNITIVE-RUN": [
            (f"{_EV}/2/event/binding/packageVersion",
             'run "source-run" event 2 carries a cognitive generation different from its admitted Run binding',
             " 1.4.0", "2")],
    }


def test_legacy_run_events_reuse_the_first_valid_binding_and_still_check_the_others():
    first, other = cognitive(), cognitive(lifecycleGeneration=8)
    got = _violations(run(0, events=[
        cognitive_event(0, cognitive(packageVersion="")), cognitive_event(1, dict(first)),
        cognitive_event(2, dict(first)), cognitive_event(3, other), cognitive_event(4, dict(first))]))
    assert got == {
        "S-EVENT-COGNITIVE-VALID": [(f"{_EV}/0/event/binding/packageVersion",
                                     f'run "source-run" event 0 has an invalid cognitive package binding: {_VERSION_MSG}',
                                     "1-128 bytes, trimmed, no control characters", "")],
        "S-EVENT-COGNITIVE-LEGACY": [(f"{_EV}/3/event/binding/lifecycleGeneration",
                                      'legacy run "source-run" event 3 changes cognitive generation within one Run',
                                      7, 8)],
    }


# -- tool_end events -------------------------------------------------------------------------------
def test_tool_end_bindings_checked_once_still_report_every_event():
    wrong = transform_binding(binding_digest="sha256:" + "00" * 32)
    got = _violations(both(run(0, events=[
        transformed(0), transformed(1, binding=dict(wrong)), transformed(2),
        transformed(3, binding=dict(wrong)), tool_end(4, {"a3s_tool_result_transform_binding": transform_binding()}),
        transformed(5, ev=evidence(transform_algorithm="x"))])))
    head = 'run "source-run" event {} in session "session-checkpoint-1"'
    msg = " has invalid Tool result transform binding: Tool result transform binding_digest does not bind the exact algorithm and policy"
    meta = _EV + "/{}/event/metadata"
    assert got["S-TOOLEND-BINDING-INVALID"] == [
        (meta.format(j) + "/a3s_tool_result_transform_binding/binding_digest", head.format(j) + msg,
         transform_binding()["binding_digest"], "sha256:" + "00" * 32) for j in (1, 3)]
    assert got["S-TOOLEND-EVIDENCE-MISSING"] == [
        (meta.format(4), head.format(4) + " has a Tool result transform binding without Tool result evidence",
         "a key 'a3s_tool_result_evidence' beside 'a3s_tool_result_transform_binding'", "absent")]
    assert got["S-TOOLEND-EVIDENCE-MISMATCH"] == [
        (meta.format(5) + "/a3s_tool_result_evidence/transform_algorithm",
         head.format(5) + " has Tool result evidence that does not match its transform binding",
         "a3s.code.tool-result-transform.v1", "x")]
    assert set(got) == {"S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING", "S-TOOLEND-EVIDENCE-MISMATCH"}


# -- one read of the run events (runevents): S-EVENT-SEQ and the lint's gaps --------------------------
def _seq_violations_by_walk(runs):
    """S-EVENT-SEQ as the event-by-event walk it was before the shared read."""
    out = []
    for i, rec in enumerate(runs):
        prev = None
        for j, ev in enumerate(rec["events"]):
            s = ev["sequence"]
            if prev is not None and s <= prev:
                out.append((f"/snapshot/run_records/{i}/events/{j}/sequence", s, f"> {prev}", (i, 4, j)))
            prev = s
    return out


def _gaps_by_walk(runs):
    """event-sequence-gap as the event-by-event walk it was before the shared read."""
    out = []
    for r, rec in enumerate(runs):
        prev = None
        for e, ev in enumerate(rec.get("events") or ()):
            seq = ev.get("sequence")
            if isinstance(prev, int) and isinstance(seq, int) and seq > prev + 1:
                out.append([f"/snapshot/run_records/{r}/events/{e}/sequence",
                            f"/snapshot/run_records/{r}/events/{e - 1}/sequence"])
            prev = seq
    return out


def _runs_of(sequence_lists):
    return [{"snapshot": {"id": f"r{i}"}, "events": [{"sequence": s, "event": {"type": "turn_start", "turn": 1}}
                                                     for s in seqs]}
            for i, seqs in enumerate(sequence_lists)]


_int_runs = st.lists(st.lists(st.integers(0, 12), max_size=8), max_size=4)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_int_runs)
def test_event_seq_agrees_with_the_event_walk(sequence_lists):
    runs = _runs_of(sequence_lists)
    ctx = SimpleNamespace(pay={"snapshot": {"run_records": runs}})
    got = [(v.pointer, v.actual, v.expected, v.order) for v in CHECKS["S-EVENT-SEQ"](ctx)]
    assert got == _seq_violations_by_walk(runs)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.one_of(st.integers(0, 12), st.sampled_from([None, True, False, 2.0, 5.5, "7"])),
                         max_size=8), max_size=4))
def test_lint_gaps_agree_with_the_event_walk(sequence_lists):
    """Sequences that are all integers take the path without a per-event loop; others the walk."""
    runs = _runs_of(sequence_lists)
    found = lint_payload({"snapshot": {"session": {}, "run_records": runs}})
    assert [[x.pointer for x in f.locations] for f in found if f.kind == "event-sequence-gap"] == \
        _gaps_by_walk(runs)[:MAX_PER_KIND]


def test_read_runs_marks_the_kinds_its_readers_need():
    runs = [{"events": [
        {"sequence": 0, "event": {"type": "turn_start", "turn": 1}},
        {"sequence": 1, "event": {"type": "cognitive_context_bound", "binding": {}}},
        {"sequence": 2, "event": {"type": "tool_end", "id": "c"}},
        {"sequence": 4, "event": {"type": "turn_end", "turn": 1}},
        {"sequence": 5, "event": None},
        {"event": {"type": "tool_end"}},
    ]}, {}, {"events": []}]
    got = read_runs(runs)
    assert [(r.sequences, r.marked) for r in got] == [([0, 1, 2, 4, 5, None], [1, 2, 3, 5]), ([], []), ([], [])]
    assert got[0].events is runs[0]["events"]


def test_lint_gaps_past_the_cap_across_runs():
    runs = _runs_of([[2 * k for k in range(61)]] * 3)  # 60 gaps in each of 3 runs
    gaps = [f for f in lint_payload({"snapshot": {"session": {}, "run_records": runs}})
            if f.kind == "event-sequence-gap"]
    assert [[x.pointer for x in f.locations] for f in gaps] == _gaps_by_walk(runs)[:MAX_PER_KIND]
    assert gaps[59].locations[0].pointer == "/snapshot/run_records/0/events/60/sequence"
    assert gaps[60].locations[0].pointer == "/snapshot/run_records/1/events/1/sequence"
    assert [f.more for f in gaps] == [0] * 99 + [80]
    assert gaps[-1].explanation == ("Run 'r1' goes from event 78 to event 80: 1 event(s) in between are missing, "
                                    "so what happened there cannot be seen.")


def test_omitted_when_is_skip_serializing_if():
    """``Field.omitted_when``: same type and equal, or the very object (``None``); ``0``/``False``/``0.0``
    and ``[0]`` are not ``None``/``[]``."""
    values = [None, [], [0], {}, 0, 0.0, False, "", "x", [None], ()]
    for skip in (S.NONE, S.EMPTY, (None, []), ()):
        field = S.Field("f", S.STR, skip_if=skip)
        assert [field.omitted_when(v) for v in values] == [
            any(v is s or (type(v) is type(s) and v == s) for s in skip) for v in values]
    assert [S.Field("f", S.STR, skip_if=S.NONE).omitted_when(v) for v in values] == [True] + [False] * 10
    assert [S.Field("f", S.STR, skip_if=S.EMPTY).omitted_when(v) for v in values] == [False, True] + [False] * 9
