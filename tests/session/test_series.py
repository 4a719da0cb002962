"""A session's checkpoints in order (inspector/session/series.py and ``checkpoint-inspector scan``): a
folder holding two interleaved sessions of several checkpoints each, a copy damaged in transport, a fork, a
duplicate under another name and files that are not checkpoints; the JSON is pinned in data/series.json."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import pytest

from inspector.cli.main import main as cli_main
from inspector.session.folderscan import scan_folder
from inspector.session.series import group_series, later, series_json, series_text
from tests.conftest import GOLDEN
from tests.session.make_series import descriptor, export, resave

PINS = Path(__file__).parent / "data" / "series.json"


def build_folder(folder: Path) -> Path:
    """alpha (one run of four tool passes): pass 1, pass 2 only as a re-saved copy (CRLF: damaged in transport)
    with its descriptor, pass 4 and a fork at pass 4 (3 is missing: pass 4's events show pass 3 completed);
    beta: passes 1, 2, 3 and a copy of 2 under another name; interleaved in time; and two files that are not
    checkpoints. Built from the scenario files (tests/session/make_series.py)."""
    folder.mkdir()
    t0 = 1700000000000
    made = {"alpha-1": ("alpha", "tttt", "a", 1, t0 + 1000), "alpha-2": ("alpha", "tttt", "a", 2, t0 + 2000),
            "alpha-4": ("alpha", "tttt", "a", 4, t0 + 4000), "alpha-4b": ("alpha", "tttt", "b", 4, t0 + 4100),
            "beta-1": ("beta", "ttt", "a", 1, t0 + 1500), "beta-2": ("beta", "ttt", "a", 2, t0 + 2500),
            "beta-3": ("beta", "ttt", "a", 3, t0 + 3500)}
    for name, (session, passes, tag, upto, ms) in made.items():
        payload = export(session, [("run-1", passes, tag, upto, 0, False)], ms)
        desc = descriptor(payload)
        if name == "alpha-2":
            payload = resave(payload)
        (folder / f"{name}.payload.json").write_bytes(payload)
        (folder / f"{name}.descriptor.json").write_bytes(desc)
    for suffix in ("payload", "descriptor"):
        shutil.copyfile(folder / f"beta-2.{suffix}.json", folder / f"copy of beta-2.{suffix}.json")
    (folder / "package.json").write_text('{"name": "not-a-checkpoint"}\n')
    (folder / "notes.txt").write_text("notes\n")
    return folder


def _scan(folder: Path) -> dict:
    rows: list = []
    t = threading.Thread(target=lambda: rows.extend(scan_folder(str(folder))))
    t.start()
    t.join(120)
    return series_json(*group_series(rows))


def test_two_interleaved_sessions_in_order_with_their_gap_fork_duplicate_and_damaged_copy(tmp_path):
    """FORMAT.md 4.18 on the folder of :func:`build_folder`. Changed from the clock-ordered expectation: alpha
    ends in a fork at pass 4, so it has no single latest resumable export (it was "alpha-4b")."""
    got = _scan(build_folder(tmp_path / "f"))
    alpha, beta = got["sessions"]
    assert [e["name"] for e in alpha["series"]] == ["alpha-1.payload.json", "alpha-2.payload.json",
                                                    "alpha-4.payload.json", "alpha-4b.payload.json"]
    assert [e["export"] for e in alpha["series"]] == [0, 1, 2, 3]
    assert [e["name"] for e in beta["series"]] == ["beta-1.payload.json", "beta-2.payload.json",
                                                   "copy of beta-2.payload.json", "beta-3.payload.json"]
    assert [e["export"] for e in beta["series"]] == [0, 1, 1, 2]
    assert [e["history"] for e in beta["series"]] == [{"run-1": 8}, {"run-1": 16}, {"run-1": 16}, {"run-1": 24}]
    assert alpha["gaps"] == [{"run_id": "run-1", "after": 2, "before": 4, "missing": [3], "unknown": []}]
    fork = {"run_id": "run-1", "passes": 4, "names": ["alpha-4.payload.json", "alpha-4b.payload.json"],
            "diverged": False, "positions": [["run-1", 4], ["run-1", 4]]}
    assert alpha["forks"] == [fork]
    assert alpha["no_single_latest"] == {**fork, "branches": ["alpha-4.payload.json", "alpha-4b.payload.json"]}
    assert beta["duplicates"] == [["beta-2.payload.json", "copy of beta-2.payload.json"]]
    assert (alpha["verified"], alpha["latest_resumable"], beta["latest_resumable"]) == (3, None, "beta-3.payload.json")
    assert (alpha["latest"], beta["latest"]) == (["alpha-4.payload.json", "alpha-4b.payload.json"],
                                                 ["beta-3.payload.json"])
    damaged = alpha["series"][1]
    assert (damaged["verified"], damaged["root_cause"], damaged["restorable"]) == (False, "X-BYTES", True)
    assert damaged["canonical_digest"] != damaged["content_digest"]
    assert [f["name"] for f in got["other_files"]] == ["notes.txt", "package.json"]
    assert got == json.loads(PINS.read_text(encoding="utf-8"))


def test_the_scan_command_prints_the_same_json_and_exits_1_for_the_damaged_copy(tmp_path, capsys):
    folder = build_folder(tmp_path / "f")
    assert cli_main(["scan", str(folder), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"schema": "checkpoint-inspector.scan.v1",
                                                   **json.loads(PINS.read_text(encoding="utf-8"))}
    assert cli_main(["scan", str(folder)]) == 1
    text = capsys.readouterr().out.splitlines()
    assert text[0] == ("session alpha: 4 checkpoints, 3 verified; no single latest: fork at run run-1 pass 4 "
                       "(branches alpha-4.payload.json, alpha-4b.payload.json)")
    assert "  gap: run run-1: no export at pass 3 (between passes 2 and 4)" in text
    assert "  fork: run run-1, pass 4: alpha-4.payload.json, alpha-4b.payload.json are different exports" in text
    assert "  same export: beta-2.payload.json = copy of beta-2.payload.json" in text
    assert ("session beta: 4 checkpoints, 4 verified; latest resumable: beta-3.payload.json (run run-1 pass 3)"
            in text)


if __name__ == "__main__" and "--record" in sys.argv:  # PYTHONPATH=. python tests/session/test_series.py --record
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        PINS.write_text(json.dumps(_scan(build_folder(Path(d) / "f")), indent=1) + "\n", encoding="utf-8")


def test_a_damaged_checkpoint_no_session_claims_still_fails_the_scan_and_odd_names_stay_json(tmp_path, capsys):
    """Found by a review: a truncated payload (no session id to group it by) was listed under other files and the
    scan exited 0; a file name that is not UTF-8 crashed --format json."""
    folder = build_folder(tmp_path / "f")
    (folder / "truncated.payload.json").write_bytes((GOLDEN / "payload-with-resume.json").read_bytes()[:500])
    (folder / "caf\udce9.payload.json".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
     ).write_bytes(b"not json")
    assert cli_main(["scan", str(folder), "--format", "json"]) == 1
    got = json.loads(capsys.readouterr().out)
    names = [f["name"] for f in got["other_files"]]
    assert "truncated.payload.json" in names and "caf\\xe9.payload.json" in names


def test_facts_of_a_descriptor_of_any_shape():
    """A large payload's facts come from its raw descriptor, which may have any shape (a review found
    ``"snapshot": 5`` crashing the scan)."""
    from inspector.session.folderscan import _facts

    f = _facts(None, {"snapshot": 5, "logical_resume": [], "content_digest": "sha256:00"}, None, None)
    assert (f.session_id, f.passes, f.content_digest) == (None, None, "sha256:00")


def test_a_fork_names_each_export_once_and_its_copies_stay_duplicates(tmp_path):
    """Two exports at one pass, one of them under two names: the fork names one file per export (a newcomer
    read "a, a's copy and b differ in content" next to "a = a's copy (the same content)")."""
    folder = tmp_path / "f"
    folder.mkdir()
    for name, tag in {"a": "a", "b": "b"}.items():
        payload = export("gamma", [("run-1", "tttt", tag, 4, 0, False)], 1700000004000)
        (folder / f"{name}.payload.json").write_bytes(payload)
        (folder / f"{name}.descriptor.json").write_bytes(descriptor(payload))
    for suffix in ("payload", "descriptor"):
        shutil.copyfile(folder / f"a.{suffix}.json", folder / f"a copy.{suffix}.json")
    (gamma,) = _scan(folder)["sessions"]
    assert gamma["forks"] == [{"run_id": "run-1", "passes": 4, "names": ["a copy.payload.json", "b.payload.json"],
                               "diverged": False, "positions": [["run-1", 4], ["run-1", 4]]}]
    assert gamma["duplicates"] == [["a copy.payload.json", "a.payload.json"]]


# -- FORMAT.md 4.18, one clause a case: tests/session/data/series/<case>/ and its expected.json ---------------

from tests.session.make_series import CASES, GENERATED, OUT, write_case  # noqa: E402


def _answer_of(folder: Path) -> tuple[dict, list[str]]:
    rows: list = []
    t = threading.Thread(target=lambda: rows.extend(scan_folder(str(folder))))
    t.start()
    t.join(120)
    series, rest = group_series(rows)
    (s,) = series_json(series, rest)["sessions"]
    got = {k: s[k] for k in ("session_id", "latest", "latest_resumable", "no_single_latest", "not_resumable", "forks",
                             "gaps", "duplicates")}
    got["order"] = [e["name"] for e in s["series"]]
    return got, series_text(series, rest)


@pytest.mark.parametrize("name", CASES)
def test_each_case_gets_the_answer_written_beside_it(name, tmp_path):
    folder = write_case(name, tmp_path / name) if name in GENERATED else OUT / name
    expected = json.loads((OUT / name / "expected.json").read_text(encoding="utf-8"))
    got, text = _answer_of(folder)
    summary = expected.pop("summary")
    assert got == expected
    assert text[0] == summary


def test_the_kept_case_files_are_what_the_generator_writes(tmp_path):
    """The fixtures are deterministic: the generator rewrites every kept file byte for byte."""
    for name in CASES:
        if name in GENERATED:
            continue
        made = write_case(name, tmp_path / name)
        kept = sorted(p.name for p in (OUT / name).iterdir() if p.name != "expected.json")
        assert sorted(p.name for p in made.iterdir()) == kept
        for fname in kept:
            assert (made / fname).read_bytes() == (OUT / name / fname).read_bytes(), (name, fname)


def test_the_clock_would_have_named_another_latest():
    """The cases where checkpoint_ms order and history disagree really disagree (else they test nothing)."""
    import orjson

    def ms(name, fname):
        return orjson.loads((OUT / name / fname).read_bytes())["logical_resume"]["checkpoint_ms"]

    assert ms("clock-skew", "p3.payload.json") < ms("clock-skew", "p1.payload.json")
    assert ms("virtual-clock-two-runs", "r2-p1.payload.json") == 1724000000001 < ms(
        "virtual-clock-two-runs", "r1-p2.payload.json") == 1724000000002


def test_later_is_the_order_of_format_4_18():
    assert later({"r": 16}, {"r": 8}) and not later({"r": 8}, {"r": 16})
    assert not later({"r": 8}, {"r": 8})  # the same history: neither is later
    assert later({"r": 8, "s": -1}, {"r": 8})  # a run A does not record, even with no event retained
    assert not later({"s": 30}, {"r": 8})  # drops a run A records
    assert not later({"r": 12, "s": 8}, {"r": 19}) and not later({"r": 19}, {"r": 12, "s": 8})  # diverged
    assert later({"r": 8}, {})


def test_pass_kinds_read_retries_non_streaming_calls_and_trimming():
    from inspector.session.folderscan import _pass_kinds

    def ev(seq, **e):
        return {"sequence": seq, "timestamp_ms": 0, "event": e}

    events = [ev(3, type="tool_end", id="x"),  # (pass 0's tail: its turn_start was trimmed away)
              ev(4, type="turn_start", turn=1), ev(5, type="text_delta", text="a"),  # a retried stream
              ev(6, type="turn_start", turn=1), ev(7, type="tool_start", id="t1", name="bash"),
              ev(8, type="turn_end", turn=1), ev(9, type="tool_end", id="t1", name="bash"),
              ev(10, type="turn_start", turn=2), ev(11, type="turn_end", turn=2),  # a continuation
              ev(12, type="turn_start", turn=3), ev(13, type="turn_end", turn=3),  # non-streaming calls
              ev(14, type="tool_execution_start", id="u1", name="bash"), ev(15, type="tool_end", id="u1", name="b"),
              ev(16, type="turn_start", turn=4), ev(17, type="tool_start", id="v1", name="bash"),
              ev(18, type="turn_end", turn=4),  # its call has not returned
              ev(19, type="turn_start", turn=5)]  # no turn_end yet
    assert _pass_kinds(events) == {1: "tools", 2: "continuation", 3: "tools", 4: "open", 5: "open"}


def test_a_payload_over_4_mib_gets_the_same_facts_in_the_worker_process(tmp_path):
    """File size never changes the answer: the child's facts of a large payload are the facts the scanning
    process computes of the same bytes."""
    from inspector.session import engine
    from inspector.session.folderscan import _verify_in_process, child_verify_facts
    from inspector.session.sources import Entry, LocalFolder

    folder = write_case("large-alone", tmp_path / "large")
    path = folder / "p2 large.payload.json"
    data = path.read_bytes()
    assert len(data) > engine.PROCESS_THRESHOLD
    desc = descriptor(data)
    entry = Entry(str(path), path.name, len(data), "")
    for d in (None, desc):
        report, facts = child_verify_facts(None, LocalFolder(str(folder)), entry, d)
        assert facts == _verify_in_process(data, d, len(data))[1]
        assert (facts.session_id, facts.history, facts.pass_kinds) == (
            "s-large-alone", {"run-1": 16}, {"run-1": {1: "tools", 2: "tools"}})
        assert report.verified is (d is not None)


def test_a_large_payload_on_a_url_is_verified_in_a_worker_process_that_reads_its_entry(tmp_path, monkeypatch):
    """The worker takes the source and the entry, never a path of its own: a payload over 4 MiB served over
    HTTP (a real server on loopback) is read by the worker process through the source, and gets the verdict and
    the facts the scanning process gives the same bytes (FORMAT.md 4.18: size never changes the answer)."""
    pytest.importorskip("fsspec", reason="a URL source needs the 'sources' extra")
    from inspector.session import engine, folderscan
    from inspector.session.folderscan import _verify_in_process, scan_source
    from inspector.session.sources import FsspecSource, open_source
    from tests.servers import http_folder

    folder = write_case("large-alone", tmp_path / "large")
    path = folder / "p2 large.payload.json"
    data = path.read_bytes()
    (folder / "p2 large.descriptor.json").write_bytes(descriptor(data))
    assert len(data) > engine.PROCESS_THRESHOLD
    jobs = []

    class Recorded(folderscan.ChildTask):  # the real worker process; only its job is written down
        def __init__(self, fn, args, **kw):
            jobs.append((fn.__name__, type(args[0]).__name__, args[1].location))
            super().__init__(fn, args, **kw)

    monkeypatch.setattr(folderscan, "ChildTask", Recorded)
    with http_folder(folder) as base:
        src = open_source(base + "/")
        assert isinstance(src, FsspecSource)
        rows = _in_thread(lambda: scan_source(src))
    large = [r for r in rows if r.payload and r.payload.endswith("large.payload.json")]
    assert jobs == [("child_verify_facts", "FsspecSource", base + "/p2%20large.payload.json")]
    assert len(large) == 1 and large[0].verified is True and large[0].descriptor.endswith("large.descriptor.json")
    assert large[0].facts == _verify_in_process(data, descriptor(data), len(data))[1]


def test_a_large_payload_gone_before_the_worker_reads_it_is_one_row_not_read(tmp_path):
    """A payload that vanishes between the listing and the worker's read costs its own row ("not read", with
    the source's reason), never the scan."""
    from inspector.session.folderscan import _row, _Unreadable, child_verify_facts
    from inspector.session.sources import Entry, LocalFolder

    gone = tmp_path / "gone.payload.json"
    report, facts = child_verify_facts(None, LocalFolder(str(tmp_path)), Entry(str(gone), gone.name, 5 << 20, ""),
                                       None)
    assert facts is None and report == _Unreadable(f"{gone}: cannot read (No such file or directory)")
    row = _row(None, None, report)
    assert (row.verified, row.summary) == (False, f"not read: {gone}: cannot read (No such file or directory)")


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join(120)
    assert out, "the scan did not finish"
    return out[0]


def test_names_are_paths_below_the_shared_folder_by_whole_folder_names():
    """Names below the folder the rows share, cut at whole folder names (``run`` and ``run2`` are two folders,
    not a shared ``run``); a line of a JSON Lines URL keeps its ``:N`` and loses the URL's query."""
    from inspector.session.folderscan import FolderRow
    from inspector.session.series import _names

    def rows(*paths):
        return [FolderRow(p, None, False, False, None, "") for p in paths]

    for given, want in (
            (("/r/run/p.json", "/r/run2/p.json"), ["run/p.json", "run2/p.json"]),
            (("/r/a/p.json", "/r/a/q.json"), ["p.json", "q.json"]),
            (("/r/a/p.json",), ["p.json"]),
            (("https://h/f/e.jsonl?sig=1:3", "https://h/f/e.jsonl?sig=1:5"), ["e.jsonl:3", "e.jsonl:5"]),
            (("http://h/f/p%201.json?sig=s3cr3t", "http://h/f/sub/d.json"), ["p 1.json", "sub/d.json"])):
        r = rows(*given)
        names = _names(r)
        assert [names[id(x)] for x in r] == want
