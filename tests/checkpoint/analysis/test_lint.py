"""Integrity lint and the resumability answer: pinned on the golden pair, the
semantic-only golden, cases, and constructed payloads for every lint kind.

Constructed payloads are edits of ``cases-pinned/001-valid-rich-resume`` with the descriptor rebuilt
by the engine, so each one stays VERIFIED: lint findings never change a verdict.
"""

from __future__ import annotations

import json

import orjson
import pytest

from inspector.checkpoint import build_descriptor, encode, verify
from inspector.checkpoint.analysis.lint import LINT_KINDS, MAX_PER_KIND
from inspector.cli import render
from tests.conftest import CASES, CASES_PINNED, GOLDEN

RICH = "001-valid-rich-resume"


def _pair(folder, name):
    return (folder / f"{name}.payload.json").read_bytes(), (folder / f"{name}.descriptor.json").read_bytes()


def _rich() -> dict:
    return orjson.loads((CASES_PINNED / f"{RICH}.payload.json").read_bytes())


def _verify(pay: dict):
    data = encode(pay)
    return data, verify(data, encode(build_descriptor(orjson.loads(data), data)))


def _summary(report):
    return [(f.kind, f.blocks_resume, [x.pointer for x in f.locations]) for f in report.lint]


def _check_spans(data: bytes, report):
    """Every lint location's span holds exactly the canonical encoding of the value at its pointer."""
    value = orjson.loads(data)
    for f in report.lint:
        for loc in f.locations:
            node = value
            for tok in [t for t in loc.pointer.split("/")[1:]]:
                node = node[int(tok)] if isinstance(node, list) else node[tok]
            assert data[loc.span[0]:loc.span[1]] == encode(node), loc


def test_golden_with_resume_is_clean_and_resumable():
    p, d = (GOLDEN / "payload-with-resume.json").read_bytes(), (GOLDEN / "descriptor-with-resume.json").read_bytes()
    r = verify(p, d)
    assert r.lint == []
    res = r.resumability.to_json()
    assert res["answer"] == "Resumable"
    assert res["reasons"] == []
    assert [u["id"] for u in res["unknowns"]] == ["source-run-live-status", "host-cognitive-generation",
                                                  "host-runtime-options"]
    assert res["unknowns"][0]["text"].startswith("whether source run 'source-run' is still non-terminal")
    assert res["loadable_as_session"] is True


def test_golden_payload_alone_cannot_decide():
    r = verify((GOLDEN / "payload-with-resume.json").read_bytes(), None)
    assert r.resumability.answer == "Cannot decide from the artifact"
    assert [x.id for x in r.resumability.reasons] == ["no-descriptor"]


def test_semantic_only_golden_is_loadable_but_not_resumable():
    p, d = (GOLDEN / "payload-semantic-only.json").read_bytes(), (GOLDEN / "descriptor-semantic-only.json").read_bytes()
    r = verify(p, d)
    assert r.verified and r.lint == []
    res = r.resumability
    assert res.answer == "Not resumable"
    assert [(x.kind, x.id) for x in res.reasons] == [("artifact", "no-loop-checkpoint")]
    assert res.loadable_as_session is True and res.unknowns == ()
    assert res.headline == "Not resumable (no-loop-checkpoint)"
    # descriptor alone without logical_resume evidence decides it too
    assert verify(None, d).resumability.answer == "Not resumable"


def test_rich_case_in_loop_order_is_clean_and_resumable():
    """cases-pinned 001 is laid out as the upstream loop writes a run (FORMAT.md 4.17): pass 2's
    turn_end and tools come before the loop checkpoint, whatever the clocks say."""
    p, d = _pair(CASES_PINNED, RICH)
    r = verify(p, d)
    assert r.verified and r.lint == []
    res = r.resumability
    assert res.answer == "Resumable"
    assert [u.id for u in res.unknowns] == ["source-run-live-status", "host-cognitive-generation",
                                            "host-capability-generation", "host-runtime-options"]
    assert "(acme/projected-knowledge 1.0.3, lifecycle generation 3)" in res.unknowns[1].text
    assert "(code catalog generation 7, use generation 12)" in res.unknowns[2].text


