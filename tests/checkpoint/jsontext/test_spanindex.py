"""Locations in canonical payloads through the fast path's container spans (FORMAT.md 6: a finding's byte span).

``Context`` finds a pointer's byte span through ``decode_fast(spans=)``'s child spans of large
containers (no encoding of the siblings of large values), then by arithmetic inside small ones.
Every pointer of every canonical fixture payload (plus absent ones) must get exactly the span the exact
parser's span tree gives (``parse_value(nodes=True)``), with a small ``big`` so the index is used deeply.
"""

import json

import pytest

from inspector.checkpoint.read import fastpath
from inspector.checkpoint import parse_value
from inspector.checkpoint.rules.context import Context
from tests.conftest import CASES, CASES_PINNED, GOLDEN


def _payloads():
    out = [GOLDEN / "payload-with-resume.json"]
    for folder in (CASES, CASES_PINNED):
        for line in (folder / "cases.jsonl").read_bytes().split(b"\n"):
            if line.strip():
                out.append(folder / json.loads(line)["payload"])
    return out


def _pointers(v):
    ptrs, stack = [], [(v, "")]
    while stack:
        x, p = stack.pop()
        items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
        for k, y in items:
            q = p + "/" + str(k).replace("~", "~0").replace("/", "~1")
            ptrs.append(q)
            stack.append((y, q))
    return ptrs


def _exact_span(data: bytes, pointer: str):
    """The exact parser's span of ``pointer`` in ``data`` (``None`` when absent): the oracle."""
    node = parse_value(data, nodes=True)[1].find(pointer)
    return None if node is None else (node.start, node.end)


def _indexed(path):
    """``(bytes, spans, Context)`` of a payload the fast path read with its index (64-byte containers); skips a
    payload that is not canonical."""
    data = path.read_bytes()
    spans = {}
    try:
        fastpath.decode_fast(data, spans=spans, big=64)
    except fastpath.NotFast:
        pytest.skip("not canonical: no index")
    return data, spans, Context(data, None, spans=spans)


@pytest.mark.parametrize("path", _payloads()[::3], ids=lambda p: p.name)
def test_indexed_spans_equal_arithmetic(path):
    data, spans, ctx = _indexed(path)
    value = ctx.pay
    assert ctx.is_canonical and spans
    pointers = _pointers(value)
    assert len(pointers) > 20
    for q in pointers + ["/nope", "/snapshot/nope", "/snapshot/run_records/99999", "/snapshot/run_records/x"]:
        assert ctx.span("payload", q) == _exact_span(data, q), q
    assert ctx.span("payload", "") == (0, len(data))


@pytest.mark.parametrize("path", _payloads()[1::7], ids=lambda p: p.name)
def test_item_spans_taken_from_the_index_equal_arithmetic(path):
    """``item_spans`` of an array the fast path indexed reuses its recorded element spans (no
    encoding); they are the elements' exact spans."""
    data, spans, ctx = _indexed(path)
    value = ctx.pay
    reused = 0
    for q in ["/snapshot/run_records", "/snapshot/session/messages", "/logical_resume/messages"]:
        items = _exact_span(data, q) and _at(value, q)
        if not items:
            continue
        start = ctx.span("payload", q)[0]
        reused += start in spans
        starts, ends = ctx.item_spans(q, items)
        assert [(s, e) for s, e in zip(starts, ends)] == [_exact_span(data, f"{q}/{i}") for i in range(len(items))]
    assert reused


def _at(value, pointer):
    for tok in pointer.split("/")[1:]:
        value = value[tok]
    return value
