"""``checkpoint-inspector audit`` on a real Dask cluster: a ``LocalCluster`` of 2 worker processes that the test
starts (the cluster an operator already runs, ``--scheduler``) and the one the command starts itself. The records
and the summary are held to what ``scan`` says of the same source in one process, and the sessions to the answers
written beside each series of FORMAT.md 4.18 (tests/session/data/series)."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

from inspector.audit import RECORD_SCHEMA, SUMMARY_SCHEMA, Found, pair_found, summary_html  # noqa: E402
from inspector.checkpoint.pairing import pair_by_digest  # noqa: E402
from inspector.cli.main import main  # noqa: E402
from inspector.session.folderscan import scan_source  # noqa: E402
from inspector.session.sources import LocalFolder  # noqa: E402
from tests.audit.conftest import by_key, records  # noqa: E402
from tests.conftest import CASES  # noqa: E402

SERIES = Path(__file__).resolve().parents[1] / "session" / "data" / "series"
#: the series whose files are in the repository (large-alone's payload is built by its test)
FOLDERS = sorted(p for p in SERIES.iterdir() if any(p.glob("*.payload.json")))


def _scan(folder) -> list:
    """``scan``'s rows of the whole folder (recursively), in one process (a worker thread, as scan runs)."""
    import threading

    rows: list = []
    t = threading.Thread(target=lambda: rows.extend(scan_source(LocalFolder(str(folder), recursive=True))))
    t.start()
    t.join()
    return rows


def _key(payload, descriptor, other):
    return tuple(str(x) if x else None for x in (payload, descriptor, other))


def test_an_audit_on_a_running_cluster_gives_scans_verdicts_and_the_series_answers(tmp_path, capsys, cluster):
    out, summary, page = tmp_path / "results.jsonl", tmp_path / "summary.json", tmp_path / "summary.html"
    code = main(["audit", str(SERIES), "--out", str(out), "--summary", str(summary), "--summary-html", str(page),
                 "--scheduler", cluster.scheduler_address, "--batch", "7"])
    printed = capsys.readouterr().out
    recs = records(out)
    assert code == 1  # some checkpoints of the series do not verify (re-saved copies)
    assert {r["schema"] for r in recs} == {RECORD_SCHEMA}
    assert not (tmp_path / "results.jsonl.partial").exists()  # (the journal is gone once RESULTS is whole)
    # every file once, with the verdict, pairing and root cause the one-process scan of the same folder gives
    scanned = _scan(SERIES)
    want = {_key(r.payload, r.descriptor, r.other): (r.verified, r.root_rule) for r in scanned}
    got = {k: (r["verified"], (r["root_cause"] or {}).get("rule")) for k, r in by_key(recs).items()}
    assert got == want and len(recs) == len(scanned) == 41
    first = next(r for r in recs if r["payload"] and r["payload"].endswith("clock-skew/p1.payload.json"))
    assert first == {
        "schema": RECORD_SCHEMA, "checkpoint": True, "verified": True, "ok": True, "root_cause": None,
        "payload": str(SERIES / "clock-skew" / "p1.payload.json"), "payload_bytes": 5498,
        "descriptor": str(SERIES / "clock-skew" / "p1.descriptor.json"), "descriptor_bytes": 1164,
        "other": None, "other_bytes": None, "other_sha256": None,
        "sha256": "sha256:dc7b7d5eb3212d5d0b86b9272c221254583078fbfe4990d05203537d57143930",
        "payload_sha256": "sha256:dc7b7d5eb3212d5d0b86b9272c221254583078fbfe4990d05203537d57143930",
        "descriptor_sha256": "sha256:" + __import__("hashlib").sha256(
            (SERIES / "clock-skew" / "p1.descriptor.json").read_bytes()).hexdigest(),
        "session_id": "s-clock-skew", "run_id": "run-1", "pass": 1, "resumability": "Resumable",
        "generation": None, "lint": [], "error": None}
    other = next(r for r in recs if r["other"] and r["other"].endswith("clock-skew/expected.json"))
    assert (other["checkpoint"], other["error"], other["other_bytes"]) == (False, "not a checkpoint file", 401)
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
    assert s["by_generation"] == {"current": 29}
    assert s["by_error"] == {"not a checkpoint file": 12}
    assert s["by_resumability"] == {"Not resumable": 4, "Resumable": 25}
    # per file timings: 29 pairs timed, the slowest first
    assert len(s["slowest_files"]) == 10 and s["slowest_files"] == sorted(s["slowest_files"],
                                                                          key=lambda x: -x["seconds"])
    largest = max((r["payload_bytes"], r["payload"]) for r in recs if r["payload"])
    assert (s["largest_files"][0]["bytes"], s["largest_files"][0]["location"]) == largest
    assert printed.startswith("29 checkpoint(s), 25 verified, 4 not verified; 12 other file(s)\n")
    assert f"{len(FOLDERS)} session(s): {s['sessions']['with_latest_resumable']} with a latest resumable export" \
        in printed
    html = page.read_text("utf-8")
    assert html.count("<svg") == 5 and "<script" not in html and "<link" not in html and "src=" not in html
    assert ">P-CANONICAL</text>" in html and ">X-BYTES</text>" in html


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
    assert not (tmp_path / "n.jsonl").exists() and not (tmp_path / "n.jsonl.partial").exists()


