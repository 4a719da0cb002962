"""Faults, for real: the CLI interrupted by Ctrl+C (SIGINT) or killed (SIGKILL, its workers too) after its first
records are journaled, then ``--resume``; a worker process of a running cluster killed while tasks run; hostile
files (a FIFO, a gzip bomb, a million-deep nesting, a file that vanishes between listing and reading, a file
over the time limit); a scheduler that cannot be reached. Each run's records are held to an uninterrupted run's."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

from inspector.audit import classify_batch, verify_batch  # noqa: E402
from inspector.cli.main import main  # noqa: E402
from inspector.session.manifest import AuditFolder  # noqa: E402
from tests.audit.conftest import ROOT, by_key, cli, records  # noqa: E402
from tests.conftest import CASES, CASES_PINNED  # noqa: E402


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One folder of the 156 reference cases (their own names, two prefixes), and its uninterrupted audit."""
    folder = tmp_path_factory.mktemp("store") / "exports"
    folder.mkdir()
    for prefix, src in (("c", CASES), ("p", CASES_PINNED)):
        for f in src.glob("*.json"):
            shutil.copy(f, folder / f"{prefix}{f.name}")
    out = folder.parent / "uninterrupted.jsonl"
    r = cli("audit", folder, "--out", out, "--workers", "2", "--batch", "4")
    assert r.returncode == 1, r.stderr
    return folder, by_key(records(out))


def _journaled(journal: Path) -> bytes:
    """The journal's lines (its parts in order; a part being written may be short)."""
    try:
        return b"".join(p.read_bytes() for p in sorted(journal.glob("part-*.jsonl")))
    except FileNotFoundError:
        return b""


def _wait_for_checkpoint_lines(journal: Path, proc=None, n: int = 1, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the audit ended first: {proc.returncode} {proc.stderr.read()!r}")
        got = _journaled(journal).count(b'"checkpoint": true')
        if got >= n:
            return got
        time.sleep(0.02)
    raise AssertionError("no record was journaled")


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_an_interrupted_audit_resumes_to_what_an_uninterrupted_one_writes(tmp_path, store, how):
    folder, want = store
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    journal = Path(str(out) + ".partial")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "audit", str(folder), "--out", str(out),
                             "--workers", "1", "--batch", "1"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        # a part is whole or absent: the one being written when the signal comes is removed (write_new_file),
        # so three records are surely journaled once a fourth is seen (one record a part, --batch 1)
        _wait_for_checkpoint_lines(journal, proc, n=4)
        if how == "SIGINT":
            proc.send_signal(signal.SIGINT)  # (Ctrl+C: the command's own process only)
            assert proc.wait(60) == 130
            assert b"Traceback" not in proc.stderr.read()
        else:
            os.killpg(proc.pid, signal.SIGKILL)  # (a crash: the command and the cluster it started)
            assert proc.wait(60) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stdout.close()
        proc.stderr.close()
    assert not out.exists()
    assert journal.is_dir()
    before = _journaled(journal)
    done = sum(1 for line in before.split(b"\n") if b'"checkpoint": true' in line)
    assert 3 <= done < sum(r["checkpoint"] for r in want.values())  # (interrupted in the middle)
    if how == "SIGKILL":
        last = sorted(journal.glob("part-*.jsonl"))[-1]
        last.write_bytes(last.read_bytes() + b'{"r": {"schema": "torn')  # (a line torn by the crash is cut off)
    r = cli("audit", folder, "--out", out, "--summary", summary, "--workers", "2", "--batch", "4", "--resume")
    assert r.returncode == 1, r.stderr
    assert not journal.exists()
    got = by_key(records(out))
    assert got == want
    s = json.loads(summary.read_text())
    assert s["resumed_records"] == len(before.split(b"\n")) - 1 and s["records"] == len(want)


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path, store, cluster, capsys):
    from dask.distributed import Client

    folder, want = store
    out = tmp_path / "r.jsonl"
    journal = Path(str(out) + ".partial")
    codes = []
    t = threading.Thread(target=lambda: codes.append(main(["audit", str(folder), "--out", str(out), "--scheduler",
                                                           cluster.scheduler_address, "--batch", "2"])))
    with Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        t.start()
        _wait_for_checkpoint_lines(journal, n=2)
        busy = [w for w, keys in client.processing().items() if keys]
        assert busy, "no task was running"
        os.kill(pids[busy[0]], signal.SIGKILL)
        killed_at = _journaled(journal).count(b'"checkpoint": true')
        t.join(180)
        assert codes == [1]
        client.wait_for_workers(2, timeout=60)
        after = client.run(os.getpid)
    assert killed_at < sum(r["checkpoint"] for r in want.values())  # (it was killed while work remained)
    assert pids[busy[0]] not in after.values()  # (that worker is gone; its nanny started another)
    assert by_key(records(out)) == want


