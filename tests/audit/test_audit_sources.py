"""The audit over the source seam's real sources: an HTTP server and an S3-protocol server on loopback (started by
the tests; clients never patched), a manifest of payload/descriptor URL pairs, and a JSON Lines file of SDK export
wrappers (told from a manifest by content)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")
pytest.importorskip("fsspec", reason="the URL sources need fsspec (the sources extra)")

from inspector.cli.main import main  # noqa: E402
from inspector.session.manifest import Manifest, is_manifest, open_audit_source  # noqa: E402
from inspector.session.sources import ExportLines  # noqa: E402
from tests.audit.conftest import cli, records  # noqa: E402
from tests.conftest import GOLDEN  # noqa: E402
from tests.servers import S3_KEY, S3_SECRET, http_folder, s3_server, upload  # noqa: E402

P = (GOLDEN / "payload-with-resume.json").read_bytes()
D = (GOLDEN / "descriptor-with-resume.json").read_bytes()
P2 = (GOLDEN / "payload-semantic-only.json").read_bytes()
D2 = (GOLDEN / "descriptor-semantic-only.json").read_bytes()
#: the store: two pairs whose names do not match (paired by digest), a truncated copy, a stray file
FILES = {"a/run-7.payload.json": P, "a/x.descriptor.json": D, "b/semantic.payload.json": P2,
         "b/semantic.descriptor.json": D2, "b/broken.payload.json": P[:-1], "b/notes.txt": b"hello\n"}


def _verdicts(recs: list[dict], prefix: str) -> dict:
    def short(x):
        return x[len(prefix):].lstrip("/") if x else None

    return {(short(r["payload"]), short(r["descriptor"]), short(r["other"])):
            (r["verified"], (r["root_cause"] or {}).get("rule"), r["sha256"], r["error"]) for r in recs}


WANT = {("a/run-7.payload.json", "a/x.descriptor.json", None): (True, None, "sha256:" + __import__("hashlib").sha256(
            P).hexdigest(), None),
        ("b/broken.payload.json", None, None): (False, "P-PARSE", "sha256:" + __import__("hashlib").sha256(
            P[:-1]).hexdigest(), "could not be parsed: P-PARSE"),
        ("b/semantic.payload.json", "b/semantic.descriptor.json", None): (True, None, "sha256:" + __import__(
            "hashlib").sha256(P2).hexdigest(), None),
        (None, None, "b/notes.txt"): (False, None, None, "not a checkpoint file")}


def _write(folder: Path) -> Path:
    for name, data in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def test_an_audit_over_http_gives_the_local_folders_records_and_no_credential(tmp_path, cluster):
    store = _write(tmp_path / "store")
    local = tmp_path / "local.jsonl"
    assert main(["audit", str(store), "--out", str(local), "--scheduler", cluster.scheduler_address]) == 1
    assert _verdicts(records(local), str(store)) == WANT
    with http_folder(store) as base:
        secret = base.replace("http://", "http://alice:hunter2@") + "/"
        out = tmp_path / "http.jsonl"
        assert main(["audit", secret, "--out", str(out), "--scheduler", cluster.scheduler_address,
                     "--batch", "2"]) == 1
    text = out.read_text("utf-8")
    assert "hunter2" not in text and "alice" not in text
    assert _verdicts(records(out), base) == WANT


def test_an_audit_of_a_bucket_on_the_commands_own_cluster(tmp_path, monkeypatch):
    with s3_server(monkeypatch) as endpoint:
        upload(endpoint, "exports", {f"sink/{k}": v for k, v in FILES.items()})
        out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
        r = cli("audit", "s3://exports/sink/", "--out", out, "--summary", summary, "--workers", "1")
        assert r.returncode == 1, r.stderr
    assert _verdicts(records(out), "s3://exports/sink") == WANT
    text = out.read_text("utf-8") + summary.read_text("utf-8") + r.stdout.decode() + r.stderr.decode()
    assert S3_KEY not in text and S3_SECRET not in text
    assert json.loads(summary.read_text())["by_error"] == {"could not be parsed: P-PARSE": 1,
                                                           "not a checkpoint file": 1}


def test_a_manifest_pairs_as_it_says_over_http(tmp_path, cluster):
    store = _write(tmp_path / "store")
    with http_folder(store) as base:
        lines = [{"payload": f"{base}/a/run-7.payload.json", "descriptor": f"{base}/a/x.descriptor.json"},
                 # (as written, though the digests say otherwise: the database's pairing is the audit's)
                 {"payload": f"{base}/b/semantic.payload.json", "descriptor": f"{base}/a/x.descriptor.json"},
                 {"payload": f"{base}/b/gone.payload.json", "descriptor": None},
                 {"descriptor": f"{base}/b/semantic.descriptor.json"}]
        manifest = tmp_path / "db-export.jsonl"
        manifest.write_text("".join(json.dumps(x) + "\n" for x in lines))
        assert isinstance(open_audit_source(str(manifest)), Manifest)
        out = tmp_path / "r.jsonl"
        assert main(["audit", str(manifest), "--out", str(out), "--scheduler", cluster.scheduler_address]) == 1
    got = {(r["payload"], r["descriptor"], r["other"]): r for r in records(out)}
    assert sorted(((k, r["verified"], (r["root_cause"] or {}).get("rule"), r["error"]) for k, r in got.items()),
                  key=str) == sorted([
        ((None, None, f"{base}/b/gone.payload.json"), False, None, "vanished (listed, then gone before it was read)"),
        ((None, f"{base}/b/semantic.descriptor.json", None), False, None, None),
        ((f"{base}/a/run-7.payload.json", f"{base}/a/x.descriptor.json", None), True, None, None),
        ((f"{base}/b/semantic.payload.json", f"{base}/a/x.descriptor.json", None), False, "X-BYTES", None)], key=str)


def test_export_lines_and_manifests_are_told_apart_by_content(tmp_path, cluster):
    line = json.dumps({"descriptor": json.loads(D), "contentBase64": base64.b64encode(P).decode()}).encode()
    sink = tmp_path / "manifest-looking-name.jsonl"
    sink.write_bytes(line + b"\n" + line + b"\n")
    assert not is_manifest(sink.read_bytes()) and isinstance(open_audit_source(str(sink)), ExportLines)
    assert is_manifest(b'\n{"payload": "s3://b/p.json", "descriptor": "s3://b/d.json"}\n')
    assert not is_manifest(b'{"payload": "s3://b/p.json", "descriptor": {"schema": "x"}}\n')
    assert not is_manifest(b'{"payload": "p", "descriptor": "d", "contentBase64": ""}\n')
    out = tmp_path / "r.jsonl"
    assert main(["audit", str(sink), "--out", str(out), "--scheduler", cluster.scheduler_address]) == 0
    recs = records(out)
    assert [(r["payload"], r["descriptor"], r["verified"]) for r in recs] == [
        (f"{sink}:1", f"{sink}:1", True), (f"{sink}:2", f"{sink}:2", True)]
    assert {r["sha256"] for r in recs} == {"sha256:" + __import__("hashlib").sha256(P).hexdigest()}
