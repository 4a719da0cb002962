"""What lets the audit reach a store of millions with bounded memory on the client (:mod:`inspector.audit.run`,
:mod:`inspector.audit.spill`): batches are sent as they are read, never all at once; the listing of a deep
folder or bucket is done level by level and then in parallel on the workers; the summary's sessions (FORMAT.md
4.18) are grouped one partition of sessions at a time with the answer grouping all at once gives; and the
outputs are written from the journal, all or none, so that a failed write is finished by ``--resume``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

from inspector.audit import run, summarize  # noqa: E402
from inspector.audit.spill import KeySet, Spill  # noqa: E402
from inspector.cli.main import main  # noqa: E402
from inspector.session.manifest import AuditFolder, open_audit_source  # noqa: E402
from tests.audit.conftest import by_key, records  # noqa: E402
from tests.conftest import CASES  # noqa: E402
from tests.servers import s3_server, upload  # noqa: E402

SERIES = Path(__file__).resolve().parents[1] / "session" / "data" / "series"


def _double(x, part):
    return [x * i for i in part]


def test_batches_are_read_from_the_source_as_answers_come_never_all_at_once(cluster):
    """``_drive`` reads items only to fill ``inflight`` batches: with 1,000 items in batches of 10 and 3 in
    flight, at most 30 items are read and not yet answered at any time; every item is answered once."""
    from dask.distributed import Client

    pulled, answered, ahead = [0], [], []

    def items():
        for i in range(1000):
            pulled[0] += 1
            yield i

    def done(part, out):
        answered.extend(out)
        ahead.append(pulled[0] - len(answered))

    with Client(cluster) as client:
        result = run.AuditResult()
        run._drive(client, result, _double, (2,), items(), batch=10, inflight=3, retries=0, done=done,
                   lost=lambda item, exc: pytest.fail(f"{item} lost"))
    assert sorted(answered) == [2 * i for i in range(1000)] and result.batches == 100
    assert max(ahead) <= 20  # (after an answer: the two other batches in flight, at most)


def _nested(root: Path, n: int) -> Path:
    """``n`` pairs (golden copies of the reference cases) three folders deep: ``YYYY/MM/DD/``."""
    pays = sorted(CASES.glob("0*.payload.json"))
    for i in range(n):
        p = pays[i % len(pays)]
        d = p.with_name(p.name.replace(".payload.json", ".descriptor.json"))
        where = root / "2026" / f"{1 + i % 3:02d}" / f"{1 + i % 5:02d}" / f"c{i}"
        where.mkdir(parents=True)
        shutil.copy(p, where / "x.payload.json")
        shutil.copy(d, where / "x.descriptor.json")
    (root / "top.txt").write_bytes(b"a file at the top\n")
    return root


def _list_with(client, src, folder: Path) -> tuple[list, int]:
    result = run.AuditResult()
    spill = Spill(str(folder / "listing"), 1)
    run._listing(client, result, src, src.parts(), spill, retries=0, workers=2)
    return sorted(r[0] for r in spill.stream()), result.batches


def test_a_deep_folder_and_a_deep_bucket_are_listed_in_parallel_with_every_file(tmp_path, cluster, monkeypatch):
    """The listing splits a deep folder on the client (2026/ then its months, then their days: 15 folders, over
    the 8 that 2 workers want) and lists each on a worker: the files are exactly those one recursive listing
    gives, for a local folder and for the same files in a bucket on an S3-protocol server."""
    from dask.distributed import Client, LocalCluster

    store = _nested(tmp_path / "store", 30)
    src = AuditFolder(str(store), recursive=True)
    with Client(cluster) as client:
        got, tasks = _list_with(client, src, tmp_path)
    assert got == [e.location for e in src.entries()] and len(got) == 61
    assert tasks == 15  # (one listing task per day folder: 3 months x 5 days)
    with s3_server(monkeypatch) as endpoint:
        upload(endpoint, "exports", {"fleet/" + str(p.relative_to(store)): p.read_bytes()
                                     for p in store.rglob("*") if p.is_file()})
        bucket = open_audit_source("s3://exports/fleet/", recursive=True)
        (tmp_path / "s3").mkdir()
        # (workers started now, with the store's endpoint and keys in their environment, as an operator's are)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as c, Client(c) as client:
            got_s3, tasks_s3 = _list_with(client, bucket, tmp_path / "s3")
        assert got_s3 == [e.location for e in bucket.entries()]
    assert [x.removeprefix("s3://exports/fleet/") for x in got_s3] == [
        str(Path(x).relative_to(store)) for x in got]
    assert tasks_s3 == 15


def test_an_audit_of_a_deep_folder_is_the_same_at_any_partition_count(tmp_path, cluster):
    """The whole command on the deep folder, with 1 and with 64 partitions on the disk: the same records, each
    pair verified, the stray file a record of its own."""
    store = _nested(tmp_path / "store", 30)
    runs = []
    for parts in (1, 64):
        out = tmp_path / f"r{parts}.jsonl"
        result = run.run_audit(str(store), run.Journal(str(out) + ".partial", resume=False),
                               scheduler=cluster.scheduler_address, batch=4, partitions=parts)
        assert result.records == 31
        from inspector.audit import write_results
        write_results(str(out), "jsonl", (e[0] for e in run.iter_journal(str(out) + ".partial")))
        runs.append(by_key(records(out)))
    assert runs[0] == runs[1]
    assert sum(1 for r in runs[0].values() if r["verified"]) == 30
    assert [r["other"] for r in runs[0].values() if r["other"]] == [str(store / "top.txt")]


def _journal_of(tmp_path, cluster) -> list:
    out = tmp_path / "series.jsonl"
    run.run_audit(str(SERIES), run.Journal(str(out) + ".partial", resume=False), scheduler=cluster.scheduler_address)
    return run.read_journal(str(out) + ".partial")


def test_the_sessions_grouped_one_partition_at_a_time_are_those_grouped_at_once(tmp_path, cluster):
    """The summary of the series folders (FORMAT.md 4.18: 11 sessions with files, re-saved copies among them) is the same
    with 1, 3 and 64 partitions of sessions on the disk, and the partitions are removed."""
    entries = _journal_of(tmp_path, cluster)
    got = []
    for parts in (1, 3, 64):
        s = summarize(iter(entries), seconds=1.0, batches=1, spill=str(tmp_path / f"s{parts}"), partitions=parts)
        assert not (tmp_path / f"s{parts}").exists()
        got.append(s)
    assert got[0] == got[1] == got[2]
    assert got[0]["sessions"]["total"] == 11 and got[0]["records"] == 41


def test_a_summary_that_cannot_be_written_leaves_no_results_and_resume_writes_them(tmp_path, capsys):
    """The summary is to go into a folder that does not exist: exit 3, no RESULTS, the journal kept and the
    message says so; ``--resume`` with a summary that can be written then writes both, with every record."""
    folder = SERIES / "clock-skew"
    out = tmp_path / "r.jsonl"
    args = ["audit", str(folder), "--out", str(out), "--workers", "1"]
    assert main(args + ["--summary", str(tmp_path / "no-such" / "s.json")]) == 3
    err = capsys.readouterr().err
    assert f"the records are kept in {out}.partial: write them with --resume" in err
    assert not out.exists() and (tmp_path / "r.jsonl.partial").is_dir()
    assert main(args + ["--summary", str(tmp_path / "s.json"), "--resume"]) == 0
    assert len(records(out)) == 4 and not (tmp_path / "r.jsonl.partial").exists()
    s = json.loads((tmp_path / "s.json").read_text())
    assert (s["checkpoints"], s["verified"], s["resumed_records"]) == (3, 3, 4)


def test_record_keys_are_kept_once_in_sixteen_bytes():
    keys = KeySet()
    a = ("/p.json", "sha256:1", "/d.json", "sha256:2", None, None)
    assert keys.add(a) and not keys.add(tuple(a)) and a in keys and len(keys) == 1
    assert ("/p.json", "sha256:1", "/d.json", "sha256:3", None, None) not in keys


def test_a_file_name_that_is_not_utf8_is_audited_and_shown_as_verify_shows_it(tmp_path, capsys):
    """A pair named with a byte that is not UTF-8 (``p\\xff``) and a right-to-left override: the audit (which
    failed on the journal's encoding, ending in "the Dask cluster failed") verifies it, and its record names the
    files as ``verify`` and ``scan`` show them, escaped; ``--resume`` finds the record by that name."""
    import os

    from tests.conftest import GOLDEN

    store = tmp_path / "store"
    store.mkdir()
    for stem in (b"p\xff", "q\u202etxt".encode()):
        (store / os.fsdecode(stem + b".payload.json")).write_bytes((GOLDEN / "payload-with-resume.json").read_bytes())
        (store / os.fsdecode(stem + b".descriptor.json")).write_bytes(
            (GOLDEN / "descriptor-with-resume.json").read_bytes())
    out = tmp_path / "r.jsonl"
    assert main(["audit", str(store), "--out", str(out), "--workers", "1"]) == 0
    recs = records(out)
    assert sorted(r["payload"] for r in recs) == [f"{store}/p\\xff.payload.json", f"{store}/q\\u202etxt.payload.json"]
    assert all(r["verified"] for r in recs) and out.read_bytes().decode("utf-8")
    printed = capsys.readouterr().out
    assert "p\\xff.payload.json" in printed and "\u202e" not in printed
    # the journal of an interrupted run of an earlier version (records without their keys): --resume verifies
    # nothing again and writes each record once
    journal = run.Journal(str(tmp_path / "again.jsonl.partial"), resume=False)
    journal.append([(r, None, 0.0, None) for r in recs])
    assert main(["audit", str(store), "--out", str(tmp_path / "again.jsonl"), "--workers", "1", "--resume"]) == 0
    assert by_key(records(tmp_path / "again.jsonl")) == by_key(recs)
    assert "; 2 record(s) from the interrupted run" in capsys.readouterr().out


def test_two_names_shown_alike_are_two_checkpoints_and_each_is_resumed_by_its_own_name(tmp_path, capsys):
    """``a<0xff>`` (a byte that is not UTF-8) and ``a\\xff`` (a backslash, an x and two letters) are shown alike,
    ``a\\xff``; they are two checkpoints, two records (one was dropped as written twice). Interrupted after the
    first one's record, ``--resume`` verifies only the second."""
    import os

    from tests.conftest import CASES

    store = tmp_path / "store"
    store.mkdir()
    for stem in (b"a\xff", b"a\\xff"):
        for role in ("payload", "descriptor"):
            (store / os.fsdecode(stem + f".{role}.json".encode())).write_bytes(
                (CASES / f"01-valid.{role}.json").read_bytes())
    out = tmp_path / "r.jsonl"
    assert main(["audit", str(store), "--out", str(out), "--workers", "1"]) == 0
    recs = records(out)
    assert [r["payload"] for r in recs] == [f"{store}/a\\xff.payload.json"] * 2
    assert capsys.readouterr().out.startswith("2 checkpoint(s), 2 verified")
    # a journal holding the first pair's record (with its key, as a run journals it) and --resume
    from inspector.audit import core
    from inspector.audit.spill import KeySet

    first = sorted(os.listdir(store))[0]  # (the backslash sorts before the byte 0xff)
    p, d = (str(store / first.replace("descriptor", r)) for r in ("payload", "descriptor"))
    sha = ["sha256:" + __import__("hashlib").sha256(Path(x).read_bytes()).hexdigest() for x in (p, d)]
    key = core.pair_key(core.Found(p, "", 0, "payload", sha[0]), core.Found(d, "", 0, "descriptor", sha[1]))
    journal = run.Journal(str(tmp_path / "again.jsonl.partial"), resume=False)
    journal.append([(recs[0], None, 0.0, KeySet.digest(key))])
    assert main(["audit", str(store), "--out", str(tmp_path / "again.jsonl"), "--workers", "1", "--resume"]) == 0
    again = records(tmp_path / "again.jsonl")
    assert len(again) == 2 and again[0] == recs[0]  # (the journaled one kept as it was, the other verified)
    printed = capsys.readouterr().out
    assert printed.startswith("2 checkpoint(s), 2 verified") and "; 1 record(s) from the interrupted run" in printed


def test_a_descriptor_paired_across_sessions_still_makes_a_resaved_copy_its_original(tmp_path, cluster):
    """FORMAT.md 4.18 "Same export": in A/, a re-saved copy and a second re-indented copy of p2, whose descriptor
    A/p2.descriptor.json is paired by name with B/p2.payload.json (another session). Grouped one partition of
    sessions at a time, each partition still knows that descriptor's stated digest, so the two copies are one
    export, as grouping everything at once says: the same sessions with 64 partitions as with 1."""
    src = SERIES / "resaved-without-descriptor"
    a, b = tmp_path / "store" / "A", tmp_path / "store" / "B"
    a.mkdir(parents=True)
    b.mkdir()
    for name in ("p1.payload.json", "p1.descriptor.json", "p2.descriptor.json", "p2 resaved.payload.json"):
        shutil.copy(src / name, a / name)
    (a / "p2 resaved2.payload.json").write_bytes(
        json.dumps(json.loads((src / "p2.payload.json").read_bytes()), indent=4).encode())
    shutil.copy(SERIES / "clock-skew" / "p2.payload.json", b / "p2.payload.json")
    journal = str(tmp_path / "r.jsonl.partial")
    run.run_audit(str(tmp_path / "store"), run.Journal(journal, resume=False), scheduler=cluster.scheduler_address)
    entries = run.read_journal(journal)
    whole = summarize(iter(entries), seconds=1.0, batches=1, partitions=1)["sessions"]
    assert summarize(iter(entries), seconds=1.0, batches=1, partitions=64)["sessions"] == whole
    assert whole == {"total": 2, "with_latest_resumable": 1, "fork_at_head": 0}


def test_ctrl_c_while_the_outputs_are_written_leaves_none_and_resume_writes_them(tmp_path, capsys, monkeypatch):
    """Ctrl+C while RESULTS is written (after the summaries): exit 130, no output anywhere (they were being
    written inside the journal), and ``--resume`` with the same paths writes all three."""
    from inspector.audit import output

    folder = SERIES / "clock-skew"
    out, summ, page = tmp_path / "r.jsonl", tmp_path / "s.json", tmp_path / "s.html"
    args = ["audit", str(folder), "--out", str(out), "--summary", str(summ), "--summary-html", str(page),
            "--workers", "1"]
    real = output.write_results

    def interrupted(path, fmt, recs):
        def some():
            for n, r in enumerate(recs):
                if n == 2:
                    raise KeyboardInterrupt
                yield r
        return real(path, fmt, some())

    monkeypatch.setattr(output, "write_results", interrupted)
    monkeypatch.setattr("inspector.audit.write_results", interrupted)
    assert main(args) == 130
    assert not out.exists() and not summ.exists() and not page.exists()
    assert sorted(p.name for p in (tmp_path / "r.jsonl.partial").iterdir() if p.name != "work") == [
        "part-00000001.jsonl", "part-00000002.jsonl"]
    monkeypatch.setattr("inspector.audit.write_results", real)
    capsys.readouterr()
    assert main(args + ["--resume"]) == 0
    assert len(records(out)) == 4 and json.loads(summ.read_text())["checkpoints"] == 3 and page.exists()
    assert not (tmp_path / "r.jsonl.partial").exists()


def test_a_command_killed_while_it_publishes_is_finished_by_resume(tmp_path, capsys, monkeypatch):
    """Killed after the summary was published and before RESULTS was (the state a SIGKILL leaves: COMMIT.json
    and the staged RESULTS in the journal): ``--resume`` publishes RESULTS, keeps the summary, verifies nothing
    again, and exits with the code the run stored."""
    import os

    from inspector.audit import publish

    folder = SERIES / "clock-skew"
    out, summ = tmp_path / "r.jsonl", tmp_path / "s.json"
    args = ["audit", str(folder), "--out", str(out), "--summary", str(summ), "--workers", "1"]

    def killed(journal, doc):
        name, final = doc["items"][0]
        os.link(os.path.join(journal, "out", name), final)
        raise SystemExit(137)  # (as if killed here: nothing after this runs, nothing is undone)

    monkeypatch.setattr(publish, "publish", killed)
    with pytest.raises(SystemExit):
        main(args)
    assert summ.exists() and not out.exists()
    assert sorted(p.name for p in (tmp_path / "r.jsonl.partial" / "out").iterdir()) == [
        "COMMIT.json", "results", "summary.json"]
    monkeypatch.undo()
    capsys.readouterr()
    assert main(args + ["--resume"]) == 0
    assert len(records(out)) == 4 and json.loads(summ.read_text())["checkpoints"] == 3
    assert capsys.readouterr().out.startswith("3 checkpoint(s), 3 verified, 0 not verified; 1 other file(s)\n")
    assert not (tmp_path / "r.jsonl.partial").exists()
