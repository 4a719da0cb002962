"""Semantic diff of two checkpoints: single edits of the golden payload, two tool
rounds apart, a pretty-printed copy, deep values, and the JSON Patch property."""

import copy
import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint import encode, verify
from inspector.checkpoint.analysis.compare import MISSING, compare_documents, compare_values, dump_json
from inspector.checkpoint.analysis.compare_output import to_patch
from tests.checkpoint.analysis.compare_helpers import add_tool_rounds, apply_patch, export
from tests.conftest import GOLDEN, SAMPLES

GP = (GOLDEN / "payload-with-resume.json").read_bytes()
GD = (GOLDEN / "descriptor-with-resume.json").read_bytes()
G = orjson.loads(GP)

SNAP = ("/snapshot/content_digest", "/snapshot/evidence_digest", "/content_digest", "/descriptor_digest")
SNAP_SIZED = ("/snapshot/content_digest", "/snapshot/size_bytes", "/snapshot/evidence_digest", "/size_bytes",
              "/content_digest", "/descriptor_digest")


def rows(c):
    return [(ch.op, ch.kind, ch.old_pointer, ch.new_pointer, ch.item, ch.invalidates) for ch in c.changes]


def diff_edit(edit):
    b = copy.deepcopy(G)
    edit(b)
    c = compare_documents(GP, encode(b))
    assert encode(apply_patch(G, to_patch(c))) == encode(b)
    return c


def test_broken_sample_against_golden_names_the_changed_text():
    c = compare_documents(GP, (SAMPLES / "broken.payload.json").read_bytes())
    assert c.summary() == "1 message changed"
    (ch,) = c.changes
    assert (ch.op, ch.old_pointer, ch.new_pointer, ch.old, ch.new) == (
        "changed", "/logical_resume/messages/0/content/0/text", "/logical_resume/messages/0/content/0/text",
        "retain exact state", "Retain exact state")
    assert ch.item == "message 0 (user)"
    assert ch.invalidates == ("/logical_resume/content_digest", "/logical_resume/evidence_digest", "/content_digest",
                              "/descriptor_digest")
    comps = {d.name: d for d in c.components}
    assert not comps["snapshot"].changed and comps["logical_resume"].changed and comps["payload"].changed
    assert comps["payload"].old == "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"
    assert comps["logical_resume"].old == "sha256:d114b0ee11cd2e9e855ef04929f9f3683310ff0d45ddd4179dd5eb8411dc595d"
    assert to_patch(c) == [{"op": "replace", "path": "/logical_resume/messages/0/content/0/text",
                            "value": "Retain exact state"}]


def test_value_changed():
    c = diff_edit(lambda p: p["snapshot"]["session"]["config"].__setitem__("max_context_length", 64000))
    assert rows(c) == [("changed", "value", "/snapshot/session/config/max_context_length",
                        "/snapshot/session/config/max_context_length", None, SNAP_SIZED)]
    assert (c.changes[0].old, c.changes[0].new) == (128000, 64000)
    assert c.summary() == "1 other value changed"


def test_key_added_and_removed():
    c = diff_edit(lambda p: p["snapshot"]["session"].__setitem__("extra~/key", [1]))
    assert rows(c) == [("added", "value", None, "/snapshot/session/extra~0~1key", None, SNAP_SIZED)]
    assert to_patch(c) == [{"op": "add", "path": "/snapshot/session/extra~0~1key", "value": [1]}]
    c = diff_edit(lambda p: p["snapshot"]["session"].pop("thinking_budget"))
    assert rows(c) == [("removed", "value", "/snapshot/session/thinking_budget", None, None, SNAP_SIZED)]
    assert c.changes[0].old is None and c.changes[0].new is MISSING
    assert c.summary() == "1 other value removed"


def test_type_change_is_one_change():
    c = diff_edit(lambda p: p["snapshot"]["session"].__setitem__("tool_names", {"read": True}))
    assert [(ch.op, ch.old_pointer, ch.old, ch.new) for ch in c.changes] == [
        ("changed", "/snapshot/session/tool_names", ["read"], {"read": True})]


