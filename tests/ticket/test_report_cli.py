"""`checkpoint-inspector report`: pinned ticket texts, every format, exit codes, new files only.

The pinned texts are made with ``SOURCE_DATE_EPOCH=1767225600`` (2026-01-01T00:00:00Z). When the
report's wording, the rule catalogue or the version change on purpose, re-record them with
``python -m tests.ticket.test_report_cli --record`` and review the diff.
"""

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.ticket import check_report
from tests.conftest import GOLDEN, SAMPLES

DATA = Path(__file__).resolve().parent / "data"
EPOCH = "1767225600"
PINNED = {
    "golden": (GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json", 0),
    "broken": (SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json", 1),
}


_TAG = re.compile(r"tag [0-9a-f]{8}\b")
_REPORT_DIGEST = re.compile(r"report-sha256:[0-9a-f]{64}")


def pinned_form(out: str) -> str:
    """The report as pinned: each keyed tag (a random key per report: the files' digests are tagged) written
    ``tag ########``, and so the report's own digest, which covers the tags, written as 64 zeros."""
    return _REPORT_DIGEST.sub("report-sha256:" + "0" * 64, _TAG.sub("tag ########", out))


def run(capsysbinary, *argv):
    code = main(list(map(str, argv)))
    out, err = capsysbinary.readouterr()
    return code, out.decode(), err.decode()


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_text_report(name, capsysbinary):
    payload, descriptor, want_code = PINNED[name]
    code, out, err = run(capsysbinary, "report", payload, descriptor)
    assert (code, err) == (want_code, "")
    assert pinned_form(out) == (DATA / f"{name}.report.txt").read_text("utf-8")
    assert check_report(out.encode()) is True
    # either order gives the same report (files are recognised by content)
    assert pinned_form(run(capsysbinary, "report", descriptor, payload)[1]) == pinned_form(out)


def test_broken_sample_ticket_leads_with_plain_language_and_names_the_files(capsysbinary):
    _, out, _ = run(capsysbinary, "report", *PINNED["broken"][:2])
    lines = out.splitlines()
    assert lines[2] == ("Verdict: NOT VERIFIED. The payload file is not the one the descriptor was made for: it was "
                        "changed after export, or the two files come from different checkpoints.")
    assert "  payload: broken.payload.json (2090 bytes, [redacted: digest of the files, 71 bytes, tag ########])" \
        in pinned_form(out).splitlines()
    _, asked, _ = run(capsysbinary, "report", *PINNED["broken"][:2], "--file-digests")
    assert "  payload: broken.payload.json (2090 bytes, sha256:7f8ca8cf0480a02b136a0795e4cd17797065a7d4846dd724d17c23b44b34dd0f)" \
        in asked.splitlines()
    assert "Root cause: X-BYTES (Descriptor size and content digest match the payload bytes)" in lines
    assert "  message:  session checkpoint content drift: descriptor does not match the exact supplied bytes" in lines
    assert "Date: 2026-01-01T00:00:00Z" in lines
    assert "retain" not in out.lower() and "/workspace" not in out  # the message text and workspace stay home


def test_report_digest_recognises_an_edited_report(capsysbinary, tmp_path):
    _, out, _ = run(capsysbinary, "report", *PINNED["broken"][:2])
    digest = re.search(r"report-sha256:([0-9a-f]{64})", out).group(1)
    zeroed = out.replace(digest, "0" * 64).encode()
    assert hashlib.sha256(zeroed).hexdigest() == digest  # the documented definition
    edited = out.replace("NOT VERIFIED", "VERIFIED", 1).encode()
    assert check_report(edited) is False
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_bytes(out.encode())
    bad.write_bytes(edited)
    code, text, _ = run(capsysbinary, "report", "--check", good)
    # what a matching digest shows, and what it does not: anyone can recompute it, it is not a signature
    assert (code, text) == (0, f"{good}: unchanged since it was written (its report-sha256 matches), unless the "
                               "digest was recomputed after an edit: this is not a signature\n")
    code, text, _ = run(capsysbinary, "report", "--check", bad)
    assert (code, text) == (1, f"{bad}: EDITED: its report-sha256 does not match: the report's bytes changed after "
                               "it was written (an edit, or a copy that changed its line ends or spaces)\n")
    # the report's own footer says the same
    assert ("  (SHA-256 of this report with these 64 hex digits replaced by zeros. A match shows the report is "
            "unchanged since it was written, unless someone edited it and recomputed the digest: it is not a "
            "signature. Check with `checkpoint-inspector report --check FILE`)") in out.splitlines()
    code, _, err = run(capsysbinary, "report", "--check", SAMPLES / "broken.payload.json")
    assert code == 2 and "no report-sha256 digest found" in err


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json", "sarif"])
def test_every_format_is_sealed_and_redacted(fmt, capsysbinary):
    code, out, _ = run(capsysbinary, "report", *PINNED["broken"][:2], "--format", fmt)
    assert code == 1
    assert check_report(out.encode()) is True
    # the payload's SHA-256 (X-BYTES' expected value) is a digest of the files: tagged unless asked for
    assert "7f8ca8cf" not in out and "digest of the files" in out
    asked = run(capsysbinary, "report", *PINNED["broken"][:2], "--format", fmt, "--file-digests")[1]
    assert "7f8ca8cf0480a02b136a0795e4cd17797065a7d4846dd724d17c23b44b34dd0f" in asked
    assert "X-BYTES" in out and "Retain exact state" not in out and "checkpoint fixture" not in out
    if fmt in ("json", "sarif"):
        doc = json.loads(out)
        if fmt == "json":
            assert doc["verdict"] == "NOT VERIFIED" and doc["root_cause"]["rule"] == "X-BYTES"
            assert list(doc)[-1] == "report_sha256"
            assert doc["inspector"]["reference"] == {"a3s_code_commit": "06c82e911df5ab16292cf16c3359f6656daf6e81",
                                                     "a3s_code_release": "8.3.0", "serde_json": "1.0.151"}
            assert [f["name"] for f in doc["files"]] == ["broken.payload.json", "broken.descriptor.json"]
        else:
            run0 = doc["runs"][0]
            assert doc["version"] == "2.1.0" and run0["results"][0]["ruleId"] == "X-BYTES"
            assert run0["results"][0]["properties"]["root_cause"] is True
            assert run0["artifacts"][0]["location"]["uri"] == "broken.payload.json"  # a name, never a path
    if fmt == "html":
        assert out.startswith("<!DOCTYPE html>")
        # self-contained: no scripts, no external resources of any kind
        assert not re.search(r"<script|<link|<img|<iframe|src=|href=|url\(|@import", out, re.I)
        assert 'class="verdict fail"' in out and 'class="rootcause"' in out and '<tr class="diff">' in out


@pytest.mark.parametrize("content, what", [
    (b'{"name": "my-app", "version": "1.0.0"}', "a JSON object, but not a checkpoint payload or descriptor"),
    (b"", "the file is empty"),
    (bytes(range(256)), "binary data, not text"),
    (b"hello, world\n", "text that is not JSON"),
])
def test_report_and_verify_on_a_non_checkpoint_say_so_and_exit_2(tmp_path, capsysbinary, content, what):
    p = tmp_path / "package.json"
    p.write_bytes(content)
    code, out, err = run(capsysbinary, "report", p)
    assert code == 2
    assert out.splitlines()[2] == "Verdict: NOT A CHECKPOINT. This is not a checkpoint file."
    assert f"  package.json: this is not a checkpoint file ({what})" in out.splitlines()
    assert "P-PARSE" not in out and "0 of 0" not in out and "Root cause" not in out
    assert "An A3S Code checkpoint is two JSON files exported together" in out  # what they look like
    assert check_report(out.encode()) is True
    code, out, err = run(capsysbinary, "verify", p)
    assert (code, out) == (2, "") and f"package.json: this is not a checkpoint file ({what})" in err
    assert p.read_bytes() == content


def test_a_damaged_checkpoint_still_gets_its_rule(tmp_path, capsysbinary):
    p = tmp_path / "cut.json"
    p.write_bytes((GOLDEN / "payload-with-resume.json").read_bytes()[:100])
    code, out, _ = run(capsysbinary, "report", p)
    assert code == 1 and "Root cause: P-PARSE" in out and "NOT A CHECKPOINT" not in out


def test_outputs_are_new_files_only(tmp_path, capsysbinary):
    payload, descriptor, _ = PINNED["broken"]
    existing = tmp_path / "ticket.txt"
    existing.write_bytes(b"keep me")
    code, out, err = run(capsysbinary, "report", payload, descriptor, "-o", existing)
    assert code == 2 and "exists; choose a new file name" in err and existing.read_bytes() == b"keep me"
    code, _, err = run(capsysbinary, "report", payload, descriptor, "--redacted-payload", payload)
    assert code == 2 and payload.read_bytes()[:18] == b'{"logical_resume":'
    new, red = tmp_path / "new.md", tmp_path / "payload.redacted.json"
    code, out, err = run(capsysbinary, "report", payload, descriptor, "--format", "markdown", "-o", new,
                         "--redacted-payload", red)
    assert code == 1 and out == ""
    text = new.read_text("utf-8")
    assert check_report(text.encode()) is True and "payload.redacted.json" in text
    # every replacement listed for review, the copy holds no content, and it is not mistaken for a checkpoint
    assert err.splitlines()[1:] == [
        "  /logical_resume/messages/0/content/0/text: value (message text, 18 bytes)",
        "  /snapshot/run_records/0/snapshot/prompt: value (prompt, 8 bytes)",
        "  /snapshot/session/config/name: value (text, 18 bytes)",
        "  /snapshot/session/config/workspace: value (workspace path, 10 bytes)",
        "  /snapshot/session/messages/0/content/0/text: value (message text, 18 bytes)",
    ]
    data = red.read_bytes()
    assert b"Retain exact state" not in data and b"/workspace" not in data
    assert json.loads(data)["snapshot"]["session"]["id"] == "session-checkpoint-1"
    code, _, _ = run(capsysbinary, "report", red, descriptor)
    assert code == 1  # the redacted copy no longer matches its descriptor: verification needs the original


def test_sha256_prefixes_are_opt_in_and_keyed_per_report(tmp_path, capsysbinary):
    """--sha256-prefixes gives each marker a tag keyed per report: not the unsalted SHA-256
    prefix anyone could brute-force (a 4-digit PIN, "yes", /home/alice), and different in each report."""
    payload, descriptor, _ = PINNED["broken"]
    tags = []
    for n in range(2):
        red = tmp_path / f"r{n}.json"
        run(capsysbinary, "report", payload, descriptor, "--redacted-payload", red, "--sha256-prefixes")
        value = json.loads(red.read_bytes())["snapshot"]["session"]["config"]["workspace"]
        m = re.fullmatch(r"\[redacted: workspace path, 10 bytes, tag ([0-9a-f]{8})\]", value)
        assert m, value
        assert m.group(1) != hashlib.sha256(b"/workspace").hexdigest()[:8]
        tags.append(m.group(1))
    assert tags[0] != tags[1]
    red = tmp_path / "plain.json"
    run(capsysbinary, "report", payload, descriptor, "--redacted-payload", red)
    assert json.loads(red.read_bytes())["snapshot"]["session"]["config"]["workspace"] == \
        "[redacted: workspace path, 10 bytes]"


def _record():  # pragma: no cover - maintenance helper
    import os
    import subprocess

    DATA.mkdir(exist_ok=True)
    for name, (payload, descriptor, _code) in PINNED.items():
        out = subprocess.run([sys.executable, "-m", "inspector", "report", str(payload), str(descriptor)],
                             capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH}).stdout
        out = pinned_form(out.decode("utf-8")).encode("utf-8")
        (DATA / f"{name}.report.txt").write_bytes(out)
        print(f"recorded {name}.report.txt ({len(out)} bytes)")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--record"]:
        _record()


def test_detected_generation_is_in_the_ticket(tmp_path, capsysbinary):
    from tests.cli.test_generation import _build

    payload, descriptor = _build(tmp_path, "convergence")
    code, out, _ = run(capsysbinary, "report", payload, descriptor)
    assert code == 1
    assert "Generation: newer: A3S Code 8.5 or later (8.5.x, read at 8.5.6, commit 0473774) (explains P-CANONICAL)" \
        in out.splitlines()
    assert any(line.startswith("Note: written by a newer A3S Code") for line in out.splitlines())
    code, out, _ = run(capsysbinary, "report", payload, descriptor, "--format", "json")
    assert json.loads(out)["generation"]["detected"] == "newer"


def test_self_test_fails_when_the_allow_list_is_missing(monkeypatch):
    """A bundle that lost allowlist.toml fails --self-test (the report would fail for the user)."""
    import inspector.ticket as ticket
    from inspector import selftest

    assert selftest.check_rules().ok

    def missing():
        raise FileNotFoundError("allowlist.toml")

    monkeypatch.setattr(ticket, "allowlist", missing)
    result = selftest.check_rules()
    assert not result.ok and result.detail == "the ticket report's allow-list does not load (FileNotFoundError)"


def test_redacted_copy_of_a_deep_payload(tmp_path, capsysbinary):
    """A valid payload with a 100000-deep value under a key the reference skips is redacted
    (explicit-stack read and write), not refused as "not valid JSON (RecursionError)"."""
    rich = (GOLDEN / "payload-with-resume.json").read_bytes()
    i = rich.index(b'"session":{') + len(b'"session":{')
    deep = tmp_path / "deep.payload.json"
    deep.write_bytes(rich[:i] + b'"zzzz_unknown":' + b"[" * 100000 + b"]" * 100000 + b"," + rich[i:])
    red = tmp_path / "deep.redacted.json"
    code, _, err = run(capsysbinary, "report", deep, "--redacted-payload", red)
    assert code == 1 and "RecursionError" not in err
    assert "  /snapshot/session/[redacted key #1: 12 bytes]: value (value, 200000 bytes)" in err.splitlines()
    session = json.loads(red.read_bytes())["snapshot"]["session"]
    assert session["[redacted key #1: 12 bytes]"] == "[redacted: value, 200000 bytes]"
    assert session["id"] == "session-checkpoint-1"
    # a payload that is not JSON at all still gets no copy, with the place it breaks
    bad = tmp_path / "bad.payload.json"
    bad.write_bytes(rich[:i] + b"\"k\":" + b"[" * 5000 + b"1,,")
    code, _, err = run(capsysbinary, "report", bad, "--redacted-payload", tmp_path / "bad.redacted.json")
    assert code == 2 and err.endswith(f"bad.payload.json: no redacted copy can be made: the payload is not valid "
                                      f"JSON (expected a value at character {i + 5006})\n")
    assert not (tmp_path / "bad.redacted.json").exists()