@pytest.mark.parametrize("which", ["summary", "summary-html", "partial"])
def test_an_output_that_exists_is_refused_before_dask_starts(tmp_path, capsys, which, monkeypatch):
    import distributed

    started = []
    monkeypatch.setattr(distributed.LocalCluster, "__init__", lambda *a, **k: started.append(1) or 1 / 0)
    out, there = tmp_path / "r.jsonl", tmp_path / ("r.jsonl.partial" if which == "partial" else "taken")
    there.write_bytes(b"mine\n")
    args = ["audit", str(SERIES / "clock-skew"), "--out", str(out)]
    if which != "partial":
        args += [f"--{which}", str(there)]
    assert main(args) == 2
    err = capsys.readouterr().err
    if which == "partial":
        assert err == (f"checkpoint-inspector: {there} exists: an interrupted audit; continue it with --resume, "
                       "or remove it\n")
    else:
        assert err == f"checkpoint-inspector: {there} exists; the inspector never overwrites a file\n"
    assert started == [] and there.read_bytes() == b"mine\n" and not out.exists()


def test_a_folder_larger_than_a_batch_pairs_as_one_task_would(tmp_path, cluster):
    """Pairs meet whatever batch each file was classified in: batches of 1 file and of 500 give the same records,
    and they are scan's pairs. The payloads and descriptors are renamed so that they sort far apart (the
    descriptors first) and half of them pair by digest only (different names)."""
    folder = tmp_path / "store"
    folder.mkdir()
    for i, p in enumerate(sorted(CASES.glob("0*.payload.json"))):
        d = p.with_name(p.name.replace(".payload.json", ".descriptor.json"))
        shutil.copy(p, folder / f"z-{i:02d}.payload.json")
        shutil.copy(d, folder / (f"a-{i:02d}.descriptor.json" if i % 2 else f"z-{i:02d}.descriptor.json"))
    n = len(list(folder.iterdir()))
    assert n == 18
    runs = []
    for size in (1, 500):
        out = tmp_path / f"r{size}.jsonl"
        assert main(["audit", str(folder), "--out", str(out), "--scheduler", cluster.scheduler_address,
                     "--batch", str(size)]) == 0
        runs.append(by_key(records(out)))
    assert runs[0] == runs[1] and len(runs[0]) == 9
    assert set(runs[0]) == {_key(r.payload, r.descriptor, r.other) for r in _scan(folder)}
    assert all(r["verified"] for r in runs[0].values())


def test_pairing_is_pair_by_digests_pairing_linear():
    """:func:`pair_found` gives what :func:`pair_by_digest` gives (its rounds, its tie-breaks), on random
    folders with copies, drifted digests, shared names and strays."""
    rng = random.Random(7)
    for _ in range(300):
        found = []
        for i in range(rng.randint(0, 12)):
            stem = f"s{rng.randint(0, 4)}"
            sha = f"sha256:{rng.randint(0, 4)}"
            if rng.random() < 0.5:
                found.append(Found(f"/f/{stem}-{i}.payload.json".replace(f"-{i}", "" if rng.random() < .5 else f"-{i}"),
                                   "n", 1, "payload", None if rng.random() < .1 else sha))
            else:
                found.append(Found(f"/f/{stem}.{i}.descriptor.json", "n", 1, "descriptor", None, sha
                                   if rng.random() < .9 else None))
        found = list({f.location: f for f in found}.values())
        found.sort(key=lambda f: f.location)
        want = pair_by_digest([(f, f.location, f.sha256) for f in found if f.role == "payload"],
                              [(f, f.location, f.stated) for f in found if f.role == "descriptor"])
        assert pair_found(found)[0] == want


def test_pairing_from_partitions_on_disk_is_pair_found(tmp_path):
    """:class:`Pairing` (files spilled to the disk by digest, then by name stem) gives exactly the pairs
    :func:`pair_found` gives with every file in memory, whatever the number of partitions, on random folders
    with copies, drifted digests, payloads too large to hash, shared names in two folders and export wrappers."""
    from inspector.audit.core import Pairing

    rng = random.Random(11)
    n = 0
    for trial in range(200):
        found = []
        for i in range(rng.randint(0, 16)):
            stem, sha, where = f"s{rng.randint(0, 4)}", f"sha256:{rng.randint(0, 4)}", rng.choice("ab")
            r = rng.random()
            if r < 0.45:
                found.append(Found(f"/f/{where}/{stem}-{i}.payload.json", "n", 1, "payload",
                                   None if rng.random() < .1 else sha))
            elif r < 0.9:
                found.append(Found(f"/f/{where}/{stem}.{i}.descriptor.json", "n", 1, "descriptor", None,
                                   sha if rng.random() < .9 else None))
            else:
                found.append(Found(f"/f/{where}/{stem}.{i}.export.json", "n", 1, "export", sha))
        rng.shuffle(found)  # (the order files come back from the workers)
        want = sorted(pair_found(sorted(found, key=lambda f: f.location))[0], key=repr)
        pairing = Pairing(str(tmp_path / f"p{trial}"), partitions=rng.choice((1, 2, 3, 64)))
        got = [pd for pd in (pairing.add(f) for f in found) if pd is not None] + list(pairing.pairs())
        assert sorted(got, key=repr) == want
        assert not (tmp_path / f"p{trial}").exists()  # (its spilled files removed)
        n += sum(1 for p, d in want if p is not None and d is not None and p is not d)
    assert n > 200  # (the trials paired many files, not only strays: 262)


