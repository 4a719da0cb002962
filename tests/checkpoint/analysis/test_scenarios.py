"""What our answers on top of the rules must say for the resume scenarios of FORMAT.md 4.17
(``shared/fixtures/scenarios``, vendored in ``tests/data``): every one is VERIFIED by the reference;
the integrity lint reports exactly the required kinds and none of the forbidden ones, the
resumability answer and its host-confirm items are as listed, and ``timeline --format json`` gives the
listed passes and boundary."""

from __future__ import annotations

import json

import pytest

from inspector.cli.main import main
from tests.conftest import SCENARIOS

ROWS = [json.loads(line) for line in (SCENARIOS / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]


def _run(capsys, *argv) -> tuple[int, dict]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


def test_there_are_ten_scenarios():
    assert [r["id"] for r in ROWS] == [
        "01-live-export-first-pass", "02-stream-retry", "03-clock-skew", "04-text-tool-ids", "05-immutable-adapter",
        "06-earlier-run-finished", "07-missing-pass-end", "08-session-usage-reset", "09-orphan-result",
        "10-duplicate-in-one-reply"]


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_verify_json_lint_and_resumability(row, capsys):
    code, obj = _run(capsys, "verify", "--format", "json", SCENARIOS / row["payload"], SCENARIOS / row["descriptor"])
    assert code == 0 and obj["verified"] is True  # the reference verifies every scenario
    kinds = [f["kind"] for f in obj["lint"]]
    assert [k for k in row["lint_required"] if k not in kinds] == []
    assert [k for k in row["lint_forbidden"] if k in kinds] == []
    res = obj["resumability"]
    if row["resumable"] is not None:
        assert (res["answer"] == "Resumable") is row["resumable"], res
    for word in row.get("unknowns_mention", ()):
        assert any(word in u["text"] for u in res["unknowns"]), res["unknowns"]


@pytest.mark.parametrize("row", [r for r in ROWS if "timeline" in r], ids=[r["id"] for r in ROWS if "timeline" in r])
def test_timeline_json_passes_and_boundary(row, capsys):
    code, obj = _run(capsys, "timeline", "--format", "json", SCENARIOS / row["payload"], SCENARIOS / row["descriptor"])
    assert code == 0
    got = {r["run_id"]: [[p["turn"], p["first_sequence"], p["last_sequence"]] for p in r["passes"]] for r in obj["runs"]}
    assert got == row["timeline"]
    b = obj["boundary"]
    assert [b["run_id"], b["after_sequence"]] == row["boundary"]


def test_stream_retry_is_one_pass_with_two_attempts(capsys):
    """02: pass 1's stream was retried under the same turn number: one pass, two attempts, the model
    call from the second attempt to turn_end 1, and the tool's span from its tool_start to its tool_end."""
    code, obj = _run(capsys, "timeline", "--format", "json", SCENARIOS / "02-stream-retry.payload.json")
    first = obj["runs"][0]["passes"][0]
    assert first["attempts"] == [1, 3]
    assert first["model_call"] == {"first_sequence": 3, "last_sequence": 7}
    assert first["tool_calls"] == [{"id": "toolu_1", "name": "bash", "first_sequence": 5, "last_sequence": 10,
                                    "streamed": True}]
    assert obj["boundary"] == {"run_id": "run-1", "after_sequence": 18, "turn": 2}


def test_text_tool_calls_without_streaming_start_at_their_execution(capsys):
    """04: calls recovered from text are not streamed: each starts at its tool_execution_start."""
    code, obj = _run(capsys, "timeline", "--format", "json", SCENARIOS / "04-text-tool-ids.payload.json")
    calls = [p["tool_calls"] for p in obj["runs"][0]["passes"]]
    assert calls == [[{"id": "text-tool-1", "name": "read", "first_sequence": 4, "last_sequence": 6, "streamed": False}],
                     [{"id": "text-tool-1", "name": "read", "first_sequence": 10, "last_sequence": 12,
                       "streamed": False}]]


def test_timeline_text_is_one_event_per_line_with_the_boundary_after_its_event(capsysbinary):
    code = main(["timeline", str(SCENARIOS / "03-clock-skew.payload.json")])
    out = capsysbinary.readouterr().out.decode()
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == ["SEQ", "TIME", "RUN", "PASS", "KIND", "SUMMARY"]
    assert lines[1].split() == ["0", "2026-08-29T10:40:00.010Z", "run-1", "-", "agent_start"]
    assert lines[14].split() == ["13", "2026-08-29T10:40:00.140Z", "run-1", "2", "turn_end", "turn", "2", "usage",
                                 "1200/80/1280"]
    assert lines[-2].split()[:5] == ["16", "2026-08-29T10:40:00.170Z", "run-1", "2", "tool_end"]
    assert lines[-1].split()[:3] == ["run-1", "2", "resume-boundary"]
    assert len(lines) == 1 + 17 + 1


def test_timeline_says_why_there_is_no_boundary(capsysbinary):
    """07: the loop checkpoint claims pass 2, which the run's events do not hold: no boundary, and why."""
    code = main(["timeline", str(SCENARIOS / "07-missing-pass-end.payload.json")])
    out = capsysbinary.readouterr().out.decode()
    assert code == 0
    assert out.splitlines()[-1] == ("(no resume boundary: pass 2 of run 'run-1' (the loop checkpoint's) is not among "
                                    "the run's retained events)")
    code = main(["timeline", "--format", "json", str(SCENARIOS / "07-missing-pass-end.payload.json")])
    obj = json.loads(capsysbinary.readouterr().out)
    assert obj["boundary"] is None and obj["boundary_reason"].startswith("pass 2 of run 'run-1'")


def test_timeline_of_a_payload_that_does_not_decode_exits_1(tmp_path, capsysbinary):
    cut = tmp_path / "cut.payload.json"
    cut.write_bytes((SCENARIOS / "02-stream-retry.payload.json").read_bytes()[:1000])
    code = main(["timeline", str(cut)])
    out, err = capsysbinary.readouterr()
    assert (code, out) == (1, b"")
    assert err.decode().startswith("checkpoint-inspector: the payload does not decode (P-PARSE: EOF while parsing")
    code = main(["timeline", str(SCENARIOS / "02-stream-retry.descriptor.json")])
    assert code == 2 and b"timeline needs a payload" in capsysbinary.readouterr().err
