"""The headless CLI: exit codes, output shapes, and bad input (FORMAT.md 6)."""

import gzip
import hashlib
import json
import os
import subprocess
import sys

import pytest

from inspector.checkpoint import verify
from inspector.cli import main
from tests.conftest import CASES, GOLDEN, ROOT
from inspector.checkpoint import catalogue

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"


def run(capsysbinary, *argv):
    code = main(list(map(str, argv)))
    out, err = capsysbinary.readouterr()
    return code, out, err.decode()


def test_verify_golden_either_order(capsysbinary):
    for args in ((GP, GD), (GD, GP)):
        code, out, _ = run(capsysbinary, "verify", *args)
        assert code == 0
        assert b"VERIFIED: the reference accepts this checkpoint." in out


def test_verify_json_shape_same_for_pass_and_fail(capsysbinary):
    code, out, _ = run(capsysbinary, "verify", GP, GD, "--format", "json")
    ok = json.loads(out)
    assert code == 0 and ok["verified"] is True and ok["root_cause"] is None
    code, out, _ = run(capsysbinary, "verify", CASES / "25-p-flip-byte.payload.json",
                       CASES / "25-p-flip-byte.descriptor.json", "--format", "json")
    bad = json.loads(out)
    assert code == 1 and bad["verified"] is False
    assert set(ok) == set(bad)
    assert bad["root_cause"]["rule"] == "X-BYTES"
    assert bad["root_cause"]["code"] == "a3s.code.session_checkpoint.content_drift"
    assert bad["root_cause"]["message"] == "session checkpoint content drift: descriptor does not match the exact supplied bytes"
    assert bad["root_cause"]["location"]["source"] == "descriptor"
    assert bad["root_cause"]["location"]["pointer"] == "/content_digest"
    ids = [r["id"] for r in bad["rules"]]
    assert len(ids) == len(catalogue()) and ids[0] == "D-PARSE"
    xb = next(r for r in bad["rules"] if r["id"] == "X-BYTES")
    assert xb["verdict"] == "fail" and xb["expected"].startswith("sha256:") and xb["actual"].startswith("sha256:")
    span = xb["location"]["span"]
    descriptor = (CASES / "25-p-flip-byte.descriptor.json").read_bytes()
    assert descriptor[span["start"]:span["end"]] == b'"' + xb["actual"].encode() + b'"'


def test_verify_sarif(capsysbinary):
    code, out, _ = run(capsysbinary, "verify", CASES / "44-p-f32-08.payload.json",
                       CASES / "44-p-f32-08.descriptor.json", "--format", "sarif")
    log = json.loads(out)
    assert code == 1 and log["version"] == "2.1.0"
    first = log["runs"][0]["results"][0]
    assert first["ruleId"] == "P-CANONICAL" and first["properties"]["root_cause"] is True
    region = first["locations"][0]["physicalLocation"]["region"]
    payload = (CASES / "44-p-f32-08.payload.json").read_bytes()
    assert payload[region["byteOffset"]:region["byteOffset"] + region["byteLength"]] == b"0.8"


def test_describe_prints_golden_descriptor_byte_for_byte(capsysbinary):
    for name in ("with-resume", "semantic-only"):
        code, out, _ = run(capsysbinary, "describe", GOLDEN / f"payload-{name}.json")
        assert code == 0
        assert out == (GOLDEN / f"descriptor-{name}.json").read_bytes()


def test_describe_refuses_to_overwrite(tmp_path, capsysbinary):
    target = tmp_path / "d.json"
    target.write_bytes(b"keep")
    code, _, err = run(capsysbinary, "describe", GP, "-o", target)
    assert code == 2 and "exists" in err and target.read_bytes() == b"keep"
    new = tmp_path / "new.json"
    assert run(capsysbinary, "describe", GP, "-o", new)[0] == 0
    assert new.read_bytes() == GD.read_bytes()


def test_canon(tmp_path, capsysbinary):
    f = tmp_path / "x.json"
    f.write_bytes(b'{"b": 1e20, "a": -0}')
    code, out, _ = run(capsysbinary, "canon", f)
    assert (code, out) == (0, b'{"a":-0.0,"b":1e+20}')
    f.write_bytes(b"\xef\xbb\xbf{}")
    code, out, err = run(capsysbinary, "canon", f)
    assert code == 1 and out == b"" and err.startswith("expected value at line 1 column 1")


