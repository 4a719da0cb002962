"""The typed fast path: msgspec structs with the large text fields kept as raw slices of the file.

Each case checks what ``decode_typed`` returns or refuses, and that ``verify``'s whole verdict is the exact
path's (and the dict fast path's) on the same bytes (``test_fastpath_verdicts._same_verdict``)."""

import orjson
import pytest

from inspector.checkpoint import encode, verify
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast
from inspector.checkpoint.read.typedfast import _canonical_escapes, decode_typed, text_of
from tests.checkpoint.read.test_fastpath_verdicts import RICH, RICH_DESC, _same_verdict


def _exact(data: bytes, pointer: str):
    """The exact parser's span of ``pointer`` in ``data`` (the oracle of every span here)."""
    from inspector.checkpoint import parse_value

    node = parse_value(data, nodes=True)[1].find(pointer)
    return None if node is None else (node.start, node.end)


def _rich():
    return orjson.loads(RICH)


def _with_text(text_token: bytes) -> bytes:
    """RICH with the first text block's ``text`` token replaced by ``text_token`` (raw JSON bytes)."""
    old = orjson.dumps(_rich()["snapshot"]["session"]["messages"][0]["content"][0]["text"])
    assert RICH.count(old) == 2  # the session's copy and the loop checkpoint's
    return RICH.replace(old, text_token)


def test_text_fields_are_raw_slices_of_the_file():
    value = decode_typed(RICH)
    block = value["snapshot"]["session"]["messages"][0]["content"][0]
    result = value["snapshot"]["session"]["messages"][2]["content"][0]
    assert type(block["text"]) is memoryview and type(result["content"]) is memoryview
    expected = _rich()["snapshot"]["session"]["messages"]
    assert bytes(block["text"]) == orjson.dumps(expected[0]["content"][0]["text"])
    assert text_of(block["text"]) == expected[0]["content"][0]["text"]
    assert text_of(result["content"]) == expected[2]["content"][0]["content"]
    assert block["type"] == "text" and text_of("plain") == "plain"
    assert encode(value) == RICH  # printed verbatim: the canonical printing of the value is the file
    assert orjson.loads(encode(value)) == _rich()


def test_spans_of_the_top_three_levels():
    spans = {}
    value = decode_typed(RICH, spans=spans)
    kind, end, starts, ends, key_starts, keys = spans[0]
    assert (kind, end, keys) == ("object", len(RICH), sorted(_rich()))
    for k, s, e, ks in zip(keys, starts, ends, key_starts):
        assert RICH[s:e] == encode(value[k]) and RICH[ks:s] == orjson.dumps(k) + b":"
    snap = spans[starts[keys.index("snapshot")]]
    assert snap[5] == sorted(_rich()["snapshot"])
    session = spans[snap[2][snap[5].index("session")]]
    i = session[5].index("messages")
    assert RICH[session[2][i]:session[3][i]] == orjson.dumps(_rich()["snapshot"]["session"]["messages"])
    assert len(spans) == sum(1 for s in spans.values() if s[0] == "object")


def test_long_arrays_of_the_top_three_levels_record_their_element_spans():
    """More than 64 run records (depth 2): the comparison records every record's exact span, and
    ``Context.item_spans`` takes them from there (no second pass over the records); the 70 messages
    (depth 3) are compared in batches, unrecorded."""
    from inspector.checkpoint.jsontext import lazyjson
    from inspector.checkpoint.rules.context import Context

    value = _rich()
    runs = value["snapshot"]["run_records"]
    value["snapshot"]["run_records"] = [runs[i % len(runs)] for i in range(70)]
    msgs = value["snapshot"]["session"]["messages"]
    value["snapshot"]["session"]["messages"] = [msgs[i % len(msgs)] for i in range(70)]
    data = encode(value)
    spans = {}
    decode_typed(data, spans=spans)
    arrays = {s: r for s, r in spans.items() if r[0] == "array"}
    start = _exact(data, "/snapshot/run_records")[0]
    assert list(arrays) == [start]
    kind, end, starts, ends, _ks, _keys = arrays[start]
    assert end == _exact(data, "/snapshot/run_records")[1] and len(starts) == 70
    assert [(s, e) for s, e in zip(starts, ends)] == \
           [_exact(data, f"/snapshot/run_records/{r}") for r in range(70)]
    ctx = Context(data, None, raw_text=True)
    real = lazyjson.canonical_children
    lazyjson.canonical_children = lambda d, s, e, *deep: pytest.fail("element spans computed again") if s == start \
        else real(d, s, e, *deep)
    try:
        got = ctx.item_spans("/snapshot/run_records", ctx.pay["snapshot"]["run_records"])
    finally:
        lazyjson.canonical_children = real
    assert (list(got[0]), list(got[1])) == (list(starts), list(ends))


