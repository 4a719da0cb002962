"""``diff A B`` and ``canon --diff``: outputs, exit codes, bad input."""

import json
import os

import orjson
import pytest

from inspector.cli import main
from tests.checkpoint.analysis.compare_helpers import add_tool_rounds, apply_patch, export, spelled_pair
from tests.conftest import CASES, CASES_PINNED, GOLDEN, SAMPLES

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"
BROKEN = SAMPLES / "broken.payload.json"


def run(capsysbinary, *argv):
    code = main(list(map(os.fsdecode, argv)))
    out, err = capsysbinary.readouterr()
    return code, out.decode(), err.decode()


def test_diff_text_broken_against_golden(capsysbinary):
    code, out, err = run(capsysbinary, "diff", GP, BROKEN)
    assert code == 1 and err == ""
    assert out.splitlines()[2:] == [
        "Summary: 1 message changed",
        "Content digests:",
        "  payload file    changed: sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0 -> "
        "sha256:7f8ca8cf0480a02b136a0795e4cd17797065a7d4846dd724d17c23b44b34dd0f",
        "  snapshot        same: sha256:8e08a5afbc93ae80421ee0a6d366b5b435fcb908a2698a2f4d00c63e862b7b10",
        "  logical resume  changed: sha256:d114b0ee11cd2e9e855ef04929f9f3683310ff0d45ddd4179dd5eb8411dc595d -> "
        "sha256:6f12c7ea086861b727db1cf1dd5659e827aacc739d8ec3e6af7745de3e2f07e0",
        "1 change:",
        "  changed /logical_resume/messages/0/content/0/text  [message 0 (user)]",
        '      A: "retain exact state"',
        '      B: "Retain exact state"',
        "      first difference at character 0 (A byte 267, B byte 267)",
        "      stale in the descriptor: /logical_resume/content_digest, /logical_resume/evidence_digest, "
        "/content_digest, /descriptor_digest"]


def test_diff_equal_and_formatting_only(capsysbinary, tmp_path):
    code, out, _ = run(capsysbinary, "diff", GP, GP)
    assert code == 0 and out.endswith("Same payload: the files are byte-identical\n")
    pretty = tmp_path / "pretty.payload.json"
    pretty.write_text(json.dumps(json.loads(GP.read_bytes()), indent=2))
    code, out, _ = run(capsysbinary, "diff", GP, pretty)
    assert code == 0
    assert "Same payload: the values are equal; the files differ only in formatting" in out
    code, out, _ = run(capsysbinary, "diff", GP, pretty, "--format", "patch")
    assert code == 0 and json.loads(out) == []


def test_diff_json_and_patch_tool_rounds(capsysbinary, tmp_path):
    g = orjson.loads(GP.read_bytes())
    a, b = add_tool_rounds(g, 1), add_tool_rounds(g, 2)
    (pa, da), (pb, db) = export(a), export(b)
    for name, data in (("a.payload.json", pa), ("b.payload.json", pb), ("a.descriptor.json", da),
                       ("b.descriptor.json", db)):
        (tmp_path / name).write_bytes(data)
    code, out, _ = run(capsysbinary, "diff", tmp_path / "a.payload.json", tmp_path / "b.payload.json", "--format",
                       "json")
    doc = json.loads(out)
    assert code == 1 and doc["equal"] is False and doc["kind"] == "payload"
    assert doc["summary"] == "1 tool round added, 4 messages added, 1 run changed, 2 events added, 3 other values changed"
    assert doc["a"]["size"] == len(pa) and doc["a"]["uri"].startswith("file:///")
    first = doc["changes"][0]
    assert first == {"op": "changed", "kind": "value", "item": None, "a_pointer": "/logical_resume/checkpoint_ms",
                     "b_pointer": "/logical_resume/checkpoint_ms", "a_value": 1700000002500, "b_value": 1700000003500,
                     "invalidates": ["/logical_resume/checkpoint_ms", "/logical_resume/content_digest",
                                     "/logical_resume/evidence_digest", "/content_digest", "/descriptor_digest"]}
    added = [c for c in doc["changes"] if c["op"] == "added"]
    assert all("a_value" not in c and c["a_pointer"] is None for c in added)
    code, out, _ = run(capsysbinary, "diff", tmp_path / "a.payload.json", tmp_path / "b.payload.json", "--format",
                       "patch")
    assert code == 1 and apply_patch(a, json.loads(out)) == b
    code, out, _ = run(capsysbinary, "diff", tmp_path / "a.descriptor.json", tmp_path / "b.descriptor.json")
    assert code == 1 and "Summary: 11 fields changed" in out
    assert "  changed /logical_resume/completed_tool_rounds\n      A: 4\n      B: 5\n      bytes: A 330..331, B 330..331\n" \
           "      stale in the descriptor: /logical_resume/evidence_digest, /descriptor_digest\n" in out