def test_integer_and_float_are_different_values():
    c = diff_edit(lambda p: p["snapshot"]["session"]["context_usage"].__setitem__("turns", 0.0))
    assert [(ch.op, ch.old_pointer, ch.old, ch.new) for ch in c.changes] == [
        ("changed", "/snapshot/session/context_usage/turns", 0, 0.0)]
    c = diff_edit(lambda p: p["snapshot"]["session"]["context_usage"].__setitem__("percent", -0.0))
    assert [(ch.old_pointer, repr(ch.old), repr(ch.new)) for ch in c.changes] == [
        ("/snapshot/session/context_usage/percent", "0.0", "-0.0")]


def test_message_added_removed_changed():
    def add(p):
        p["snapshot"]["session"]["messages"].insert(0, {"role": "user", "content": [{"type": "text", "text": "hi"}]})
    c = diff_edit(add)
    assert rows(c) == [("added", "message", None, "/snapshot/session/messages/0", "message 0 (user)", SNAP_SIZED)]
    assert c.changes[0].patch_path == "/snapshot/session/messages/0"
    assert c.summary() == "1 message added"
    c = diff_edit(lambda p: p["snapshot"]["session"]["messages"].pop())
    assert rows(c) == [("removed", "message", "/snapshot/session/messages/0", None, "message 0 (user)", SNAP_SIZED)]
    c = diff_edit(lambda p: p["snapshot"]["session"]["messages"][0].__setitem__("role", "assistant"))
    # a different role is a different message: removed and added at the same place
    assert [(ch.op, ch.kind) for ch in c.changes] == [("removed", "message"), ("added", "message")]


def test_run_changed_added_and_event_added():
    c = diff_edit(lambda p: p["snapshot"]["run_records"][0]["snapshot"].__setitem__("status", "completed"))
    assert rows(c) == [("changed", "value", "/snapshot/run_records/0/snapshot/status",
                        "/snapshot/run_records/0/snapshot/status", "run source-run", SNAP)]
    assert c.summary() == "1 run changed"

    def add_run(p):
        run = copy.deepcopy(p["snapshot"]["run_records"][0])
        run["snapshot"]["id"] = "run-2"
        p["snapshot"]["run_records"].insert(0, run)
    c = diff_edit(add_run)
    assert rows(c) == [("added", "run", None, "/snapshot/run_records/0", "run run-2", SNAP_SIZED)]

    def add_event(p):
        p["snapshot"]["run_records"][0]["events"].append(
            {"sequence": 0, "timestamp_ms": 1700000000500, "event": {"type": "turn_start", "turn": 1}})
    c = diff_edit(add_event)
    assert rows(c) == [("added", "event", None, "/snapshot/run_records/0/events/0",
                        "event 0 (turn_start) of run source-run", SNAP_SIZED)]
    assert c.summary() == "1 run changed, 1 event added"


def test_artifact_and_subagent_task_by_id():
    art = {"artifact_id": "a1", "artifact_uri": "a3s://artifact/a1", "tool_name": "read", "content": "x",
           "original_bytes": 1, "shown_bytes": 1}
    base = copy.deepcopy(G)
    base["snapshot"]["artifacts"] = [dict(art, artifact_id=f"a{i}") for i in range(3)]
    moved = copy.deepcopy(base)
    moved["snapshot"]["artifacts"][2]["content"] = "y"
    del moved["snapshot"]["artifacts"][0]
    c = compare_values(base, moved)
    assert [(ch.op, ch.kind, ch.old_pointer, ch.new_pointer, ch.item) for ch in c.changes] == [
        ("removed", "artifact", "/snapshot/artifacts/0", None, "artifact a0"),
        ("changed", "value", "/snapshot/artifacts/2/content", "/snapshot/artifacts/1/content", "artifact a2")]
    assert c.summary() == "1 artifact removed, 1 artifact changed"
    assert encode(apply_patch(base, to_patch(c))) == encode(moved)
    task = {"task_id": "t1", "parent_session_id": "session-checkpoint-1", "child_session_id": "c", "agent": "x",
            "description": "d", "status": "running", "started_ms": 1, "updated_ms": 2, "progress": []}
    c = diff_edit(lambda p: p["snapshot"]["subagent_tasks"].append(task))
    assert rows(c) == [("added", "subagent task", None, "/snapshot/subagent_tasks/0", "subagent task t1",
                        SNAP_SIZED)]