def test_the_summary_page_is_self_contained_and_escapes_every_value():
    s = {"checkpoints": 2, "verified": 1, "not_verified": 1, "other_files": 1, "by_root_cause": {"X-BYTES": 1},
         "by_generation": {"current": 1, "<img src=x onerror=alert(1)>": 1}, "by_resumability": {},
         "by_error": {"vanished": 1}, "sessions": {"total": 1, "with_latest_resumable": 0, "fork_at_head": 0},
         "slowest_files": [{"seconds": 0.5, "location": "/s/<script>alert(1)</script>.payload.json"}],
         "largest_files": [{"bytes": 9, "location": "/s/a&b\".json"}], "batches": 1, "seconds": 1.0,
         "checkpoints_per_second": 2.0, "resumed_records": 0}
    page = summary_html(s)
    assert "<script" not in page and "<img" not in page and "<link" not in page and "url(" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.payload.json" in page and "a&amp;b&quot;.json" in page
    assert "&lt;img src=x onerror=alert(1)&gt;</text>" in page
    assert page.count("<svg") == 4 and "<p>none</p>" in page  # (no resumability counted: said, not drawn)


def test_parquet_results_hold_the_records_of_json_lines(tmp_path, cluster):
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet needs pyarrow (the audit extra)")
    outs = {}
    for fmt in ("jsonl", "parquet"):
        outs[fmt] = tmp_path / f"r.{fmt}"
        assert main(["audit", str(SERIES / "resaved-at-head"), "--out", str(outs[fmt]), "--format", fmt,
                     "--scheduler", cluster.scheduler_address]) == 1
    table = pq.read_table(outs["parquet"])
    assert table.num_rows == len(records(outs["jsonl"])) == 3  # two pairs and expected.json
    assert sorted(table.to_pylist(), key=str) == sorted(records(outs["jsonl"]), key=str)
    assert str(table.schema.field("root_cause").type) == "struct<rule: string, code: string, message: string>"


def test_parquet_without_pyarrow_is_a_usage_error(tmp_path, capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyarrow(name, *a, **k):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    out = tmp_path / "r.parquet"
    assert main(["audit", str(SERIES / "clock-skew"), "--out", str(out), "--format", "parquet"]) == 2
    assert capsys.readouterr().err == ("checkpoint-inspector: --format parquet needs pyarrow: "
                                       "pip install 'checkpoint-inspector[audit]'\n")
    assert not out.exists() and not Path(str(out) + ".partial").exists()


def test_results_in_a_folder_that_does_not_exist_exit_3_and_leave_nothing(tmp_path, capsys):
    out = tmp_path / "no-such-folder" / "r.jsonl"
    assert main(["audit", str(SERIES / "clock-skew"), "--out", str(out), "--workers", "1"]) == 3
    assert "cannot write the output" in capsys.readouterr().err
    assert not out.exists()


def test_progress_is_shown_on_a_terminal_and_quiet_elsewhere(tmp_path):
    """A tqdm bar with rate and time left on a terminal's stderr (a pseudo-terminal here); nothing on a pipe."""
    import pty
    import subprocess
    import sys

    pytest.importorskip("tqdm", reason="the progress bar needs tqdm (the audit extra)")
    folder = SERIES / "clock-skew"
    import fcntl
    import struct
    import termios

    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # (a terminal 120 wide)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "audit", str(folder), "--out", str(tmp_path / "t.jsonl"),
                             "--workers", "1"], stdout=subprocess.PIPE, stderr=secondary, stdin=subprocess.DEVNULL,
                            cwd=Path(__file__).resolve().parents[2])
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # (the terminal's other end closed: the command is done)
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(120) == 0
    os.close(primary)
    text = seen.decode("utf-8", "replace")
    assert "verify: 100%" in text and "3/3" in text and "checkpoint/s" in text and "classify: 100%" in text
    piped = subprocess.run([sys.executable, "-m", "inspector", "audit", str(folder), "--out",
                            str(tmp_path / "p.jsonl"), "--workers", "1"], capture_output=True,
                           stdin=subprocess.DEVNULL, cwd=Path(__file__).resolve().parents[2])
    assert piped.returncode == 0 and piped.stderr == b""