def test_rules_and_explain(capsysbinary):
    code, out, _ = run(capsysbinary, "rules", "--format", "json")
    rules = json.loads(out)
    assert code == 0 and len(rules) == len(catalogue())
    assert [r["id"] for r in rules if r["not_evaluated"]] == []  # FORMAT.md 10 leaves no rule unevaluable
    tenant = next(r for r in rules if r["id"] == "S-DURABLE-TENANT")
    assert tenant["requires"] == ["P-PARSE", "S-DURABLE-VALID"] and tenant["doc_ref"] == "FORMAT.md 6.3, 4.10"
    code, out, _ = run(capsysbinary, "explain", "x-bytes")
    assert code == 0 and b"descriptor does not match the exact supplied bytes" in out
    assert "  documented: docs/rules.md#x-bytes (the rule reference)" in out.decode().splitlines()
    assert run(capsysbinary, "explain", "NOPE")[0] == 2
    # every rule's link lands on its section of the generated reference
    from tests.conftest import ROOT

    headings = {line[4:].strip().lower() for line in (ROOT / "docs" / "rules.md").read_text().splitlines()
                if line.startswith("### ")}
    for r in catalogue():
        code, out, _ = run(capsysbinary, "explain", r.id)
        line = next(x for x in out.decode().splitlines() if x.startswith("  documented: "))
        anchor = line.split("#", 1)[1].split(" ", 1)[0]
        assert anchor in headings, r.id


# --------------------------------------------------------------------------- bad input
def _verdict(capsysbinary, *paths):
    code, out, err = run(capsysbinary, "verify", *paths, "--format", "json")
    return code, (json.loads(out) if out else None), err


@pytest.fixture
def bad(tmp_path):
    golden = GP.read_bytes()

    def make(name, data):
        p = tmp_path / name
        p.write_bytes(data)
        return p

    return make, golden


# Messages checked against the Rust reference (oracle2) with a descriptor re-bound to each payload.
@pytest.mark.parametrize("name, transform, rule, message", [
    ("empty", lambda b: b"", "P-PARSE", "invalid session checkpoint payload: EOF while parsing a value at line 1 column 0"),
    ("truncated", lambda b: b[:100], "P-PARSE", "invalid session checkpoint payload: EOF while parsing a string at line 1 column 100"),
    ("invalid-utf8", lambda b: b.replace(b"retain exact state", b"retain \xff\xfe state"), "P-PARSE",
     "invalid session checkpoint payload: invalid unicode code point at line 1 column 283"),
    ("bom", lambda b: b"\xef\xbb\xbf" + b, "P-PARSE", "invalid session checkpoint payload: expected value at line 1 column 1"),
    ("crlf", lambda b: b.replace(b",", b",\r\n", 1), "P-CANONICAL", "session checkpoint content drift: payload is not the exact canonical JSON encoding"),
    ("newline", lambda b: b + b"\n", "P-CANONICAL", "session checkpoint content drift: payload is not the exact canonical JSON encoding"),
    ("gzip", lambda b: gzip.compress(b, mtime=0), "P-PARSE", "invalid session checkpoint payload: expected value at line 1 column 1"),
    ("deep", lambda b: b"[" * 10000, "P-PARSE", "invalid session checkpoint payload: invalid type: sequence, expected a string at line 1 column 1"),
    ("deep-in-value", lambda b: b.replace(b'"trace_events":[]', b'"trace_events":[{"details":' + b"[" * 200 + b"]" * 200 + b"}]"),
     "P-PARSE", "invalid session checkpoint payload: recursion limit exceeded at line 1 column 2196"),
    ("deep-in-tasks", lambda b: b.replace(b'"tasks":[]', b'"tasks":' + b"[" * 200 + b"]" * 200), "P-PARSE",
     "invalid session checkpoint payload: invalid type: sequence, expected a string at line 1 column 1788"),
    ("bignum", lambda b: b.replace(b'"total_cost":0.0', b'"total_cost":' + b"7" * 5000), "P-PARSE",
     "invalid session checkpoint payload: number out of range at line 1 column 6872"),
])
def test_bad_payload_gets_a_verdict_and_is_not_modified(bad, capsysbinary, name, transform, rule, message):
    make, golden = bad
    p = make(f"{name}.json", transform(golden))
    before = hashlib.sha256(p.read_bytes()).hexdigest(), os.stat(p).st_mtime_ns
    code, report, err = _verdict(capsysbinary, p)
    if name in NOT_A_CHECKPOINT:
        # alone, nothing in it names a checkpoint: "not a checkpoint file", exit 2 ...
        assert (code, report) == (2, None) and "this is not a checkpoint file" in err, err
        # ... while the engine still gives the reference's verdict on these bytes
        engine = verify(p.read_bytes(), None)
        assert (engine.root_cause.rule.id, engine.root_cause.message) == (rule, message)
    else:
        assert code == 1, err
        assert report["root_cause"]["rule"] == rule
        assert report["root_cause"]["message"] == message
    assert (hashlib.sha256(p.read_bytes()).hexdigest(), os.stat(p).st_mtime_ns) == before
    # with the golden descriptor the bytes no longer match: X-BYTES comes first, the rest follows
    code, report, _ = _verdict(capsysbinary, p, GD)
    assert code == 1 and report["root_cause"]["rule"] == "X-BYTES"