def test_logical_resume_removed_and_evidence_fields():
    c = diff_edit(lambda p: p.pop("logical_resume"))
    assert rows(c) == [("removed", "value", "/logical_resume", None, None,
                        ("/logical_resume", "/size_bytes", "/content_digest", "/descriptor_digest"))]
    c = diff_edit(lambda p: p["logical_resume"].__setitem__("run_id", "other-run"))
    assert c.changes[0].invalidates == ("/logical_resume/source_run_id", "/logical_resume/content_digest",
                                        "/logical_resume/size_bytes", "/logical_resume/evidence_digest",
                                        "/size_bytes", "/content_digest", "/descriptor_digest")
    c = diff_edit(lambda p: p["snapshot"]["session"].__setitem__("id", "session-checkpoint-2"))
    assert c.changes[0].invalidates == ("/snapshot/session_id",) + SNAP


def test_two_checkpoints_tool_rounds_apart():
    a, b = add_tool_rounds(G, 1), add_tool_rounds(G, 3)
    (pa, da), (pb, db) = export(a), export(b)
    assert verify(pa, da).ok and verify(pb, db).ok
    c = compare_documents(pa, pb)
    assert c.summary() == "2 tool rounds added, 8 messages added, 1 run changed, 4 events added, 3 other values changed"
    got = [(ch.op, ch.kind, ch.old_pointer or ch.new_pointer, ch.patch_path) for ch in c.changes]
    assert got == [
        ("changed", "value", "/logical_resume/checkpoint_ms", "/logical_resume/checkpoint_ms"),
        *[("added", "message", f"/logical_resume/messages/{i}", "/logical_resume/messages/3") for i in range(3, 7)],
        ("changed", "value", "/logical_resume/tool_calls_count", "/logical_resume/tool_calls_count"),
        ("changed", "value", "/logical_resume/turn", "/logical_resume/turn"),
        *[("added", "event", f"/snapshot/run_records/0/events/{i}", "/snapshot/run_records/0/events/2")
          for i in range(2, 6)],
        ("changed", "value", "/snapshot/run_records/0/snapshot/event_count",
         "/snapshot/run_records/0/snapshot/event_count"),
        ("changed", "value", "/snapshot/run_records/0/snapshot/updated_at_ms",
         "/snapshot/run_records/0/snapshot/updated_at_ms"),
        *[("added", "message", f"/snapshot/session/messages/{i}", "/snapshot/session/messages/3") for i in range(3, 7)],
    ]
    turn = next(ch for ch in c.changes if ch.old_pointer == "/logical_resume/turn")
    assert (turn.old, turn.new) == (4, 6) and "/logical_resume/completed_tool_rounds" in turn.invalidates
    assert [ch.item for ch in c.changes if ch.kind == "event"] == [
        "event 2 (tool_start) of run source-run", "event 3 (tool_end) of run source-run",
        "event 4 (tool_start) of run source-run", "event 5 (tool_end) of run source-run"]
    assert encode(apply_patch(a, to_patch(c))) == pb
    assert {d.name: d.changed for d in c.components} == {"payload": True, "snapshot": True, "logical_resume": True}
    # the descriptors: every evidence field that binds what changed
    cd = compare_documents(da, db, "descriptor")
    assert [ch.old_pointer for ch in cd.changes] == [
        "/content_digest", "/descriptor_digest", "/logical_resume/checkpoint_ms",
        "/logical_resume/completed_tool_rounds", "/logical_resume/content_digest", "/logical_resume/evidence_digest",
        "/logical_resume/size_bytes", "/size_bytes", "/snapshot/content_digest", "/snapshot/evidence_digest",
        "/snapshot/size_bytes"]
    assert cd.summary() == "11 fields changed"
    rounds = next(ch for ch in cd.changes if ch.old_pointer == "/logical_resume/completed_tool_rounds")
    assert (rounds.old, rounds.new, rounds.invalidates) == (4, 6, ("/logical_resume/evidence_digest",
                                                                   "/descriptor_digest"))


