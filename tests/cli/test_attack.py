"""Defects found by attacking the CLI with bad input and odd arguments, each pinned by a
subprocess run of the real entry point (no display): options between files, one output file
spelled two ways, ``describe`` given something that is not a payload."""

import hashlib
import json

from tests.cli.test_entry import cli
from tests.conftest import CASES_PINNED

RP = CASES_PINNED / "001-valid-rich-resume.payload.json"
RD = CASES_PINNED / "001-valid-rich-resume.descriptor.json"


def _state(*paths):
    return [(hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths]


def test_verify_takes_options_between_its_files():
    """``verify P --format json D`` is ``verify P D --format json`` (argparse's nargs="+" alone stopped
    at the option and refused D as an "unrecognized argument")."""
    p = cli("verify", str(RP), "--format", "json", str(RD))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verified"] is True and out["inputs"]["descriptor"]["size_bytes"] == 1178
    p = cli("verify", str(RP), "--progress", str(RD))
    assert p.returncode == 0 and b"VERIFIED: the reference accepts this checkpoint." in p.stdout
    assert b"unrecognized" not in p.stderr
    p = cli("verify", str(RP), "--bogus", str(RD))  # an unknown option is still refused
    assert p.returncode == 2 and b"unrecognized arguments: --bogus" in p.stderr


def test_report_takes_options_between_its_files(tmp_path):
    new = tmp_path / "ticket.json"
    p = cli("report", str(RP), "--format", "json", "-o", str(new), str(RD))
    assert p.returncode == 0, p.stderr
    t = json.loads(new.read_bytes())
    assert t["verdict"] == "VERIFIED" and len(t["files"]) == 2


def test_report_refuses_one_new_file_spelled_two_ways(tmp_path):
    """``-o ./x --redacted-payload x`` name one file: refused before anything is written (it used to
    write the redacted copy, then fail on the report with exit 2, leaving half the job done)."""
    before = _state(RP, RD)
    p = cli("report", str(RP), str(RD), "-o", "./same.txt", "--redacted-payload", "same.txt", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.decode().endswith("the report and the redacted payload need two different new files\n")
    assert list(tmp_path.iterdir()) == []
    sub = tmp_path / "d"
    sub.mkdir()
    p = cli("report", str(RP), str(RD), "-o", str(sub / ".." / "x.md"), "--redacted-payload", str(tmp_path / "x.md"))
    assert p.returncode == 2 and sorted(x.name for x in tmp_path.iterdir()) == ["d"]
    assert _state(RP, RD) == before


def test_describe_refuses_a_descriptor_and_a_file_that_is_not_a_checkpoint(tmp_path):
    """``describe`` on a descriptor said "the payload fails P-PARSE: unknown field `content_digest`"
    (exit 1, a rule failure); on an empty file or plain JSON, a P-PARSE failure too. Now, as verify:
    exit 2 with what the file is."""
    before = _state(RD)
    p = cli("describe", str(RD))
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == (f"checkpoint-inspector: {RD} is a descriptor; describe takes a payload "
                                 "('checkpoint-inspector verify PAYLOAD DESCRIPTOR' checks the pair)\n")
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "package.json").write_bytes(b'{"name":"x","version":"1.0.0"}')
    for name, why in (("empty.json", "the file is empty"), ("package.json", "a JSON object, but not a checkpoint "
                                                                           "payload or descriptor")):
        p = cli("describe", str(tmp_path / name))
        assert p.returncode == 2 and p.stdout == b""
        assert p.stderr.decode().startswith(f"checkpoint-inspector: {name}: this is not a checkpoint file ({why})\n")
    truncated = tmp_path / "t.payload.json"  # a damaged payload still gets its rule
    truncated.write_bytes(RP.read_bytes()[:12219])
    p = cli("describe", str(truncated))
    assert p.returncode == 1 and p.stderr.decode() == (
        "checkpoint-inspector: the payload fails P-PARSE: invalid session checkpoint payload: EOF while parsing a "
        "string at line 1 column 12219\n")
    assert _state(RD) == before


def _with_unknown_key(value_text: bytes) -> bytes:
    """The rich payload with ``"zzzz_unknown": VALUE`` appended to ``snapshot.session`` (a struct that
    is not ``deny_unknown_fields``: serde skips the value unchecked, so the verdict is P-CANONICAL)."""
    data = RP.read_bytes()
    anchor = b'"updated_at":1788003600}'  # the session's last member
    assert data.count(anchor) == 1
    return data.replace(anchor, b'"updated_at":1788003600,"zzzz_unknown":' + value_text + b"}")


def test_canon_diff_of_deep_nesting_in_a_skipped_value_stays_linear(tmp_path):
    """100,000 nested brackets inside an unknown key (a 220 KB file) made ``canon --diff`` indent each line by its
    depth: ~20 GB of spaces, killed by the OOM killer. Indentation now stops at serde's 128 levels."""
    from inspector.checkpoint.analysis.canondiff import pretty_lines

    depth = 100_000
    data = _with_unknown_key(b"[" * depth + b"]" * depth)
    lines = pretty_lines(data)
    assert max(len(x.text) for x in lines) == 2 * 128 + 2  # "  " * 128 + "[]" (the innermost) or "],"
    deepest = lines[[x.text.strip() for x in lines].index("[") + 200]
    assert deepest.text == "  " * 128 + "[" and data[deepest.start:deepest.start + 1] == b"["
    f = tmp_path / "deep.payload.json"
    f.write_bytes(data)
    p = cli("canon", "--diff", str(f))
    assert p.returncode == 1, p.stderr
    assert len(p.stdout) < 300 * len(data)  # linear in the file (it was quadratic)
    assert p.stdout.startswith(f"--- {f} (the file, 226479 bytes)\n+++ canonical (what the reference writes, 26463 bytes)\n"
                               "@@ file bytes 25558..225660, canonical bytes 25558..25644 @@\n".encode())
    # the class marker sits on the line where the unknown key's value starts (byte 25639, not deep inside it)
    assert b'\n- 25624       "zzzz_unknown": [    <- unknown-key-dropped\n- 25640         [\n- 25641           [\n' \
        in p.stdout
    assert p.stdout.splitlines()[-1].startswith(b"  unknown-key-dropped: unknown key, dropped by the reference's "
                                                b"decode: 1 place, first at byte 25639; ")
    assert p.stdout.splitlines()[-3:-1] == [b"First differing byte: file offset 25623.",
                                            b"Difference classes (P-CANONICAL):"]


def test_report_that_cannot_be_written_leaves_no_redacted_copy(tmp_path):
    """``-o`` in a folder that does not exist: the redacted copy (written first, its facts go in the report)
    used to stay behind while the command failed with exit 2."""
    p = cli("report", str(RP), str(RD), "-o", str(tmp_path / "nope" / "r.txt"), "--redacted-payload",
            str(tmp_path / "red.json"))
    assert p.returncode == 2 and list(tmp_path.iterdir()) == []
    assert p.stderr.decode().splitlines()[-1] == (
        f"checkpoint-inspector: {tmp_path / 'nope' / 'r.txt'}: cannot write (No such file or directory); "
        f"the redacted payload {tmp_path / 'red.json'} was removed")
