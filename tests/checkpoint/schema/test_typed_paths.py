"""serde's less-travelled paths, for every typed struct and enum of the schema (FORMAT.md 4-4.16).

For each struct, tagged/untagged enum and unit enum in :data:`schema.ALL_TYPES`, the first place
it occurs in a valid payload (cases-pinned valid cases, cases valid cases, golden; plus one base
with a ``tool_end.error_kind`` of every ``ToolErrorKind`` variant and a workspace change set) is
rewritten in the ways serde reads but the reference never writes:

* ``array-full``: the struct as a JSON array of all its fields (serde ``visit_seq``);
* ``array-short``: cut before the first defaulted field that precedes a required one (serde fills
  defaults and goes on: ``invalid length <index of the next required field>``), else before the
  last required field;
* ``array-long``: one element too many;
* ``tag-index`` / ``tag-index-out``: a tagged enum's ``type`` given as its variant index / one past
  the last (accepted only where serde reads through buffered content);
* ``enum-index``: a unit enum given as the integer 0;
* ``plain-string`` / ``rule-array``: ``PermissionRule`` as a bare string / a one-element array;
* ``untagged-number``: an untagged enum given a number (``data did not match any variant``).

The expected verdicts (rule, code, full message with line/column) in ``data/typed_paths.json``
come from the reference (``oracle2 verify``), not from the engine. Re-record them with::

    .venv/bin/python tests/checkpoint/schema/test_typed_paths.py --record

``test_pins_match_reference`` re-checks them against ``oracle2`` when it is built here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

if __name__ == "__main__":  # --record: run from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from inspector.checkpoint import decode, encode, verify
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.digest import DESCRIPTOR_DOMAIN, content_digest, descriptor_digest_input, domain_digest
from tests.conftest import CASES, CASES_PINNED, GOLDEN

PINS_FILE = Path(__file__).parent / "data" / "typed_paths.json"
ORACLE = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")

_ERROR_KINDS = [
    {"type": "version_conflict", "path": "a.rs", "expected": "v1", "actual": None},
    {"type": "remote_git_conflict", "code": "409", "message": "diverged"},
    {"type": "not_found", "path": "b.rs"},
    {"type": "invalid_argument", "message": "bad"},
    {"type": "hook_denied", "reason": "policy", "retryable": True, "retry_after_ms": 5},
    {"type": "unsupported", "message": "no"},
    {"type": "timeout", "op": "exec", "duration_ms": 1000},
    {"type": "transport", "op": "fetch"},
    {"type": "cancelled", "op": "exec"},
    {"type": "partial_failure", "failed": 1, "total": 3},
    {"type": "rate_limited", "retry_after_ms": None},
]


def _bases() -> list[tuple[str, dict, dict]]:
    """``(name, payload, descriptor)`` of every valid base, in a fixed order."""
    out = []
    for d, rows in ((CASES_PINNED, CASES_PINNED / "cases.jsonl"), (CASES, CASES / "cases.jsonl")):
        for line in rows.read_bytes().splitlines():
            c = json.loads(line) if line.strip() else None
            if c and c["ok"]:
                out.append((c["id"], orjson.loads((d / c["payload"]).read_bytes()),
                            orjson.loads((d / c["descriptor"]).read_bytes())))
    for p in sorted(GOLDEN.glob("payload-*.json")):
        out.append((p.stem, orjson.loads(p.read_bytes()),
                    orjson.loads((GOLDEN / p.name.replace("payload-", "descriptor-")).read_bytes())))
    # one base with a tool_end error_kind of every ToolErrorKind variant
    name, payload, descriptor = out[0]
    payload = json.loads(json.dumps(payload))
    run = payload["snapshot"]["run_records"][0]
    tool_end = next(e for e in run["events"] if e["event"]["type"] == "tool_end")
    seq = run["snapshot"]["event_count"]
    for i, kind in enumerate(_ERROR_KINDS):
        ev = json.loads(json.dumps(tool_end))
        ev["event"]["error_kind"] = kind
        ev["sequence"] = seq + i
        run["events"].append(ev)
    run["snapshot"]["event_count"] = seq + len(_ERROR_KINDS)
    run["snapshot"]["workspace_change_set"] = {
        "base_tree": "a" * 40, "result_tree": "b" * 40, "patch_digest": "sha256:" + "c" * 64, "patch_bytes": 4,
        "patch_base64": "ZGlmZg==", "observed_at_ms": 1788000000999}
    out.append((name + "+error-kinds", payload, descriptor))
    return out


def _occurrences(payload: dict) -> list[tuple[object, list, object]]:
    """``(type, path, tag)`` of every struct/enum occurrence in a decoded payload, outermost first.

    ``tag`` is the wire tag for the struct of a tagged enum's variant (its array form starts
    with it), else ``None``. An explicit stack, no recursion per nesting level.
    """
    out = []
    stack = [(S.PAYLOAD, payload, [], None)]
    while stack:
        t, v, path, _ = stack.pop(0)
        tt = type(t)
        if tt is S.Opt:
            if v is not None:
                stack.append((t.inner, v, path, None))
        elif tt in (S.Vec, S.Set):
            stack += [(t.inner, x, path + [i], None) for i, x in enumerate(v)]
        elif tt is S.Map:
            stack += [(t.value, x, path + [k], None) for k, x in v.items()]
        elif tt is S.Struct:
            out.append((t, path, None))
            stack += [(f.type, v[f.key], path + [f.key], None) for f in t.fields if f.key in v]
        elif tt is S.Tagged:
            st = t.variants[t.names.index(v[t.tag])][1]
            out += [(t, path, None), (st, path, v[t.tag])]
            stack += [(f.type, v[f.key], path + [f.key], None) for f in st.fields if f.key in v]
        elif tt is S.Untagged:
            out.append((t, path, None))
            if isinstance(v, list):
                stack.append((t.alternatives[1], v, path, None))
        elif tt is S.Enum:
            out.append((t, path, None))
    return out


def _as_array(t: S.Struct, v: dict, tag) -> list:
    """The struct as serde's sequence form: every field in order (absent ones at their read value)."""
    items = []
    for f in t.fields:
        if f.key in v:
            items.append(v[f.key])
        elif isinstance(f.type, S.Opt) or f.default is S.REQUIRED:
            items.append(None)
        else:
            items.append(f.default)
    return ([tag] if tag is not None else []) + items


