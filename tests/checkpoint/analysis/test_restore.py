"""The original restored when it can be proven (issue 26; inspector/checkpoint/analysis/restore.py and the
``restore`` command): the golden payload comes back byte for byte from a pretty-printed CRLF copy, a BOM, a
trailing newline and gzip; a changed value and a float the reference reads differently are refused; nothing is
ever written over an input."""

from __future__ import annotations

import gzip
import json

import orjson
import pytest

from inspector.checkpoint import build_descriptor, decode, encode, verify
from inspector.checkpoint.analysis.restore import NoProof, restore_original
from inspector.cli.main import main as cli_main
from tests.conftest import GOLDEN

P_PATH, D_PATH = GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"
P, D = P_PATH.read_bytes(), D_PATH.read_bytes()
DESC = json.loads(D)
DIGEST = "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"
# 0.800000011920929 spelled so that a correct parser reads it back exactly but serde_json 1.0.151 (no
# float_roundtrip) reads 0.8000000119209288: a float the reference reads differently
MISREAD = b"0.800000011920928905078125"

TRANSPORTED = {
    "pretty-crlf": (orjson.dumps(orjson.loads(P), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n"),
                    ("CRLF line endings between tokens", "whitespace between tokens (the reference writes compact JSON)")),
    "bom": (b"\xef\xbb\xbf" + P, ("a UTF-8 byte order mark at the start",)),
    "newline": (P + b"\n", ("whitespace or a newline after the document",)),
    "gzip": (gzip.compress(P, mtime=0), ("gzip compression",)),
}


@pytest.mark.parametrize("name", TRANSPORTED)
def test_the_golden_payload_comes_back_byte_for_byte(name, tmp_path, capsys):
    data, changes = TRANSPORTED[name]
    original, proof = restore_original(data, DESC)
    assert original == P
    assert (proof.changes, proof.size_bytes, proof.content_digest) == (changes, 2090, DIGEST)
    # the verification says so (an X-BYTES failure with a proven original), and the command writes it
    report = verify(data, D)
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration == proof
    src, out = tmp_path / f"{name}.payload.json", tmp_path / "restored.payload.json"
    src.write_bytes(data)
    assert cli_main(["restore", str(src), str(D_PATH), "-o", str(out)]) == 0
    assert out.read_bytes() == P and src.read_bytes() == data
    stdout = capsys.readouterr().out.splitlines()
    assert stdout[0] == f"restored {out}: 2090 bytes, {DIGEST}"
    assert stdout[2] == "the restored pair: VERIFIED"


def _exported_with_cost() -> tuple[bytes, bytes]:
    """The golden payload with ``session.total_cost`` (an f64) = 0.800000011920929, exported: ``(payload,
    descriptor)`` as the reference writes them."""
    value = orjson.loads(P)
    value["snapshot"]["session"]["total_cost"] = 0.800000011920929
    payload = encode(value)
    assert b'"total_cost":0.800000011920929' in payload
    return payload, encode(build_descriptor(decode(payload), payload))


COST_P, COST_D = _exported_with_cost()


@pytest.mark.parametrize("changed, exported", [
    (P.replace(b'"prompt":"continue"', b'"prompt":"continuE"'), (P, D)),             # one changed value
    (COST_P.replace(b"0.800000011920929", MISREAD), (COST_P, COST_D)),              # a float serde reads differently
], ids=["changed-value", "float-read-differently"])
def test_no_proof_no_restore(changed, exported, tmp_path, capsys):
    payload, descriptor = exported
    assert changed != payload and verify(payload, descriptor).verified
    with pytest.raises(NoProof, match="the content itself differs from the export"):
        restore_original(changed, json.loads(descriptor))
    assert verify(changed, descriptor).restoration is None
    src, out, desc = tmp_path / "changed.payload.json", tmp_path / "restored.payload.json", tmp_path / "d.json"
    src.write_bytes(changed)
    desc.write_bytes(descriptor)
    assert cli_main(["restore", str(src), str(desc), "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith("checkpoint-inspector: no restore: the canonical re-encoding of what the file holds is ")
    assert f"the descriptor binds {len(payload)} bytes with {json.loads(descriptor)['content_digest']}" in err


def test_a_payload_that_does_not_decode_has_nothing_to_restore():
    with pytest.raises(NoProof, match=r"what the file holds does not decode \(P-PARSE: EOF while parsing"):
        restore_original(P[:100], DESC)


def test_restore_never_writes_over_a_file(tmp_path, capsys):
    src = tmp_path / "nl.payload.json"
    src.write_bytes(P + b"\n")
    for target in (src, D_PATH):
        before = target.read_bytes()
        assert cli_main(["restore", str(src), str(D_PATH), "-o", str(target)]) == 2
        assert target.read_bytes() == before
    assert capsys.readouterr().err.splitlines()[-1] == f"checkpoint-inspector: {D_PATH} exists; choose a new file name"


def test_a_descriptor_over_the_ceiling_is_refused_not_a_crash(tmp_path, capsys):
    src, big, out = tmp_path / "nl.payload.json", tmp_path / "big.descriptor.json", tmp_path / "r.json"
    src.write_bytes(P + b"\n")
    with open(big, "wb") as fh:
        fh.truncate(268435456 + 1)  # sparse
    assert cli_main(["restore", str(src), str(big), "-o", str(out)]) == 2 and not out.exists()
    assert capsys.readouterr().err == (f"checkpoint-inspector: {big}: 268435457 bytes is over the 268435456-byte v1 "
                                       "ceiling; not read\n")