def test_pretty_printed_copy_has_no_changes():
    pretty = json.dumps(json.loads(GP), indent=2, sort_keys=False).encode() + b"\n"
    reordered = json.dumps(json.loads(GP), indent=1, sort_keys=True)[::-1][::-1].encode()
    for other in (pretty, reordered):
        c = compare_documents(GP, other)
        assert c.equal and c.changes == [] and c.summary() == "no changes"
        assert c.bytes_equal is False
        assert to_patch(c) == []
    # the components are canonical bytes: the same digests, while the files' own digests differ
    comps = {d.name: d for d in compare_documents(GP, pretty).components}
    assert comps["payload"].changed and not comps["snapshot"].changed and not comps["logical_resume"].changed


def test_identical_files():
    c = compare_documents(GD, GD, "descriptor")
    assert c.equal and c.bytes_equal and [d.changed for d in c.components] == [False]


def test_deep_values_take_an_explicit_stack():
    depth = 10_000
    a: list = []
    for _ in range(depth - 1):
        a = [a]
    b: list = ["leaf"]
    for _ in range(depth - 1):
        b = [b]
    c = compare_values({"unknown": a}, {"unknown": b})
    (ch,) = c.changes
    assert ch.op == "added" and ch.new == "leaf" and ch.new_pointer == "/unknown" + "/0" * (depth - 1) + "/0"
    assert dump_json(b) == b"[" * depth + b'"leaf"' + b"]" * depth


# -- the JSON Patch property ----------------------------------------------------------------------------

_keys = st.sampled_from(["a", "b", "~", "/", "~1", "", "role", "id", "sequence"])
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.5]),
                     st.sampled_from(["x", "y", "assistant"]))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(_keys, inner, max_size=4)), max_leaves=12)
_message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]),
                                  "content": st.lists(st.one_of(
                                      st.fixed_dictionaries({"type": st.just("tool_use"),
                                                             "id": st.sampled_from(["c1", "c2"])}),
                                      st.fixed_dictionaries({"type": st.just("text"), "text": _scalars})),
                                      max_size=2)})
_event = st.fixed_dictionaries({"sequence": st.integers(0, 5), "event": _values})
_run = st.fixed_dictionaries({"snapshot": st.fixed_dictionaries({"id": st.sampled_from(["r1", "r2", "r3"]),
                                                                 "status": _scalars}),
                              "events": st.lists(_event, max_size=5)})
_payload = st.fixed_dictionaries({
    "snapshot": st.fixed_dictionaries({
        "session": st.fixed_dictionaries({"messages": st.lists(_message, max_size=6), "x": _values}),
        "run_records": st.lists(st.one_of(_run, _scalars), max_size=4),
        "artifacts": st.lists(st.one_of(st.fixed_dictionaries({"artifact_id": st.sampled_from(["a", "b", "c"]),
                                                               "content": _scalars}), _values), max_size=4)}),
    "logical_resume": st.one_of(st.none(), _values)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.tuples(_values, _values), st.tuples(_payload, _payload)), st.sampled_from(["payload",
                                                                                               "descriptor"]))
def test_patch_turns_a_into_b(pair, kind):
    a, b = pair
    c = compare_values(a, b, kind)
    assert c.equal == (encode(a) == encode(b))
    assert encode(apply_patch(a, to_patch(c))) == encode(b)
    for ch in c.changes:
        assert (ch.old is MISSING) == (ch.op == "added") and (ch.new is MISSING) == (ch.op == "removed")


@pytest.mark.parametrize("seed", range(3))
def test_patch_on_edited_sessions(seed):
    import random

    r = random.Random(seed)
    a = add_tool_rounds(G, r.randint(0, 4))
    b = copy.deepcopy(add_tool_rounds(G, r.randint(0, 4)))
    msgs = b["snapshot"]["session"]["messages"]
    if len(msgs) > 2:
        del msgs[r.randrange(len(msgs))]
    msgs.insert(r.randrange(len(msgs) + 1), {"role": "user", "content": [{"type": "text", "text": "?"}]})
    c = compare_values(a, b)
    assert encode(apply_patch(a, to_patch(c))) == encode(b)


def test_map_pointer_follows_the_alignment():
    a = add_tool_rounds(G, 1)
    b = copy.deepcopy(a)
    b["snapshot"]["session"]["messages"].insert(0, {"role": "user", "content": [{"type": "text", "text": "first"}]})
    c = compare_values(a, b)
    assert c.map_pointer("/snapshot/session/messages/2/content/0") == "/snapshot/session/messages/3/content/0"
    assert c.map_pointer("/snapshot/session/messages/3/content/0", to="a") == "/snapshot/session/messages/2/content/0"
    assert c.map_pointer("/snapshot/session/messages/0", to="a") is None  # added: no counterpart in A
    assert c.map_pointer("/logical_resume/turn") == "/logical_resume/turn"