def _short_length(t: S.Struct) -> int | None:
    """Where ``array-short`` cuts: before the first defaulted field followed by a required one,
    else before the last required field; ``None`` if every field has a default."""
    required = [i for i, f in enumerate(t.fields) if f.default is S.REQUIRED]  # Option too, in a sequence
    if not required:
        return None
    for i, f in enumerate(t.fields):
        if f.default is not S.REQUIRED and any(j > i for j in required):
            return i
    return required[-1]


def _mutations(t, v, tag) -> list[tuple[str, object]]:
    if isinstance(t, S.Struct):
        full = _as_array(t, v, tag)
        head = 1 if tag is not None else 0
        out = [("array-full", full), ("array-long", full + [None])]
        k = _short_length(t)
        out.append(("array-short", full[: head + (k if k is not None else 0)]))
        return out
    if isinstance(t, S.Tagged):
        return [("tag-index", dict(v, **{t.tag: t.names.index(v[t.tag])})),
                ("tag-index-out", dict(v, **{t.tag: len(t.variants)}))]
    if isinstance(t, S.Enum):
        return [("enum-index", 0)]
    if isinstance(t, S.Untagged) and t.as_object is not None:
        return [("plain-string", v[t.as_object]), ("rule-array", [v[t.as_object]])]
    if isinstance(t, S.Untagged):
        return [("untagged-number", 5)]
    return []


def _set_at(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def cases() -> list[tuple[str, bytes, bytes]]:
    """``(id, payload bytes, descriptor bytes)`` for every mutation; the descriptor re-pointed."""
    seen: set = set()
    out = []
    for base_name, payload, descriptor in _bases():
        typed = decode(encode(payload))
        for t, path, tag in _occurrences(typed):
            key = id(t)
            if key in seen or not path:
                continue
            seen.add(key)
            node = typed
            for p in path:
                node = node[p]
            for kind, value in _mutations(t, node, tag):
                doc = json.loads(json.dumps(typed))
                _set_at(doc, path, value)
                data = encode(doc)
                d = dict(descriptor, size_bytes=len(data), content_digest=content_digest(data))
                d["descriptor_digest"] = domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d))
                name = getattr(t, "name", "?")
                out.append((f"{name}/{kind}@{base_name}", data, encode(d)))
    return out


CASES_ALL = cases()


def _pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def _root(report) -> dict:
    rc = report.root_cause
    if rc is None:
        return {"ok": True, "rule": None, "code": None, "message": None}
    return {"ok": False, "rule": rc.rule.id, "code": rc.rule.code, "message": rc.message}


def test_every_typed_struct_and_enum_is_exercised():
    names = {c[0].split("/")[0] for c in CASES_ALL}
    payload_types = {t.name for t in S.ALL_TYPES} - {
        # not in a payload: the descriptor (D-PARSE) and the tool_end metadata structs read by
        # the S-TOOLEND rules with serde_json::from_value (test_typed.py: decode_value)
        "SessionCheckpointDescriptorV1", "SessionSnapshotEvidenceV1", "SessionLogicalResumeEvidenceV1",
        "ToolResultTransformBindingV1", "ToolResultEvidenceV1", "ToolResultLossModeV1",
        # the payload itself (no enclosing value to rewrite) and the RuleRepr struct alternative
        "SessionCheckpointPayloadV1", "RuleRepr::Struct",
    }
    assert payload_types - names == set()
    assert sorted(_pins()) == sorted(c[0] for c in CASES_ALL)


@pytest.mark.parametrize("case", CASES_ALL, ids=[c[0] for c in CASES_ALL])
def test_root_cause_matches_reference_pin(case):
    name, payload, descriptor = case
    assert _root(verify(payload, descriptor)) == _pins()[name]


@pytest.mark.skipif(not (os.path.isfile(ORACLE) and os.access(ORACLE, os.X_OK)), reason="oracle2 not built here")
def test_pins_match_reference():
    """The pins are what the reference says today (guards against a stale data file)."""
    assert _record() == _pins()


def _record() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        p, d = Path(tmp) / "p.json", Path(tmp) / "d.json"
        for name, payload, descriptor in CASES_ALL:
            p.write_bytes(payload)
            d.write_bytes(descriptor)
            r = subprocess.run([ORACLE, "verify", str(p), str(d)], capture_output=True, timeout=60)
            assert r.returncode in (0, 1), r.stderr
            j = json.loads(r.stdout)
            out[name] = {k: j.get(k) for k in ("ok", "rule", "code", "message")}
    return out


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    PINS_FILE.write_text(json.dumps(_record(), indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded {len(CASES_ALL)} pins to {PINS_FILE}")
