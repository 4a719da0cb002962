"""The fast path's typed check in msgspec (``fastcheck.checker``) never accepts what the Python schema
walk (``fastpath._compile``) refuses, collects the same floats when it accepts, and declines (so the
walk, then the exact path, decide) on each reason the fast path relies on."""

import copy
import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.checkpoint.schema import model as S
from inspector.checkpoint import verify
from inspector.checkpoint.read.fastcheck import checker
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, _compile, decode_fast
from tests.conftest import CASES, CASES_PINNED, GOLDEN, SHARED

WALK = _compile(S.PAYLOAD)
FAST = checker(S.PAYLOAD, _compile)
RICH = SHARED / "fixtures" / "cases-pinned" / "001-valid-rich-resume.payload.json"


def _payloads():
    out = sorted(GOLDEN.glob("payload-*.json"))
    for folder in (CASES, CASES_PINNED):
        for line in (folder / "cases.jsonl").read_bytes().split(b"\n"):
            if line.strip():
                out.append(folder / json.loads(line)["payload"])
    return out


def _walk(value):
    """The Python walk's verdict and floats: (True, floats) or (False, None)."""
    floats = []
    try:
        WALK(value, 0, floats)
    except NotFast:
        return False, None
    return True, floats


def _agree(value) -> bool:
    """Assert msgspec accepting implies the walk accepting, with the same floats; return msgspec's answer."""
    floats = []
    fast = FAST(value, floats)
    if fast:
        walked, walk_floats = _walk(value)
        if not walked:  # only an integer over 2**64 - 1 in a u64 field: the re-encoding refuses it
            with pytest.raises(TypeError):
                orjson.dumps(value)
            return fast
        assert sorted(floats, key=repr) == sorted(walk_floats, key=repr)
    else:
        assert floats == []
    return fast


@pytest.mark.parametrize("path", _payloads(), ids=lambda p: p.name)
def test_typed_check_agrees_with_the_schema_walk_on_every_fixture(path):
    try:
        value = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        pytest.skip("not JSON")
    fast = _agree(value)
    if _walk(value)[0] and type(value) is dict:
        # everything the walk accepts in the fixtures, msgspec proves too (the fast check is used)
        assert fast, path.name


def test_typed_check_proves_the_rich_payloads():
    for path in (RICH, GOLDEN / "payload-with-resume.json"):
        value = orjson.loads(path.read_bytes())
        floats = []
        assert FAST(value, floats)
        assert floats == _walk(value)[1]


def _leaves(value):
    """(parent, key) of every value in the document (explicit stack)."""
    out = []
    stack = [value]
    while stack:
        v = stack.pop()
        items = v.items() if type(v) is dict else enumerate(v) if type(v) is list else ()
        for k, x in items:
            out.append((v, k))
            stack.append(x)
    return out


_RICH_VALUE = orjson.loads(RICH.read_bytes())
_SLOTS = len(_leaves(_RICH_VALUE))
_REPLACEMENTS = [None, True, False, 0, -1, 1.5, 0.1, 4294967296, 1 << 64, -(1 << 63) - 1, "", "x",
                 "2026-01-01T00:00:00Z", "2026-01-01T00:00:00+00:00", [], [1], {}, {"type": "text"},
                 {"rule": "x"}, [[[]]], "Execute"]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, _SLOTS - 1), st.sampled_from(["replace", "delete", "add", "nest"]),
       st.integers(0, len(_REPLACEMENTS) - 1))
def test_typed_check_never_accepts_what_the_walk_refuses_under_value_mutation(slot, how, r):
    value = copy.deepcopy(_RICH_VALUE)
    parent, key = _leaves(value)[slot]
    if how == "replace":
        parent[key] = copy.deepcopy(_REPLACEMENTS[r])
    elif how == "delete":
        if type(parent) is dict:
            del parent[key]
        else:
            parent.pop(key)
    elif how == "add":
        if type(parent) is dict:
            parent["unknown_" + str(r)] = copy.deepcopy(_REPLACEMENTS[r])
        else:
            parent.append(copy.deepcopy(parent[key]))  # a repeated element (a hash set's, maybe)
    else:
        x = parent[key]
        for _ in range(130):
            x = [x]
        parent[key] = x
    _agree(value)


def _at(value, path):
    node = value
    for p in path[:-1]:
        node = node[int(p)] if type(node) is list else node[p]
    return node, (int(path[-1]) if type(node) is list else path[-1])


