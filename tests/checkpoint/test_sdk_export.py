"""The SDK export wrapper is a checkpoint (FORMAT.md 1): ``{"descriptor": {...}, "contentBase64": "..."}``
is recognised by content, its content decoded (standard padded base64, as Rust's STANDARD engine reads it) and
verified as the pair it holds."""

from __future__ import annotations

import base64
import json
import threading

import pytest

from inspector.checkpoint import content_digest, verify
from inspector.checkpoint import sdk_export
from inspector.checkpoint.artifact import InputFile, expand_exports, pair_inputs, read_input
from inspector.checkpoint.sdk_export import ExportError, unwrap, wrap
from inspector.cli.main import main as cli_main
from tests.conftest import GOLDEN

P = (GOLDEN / "payload-with-resume.json").read_bytes()
D = (GOLDEN / "descriptor-with-resume.json").read_bytes()
GOLDEN_DIGEST = "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"


def run(capsys, *argv):
    code = cli_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_golden_pair_wrapped_verifies_with_the_goldens_digests(tmp_path, capsys):
    w = tmp_path / "golden.export.json"
    w.write_bytes(wrap(P, D))
    payload, descriptor = pair_inputs([read_input(str(w))])
    assert (payload.data, descriptor.data) == (P, D)
    assert payload.form == descriptor.form == "SDK export wrapper" and payload.path == descriptor.path == str(w)
    report = verify(payload.data, descriptor.data)
    assert report.verified and content_digest(payload.data) == GOLDEN_DIGEST
    code, out, err = run(capsys, "verify", w)
    assert (code, err) == (0, "")
    assert out.splitlines()[1:5] == [
        f"payload:    {w} (2090 bytes)",
        "            note: decoded from the SDK export wrapper's contentBase64 in this file; byte offsets count in "
        "the decoded payload",
        f"descriptor: {w} (1185 bytes)",
        "            note: the SDK export wrapper's descriptor object in this file; byte offsets count from its first byte"]
    assert "VERIFIED: the reference accepts this checkpoint." in out


def test_one_changed_byte_of_the_content_fails_x_bytes(tmp_path, capsys):
    changed = bytearray(P)
    changed[100] ^= 1
    w = tmp_path / "flip.export.json"
    w.write_bytes(wrap(bytes(changed), D))
    code, out, _ = run(capsys, "verify", "--format", "json", w)
    got = json.loads(out)
    assert code == 1 and got["root_cause"]["rule"] == "X-BYTES"
    assert got["inputs"]["payload"]["form"] == got["inputs"]["descriptor"]["form"] == "SDK export wrapper"


@pytest.mark.parametrize("content, why", [
    ("!!" + base64.b64encode(P).decode()[2:],
     "the SDK export wrapper's `contentBase64` is not base64: character 1 of 2788 is not in the standard alphabet"),
    (base64.b64encode(P).decode().rstrip("="),
     "the SDK export wrapper's `contentBase64` is not padded base64: its length, 2787 characters, is not a multiple "
     "of 4 or its `=` padding is misplaced"),
    ("AB==", "the SDK export wrapper's `contentBase64` is not canonical base64 (its last character carries bits the "
             "content does not have)"),
])
def test_a_wrapper_with_bad_base64_gets_a_clear_verdict_and_exit_2(tmp_path, capsys, content, why):
    w = tmp_path / "bad.export.json"
    w.write_bytes(b'{"descriptor":' + D + b',"contentBase64":"' + content.encode() + b'"}')
    code, out, err = run(capsys, "verify", w)
    assert (code, out) == (2, "")
    assert err == f"checkpoint-inspector: {w}: {why}\n"


def test_serde_rules_of_the_wrapper_itself():
    ok = wrap(P, D)
    assert unwrap(ok).descriptor == D and unwrap(ok).descriptor_offset == len(b'{"descriptor":')
    # other members are ignored (no deny_unknown_fields), either member may come first, whitespace is allowed
    other = (b' {\n "contentBase64": "' + base64.b64encode(P) + b'",\n "export_schema": "x",\n "descriptor": ' + D + b"}")
    assert (unwrap(other).payload, unwrap(other).descriptor) == (P, D)
    # a repeated member: serde derive refuses it
    with pytest.raises(ExportError, match="duplicate field `descriptor`"):
        unwrap(b'{"descriptor":' + D + b',"descriptor":' + D + b',"contentBase64":""}')
    with pytest.raises(ExportError, match="`descriptor` is not a JSON object"):
        unwrap(b'{"descriptor":[],"contentBase64":""}')
    # a file that opens as a wrapper but lacks a member, or is not complete JSON: said so (exit 2), not taken for a
    # payload whose first field is unknown (P-PARSE "unknown field `descriptor`", the wrong cause)
    with pytest.raises(ExportError, match=r"has no `contentBase64` member \(serde: missing field `contentBase64`\)"):
        unwrap(b'{"descriptor":' + D + b"}")
    with pytest.raises(ExportError, match="opens as an SDK export wrapper but serde_json does not read it: EOF while"):
        unwrap(b'{"descriptor":' + D[:40])
    # another member first (serde ignores it): still a wrapper; and a payload is not one
    other_first = b'{"kind":"x","descriptor":' + D + b',"contentBase64":"' + base64.b64encode(P) + b'"}'
    assert (unwrap(other_first).payload, unwrap(other_first).descriptor) == (P, D)
    assert unwrap(P) is None