#: Bad payloads that alone are not recognisable as a checkpoint file at all; beside a
#: descriptor they are still verified as its payload.
NOT_A_CHECKPOINT = {"empty", "gzip", "deep"}


def test_gzip_gets_a_hint(bad, capsysbinary):
    make, golden = bad
    p = make("g.json", gzip.compress(golden, mtime=0))
    code, out, _ = run(capsysbinary, "verify", p, GD)
    assert code == 1 and b"gzip-compressed; decompress it first" in out


def test_oversize_payload_refused_from_size(tmp_path, capsysbinary, monkeypatch):
    p = tmp_path / "huge.json"
    with open(p, "wb") as fh:
        fh.truncate(268435456 + 1)  # sparse: never read whole
    import builtins

    real_open = builtins.open

    class HeadOnly:  # the first bytes may be read (is it an SDK export wrapper?), never the file
        def __init__(self, fh):
            self.fh = fh

        def read(self, n=-1):
            assert 0 <= n <= 256, "an over-ceiling file must not be read, only its first bytes"
            return self.fh.read(n)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    def guarded(path, *a, **k):
        fh = real_open(path, *a, **k)
        return HeadOnly(fh) if str(path) == str(p) else fh

    monkeypatch.setattr(builtins, "open", guarded)
    code, report, _ = _verdict(capsysbinary, p, GD)
    assert code == 1
    assert report["root_cause"]["rule"] == "X-BYTES" or report["root_cause"]["rule"] == "P-BOUND"
    bound = next(r for r in report["rules"] if r["id"] == "P-BOUND")
    assert bound["verdict"] == "fail"
    assert bound["message"] == "invalid session checkpoint payload: checkpoint content exceeds the 268435456 byte v1 ceiling"
    assert report["root_cause"]["rule"] == "P-BOUND"


def test_directory_and_missing_file_exit_2(tmp_path, capsysbinary):
    code, out, err = run(capsysbinary, "verify", tmp_path)
    assert code == 2 and out == b"" and "is a folder" in err
    code, _, err = run(capsysbinary, "verify", tmp_path / "nope.json")
    assert code == 2 and "no such file" in err


def test_unreadable_file_exit_2(tmp_path, capsysbinary, monkeypatch):
    p = tmp_path / "locked.json"
    p.write_bytes(GP.read_bytes())
    real_open = os.open  # (as root a chmod 000 file is still readable: the denial is the system call's answer)

    def deny(path, *a, **k):
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    code, _, err = run(capsysbinary, "verify", p)
    assert (code, err) == (2, f"checkpoint-inspector: {p}: cannot read (Permission denied)\n")


def test_descriptor_with_extra_keys(capsysbinary):
    code, report, _ = _verdict(capsysbinary, CASES / "23-d-unknown-field.payload.json", CASES / "23-d-unknown-field.descriptor.json")
    assert code == 1 and report["root_cause"]["rule"] == "D-PARSE" and report["root_cause"]["code"] is None
    assert report["root_cause"]["message"].startswith("unknown field `checkpoint_id`, expected one of `schema`")