# Each reason the fast path declines for: msgspec declines, the walk refuses, and verify's report is the
# exact path's (decode_fast raises NotFast, not NotCanonical: the exact path reads the file).
_DECLINES = [
    ("snapshot/session/unknown_key", 1, "add"),                                          # unknown key
    ("snapshot/session/id", None, "delete"),                                             # missing required key
    ("snapshot/run_records/1/events/22/event/importance", 0.7, "set"),                   # f32 not an f32 image
    ("snapshot/run_records/1/events/22/event/importance", 1, "set"),                     # integer in a float field
    ("snapshot/session/cost_records/0/timestamp", "2026-09-01T12:00:00+02:00", "set"),   # timestamp not chrono's
    ("snapshot/session/config/permission_policy/deny/0", "Bash(rm:*)", "set"),          # plain-string rule
    ("snapshot/session/durable_memory_binding/recallPolicy", None, "set"),               # null where omitted
    ("snapshot/run_records/0/snapshot/event_count", 1 << 64, "set"),                              # u64 over 2**64 - 1
    ("snapshot/run_records/0/snapshot/event_count", -1, "set"),                                   # negative u64
    ("snapshot/run_records/0/snapshot/event_count", True, "set"),                                 # bool in an integer field
    ("snapshot/run_records/1/events/22/event/type", "no_such_event", "set"),             # unknown tag
    ("snapshot/session/messages/0/content/0/text", [[["deep"]]], "deep"),                        # past serde's depth
    ("snapshot/session/config/confirmation_policy/yolo_lanes", ["Query", "Query"], "set"),      # repeated set element
    ("snapshot/session/config/enforce_active_skill_tool_restrictions", False, "add"),          # written, but omitted
    ("snapshot/session/messages/2/content/0/redaction_reviewed", False, "add"),                 # written, but omitted
    ("snapshot/session/messages/2/content/0/trust", "workspace_data", "add"),                   # written, but omitted
    ("snapshot/session/messages/2/content/0/content", 5, "set"),                                # neither string nor array
    ("snapshot/session/llm_config", {"provider": "p", "model": "m", "api_key": "k", "base_url": None},
     "add"),                                                                                    # never written (api_key)
]


@pytest.mark.parametrize("path, new, how", _DECLINES, ids=[d[0].split("/")[-1] + "-" + d[2] for d in _DECLINES])
def test_declined_reasons_fall_back_and_the_report_is_the_exact_paths(monkeypatch, path, new, how):
    from inspector.checkpoint.read import door  # the one door to a payload: the readers to switch off

    value = orjson.loads(RICH.read_bytes())
    parts = path.split("/")
    parent, key = _at(value, parts)
    if how == "add":
        parent[key] = new
    elif how == "delete":
        assert key in parent
        del parent[key]
    elif how == "deep":
        x = "deep"
        for _ in range(130):
            x = [x]
        parent[key] = x
    else:
        assert key in parent if type(parent) is dict else key < len(parent)
        parent[key] = new
    if how != "deep" and new != 1 << 64:
        floats = []
        assert not FAST(value, floats) and floats == []
    assert not _walk(value)[0]
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # 2**64 cannot be printed by orjson
        data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    with pytest.raises(NotFast) as e:
        decode_fast(data)
    assert not isinstance(e.value, NotCanonical)

    def refuse(*a, **kw):
        raise NotFast
    fast = verify(data, None)
    with monkeypatch.context() as m:
        m.setattr(door, "decode_fast", refuse)
        m.setattr(door, "decode_typed", refuse)
        exact = verify(data, None)
    key_of = lambda f: (f.rule.id, f.verdict, f.message, f.locations, f.expected, f.actual, f.notes, f.order)
    assert [key_of(f) for f in fast.findings] == [key_of(f) for f in exact.findings]
    assert fast.root_cause is not None


def test_u64_over_the_range_passes_msgspec_but_not_the_fast_path():
    """msgspec's integer bounds stop at int64: a u64 field over 2**64 - 1 passes its check, and the fast
    path still declines (orjson cannot print the value, so the re-encoding fails: NotFast)."""
    value = orjson.loads(RICH.read_bytes())
    value["snapshot"]["run_records"][0]["snapshot"]["event_count"] = 1 << 64
    assert FAST(value, [])
    assert not _walk(value)[0]


def _exact_report(monkeypatch, data):
    from inspector.checkpoint.read import door  # the one door to a payload: the readers to switch off

    def refuse(*a, **kw):
        raise NotFast
    with monkeypatch.context() as m:
        m.setattr(door, "decode_fast", refuse)
        m.setattr(door, "decode_typed", refuse)
        return verify(data, None)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, _SLOTS - 1), st.integers(0, len(_REPLACEMENTS) - 1))
def test_verdicts_equal_the_exact_paths_under_canonical_value_mutation(monkeypatch, slot, r):
    """A typed value changed anywhere, written canonically (so the fast path's checks, not the parse,
    decide): verify's report equals the exact path's, finding by finding."""
    value = copy.deepcopy(_RICH_VALUE)
    parent, key = _leaves(value)[slot]
    parent[key] = copy.deepcopy(_REPLACEMENTS[r])
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # 2**64: not printable by orjson
        return
    fast = verify(data, None)
    exact = _exact_report(monkeypatch, data)
    key_of = lambda f: (f.rule.id, f.verdict, f.message, f.locations, f.expected, f.actual, f.notes, f.order)
    assert [key_of(f) for f in fast.findings] == [key_of(f) for f in exact.findings]
    assert (fast.canonical_bytes, fast.expected_descriptor) == (exact.canonical_bytes, exact.expected_descriptor)


def test_the_declined_edits_are_accepted_when_written_as_the_reference_writes_them():
    """Controls for the decline cases above: the same places, written canonically, pass both checks."""
    value = orjson.loads(RICH.read_bytes())
    config = value["snapshot"]["session"]["config"]
    value["snapshot"]["session"]["llm_config"] = {"provider": "p", "model": "m", "base_url": None}
    config["enforce_active_skill_tool_restrictions"] = True
    config["confirmation_policy"]["yolo_lanes"] = ["Query"]
    block = value["snapshot"]["session"]["messages"][2]["content"][0]
    block.update(redaction_reviewed=True, trust="external")
    block["content"] = [{"type": "text", "text": "ok"}]
    floats = []
    assert FAST(value, floats)
    assert _walk(value) == (True, floats)