def test_content_over_the_ceiling_is_not_decoded_and_counts_as_oversize(monkeypatch):
    monkeypatch.setattr(sdk_export, "MAX_CONTENT_BYTES", 2089)
    got = unwrap(wrap(P, D))
    assert (got.payload, got.payload_size) == (None, 2090)
    f = InputFile("x.export.json", 4000, wrap(P, D), "payload")
    monkeypatch.setattr("inspector.checkpoint.artifact.unwrap", unwrap)
    monkeypatch.setattr("inspector.checkpoint.artifact.MAX_CONTENT_BYTES", 2089)
    payload, descriptor = expand_exports([f])
    assert (payload.data, payload.size, descriptor.data) == (None, 2090, D)
    assert payload.oversize and payload.hint == ("its content decodes to 2090 bytes, over the 2089-byte v1 ceiling; "
                                                 "not decoded")


def test_describe_writes_the_wrapper_and_reads_one(tmp_path, capsys):
    out_file = tmp_path / "golden.export.json"
    code, out, err = run(capsys, "describe", "--sdk-export", GOLDEN / "payload-with-resume.json", "-o", out_file)
    assert (code, out, err) == (0, "", "")
    assert out_file.read_bytes() == b'{"descriptor":' + D + b',"contentBase64":"' + base64.b64encode(P) + b'"}'
    code, out, err = run(capsys, "describe", out_file)  # the wrapper given to describe: its payload is described
    assert (code, out.encode(), err) == (0, D, "")


def test_a_folder_scan_lists_a_wrapper_as_the_pair_it_holds(tmp_path):
    from inspector.session.folderscan import scan_folder

    (tmp_path / "a.export.json").write_bytes(wrap(P, D))
    (tmp_path / "b.export.json").write_bytes(b'{"descriptor":' + D + b',"contentBase64":"AB=="}')
    rows = []
    t = threading.Thread(target=lambda: rows.extend(scan_folder(str(tmp_path))))
    t.start()
    t.join(60)
    assert [(r.payload == r.descriptor, r.verified, r.summary) for r in rows] == [
        (True, True, "VERIFIED"),
        (True, False, f"not read: {tmp_path / 'b.export.json'}: the SDK export wrapper's `contentBase64` is not "
                      "canonical base64 (its last character carries bits the content does not have)")]


