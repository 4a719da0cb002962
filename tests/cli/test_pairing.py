"""Two files always get the reference's verdict: when the content cannot tell the payload from the
descriptor, the order given decides (payload first, as the reference's import takes them) and the
output says so (inspector/checkpoint/artifact.py ``detect_role``/``pair_inputs``).

The expected root causes were produced by the reference (``oracle2 verify`` on the same files,
payload first); ``test_pins_match_reference`` re-checks them when oracle2 is built here."""

import json

import pytest

from inspector.cli.common import NOT_REDACTED
from inspector.checkpoint import detect_role, encode, pair_inputs, read_input
from inspector.cli import main
from tests.builders import HAVE_ORACLE, golden, oracle_verify, rebind, write_pair
from tests.conftest import GOLDEN

PAY = "a3s.code.session_checkpoint.invalid_payload"


def _format_key(folder):
    """The golden payload with a top-level ``format`` key (a descriptor's key), descriptor rebound."""
    p, d = golden()
    p["format"] = "a3s_code_session_checkpoint_v1"
    payload = encode(p)
    return write_pair(folder, "format-key", payload, rebind(payload, d))


def _truncated(folder):
    """The golden payload whose user message mentions the descriptor schema, cut at byte 2000."""
    p, d = golden()
    p["logical_resume"]["messages"][0]["content"][0]["text"] = \
        "compare it with the a3s.code.session-checkpoint-descriptor.v1 file"
    payload = encode(p)[:2000]
    return write_pair(folder, "truncated", payload, rebind(payload, d))


def _truncated_descriptor(folder):
    """The golden descriptor cut at byte 600 (inside a string)."""
    path = folder / "cut.descriptor.json"
    path.write_bytes((GOLDEN / "descriptor-with-resume.json").read_bytes()[:600])
    return path


#: name -> (files builder returning the paths in the order given, reference root cause)
CASES = {
    "format-key": (lambda t: _format_key(t), {
        "ok": False, "rule": "P-PARSE", "code": PAY,
        "message": "invalid session checkpoint payload: unknown field `format`, expected one of `schema`, "
                   "`snapshot`, `logical_resume` at line 1 column 9"}),
    "truncated": (lambda t: _truncated(t), {
        "ok": False, "rule": "P-PARSE", "code": PAY,
        "message": "invalid session checkpoint payload: EOF while parsing a string at line 1 column 2000"}),
    "both-undecided": (lambda t: (_truncated(t)[0], _truncated_descriptor(t)), {
        "ok": False, "rule": "D-PARSE", "code": None, "message": "EOF while parsing a string at line 1 column 600"}),
    "both-undecided-swapped": (lambda t: (_truncated_descriptor(t), _truncated(t)[0]), {
        "ok": False, "rule": "D-PARSE", "code": None,
        "message": "unknown field `convergence`, expected one of `schema`, `resume_semantics`, `session_id`, "
                   "`source_run_id`, `checkpoint_schema_version`, `completed_tool_rounds`, `checkpoint_ms`, "
                   "`size_bytes`, `content_digest`, `evidence_digest` at line 1 column 62"}),
}


def _cli(capsysbinary, *argv):
    code = main(["verify", *map(str, argv), "--format", "json"])
    out, err = capsysbinary.readouterr()
    return code, json.loads(out), err.decode()


def _root(report):
    rc = report["root_cause"]
    return {"ok": report["ok"], "rule": rc["rule"], "code": rc["code"], "message": rc["message"]}


def test_roles_the_content_decides_and_the_doubts():
    gp, gd = ((GOLDEN / n).read_bytes() for n in ("payload-with-resume.json", "descriptor-with-resume.json"))
    assert detect_role(gp) == ("payload", None, None)
    assert detect_role(gd) == ("descriptor", None, None)
    p, _ = golden()
    p["format"] = "x"
    assert detect_role(encode(p)) == ("payload", None, "its schema is the payload schema but it has a top-level "
                                                        "`format` key, like a descriptor")
    p["schema"] = "other"
    assert detect_role(encode(p)) == ("descriptor", None, "it has a top-level `format` key, like a descriptor, "
                                                           "and no known schema")
    assert detect_role(gd[:600]) == ("descriptor", None, "it is not complete JSON; it starts with a "
                                                          "`content_digest` key, like a descriptor")
    assert detect_role(b'{"schema":"a3s.code.session-checkpoint-payload.v1","snap') == (
        "payload", None, "it is not complete JSON; it starts with the payload schema")
    assert detect_role(b"") == ("unknown", "the file is empty", "it is empty")