def test_two_payloads_no_descriptor(capsysbinary):
    code, out, err = run(capsysbinary, "verify", GP, GOLDEN / "payload-semantic-only.json")
    assert code == 2 and out == b"" and "both files are payloads" in err


def test_payload_alone_is_checked_and_descriptor_alone_too(capsysbinary):
    code, report, _ = _verdict(capsysbinary, GP)
    assert code == 0 and report["verified"] is False and report["ok"] is True
    assert report["expected_descriptor"]["descriptor_digest"] == "sha256:8492af9da1760810869d7e0e25e8b3f7850e31152056596fed3c74872efa1b44"
    code, report, _ = _verdict(capsysbinary, CASES / "17-dl-evidence-digest.descriptor.json")
    assert code == 1 and report["root_cause"]["rule"] == "DL-EVIDENCE-DIGEST"


def test_console_script_works_without_pyside6():
    """The headless commands never import Qt, and work where PySide6 is not installed."""
    code = (
        "import sys; sys.modules['PySide6'] = None\n"
        "from inspector.entry import main\n"
        f"rc = main(['verify', {str(GP)!r}, {str(GD)!r}, '--format', 'json'])\n"
        "assert not any(m.startswith('PySide6') and sys.modules[m] is not None for m in sys.modules)\n"
        "raise SystemExit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["verified"] is True


def test_layering_engine_and_cli_load_no_qt():
    code = ("import sys, inspector.checkpoint, inspector.cli, inspector.entry\n"
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'inspector.gui'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_rules_doc_table_is_generated_from_the_catalogue():
    from inspector.cli.render import rules_markdown

    assert rules_markdown() in (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_readme_commands_are_the_ones_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "<!-- test-command -->" in readme and "<!-- run-command -->" in readme
    assert "test-command" in ci


def test_devices_and_pipes_are_refused_without_reading(tmp_path, capsysbinary):
    """/dev/zero has st_size 0 and never ends; a FIFO blocks: neither may be read."""
    code, out, err = run(capsysbinary, "verify", "/dev/zero")
    assert (code, out, err) == (2, b"", "checkpoint-inspector: /dev/zero: is a device, not a file\n")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    code, out, err = run(capsysbinary, "verify", fifo)
    assert (code, out, err) == (2, b"", f"checkpoint-inspector: {fifo}: is a FIFO (named pipe), not a file\n")


def test_reformatted_payload_is_explained_under_x_bytes(tmp_path, capsysbinary):
    pretty = tmp_path / "pretty.json"
    pretty.write_bytes(json.dumps(json.loads(GP.read_bytes()), indent=4).encode() + b"\n")
    code, report, _ = _verdict(capsysbinary, pretty, GD)
    assert code == 1 and report["root_cause"]["rule"] == "X-BYTES"
    assert report["root_cause"]["notes"][-1].startswith(
        "the payload is not in canonical form either (whitespace, trailing newline; see P-CANONICAL)")


def test_long_values_are_shortened_for_display(tmp_path, capsysbinary):
    big = tmp_path / "big.json"
    big.write_bytes(GP.read_bytes().replace(b'"total_cost":0.0', b'"total_cost":0.' + b"3" * 5000))
    code, report, _ = _verdict(capsysbinary, big)
    assert code == 1 and report["root_cause"]["rule"] == "P-CANONICAL"
    assert len(report["root_cause"]["actual"]) < 320 and report["root_cause"]["actual"].endswith("(5002 characters in all)")


def test_files_are_recognised_by_top_level_keys_not_by_text_inside(tmp_path, capsysbinary):
    """A message that quotes a descriptor must not make the payload look like a descriptor."""
    from tests.checkpoint.test_robustness import rebind

    quoted = b'retain exact state: \\"a3s.code.session-checkpoint-descriptor.v1\\", \\"descriptor_digest\\"'
    data = GP.read_bytes().replace(b"retain exact state", quoted)
    p, d = tmp_path / "p.json", tmp_path / "d.json"
    p.write_bytes(data)
    d.write_bytes(rebind(data))
    for args in ((p, d), (d, p)):
        code, report, _ = _verdict(capsysbinary, *args)
        assert report["inputs"]["payload"]["path"] == str(p)
        assert report["inputs"]["descriptor"]["path"] == str(d)
    assert report["root_cause"]["rule"] == "X-DESCRIPTOR"  # the payload changed, the evidence did not
