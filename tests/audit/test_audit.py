"""``checkpoint-inspector audit`` (issue 34, first part) on a real Dask cluster: a ``LocalCluster`` of worker
processes that the test starts (the cluster an operator already runs, ``--scheduler``) and the one the command
starts itself. The records and the summary are held to what ``scan`` says of the same files in one process, and
the sessions to the answers written beside each series of FORMAT.md 4.18 (tests/session/data/series)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

from dask.distributed import LocalCluster  # noqa: E402

from inspector.audit import RECORD_SCHEMA, SUMMARY_SCHEMA, batches  # noqa: E402
from inspector.cli.main import main  # noqa: E402
from inspector.session.folderscan import scan_folder  # noqa: E402
from inspector.session.sources import Entry  # noqa: E402

SERIES = Path(__file__).resolve().parents[1] / "session" / "data" / "series"
#: the series whose files are in the repository (large-alone's payload is built by its test)
FOLDERS = sorted(p for p in SERIES.iterdir() if any(p.glob("*.payload.json")))


def _scan_in_one_process() -> list:
    import threading

    rows: list = []
    t = threading.Thread(target=lambda: rows.extend(r for f in sorted(SERIES.iterdir()) for r in scan_folder(str(f))))
    t.start()
    t.join()
    return rows


def _key(payload, descriptor, other):
    return tuple(str(x) if x else None for x in (payload, descriptor, other))


def test_an_audit_on_a_running_cluster_gives_scans_verdicts_and_the_series_answers(tmp_path, capsys):
    out, summary = tmp_path / "results.jsonl", tmp_path / "summary.json"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code = main(["audit", str(SERIES), "--out", str(out), "--summary", str(summary),
                     "--scheduler", cluster.scheduler_address, "--batch", "7"])
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert code == 1  # some checkpoints of the series do not verify (re-saved copies)
    assert {r["schema"] for r in records} == {RECORD_SCHEMA}
    # every file once, with the verdict and root cause the one-process scan gives
    scanned = _scan_in_one_process()
    want = {_key(r.payload, r.descriptor, r.other): (r.verified, r.root_rule) for r in scanned}
    got = {_key(r["payload"], r["descriptor"], r.get("other")): (r["verified"], r["root_cause"]) for r in records}
    assert got == want and len(records) == len(scanned) == 41
    first = next(r for r in records if r["payload"] and r["payload"].endswith("clock-skew/p1.payload.json"))
    assert first == {
        "schema": RECORD_SCHEMA, "checkpoint": True, "verified": True, "root_cause": None,
        "payload": str(SERIES / "clock-skew" / "p1.payload.json"), "payload_bytes": 5498,
        "descriptor": str(SERIES / "clock-skew" / "p1.descriptor.json"), "descriptor_bytes": 1164,
        "sha256": "sha256:dc7b7d5eb3212d5d0b86b9272c221254583078fbfe4990d05203537d57143930",
        "session_id": "s-clock-skew", "run_id": "run-1", "pass": 1, "resumability": "Resumable"}
    # the sessions, as FORMAT.md 4.18 answers each series (its expected.json)
    expected = [json.loads((f / "expected.json").read_text()) for f in FOLDERS]
    s = json.loads(summary.read_text("utf-8"))
    assert s["schema"] == SUMMARY_SCHEMA
    assert s["sessions"] == {"total": len(FOLDERS),
                             "with_latest_resumable": sum(e["latest_resumable"] is not None for e in expected),
                             "fork_at_head": sum(e["no_single_latest"] is not None for e in expected)}
    assert (s["checkpoints"], s["verified"], s["other_files"]) == (29, 25, 12)
    assert s["by_root_cause"] == {r: sum(1 for x in scanned if x.checkpoint and not x.verified and x.root_rule == r)
                                  for r in ("P-CANONICAL", "X-BYTES")} == {"P-CANONICAL": 1, "X-BYTES": 3}
    assert printed.startswith("29 checkpoint(s), 25 verified, 4 not verified; 12 other file(s)\n")
    assert f"{len(FOLDERS)} session(s): {s['sessions']['with_latest_resumable']} with a latest resumable export" \
        in printed


def test_an_audit_on_its_own_local_cluster_writes_new_files_only(tmp_path, capsys):
    folder = SERIES / "clock-skew"
    out = tmp_path / "r.jsonl"
    assert main(["audit", str(folder), "--out", str(out), "--workers", "1"]) == 0
    assert len(out.read_text("utf-8").splitlines()) == 4  # three pairs and expected.json
    assert capsys.readouterr().out.startswith("3 checkpoint(s), 3 verified, 0 not verified; 1 other file(s)\n")
    before = out.read_bytes()
    assert main(["audit", str(folder), "--out", str(out), "--workers", "1"]) == 2
    assert capsys.readouterr().err == f"checkpoint-inspector: {out} exists; the inspector never overwrites a file\n"
    assert out.read_bytes() == before
    assert main(["audit", str(tmp_path / "nothing-here"), "--out", str(tmp_path / "n.jsonl")]) == 2
    assert not (tmp_path / "n.jsonl").exists()


def test_batches_keep_each_folder_whole_and_in_name_order():
    e = [Entry(f"{d}/{n}", n, 1, "") for d, n in (("b", "1"), ("a", "1"), ("a", "2"), ("c", "1"), ("b", "2"))]
    assert [[x.location for x in part] for part in batches(e, 2)] == [["a/1", "a/2"], ["b/1", "b/2"], ["c/1"]]
    assert [[x.location for x in part] for part in batches(e, 3)] == [["a/1", "a/2"], ["b/1", "b/2", "c/1"]]
    lines = [Entry(f"x.jsonl:{i}", f"x.jsonl:{i}", None, "") for i in (1, 2, 3)]
    assert len(batches(lines, 1)) == 1  # the lines of one file are one folder
    with pytest.raises(ValueError):
        batches(e, 0)
