"""Non-canonical payloads without the pure-Python path: pretty-printed, CRLF, reordered keys.

``fastpath.NotCanonical``: a file that is exactly orjson's pretty or compact printing of the value
it parses to (sorted or in its own key order, CRLF line ends and one final newline allowed) is read
by orjson, proven typed by the schema walk, and reported P-CANONICAL. Every report must equal the
exact path's, finding by finding, on such variants of every fixture payload.
"""

import json

import orjson
import pytest

from inspector.checkpoint import verify
from inspector.checkpoint.read import door  # the one door to a payload: the readers to switch off
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, decode_fast
from tests.conftest import CASES, CASES_PINNED, GOLDEN


def _reorder(v):
    """Keys in reverse order at every level (explicit stack: no recursion per level)."""
    out = [None]
    stack = [(v, out, 0)]
    while stack:
        x, parent, slot = stack.pop()
        if isinstance(x, dict):
            y = {}
            parent[slot] = y
            for k in reversed(list(x)):
                y[k] = None
                stack.append((x[k], y, k))
        elif isinstance(x, list):
            y = [None] * len(x)
            parent[slot] = y
            for i, e in enumerate(x):
                stack.append((e, y, i))
        else:
            parent[slot] = x
    return out[0]


def _variants(data: bytes) -> dict[str, bytes]:
    v = orjson.loads(data)
    pretty = orjson.dumps(v, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return {
        "pretty": pretty,
        "pretty-crlf-newline": pretty.replace(b"\n", b"\r\n") + b"\r\n",
        "pretty-reordered": orjson.dumps(_reorder(v), option=orjson.OPT_INDENT_2),
        "compact-reordered": orjson.dumps(_reorder(v)),
        "compact-newline": orjson.dumps(v, option=orjson.OPT_SORT_KEYS) + b"\n",
    }


def _pairs():
    out = []
    for folder in (CASES, CASES_PINNED):
        for line in (folder / "cases.jsonl").read_bytes().split(b"\n"):
            if line.strip():
                c = json.loads(line)
                out.append((folder / c["payload"], folder / c["descriptor"]))
    out.append((GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"))
    return out


PAIRS = _pairs()


def _exact(monkeypatch, payload, descriptor):
    def refuse(*a, **kw):
        raise NotFast
    with monkeypatch.context() as m:
        m.setattr(door, "decode_fast", refuse)
        m.setattr(door, "decode_typed", refuse)
        return verify(payload, descriptor)


def _same(a, b):
    key = lambda f: (f.rule.id, f.verdict, f.message, f.locations, f.expected, f.actual, f.notes, f.order, f.occurrences)
    assert [key(f) for f in a.findings] == [key(f) for f in b.findings]
    assert (a.canonical_bytes, a.expected_descriptor, a.notes) == (b.canonical_bytes, b.expected_descriptor, b.notes)
    assert [(r.label, r.stated, r.recomputed) for r in a.digests] == [(r.label, r.stated, r.recomputed) for r in b.digests]


@pytest.mark.parametrize("payload,descriptor", PAIRS, ids=[p.name for p, _ in PAIRS])
def test_relaid_variants_get_the_exact_paths_report(monkeypatch, payload, descriptor):
    data = payload.read_bytes()
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        pytest.skip("not JSON: no variants")
    desc = descriptor.read_bytes()
    for name, variant in _variants(data).items():
        fast = verify(variant, desc)
        exact = _exact(monkeypatch, variant, desc)
        _same(fast, exact)
        assert fast.for_rule("P-CANONICAL").verdict.value in ("fail", "not_reached", "n/a", "not reached"), name


def test_relaid_path_is_taken_for_the_golden_payload():
    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    for name, variant in _variants(data).items():
        with pytest.raises(NotCanonical) as e:
            decode_fast(variant)
        assert orjson.dumps(e.value.value, option=orjson.OPT_SORT_KEYS) == data, name


def test_duplicate_key_or_respelled_number_is_left_to_the_exact_path():
    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    pretty = orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    dup = pretty.replace(b'  "schema": ', b'  "schema": "x",\n  "schema": ', 1)
    assert dup != pretty
    with pytest.raises(NotFast) as e:
        decode_fast(dup)
    assert not isinstance(e.value, NotCanonical)
    spelled = pretty.replace(b'"schema_version": 1', b'"schema_version": 1.0e0', 1)
    assert spelled != pretty
    with pytest.raises(NotFast) as e:
        decode_fast(spelled)
    assert not isinstance(e.value, NotCanonical)
    escaped = pretty.replace(b'"schema": "a3s', b'"schema": "\\u0061' + b'3s', 1)
    assert escaped != pretty
    with pytest.raises(NotFast) as e:
        decode_fast(escaped)
    assert not isinstance(e.value, NotCanonical)


def test_both_parsers_give_the_fast_path_the_same_value(monkeypatch):
    """msgspec (when installed) or orjson reads the value; the proof does not depend on which."""
    from inspector.checkpoint.read import fastpath

    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    first = decode_fast(data)
    monkeypatch.setattr(fastpath, "_DECODER", None)
    assert decode_fast(data) == first
    assert orjson.dumps(first, option=orjson.OPT_SORT_KEYS) == data


def test_integer_over_64_bits_in_a_free_form_value_takes_the_exact_path():
    """msgspec reads 2**64 as a Python int; orjson cannot print it: NotFast, and the report is the exact path's."""
    data = (CASES / "01-valid.payload.json").read_bytes()
    decode_fast(data)  # canonical, read by the fast path
    # a tool_use input is a free-form serde_json::Value: serde reads 18446744073709551616 as a float
    big = data.replace(b'"max":18446744073709551615', b'"max":18446744073709551616', 1)
    assert big != data
    with pytest.raises(NotFast) as e:
        decode_fast(big)
    assert not isinstance(e.value, NotCanonical)
    report = verify(big, None)
    assert report.root_cause is not None and report.root_cause.rule.id == "P-CANONICAL"


def _layout_doc():
    """A value whose printing has walked containers (near the top, or over 16 elements), printed-whole
    children with nested lines, and empty containers at several depths."""
    return {
        "a": [{"k": i, "nested": {"x": [i, i + 1, {"deep": [1.5, "é\n"]}], "e": {}}} for i in range(20)],
        "b": {"empty": [], "small": {"z": 1, "y": [{}, []]}},
        "c": "text",
    }


@pytest.mark.parametrize("opt", [orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2, 0])
def test_piecewise_layout_comparison_accepts_exactly_orjsons_printing(opt):
    from inspector.checkpoint.read.relaid import _relaid_end, _same_layout

    value = _layout_doc()
    text = orjson.dumps(value, option=opt)
    assert _relaid_end(value, text, opt, None, 1 << 16) == len(text)
    assert _relaid_end(value, text + b"\n", opt, None, 1 << 16) == len(text)
    assert _relaid_end(value, text + b"\n\n", opt, None, 1 << 16) is None
    assert _relaid_end(value, text[:-1], opt, None, 1 << 16) is None
    # every single-byte change is refused, wherever it falls (walked frame, printed child, separator)
    for i in range(0, len(text), 7):
        changed = text[:i] + (b" " if text[i:i + 1] != b" " else b"x") + text[i + 1:]
        assert _relaid_end(value, changed, opt, None, 1 << 16) is None, i
        spans = {}
        assert _same_layout(value, changed, spans, 0) is None, i
        assert spans == {}, i
    # an indentation one space short inside a printed-whole child, with the same length
    deep = b'"deep": [' if opt else b'"deep":['
    if opt & orjson.OPT_INDENT_2:
        at = text.index(deep)
        moved = text[: at - 1] + text[at:at + 9] + b" " + text[at + 9:]
        assert len(moved) == len(text) and moved != text
        assert _relaid_end(value, moved, opt, None, 1 << 16) is None


@pytest.mark.parametrize("opt", [orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2, 0])
@pytest.mark.parametrize("big", [0, 40, 400, 1 << 16])
def test_piecewise_layout_spans_are_the_byte_scanners_index(opt, big):
    from inspector.checkpoint.read.relaid import _same_layout
    from inspector.checkpoint.jsontext.lazyjson import build_index, children_of

    value = _layout_doc()
    text = orjson.dumps(value, option=opt)
    spans = {}
    assert _same_layout(value, text, spans, big) == (opt if b"\n" in text else 0, True)
    index = build_index(text, big=big)
    # the index records the large containers of two children or more; a lone child is read from its span
    assert set(index) == {s for s, rec in spans.items() if rec[1] - s >= big and len(rec[2]) >= 2}
    assert set(spans) - {0} <= {s for s, rec in spans.items() if rec[1] - s >= big}
    for start, (kind, end, starts, ends, key_starts, keys) in spans.items():
        if end - start >= big:
            ch = children_of(text, index, start, end)
            assert (ch.kind, ch.starts, ch.ends, ch.key_starts, ch.keys) == (kind, starts, ends, key_starts, keys)
    root = spans[0]
    assert root[1] == len(text) and root[0] == "object"
    assert list(root[5]) == (sorted(value) if opt != orjson.OPT_INDENT_2 else list(value))
    assert [text[s:e] for s, e in zip(root[2], root[3])] == [
        orjson.dumps(value[k], option=opt).replace(b"\n", b"\n  ") for k in root[5]]