def test_diff_compares_the_payload_a_wrapper_holds(tmp_path, capsys):
    w = tmp_path / "w.json"
    w.write_bytes(wrap(P, D))
    assert cli_main(["diff", str(w), str(GOLDEN / "payload-with-resume.json")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Same payload: the files are byte-identical"


def test_a_wrapper_beside_another_file_is_one_of_the_two_and_gets_the_references_verdict(tmp_path, capsys):
    """Issue 33 item 6: two files are taken as the reference's import takes them (payload, then descriptor,
    unless content decides), so a wrapper given with another file is not unwrapped and not refused (exit 2): as
    the descriptor it is D-PARSE with serde's own words; as the payload, X-BYTES (the sizes differ, checked
    first)."""
    w = tmp_path / "golden.export.json"
    w.write_bytes(wrap(P, D))
    p, d = tmp_path / "p.json", tmp_path / "d.json"
    p.write_bytes(P)
    d.write_bytes(D)
    code, out, err = run(capsys, "verify", p, w, "--format", "json")
    doc = json.loads(out)
    assert (code, err, doc["root_cause"]["rule"]) == (1, "", "D-PARSE")
    assert doc["root_cause"]["message"] == (
        "unknown field `descriptor`, expected one of `schema`, `format`, `media_type`, `snapshot`, `logical_resume`, "
        "`size_bytes`, `content_digest`, `descriptor_digest` at line 1 column 13")
    code, out, err = run(capsys, "verify", w, d, "--format", "json")
    assert (code, err, json.loads(out)["root_cause"]["rule"]) == (1, "", "X-BYTES")
    code, out, err = run(capsys, "verify", w, w, "--format", "json")  # neither decides: first, then second
    assert (code, err, json.loads(out)["root_cause"]["rule"]) == (1, "", "D-PARSE")


def test_a_wrapper_whose_first_member_is_an_unknown_one_over_64_kib_is_recognised(tmp_path, capsys):
    """serde ignores unknown members of the wrapper whatever their size: the role is decided from the whole
    content, not from its first 64 KiB."""
    w = tmp_path / "padded.export.json"
    inner = json.loads(wrap(P, D))
    w.write_text(json.dumps({"note": "x" * 70_000, **inner}))
    payload, descriptor = pair_inputs([read_input(str(w))])
    assert payload.data == P and payload.form == descriptor.form == "SDK export wrapper"
    assert json.loads(descriptor.data) == json.loads(D)
    code, out, err = run(capsys, "verify", w)
    assert (code, err) == (0, "")


def _scan(folder):
    from inspector.session.folderscan import scan_folder

    rows = []
    t = threading.Thread(target=lambda: rows.extend(scan_folder(str(folder))))
    t.start()
    t.join(120)
    return rows


@pytest.mark.parametrize("pad", [70_000, 1_200_000])
def test_a_folder_scan_finds_a_wrapper_behind_an_unknown_first_member_of_any_size(tmp_path, pad):
    """The folder scan decides roles where the CLI does (``file_role``, from the whole content): a wrapper whose
    first member is an unknown one over 64 KiB, or over the 1 MiB a file is read whole up to, is the pair it holds
    and verifies with the golden digests; it is not taken for a payload and paired with a descriptor."""
    inner = json.loads(wrap(P, D))
    (tmp_path / "padded.json").write_text(json.dumps({"note": "x" * pad, **inner}))
    (tmp_path / "padded.descriptor.json").write_bytes(D)  # (a descriptor of the same name stem beside it)
    rows = _scan(tmp_path)
    by_file = {(r.payload, r.descriptor): (r.verified, r.summary, r.facts.content_digest if r.facts else None)
               for r in rows}
    wrapper, desc = str(tmp_path / "padded.json"), str(tmp_path / "padded.descriptor.json")
    assert by_file == {(wrapper, wrapper): (True, "VERIFIED", GOLDEN_DIGEST),
                       (None, desc): (False, "consistent (one file only)", GOLDEN_DIGEST)}


def test_a_large_payload_naming_content_base64_inside_a_tool_input_is_a_payload_that_pairs(tmp_path, capsys):
    """A payload over 1 MiB (streamed, not read whole to classify) whose tool input has a ``contentBase64`` key is
    not an SDK export wrapper (``is_export``: that key is not the top level's): it pairs with its descriptor by
    digest and verifies."""
    from inspector.checkpoint import canonicalize

    doc = json.loads(P)
    doc["snapshot"]["session"]["messages"].append(
        {"role": "assistant", "content": [{"type": "text", "text": "y" * 1_100_000},
                                          {"type": "tool_use", "id": "t1", "name": "read",
                                           "input": {"contentBase64": "AAAA"}}]})
    payload = canonicalize(json.dumps(doc).encode())
    assert len(payload) > 1 << 20 and b'"contentBase64"' in payload
    p, d = tmp_path / "big.payload.json", tmp_path / "big.descriptor.json"
    p.write_bytes(payload)
    assert run(capsys, "describe", p, "-o", d)[0] == 0
    rows = _scan(tmp_path)
    assert [(r.payload, r.descriptor, r.verified, r.facts.content_digest) for r in rows] == [
        (str(p), str(d), True, content_digest(payload))]


def test_a_descriptor_opened_alone_is_not_paired_with_a_wrapper_of_its_name(tmp_path, capsys):
    """``verify D`` looks for its payload beside it by digest, then by name; a wrapper of the same name stem holds
    a pair of its own and is never that payload (else X-BYTES on the wrapper's bytes)."""
    (tmp_path / "run.json").write_bytes(wrap(P, D))
    (tmp_path / "run.descriptor.json").write_bytes(D)
    code, out, err = run(capsys, "verify", tmp_path / "run.descriptor.json", "--format", "json")
    doc = json.loads(out)
    assert (code, err, doc["root_cause"], doc["verified"], "sibling" in doc["inputs"]) == (0, "", None, False, False)
    from inspector.session.engine import load_paths

    got = []
    t = threading.Thread(target=lambda: got.append(load_paths([str(tmp_path / "run.descriptor.json")])))
    t.start()
    t.join(60)
    assert (got[0].paths, got[0].pairing) == (
        [str(tmp_path / "run.descriptor.json")], "No payload that matches run.descriptor.json was found beside it.")