@pytest.mark.parametrize("token, accepted", [
    (b'"nul \\u0000 and \\u001f"', True),       # the escapes the canonical encoding writes
    (b'"a \\\\/ b"', True),                      # an escaped backslash, then a plain slash
    (b'"caf\xc3\xa9 \xf0\x9f\x98\x80"', True),  # raw UTF-8, 2 and 4 bytes
    (b'"a \\/ b"', False),                       # serde writes '/' unescaped
    (b'"caf\\u00e9"', False),                    # serde writes non-ASCII raw
    (b'"line\\u000a"', False),                   # serde writes \n
    (b'"x \\u001F"', False),                     # serde writes lowercase hex
    (b'"ok \\\\u001f"', True),                   # a literal backslash and "u001f": judged as an escape, allowed
    (b'"ok \\\\u00e9"', False),                  # the same, not allowed: refused, never wrong (exact path)
    (b'"bad \xff byte"', False),                 # invalid UTF-8: msgspec skipped it unchecked
    (b'"cut \xe2\x82"', False),                  # a truncated UTF-8 sequence
])
def test_text_token_spelling(token, accepted):
    data = _with_text(token)
    if accepted:
        value = decode_typed(data)
        assert bytes(value["snapshot"]["session"]["messages"][0]["content"][0]["text"]) == token
    else:
        with pytest.raises(NotFast) as e:
            decode_typed(data)
        assert not isinstance(e.value, NotCanonical)
    _same_verdict(data, RICH_DESC)


def test_escape_scan():
    assert _canonical_escapes(b'{"a":"\\u0000\\u0007\\u000b\\u000e\\u001f\\n\\t\\"\\\\"}')
    for bad in (b'"\\u0008"', b'"\\u0009"', b'"\\u000A"', b'"\\u0020"', b'"\\/"', b'"\\\\\\/"'):
        assert not _canonical_escapes(bad), bad
    assert _canonical_escapes(b'"\\\\/ \\\\\\\\/"')  # even runs: the slash is not escaped


def test_tool_result_array_form():
    value = _rich()
    blocks = [{"type": "text", "text": "first"}, {"type": "text", "text": "caf\u00e9 \x00"}]
    value["snapshot"]["session"]["messages"][2]["content"][0]["content"] = blocks
    data = encode(value)
    got = decode_typed(data)["snapshot"]["session"]["messages"][2]["content"][0]["content"]
    assert [b["type"] for b in got] == ["text", "text"]
    assert [text_of(b["text"]) for b in got] == ["first", "caf\u00e9 \x00"]
    assert type(got[1]["text"]) is memoryview
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("content", [7, None, {"type": "text", "text": "x"}, [{"type": "text"}],
                                     [{"type": "text", "text": 1}], [{"type": "sound", "text": "x"}]])
def test_tool_result_content_refused(content):
    value = _rich()
    value["snapshot"]["session"]["messages"][2]["content"][0]["content"] = content
    data = encode(value)
    with pytest.raises(NotFast):
        decode_typed(data)
    _same_verdict(data, RICH_DESC)


def test_u64_range():
    value = _rich()
    value["snapshot"]["run_records"][0]["snapshot"]["event_count"] = (1 << 64) - 1
    decode_typed(encode(value))  # u64::MAX is read
    text = orjson.dumps(_rich()["snapshot"]["run_records"][0]["snapshot"]["event_count"])
    data = RICH.replace(b'"event_count":' + text, b'"event_count":18446744073709551616', 1)  # 2**64
    assert data != RICH
    with pytest.raises(NotFast):
        decode_typed(data)
    _same_verdict(data, RICH_DESC)