@pytest.mark.parametrize("case, rule", [("39-p-source-completed", "L-SOURCE-TERMINAL"),
                                        ("40-p-source-absent", "L-SOURCE-RUN"),
                                        ("38-p-turn-zero", "L-BOUNDARY"),
                                        ("41-p-capability-mismatch", "L-CAPABILITY-MATCH")])
def test_failing_l_rule_decides_not_resumable(case, rule):
    r = verify(*_pair(CASES, case))
    res = r.resumability
    assert res.answer == "Not resumable"
    assert res.reasons[0].kind == "rule" and res.reasons[0].id == rule == r.root_cause.rule.id
    assert res.reasons[0].text == r.root_cause.message
    assert res.loadable_as_session is False


def test_boundary_naming_a_pass_the_run_does_not_show():
    """The loop checkpoint claims pass 3; the source run's events hold passes 1 and 2 (every event retained)."""
    pay = _rich()
    pay["logical_resume"]["turn"] = 3
    data, r = _verify(pay)
    assert r.verified
    assert ("boundary-rounds", False, ["/logical_resume/turn", "/snapshot/run_records/1"]) in _summary(r)
    f = next(x for x in r.lint if x.kind == "boundary-rounds")
    assert f.explanation == ("The loop checkpoint says pass 3 completed, but source run 'run-source' records passes "
                             "1 to 2: the resume would continue from a point the run's events do not show (A3S Code "
                             "writes the checkpoint of pass N only after turn_end N and the pass's tools).")
    _check_spans(data, r)


def test_orphan_result_and_unanswered_call_block_the_resume():
    pay = _rich()
    pay["logical_resume"]["messages"][2]["content"][0]["tool_use_id"] = "toolu_9"
    data, r = _verify(pay)
    assert r.verified  # lint never changes a verdict
    assert _summary(r)[:2] == [
        ("orphan-tool-result", True, ["/logical_resume/messages/2/content/0"]),
        ("unanswered-tool-call", True, ["/logical_resume/messages/1/content/1"]),
    ]
    assert r.lint[0].explanation == ("This tool result answers tool call 'toolu_9', which the reply before it in the "
                                     "loop checkpoint's messages does not make: the model provider would reject a "
                                     "request holding it (the import itself accepts it).")
    assert r.lint[1].explanation == ("Tool call 'toolu_1' (bash) has no result before the resume boundary: the model "
                                     "provider would reject a request holding a call without its result (the import "
                                     "itself accepts it).")
    _check_spans(data, r)
    res = r.resumability
    assert res.answer == "Not resumable"
    assert [(x.kind, x.id) for x in res.reasons] == [("lint", "orphan-tool-result"), ("lint", "unanswered-tool-call")]
    assert res.loadable_as_session is True


def test_session_messages_findings_warn_only():
    pay = _rich()
    del pay["snapshot"]["session"]["messages"][2]
    data, r = _verify(pay)
    assert ("unanswered-tool-call", False, ["/snapshot/session/messages/1/content/1"]) in _summary(r)
    assert r.resumability.answer == "Resumable"


def test_duplicate_tool_call_id_within_one_reply_blocks():
    """Two calls of one reply share an id: their results cannot be matched (FORMAT.md 4.17)."""
    pay = _rich()
    msg = pay["logical_resume"]["messages"][1]["content"]
    msg.append(dict(msg[1]))
    data, r = _verify(pay)
    dup = [x for x in _summary(r) if x[0] == "duplicate-tool-call-id"]
    assert dup == [("duplicate-tool-call-id", True,
                    ["/logical_resume/messages/1/content/2", "/logical_resume/messages/1/content/1"])]
    _check_spans(data, r)
    assert "duplicate-tool-call-id" in [x.id for x in r.resumability.reasons]
    assert r.resumability.answer == "Not resumable"


