"""``-`` reads standard input (inspector/cli/common.py ``read_stdin``): the payload or the descriptor piped in,
recognised by content; given twice, or with nothing piped in (a terminal), it is bad usage (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import GOLDEN, ROOT

P, D = GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"


def _run(*args, stdin: bytes = b""):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], input=stdin, capture_output=True,
                          env=env, timeout=120)


def test_the_payload_on_standard_input_verifies_with_its_descriptor():
    r = _run("verify", "-", D, "--format", "json", stdin=P.read_bytes())
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["verified"] is True
    assert out["inputs"]["payload"]["path"] == "-" and out["inputs"]["payload"]["uri"] is None  # (no file of it)
    assert out["inputs"]["payload"]["sha256"] == "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"


def test_the_descriptor_on_standard_input_is_recognised_by_content():
    r = _run("verify", P, "-", stdin=D.read_bytes())
    assert r.returncode == 0 and b"VERIFIED: the reference accepts this checkpoint." in r.stdout
    assert b"descriptor: - (1185 bytes)" in r.stdout


def test_standard_input_twice_is_bad_usage():
    r = _run("verify", "-", "-", stdin=P.read_bytes())
    assert r.returncode == 2
    assert r.stderr.decode().strip().endswith("-: standard input can be given once (the other file must be named)")


def test_a_broken_payload_on_standard_input_fails_its_rule():
    data = P.read_bytes().replace(b'"continue"', b'"continuE"')
    r = _run("verify", "-", D, stdin=data)
    assert r.returncode == 1 and b"X-BYTES" in r.stdout


def test_restore_never_writes_a_file_named_dash(tmp_path):
    import orjson

    pretty = tmp_path / "pretty.payload.json"
    pretty.write_bytes(orjson.dumps(orjson.loads(P.read_bytes()), option=orjson.OPT_INDENT_2))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "inspector", "restore", str(pretty), str(D), "-o", "-"],
                       capture_output=True, env=env, timeout=120, cwd=tmp_path)
    assert r.returncode == 2 and not (tmp_path / "-").exists()
    assert b"-o -: name the new file to write the restored payload to" in r.stderr
