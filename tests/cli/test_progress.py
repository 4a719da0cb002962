"""``verify --progress``: partial verdicts on stderr before the report, the report unchanged."""

import re

from inspector.cli import main
from tests.conftest import CASES, GOLDEN

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"
STAMP = r"\[ *\d+\.\d s\] "


def run(capsysbinary, *argv):
    code = main(list(map(str, argv)))
    out, err = capsysbinary.readouterr()
    return code, out, err.decode()


def test_progress_on_a_verified_pair_then_the_same_report(capsysbinary):
    code, out, err = run(capsysbinary, "verify", "--progress", GP, GD)
    assert code == 0
    lines = err.splitlines()
    assert re.fullmatch(STAMP + re.escape("Bytes match the descriptor (size and content digest); checking structure…"), lines[0])
    assert re.fullmatch(STAMP + re.escape("Bytes match the descriptor and the payload parses as a v1 payload; "
                                          "checking every rule…"), lines[1])
    assert len(lines) == 2
    code2, out2, err2 = run(capsysbinary, "verify", GP, GD)
    assert (code2, out2, err2) == (code, out, "")


def test_progress_gives_x_bytes_with_both_digests_first(capsysbinary):
    p, d = CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"
    code, out, err = run(capsysbinary, "verify", "--progress", p, d, "--format", "json")
    assert code == 1
    lines = err.splitlines()
    assert re.fullmatch(STAMP + re.escape("NOT VERIFIED: X-BYTES failed — session checkpoint content drift: descriptor "
                                          "does not match the exact supplied bytes; checking the other rules…"), lines[0])
    # the digests table's words and order: the descriptor's digest (stated), then the payload's (recomputed)
    assert lines[1] == "    stated:   sha256:52c836615a8774bfb03d128b15038ee4d90b86eb7d180165ff51f9554f85ff29"
    assert lines[2] == "    recomputed: sha256:f6d3a761598dcd55a7d1d3591b7917b40d0903bca72115de7b99b3b8ee41b0ef"
    assert re.fullmatch(STAMP + re.escape("payload structure read; checking the other rules…"), lines[-1])
    assert b'"rule": "X-BYTES"' in out or b'"rule":"X-BYTES"' in out