@pytest.mark.parametrize("order", ["payload-first", "descriptor-first"])
def test_payload_with_a_descriptor_key_is_still_the_payload(capsysbinary, tmp_path, order):
    p, d = _format_key(tmp_path)
    code, report, err = _cli(capsysbinary, *((p, d) if order == "payload-first" else (d, p)))
    assert (code, err) == (1, "")
    assert _root(report) == CASES["format-key"][1]
    assert report["inputs"]["payload"]["path"] == str(p) and report["inputs"]["payload"]["role_note"] is None


def test_truncated_payload_mentioning_the_descriptor_takes_the_free_role(capsysbinary, tmp_path):
    p, d = _truncated(tmp_path)
    assert read_input(str(p)).role == "descriptor"  # by the text inside it: a guess
    for args in ((p, d), (d, p)):
        code, report, _ = _cli(capsysbinary, *args)
        assert code == 1 and _root(report) == CASES["truncated"][1]
        assert report["inputs"]["payload"] == {
            "path": str(p), "uri": p.as_uri(), "size_bytes": 2000, "sha256": report["inputs"]["payload"]["sha256"],
            "role": "payload", "hint": None,
            "role_note": "taken as the payload, because truncated.descriptor.json is the descriptor; its own content "
                         "does not decide (it is not complete JSON and only text inside it mentions a descriptor)"}
        assert report["inputs"]["descriptor"]["role_note"] is None


def test_neither_file_decides_so_the_order_given_does(capsysbinary, tmp_path):
    cut = _truncated_descriptor(tmp_path)
    p, _ = _truncated(tmp_path)
    code = main(["verify", str(p), str(cut)])
    out, err = capsysbinary.readouterr()
    assert (code, err) == (1, b"")
    text = out.decode()
    assert text.startswith(
        NOT_REDACTED + "\n"
        f"payload:    {p} (2000 bytes)\n"
        "            note: taken as the payload, because it was given first (the reference's import takes the "
        "payload, then the descriptor): the content of neither file decides (it is not complete JSON and only "
        "text inside it mentions a descriptor)\n"
        f"descriptor: {cut} (600 bytes)\n"
        "            note: taken as the descriptor, because it was given second (the reference's import takes the "
        "payload, then the descriptor): the content of neither file decides (it is not complete JSON; it starts "
        "with a `content_digest` key, like a descriptor)\n\n"
        "NOT VERIFIED: the reference rejects this checkpoint.\n\n"
        "Root cause: D-PARSE (Descriptor parses as SessionCheckpointDescriptorV1)\n")
    code, report, _ = _cli(capsysbinary, cut, p)
    assert code == 1 and _root(report) == CASES["both-undecided-swapped"][1]
    assert report["inputs"]["payload"]["path"] == str(cut)


def test_two_clear_payloads_are_still_a_usage_error(tmp_path):
    files = [read_input(str(GOLDEN / n)) for n in ("payload-with-resume.json", "payload-semantic-only.json")]
    with pytest.raises(Exception, match="^both files are payloads; give one payload and its descriptor$"):
        pair_inputs(files)


def test_unrecognised_file_takes_the_free_role_and_says_so(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    payload, descriptor = pair_inputs([read_input(str(empty)), read_input(str(GOLDEN / "payload-with-resume.json"))])
    assert (descriptor.path, descriptor.role) == (str(empty), "descriptor")
    assert descriptor.role_note == ("taken as the descriptor, because payload-with-resume.json is the payload; "
                                    "its own content does not decide (it is empty)")
    assert payload.role_note is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_gives_the_reference_verdict(capsysbinary, tmp_path, name):
    build, expected = CASES[name]
    code, report, _ = _cli(capsysbinary, *build(tmp_path))
    assert code == 1 and _root(report) == expected


@pytest.mark.skipif(not HAVE_ORACLE, reason="oracle2 (Rust reference) not built here; set ORACLE2")
@pytest.mark.parametrize("name", sorted(CASES))
def test_pins_match_reference(tmp_path, name):
    build, expected = CASES[name]
    assert oracle_verify(*build(tmp_path)) == expected