def test_locate_spans_in_canonical_and_pretty_files():
    from inspector.checkpoint.analysis.compare import locate

    pointers = ["/logical_resume/messages/0/content/0/text", "/snapshot/session/config/auto_compact_threshold",
                "/snapshot/session/id", "/snapshot/run_records/0", "/missing", ""]
    spans = locate(GP, G, pointers)
    assert spans["/logical_resume/messages/0/content/0/text"] == (266, 286, True)
    assert GP[266:286] == b'"retain exact state"'
    assert {p: GP[s:e] for p, (s, e, _c) in spans.items() if p not in ("", "/snapshot/run_records/0")} == {
        "/logical_resume/messages/0/content/0/text": b'"retain exact state"',
        "/snapshot/session/config/auto_compact_threshold": b"0.800000011920929",
        "/snapshot/session/id": b'"session-checkpoint-1"'}
    assert spans[""] == (0, len(GP), True) and "/missing" not in spans
    s, e, _c = spans["/snapshot/run_records/0"]
    assert orjson.loads(GP[s:e]) == G["snapshot"]["run_records"][0]
    pretty = json.dumps(G, indent=2).encode()
    s, e, canonical = locate(pretty, G, ["/snapshot/session/id"])["/snapshot/session/id"]
    assert pretty[s:e] == b'"session-checkpoint-1"' and canonical is False


def test_value_text_spells_a_value_as_its_file_does():
    """``value_text``: the file's spelling, the decoded value only when written otherwise; an object keeps its
    spelling without the whitespace between tokens (inside strings kept), cut to the limit."""
    from inspector.checkpoint.analysis.compare_text import locate, value_text

    data = b'{ "a" : 1.0e2, "b": [ 1 ,  "x  y" ], "c": "\\u00e9", "d": 5, "e": {"k":   "' + b"v" * 300 + b'"} }'
    value = orjson.loads(data)
    spans = locate(data, value, ["/a", "/b", "/c", "/d", "/e"])
    texts = {p: value_text(v, data, spans[p], 40) for p, v in
             (("/a", 100.0), ("/b", value["b"]), ("/c", "é"), ("/d", 5), ("/e", value["e"]))}
    assert texts == {"/a": "1.0e2 (= 100.0)", "/b": '[1,"x  y"]', "/c": '"\\u00e9" (= "é")', "/d": "5",
                     "/e": '{"k":"' + "v" * 33 + "…"}
    assert value_text(100.0, data, None, 40) == "100.0"  # not located: the decoded value


@pytest.mark.parametrize("pretty", [False, True], ids=["canonical", "pretty-printed"])
def test_component_digests_are_the_pinned_ones_sliced_or_encoded(pretty, monkeypatch):
    """The digest summary's components (FORMAT.md 3.2) of the golden pair, pinned by the reference's own test: a
    canonical side's are hashed from its slices of the file (no component is encoded), a pretty-printed side's from
    their canonical encoding."""
    import orjson as _orjson

    from inspector.checkpoint.analysis import compare as C

    a = (GOLDEN / "payload-with-resume.json").read_bytes()
    b = _orjson.dumps(_orjson.loads(a), option=_orjson.OPT_INDENT_2) if pretty else a
    encoded = []
    real = C.encode
    monkeypatch.setattr(C, "encode", lambda v: encoded.append(v) or real(v))
    got = {c.name: (c.old, c.new) for c in C.compare_documents(a, b).components}
    snap = "sha256:8e08a5afbc93ae80421ee0a6d366b5b435fcb908a2698a2f4d00c63e862b7b10"
    lr = "sha256:d114b0ee11cd2e9e855ef04929f9f3683310ff0d45ddd4179dd5eb8411dc595d"
    assert got["snapshot"] == (snap, snap) and got["logical_resume"] == (lr, lr)
    va = _orjson.loads(a)
    assert sum(isinstance(v, dict) and v == va["snapshot"] for v in encoded) == (1 if pretty else 0)
