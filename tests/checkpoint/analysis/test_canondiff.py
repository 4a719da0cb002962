"""A file beside its canonical bytes: pretty-printed forms with byte offsets,
aligned rows marked with the P-CANONICAL classes of diagnose.py."""

import json

from inspector.checkpoint.analysis.canondiff import canonical_diff, pretty_lines, unified
from tests.conftest import CASES, GOLDEN

GP = (GOLDEN / "payload-with-resume.json").read_bytes()


def test_pretty_lines_keep_each_token_and_its_offset():
    data = b'{"b" : [1,2.50, {}],"a":{"x":"\\u00e9"}, "b":[]}'
    lines = pretty_lines(data)
    assert [(x.start, x.text) for x in lines] == [
        (0, "{"), (1, '  "b": ['), (8, "    1,"), (10, "    2.50,"), (16, "    {}"), (18, "  ],"),
        (20, '  "a": {'), (25, '    "x": "\\u00e9"'), (37, "  },"), (40, '  "b": []'), (46, "}")]
    assert [data[x.start:x.start + 2] for x in lines[2:5]] == [b"1,", b"2.", b"{}"]
    # every byte belongs to one line
    assert [x.end for x in lines[:-1]] == [x.start for x in lines[1:]] and lines[-1].end == len(data)


def test_canonical_file_has_no_rows():
    cd = canonical_diff(GP)
    assert cd.equal and cd.rows == [] and cd.first_offset is None and cd.error is None
    assert cd.canonical_size == len(GP) == 2090
    cd.data = cd.canonical = None  # as a worker process sends it back: still canonical, size kept
    assert cd.equal and cd.canonical_size == 2090


def test_pretty_printed_payload_differs_only_in_whitespace():
    pretty = json.dumps(json.loads(GP), indent=2).encode()
    cd = canonical_diff(pretty)
    assert cd.canonical == GP and cd.first_offset == 1 and cd.canonical_size == 2090 and not cd.equal
    assert cd.diagnosis.classes == ["whitespace"]
    assert all(r.tag == "equal" for r in cd.rows) and len(cd.rows) == len(pretty_lines(GP))
    assert not any(r.marked for r in cd.rows)  # whitespace is marked on rows, never a stop
    assert cd.rows[1].classes == ("whitespace",) and cd.rows[1].left.start == 4 and cd.rows[1].right.start == 1
    text = unified(cd, "pretty.json")
    assert text == ("--- pretty.json (the file, 3151 bytes)\n"
                    "+++ canonical (what the reference writes, 2090 bytes)\n")


def test_f32_value_marked_with_its_class():
    data = (CASES / "44-p-f32-08.payload.json").read_bytes()
    cd = canonical_diff(data)
    changed = [r for r in cd.rows if r.marked]
    assert len(changed) == 1
    (row,) = changed
    assert row.tag == "changed" and row.classes == ("f32-not-exact",)
    assert row.left.text == '        "auto_compact_threshold": 0.8,'
    assert row.right.text == '        "auto_compact_threshold": 0.800000011920929,'
    assert (row.left.start, row.right.start) == (934, 934)
    assert data[row.left.start:row.left.end] == b'"auto_compact_threshold":0.8,'
    (d,) = cd.differences_at(row)
    assert (d.kind, d.offset, d.pointer) == ("f32-not-exact", 959, "/snapshot/session/config/auto_compact_threshold")
    assert cd.first_offset == 962
    assert unified(cd, "f32.json").splitlines()[2:8] == [
        "@@ file bytes 893..1037, canonical bytes 893..1051 @@",
        "  893     \"session\": {",
        "  904       \"config\": {",
        "  914         \"auto_compact\": true,",
        "- 934         \"auto_compact_threshold\": 0.8,    <- f32-not-exact",
        "+ 934         \"auto_compact_threshold\": 0.800000011920929,"]


def test_dropped_key_and_trailing_newline():
    cd = canonical_diff((CASES / "43-p-api-key.payload.json").read_bytes())
    (row,) = [r for r in cd.rows if r.marked]
    assert (row.tag, row.classes, row.left.start, row.right) == ("removed", ("api-key",), 2874, None)
    cd = canonical_diff((CASES / "52-p-trailing-newline.payload.json").read_bytes())
    (row,) = [r for r in cd.rows if r.marked]
    assert (row.tag, row.classes, row.left.text) == ("equal", ("trailing-newline",), "}")
    assert "~7657 }    <- trailing-newline" in unified(cd, "x")


def test_not_decodable_and_not_json():
    cd = canonical_diff((CASES / "32-p-dup-struct-field.payload.json").read_bytes())
    assert cd.canonical is None and cd.error.startswith("the payload does not decode (P-PARSE): duplicate field `schema`")
    cd = canonical_diff(b'{"a": 1,}', "json")
    assert cd.canonical is None and cd.error == "trailing comma at line 1 column 9 (serde_json syntax error at byte 7)"
    cd = canonical_diff(b'{"b":1, "a":2}', "json")
    assert cd.diagnosis is None and [(r.tag, r.left.text, r.right.text) for r in cd.rows] == [
        ("equal", "{", "{"), ("changed", '  "b": 1,', '  "a": 2,'), ("changed", '  "a": 2', '  "b": 1'),
        ("equal", "}", "}")]
