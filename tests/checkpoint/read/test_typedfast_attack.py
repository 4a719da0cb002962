"""Inputs found by attacking the typed fast path: each one is refused by the typed path
(``NotFast``) and ``verify``'s whole verdict is the exact path's and the dict fast path's
(``test_fastpath_verdicts._same_verdict``); the reference's root rule is pinned beside it."""

import orjson
import pytest

from inspector.checkpoint import encode, verify
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast
from inspector.checkpoint.read.typedfast import decode_typed, text_of
from tests.checkpoint.read.test_fastpath_verdicts import RICH, RICH_DESC, _same_verdict

_TEXT = b'"text":"Parser errors should carry byte offsets."'


def _artifact(content) -> dict:
    return {"artifact_id": "a1", "artifact_uri": "a3s://artifacts/a1", "content": content,
            "original_bytes": 10, "shown_bytes": 4, "tool_name": "bash"}


def _with_artifact(content) -> bytes:
    value = orjson.loads(RICH)
    value["snapshot"]["artifacts"] = [_artifact(content)]
    return encode(value)


@pytest.mark.parametrize("token", [b"[]", b'[{"text":"x","type":"text"}]', b'[{"text":[],"type":"text"}]'])
@pytest.mark.parametrize("layout", ["canonical", "pretty"])
def test_a_text_blocks_text_written_as_an_array_is_refused(token, layout):
    """A text block's ``text`` is a string: serde refuses an array there ("invalid type: sequence, expected
    a string", P-PARSE). Only a tool result's ``content`` may be the array form; the typed path read any raw
    text field's array as tool-result blocks and accepted the file (verified, or P-CANONICAL when pretty)."""
    data = RICH.replace(_TEXT, b'"text":' + token)
    assert data.count(b'"text":' + token) == 2
    if layout == "pretty":
        data = orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    with pytest.raises(NotFast) as e:
        decode_typed(data)
    assert not isinstance(e.value, NotCanonical)
    r = verify(data, None)
    assert r.root_cause.rule.id == "P-PARSE"
    assert "invalid type: sequence, expected a string" in r.root_cause.message
    _same_verdict(data, RICH_DESC)


@pytest.mark.parametrize("content", [[], [{"text": "x", "type": "text"}]])
def test_an_artifacts_content_written_as_an_array_is_refused(content):
    data = _with_artifact(content)
    with pytest.raises(NotFast):
        decode_typed(data)
    r = verify(data, None)
    assert r.root_cause.rule.id == "P-PARSE"
    assert "invalid type: sequence, expected a string" in r.root_cause.message
    _same_verdict(data, RICH_DESC)


def test_an_artifacts_content_is_a_raw_slice():
    data = _with_artifact("line 1\nline \"2\" caf\u00e9")
    got = decode_typed(data)["snapshot"]["artifacts"][0]["content"]
    assert type(got) is memoryview and bytes(got) == b'"line 1\\nline \\"2\\" caf\xc3\xa9"'
    assert text_of(got) == "line 1\nline \"2\" caf\u00e9"
    _same_verdict(data, RICH_DESC)


# What a raw text field's token was replaced with in the review's attack (FORMAT.md 4.4, 4.5): other JSON
# types, the array form with extra keys, a wrong or duplicated tag, nested arrays, spellings the canonical
# encoding never writes. Whatever the field, the verdict is the exact path's.
RAW_TOKENS = [b"7", b"null", b"true", b"{}", b"[]", b"[[]]", b'""', b"-0", b"1.5", b'{"text":"x","type":"text"}',
              b'[{"text":"x","type":"text"}]', b'[{"extra":1,"text":"x","type":"text"}]',
              b'[{"text":"x","type":"sound"}]', b'[{"text":"x","type":"text","type":"text"}]',
              b'[{"text":"x","text":"y","type":"text"}]', b'[{"text":"x","type":0}]', b'[{"text":7,"type":"text"}]',
              b'[{"text":[{"text":"x","type":"text"}],"type":"text"}]', b'[{"text":"a\\/b","type":"text"}]',
              b'[{"text":"\\ud800","type":"text"}]', b'[{"text":"\xff","type":"text"}]', b'[1]', b'["x"]',
              b'[{"text":"x","type":"text"},]', b'"\\u0000\\u001f\\b\\f\\n\\r\\t\\"\\\\"', b'"\\u001F"', b'"\\0"',
              b'"\\x41"', b'"\\U0041"', b'"a\tb"', b'"a\x7fb"', b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"',
              b'"\\ud83d\\ude00"', b'"\\u00e9"', b'"\xe2\x80\xa8"']
_RESULT = b'"content":"test result: FAILED. 11 passed; 1 failed"'


@pytest.mark.parametrize("field", ["text", "tool result", "artifact"])
@pytest.mark.parametrize("token", RAW_TOKENS, ids=lambda t: t.decode("latin-1"))
def test_any_raw_field_token_gets_the_exact_paths_verdict(field, token):
    if field == "text":
        data = RICH.replace(_TEXT, b'"text":' + token)
    elif field == "tool result":
        data = RICH.replace(_RESULT, b'"content":' + token)
    else:
        data = _with_artifact("PLACEHOLDER").replace(b'"PLACEHOLDER"', token)
    assert data != RICH
    _same_verdict(data, RICH_DESC)