def test_duplicate_tool_call_id_across_replies_is_a_warning():
    """Upstream names calls recovered from text text-tool-1, text-tool-2, ... afresh in every pass: an id
    reused by a later reply, each answered in its own reply, is a warning and the resume is not blocked."""
    pay = _rich()
    msgs = pay["logical_resume"]["messages"]
    call, result = msgs[1]["content"][1], msgs[2]["content"][0]
    msgs += [{"content": [dict(call)], "role": "assistant"}, {"content": [dict(result)], "role": "user"}]
    data, r = _verify(pay)
    dup = [x for x in _summary(r) if x[0] == "duplicate-tool-call-id"]
    at = len(msgs) - 2
    assert dup == [("duplicate-tool-call-id", False,
                    [f"/logical_resume/messages/{at}/content/0", "/logical_resume/messages/1/content/1"])]
    assert r.resumability.answer == "Resumable"
    assert [x for x in _summary(r) if x[0] in ("orphan-tool-result", "unanswered-tool-call")] == []


def test_boundary_agreeing_with_events_and_usage():
    pay = _rich()
    lr = pay["logical_resume"]
    lr["turn"] = 1
    data, r = _verify(pay)
    # pass 1 completed (its turn_end is there); the total usage still counts two passes
    assert _summary(r) == [("usage-mismatch", False, ["/logical_resume/total_usage", "/snapshot/run_records/1"])]
    assert r.lint[0].explanation == ("The loop checkpoint's total_usage (prompt/completion/total 2400/160/2560) differs "
                                     "from the sum of the source run's turn_end usage for passes 1..1 (1200/80/1280); "
                                     "A3S Code writes that sum.")
    _check_spans(data, r)
    lr["total_usage"].update(prompt_tokens=1200, completion_tokens=80, total_tokens=1280)
    data, r = _verify(pay)
    assert r.lint == [] and r.resumability.answer == "Resumable"


def test_session_usage_counts_only_finished_runs():
    """The session's usage grows when a run ends (agent_end): a run in flight never counts, a finished
    run's agent_end usage always does (FORMAT.md 4.17)."""
    pay = _rich()
    pay["snapshot"]["session"]["total_usage"].update(prompt_tokens=100, completion_tokens=10, total_tokens=110)
    data, r = _verify(pay)  # run-source is in flight and the other run never ended: nothing to compare
    assert [x for x in _summary(r) if x[0] == "usage-mismatch"] == []
    rec = pay["snapshot"]["run_records"][0]
    last = rec["events"][-1]
    usage = {"cache_read_tokens": None, "cache_write_tokens": None, "completion_tokens": 20, "prompt_tokens": 300,
             "total_tokens": 320}
    summary = {"failed_check_count": 0, "pending_required_check_count": 0, "pending_subjects": [], "report_count": 0,
               "required_check_count": 0, "residual_risk_count": 0, "status": "passed"}
    rec["events"].append({"event": {"text": "Done.", "type": "agent_end", "usage": usage,
                                    "verification_summary": summary},
                          "sequence": last["sequence"] + 1,
                          "timestamp_ms": last["timestamp_ms"] + 1})
    rec["snapshot"]["event_count"] = last["sequence"] + 2
    data, r = _verify(pay)
    assert ("usage-mismatch", False, ["/snapshot/session/total_usage"]) in _summary(r)
    f = next(x for x in r.lint if x.locations[0].pointer == "/snapshot/session/total_usage")
    assert f.explanation == ("The session's total_usage (prompt/completion/total 100/10/110) is smaller than the usage "
                             "its finished runs' agent_end events record (300/20/320); A3S Code adds a run's usage to "
                             "the session when the run ends, so a counter was reset or the runs belong to another "
                             "session.")