def test_duplicate_key_refused():
    data = RICH.replace(b'"role":"user"}', b'"role":"user","role":"user"}', 1)
    assert data != RICH
    with pytest.raises(NotFast):
        decode_typed(data)
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("newline", [False, True])
def test_pretty_printed_copy(crlf, newline):
    data = orjson.dumps(_rich(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + (b"\n" if newline else b"")
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    with pytest.raises(NotCanonical) as e:
        decode_typed(data)
    assert encode(e.value.value) == RICH == e.value.canonical
    r = verify(data, None)
    assert r.root_cause.rule.id == "P-CANONICAL"
    assert r.canonical_bytes == RICH
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("layout", ["two newlines", "tabs", "4-space indent", "spaces everywhere", "leading space"])
def test_any_whitespace_around_the_canonical_tokens(layout):
    """A file that is the canonical printing with whitespace between its tokens (any layout, not only the
    2-space one) reads as the canonical file does: NotCanonical with the canonical bytes, P-CANONICAL."""
    pretty = orjson.dumps(_rich(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    data = {
        "two newlines": pretty + b"\n\n",
        "tabs": pretty.replace(b"\n  ", b"\n\t"),
        "4-space indent": pretty.replace(b"\n  ", b"\n    ").replace(b"\n", b"\r\n"),
        "spaces everywhere": b" { " + RICH[1:].replace(b'":', b'" :\t', 3).replace(b",", b" ,\n", 5),
        "leading space": b" " + RICH,
    }[layout]
    with pytest.raises(NotCanonical) as e:
        decode_typed(data)
    assert e.value.canonical == RICH and encode(e.value.value) == RICH
    r = verify(data, None)
    assert r.root_cause.rule.id == "P-CANONICAL" and r.canonical_bytes == RICH
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("layout", ["file order", "compact with a space", "pretty, a number respelled",
                                    "pretty, an escape respelled", "form feed"])
def test_other_layouts_left_to_the_dict_path(layout):
    """What is not the canonical printing with whitespace around its tokens is for the other paths: keys in
    another order, a token spelled otherwise (number, escape), a byte JSON does not count as whitespace; a file
    starting as a canonical one does (``{"``) is compared as it is, whitespace and all."""
    pretty = orjson.dumps(_rich(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    count = orjson.dumps(_rich()["snapshot"]["run_records"][0]["snapshot"]["event_count"])
    data = {
        "file order": orjson.dumps({"snapshot": _rich()["snapshot"], **_rich()}, option=orjson.OPT_INDENT_2),
        "compact with a space": RICH.replace(b'":', b'": ', 1),
        "pretty, a number respelled": pretty.replace(b'"event_count": ' + count, b'"event_count": ' + count + b".0", 1),
        "pretty, an escape respelled": pretty.replace(b"\\n", b"\\u000a", 1),
        "form feed": pretty.replace(b"\n", b"\f", 1),
    }[layout]
    assert data != pretty
    with pytest.raises(NotFast) as e:
        decode_typed(data)
    assert not isinstance(e.value, NotCanonical)
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("layout", ["canonical", "pretty", "pretty crlf", "pretty, one element changed"])
def test_long_arrays_compared_in_batches(layout):
    """Arrays of more than 64 elements are printed and compared 64 elements at a time (the last batch short)."""
    value = _rich()
    messages = value["snapshot"]["session"]["messages"]
    value["snapshot"]["session"]["messages"] = [messages[i % len(messages)] for i in range(150)]
    canonical = encode(value)
    if layout == "canonical":
        got = decode_typed(canonical)
        assert len(got["snapshot"]["session"]["messages"]) == 150 and encode(got) == canonical
        return
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    if "crlf" in layout:
        data = data.replace(b"\n", b"\r\n") + b"\r\n"
    if "changed" in layout:  # a member written twice in the last batch: not the canonical printing
        at = data.index(b'"role": "assistant"', len(data) * 2 // 3)
        data = data[:at] + b'"role": "assistant", "role": "assistant"' + data[at + len(b'"role": "assistant"'):]
        with pytest.raises(NotFast) as e:
            decode_typed(data)
        assert not isinstance(e.value, NotCanonical)
        _same_verdict(data, None)
        return
    with pytest.raises(NotCanonical) as e:
        decode_typed(data)
    assert encode(e.value.value) == canonical == e.value.canonical
    _same_verdict(data, None)


@pytest.mark.parametrize("path, written", [
    (("snapshot", "session", "messages", 2, "content", 0, "trust"), "workspace_data"),
    (("snapshot", "session", "messages", 2, "content", 0, "redaction_reviewed"), False),
])
def test_a_default_the_reference_omits_is_refused_when_written(path, written):
    """Fields written only when not their default (an enum's default, ``false``): written out with the
    default, the file is not canonical, and the typed path leaves it to the others."""
    value = _rich()
    node = value
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = written
    data = encode(value)
    with pytest.raises(NotFast):
        decode_typed(data)
    _same_verdict(data, RICH_DESC)


def _canonical_fixtures():
    from tests.checkpoint.jsontext.test_spanindex import _payloads
    return _payloads()[::2]


@pytest.mark.parametrize("path", _canonical_fixtures(), ids=lambda p: p.name)
def test_the_index_for_the_window_equals_the_dict_fast_paths(path):
    """With ``big``, the typed path records the children of every container of at least ``big`` bytes: the
    same records, for those containers, as the dict fast path's (what the window's trees are built from)."""
    from inspector.checkpoint.read.fastpath import decode_fast

    data = path.read_bytes()
    for big in (64, 4096):
        old, new = {}, {}
        try:
            decode_fast(data, spans=old, big=big)
        except NotFast:
            pytest.skip("the dict fast path does not read it")
        decode_typed(data, spans=new, big=big)
        large = lambda d: {s: (r[0], r[1], list(r[2]), list(r[3]), r[4] and list(r[4]), r[5])
                           for s, r in d.items() if r[1] - s >= big or s == 0}
        assert large(new) == large(old) and len(large(old)) >= 1


def test_the_index_of_long_arrays():
    """Long arrays (more than 64 elements) are walked element by element when the index is wanted."""
    from inspector.checkpoint.read.fastpath import decode_fast

    value = _rich()
    messages = value["snapshot"]["session"]["messages"]
    value["snapshot"]["session"]["messages"] = [messages[i % len(messages)] for i in range(150)]
    data = encode(value)
    old, new = {}, {}
    decode_fast(data, spans=old, big=256)
    decode_typed(data, spans=new, big=256)
    start = data.index(b'"messages":[', data.index(b'"session":')) + len(b'"messages":')
    assert new[start][0] == "array" and len(new[start][2]) == 150
    assert {s: (r[0], r[1], list(r[2]), list(r[3])) for s, r in new.items() if r[1] - s >= 256} == \
           {s: (r[0], r[1], list(r[2]), list(r[3])) for s, r in old.items() if r[1] - s >= 256}


@pytest.mark.parametrize("index", [False, True])
def test_element_spans_from_raw_slices(index):
    """``Context.item_spans`` of a long array not in the index: msgspec's raw slices of the array's bytes
    give each element's span (no element encoded to be measured), equal to the exact parser's."""
    import orjson as _orjson

    from inspector.checkpoint.jsontext import lazyjson
    from inspector.checkpoint.rules.context import Context

    value = _rich()
    messages = value["snapshot"]["session"]["messages"]
    value["snapshot"]["session"]["messages"] = [messages[i % len(messages)] for i in range(150)]
    data = encode(value)
    ctx = Context(data, None, spans={} if index else None, raw_text=True)
    items = ctx.pay["snapshot"]["session"]["messages"]
    if index:
        ctx.spans.clear()  # nothing recorded: the spans come from the raw slices
    encoded = []

    class Spy:  # what the walk prints with orjson: keys only, never an element
        def __getattr__(self, name):
            return getattr(_orjson, name)

        @staticmethod
        def dumps(v, *a):
            encoded.append(v)
            return _orjson.dumps(v, *a)

    real = lazyjson.orjson
    lazyjson.orjson = Spy()
    try:
        starts, ends = ctx.item_spans("/snapshot/session/messages", items)
    finally:
        lazyjson.orjson = real
    assert all(type(e) is str for e in encoded)  # no element was encoded to be measured: keys only
    assert bool(encoded) == index  # (with nothing recorded the walk measures the keys of the objects above)
    assert len(starts) == 150
    for i in (0, 1, 63, 64, 149):
        assert (starts[i], ends[i]) == _exact(data, f"/snapshot/session/messages/{i}")


def test_run_events_spans_by_raw_steps():
    """``Context.item_spans`` of every run record's ``events``: each record's members and the events array are read
    from msgspec's raw slices once each (no encoding of the events to measure them), and every event's span is its
    exact span."""
    from inspector.checkpoint.jsontext import lazyjson
    from inspector.checkpoint.rules.context import Context

    value = _rich()
    runs = value["snapshot"]["run_records"]
    value["snapshot"]["run_records"] = [runs[i % len(runs)] for i in range(20)]
    data = encode(value)
    ctx = Context(data, None, spans={}, raw_text=True)
    assert ctx.is_canonical
    read = []
    real = lazyjson.canonical_children
    lazyjson.canonical_children = lambda d, s, e, *deep: read.append(s) or real(d, s, e, *deep)
    try:
        spans = {r: ctx.item_spans(f"/snapshot/run_records/{r}/events", rec["events"])
                 for r, rec in enumerate(ctx.pay["snapshot"]["run_records"])}
        again = {r: ctx.item_spans(f"/snapshot/run_records/{r}/events", rec["events"])
                 for r, rec in enumerate(ctx.pay["snapshot"]["run_records"])}
    finally:
        lazyjson.canonical_children = real
    assert len(read) == len(set(read)) == 20 * 2  # each record and its events once; none the second time
    assert again == spans
    for r in (0, 1, 18, 19):
        starts, ends = spans[r]
        n = len(value["snapshot"]["run_records"][r]["events"])
        assert len(starts) == n
        assert [(s, e) for s, e in zip(starts, ends)] == \
               [_exact(data, f"/snapshot/run_records/{r}/events/{j}") for j in range(n)]
