"""``checkpoint-inspector scan`` on the FORMAT.md 4.18 cases (tests/session/data/series): the exact text and
JSON of the latest resumable answer, and the exit code."""

from __future__ import annotations

import json

from inspector.cli.main import main as cli_main
from tests.session.make_series import OUT


def test_clock_skew_names_the_latest_by_history_and_exits_0(capsys):
    assert cli_main(["scan", str(OUT / "clock-skew")]) == 0  # (expected.json is listed as another file)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        "session s-clock-skew: 3 checkpoints, 3 verified; latest resumable: p3.payload.json (run run-1 pass 3)",
        "    1. p1.payload.json                          run run-1 pass 1: VERIFIED, resumable",
        "    2. p2.payload.json                          run run-1 pass 2: VERIFIED, resumable",
        "    3. p3.payload.json                          run run-1 pass 3: VERIFIED, resumable"]


def test_a_fork_at_the_head_names_no_latest_in_text_and_json(capsys):
    folder = str(OUT / "fork-at-head")
    assert cli_main(["scan", folder]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("session s-fork-at-head: 3 checkpoints, 3 verified; no single latest: fork at run run-1 "
                        "pass 2 (branches p2a.payload.json, p2b.payload.json)")
    assert "  fork: run run-1, pass 2: p2a.payload.json, p2b.payload.json are different exports" in lines
    assert cli_main(["scan", folder, "--format", "json"]) == 0
    (s,) = json.loads(capsys.readouterr().out)["sessions"]
    assert (s["latest_resumable"], s["latest"]) == (None, ["p2a.payload.json", "p2b.payload.json"])
    assert s["no_single_latest"] == {"run_id": "run-1", "passes": 2, "names": ["p2a.payload.json", "p2b.payload.json"],
                                     "diverged": False, "positions": [["run-1", 2], ["run-1", 2]],
                                     "branches": ["p2a.payload.json", "p2b.payload.json"]}


def test_a_later_export_that_does_not_verify_says_why_and_exits_1(capsys):
    assert cli_main(["scan", str(OUT / "resaved-at-head")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "session s-resaved-at-head: 2 checkpoints, 1 verified; latest resumable: p1.payload.json (run run-1 pass 1)",
        "  not resumable: p2 resaved.payload.json: does not verify (FAIL X-BYTES); restorable: a re-saved copy of "
        "the export, proven by its SHA-256"]


def test_gaps_missing_and_unknown_in_text(capsys):
    assert cli_main(["scan", str(OUT / "trimmed")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  gap: run run-1: no export at pass 3 (between passes 1 and 4)" in lines
    assert "  unknown: run run-1: pass 2 trimmed away (between passes 1 and 4)" in lines
    assert cli_main(["scan", str(OUT / "continuation")]) == 0
    assert not any("gap" in x or "unknown" in x for x in capsys.readouterr().out.splitlines())


def test_a_recursive_scan_names_files_by_their_subfolder(tmp_path, capsys):
    """The fork-at-head series split over two subfolders, each branch under the same file name: the fork's
    branches and the other files are named by their path below the scanned folder (FORMAT.md 4.18 names the
    fork and its branches), never two identical names."""
    import shutil

    src = OUT / "fork-at-head"
    for sub, names in (("a", ("p1", "p2a")), ("b", ("p2b",))):
        (tmp_path / sub).mkdir()
        for n in names:
            for half in ("payload", "descriptor"):
                target = "p2a" if n == "p2b" else n  # (b/ holds the other branch under the same name)
                shutil.copyfile(src / f"{n}.{half}.json", tmp_path / sub / f"{target}.{half}.json")
    (tmp_path / "b" / "notes.txt").write_text("not a checkpoint")
    assert cli_main(["scan", "-r", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no single latest: fork at run run-1 pass 2 (branches a/p2a.payload.json, b/p2a.payload.json)" in out
    assert "  b/notes.txt: " in out
    assert cli_main(["scan", "-r", "--format", "json", str(tmp_path)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in s["sessions"][0]["series"]] == ["a/p1.payload.json", "a/p2a.payload.json",
                                                                "b/p2a.payload.json"]
    assert [o["name"] for o in s["other_files"]] == ["b/notes.txt"]


def test_watch_intervals_must_be_positive(capsys):
    """--interval 0 on a URL sent thousands of listings a second: a usage error (exit 2) instead."""
    for args in (["--interval", "0"], ["--interval", "-1"], ["--settle", "-5"], ["--pair-wait", "-1"]):
        assert cli_main(["scan", "--watch", "--format", "jsonl", *args, str(OUT / "clock-skew")]) == 2
        flag = args[0]
        assert capsys.readouterr().err == (f"checkpoint-inspector: {flag} takes a number of seconds from 0.05 to "
                                           "86400\n")
