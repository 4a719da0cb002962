"""Differential: ``verify``'s verdict with the fast path (msgspec parse, typed check,
canonical comparison) equals the exact path's alone (``decode_fast`` switched off) on every fixture
pair, on mutated payloads and on decline reasons ``test_fastcheck.py`` does not build (FORMAT.md 3.1, 4).
Rules, verdicts, messages, locations, expected/actual values, notes, root cause, lint and notes."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.checkpoint import encode, verify
from inspector.checkpoint.read import door  # the one door to a payload: the readers to switch off
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, decode_fast
from inspector.checkpoint.read.typedfast import decode_typed
from tests.conftest import CASES, CASES_PINNED, GOLDEN, load_cases

PAIRS = [(GOLDEN / f"payload-{n}.json", GOLDEN / f"descriptor-{n}.json") for n in ("with-resume", "semantic-only")]
PAIRS += [(CASES / c["payload"], CASES / c["descriptor"]) for c in load_cases()]
PAIRS += [(p, p.with_name(p.name.replace(".payload.", ".descriptor.")))
          for p in sorted(CASES_PINNED.glob("*.payload.json"))]
RICH = (CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes()
RICH_DESC = (CASES_PINNED / "001-valid-rich-resume.descriptor.json").read_bytes()


def _declined(*a, **k):
    raise NotFast


def _report(payload: bytes, descriptor: bytes | None, exact: bool, typed: bool = True):
    """Everything a verdict shows; ``exact``: with both fast paths switched off; ``typed=False``: with the
    typed fast path (raw text fields) switched off, so the dict fast path reads what it proves."""
    with pytest.MonkeyPatch.context() as mp:
        if exact or not typed:
            mp.setattr(door, "decode_typed", _declined)
        if exact:
            mp.setattr(door, "decode_fast", _declined)
        return _shown(verify(payload, descriptor))


def _shown(r):
    return ([(f.rule.id, f.verdict, f.detail, f.locations, f.expected, f.actual, f.notes, f.occurrences, f.order)
             for f in r.findings], r.root_cause and r.root_cause.rule.id, r.lint, r.notes)


def _same_verdict(payload: bytes, descriptor: bytes | None) -> None:
    exact = _report(payload, descriptor, True)
    assert _report(payload, descriptor, False) == exact
    assert _report(payload, descriptor, False, typed=False) == exact


@pytest.mark.parametrize("decoder", [decode_fast, decode_typed], ids=["dict fast path", "typed fast path"])
def test_the_pairs_take_both_paths(decoder):
    """Not vacuous: most fixture payloads are read by each fast path (the typed one: raw text fields), some
    are not (for the typed path, pretty-printed copies are in ``test_typedfast.py``)."""
    taken = 0
    for p, _d in PAIRS:
        try:
            decoder(p.read_bytes())
            taken += 1
        except NotFast:
            pass
    assert 100 <= taken < len(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].name)
def test_verdict_equals_the_exact_paths(pair):
    _same_verdict(pair[0].read_bytes(), pair[1].read_bytes())


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(RICH) - 1),
       st.sampled_from([b"0", b"9", b"-", b".", b"e", b'"', b"}", b",", b"\\", b" ", b"", b"Z", b"1", b"E"]))
def test_verdict_equals_the_exact_paths_under_mutation(pos, replacement):
    _same_verdict(RICH[:pos] + replacement + RICH[pos + 1:], RICH_DESC)


def _event(value, kind):
    return next(r["event"] for run in value["snapshot"]["run_records"] for r in run["events"] if r["event"]["type"] == kind)


def _tool_result(value):
    return next(b for m in value["snapshot"]["session"]["messages"] for b in m["content"] if b["type"] == "tool_result")


# Reasons the fast path declines for, each as an edit of the rich payload's value (then printed canonically).
DECLINES = {
    "alias key (todos)": lambda v: v["snapshot"]["session"].__setitem__("todos", []),
    "skip_serializing key (api_key)": lambda v: v["snapshot"]["session"].__setitem__(
        "llm_config", {"api_key": "k", "base_url": None, "model": "m", "provider": "p"}),
    "default value written out (trust)": lambda v: _tool_result(v).__setitem__("trust", "workspace_data"),
    "default value written out (redaction_reviewed)": lambda v: _tool_result(v).__setitem__("redaction_reviewed", False),
    "null written where omitted (reasoning_content)": lambda v: v["snapshot"]["session"]["messages"][0].__setitem__(
        "reasoning_content", None),
    "u32 over its range": lambda v: v["snapshot"]["session"]["config"].__setitem__("max_context_length", 1 << 32),
    "integer in an f64 field": lambda v: v["snapshot"]["session"].__setitem__("total_cost", 1),
    "f32 field not an f32 image": lambda v: v["snapshot"]["session"]["config"].__setitem__("auto_compact_threshold", 0.8),
    "unknown unit-enum variant": lambda v: v["snapshot"]["session"].__setitem__("state", "Sleeping"),
    "repeated hash-set element": lambda v: v["snapshot"]["session"]["config"]["confirmation_policy"].__setitem__(
        "yolo_lanes", ["Query", "Query"]),
    "free value deeper than 127": lambda v: _event(v, "tool_execution_start").__setitem__(
        "args", json.loads("[" * 127 + "]" * 127)),
}


@pytest.mark.parametrize("reason", sorted(DECLINES))
def test_declined_and_the_verdict_is_the_exact_paths(reason):
    value = json.loads(RICH)
    DECLINES[reason](value)
    data = encode(value)
    with pytest.raises(NotFast) as e:
        decode_fast(data)
    assert not isinstance(e.value, NotCanonical)
    _same_verdict(data, RICH_DESC)


def test_keep_holds_the_parsed_payload_and_changes_no_verdict():
    """``verify(keep=)``: the working state (the parsed payload) is appended instead of being freed."""
    kept = []
    assert _report(RICH, RICH_DESC, False) == _shown(verify(RICH, RICH_DESC, keep=kept))
    assert len(kept) == 1 and json.loads(encode(kept[0].pay)) == json.loads(RICH)