def _hostile(folder: Path) -> None:
    shutil.copy(CASES / "01-valid.payload.json", folder / "ok.payload.json")
    shutil.copy(CASES / "01-valid.descriptor.json", folder / "ok.descriptor.json")
    os.mkfifo(folder / "pipe.payload.json")
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # a gzip file of 300 MiB of zeros, about 300 KiB
    with open(folder / "bomb.payload.json.gz", "wb") as fh:
        block = b"\0" * (1 << 20)
        for _ in range(300):
            fh.write(z.compress(block))
        fh.write(z.flush())
    spec = importlib.util.spec_from_file_location("gen_hostile", ROOT / "benchmarks" / "gen_hostile.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.deep_unknown(folder, 1_000_000)


def test_hostile_files_cost_one_record_each_never_a_worker(tmp_path, cluster):
    from dask.distributed import Client

    folder = tmp_path / "hostile"
    folder.mkdir()
    _hostile(folder)
    assert len(gzip.decompress((folder / "bomb.payload.json.gz").read_bytes())) == 300 << 20
    out = tmp_path / "r.jsonl"
    with Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        assert main(["audit", str(folder), "--out", str(out), "--scheduler", cluster.scheduler_address]) == 1
        assert client.run(os.getpid) == pids  # (no worker died)
    got = {Path(r["payload"] or r["other"]).name: r for r in records(out)}
    assert sorted(got) == ["bomb.payload.json.gz", "deep-1000000.payload.json", "ok.payload.json",
                           "pipe.payload.json"]
    assert got["pipe.payload.json"]["error"] == "not a regular file (FIFO)"
    assert (got["bomb.payload.json.gz"]["error"], got["bomb.payload.json.gz"]["checkpoint"]) == (
        "not a checkpoint file", False)
    assert got["bomb.payload.json.gz"]["other_bytes"] == (folder / "bomb.payload.json.gz").stat().st_size
    deep = got["deep-1000000.payload.json"]
    assert (deep["verified"], deep["root_cause"]["rule"], deep["descriptor"], deep["error"]) == (
        False, "P-CANONICAL", None, None)
    assert got["ok.payload.json"]["verified"] is True


def test_a_file_that_vanishes_between_listing_and_reading_is_one_record(tmp_path):
    folder = tmp_path / "v"
    folder.mkdir()
    for n in ("a", "b"):
        shutil.copy(CASES / "01-valid.payload.json", folder / f"{n}.payload.json")
    entries = AuditFolder(str(folder), recursive=True).entries()
    (folder / "a.payload.json").unlink()  # (listed, then gone)
    found, _seconds = classify_batch(str(folder), True, entries)
    assert [(Path(f.location).name, f.role, f.error) for f in found] == [
        ("a.payload.json", "error", "vanished (listed, then gone before it was read)"),
        ("b.payload.json", "payload", None)]
    (folder / "b.payload.json").unlink()  # (classified, then gone before it was verified)
    out = verify_batch(str(folder), True, [(found[1], None)])
    (rec, facts, _s), = out["items"]
    assert (rec["error"], rec["payload"], rec["verified"], facts) == (
        "vanished (listed, then gone before it was read)", str(folder / "b.payload.json"), False, None)


def test_a_file_over_the_time_limit_is_given_up_and_the_rest_sent_again(tmp_path):
    folder = tmp_path / "slow"
    folder.mkdir()
    _hostile(folder)
    entries = [e for e in AuditFolder(str(folder)).entries() if e.name.startswith(("deep", "ok"))]
    found, _ = classify_batch(str(folder), False, entries)
    deep = next(f for f in found if f.name.startswith("deep"))
    ok = [f for f in found if f.name.startswith("ok")]
    out = verify_batch(str(folder), False, [(deep, None), (ok[1], ok[0])], file_seconds=0.2)
    assert out["stuck"] is True and out["rest"] == [(ok[1], ok[0])]
    (rec, facts, seconds), = out["items"]
    assert (rec["error"], rec["verified"], facts) == ("over the 0.2 s time limit", False, None)
    assert 0.2 <= seconds < 2


def test_a_scheduler_that_cannot_be_reached_is_a_usage_error_not_a_traceback(tmp_path):
    out = tmp_path / "r.jsonl"
    r = cli("audit", CASES, "--out", out, "--scheduler", "tcp://127.0.0.1:9")
    assert r.returncode == 2
    assert r.stderr.decode().splitlines()[-1] == (
        "checkpoint-inspector: cannot reach the Dask scheduler at tcp://127.0.0.1:9 (OSError)")
    assert b"Traceback" not in r.stderr and not out.exists() and not Path(str(out) + ".partial").exists()


def test_the_time_limit_on_a_cluster_gives_up_one_file_restarts_its_worker_and_finishes_the_rest(tmp_path, cluster):
    from dask.distributed import Client

    folder = tmp_path / "slow"
    folder.mkdir()
    _hostile(folder)
    (folder / "pipe.payload.json").unlink()
    out = tmp_path / "r.jsonl"
    with Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        assert main(["audit", str(folder), "--out", str(out), "--scheduler", cluster.scheduler_address,
                     "--file-timeout", "0.3"]) == 1  # (deep was given up: not verified)
        client.wait_for_workers(2, timeout=60)
        assert len(set(client.run(os.getpid).values()) - set(pids.values())) == 1  # (the stuck one restarted)
    got = {Path(r["payload"] or r["other"]).name: r for r in records(out)}
    assert got["deep-1000000.payload.json"]["error"] == "over the 0.3 s time limit"
    assert got["ok.payload.json"]["verified"] is True and got["ok.payload.json"]["error"] is None
    assert len(got) == 3 and got["deep-1000000.payload.json"]["verified"] is False


def test_a_payload_over_the_ceiling_is_judged_by_its_size_and_not_read(tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    with open(folder / "huge.payload.json", "wb") as fh:  # (sparse: 300 MiB on no disk)
        fh.truncate(300 << 20)
    found, _ = classify_batch(str(folder), False, AuditFolder(str(folder)).entries())
    assert [(f.role, f.size, f.sha256) for f in found] == [("payload", 300 << 20, None)]
    (rec, facts, _s), = verify_batch(str(folder), False, [(found[0], None)])["items"]
    assert (rec["verified"], rec["root_cause"]["rule"], rec["error"], rec["payload_bytes"], rec["payload_sha256"]) == (
        False, "P-BOUND", "over the 256 MiB ceiling (not read further)", 300 << 20, None)
