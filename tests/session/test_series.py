"""A session's checkpoints in order (issue 26; inspector/session/series.py and ``checkpoint-inspector scan``): a
folder holding two interleaved sessions of several checkpoints each, a copy damaged in transport, a fork, a
duplicate under another name and files that are not checkpoints; the JSON is pinned in data/series.json."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import orjson

from inspector.checkpoint import build_descriptor, decode, encode
from inspector.cli.main import main as cli_main
from inspector.session.folderscan import scan_folder
from inspector.session.series import group_series, series_json
from tests.conftest import GOLDEN

PINS = Path(__file__).parent / "data" / "series.json"


def _checkpoint(session: str, turn: int, ms: int, prompt: str = "continue") -> tuple[bytes, bytes]:
    """The golden checkpoint as session ``session`` after ``turn`` completed passes at ``ms``: (payload, descriptor),
    both as the reference writes them."""
    v = orjson.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    v["logical_resume"].update(turn=turn, checkpoint_ms=ms, session_id=session)
    v["snapshot"]["session"]["id"] = session
    for r in v["snapshot"]["run_records"]:
        r["snapshot"].update(session_id=session, prompt=prompt)
    payload = encode(v)
    return payload, encode(build_descriptor(decode(payload), payload))


def build_folder(folder: Path) -> Path:
    """alpha: passes 1, 2 (re-saved with CRLF: damaged in transport), 4 and a fork at 4 (3 is missing); beta:
    passes 1, 2, 3 and a copy of 2 under another name; interleaved in time; and two files that are not
    checkpoints."""
    folder.mkdir()
    made = {"alpha-1": ("alpha", 1, 1700000001000), "alpha-2": ("alpha", 2, 1700000002000),
            "alpha-4": ("alpha", 4, 1700000004000), "alpha-4b": ("alpha", 4, 1700000004100, "other"),
            "beta-1": ("beta", 1, 1700000001500), "beta-2": ("beta", 2, 1700000002500),
            "beta-3": ("beta", 3, 1700000003500)}
    for name, args in made.items():
        payload, descriptor = _checkpoint(*args)
        if name == "alpha-2":
            payload = orjson.dumps(orjson.loads(payload), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n")
        (folder / f"{name}.payload.json").write_bytes(payload)
        (folder / f"{name}.descriptor.json").write_bytes(descriptor)
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
    got = _scan(build_folder(tmp_path / "f"))
    alpha, beta = got["sessions"]
    assert [e["name"] for e in alpha["series"]] == ["alpha-1.payload.json", "alpha-2.payload.json",
                                                    "alpha-4.payload.json", "alpha-4b.payload.json"]
    assert [e["passes"] for e in beta["series"]] == [1, 2, 2, 3]
    assert alpha["gaps"] == [{"run_id": "source-run", "after": 2, "before": 4, "missing": [3]}]
    assert alpha["forks"] == [{"run_id": "source-run", "passes": 4,
                               "names": ["alpha-4.payload.json", "alpha-4b.payload.json"]}]
    assert beta["duplicates"] == [["beta-2.payload.json", "copy of beta-2.payload.json"]]
    assert (alpha["verified"], alpha["latest_resumable"], beta["latest_resumable"]) == (
        3, "alpha-4b.payload.json", "beta-3.payload.json")
    damaged = alpha["series"][1]
    assert (damaged["verified"], damaged["root_cause"], damaged["restorable"]) == (False, "X-BYTES", True)
    assert [f["name"] for f in got["other_files"]] == ["notes.txt", "package.json"]
    assert got == json.loads(PINS.read_text(encoding="utf-8"))


def test_the_scan_command_prints_the_same_json_and_exits_1_for_the_damaged_copy(tmp_path, capsys):
    folder = build_folder(tmp_path / "f")
    assert cli_main(["scan", str(folder), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == json.loads(PINS.read_text(encoding="utf-8"))
    assert cli_main(["scan", str(folder)]) == 1
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "session alpha: 4 checkpoints, 3 verified; latest resumable: alpha-4b.payload.json (pass 4)"
    assert "  gap: run source-run: no checkpoint at pass 3 (between passes 2 and 4)" in text
    assert "  duplicate: beta-2.payload.json = copy of beta-2.payload.json (the same content)" in text


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


def test_a_fork_names_each_content_once_and_its_copies_stay_duplicates(tmp_path):
    """Two contents at one pass, one of them under two names: the fork names one file per content (a newcomer
    read "a, a's copy and b differ in content" next to "a = a's copy (the same content)")."""
    folder = tmp_path / "f"
    folder.mkdir()
    for name, args in {"a": ("gamma", 4, 1700000004000), "b": ("gamma", 4, 1700000004100, "other")}.items():
        payload, descriptor = _checkpoint(*args)
        (folder / f"{name}.payload.json").write_bytes(payload)
        (folder / f"{name}.descriptor.json").write_bytes(descriptor)
    for suffix in ("payload", "descriptor"):
        shutil.copyfile(folder / f"a.{suffix}.json", folder / f"a copy.{suffix}.json")
    (gamma,) = _scan(folder)["sessions"]
    assert gamma["forks"] == [{"run_id": "source-run", "passes": 4, "names": ["a copy.payload.json", "b.payload.json"]}]
    assert gamma["duplicates"] == [["a copy.payload.json", "a.payload.json"]]
