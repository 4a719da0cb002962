"""``timeline --format json`` written piece by piece (FORMAT.md 4.17): the same bytes ``json.dumps`` writes.

:func:`timeline_json_pieces` streams the document a few thousand passes at a time through orjson; what it must
write is ``json.dumps({"schema", **timeline_json(pay), "boundary_reason"}, indent=2, ensure_ascii=False)``, the
document built whole (what the command wrote before). The scenarios, the shared cases and generated runs (ids with
quotes, control characters and text from other scripts; passes cut at every chunk size) hold it to those bytes, and
:class:`BoundaryWatch` to the resume boundary the passes give.
"""

from __future__ import annotations

import copy
import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector import jsonschemas
from inspector.checkpoint import Context
from inspector.checkpoint.analysis.passes import Boundary, BoundaryWatch, boundary_of, run_passes, timeline_json
from inspector.cli.main import main
from inspector.cli.timeline import boundary_reason, timeline_json_pieces
from tests.conftest import CASES, GOLDEN, SCENARIOS


def _whole(pay: dict) -> bytes:
    doc = {"schema": jsonschemas.TIMELINE, **timeline_json(pay)}
    doc["boundary_reason"] = boundary_reason(pay)
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _streamed(pay: dict, chunk: int = 10_000) -> bytes:
    return b"".join(timeline_json_pieces(pay, chunk))


def _payloads():
    out = sorted(SCENARIOS.glob("*.payload.json")) + [GOLDEN / "payload-with-resume.json",
                                                        GOLDEN / "payload-semantic-only.json"]
    out += sorted(CASES.glob("*.payload.json"))
    return out


@pytest.mark.parametrize("path", _payloads(), ids=lambda p: p.name)
def test_streamed_bytes_equal_the_whole_document(path):
    pay, err = Context(path.read_bytes(), None, raw_text=True).pay_result
    if err is not None:
        pytest.skip("does not decode: the command stops at P-PARSE")
    whole = _whole(pay)
    for chunk in (1, 2, 3, 10_000):
        assert _streamed(pay, chunk) == whole


def test_the_stream_retry_scenario_byte_for_byte(capsys):
    """02: one pass with two attempts; the command's standard output is the whole document's bytes."""
    path = SCENARIOS / "02-stream-retry.payload.json"
    assert main(["timeline", "--format", "json", str(path)]) == 0
    out = capsys.readouterr().out
    pay, _ = Context(path.read_bytes(), None).pay_result
    assert out.encode("utf-8") == _whole(pay)
    doc = json.loads(out)
    assert [[p["turn"], p["attempts"]] for p in doc["runs"][0]["passes"]][:1] == [[1, [1, 3]]]


def test_no_runs_no_passes_no_loop_checkpoint():
    base = orjson.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    empty = copy.deepcopy(base)
    empty["snapshot"]["run_records"] = []
    assert _streamed(empty) == _whole(empty)
    assert b'"runs": [],\n  "boundary": null,' in _streamed(empty)
    quiet = copy.deepcopy(base)
    for rec in quiet["snapshot"]["run_records"]:
        rec["events"] = []
    assert _streamed(quiet) == _whole(quiet)
    assert b'"passes": []\n    }' in _streamed(quiet)
    alone = copy.deepcopy(base)
    alone["logical_resume"] = None
    assert _streamed(alone) == _whole(alone)
    assert json.loads(_streamed(alone))["boundary_reason"] == (
        "the payload has no loop checkpoint (logical_resume): nothing to resume")


_IDS = st.one_of(st.text(max_size=6), st.sampled_from(['"', "\\", "\n\t\x00\x1f\x7f", "\u2028", "日本", "🙂", "é́"]))


@st.composite
def _runs(draw):
    runs = []
    for r in range(draw(st.integers(0, 3))):
        events, seq = [], 0
        for _ in range(draw(st.integers(0, 25))):
            kind = draw(st.sampled_from(["turn_start", "turn_end", "tool_start", "tool_execution_start", "tool_end",
                                         "text_delta", "agent_start"]))
            body = {"type": kind}
            if kind in ("turn_start", "turn_end"):
                body["turn"] = draw(st.integers(1, 4))
            elif kind.startswith("tool"):
                body["id"] = draw(_IDS)
                body["name"] = draw(_IDS)
            seq += draw(st.integers(1, 3))
            events.append({"sequence": seq, "timestamp_ms": 0, "event": body})
        runs.append({"snapshot": {"id": draw(st.sampled_from(["run-1", "run-2", "ünï\"code"]))}, "events": events})
    return runs


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs(), st.sampled_from(["run-1", "run-2", "nowhere"]), st.integers(1, 4), st.integers(1, 4),
       st.booleans())
def test_generated_runs_stream_to_the_same_bytes_and_boundary(runs, source, turn, chunk, resumes):
    pay = {"snapshot": {"run_records": runs},
           "logical_resume": {"run_id": source, "turn": turn} if resumes else None}
    streamed = _streamed(pay, chunk)
    assert streamed == _whole(pay)
    # the boundary the watch found is the last pass numbered `turn` of the first run with the source's id
    expected = None
    if resumes:
        for rp in run_passes(pay):
            if rp.run_id == source:
                match = [p for p in rp.passes if p.turn == turn]
                if match:
                    expected = Boundary(rp.run_id, rp.record, turn, match[-1].last_sequence, match[-1].last_index)
                break
    assert boundary_of(pay) == expected
    assert json.loads(streamed)["boundary"] == (None if expected is None else expected.to_json())


def test_the_watch_stops_at_the_first_source_run():
    """Two records with the source's id: the first decides, even when only the second has the pass."""
    first = {"snapshot": {"id": "r"}, "events": [{"sequence": 1, "event": {"type": "turn_start", "turn": 1}}]}
    second = {"snapshot": {"id": "r"}, "events": [{"sequence": 9, "event": {"type": "turn_start", "turn": 2}}]}
    pay = {"snapshot": {"run_records": [first, second]}, "logical_resume": {"run_id": "r", "turn": 2}}
    watch = BoundaryWatch(pay)
    for record, rp in enumerate(run_passes(pay)):
        watch.start(rp.run_id, record)
        for p in rp.passes:
            watch.see(p)
        watch.end()
    assert watch.done and watch.boundary is None and boundary_of(pay) is None
    pay["logical_resume"]["turn"] = 1
    assert boundary_of(pay) == Boundary("r", 0, 1, 1, 0)


def test_the_stream_stops_when_the_reader_goes_away():
    """``out`` says False once the reader went away (``| head``): no further piece is made, and the exit is 0."""
    from types import SimpleNamespace

    from inspector.cli.common import UsageError, read_file
    from inspector.cli.timeline import cmd_timeline

    calls = []
    args = SimpleNamespace(files=[str(SCENARIOS / "02-stream-retry.payload.json")], format="json")
    code = cmd_timeline(args, read_file, UsageError, lambda piece: calls.append(piece) or False, print)
    assert code == 0 and len(calls) == 1 and calls[0].startswith(b'{\n  "schema": ')