def test_event_sequence_gap():
    pay = _rich()
    del pay["snapshot"]["run_records"][1]["events"][5]  # sequence 5 (text_delta)
    data, r = _verify(pay)
    assert r.verified
    gaps = [x for x in _summary(r) if x[0] == "event-sequence-gap"]
    assert gaps == [("event-sequence-gap", False, ["/snapshot/run_records/1/events/5/sequence",
                                                   "/snapshot/run_records/1/events/4/sequence"])]
    assert r.lint[-1].explanation == ("Run 'run-source' goes from event 4 to event 6: 1 event(s) in between are "
                                      "missing, so what happened there cannot be seen.")
    _check_spans(data, r)


def test_many_findings_are_capped():
    pay = _rich()
    events = pay["snapshot"]["run_records"][1]["events"]
    for i, ev in enumerate(events):
        ev["sequence"] = 2 * i
    pay["snapshot"]["run_records"][1]["snapshot"]["event_count"] = 2 * len(events)
    data, r = _verify(pay)
    gaps = [x for x in r.lint if x.kind == "event-sequence-gap"]
    assert len(gaps) == len(events) - 1 <= MAX_PER_KIND and gaps[-1].more == 0


def test_findings_past_the_cap_are_counted_on_the_last_one_kept():
    """Only MAX_PER_KIND findings of a kind are kept, in document order (the session's messages before
    the loop checkpoint's); the last kept one counts the rest."""
    pay = _rich()
    rec = pay["snapshot"]["run_records"][1]
    template = rec["events"][-1]
    rec["events"] = [dict(template, sequence=3 * i) for i in range(260)]  # 259 gaps of 2 events
    rec["snapshot"]["event_count"] = 3 * 259 + 1
    orphan = {"content": "ok", "is_error": False, "type": "tool_result"}
    session_msgs, loop_msgs = pay["snapshot"]["session"]["messages"], pay["logical_resume"]["messages"]
    session_msgs.append({"content": [dict(orphan, tool_use_id=f"s{k}") for k in range(80)], "role": "user"})
    loop_msgs.append({"content": [dict(orphan, tool_use_id=f"l{k}") for k in range(40)], "role": "user"})
    data, r = _verify(pay)
    assert r.verified
    gaps = [f for f in r.lint if f.kind == "event-sequence-gap"]
    assert len(gaps) == MAX_PER_KIND
    assert [x.pointer for x in gaps[0].locations] == ["/snapshot/run_records/1/events/1/sequence",
                                                      "/snapshot/run_records/1/events/0/sequence"]
    assert [x.pointer for x in gaps[-1].locations] == ["/snapshot/run_records/1/events/100/sequence",
                                                       "/snapshot/run_records/1/events/99/sequence"]
    assert gaps[-1].explanation == ("Run 'run-source' goes from event 297 to event 300: 2 event(s) in between are "
                                    "missing, so what happened there cannot be seen.")
    assert [f.more for f in gaps] == [0] * 99 + [159]
    orphans = [f for f in r.lint if f.kind == "orphan-tool-result"]
    s_at, l_at = len(session_msgs) - 1, len(loop_msgs) - 1
    assert [x.locations[0].pointer for x in orphans] == (
        [f"/snapshot/session/messages/{s_at}/content/{k}" for k in range(80)]
        + [f"/logical_resume/messages/{l_at}/content/{k}" for k in range(20)])
    assert [f.more for f in orphans] == [0] * 99 + [20]
    assert [f.blocks_resume for f in orphans] == [False] * 80 + [True] * 20
    assert orphans[0].explanation == ("This tool result answers tool call 's0', which the reply before it in the "
                                      "session's messages does not make: the model provider would reject a request "
                                      "holding it (the import itself accepts it).")
    kinds = [f.kind for f in r.lint]
    assert kinds == sorted(kinds, key=list(LINT_KINDS).index)
    assert json.loads(render.to_json(r))["lint"][MAX_PER_KIND - 1]["more"] == 20
    _check_spans(data, r)


