"""passes.py: a run's events grouped as the agent loop writes them (FORMAT.md 4.17), on edge cases the
scenarios do not hold."""

from __future__ import annotations

from inspector.checkpoint.analysis.passes import passes_of


def _events(*kinds):
    out = []
    for k in kinds:
        kind, extra = (k, {}) if isinstance(k, str) else k
        out.append({"sequence": len(out), "timestamp_ms": 1000 + len(out), "event": {"type": kind, **extra}})
    return out


def test_a_retry_before_turn_end_restarts_the_model_call():
    ev = _events("agent_start", ("turn_start", {"turn": 1}), "text_delta", ("turn_start", {"turn": 1}),
                 ("turn_end", {"turn": 1}))
    (p,) = passes_of(ev)
    assert (p.turn, p.first_sequence, p.last_sequence, p.attempts, p.model_call) == (1, 1, 4, [1, 3], (3, 4))


def test_a_turn_start_after_turn_end_keeps_the_ended_call():
    ev = _events(("turn_start", {"turn": 1}), ("turn_end", {"turn": 1}), ("turn_start", {"turn": 1}), "text_delta")
    (p,) = passes_of(ev)
    assert p.attempts == [0, 2] and p.model_call == (0, 1) and p.model_call_index == (0, 1)


def test_two_calls_of_one_reply_with_one_id_stay_two_and_pair_in_order():
    ev = _events(("turn_start", {"turn": 1}), ("tool_start", {"id": "a", "name": "bash"}),
                 ("tool_start", {"id": "a", "name": "bash"}), ("turn_end", {"turn": 1}),
                 ("tool_execution_start", {"id": "a", "name": "bash"}), ("tool_end", {"id": "a", "name": "bash"}),
                 ("tool_execution_start", {"id": "a", "name": "bash"}), ("tool_end", {"id": "a", "name": "bash"}))
    (p,) = passes_of(ev)
    assert [(c.first_sequence, c.last_sequence, c.streamed) for c in p.tool_calls] == [(1, 5, True), (2, 7, True)]


def test_events_before_the_first_pass_belong_to_none_and_a_new_number_starts_a_pass():
    ev = _events("agent_start", "agent_mode_changed", ("turn_start", {"turn": 4}), ("turn_end", {"turn": 4}),
                 ("tool_execution_start", {"id": "x", "name": "read"}), ("turn_start", {"turn": 5}))
    p4, p5 = passes_of(ev)
    assert (p4.turn, p4.first_sequence, p4.last_sequence) == (4, 2, 4)
    assert (p5.turn, p5.first_sequence, p5.last_sequence, p5.model_call) == (5, 5, 5, (5, None))
    assert [(c.id, c.first_sequence, c.last_sequence, c.streamed) for c in p4.tool_calls] == [("x", 4, None, False)]
