"""The diagnosis' own tables (hazards.py) stay in step with the schema they describe: every f32
field of the payload's typed layout (FORMAT.md 4.16) is named by ``f32_field`` with its struct and
field name, and no f64 or integer field is taken for one."""

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema import kinds as T
from inspector.checkpoint.diagnosis.hazards import f32_field


def _leaf_pointers(kind) -> dict[str, str]:
    """``{concrete pointer (indices 0, map keys 'k'): struct.field}`` of every field of type ``kind``."""
    out = {}
    stack = [(S.PAYLOAD, "", None, 0)]
    while stack:
        t, p, owner, depth = stack.pop()
        if depth > 40:
            continue
        if t is kind:
            out[p] = owner
        elif isinstance(t, T.Opt):
            stack.append((t.inner, p, owner, depth))
        elif isinstance(t, (T.Vec, T.Set)):
            stack.append((t.inner, p + "/0", owner, depth + 1))
        elif isinstance(t, T.Map):
            stack.append((t.value, p + "/k", owner, depth + 1))
        elif isinstance(t, T.Struct):
            stack.extend((f.type, f"{p}/{f.key}", f"{t.name}.{f.key}", depth + 1) for f in t.fields)
        elif isinstance(t, T.Tagged):
            stack.extend((s, p, owner, depth + 1) for _n, s in t.variants)
        elif isinstance(t, T.Untagged):
            stack.extend((a, p, owner, depth + 1) for a in t.alternatives)
    return out


def test_every_f32_field_of_the_schema_is_named():
    fields = _leaf_pointers(T.F32)
    assert len(fields) == 10
    for pointer, owner in fields.items():
        name = f32_field(pointer)
        assert name is not None, pointer
        struct, field = owner.split(".", 1)
        # events are named by their wire tag (memory_stored.importance), structs by their type
        assert name.endswith("." + field), (pointer, name)
        if "::" not in struct:
            assert name == owner, (pointer, name)


def test_no_other_number_is_taken_for_an_f32():
    for kind in (T.F64, T.U64, T.USIZE, T.U32, T.I64):
        for pointer in _leaf_pointers(kind):
            assert f32_field(pointer) is None, pointer


def _struct_pointers() -> dict[str, set]:
    """``{concrete pointer: {struct names the schema allows there}}`` of every typed object."""
    out: dict[str, set] = {}
    stack = [(S.PAYLOAD, "", 0)]
    while stack:
        t, p, depth = stack.pop()
        if depth > 40:
            continue
        if isinstance(t, T.Opt):
            stack.append((t.inner, p, depth))
        elif isinstance(t, (T.Vec, T.Set)):
            stack.append((t.inner, p + "/0", depth + 1))
        elif isinstance(t, T.Map):
            stack.append((t.value, p + "/k", depth + 1))
        elif isinstance(t, (T.Struct, T.Tagged)):
            out.setdefault(p, set()).add(t.name)
            if isinstance(t, T.Struct):
                stack.extend((f.type, f"{p}/{f.key}", depth + 1) for f in t.fields)
            else:
                stack.extend((s, p, depth + 1) for _n, s in t.variants)
        elif isinstance(t, T.Untagged):
            stack.extend((a, p, depth + 1) for a in t.alternatives)
    return out


def test_every_struct_of_the_schema_is_named_by_the_diagnosis():
    from inspector.checkpoint.diagnosis.hazards import struct_name

    pointers = _struct_pointers()
    assert len(pointers) == 85
    unnamed = []
    for pointer, names in sorted(pointers.items()):
        if any("::" in n for n in names):
            continue  # an event or content block: named by its tag from the typed value
        got = struct_name(pointer, None)
        if len(names) == 1:
            assert got in names, (pointer, got, names)
        else:
            unnamed.append(pointer)  # which struct depends on the event's tag: not named
            assert got is None, (pointer, got)
    assert unnamed == ["/snapshot/run_records/0/events/0/event/snapshot"]
    assert struct_name("/snapshot/run_records/3/events/7/event", {"type": "tool_end"}) == "tool_end event"


def test_unknown_key_in_an_artifact_names_its_struct():
    import json

    from inspector.checkpoint import verify
    from tests.conftest import GOLDEN

    doc = json.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    doc["snapshot"]["artifacts"] = [{"artifact_id": "a1", "artifact_uri": "u", "tool_name": "t", "content": "c",
                                     "original_bytes": 1, "shown_bytes": 1, "extra": 1}]
    report = verify(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode(), None)
    assert report.root_cause.rule.id == "P-CANONICAL"
    assert report.for_rule("P-CANONICAL").notes[1] == (
        "unknown key, dropped by the reference's decode: first at byte 707 at /snapshot/artifacts/0/extra; key "
        "'extra' is not a field of ToolArtifact (which does not deny unknown fields: the key is dropped on read)")
