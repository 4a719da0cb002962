"""The commands on URLs and on a watch, run as a user runs them (a subprocess of the real CLI) against
servers on loopback started by the tests."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import GOLDEN
from tests.servers import S3_KEY, S3_SECRET, http_folder, s3_server, silent_server, upload

pytest.importorskip("fsspec", reason="the URL sources need fsspec (the sources extra)")

P = (GOLDEN / "payload-with-resume.json").read_bytes()
D = (GOLDEN / "descriptor-with-resume.json").read_bytes()


def cli(*args, timeout=120, **env_vars):
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_vars)
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)


def _pair(folder):
    (folder / "p.json").write_bytes(P)
    (folder / "d.json").write_bytes(D)
    return folder


def test_verify_and_report_read_urls_and_never_show_their_credentials(tmp_path):
    with http_folder(_pair(tmp_path)) as base:
        secret_url = base.replace("http://", "http://alice:hunter2@") + "/p.json?X-Amz-Signature=deadbeef99"
        r = cli("verify", secret_url, base + "/d.json")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.decode().splitlines()
        assert lines[1:3] == [f"payload:    {base}/p.json (2090 bytes)", f"descriptor: {base}/d.json (1185 bytes)"]
        assert "VERIFIED: the reference accepts this checkpoint." in lines
        r2 = cli("report", "--format", "json", secret_url, base + "/d.json")
        assert r2.returncode == 0 and json.loads(r2.stdout)["verdict"] == "VERIFIED"
        for out in (r.stdout + r.stderr, r2.stdout + r2.stderr):
            assert b"hunter2" not in out and b"alice" not in out and b"deadbeef99" not in out
        missing = cli("verify", base + "/gone.json")
        assert (missing.returncode, missing.stderr.decode()) == (
            2, f"checkpoint-inspector: {base}/gone.json: no such file\n")


def test_verify_and_scan_a_bucket(monkeypatch):
    with s3_server(monkeypatch) as endpoint:
        upload(endpoint, "exports", {"sink/p.json": P, "sink/d.json": D, "sink/broken.json": P[:-1]})
        r = cli("verify", "s3://exports/sink/p.json", "s3://exports/sink/d.json")
        assert r.returncode == 0, r.stderr
        s = cli("scan", "--format", "json", "s3://exports/sink/")
        assert s.returncode == 1, s.stderr  # (the truncated copy does not verify)
        doc = json.loads(s.stdout)
        assert [(x["session_id"], x["latest_resumable"]) for x in doc["sessions"]] == [("session-checkpoint-1", "p.json")]
        for out in (r.stdout, r.stderr, s.stdout, s.stderr):
            assert S3_SECRET.encode() not in out and S3_KEY.encode() not in out


def test_scan_of_a_json_lines_file_of_exports(tmp_path):
    wrapper = cli("describe", "--sdk-export", str(GOLDEN / "payload-with-resume.json")).stdout
    line = json.dumps(json.loads(wrapper), separators=(",", ":")).encode()
    (tmp_path / "sink.jsonl").write_bytes(line + b"\n")
    r = cli("scan", str(tmp_path / "sink.jsonl"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().splitlines()[0] == ("session session-checkpoint-1: 1 checkpoint, 1 verified; "
                                                 "latest resumable: sink.jsonl:1 (run source-run pass 3)")


def test_a_json_lines_file_of_exports_in_a_folder_is_read_line_by_line(tmp_path):
    """A sink's layout: a folder holding exports.jsonl (and test data that is JSON Lines too). Each line of the
    exports is a checkpoint, ``exports.jsonl:N``; a JSON Lines file with no export is one other file."""
    wrapper = cli("describe", "--sdk-export", str(GOLDEN / "payload-with-resume.json")).stdout
    line = json.dumps(json.loads(wrapper), separators=(",", ":")).encode()
    (tmp_path / "exports.jsonl").write_bytes(line + b"\n\n" + line + b"\n")
    (tmp_path / "cases.jsonl").write_bytes(b'{"case": 1}\n{"case": 2}\n')
    r = cli("scan", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().splitlines() == [
        "session session-checkpoint-1: 2 checkpoints, 2 verified; latest resumable: exports.jsonl:1 (run "
        "source-run pass 3)",
        "    1. exports.jsonl:1                          run source-run pass 3: VERIFIED, resumable",
        "    2. exports.jsonl:3                          run source-run pass 3: VERIFIED, resumable",
        "  same export: exports.jsonl:1 = exports.jsonl:3",
        "other files:",
        "  cases.jsonl: not a checkpoint: a JSON Lines file that holds no SDK export wrapper"]


def _watch(*args):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "inspector", "scan", "--watch", "--format", "jsonl", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, stdin=subprocess.DEVNULL)


def _lines(proc, n, deadline_s=60):
    """The next ``n`` JSON lines of a watch (failing after ``deadline_s`` seconds)."""
    out, end = [], time.monotonic() + deadline_s
    os.set_blocking(proc.stdout.fileno(), False)
    buf = b""
    while len(out) < n:
        assert time.monotonic() < end, f"only {out} within {deadline_s} s"
        chunk = proc.stdout.read()
        if chunk:
            buf += chunk
            *full, buf = buf.split(b"\n")
            out += [json.loads(x) for x in full if x]
        else:
            time.sleep(0.05)
    return out


def test_watch_a_local_folder_judges_stable_files_and_stops_on_sigterm(tmp_path):
    proc = _watch(str(tmp_path), "--settle", "0.5", "--pair-wait", "3")
    try:
        time.sleep(1.5)
        # the descriptor first, then the payload under a writer's temporary name and an atomic rename: the
        # descriptor waits for its payload, and the pair is judged once, under its real names
        shutil.copy(GOLDEN / "descriptor-with-resume.json", tmp_path / "d.json")
        time.sleep(0.8)
        (tmp_path / "p.json.part").write_bytes(P)
        os.rename(tmp_path / "p.json.part", tmp_path / "p.json")
        first = _lines(proc, 2)
        assert first == [
            {"schema": "checkpoint-inspector.scan-event.v1", "event": "export", "session_id": "session-checkpoint-1",
             "name": "p.json", "payload": str(tmp_path / "p.json"),
             "descriptor": str(tmp_path / "d.json"), "run_id": "source-run", "pass": 3, "verified": True,
             "root_cause": None, "resumability": first[0]["resumability"]},
            {"schema": "checkpoint-inspector.scan-event.v1", "event": "latest", "session_id": "session-checkpoint-1",
             "latest_resumable": "p.json", "no_single_latest": None},
        ]
        # a payload whose descriptor never comes is judged alone once its wait is over
        t0 = time.monotonic()
        shutil.copy(GOLDEN / "payload-semantic-only.json", tmp_path / "s.json")
        second = _lines(proc, 1)
        assert time.monotonic() - t0 >= 3.0
        assert {k: second[0][k] for k in ("event", "name", "descriptor", "verified")} == {
            "event": "export", "name": "s.json", "descriptor": None, "verified": False}
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
    assert code == 0, proc.stderr.read()


def test_watch_polls_a_url_and_stops_on_sigint(tmp_path):
    with http_folder(tmp_path) as base:
        proc = _watch(base + "/", "--interval", "0.3", "--settle", "0.3")
        try:
            time.sleep(1.0)
            _pair(tmp_path)
            lines = _lines(proc, 2)
            assert lines[0]["event"] == "export" and lines[0]["verified"] is True
            assert lines[0]["payload"] == f"{base}/p.json"
            assert lines[1]["latest_resumable"] == "p.json"
        finally:
            proc.send_signal(signal.SIGINT)
            code = proc.wait(30)
        assert code == 0, proc.stderr.read()


def test_jsonl_is_the_watch_format_only(tmp_path):
    r = cli("scan", "--format", "jsonl", str(tmp_path))
    assert (r.returncode, r.stderr.decode()) == (
        2, "checkpoint-inspector: --format jsonl is the output of --watch; use --format json for one scan\n")


def test_a_server_that_never_answers_is_given_up_after_the_network_timeout(tmp_path, monkeypatch):
    """aiohttp waits 300 s for an answer and botocore retries on top: each network call is bounded by
    $CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT (30 s; 2 here) and the command says so, exit 2, never a verdict."""
    with silent_server() as base:
        t0 = time.monotonic()
        r = cli("verify", base + "/x.json", CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT="2")
        took = time.monotonic() - t0
        assert r.returncode == 2 and took < 60
        assert r.stderr.decode() == (f"checkpoint-inspector: {base}/x.json: cannot read (no answer after 2 s: "
                                     f"SocketTimeoutError)\n")
        r = cli("scan", base + "/x/", CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT="2")
        assert r.returncode == 2 and "no answer after 2 s" in r.stderr.decode()
        # an S3 endpoint that never answers: two attempts of 2 s each
        monkeypatch.setenv("AWS_ENDPOINT_URL", base)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", S3_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", S3_SECRET)
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        pytest.importorskip("s3fs")
        r = cli("scan", "s3://exports/prod/", CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT="2")
        assert r.returncode == 2 and "no answer after 2 s" in r.stderr.decode(), r.stderr.decode()
        assert S3_SECRET not in r.stderr.decode() + r.stdout.decode()


def test_scan_of_a_signed_prefix_never_prints_its_query(tmp_path):
    """A pre-signed prefix's query is a credential: the files are read with it, and named without it (and
    decoded: ``p 1.json``), in text and JSON."""
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "p 1.json").write_bytes(P)
    (tmp_path / "exports" / "d.json").write_bytes(D)
    with http_folder(tmp_path) as base:
        r = cli("scan", base + "/exports/?sig=s3cr3t")
        j = cli("scan", "--format", "json", base + "/exports/?sig=s3cr3t")
    assert r.returncode == 0 and j.returncode == 0
    assert "latest resumable: p 1.json (run source-run pass 3)" in r.stdout.decode()
    entry = json.loads(j.stdout)["sessions"][0]["series"][0]
    assert (entry["name"], entry["payload"], entry["descriptor"], entry["verified"]) == (
        "p 1.json", "p 1.json", "d.json", True)
    assert b"s3cr3t" not in r.stdout + r.stderr + j.stdout + j.stderr
