"""The original restored when it can be proven (inspector/checkpoint/analysis/restore.py and the
``restore`` command): the golden payload comes back byte for byte from a pretty-printed CRLF copy, a BOM, a
trailing newline and gzip; a changed value and a float the reference reads differently are refused; nothing is
ever written over an input."""

from __future__ import annotations

import gzip
import struct
import zlib
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


# -- gzip bombs and large gzip content: read as a stream (benchmarks/README.md has the memory figures) --------------
def _gzip_repeating(head: bytes, block: bytes, times: int, tail: bytes = b"") -> bytes:
    """A valid gzip file of ``head + block * times + tail``, made in milliseconds: after a full flush deflate starts
    afresh, so the compressed form of ``block`` is the same bytes each time and is repeated; then a final empty
    block and the gzip trailer (CRC-32 and size of the whole content)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    first = c.compress(head + block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(tail) + c.flush(zlib.Z_FULL_FLUSH) if tail else b""
    crc = zlib.crc32(head + block)
    for _ in range(times - 1):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + len(block) * times + len(tail)
    return first + again * (times - 1) + last + b"\x03\x00" + struct.pack("<II", crc, size & 0xFFFFFFFF)


MIB = 1 << 20


def test_the_bomb_helper_makes_real_gzip():
    assert gzip.decompress(_gzip_repeating(b"[", b" " * 1000, 5, b"1]")) == b"[" + b" " * 5000 + b"1]"


def test_a_bomb_of_zeros_is_refused_at_its_first_byte():
    # 1 GiB of zeros in 1 MB: the first byte already proves it does not decode
    bomb = _gzip_repeating(b"", bytes(MIB), 1024)
    assert len(bomb) < 1_100_000
    with pytest.raises(NoProof) as e:
        restore_original(bomb, DESC)
    assert str(e.value) == ("what the file holds does not decode (P-PARSE: expected value at line 1 column 1), so "
                            "there is nothing to re-encode")
    assert verify(bomb, D).restoration is None


def test_a_bomb_of_whitespace_over_the_ceiling_is_refused_by_its_size():
    bomb = _gzip_repeating(b"[", b" " * MIB, 257, b"]")
    with pytest.raises(NoProof) as e:
        restore_original(bomb, DESC)
    assert str(e.value) == "the file is gzip-compressed and decompresses to more than 268435456 bytes"


def test_a_bomb_of_json_under_the_ceiling_that_is_not_the_export_is_refused():
    # 100 MiB of valid JSON in about 100 KB: too large to re-encode here, and not the bound bytes themselves
    bomb = _gzip_repeating(b'{"schema":', b" " * MIB, 100, b'"x"}')
    with pytest.raises(NoProof) as e:
        restore_original(bomb, DESC)
    assert str(e.value) == ("the file is gzip-compressed and decompresses to 104857614 bytes, which are not the 2090 "
                            f"bytes with {DIGEST} that the descriptor binds; a re-saved copy that large (over the file's "
                            "own size plus 12 MiB) is not re-encoded here, so the original cannot be proven")
    assert verify(bomb, D).restoration is None


def _exported_with_long_prompt(mib: int) -> tuple[bytes, bytes]:
    """The golden payload with a ``prompt`` of ``mib`` MiB of one letter, exported: ``(payload, descriptor)``."""
    payload = P.replace(b'"prompt":"continue"', b'"prompt":"' + b"c" * (mib * MIB) + b'"')
    return payload, encode(build_descriptor(decode(payload), payload))


def test_a_large_gzip_export_is_proven_by_its_size_and_digest_as_it_streams():
    payload, descriptor = _exported_with_long_prompt(20)
    desc = json.loads(descriptor)
    head, rest = payload.split(b"c" * MIB, 1)
    block_times = 20
    tail = rest[(block_times - 1) * MIB:]
    assert rest[:(block_times - 1) * MIB] == b"c" * ((block_times - 1) * MIB)
    packed = _gzip_repeating(head, b"c" * MIB, block_times, tail)
    assert gzip.decompress(packed) == payload and len(packed) < 200_000
    original, proof = restore_original(packed, desc)
    assert original == payload
    assert (proof.changes, proof.size_bytes, proof.content_digest) == (("gzip compression",), len(payload),
                                                                       desc["content_digest"])
    assert verify(packed, descriptor).restoration == proof
    # one byte changed: the content is not the export, and it is too large to re-encode here
    changed = _gzip_repeating(head.replace(b'"prompt":"', b'"prompt":"C'), b"c" * MIB, block_times, tail[1:])
    with pytest.raises(NoProof, match=f"decompresses to {len(payload)} bytes, which are not the {len(payload)} bytes"):
        restore_original(changed, desc)