def test_diff_bad_input(capsysbinary, tmp_path):
    code, _, err = run(capsysbinary, "diff", GP, GD)
    assert code == 2
    assert "A is a payload and B is a descriptor: compare two payloads or two descriptors" in err
    bad = tmp_path / "bad.payload.json"
    bad.write_bytes(GP.read_bytes()[:-1])
    code, _, err = run(capsysbinary, "diff", GP, bad)
    assert code == 2 and f"B: {bad} is not JSON the reference reads: EOF while parsing an object at line 1 " \
                         "column 2089 (byte 2089)" in err
    code, _, err = run(capsysbinary, "diff", GP, tmp_path / "missing.json")
    assert code == 2 and "missing.json: no such file" in err
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    code, _, err = run(capsysbinary, "diff", empty, GP)
    assert code == 2 and "A: " in err and "the file is empty" in err
    with pytest.raises(SystemExit) as exc:
        main(["diff", str(GP)])
    assert exc.value.code == 2 and "the following arguments are required: B" in capsysbinary.readouterr()[1].decode()


def test_diff_non_utf8_names(capsysbinary, tmp_path):
    name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.payload.json")
    with open(name, "wb") as fh:
        fh.write(BROKEN.read_bytes())
    code, out, err = run(capsysbinary, "diff", GP, name)
    assert code == 1 and err == ""
    assert out.splitlines()[1] == f"B: {tmp_path}/caf\\xe9.payload.json (payload, 2090 bytes)"
    code, out, _ = run(capsysbinary, "diff", name, GP, "--format", "json")
    assert json.loads(out)["a"]["uri"].endswith("/caf%E9.payload.json")


def test_canon_diff(capsysbinary, tmp_path):
    code, out, _ = run(capsysbinary, "canon", "--diff", GP)
    assert code == 0 and out == f"{GP}: canonical (2090 bytes are exactly what the reference writes)\n"
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(GP.read_bytes()), indent=2))
    code, out, _ = run(capsysbinary, "canon", "--diff", pretty)
    assert code == 1
    assert out.splitlines()[2:] == [
        "The pretty-printed forms are the same: only whitespace between tokens differs.",
        "First differing byte: file offset 1.",
        "Difference classes (P-CANONICAL):",
        "  whitespace: whitespace between tokens (the reference writes compact JSON): 215 places (not shown line by "
        "line), first at byte 1"]
    code, out, _ = run(capsysbinary, "canon", "--diff", CASES / "44-p-f32-08.payload.json")
    assert code == 1
    assert "- 934         \"auto_compact_threshold\": 0.8,    <- f32-not-exact\n" in out
    assert out.splitlines()[-1] == (
        "  f32-not-exact: f32 field value that is not the exact widened image of an f32: 1 place, first at byte 959 "
        "/snapshot/session/config/auto_compact_threshold; SessionConfig.auto_compact_threshold is an f32: 0.8 is written "
        "back as 0.800000011920929")
    code, out, _ = run(capsysbinary, "canon", "--diff", CASES / "32-p-dup-struct-field.payload.json")
    assert code == 1 and "the payload does not decode (P-PARSE): duplicate field `schema`" in out


@pytest.mark.parametrize("fmt", ["text", "json", "patch"])
def test_diff_formats_on_descriptor_pair(capsysbinary, fmt):
    code, out, _ = run(capsysbinary, "diff", GD, SAMPLES / "broken.descriptor.json", "--format", fmt)
    assert code == 0