def test_every_kind_has_a_constructed_case():
    # the tests above construct each of these kinds
    assert set(LINT_KINDS) == {"orphan-tool-result", "unanswered-tool-call", "duplicate-tool-call-id",
                               "boundary-rounds", "event-sequence-gap", "usage-mismatch"}


def test_cli_json_and_text_sections():
    p, d = _pair(CASES, "39-p-source-completed")
    r = verify(p, d)
    obj = json.loads(render.to_json(r))
    assert obj["resumability"]["answer"] == "Not resumable"
    assert obj["resumability"]["reasons"][0]["id"] == "L-SOURCE-TERMINAL"
    assert obj["resumability"]["reasons"][0]["location"] == {
        "source": "payload", "pointer": "/snapshot/run_records/1/snapshot/status", "span": {"start": 3453, "end": 3464}}
    assert [x["kind"] for x in obj["lint"]] == ["boundary-rounds"]
    assert obj["rules"] and "lint" not in {x["id"] for x in obj["rules"]}
    text = render.to_text(r)
    assert "\nResumability: Not resumable (L-SOURCE-TERMINAL)\n  because: invalid session checkpoint payload: " \
           "logical resume source run \"run-1-0751\" is already terminal\n" in text
    assert "\nIntegrity lint (1 finding(s); not rules of the reference, never change the verdict):\n" \
           "  boundary-rounds: The loop checkpoint says pass 4 completed, but source run 'run-1-0751' records no " \
           "pass at all" in text


def test_replies_end_at_every_assistant_message_and_a_second_result_is_an_orphan():
    """A reply's calls must be answered before the next assistant message, by a result outside the reply;
    a second result for one call is reported (FORMAT.md 4.17: one result per call)."""
    pay = _rich()
    msgs = pay["logical_resume"]["messages"]
    result = msgs[2]["content"][0]
    msgs[2]["content"].append(dict(result))  # toolu_1 answered twice
    data, r = _verify(pay)
    orphans = [x for x in r.lint if x.kind == "orphan-tool-result"]
    assert [x.locations[0].pointer for x in orphans] == ["/logical_resume/messages/2/content/1"]
    assert orphans[0].explanation.startswith("This tool result answers tool call 'toolu_1' again in the loop "
                                             "checkpoint's messages: its call was answered already")
    pay = _rich()
    msgs = pay["logical_resume"]["messages"]
    msgs.insert(2, {"content": [{"text": "thinking aloud", "type": "text"}], "role": "assistant"})
    data, r = _verify(pay)  # a reply came between the call and its result
    assert ("unanswered-tool-call", True, ["/logical_resume/messages/1/content/1"]) in _summary(r)
    assert ("orphan-tool-result", True, ["/logical_resume/messages/3/content/0"]) in _summary(r)


def test_a_failed_run_never_adds_its_usage_to_the_session():
    pay = _rich()
    pay["snapshot"]["session"]["total_usage"].update(prompt_tokens=0, completion_tokens=0, total_tokens=0)
    rec = pay["snapshot"]["run_records"][0]
    last = rec["events"][-1]
    summary = {"failed_check_count": 0, "pending_required_check_count": 0, "pending_subjects": [], "report_count": 0,
               "required_check_count": 0, "residual_risk_count": 0, "status": "passed"}
    usage = {"cache_read_tokens": None, "cache_write_tokens": None, "completion_tokens": 20, "prompt_tokens": 300,
             "total_tokens": 320}
    rec["events"].append({"event": {"text": "Done.", "type": "agent_end", "usage": usage, "verification_summary": summary},
                          "sequence": last["sequence"] + 1, "timestamp_ms": last["timestamp_ms"] + 1})
    rec["snapshot"]["event_count"] = last["sequence"] + 2
    rec["snapshot"]["status"] = "failed"
    data, r = _verify(pay)
    assert [x for x in _summary(r) if x[0] == "usage-mismatch"] == []
    rec["snapshot"]["status"] = "completed"
    data, r = _verify(pay)
    assert ("usage-mismatch", False, ["/snapshot/session/total_usage"]) in _summary(r)