def _with_unknown_session_key(value: bytes) -> bytes:
    """The rich pinned payload with ``"zzzz_unknown": value`` first in ``snapshot.session``."""
    data = (CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes()
    i = data.index(b'"session":{') + len(b'"session":{')
    return data[:i] + b'"zzzz_unknown":' + value + b"," + data[i:]


def test_diff_reads_what_the_reference_reads_typed(capsysbinary, tmp_path):
    """A value ``serde_json::Value`` cannot read (100000 deep, ``1e400``) under a key the
    reference skips: ``diff`` compares both files as the reference reads them (typed), not exit 2."""
    rich = CASES_PINNED / "001-valid-rich-resume.payload.json"
    deep = tmp_path / "deep.payload.json"
    deep.write_bytes(_with_unknown_session_key(b"[" * 100000 + b"]" * 100000))
    note = ("Note: B holds a value serde_json::Value cannot read (nested deeper than 128, or a number out of "
            "range) under a key the reference does not know and skips; both files are compared as the reference "
            "reads them (typed): keys it does not know are dropped (see 'checkpoint-inspector check')")
    code, out, err = run(capsysbinary, "diff", rich, deep)
    assert (code, err) == (0, "")
    assert out.splitlines()[2:] == [
        note, "Same payload as the reference reads it: the typed values are equal; the files differ only in keys "
              "the reference drops, defaults, formatting, key order or number spelling"]
    big = tmp_path / "big.payload.json"
    data = _with_unknown_session_key(b"1e400")
    j = data.index(b'"text":"', data.index(b'"logical_resume"')) + len(b'"text":"')
    big.write_bytes(data[:j] + b"X" + data[j:])
    code, out, err = run(capsysbinary, "diff", big, rich, "--format", "json")
    doc = json.loads(out)
    assert (code, err, doc["typed_read"], doc["equal"]) == (1, "", ["A"], False)
    assert [(c["op"], c["a_pointer"], c["a_value"][:12]) for c in doc["changes"]] == [
        ("changed", "/logical_resume/messages/0/content/0/text", "XParser erro")]
    assert [(c["name"], c["changed"]) for c in doc["components"]] == [
        ("payload", True), ("snapshot", False), ("logical_resume", True)]
    # both sides typed: the unknown key is dropped on both; only the text differs
    code, out, _ = run(capsysbinary, "diff", deep, big, "--format", "json")
    assert (code, json.loads(out)["typed_read"]) == (1, ["A", "B"])
    # a value too deep where the reference reads a Value (a known key): still not readable, exit 2
    data = rich.read_bytes()
    k = data.index(b'"metadata":{') + len(b'"metadata":')
    bad = tmp_path / "bad.payload.json"
    bad.write_bytes(data[:k] + b'{"x":' + b"[" * 200 + b"]" * 200 + b"," + data[k + 1:])
    code, _, err = run(capsysbinary, "diff", rich, bad)
    assert code == 2 and err.startswith(f"checkpoint-inspector: B: {bad} is not JSON the reference reads: "
                                        "recursion limit exceeded")


def test_diff_text_shows_each_value_as_its_file_spells_it(capsysbinary, tmp_path):
    """A number or string spelled otherwise than the reference writes it is shown as the file has it, and the
    decoded value beside it only when they differ (the comparison window says the same:
    tests/gui/test_compare_view.py)."""
    a, b = spelled_pair(tmp_path)
    code, out, _ = run(capsysbinary, "diff", a, b)
    values = [line.strip() for line in out.splitlines() if line.startswith(("  changed", "      A:", "      B:"))]
    assert code == 1 and values == [
        "changed /snapshot/session/config/auto_compact_threshold",
        "A: 0.800000011920929",
        "B: 1E+2 (= 100.0)",
        "changed /snapshot/session/config/name",
        'A: "checkpoint fixture"',
        'B: "checkpoint fixtur\\u00e9" (= "checkpoint fixturé")',
        "changed /snapshot/session/context_usage/percent",
        "A: 1.0e2 (= 100.0)",
        "B: 100.50 (= 100.5)",
        "changed /snapshot/session/total_cost",
        "A: 0.0",
        "B: -0 (= -0.0)"]
